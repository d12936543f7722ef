"""multiplex, dot_prod, l2_distance, out_prod, row_l2_norm, clip, scale_shift, prelu,
factorization_machine, row_conv, gated_unit, slice_projection and selective_fc against
float64 numpy references of v2's C++ forward and backward passes."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.values import Seq, Sparse
from paddle_lite.errors import LayerConfigError, LayerTypeError
from tests.unit import _math_fixtures as MF
from tests.unit._math_fixtures import float64_and_fresh_names  # noqa: F401 (autouse)

L, DT = paddle.layer, paddle.data_type
RNG = MF.RNG


# multiplex ---------------------------------------------------------------------------
def test_multiplex_picks_each_row_from_the_indexed_candidate():
    k = L.data(name="k", type=DT.integer_value(3))
    a, b, c = MF.dense("a", 4), MF.dense("b", 4), MF.dense("c", 4)
    out = L.multiplex(input=[k, a, b, c])
    assert (out.name, out.layer_type, out.size) == ("__multiplex_layer_0__", "multiplex", 4)
    ids = np.array([2, 0, 1, 0, 2], np.int32)
    xs = {n: RNG.normal(size=(5, 4)) for n in "abc"}
    feeds = {"k": ids, **xs}
    stacked = np.stack([xs["a"], xs["b"], xs["c"]])
    MF.close(MF.run(out, feeds), stacked[ids, np.arange(5)])
    _, df, g = MF.grads(out, {}, feeds, "abc")
    for i, n in enumerate("abc"):  # the output gradient reaches only the chosen rows
        MF.close(df[n], np.where((ids == i)[:, None], g, 0.0))


def test_multiplex_of_sequences_picks_per_step_and_checks_its_inputs():
    k = L.data(name="k", type=DT.integer_value_sequence(2))
    a = L.data(name="a", type=DT.dense_vector_sequence(3))
    b = L.data(name="b", type=DT.dense_vector_sequence(3))
    ids = np.array([[0, 1, 1], [1, 0, 0]], np.int32)
    lengths = np.array([3, 1], np.int32)
    fa, fb = RNG.normal(size=(2, 3, 3)), RNG.normal(size=(2, 3, 3))
    feeds = {"k": Seq(ids, lengths), "a": Seq(fa, lengths), "b": Seq(fb, lengths)}
    got = MF.run(L.multiplex(input=[k, a, b]), feeds)
    MF.close(got.data, np.where((ids == 0)[..., None], fa, fb))
    with pytest.raises(LayerConfigError, match="more than 2 inputs"):
        L.multiplex(input=[k, a])
    x, y = MF.dense("x", 3), MF.dense("y", 4)
    with pytest.raises(LayerConfigError, match="integer ids"):
        L.multiplex(input=[x, x, x])
    idx = L.data(name="i", type=DT.integer_value(2))
    with pytest.raises(LayerConfigError, match=r"same size; received sizes \[3, 4\]"):
        L.multiplex(input=[idx, x, y])


# dot_prod / l2_distance / out_prod ------------------------------------------------------
def test_dot_prod_and_its_gradient():
    a, b = MF.dense("a", 5), MF.dense("b", 5)
    out = L.dot_prod(input1=a, input2=b)
    assert (out.name, out.size) == ("__dot_prod_layer_0__", 1)
    fa, fb = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5))
    MF.close(MF.run(out, {"a": fa, "b": fb}), (fa * fb).sum(1, keepdims=True))
    _, df, g = MF.grads(out, {}, {"a": fa, "b": fb}, "ab")
    MF.close(df["a"], g * fb)  # v2: inG0 += outG * in1 (row scale)
    MF.close(df["b"], g * fa)
    with pytest.raises(LayerConfigError, match="same size; received 5 and 3"):
        L.dot_prod(input1=a, input2=MF.dense("c", 3))


def test_l2_distance_and_its_gradient_and_masked_padding():
    x, y = MF.dense("x", 6), MF.dense("y", 6)
    out = L.l2_distance(x=x, y=y)
    assert (out.name, out.size) == ("__l2_distance_layer_0__", 1)
    fx, fy = RNG.normal(size=(3, 6)), RNG.normal(size=(3, 6))
    dist = np.sqrt(((fx - fy) ** 2).sum(1, keepdims=True))
    MF.close(MF.run(out, {"x": fx, "y": fy}), dist)
    _, df, g = MF.grads(out, {}, {"x": fx, "y": fy}, "xy")
    MF.close(df["x"], (fx - fy) * g / dist)  # v2: inGrad1 += (x - y) * outG / dist
    MF.close(df["y"], -(fx - fy) * g / dist)
    sx = L.data(name="sx", type=DT.dense_vector_sequence(2))
    sy = L.data(name="sy", type=DT.dense_vector_sequence(2))
    seq = L.l2_distance(x=sx, y=sy)
    lengths = np.array([2, 1], np.int32)
    data = RNG.normal(size=(2, 2, 2))
    feeds = {"sx": Seq(data, lengths), "sy": Seq(np.zeros((2, 2, 2)), lengths)}
    feeds["sy"].data[1, 1] = data[1, 1]  # a padding step at distance 0
    _, df, _ = MF.grads(seq, {}, feeds, ["sx"])
    assert np.isfinite(df["sx"]).all() and (df["sx"][1, 1] == 0).all()


def _v2_cos_sim_backward(g, out, x, y, scale):
    """CosSimOp.cpp CosSimBackward<CPU> for one row: x [dim], y [dim]."""
    xy, sx, sy = (x * y).sum(), (x * x).sum(), (y * y).sum()
    if xy == 0:
        r = 1.0 / (np.sqrt(sx) * np.sqrt(sy))
        return scale * g * y * r, scale * g * x * r
    return out * g * (y / xy - x / sx), out * g * (x / xy - y / sy)


def test_cos_sim_gradients_are_v2s_cos_sim_backward_also_over_padded_sequences():
    """cos (size 1) and cos_vm (size > 1, one CosSimBackward per key); the padding steps
    of a sequence (zeros) stay out: no 0/0 whose NaN gradient would reach the weights."""
    a = L.data(name="a", type=DT.dense_vector_sequence(3))
    b = L.data(name="b", type=DT.dense_vector_sequence(6))
    out = L.cos_sim(a=a, b=b, size=2, scale=3)
    lengths = np.array([3, 1], np.int32)
    fa, fb = RNG.normal(size=(2, 3, 3)), RNG.normal(size=(2, 3, 6))
    fa[1, 1:], fb[1, 1:] = 0.0, 0.0  # zero padding, as sequences are fed
    fa[0, 2] = [1.0, 0.0, 0.0]
    fb[0, 2, :3] = [0.0, 2.0, -1.0]  # a dot product of 0: v2's other branch
    feeds = {"a": Seq(fa, lengths), "b": Seq(fb, lengths)}
    got = MF.run(out, feeds)
    _, df, g = MF.grads(out, {}, feeds, "ab")
    want, ga, gb = np.zeros((2, 3, 2)), np.zeros_like(fa), np.zeros_like(fb)
    for s, t in [(0, 0), (0, 1), (0, 2), (1, 0)]:
        for k in range(2):
            x, y = fa[s, t], fb[s, t, 3 * k : 3 * k + 3]
            want[s, t, k] = 3 * (x * y).sum() / np.sqrt((x * x).sum() * (y * y).sum())
            dx, dy = _v2_cos_sim_backward(g[s, t, k], want[s, t, k], x, y, 3)
            ga[s, t] += dx
            gb[s, t, 3 * k : 3 * k + 3] += dy
    MF.close(got.data, want)
    MF.close(df["a"], ga)
    MF.close(df["b"], gb)


def test_cos_sim_over_a_sequence_keeps_an_fc_weight_gradient_finite():
    a = L.data(name="a", type=DT.dense_vector_sequence(3))
    b = L.data(name="b", type=DT.dense_vector_sequence(3))
    out = L.cos_sim(a=L.fc(input=a, size=3, bias_attr=False), b=b)
    lengths = np.array([2, 1], np.int32)
    fa, fb = RNG.normal(size=(2, 2, 3)), RNG.normal(size=(2, 2, 3))
    fa[1, 1], fb[1, 1] = 0.0, 0.0
    params = MF.init_params(out)
    dp, _, _ = MF.grads(out, params, {"a": Seq(fa, lengths), "b": Seq(fb, lengths)}, [])
    assert np.isfinite(dp["___fc_layer_0__.w0"]).all()


def test_power_gradients_are_v2s_power_layer_backward_and_padding_stays_out():
    """PowerLayer::backward: inG0 += sum_j outG * log(x) * y, inG1 += outG * (y / x) * w;
    a sequence's zero padding (0 ** 0) gives no NaN gradient."""
    x = L.data(name="x", type=DT.dense_vector_sequence(4))
    w = L.data(name="w", type=DT.dense_vector_sequence(1))
    out = L.power(input=x, weight=w)
    lengths = np.array([3, 1], np.int32)
    fx, fw = RNG.uniform(0.2, 2.0, size=(2, 3, 4)), RNG.normal(size=(2, 3, 1))
    fx[1, 1:], fw[1, 1:] = 0.0, 0.0
    feeds = {"x": Seq(fx, lengths), "w": Seq(fw, lengths)}
    real = np.arange(3)[None, :, None] < lengths[:, None, None]
    y = np.where(real, np.where(real, fx, 1.0) ** fw, 0.0)
    MF.close(MF.run(out, feeds).data, y)
    _, df, g = MF.grads(out, {}, feeds, "xw")
    safe_x = np.where(real, fx, 1.0)
    MF.close(df["w"], np.where(real, (g * np.log(safe_x) * y).sum(-1, keepdims=True), 0.0))
    MF.close(df["x"], np.where(real, g * (y / safe_x) * fw, 0.0))


