"""Pictures of topologies: DOT text, SVG through Graphviz, the HTML table fallback."""

import importlib.util
import pathlib
import re

import pytest

import paddle_lite as paddle
from paddle_lite._src.display import dot as topology_dot

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"


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


def test_a_recurrent_group_is_a_cluster_of_its_step_linked_to_the_outer_layers():
    L, DT, A = paddle.layer, paddle.data_type, paddle.activation
    emb = L.embedding(input=L.data(name="word", type=DT.integer_value_sequence(9)), size=4)
    boot = L.fc(input=L.data(name="b", type=DT.dense_vector(3)), size=5, name="boot")

    def step(y):
        mem = L.memory(name="h", size=5, boot_layer=boot)
        return L.fc(input=[y, mem], size=5, act=A.Tanh(), name="h")

    rnn = L.recurrent_group(name="rnn", step=step, input=emb)
    topo = paddle.topology.Topology(L.last_seq(input=rnn))
    dot = topo.to_dot()
    cluster = re.search(r'subgraph "cluster_rnn" \{(.*?)\n  \}', dot, flags=re.S).group(1)
    assert re.findall(r'"L:([^"]+)" \[label=', cluster) == [
        "__embedding_0__@rnn",
        "h+delay1@rnn",
        "h@rnn",
    ]
    assert "L:rnn" not in _nodes(dot)  # the cluster stands for the group layer
    edges = set(_edges(dot))
    assert {
        ("L:__embedding_0__", "L:__embedding_0__@rnn"),  # in-link
        ("L:boot", "L:h+delay1@rnn"),  # boot layer
        ("L:h@rnn", "L:h+delay1@rnn"),  # the memory remembers h@rnn
        ("L:h@rnn", "L:h"),  # out-link to the gather agent
        ("L:h", "L:__last_seq_0__"),
        ("P:_h@rnn.w0", "L:h@rnn"),  # the step's parameters point at its layers
    } <= edges
    assert not [e for e in edges if "L:rnn" in e]
    html = topology_dot.to_html(topo)
    assert "\u00a0\u00a0h@rnn" in html and "_h@rnn.w1 [5x5]" in html
