"""conv_shift, linear_comb and tensor against float64 numpy loops."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite.errors import LayerConfigError

L, DT, A, ATTR = paddle.layer, paddle.data_type, paddle.activation, paddle.attr
RNG = np.random.default_rng(11)


def _dense(name, n):
    return L.data(name=name, type=DT.dense_vector(n))


def _run(out, feeds, params=None):
    (value,), _ = forward([out], params or {}, feeds)
    return np.asarray(value)


def test_conv_shift_is_v2s_circular_convolution():
    a, b = _dense("a", 5), _dense("b", 3)
    fa, fb = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 3))
    out = L.conv_shift(a=a, b=b)
    got = _run(out, {"a": fa.astype("f4"), "b": fb.astype("f4")})
    want = np.zeros((4, 5))
    for s in range(4):
        for i in range(5):
            for j in range(3):  # b[j] weighs the shift j - (N-1)/2
                want[s, i] += fa[s, (i + j - 1) % 5] * fb[s, j]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert out.name == "__conv_shift_layer_0__" and out.size == 5 and out.params == ()


def test_conv_shift_with_a_single_shift_weight_scales():
    a, b = _dense("a", 4), _dense("b", 1)
    fa, fb = RNG.normal(size=(2, 4)).astype("f4"), np.array([[2.0], [-1.0]], "f4")
    np.testing.assert_allclose(_run(L.conv_shift(a=a, b=b), {"a": fa, "b": fb}), fa * fb)


def test_conv_shift_refuses_even_b_and_mixed_sequence_levels():
    with pytest.raises(LayerConfigError, match="odd size"):
        L.conv_shift(a=_dense("a", 4), b=_dense("b", 2))
    seq = L.data(name="s", type=DT.dense_vector_sequence(4))
    with pytest.raises(LayerConfigError, match="same sequence level"):
        L.conv_shift(a=seq, b=_dense("b", 3))


def _seq(name, n):
    return L.data(name=name, type=DT.dense_vector_sequence(n))


def test_conv_shift_linear_comb_and_tensor_work_row_by_row_over_sequences():
    """v2 computes them over the batch's rows (a sequence's steps) and the output takes
    input 0's sequence info: each step is a sample of the plain formula."""
    from paddle_lite._src.values import Seq

    lengths = np.array([3, 1], np.int32)
    fa, fb, fv = (RNG.normal(size=(2, 3, n)) for n in (4, 3, 12))
    fa[1, 1:], fb[1, 1:], fv[1, 1:] = 0.0, 0.0, 0.0
    feeds = {k: Seq(v.astype("f4"), lengths) for k, v in (("a", fa), ("b", fb), ("v", fv))}
    shift = L.conv_shift(a=_seq("a", 4), b=_seq("b", 3))
    comb = L.linear_comb(weights=_seq("b", 3), vectors=_seq("v", 12), size=4)
    bilinear = L.tensor(a=_seq("a", 4), b=_seq("b", 3), size=2, bias_attr=False)
    w = RNG.normal(size=(4, 3, 2))
    (got_shift, got_comb, got_t), _ = forward(
        [shift, comb, bilinear], {bilinear.params[0].name: w.astype("f4")}, feeds
    )
    assert shift.spec.seq_level == comb.spec.seq_level == bilinear.spec.seq_level == 1
    blocks = w.reshape(2, 4, 3)
    for s, t in [(0, 0), (0, 1), (0, 2), (1, 0)]:
        a, b, v = fa[s, t], fb[s, t], fv[s, t]
        want_shift = [sum(a[(i + j - 1) % 4] * b[j] for j in range(3)) for i in range(4)]
        np.testing.assert_allclose(got_shift.data[s, t], want_shift, rtol=1e-5, atol=1e-6)
        want_comb = [sum(b[j] * v[i + 4 * j] for j in range(3)) for i in range(4)]
        np.testing.assert_allclose(got_comb.data[s, t], want_comb, rtol=1e-5, atol=1e-6)
        want_t = [a @ blocks[k] @ b for k in range(2)]
        np.testing.assert_allclose(got_t.data[s, t], want_t, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_shift.lengths, lengths)