def test_out_prod_is_row_major_and_its_gradient():
    a, b = MF.dense("a", 3), MF.dense("b", 2)
    out = L.out_prod(input1=a, input2=b)
    assert (out.name, out.size) == ("__out_prod_layer_0__", 6)
    fa, fb = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 2))
    MF.close(MF.run(out, {"a": fa, "b": fb}), np.einsum("bi,bj->bij", fa, fb).reshape(4, 6))
    _, df, g = MF.grads(out, {}, {"a": fa, "b": fb}, "ab")
    g3 = g.reshape(4, 3, 2)
    MF.close(df["a"], np.einsum("bij,bj->bi", g3, fb))
    MF.close(df["b"], np.einsum("bij,bi->bj", g3, fa))


# row_l2_norm / clip / scale_shift ---------------------------------------------------------
def test_row_l2_norm_and_v2s_backward():
    x = MF.dense("x", 5)
    out = L.row_l2_norm(input=x)
    assert (out.name, out.size) == ("__row_l2_norm_layer_0__", 5)
    fx = RNG.normal(size=(3, 5))
    r = 1.0 / np.sqrt((fx**2).sum(1, keepdims=True))
    MF.close(MF.run(out, {"x": fx}), fx * r)
    _, df, g = MF.grads(out, {}, {"x": fx}, "x")
    dot = (g * fx * r).sum(1, keepdims=True) * r * r  # v2: dotSum = <outG, outV> r^2
    MF.close(df["x"], g * r - fx * dot)


