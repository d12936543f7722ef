"""ctc and warp_ctc against brute-force path enumeration in float64, with gradients."""

import itertools

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerConfigWarning

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(2)


def _collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return tuple(out)


def _ctc_ref(probs, label, blank):
    """-log of the summed probability of every frame path collapsing to ``label``."""
    t, c = probs.shape
    total = sum(
        np.prod([probs[i, k] for i, k in enumerate(path)])
        for path in itertools.product(range(c), repeat=t)
        if _collapse(path, blank) == tuple(label)
    )
    return -np.log(total) if total > 0 else 0.0


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


LENGTHS = np.array([4, 3, 2], np.int32)
LABELS = [[1, 1], [0], [1, 0]]  # the second needs 2 frames, the third's only fits in 2


def _feeds(c, junk=7.0):
    z = RNG.normal(size=(3, 4, c))
    z[1, 3:], z[2, 2:] = junk, junk  # padding must not matter
    label = np.full((3, 2), 5, np.int32)
    for b, lab in enumerate(LABELS):
        label[b, : len(lab)] = lab
    return z, Seq(label, np.array([len(x) for x in LABELS], np.int32))


def _valid(z, b):
    return z[b, : LENGTHS[b]]


def test_ctc_matches_brute_force_with_the_last_class_blank():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    y = L.data(name="y", type=DT.integer_value_sequence(2))
    prob = L.mixed(input=L.identity_projection(input=x), act=A.Softmax())
    cost = L.ctc(input=prob, label=y)
    assert cost.name == "__ctc_layer_0__" and cost.attrs["size"] == 3 and cost.size == 1
    z, label = _feeds(3)
    (got,), _ = forward([cost], {}, {"x": Seq(z.astype("f4"), LENGTHS), "y": label})
    want = [_ctc_ref(_softmax(_valid(z, b)), LABELS[b], blank=2) for b in range(3)]
    np.testing.assert_allclose(np.asarray(got)[:, 0], want, rtol=1e-4)


def test_warp_ctc_softmaxes_inside_and_takes_its_blank():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    y = L.data(name="y", type=DT.integer_value_sequence(2))
    z, label = _feeds(3)
    for blank in (0, 2):
        cost = L.warp_ctc(input=x, label=y, blank=blank)
        lab = [[c + (blank == 0) for c in seq] for seq in LABELS]  # labels avoid the blank
        feeds = {
            "x": Seq(z.astype("f4"), LENGTHS),
            "y": Seq(np.asarray(label.data) + (blank == 0), label.lengths),
        }
        (got,), _ = forward([cost], {}, feeds)
        want = [_ctc_ref(_softmax(_valid(z, b)), lab[b], blank) for b in range(3)]
        np.testing.assert_allclose(np.asarray(got)[:, 0], want, rtol=1e-4)


def test_too_short_sequence_costs_zero_without_gradient():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    y = L.data(name="y", type=DT.integer_value_sequence(2))
    cost = L.warp_ctc(input=x, label=y, blank=2)
    z = RNG.normal(size=(1, 2, 3)).astype("f4")
    label = Seq(np.array([[1, 1]], np.int32), np.array([2], np.int32))  # needs 3 frames

    def total(v):
        (c,), _ = forward([cost], {}, {"x": Seq(v, np.array([2], np.int32)), "y": label})
        return c.sum()

    assert float(total(z)) == 0.0
    assert not np.asarray(jax.grad(total)(z)).any()


def _fd_grad(fn, z, eps=1e-6):
    grad = np.zeros_like(z)
    for idx in np.ndindex(z.shape):
        up, down = z.copy(), z.copy()
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (fn(up) - fn(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("norm_by_times", [False, True])
def test_warp_ctc_gradient_and_norm_by_times_scales_only_the_gradient(norm_by_times):
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    y = L.data(name="y", type=DT.integer_value_sequence(2))
    cost = L.warp_ctc(input=x, label=y, blank=2, norm_by_times=norm_by_times)
    z = RNG.normal(size=(1, 4, 3))
    label = Seq(np.array([[0, 1]], np.int32), np.array([2], np.int32))

    def total(v):
        (c,), _ = forward([cost], {}, {"x": Seq(v, np.array([4], np.int32)), "y": label})
        return c.sum()

    value = float(total(z.astype("f4")))
    ref = _ctc_ref(_softmax(z[0]), [0, 1], 2)
    assert value == pytest.approx(ref, rel=1e-4)  # never divided by the length
    grad = np.asarray(jax.grad(total)(z.astype("f4")))
    fd = _fd_grad(lambda v: _ctc_ref(_softmax(v[0]), [0, 1], 2), z)
    np.testing.assert_allclose(grad, fd / (4 if norm_by_times else 1), rtol=1e-3, atol=1e-5)


def test_ctc_gradient_through_softmax_matches_finite_differences():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    y = L.data(name="y", type=DT.integer_value_sequence(2))
    prob = L.mixed(input=L.identity_projection(input=x), act=A.Softmax())
    cost = L.ctc(input=prob, label=y)
    z = RNG.normal(size=(1, 3, 3))
    label = Seq(np.array([[1, 0]], np.int32), np.array([2], np.int32))

    def total(v):
        (c,), _ = forward([cost], {}, {"x": Seq(v, np.array([3], np.int32)), "y": label})
        return c.sum()

    grad = np.asarray(jax.grad(total)(z.astype("f4")))
    fd = _fd_grad(lambda v: _ctc_ref(_softmax(v[0]), [1, 0], 2), z)
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-5)


def test_sizes_and_levels_are_checked():
    x = L.data(name="x", type=DT.dense_vector_sequence(4))
    y = L.data(name="y", type=DT.integer_value_sequence(2))
    # v2 built these two and failed when they ran: a warning, then an error at run time
    with pytest.warns(LayerConfigWarning, match=r"input has size 4; expected 3 \(num_classes"):
        assert "unrunnable" in L.ctc(input=x, label=y).attrs
    flat = L.data(name="flat", type=DT.integer_value(3))
    with pytest.warns(LayerConfigWarning, match="label has seq_level 0"):
        assert "unrunnable" in L.warp_ctc(input=x, label=flat).attrs
    with pytest.raises(LayerConfigError, match="blank=5 is not a class id"):
        L.warp_ctc(input=x, label=L.data(name="z", type=DT.integer_value_sequence(3)), blank=5)
