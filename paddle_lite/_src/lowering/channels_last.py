"""Images kept channels-last (NHWC) between the convolution and pooling layers of a chain.

Every layer sees and returns images flat in v2's CHW order, ``[batch, C*H*W]``. Inside
``compile.forward`` only, a run of ``img_conv`` / ``img_pool`` / ``batch_norm`` layers
and the residual ``addto`` s between them passes its images
as ``ChannelsLast`` ``[batch, H, W, C]`` instead: XLA:CPU convolves and pools NHWC
faster (LeNet-5's training step 1.2-1.3x in plain JAX on 2 cores, see
``bench/conv_layout.py``). The image is transposed once where the chain starts and once
where a value leaves it (into ``fc``, any other layer, an output, a printer), so every
value a user, a parameter file or another layer sees keeps v2's order; parameters keep
their shapes (filters OIHW, per-position biases in CHW order).

A layer joins a chain only where the result is the same computation: its kind says so
(``channels_last``), its activation is element-wise,
and it has no dropout, error clipping, printer tap or float32 override.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

from paddle_lite._src.values import Seq

# element-wise activations: the same values in any layout
ELEMENTWISE = frozenset(
    {
        "",  # linear
        "tanh",
        "sigmoid",
        "relu",
        "brelu",
        "softrelu",
        "stanh",
        "abs",
        "square",
        "exponential",
        "log",
        "sqrt",
        "reciprocal",
        "softsign",
    }
)


class ChannelsLast(NamedTuple):
    """An image batch ``data`` of shape ``[batch, H, W, C]``."""

    data: Any

    @property
    def shape(self) -> tuple[int, ...]:
        return self.data.shape

    def flat(self) -> Any:
        """The batch as v2 lays it out: ``[batch, C*H*W]`` in CHW order."""
        x = self.data
        return x.transpose(0, 3, 1, 2).reshape(x.shape[0], -1)


def from_flat(x: Any, image: tuple[int, int, int]) -> ChannelsLast:
    """``x`` ``[batch, C*H*W]`` (CHW order) as a ``ChannelsLast`` image."""
    return ChannelsLast(x.reshape(-1, *image).transpose(0, 2, 3, 1))


def to_flat(value: Any) -> Any:
    """``value`` as every layer outside a chain sees it."""
    return value.flat() if isinstance(value, ChannelsLast) else value


def joins(layer: Any, kind: Any, inputs: list[Any], excluded: bool) -> bool:
    """Whether ``layer`` computes channels-last on ``inputs`` (its values so far): one
    input, or several channels-last images of one shape (a residual ``addto``)."""
    if excluded or any(isinstance(x, Seq) for x in inputs):
        return False
    if len(inputs) != 1 and len({getattr(x, "shape", None) for x in inputs}) != 1:
        return False
    attrs = layer.attrs
    act = attrs.get("act")
    if act is not None and getattr(act, "name", None) not in ELEMENTWISE:
        return False
    if attrs.get("drop_rate") or attrs.get("error_clipping_threshold"):
        return False
    return kind.channels_last(attrs, all(isinstance(x, ChannelsLast) for x in inputs))


def prepare(layer: Any, kind: Any, inputs: list[Any], excluded: bool) -> list[Any]:
    """The inputs ``layer`` gets: channels-last where it joins a chain, flat otherwise."""
    if joins(layer, kind, inputs, excluded):
        image = layer.attrs.get("image")
        return [x if isinstance(x, ChannelsLast) else from_flat(x, image) for x in inputs]
    return [to_flat(v) for v in inputs]


def settled(out: Any, inputs: list[Any]) -> Any:
    """``out``, kept whole in memory where it is a residual sum of a chain on a CPU.

    XLA:CPU fuses element-wise producers into every consumer, so a residual stream
    ``y_k = act(bn(conv_k) + y_(k-1))`` is recomputed from the first block of its stage
    inside each later use: the transposed copies the filter gradients read, the next
    sums. A conditional is a boundary no fusion crosses (an optimization barrier is
    removed before fusion), so passing each residual sum through one makes the stream
    stored once and read back: ResNet-32's training step takes a fifth less time
    (``python -m bench.cpu_conv_variants``). The predicate holds for every value, NaN
    included (nothing compares below -inf), so the other branch never runs and ``out``
    is returned unchanged.
    """
    if (
        not isinstance(out, ChannelsLast)
        or len(inputs) < 2
        or out.data.size == 0
        or jax.default_backend() != "cpu"
    ):
        return out
    x = out.data
    always = ~(x.reshape(-1)[0] < -jnp.inf)
    return ChannelsLast(lax.cond(always, lambda v: v, jnp.negative, x))