def test_clip_values_and_gradient_inside_the_bounds_only():
    x = MF.dense("x", 6)
    out = L.clip(input=x, min=-0.5, max=0.5)
    assert (out.name, out.layer_type) == ("__clip_0__", "clip")
    fx = np.array([[-1.0, -0.5, -0.2, 0.0, 0.5, 2.0]])
    MF.close(MF.run(out, {"x": fx}), np.clip(fx, -0.5, 0.5))
    _, df, g = MF.grads(out, {}, {"x": fx}, "x")
    MF.close(df["x"], g * ((fx >= -0.5) & (fx <= 0.5)))
    with pytest.raises(LayerConfigError, match="min must be less than max"):
        L.clip(input=x, min=1, max=1)
    with pytest.raises(LayerTypeError, match="min must be a number"):
        L.clip(input=x, min="0", max=1)


def test_scale_shift_learns_one_scale_and_one_shift():
    x = MF.dense("x", 4)
    plain = L.scale_shift(input=x, bias_attr=False)
    out = L.scale_shift(input=x)
    assert [p.name for p in plain.params] == ["___scale_shift_0__.w0"]
    assert [(p.name, p.shape) for p in out.params] == [
        ("___scale_shift_1__.w0", (1, 1)),
        ("___scale_shift_1__.wbias", (1, 1)),
    ]
    params = {"___scale_shift_1__.w0": np.array([[1.5]]), "___scale_shift_1__.wbias": [[-0.25]]}
    params = {k: np.asarray(v, np.float64) for k, v in params.items()}
    fx = RNG.normal(size=(3, 4))
    MF.close(MF.run(out, {"x": fx}, params), 1.5 * fx - 0.25)
    dp, df, g = MF.grads(out, params, {"x": fx}, "x")
    MF.close(dp["___scale_shift_1__.w0"], [[(fx * g).sum()]])
    MF.close(dp["___scale_shift_1__.wbias"], [[g.sum()]])
    MF.close(df["x"], 1.5 * g)


