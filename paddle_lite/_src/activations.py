"""Activations (v2 ``paddle.activation``): ``act(z)`` applied after a layer's sum.

Each is a small immutable object with the v2 ``name`` (the proto string) and
``support_hppl`` (whether LSTM/GRU may use it as a gate or state activation), and
``apply(z, mask=None)`` computing it with ``jax.numpy``.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.errors import LayerConfigError, LayerTypeError


class BaseActivation:
    """An activation. ``name`` is v2's proto string; subclasses define ``_fn``."""

    name = ""
    support_hppl = False

    def __init__(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self).__name__)

    # where act has no finite value or gradient at 0, the value padding steps take
    padding_input: float | None = None

    def apply(self, z: Any, mask: Any = None) -> Any:
        """Return ``act(z)``; ``mask`` ([batch, T] bool, True on a sequence's real steps)
        keeps padding out: sequence softmax spans the real steps only, and ``log``,
        ``sqrt`` and ``reciprocal`` give 0 there, with no NaN gradient from ``act(0)``."""
        if mask is None or self.padding_input is None:
            return self._fn(z)
        real = jnp.reshape(mask, mask.shape + (1,) * (jnp.ndim(z) - mask.ndim))
        return jnp.where(real, self._fn(jnp.where(real, z, self.padding_input)), 0.0)

    def _fn(self, z: Any) -> Any:
        return z

    def to_json(self) -> str:
        """The JSON form: the class name."""
        return type(self).__name__


class Tanh(BaseActivation):
    """``tanh(z)``."""

    name, support_hppl = "tanh", True

    def _fn(self, z):
        return jnp.tanh(z)


SIGMOID_RANGE = (-40.0, 13.0)  # v2's SIGMOID_THRESHOLD_MIN / _MAX


@jax.custom_jvp
def v2_sigmoid(z: Any) -> Any:
    """v2's sigmoid: ``1 / (1 + exp(-clip(z, -40, 13)))``, differentiated as ``o (1 - o)``
    of that output for every ``z`` (``BaseMatrix::sigmoid`` / ``sigmoidDerivative``, and
    the same clip in LSTM and GRU gates): the clip bounds the value, not the gradient.
    The output stays below 1 (``1 - 2.3e-6``), so ``log(1 - o)`` stays finite."""
    return jax.nn.sigmoid(jnp.clip(z, *SIGMOID_RANGE))


@v2_sigmoid.defjvp
def _v2_sigmoid_jvp(primals, tangents):
    o = v2_sigmoid(primals[0])
    return o, o * (1 - o) * tangents[0]


class Sigmoid(BaseActivation):
    """``1 / (1 + exp(-z))`` with ``z`` clipped to ``[-40, 13]`` as v2 did (``v2_sigmoid``)."""

    name, support_hppl = "sigmoid", True

    def _fn(self, z):
        return v2_sigmoid(z)


def hand_derivative(fn: Any, derivative: Any) -> Any:
    """``fn`` differentiated by v2's hand-written ``derivative(z, y, t)`` (the tangent
    from ``z``, the output ``y`` and the incoming tangent ``t``) instead of autodiff:
    v2's kernels multiply the output gradient by a mask (``a *= mask``), so an infinite
    gradient through a closed unit is NaN there as in v2, or select (``a = b ? a : 0``)."""
    f = jax.custom_jvp(fn)

    def jvp(primals: Any, tangents: Any) -> Any:
        y = f(primals[0])
        return y, derivative(primals[0], y, tangents[0])

    f.defjvp(jvp)
    return f


# v2's derivatives multiply by the unit's 0/1 state (``a *= y > 0``). Written as
# ``t * (y > 0)``, XLA turns the product into a select, which drops an infinite
# gradient through a closed unit where v2's product gave NaN: ``sign`` keeps the product.
v2_relu = hand_derivative(  # reluDerivative: a *= (y > 0)
    lambda z: jnp.maximum(z, 0), lambda z, y, t: t * jnp.sign(y)
)
v2_brelu = hand_derivative(  # breluDerivative: a *= (0 < y < 24)
    lambda z: jnp.clip(z, 0.0, 24.0), lambda z, y, t: t * (jnp.sign(y) * jnp.sign(24.0 - y))
)
v2_abs = hand_derivative(  # absDerivative: a = z > 0 ? a : z < 0 ? -a : 0
    jnp.abs, lambda z, y, t: jnp.where(z > 0, t, jnp.where(z < 0, -t, jnp.zeros_like(t)))
)


class Relu(BaseActivation):
    """``max(z, 0)``; its derivative is 1 where ``z > 0`` and 0 elsewhere, also at
    ``z = 0`` (v2's ``reluDerivative`` multiplies by the output ``> 0``)."""

    name, support_hppl = "relu", True

    def _fn(self, z):
        return v2_relu(z)


class Linear(BaseActivation):
    """The identity, ``z`` (also named ``Identity``)."""

    name, support_hppl = "", True


Identity = Linear


SOFTMAX_FLOOR = -64.0


def floored_softmax(z, axis=-1, mask=None):
    """v2's softmax (``CpuMatrix::softmax``): ``z - max z`` is floored at -64 before
    ``exp``, so no probability is below ``exp(-64) / sum`` and ``-log p`` stays finite
    (at most about 66). Its backward (``softmaxDerivative``) is ``p * (g - sum(g p))`` at
    the floored output, ignoring the floor: a sample far from its label still gets the
    gradient ``p - onehot``. ``mask`` (bool, broadcast to ``z``) leaves entries out."""
    if mask is not None:
        z = jnp.where(mask, z, jnp.finfo(z.dtype).min)
    shifted = z - jax.lax.stop_gradient(jnp.max(z, axis=axis, keepdims=True))
    floored = shifted + jax.lax.stop_gradient(jnp.maximum(shifted, SOFTMAX_FLOOR) - shifted)
    if mask is not None:
        floored = jnp.where(mask, floored, jnp.finfo(z.dtype).min)
    return jax.nn.softmax(floored, axis=axis)


