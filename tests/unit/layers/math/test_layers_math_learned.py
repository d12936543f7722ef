"""row_conv, gated_unit, slice_projection and selective_fc against float64 numpy
references of v2's C++ forward and backward passes."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.values import Seq, Sparse
from paddle_lite.errors import LayerConfigError
from tests.unit import _math_fixtures as MF
from tests.unit._math_fixtures import float64_and_fresh_names  # noqa: F401 (autouse)

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = MF.RNG


# row_conv ------------------------------------------------------------------------------
def _row_conv_ref(x, lengths, w):
    """v2's RowConv: ``y_j = sum_{t < K, j + t < len} w_t * x_{j+t}`` per sequence."""
    y = np.zeros_like(x)
    for b, n in enumerate(lengths):
        for j in range(n):
            for t in range(min(len(w), n - j)):
                y[b, j] += w[t] * x[b, j + t]
    return y


def _row_conv_grads_ref(x, lengths, w, dy):
    """v2's RowConvGrad: the input and filter gradients, loop by loop."""
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    for b, n in enumerate(lengths):
        for j in range(n):
            for t in range(len(w)):
                if j - t >= 0:
                    dx[b, j] += dy[b, j - t] * w[t]
                if j + t < n:
                    dw[t] += dy[b, j] * x[b, j + t]
    return dx, dw


def test_row_conv_looks_ahead_within_each_sequence():
    s = L.data(name="s", type=DT.dense_vector_sequence(3))
    out = L.row_conv(input=s, context_len=3)
    spec = out.params[0]
    assert (out.name, out.layer_type, out.size) == ("__row_conv_layer_0__", "row_conv", 3)
    assert (spec.name, spec.shape) == ("___row_conv_layer_0__.w0", (3, 3))
    assert spec.init.std == pytest.approx(1 / np.sqrt(3))  # smart init over context_len
    lengths = np.array([5, 2, 0, 1], np.int32)
    x = RNG.normal(size=(4, 5, 3))
    valid = np.arange(5)[None, :] < lengths[:, None]
    junk = np.where(valid[..., None], x, np.nan)  # padding must not leak
    params = MF.init_params(out)
    w = params[spec.name]
    got = MF.run(out, {"s": Seq(junk, lengths)}, params)
    MF.close(got.data, _row_conv_ref(np.where(valid[..., None], x, 0.0), lengths, w))
    dp, df, g = MF.grads(out, params, {"s": Seq(junk, lengths)}, ["s"])
    g = np.where(valid[..., None], g, 0.0)  # padding outputs are 0: their G does not count
    dx, dw = _row_conv_grads_ref(np.where(valid[..., None], x, 0.0), lengths, w, g)
    MF.close(df["s"], dx)
    MF.close(dp[spec.name], dw)


def test_row_conv_of_a_nested_sequence_runs_over_the_outer_sequence():
    s = L.data(name="s", type=DT.dense_vector_sub_sequence(2))
    out = L.row_conv(input=s, context_len=2)
    params = MF.init_params(out)
    w = params["___row_conv_layer_0__.w0"]
    sub = np.array([[2, 1, 0], [3, 0, 0]], np.int32)
    x = RNG.normal(size=(2, 3, 3, 2))
    got = MF.run(out, {"s": Seq(x, np.array([2, 1], np.int32), sub)}, params)
    for b, counts in enumerate([[2, 1], [3]]):  # the sub-sequences, one after the other
        steps = np.concatenate([x[b, i, :n] for i, n in enumerate(counts)])
        want = _row_conv_ref(steps[None], [len(steps)], w)[0]
        have = np.concatenate([got.data[b, i, :n] for i, n in enumerate(counts)])
        MF.close(have, want)


def test_row_conv_needs_a_sequence():
    with pytest.raises(LayerConfigError, match="input must be a sequence"):
        L.row_conv(input=MF.dense("x", 3), context_len=2)


# gated_unit ----------------------------------------------------------------------------
def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def test_gated_unit_is_v2s_three_layers():
    x = MF.dense("x", 4)
    out = L.gated_unit(input=x, size=3)
    proj, gate = out.inputs
    assert (proj.name, gate.name, out.name) == (
        "__gated_unit_layer_0___input_proj",
        "__gated_unit_layer_0___gate",
        "__gated_unit_layer_0___gated_act",
    )
    assert (proj.activation.name, gate.activation.name, out.layer_type) == ("", "sigmoid", "mixed")
    params = MF.init_params(out)
    p = {k.replace("___gated_unit_layer_0___", ""): v for k, v in params.items()}
    fx = RNG.normal(size=(5, 4))
    want = (fx @ p["input_proj.w0"] + p["input_proj.wbias"]) * _sigmoid(
        fx @ p["gate.w0"] + p["gate.wbias"]
    )
    MF.close(MF.run(out, {"x": fx}, params), want)
    named = L.gated_unit(input=x, size=2, name="glu", act=A.Tanh())
    assert named.name == "glu_gated_act" and named.inputs[0].activation.name == "tanh"


