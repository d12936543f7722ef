"""The concrete v2 update rules: Momentum, Adam, Adamax, AdaGrad, DecayedAdaGrad, RMSProp, AdaDelta.

Each is an ``Optimizer`` that only states its
rule: its slot arrays and either ``precondition`` (a per-element rate inside the
shared momentum form ``v = momentum*v - lr*r*(g + l2*w)``) or ``direct`` (the whole
step, for Adam and Adamax); the base class builds the optax transformation.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from paddle_lite._src.optim.optimizers import Optimizer
from paddle_lite._src.optim.regularizers import number, usual

_BIAS = "the bias correction 1 - beta**t is then zero or negative: the updates are not finite"


def _first(step) -> jnp.ndarray:
    return step == 0


class Momentum(Optimizer):
    """SGD with momentum (v2 ``learning_method='momentum'``), the default method.

    Maths: ``v = momentum*v - lr*(g + l2*w);  w += v``.

    Args:
        momentum: global default momentum (None: 0).
        sparse: v2 ``sparse_momentum``: dense momentum evaluated lazily, so even
            ``sparse_update`` parameters then move every row as dense momentum does
            (see ``sparse_rows``).
        **settings: the shared settings (see [`Optimizer`][paddle_lite.optimizer.Optimizer]).

    Example:
        >>> opt = Momentum(momentum=0.9, learning_rate=0.1 / 128)
    """

    sparse_rows = True

    def __init__(self, momentum: float | None = None, sparse: bool = False, **settings: Any):
        super().__init__(**settings)
        self.momentum = 0.0 if momentum is None else number("Momentum", "momentum", momentum)
        usual("Momentum", "momentum", self.momentum, 0.0, 1.0, "the velocity grows without end")
        self.sparse = bool(sparse)


class Adam(Optimizer):
    """Adam (v2 ``adam``); ignores the schedule and, without L1, the L2 decay.

    Maths (``t`` = 1, 2, ...):

        m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g**2
        w -= lr*sqrt(1-b2**t)/(1-b1**t) * m / (sqrt(v) + epsilon)

    Args:
        beta1, beta2, epsilon: as above.
        **settings: the shared settings (see [`Optimizer`][paddle_lite.optimizer.Optimizer]).

    Example:
        >>> opt = Adam(learning_rate=1e-3, beta1=0.9)
    """

    slot_names = ("moment1", "moment2")
    scheduled = False
    momentum_form = False

    def __init__(
        self, beta1: float = 0.9, beta2: float = 0.999, epsilon: float = 1e-8, **settings: Any
    ):
        super().__init__(**settings)
        self.beta1 = usual("Adam", "beta1", number("Adam", "beta1", beta1), 0.0, 1.0, _BIAS)
        self.beta2 = usual("Adam", "beta2", number("Adam", "beta2", beta2), 0.0, 1.0, _BIAS)
        self.epsilon = number("Adam", "epsilon", epsilon)

    def direct(
        self, g: jax.Array, slots: dict[str, jax.Array], step: jax.Array, lr: jax.Array
    ) -> tuple[jax.Array, dict[str, jax.Array]]:
        t = (step + 1).astype(jnp.float32)
        alpha = lr * jnp.sqrt(1.0 - self.beta2**t) / (1.0 - self.beta1**t)
        m = self.beta1 * slots["moment1"] + (1.0 - self.beta1) * g
        v = self.beta2 * slots["moment2"] + (1.0 - self.beta2) * g * g
        return -(m * alpha) / (jnp.sqrt(v) + self.epsilon), {"moment1": m, "moment2": v}


class Adamax(Optimizer):
    """Adamax (v2 ``adamax``); ignores the schedule and, without L1, the L2 decay.

    Maths: ``m = b1*m + (1-b1)*g;  u = max(b2*u, |g|);  w -= lr/(1-b1**t) * m/u``
    (``m/u`` is taken as 0 where ``u == 0``, i.e. the gradient was always 0).

    Args:
        beta1, beta2: as above.
        **settings: the shared settings (see [`Optimizer`][paddle_lite.optimizer.Optimizer]).

    Example:
        >>> opt = Adamax(beta1=0.9, beta2=0.999)
    """

    slot_names = ("moment", "norm")
    scheduled = False
    momentum_form = False

    def __init__(self, beta1: float = 0.9, beta2: float = 0.999, **settings: Any):
        super().__init__(**settings)
        self.beta1 = usual("Adamax", "beta1", number("Adamax", "beta1", beta1), 0.0, 1.0, _BIAS)
        self.beta2 = number("Adamax", "beta2", beta2)

    def direct(
        self, g: jax.Array, slots: dict[str, jax.Array], step: jax.Array, lr: jax.Array
    ) -> tuple[jax.Array, dict[str, jax.Array]]:
        t = (step + 1).astype(jnp.float32)
        m = self.beta1 * slots["moment"] + (1.0 - self.beta1) * g
        u = jnp.maximum(self.beta2 * slots["norm"], jnp.abs(g))
        ratio = jnp.where(u > 0, m / jnp.where(u > 0, u, 1.0), 0.0)
        return -(lr / (1.0 - self.beta1**t)) * ratio, {"moment": m, "norm": u}


class AdaGrad(Optimizer):
    """AdaGrad (v2 ``adagrad``, epsilon 1e-6); ignores the schedule.

    Maths: ``G += g**2;  r = 1/sqrt(G + 1e-6);  v = momentum*v - lr*r*(g + l2*w);
    w += v``.

    Args:
        **settings: the shared settings (see [`Optimizer`][paddle_lite.optimizer.Optimizer]).

    Example:
        >>> opt = AdaGrad(learning_rate=3e-3, regularization=regularizers.L2Regularization(8e-4))
    """

    slot_names = ("sum_sq",)
    scheduled = False
    rate_vector = True
    sparse_rows = True
    epsilon = 1e-6

    def precondition(
        self, g: jax.Array, slots: dict[str, jax.Array], step: jax.Array
    ) -> tuple[jax.Array | None, dict[str, jax.Array]]:
        total = slots["sum_sq"] + g * g
        return 1.0 / jnp.sqrt(total + self.epsilon), {"sum_sq": total}

    def current_rate(self, slots: dict[str, jax.Array]) -> jax.Array:
        """The per-element rate of the last update (v2's learning-rate vector)."""
        return 1.0 / jnp.sqrt(slots["sum_sq"] + self.epsilon)


class _Decayed(Optimizer):
    rate_vector = True

    def __init__(self, rho: float = 0.95, epsilon: float = 1e-6, **settings: Any):
        super().__init__(**settings)
        name = type(self).__name__
        self.rho = usual(name, "rho", number(name, "rho", rho), 0.0, 1.0,
                         "the running mean of squares then does not average")  # fmt: skip
        self.epsilon = number(name, "epsilon", epsilon)

    def _mean_sq(self, previous, g, step):
        """``rho*E + (1-rho)*g**2``; the first update uses ``g**2`` whole (v2)."""
        weight = jnp.where(_first(step), 1.0, 1.0 - self.rho)
        return self.rho * previous + weight * g * g


class DecayedAdaGrad(_Decayed):
    """AdaGrad with a decayed sum (v2 ``decayed_adagrad``).

    Maths: ``E = rho*E + (1-rho)*g**2`` (``E = g**2`` on the first update);
    ``r = 1/sqrt(E + epsilon);  v = momentum*v - lr*r*(g + l2*w);  w += v``.

    Args:
        rho, epsilon: as above.
        **settings: the shared settings (see [`Optimizer`][paddle_lite.optimizer.Optimizer]).

    Example:
        >>> opt = DecayedAdaGrad(rho=0.95, epsilon=1e-6)
    """

    slot_names = ("mean_sq",)
    sparse_rows = True
    decayed_slots = ("mean_sq",)

    def precondition(
        self, g: jax.Array, slots: dict[str, jax.Array], step: jax.Array
    ) -> tuple[jax.Array | None, dict[str, jax.Array]]:
        mean_sq = self._mean_sq(slots["mean_sq"], g, step)
        return self.current_rate({"mean_sq": mean_sq}), {"mean_sq": mean_sq}

    def current_rate(self, slots: dict[str, jax.Array]) -> jax.Array:
        """The per-element rate of the last update (v2's learning-rate vector)."""
        return 1.0 / jnp.sqrt(slots["mean_sq"] + self.epsilon)


class RMSProp(_Decayed):
    """RMSProp, centred (v2 ``rmsprop``).

    Maths: ``E = rho*E + (1-rho)*g**2`` (``E = g**2`` on the first update);
    ``F = rho*F + (1-rho)*g;  r = 1/sqrt(E - F**2 + epsilon);
    v = momentum*v - lr*r*(g + l2*w);  w += v``.

    Args:
        rho, epsilon: as above.
        **settings: the shared settings (see [`Optimizer`][paddle_lite.optimizer.Optimizer]).

    Example:
        >>> opt = RMSProp(learning_rate=1e-3, rho=0.95)
    """

    slot_names = ("mean_sq", "mean")
    sparse_rows = True
    decayed_slots = ("mean_sq", "mean")

    def precondition(
        self, g: jax.Array, slots: dict[str, jax.Array], step: jax.Array
    ) -> tuple[jax.Array | None, dict[str, jax.Array]]:
        new = {
            "mean_sq": self._mean_sq(slots["mean_sq"], g, step),
            "mean": self.rho * slots["mean"] + (1.0 - self.rho) * g,
        }
        return self.current_rate(new), new

    def current_rate(self, slots: dict[str, jax.Array]) -> jax.Array:
        """The per-element rate of the last update (v2's learning-rate vector)."""
        return 1.0 / jnp.sqrt(slots["mean_sq"] - slots["mean"] ** 2 + self.epsilon)


class AdaDelta(_Decayed):
    """AdaDelta (v2 ``adadelta``), scaled by the scheduled learning rate.

    Maths: ``E = rho*E + (1-rho)*g**2;  r = sqrt((D + epsilon)/(E + epsilon));
    D = rho*D + (1-rho)*(g*r)**2;  v = momentum*v - lr*r*(g + l2*w);  w += v``.

    Args:
        rho, epsilon: as above.
        **settings: the shared settings (see [`Optimizer`][paddle_lite.optimizer.Optimizer]).

    Example:
        >>> opt = AdaDelta(learning_rate=1.0, rho=0.95)
    """

    slot_names = ("mean_sq", "mean_sq_delta")

    def precondition(
        self, g: jax.Array, slots: dict[str, jax.Array], step: jax.Array
    ) -> tuple[jax.Array | None, dict[str, jax.Array]]:
        mean_sq = self.rho * slots["mean_sq"] + (1.0 - self.rho) * g * g
        rate = jnp.sqrt((slots["mean_sq_delta"] + self.epsilon) / (mean_sq + self.epsilon))
        step_sq = (g * rate) ** 2
        delta_sq = self.rho * slots["mean_sq_delta"] + (1.0 - self.rho) * step_sq
        return rate, {"mean_sq": mean_sq, "mean_sq_delta": delta_sq}