class Softmax(BaseActivation):
    """``exp(z_i) / sum_j exp(z_j)`` over the features of each sample, as v2 computes it:
    ``z_i - max z`` is floored at -64 (see ``floored_softmax``).

    Computed in float32 at least (also under ``precision="bfloat16"``): probabilities
    rounded to bfloat16's 3 digits would make the cost's gradient noisy."""

    name = "softmax"

    def _fn(self, z):
        return floored_softmax(z.astype(jnp.promote_types(z.dtype, jnp.float32)))


class SequenceSoftmax(BaseActivation):
    """Softmax over the steps of a sequence of width-1 items (``[batch, T, 1]``; for a
    nested sequence ``[batch, S, T, 1]``, over the steps of each sub-sequence), floored
    as v2's softmax (``floored_softmax``). Padding steps get 0 and no gradient, also
    in fully padded sub-sequences."""

    name = "sequence_softmax"

    def apply(self, z: jax.Array, mask: jax.Array | None = None) -> jax.Array:
        """Softmax over the steps axis; padding steps (``mask`` False) get 0."""
        if mask is None:
            return floored_softmax(z, axis=-2)
        m = mask[..., None]
        return jnp.where(m, floored_softmax(z, axis=-2, mask=m), 0.0)


class BRelu(BaseActivation):
    """Bounded relu: ``min(24, max(0, z))``; its derivative is 1 where ``0 < z < 24``
    and 0 elsewhere, the bounds included (v2's ``breluDerivative`` of the output)."""

    name = "brelu"

    def _fn(self, z):
        return v2_brelu(z)


SOFTRELU_RANGE = (-40.0, 40.0)  # v2's SoftRelu THRESHOLD


# v2's soft relu, ``log(1 + exp(clip(z, -40, 40)))``, differentiated as ``1 - exp(-y)``
# of that output for every ``z`` (``softrelu`` / ``softreluDerivative``): past the clip
# the gradient stays ~1, not 0.
v2_softrelu = hand_derivative(
    lambda z: jnp.log1p(jnp.exp(jnp.clip(z, *SOFTRELU_RANGE))),
    lambda z, y, t: -jnp.expm1(-y) * t,
)


class SoftRelu(BaseActivation):
    """``log(1 + exp(z))`` with ``z`` clipped to ``[-40, 40]`` as v2 did (``v2_softrelu``)."""

    name = "softrelu"

    def _fn(self, z):
        return v2_softrelu(z)


class STanh(BaseActivation):
    """Scaled tanh: ``1.7159 * tanh(2z/3)``."""

    name = "stanh"

    def _fn(self, z):
        return 1.7159 * jnp.tanh(z * (2.0 / 3.0))


class Abs(BaseActivation):
    """``|z|``; its derivative is ``sign(z)``, 0 at ``z = 0`` (v2's ``absDerivative``)."""

    name = "abs"

    def _fn(self, z):
        return v2_abs(z)


class Square(BaseActivation):
    """``z ** 2``."""

    name = "square"

    def _fn(self, z):
        return z * z


class Exp(BaseActivation):
    """``exp(z)``."""

    name = "exponential"

    def _fn(self, z):
        return jnp.exp(z)


class Log(BaseActivation):
    """``log(z)``."""

    name = "log"
    padding_input = 1.0

    def _fn(self, z):
        return jnp.log(z)


class Sqrt(BaseActivation):
    """``sqrt(z)``."""

    name = "sqrt"
    padding_input = 1.0

    def _fn(self, z):
        return jnp.sqrt(z)


class Reciprocal(BaseActivation):
    """``1 / z``."""

    name = "reciprocal"
    padding_input = 1.0

    def _fn(self, z):
        return 1.0 / z


class SoftSign(BaseActivation):
    """``z / (1 + |z|)``."""

    name = "softsign"

    def _fn(self, z):
        return z / (1.0 + jnp.abs(z))


ALL: dict[str, type[BaseActivation]] = {
    cls.__name__: cls
    for cls in (
        Tanh,
        Sigmoid,
        Relu,
        Linear,
        Softmax,
        SequenceSoftmax,
        BRelu,
        SoftRelu,
        STanh,
        Abs,
        Square,
        Exp,
        Log,
        Sqrt,
        Reciprocal,
        SoftSign,
    )
}


def as_activation(act: Any, *, layer: str, arg: str = "act") -> BaseActivation:
    """Accept an activation instance, class or None (= Linear); reject the rest."""
    if act is None:
        return Linear()
    if isinstance(act, type) and issubclass(act, BaseActivation):
        return act()
    if isinstance(act, BaseActivation):
        return act
    raise LayerTypeError(
        f"layer '{layer}': {arg} must be a paddle.activation object such as "
        f"paddle.activation.Relu(); received {act!r} of type {type(act).__name__}."
    )


def activation_from_json(name: str) -> BaseActivation:
    return ALL[name]()


def cell_activation(act: Any, default: Any, *, layer: str, arg: str) -> BaseActivation:
    """An activation usable inside LSTM/GRU cells (v2: sigmoid, relu, tanh or linear);
    ``default`` when ``act`` is None."""
    act = as_activation(default if act is None else act, layer=layer, arg=arg)
    if not act.support_hppl:
        raise LayerConfigError(
            f"layer '{layer}': {arg} must be Sigmoid, Relu, Tanh or Linear inside a "
            f"recurrent cell; received {act!r}."
        )
    return act
