"""A layer kind declared outside the library works everywhere the library's own do.

``ScaledFc`` below is declared here, in one class, as ``docs/development.md``'s "Adding
a layer" describes: its shape rule, its parameters, its forward, its host checks, its
per-row fact and how v2's ModelConfig writes it. Nothing else is registered anywhere;
the library reads all of it from the kind: shape inference, ``parameters.create``,
training, inference, the host's length checks, a recurrent group's tail and v2's
ModelConfig view.
"""

from __future__ import annotations

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src import attrs as attrs_mod
from paddle_lite._src.graph import Layer
from paddle_lite._src.kinds import (
    BiasAttr,
    HostChecks,
    Kind,
    ParamAttrAt,
    ParamDecl,
    V2Layer,
    get_kind,
    register_kind,
)
from paddle_lite._src.layers import base
from paddle_lite._src.layers.recurrent.tail import tail_nodes
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data
from paddle_lite.errors import DataError

DT = paddle.data_type
LR = 0.05
X = np.array([[1.0, 0.0, 2.0], [0.5, -1.0, 1.0], [-1.5, 2.0, 0.0], [0.0, 1.0, -1.0]])
T = np.array([[1.0, -1.0], [0.5, 0.0], [-1.0, 2.0], [0.0, 1.0]])


class ScaledFc(Kind):
    """``scale * x W + b``, row by row (``scale`` an attribute)."""

    name = "test_scaled_fc"
    per_row = True
    host = HostChecks(keeps_lengths=True)
    v2 = V2Layer(type="scaled_fc", fields=lambda n, ins: {"scale": n.attrs["scale"]})

    def infer_spec(self, inputs, attrs):
        base.expect(inputs[0], "input")
        return Spec(attrs["size"], seq_level=inputs[0].seq_level)

    def param_specs(self, inputs, attrs):
        decls = [ParamDecl("w0", (inputs[0].size, attrs["size"]), ParamAttrAt(0), attrs_mod.SMART)]
        if attrs["bias"]:
            decls.append(ParamDecl("wbias", (1, attrs["size"]), BiasAttr(), attrs_mod.SMART))
        return decls

    def apply(self, params, inputs, attrs, *, key, mode):
        out = attrs["scale"] * (data_of(inputs[0]) @ params["w0"])
        if attrs["bias"]:
            out = out + params["wbias"][0]
        return with_data(inputs[0], out)


register_kind(ScaledFc())


def scaled_fc(input: Layer, size: int, scale: float, name: str | None = None) -> Layer:
    name = base.layer_name(name, "scaled_fc")
    inputs = [base.as_layer(input, layer=name, arg="input")]
    bias = attrs_mod.bias_param_attr(True, default_on=True, layer=name)
    attrs = {"size": size, "scale": scale}
    weight = attrs_mod.ParamAttr()
    return base.build(
        "test_scaled_fc", name=name, inputs=inputs, attrs=attrs, param_attrs=[weight], bias=bias
    )


def _net():
    x = paddle.layer.data("x", DT.dense_vector(3))
    t = paddle.layer.data("t", DT.dense_vector(2))
    out = scaled_fc(input=x, size=2, scale=0.5, name="sfc")
    return out, paddle.layer.square_error_cost(input=out, label=t)


def _reference(w, b, scale=0.5):
    """float64: the mean cost of the batch and the parameters after one SGD step on the
    summed cost."""
    out = scale * X @ w + b.reshape(-1)
    grad = 2.0 * (out - T)  # of the summed square error, by the output
    cost = ((out - T) ** 2).sum(axis=1).mean()
    return cost, w - LR * scale * X.T @ grad, b - LR * grad.sum(axis=0).reshape(b.shape)


def test_shape_and_parameters_come_from_the_kind():
    out, cost = _net()
    assert (out.size, out.spec.seq_level) == (2, 0)
    params = paddle.parameters.create(cost)
    assert sorted(params.names()) == ["_sfc.w0", "_sfc.wbias"]
    assert params.get_shape("_sfc.w0") == (3, 2) and params.get_shape("_sfc.wbias") == (1, 2)