# slice_projection ---------------------------------------------------------------------
def test_slice_projection_keeps_channel_ranges_of_an_image():
    img = MF.dense("img", 12, height=2, width=2)  # 3 channels of 2x2
    out = L.mixed(input=L.slice_projection(input=img, slices=[(0, 1), (2, 3)]))
    assert out.size == 8 and out.params == ()
    fx = RNG.normal(size=(2, 12))
    MF.close(MF.run(out, {"img": fx}), np.concatenate([fx[:, 0:4], fx[:, 8:12]], axis=1))
    _, df, g = MF.grads(out, {}, {"img": fx}, ["img"])
    MF.close(df["img"], np.concatenate([g[:, :4], np.zeros((2, 4)), g[:, 4:]], axis=1))
    vec = MF.dense("v", 6)  # not an image: the ranges are value offsets
    assert L.mixed(input=L.slice_projection(input=vec, slices=[(1, 3), (3, 6)])).size == 5
    with pytest.raises(LayerConfigError, match="must start at or after"):
        L.slice_projection(input=img, slices=[(0, 2), (1, 3)])
    with pytest.raises(LayerConfigError, match="past the input's 3 channels"):
        L.slice_projection(input=img, slices=[(0, 4)])


# selective_fc --------------------------------------------------------------------------
def _softmax_over(z, mask):
    e = np.where(mask, np.exp(z - z.max(1, keepdims=True)), 0.0)
    return e / e.sum(1, keepdims=True)


def test_selective_fc_without_select_is_an_fc_of_a_transposed_weight():
    x = MF.dense("x", 4)
    out = L.selective_fc(input=x, size=3)
    assert [(p.name, p.shape) for p in out.params] == [
        ("___selective_fc_layer_0__.w0", (3, 4)),
        ("___selective_fc_layer_0__.wbias", (1, 3)),
    ]
    assert out.params[0].init.std == pytest.approx(1 / np.sqrt(3))  # dims[0] is size
    params = MF.init_params(out)
    w, b = params["___selective_fc_layer_0__.w0"], params["___selective_fc_layer_0__.wbias"]
    fx = RNG.normal(size=(2, 4))
    MF.close(MF.run(out, {"x": fx}, params), np.tanh(fx @ w.T + b))


def test_selective_fc_computes_the_selected_columns_only():
    x = MF.dense("x", 4)
    cols = L.data(name="cols", type=DT.sparse_binary_vector(5))
    out = L.selective_fc(input=x, size=5, select=cols, act=A.Softmax())
    assert out.activation.name == "softmax" and [i.name for i in out.inputs] == ["x", "cols"]
    params = MF.init_params(out)
    w, b = params["___selective_fc_layer_0__.w0"], params["___selective_fc_layer_0__.wbias"]
    ids = np.array([[1, 3, 0], [4, 0, 2]], np.int32)
    vals = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 1.0]])  # row 0 selects 1, 3; row 1: 0, 2, 4
    mask = np.array([[0, 1, 0, 1, 0], [1, 0, 1, 0, 1]], bool)
    fx = RNG.normal(size=(2, 4))
    feeds = {"x": fx, "cols": Sparse(ids, vals)}
    z = fx @ w.T + b
    p = _softmax_over(z, mask)
    MF.close(MF.run(out, feeds, params), p)
    dp, df, g = MF.grads(out, params, feeds, ["x"])
    dz = np.where(mask, p * (g - (g * p).sum(1, keepdims=True)), 0.0)
    MF.close(dp["___selective_fc_layer_0__.w0"], dz.T @ fx)  # v2: wGrad += outGᵀ x
    MF.close(dp["___selective_fc_layer_0__.wbias"], dz.sum(0, keepdims=True))
    MF.close(df["x"], dz @ w)
    sig = L.selective_fc(input=x, size=5, select=cols, act=A.Sigmoid(), name="s")
    got = MF.run(
        sig, feeds, {k.replace("___selective_fc_layer_0__", "_s"): v for k, v in params.items()}
    )
    MF.close(got, np.where(mask, _sigmoid(z), 0.0))


def test_selective_fc_select_checks_and_has_selected_colums_false():
    x = MF.dense("x", 4)
    cols = L.data(name="cols", type=DT.sparse_binary_vector(6))
    with pytest.raises(LayerConfigError, match="select has size 6; expected 5"):
        L.selective_fc(input=x, size=5, select=cols)
    weighted = L.selective_fc(input=x, size=6, select=cols, has_selected_colums=False)
    assert [p.shape for p in weighted.params] == [(6, 4), (6, 6), (1, 6)]
    assert weighted.activation.name == "tanh"
