"""Activations against numpy float64 references."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.activations import as_activation
from paddle_lite._src.compile import forward
from paddle_lite.errors import LayerTypeError

act = paddle.activation
Z = np.linspace(-50.0, 50.0, 41).reshape(1, -1)
POS = np.linspace(0.1, 5.0, 9).reshape(1, -1)


def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


CASES = [
    (act.Tanh, "tanh", Z, np.tanh),
    (act.Sigmoid, "sigmoid", Z, lambda z: 1 / (1 + np.exp(-np.clip(z, -40, 13)))),
    (act.Relu, "relu", Z, lambda z: np.maximum(z, 0)),
    (act.Linear, "", Z, lambda z: z),
    (act.Softmax, "softmax", Z / 10, _softmax),
    (act.BRelu, "brelu", Z, lambda z: np.minimum(24, np.maximum(0, z))),
    (act.SoftRelu, "softrelu", Z, lambda z: np.log1p(np.exp(np.clip(z, -40, 40)))),
    (act.STanh, "stanh", Z, lambda z: 1.7159 * np.tanh(2 * z / 3)),
    (act.Abs, "abs", Z, np.abs),
    (act.Square, "square", Z, np.square),
    (act.Exp, "exponential", Z / 10, np.exp),
    (act.Log, "log", POS, np.log),
    (act.Sqrt, "sqrt", POS, np.sqrt),
    (act.Reciprocal, "reciprocal", POS, lambda z: 1 / z),
    (act.SoftSign, "softsign", Z, lambda z: z / (1 + np.abs(z))),
]


@pytest.mark.parametrize("cls, name, z, ref", CASES, ids=[c[1] or "linear" for c in CASES])
def test_activation_values(cls, name, z, ref):
    a = cls()
    assert a.name == name
    got = np.asarray(a.apply(z.astype(np.float32)), np.float64)
    np.testing.assert_allclose(got, ref(z), rtol=1e-5, atol=1e-5)


def test_sigmoid_is_v2s_clipped_sigmoid_with_its_derivative_of_the_output():
    # v2's BaseMatrix sigmoid clips its argument to [-40, 13]; sigmoidDerivative is
    # o (1 - o) of the output, so a saturated unit still has a gradient and log(1 - o)
    # stays finite (a multi_binary_label_cross_entropy over it trains on).
    z = np.array([-1e30, -45.0, -3.0, 0.5, 13.0, 20.0, 1e30], np.float32)
    o64 = 1 / (1 + np.exp(-np.clip(np.float64(z), -40, 13)))
    sig = act.Sigmoid().apply
    np.testing.assert_allclose(np.asarray(sig(z), np.float64), o64, rtol=1e-6)
    grad = np.asarray(jax.grad(lambda v: sig(v).sum())(z), np.float64)
    np.testing.assert_allclose(grad, o64 * (1 - o64), rtol=1e-2)  # 1 - o in float32
    assert grad[-1] > 2e-6 and grad[0] > 0
    log_gap = jax.grad(lambda v: jax.numpy.log(1 - sig(v)).sum())
    assert np.isfinite(np.asarray(log_gap(np.array([50.0], np.float32)))).all()
    assert np.isnan(np.asarray(sig(np.array([np.nan], np.float32)))).all()


def test_support_hppl_and_identity_alias():
    assert act.Tanh().support_hppl and act.Sigmoid().support_hppl and act.Relu().support_hppl
    assert not act.Softmax().support_hppl
    assert act.Identity is act.Linear


def test_sequence_softmax_masks_padding():
    z = np.array([[[1.0], [2.0], [3.0]], [[0.5], [9.0], [9.0]]], np.float32)
    mask = np.array([[True, True, True], [True, False, False]])
    got = np.asarray(act.SequenceSoftmax().apply(z, mask=mask))[..., 0]
    np.testing.assert_allclose(got[0], _softmax(np.array([1.0, 2.0, 3.0])), rtol=1e-6)
    np.testing.assert_allclose(got[1], [1.0, 0.0, 0.0], rtol=1e-6)


def test_as_activation_accepts_class_and_refuses_strings():
    assert isinstance(as_activation(act.Relu, layer="l"), act.Relu)
    with pytest.raises(LayerTypeError, match="layer 'l'.*received 'relu'"):
        as_activation("relu", layer="l")


def test_sequence_softmax_on_nested_sequences_and_fully_padded_rows():
    import jax

    from paddle_lite._src.values import Seq, step_mask

    z = np.array([[[[1.0], [2.0]], [[0.0], [0.0]]]], np.float32)  # [B=1, S=2, T=2, 1]
    seq = Seq(z, np.array([1], np.int32), np.array([[2, 0]], np.int32))
    got = np.asarray(act.SequenceSoftmax().apply(z, mask=step_mask(seq)))[..., 0]
    np.testing.assert_allclose(got[0, 0], _softmax(np.array([1.0, 2.0])), rtol=1e-6)
    np.testing.assert_array_equal(got[0, 1], [0.0, 0.0])
    grad = jax.grad(lambda v: act.SequenceSoftmax().apply(v, mask=step_mask(seq))[0, 0, 0, 0])(z)
    assert np.all(np.isfinite(np.asarray(grad))) and np.all(np.asarray(grad)[0, 1] == 0.0)


def test_softmax_floors_at_minus_64_and_keeps_v2_gradient():
    """v2's CpuMatrix::softmax floors z - max z at -64; softmaxDerivative ignores the
    floor, so a sample whose label logit is far below the others still gets the gradient
    p - onehot through classification_cost (it would vanish at a clamped log)."""
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(3))
    label = paddle.layer.data(name="label", type=paddle.data_type.integer_value(3))
    p = paddle.layer.fc(input=x, size=3, act=act.Softmax(), bias_attr=False)
    cost = paddle.layer.classification_cost(input=p, label=label)
    z = np.array([[0.0, 200.0, 10.0]], np.float32)
    params = {"___fc_layer_0__.w0": np.eye(3, dtype=np.float32)}

    def total(params):
        (c, probs), _ = forward([cost, p], params, {"x": z, "label": np.array([0], np.int32)})
        return c.sum(), probs

    (c, probs), grad = jax.value_and_grad(total, has_aux=True)(params)
    floor = np.exp(-64.0)
    want_p = np.array([floor, 1.0, floor]) / (1.0 + 2 * floor)
    np.testing.assert_allclose(np.asarray(probs)[0], want_p, rtol=1e-5)
    np.testing.assert_allclose(float(c), 64.0, rtol=1e-5)  # -log(exp(-64) / sum)
    # dcost/dz = p - onehot(label); with W = I the weight gradient is x^T (p - onehot)
    want_g = np.outer(z[0].astype(np.float64), want_p - np.array([1.0, 0.0, 0.0]))
    np.testing.assert_allclose(np.asarray(grad["___fc_layer_0__.w0"]), want_g, rtol=1e-5, atol=1e-6)


def test_sigmoid_clips_its_argument_to_v2s_range_and_keeps_the_gradient():
    """v2's sigmoid (BaseMatrix and hppl) clips z to [-40, 13] before 1 / (1 + e^-z) and
    differentiates as o (1 - o) of that output, so a saturated unit through
    multi_binary_label_cross_entropy costs -log(1 - sigmoid(13)) = 13.0 with gradient
    o - label ~ 1 (a float32 1.0 made it the log floor, 85.2, with no gradient)."""
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(1))
    y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
    p = paddle.layer.fc(input=x, size=1, act=act.Sigmoid(), bias_attr=False)
    cost = paddle.layer.multi_binary_label_cross_entropy_cost(input=p, label=y)
    feeds = {"x": np.array([[1.0]], np.float32), "y": np.array([[0.0]], np.float32)}

    def total(w):
        (c, o), _ = forward([cost, p], {"___fc_layer_0__.w0": w}, feeds)
        return c.sum(), o

    for z in (-50.0, -40.0, -3.0, 0.5, 13.0, 20.0, 60.0):
        o64 = 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 13.0)))
        (c, o), g = jax.value_and_grad(total, has_aux=True)(np.array([[z]], np.float32))
        np.testing.assert_allclose(float(o[0, 0]), o64, rtol=1e-6)
        np.testing.assert_allclose(float(c), -np.log(1.0 - o64), rtol=2e-4)  # float32 1 - o
        # dcost/dw = (o / (1 - o)) ... * o (1 - o) * x = o for label 0 and x = 1
        np.testing.assert_allclose(float(g[0, 0]), o64, rtol=1e-4, atol=1e-30)


KINKS = np.array([-60.0, -40.0, -2.5, -0.5, 0.0, 0.5, 3.0, 24.0, 30.0, 40.0, 45.0])


def _v2_derivatives():
    """v2's backward of each activation (ActivationFunction.cpp with BaseMatrix.cu's
    ...Derivative ops), as a function of the input ``z`` and the output ``y``."""
    return [
        (act.Relu, lambda z, y: (y > 0).astype(float)),
        (act.BRelu, lambda z, y: ((y > 0) & (y < 24)).astype(float)),
        (act.SoftRelu, lambda z, y: 1.0 - np.exp(-y)),
        (act.Abs, lambda z, y: np.sign(z)),
        (act.Tanh, lambda z, y: 1.0 - y * y),
        (act.STanh, lambda z, y: (2.0 / 3.0) / 1.7159 * (1.7159**2 - y * y)),
        (act.Square, lambda z, y: 2.0 * z),
        (act.Exp, lambda z, y: y),
        (act.SoftSign, lambda z, y: 1.0 / (1.0 + np.abs(z)) ** 2),
    ]


V2_DERIVATIVES = _v2_derivatives()


@pytest.mark.parametrize("cls, deriv", V2_DERIVATIVES, ids=[c.name for c, _ in V2_DERIVATIVES])
def test_activation_gradients_are_v2s_hand_written_derivatives(cls, deriv):
    """v2 differentiates relu and brelu from the output (0 at the bounds: z = 0 and 24),
    abs as sign(z) (0 at 0) and softrelu as 1 - exp(-y) of the clipped output, so past
    the clip (z > 40) the gradient stays ~1."""
    z = KINKS if cls is not act.Exp else KINKS / 10
    z32 = z.astype(np.float32)
    f = cls().apply
    y = np.asarray(f(z32), np.float64)
    grad = np.asarray(jax.grad(lambda v: f(v).sum())(z32), np.float64)
    np.testing.assert_allclose(grad, deriv(z32.astype(np.float64), y), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("cls", [act.Relu, act.BRelu, act.Abs], ids=["relu", "brelu", "abs"])
def test_an_infinite_gradient_through_a_closed_unit_is_v2s_product_also_jitted(cls):
    """v2's relu and brelu derivatives multiply (``a *= y > 0``): an infinite gradient
    reaching a closed unit gives NaN, which the trainer then reports, also in a jitted
    program (XLA would turn ``t * (y > 0)`` into a select that drops it). v2's abs
    derivative selects (``a = z > 0 ? a : z < 0 ? -a : 0``): 0 at ``z = 0``."""
    z = np.array([-1.0, 0.0, 2.0], np.float32)
    f = cls().apply

    def total(v):
        return (1.0 / f(v)).sum()  # d/dy of 1/y is infinite where y = 0

    want = {act.Relu: [np.nan, np.nan], act.BRelu: [np.nan, np.nan], act.Abs: [1.0, 0.0]}
    for grad in (jax.grad(total), jax.jit(jax.grad(total))):
        got = np.asarray(grad(z))
        np.testing.assert_array_equal(got[:2], want[cls])
        assert np.isfinite(got[2])


@pytest.mark.parametrize(
    "cls, deriv",
    [
        (act.Log, lambda z, y: 1.0 / z),
        (act.Sqrt, lambda z, y: 0.5 / y),
        (act.Reciprocal, lambda z, y: -y * y),
    ],
    ids=["log", "sqrt", "reciprocal"],
)
def test_positive_domain_activation_gradients_are_v2s(cls, deriv):
    f = cls().apply
    z32 = POS.astype(np.float32)[0]
    y = np.asarray(f(z32), np.float64)
    grad = np.asarray(jax.grad(lambda v: f(v).sum())(z32), np.float64)
    np.testing.assert_allclose(grad, deriv(z32.astype(np.float64), y), rtol=2e-5)


@pytest.mark.parametrize(
    "cls, deriv",
    [
        (act.Log, lambda z: 1.0 / z),
        (act.Sqrt, lambda z: 0.5 / np.sqrt(z)),
        (act.Reciprocal, lambda z: -1.0 / (z * z)),
    ],
    ids=["log", "sqrt", "reciprocal"],
)
def test_log_sqrt_reciprocal_leave_the_padding_steps_of_a_sequence_out(cls, deriv):
    """v2 has no padding; here a padding step's act(0) (inf) must not make the weight
    gradient NaN: it is the sum over the real steps of x_t^T act'(x_t W)."""
    from paddle_lite._src.values import Seq, data_of

    rng = np.random.default_rng(5)
    with paddle.layer.name_scope():
        seq = paddle.layer.data(name="s", type=paddle.data_type.dense_vector_sequence(3))
        h = paddle.layer.fc(input=seq, size=2, act=cls(), bias_attr=False)
        out = paddle.layer.pooling(input=h, pooling_type=paddle.pooling.Sum())
    x = rng.uniform(0.5, 1.5, size=(2, 3, 3)).astype(np.float32)
    x[1, 1:] = 0.0
    lengths = np.array([3, 1], np.int32)
    w = rng.uniform(0.5, 1.5, size=(3, 2)).astype(np.float32)

    def total(w):
        (v,), _ = forward([out], {"___fc_layer_0__.w0": w}, {"s": Seq(x, lengths)})
        return data_of(v).sum()

    rows = np.concatenate([x[0], x[1, :1]]).astype(np.float64)
    want = rows.T @ deriv(rows @ w.astype(np.float64))
    np.testing.assert_allclose(np.asarray(jax.grad(total)(w), np.float64), want, rtol=1e-5)