def test_linear_comb_weights_consecutive_vectors():
    w, v = _dense("w", 3), _dense("v", 12)
    fw, fv = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 12))
    out = L.linear_comb(weights=w, vectors=v, size=4)
    want = np.array(
        [[sum(fw[s, j] * fv[s, i + 4 * j] for j in range(3)) for i in range(4)] for s in range(2)]
    )
    np.testing.assert_allclose(
        _run(out, {"w": fw.astype("f4"), "v": fv.astype("f4")}), want, rtol=1e-5, atol=1e-6
    )
    assert out.name == "__linear_comb_layer_0__" and out.size == 4
    assert L.convex_comb(weights=w, vectors=v).size == 4  # size inferred


def test_linear_comb_size_mismatch_is_refused():
    with pytest.raises(LayerConfigError, match=r"vectors must have size weights.size \* size"):
        L.linear_comb(weights=_dense("w", 3), vectors=_dense("v", 12), size=5)
    with pytest.raises(LayerConfigError, match="not a multiple"):
        L.linear_comb(weights=_dense("w2", 5), vectors=_dense("v2", 12))


def test_tensor_uses_v2s_weight_blocks_bias_and_activation():
    a, b = _dense("a", 3), _dense("b", 2)
    out = L.tensor(a=a, b=b, size=4, act=A.Tanh())
    w_name, b_name = (p.name for p in out.params)
    assert (w_name, b_name) == ("___tensor_layer_0__.w0", "___tensor_layer_0__.wbias")
    assert [p.shape for p in out.params] == [(3, 2, 4), (1, 4)]
    assert out.params[0].init.std == pytest.approx(1 / np.sqrt(3))
    flat = RNG.normal(size=24)  # v2's buffer: W_k is the k-th [3, 2] block
    bias = RNG.normal(size=(1, 4))
    fa, fb = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2))
    params = {w_name: flat.reshape(3, 2, 4).astype("f4"), b_name: bias.astype("f4")}
    got = _run(out, {"a": fa.astype("f4"), "b": fb.astype("f4")}, params)
    blocks = flat.reshape(4, 3, 2)
    want = np.tanh(
        np.array([[fa[s] @ blocks[k] @ fb[s] for k in range(4)] for s in range(5)]) + bias
    )
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_tensor_gradient_matches_finite_differences():
    a, b = _dense("a", 2), _dense("b", 2)
    out = L.tensor(a=a, b=b, size=3, bias_attr=False)
    w = RNG.normal(size=(2, 2, 3))
    fa, fb = RNG.normal(size=(1, 2)), RNG.normal(size=(1, 2))

    def total(wv):
        (v,), _ = forward(
            [out], {out.params[0].name: wv}, {"a": fa.astype("f4"), "b": fb.astype("f4")}
        )
        return v.sum()

    grad = np.asarray(jax.grad(total)(w.astype("f4")))
    blocks_grad = np.einsum("i,j->ij", fa[0], fb[0])  # d y_k / d W_k for every k
    np.testing.assert_allclose(grad.reshape(3, 2, 2), np.stack([blocks_grad] * 3), rtol=1e-5)


def test_tensor_without_bias_and_shared_weight():
    a, b = _dense("a", 2), _dense("b", 3)
    t1 = L.tensor(a=a, b=b, size=2, bias_attr=False, param_attr=ATTR.Param(name="bilinear"))
    t2 = L.tensor(a=a, b=b, size=2, param_attr=ATTR.Param(name="bilinear"))
    assert [p.name for p in t1.params] == ["bilinear"]
    assert [p.name for p in t2.params] == ["bilinear", "___tensor_layer_1__.wbias"]