def test_it_trains_and_infers_as_its_numpy_reference():
    out, cost = _net()
    params = paddle.parameters.create(cost)
    w0, b0 = params.get("_sfc.w0").astype(np.float64), params.get("_sfc.wbias").astype(np.float64)
    costs = []
    opt = paddle.optimizer.Momentum(momentum=0.0, learning_rate=LR)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)
    rows = [(x.tolist(), t.tolist()) for x, t in zip(X, T, strict=True)]
    trainer.train(
        reader=paddle.batch(lambda: iter(rows), len(rows)),
        num_passes=1,
        event_handler=lambda e: (
            costs.append(e.cost) if isinstance(e, paddle.event.EndIteration) else None
        ),
        feeding={"x": 0, "t": 1},
    )
    want_cost, want_w, want_b = _reference(w0, b0)
    assert np.isclose(costs[0], want_cost, rtol=1e-5)
    np.testing.assert_allclose(params.get("_sfc.w0"), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params.get("_sfc.wbias"), want_b, rtol=1e-5, atol=1e-6)
    got = paddle.infer(output_layer=out, parameters=params, input=[(x.tolist(),) for x in X])
    np.testing.assert_allclose(got, 0.5 * X @ want_w + want_b.reshape(-1), rtol=1e-5, atol=1e-6)


def test_v2_model_config_writes_it_from_its_declaration():
    out, _ = _net()
    conf = paddle.layer.parse_network(out)
    layer = next(lay for lay in conf.layers if lay.name == "sfc")
    assert (layer.type, layer.size, layer.scale) == ("scaled_fc", 2, 0.5)
    assert [i.input_parameter_name for i in layer.inputs] == ["_sfc.w0"]
    assert layer.bias_parameter_name == "_sfc.wbias"


def test_the_host_traces_lengths_through_it():
    xs = paddle.layer.data("xs", DT.dense_vector_sequence(3))
    ys = paddle.layer.data("ys", DT.dense_vector_sequence(2))
    both = paddle.layer.addto(input=[scaled_fc(input=xs, size=2, scale=1.0), ys])
    assert get_kind("test_scaled_fc").host.lengths_input([xs.spec], both.spec) == 0
    params = paddle.parameters.create(both)
    samples = [([[1.0, 2.0, 3.0]] * 2, [[0.0, 1.0]] * 2), ([[1.0, 0.0, 0.0]], [[1.0, 1.0]] * 3)]
    with pytest.raises(DataError, match=r"input 1 'ys' \(data layer 'ys'\).*sample 1 has 3"):
        paddle.infer(output_layer=both, parameters=params, input=samples)


def test_a_recurrent_group_runs_it_after_the_scan_as_its_numpy_reference():
    words = paddle.layer.data("words", DT.dense_vector_sequence(3))

    def step(x):
        mem = paddle.layer.memory(name="h", size=2)
        h = paddle.layer.fc(input=[x, mem], size=2, name="h")  # tanh
        return scaled_fc(input=h, size=2, scale=2.0, name="tail_sfc")

    out = paddle.layer.recurrent_group(step=step, input=words, name="g")  # the group's output
    assert "tail_sfc@g" in tail_nodes(out.inputs[0].attrs["step"])
    params = paddle.parameters.create(out)
    p = {n: params.get(n).astype(np.float64) for n in params.names()}
    xs = X[:3]
    h, want = np.zeros(2), []
    for x in xs:
        h = np.tanh(x @ p["_h@g.w0"] + h @ p["_h@g.w1"] + p["_h@g.wbias"][0])
        want.append(2.0 * h @ p["_tail_sfc@g.w0"] + p["_tail_sfc@g.wbias"][0])
    got = paddle.infer(output_layer=out, parameters=params, input=[(xs.tolist(),)])
    np.testing.assert_allclose(got, np.array(want), rtol=1e-5, atol=1e-6)
