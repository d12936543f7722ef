"""Topology JSON round trips over random graphs: the text is a fixed point, the rebuilt
topology has the same layers, data types and parameters, and computes the same values."""

import json

import numpy as np
from _budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.topology import Topology

ACTS = [
    paddle.activation.Tanh,
    paddle.activation.Sigmoid,
    paddle.activation.Relu,
    paddle.activation.Linear,
    paddle.activation.Softmax,
]


def _grow(data, nodes, i):
    """Add one layer built from earlier ones (dense layers only, so any pair composes)."""
    kind = data.draw(st.sampled_from(["fc", "fc2", "concat", "addto", "mixed", "dropout"]))
    pick = lambda: data.draw(st.sampled_from(nodes))  # noqa: E731
    act = data.draw(st.sampled_from(ACTS))()
    size = data.draw(st.integers(1, 6))
    if kind == "fc":
        return paddle.layer.fc(input=pick(), size=size, act=act)
    if kind == "fc2":
        return paddle.layer.fc(input=[pick(), pick()], size=size, act=act, bias_attr=False)
    if kind == "concat":
        return paddle.layer.concat(input=[pick(), pick()])
    if kind == "addto":
        a = pick()
        same = [n for n in nodes if n.size == a.size]
        return paddle.layer.addto(input=[a, data.draw(st.sampled_from(same))], act=act)
    if kind == "mixed":
        source = pick()
        return paddle.layer.mixed(
            size=size,
            input=[paddle.layer.full_matrix_projection(input=source)],
            act=act,
            name=f"mixed_{i}",
        )
    drop = paddle.attr.Extra(drop_rate=data.draw(st.sampled_from([0.1, 0.5])))
    return paddle.layer.fc(input=pick(), size=size, act=act, layer_attr=drop)


def _random_network(data):
    nodes = [
        paddle.layer.data(name=f"in{k}", type=paddle.data_type.dense_vector(d))
        for k, d in enumerate(data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3)))
    ]
    for i in range(data.draw(st.integers(1, 7))):
        nodes.append(_grow(data, nodes, i))
    outputs = data.draw(st.lists(st.sampled_from(nodes[-3:]), min_size=1, max_size=2, unique=True))
    return Topology(outputs)


@settings(max_examples=examples(40))
@given(st.data())
def test_json_round_trip_is_a_fixed_point(data):
    topo = _random_network(data)
    text = topo.serialize()
    again = Topology.deserialize(text)
    assert again.serialize() == text
    assert [n.name for n in again.nodes] == [n.name for n in topo.nodes]
    assert again.data_type() == topo.data_type()
    assert again.params == topo.params
    assert json.loads(text)["outputs"] == [layer.name for layer in topo.outputs]


@settings(max_examples=examples(12))
@given(st.data())
def test_the_rebuilt_topology_computes_the_same_values(data):
    topo = _random_network(data)
    again = Topology.deserialize(topo.serialize())
    rng = np.random.default_rng(data.draw(st.integers(0, 100)))
    params = {
        name: rng.normal(size=spec.shape).astype(np.float32) for name, spec in topo.params.items()
    }
    feeds = {name: rng.normal(size=(2, t.dim)).astype(np.float32) for name, t in topo.data_type()}
    want, _ = forward(topo.outputs, params, feeds)  # eager: small ops, cached across examples
    got, _ = forward(again.outputs, params, feeds)
    for a, b in zip(want, got, strict=True):
        np.testing.assert_array_equal(np.asarray(b), np.asarray(a))