# prelu ---------------------------------------------------------------------------------
def _prelu_ref(x, w, partial_sum):
    slopes = np.repeat(w[0], partial_sum)
    return np.where(x > 0, x, x * slopes)


def test_prelu_partial_sum_and_its_gradients():
    x = MF.dense("x", 6)
    out = L.prelu(input=x, partial_sum=2, num_channels=1)
    assert (out.name, out.params[0].shape) == ("__prelu_layer_0__", (1, 3))
    assert out.params[0].init.describe() == "gaussian(mean=0.25, std=0)"
    named = L.prelu(input=x, num_channels=1, param_attr=paddle.attr.Param(name="a"))
    assert named.params[0].init.describe() == "gaussian(mean=0, std=1)"  # v2: smart
    w = np.array([[0.1, -0.3, 0.7]])
    params = {"___prelu_layer_0__.w0": w}
    fx = RNG.normal(size=(4, 6))
    fx[0, 0] = 0.0
    MF.close(MF.run(out, {"x": fx}, params), _prelu_ref(fx, w, 2))
    dp, df, g = MF.grads(out, params, {"x": fx}, "x")
    neg = np.where(fx > 0, 0.0, fx) * g  # v2: wgrad[i / partial_sum] += g * (x > 0 ? 0 : x)
    MF.close(dp["___prelu_layer_0__.w0"], neg.sum(0).reshape(3, 2).sum(1)[None])
    MF.close(df["x"], g * np.where(fx > 0, 1.0, np.repeat(w[0], 2)))


def test_prelu_channel_shared_follows_the_image():
    img = MF.dense("img", 12, height=2, width=2)  # 3 channels of 2x2
    per_channel = L.prelu(input=img, channel_shared=False)
    shared = L.prelu(input=img, channel_shared=True, partial_sum=5)
    assert per_channel.attrs["partial_sum"] == 4 and per_channel.params[0].shape == (1, 3)
    assert shared.attrs["partial_sum"] == 12 and shared.params[0].shape == (1, 1)
    assert per_channel.spec.image == (3, 2, 2)
    x = MF.dense("x", 6)
    with pytest.raises(LayerConfigError, match="pass num_channels"):
        L.prelu(input=x)
    with pytest.raises(LayerConfigError, match="channel_shared needs an image"):
        L.prelu(input=x, num_channels=2, channel_shared=True)
    with pytest.raises(LayerConfigError, match="partial_sum 4 must divide the input size 6"):
        L.prelu(input=x, num_channels=1, partial_sum=4)


# factorization_machine -------------------------------------------------------------------
def test_factorization_machine_pairs_and_v2s_gradients():
    x = MF.dense("x", 5)
    out = L.factorization_machine(input=x, factor_size=3)
    spec = out.params[0]
    assert (out.size, spec.name, spec.shape) == (1, "___factorization_machine_0__.w0", (5, 3))
    assert spec.init.std == pytest.approx(1 / np.sqrt(5))
    params = MF.init_params(out)
    v = params[spec.name]
    fx = RNG.normal(size=(4, 5))
    pairs = sum((v[i] @ v[j]) * fx[:, i] * fx[:, j] for i in range(5) for j in range(i + 1, 5))
    MF.close(MF.run(out, {"x": fx}, params), pairs[:, None])
    dp, df, g = MF.grads(out, params, {"x": fx}, "x")
    xv = fx @ v  # v2's backward formulas
    MF.close(dp[spec.name], (fx * g).T @ xv - v * ((fx**2) * g).sum(0)[:, None])
    MF.close(df["x"], g * (xv @ v.T - fx * (v**2).sum(1)))


def test_factorization_machine_of_a_sparse_input_equals_the_dense_one():
    s = L.data(name="s", type=DT.sparse_float_vector(5))
    d = MF.dense("d", 5)
    sparse_fm = L.factorization_machine(input=s, factor_size=2, name="fm")
    dense_fm = L.factorization_machine(input=d, factor_size=2, name="fm")
    params = MF.init_params(sparse_fm)
    ids = np.array([[1, 4, 0], [2, 0, 0]], np.int32)
    vals = np.array([[0.5, -2.0, 0.0], [3.0, 0.0, 0.0]])
    dense = np.zeros((2, 5))
    dense[0, [1, 4]] = [0.5, -2.0]
    dense[1, 2] = 3.0
    got = MF.run(sparse_fm, {"s": Sparse(ids, vals)}, params)
    MF.close(got, np.asarray(MF.run(dense_fm, {"d": dense}, params)))