def test_sequence_softmax_of_a_wide_or_plain_layer_cannot_run():
    """v2's sequence_softmax forward returned an error for a step wider than 1 and had no
    sequence to run over for a plain layer: both build (as v2 parsed them) and refuse to
    run, instead of a softmax over each column's steps or over the batch."""
    from paddle_lite.errors import LayerConfigError, LayerConfigWarning

    seq = paddle.layer.data(name="s", type=paddle.data_type.dense_vector_sequence(3))
    plain = paddle.layer.data(name="p", type=paddle.data_type.dense_vector(3))
    with pytest.warns(LayerConfigWarning, match="size 1.*received size 2"):
        wide = paddle.layer.fc(input=seq, size=2, act=act.SequenceSoftmax())
    with pytest.warns(LayerConfigWarning, match="needs a sequence"):
        flat = paddle.layer.fc(input=plain, size=1, act=act.SequenceSoftmax())
    from paddle_lite._src.values import Seq

    steps = Seq(np.ones((2, 4, 3), np.float32), np.array([4, 2], np.int32))
    for out, feeds in ((wide, {"s": steps}), (flat, {"p": np.ones((2, 3), np.float32)})):
        params = {p.name: np.ones(p.shape, np.float32) for p in out.params}
        with pytest.raises(LayerConfigError, match="SequenceSoftmax"):
            forward([out], params, feeds)
