"""Pictures of topologies: DOT text, SVG through Graphviz, the HTML table fallback."""

import importlib.util
import pathlib
import re

import pytest

import paddle_lite as paddle
from paddle_lite._src import topology_dot

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _demo():
    spec = importlib.util.spec_from_file_location("demo_for_dot", EXAMPLES / "demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _edges(dot):
    return re.findall(r'^\s*"([^"]+)" -> "([^"]+)"', dot, flags=re.M)


def _nodes(dot):
    return re.findall(r'^\s*"([^"]+)" \[label=', dot, flags=re.M)


def test_ranking_model_towers_point_at_the_same_shared_parameters():
    topo = paddle.topology.Topology(_demo().ranking_model())
    dot = topo.to_dot()
    nodes = _nodes(dot)
    # each shared parameter is drawn exactly once ...
    for name in ("embedding", "semantic", "semantic.wbias"):
        assert nodes.count(f"P:{name}") == 1
    assert [n for n in nodes if n.startswith("P:")] == [
        "P:embedding",
        "P:semantic",
        "P:semantic.wbias",
    ]
    edges = _edges(dot)
    users = {p: sorted(dst for src, dst in edges if src == f"P:{p}") for p in ("embedding",)}
    # ... and linked to the layer of every tower that uses it
    assert users["embedding"] == ["L:__embedding_0__", "L:__embedding_1__", "L:__embedding_2__"]
    fcs = sorted(dst for src, dst in edges if src == "P:semantic")
    assert fcs == ["L:__fc_layer_0__", "L:__fc_layer_1__", "L:__fc_layer_2__"]
    # the three towers start at their own data layers A, B and Q
    for tower, emb in (("A", 0), ("B", 1), ("Q", 2)):
        assert (f"L:{tower}", f"L:__embedding_{emb}__") in edges
    assert 'label="embedding\\n1000x32\\nshared by 3"' in dot
    assert 'label="__fc_layer_0__\\nfc: 16 (softmax)"' in dot


def test_layer_edges_follow_the_inputs_and_output_sizes_are_labelled():
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
    h = paddle.layer.fc(input=x, size=4, act=paddle.activation.Relu())
    y = paddle.layer.fc(input=h, size=1, act=paddle.activation.Linear())
    dot = paddle.topology.Topology(y).to_dot()
    assert _edges(dot) == [
        ("L:x", "L:__fc_layer_0__"),
        ("L:__fc_layer_0__", "L:__fc_layer_1__"),
        ("P:___fc_layer_0__.w0", "L:__fc_layer_0__"),
        ("P:___fc_layer_0__.wbias", "L:__fc_layer_0__"),
        ("P:___fc_layer_1__.w0", "L:__fc_layer_1__"),
        ("P:___fc_layer_1__.wbias", "L:__fc_layer_1__"),
    ]
    assert 'label="__fc_layer_0__\\nfc: 4 (relu)"' in dot
    assert 'label="__fc_layer_1__\\nfc: 1"' in dot  # linear: no activation noted
    assert 'label="___fc_layer_0__.w0\\n13x4"' in dot
    assert dot.startswith('digraph "topology" {') and dot.rstrip().endswith("}")


def test_names_with_quotes_are_escaped():
    x = paddle.layer.data(name='say "hi"', type=paddle.data_type.dense_vector(2))
    dot = paddle.topology.Topology(paddle.layer.fc(input=x, size=1)).to_dot()
    assert '"L:say \\"hi\\""' in dot


def test_html_table_when_no_svg_renderer(monkeypatch):
    monkeypatch.setattr(topology_dot, "dot_program", lambda: None)
    topo = paddle.topology.Topology(_demo().ranking_model())
    assert topo._repr_svg_() is None
    table = topo._repr_html_()
    assert table.startswith('<table class="paddle-lite-topology">')
    assert table.count("<tr>") == 1 + len(topo.nodes)
    assert "embedding [1000x32] (shared with __embedding_2__, __embedding_1__)" in table
    assert "12 layers, 3 parameters (32,528 values)" in table


def test_svg_through_graphviz_when_installed():
    if topology_dot.dot_program() is None:
        pytest.skip("the Graphviz dot program is not installed; the HTML table is shown instead")
    topo = paddle.topology.Topology(_demo().ranking_model())
    svg = topo._repr_svg_()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert svg.count("shared by 3") == 3
    assert topo._repr_html_() is None  # front ends prefer HTML: leave room for the picture


def test_summary_stays_the_text_table():
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
    text = paddle.topology.Topology(paddle.layer.fc(input=x, size=1)).summary(print_fn=None)
    assert text.splitlines()[0].split() == ["layer", "type", "output", "params", "inputs"]
    assert text.endswith("total parameters: 14 in 2 arrays")
