"""v2 optimizers (``paddle.optimizer``) as optax gradient transformations.

An optimizer object holds v2's global settings; ``to_optax(specs, frozen)`` turns it
into an ``optax.GradientTransformationExtraArgs`` for a dict of named parameters:

    chain(clip gradients, v2 update rule [+ L1/L2 regularizer], model average)

applied to the trainable parameters only: static parameters (``is_static``) and
names in ``frozen`` get an update of exactly ``-0.0`` (``w + -0.0`` is ``w`` bit for
bit) and no optimizer state. ``update`` takes the extra keyword arguments
``batch_size`` (samples in this batch) and ``pass_id`` (traced int scalars).

Per parameter (from its ``ParamSpec``; ``None`` or 0 means "use the global value"):

    lr       = global lr * spec.learning_rate * schedule(n, pass_id)
    momentum = spec.momentum       or the optimizer's momentum (Momentum only; else 0)
    l2       = spec.decay_rate     or L2Regularization.rate (else 0)
    l1       = spec.decay_rate_l1  or L1Regularization.rate (else 0)
    clip     = spec.gradient_clipping_threshold or gradient_clipping_threshold

Gradients are of the *sum* of per-sample costs. Numerics follow v2's C++ optimizers
(``FirstOrderOptimizer``, ``TrainingAlgorithmOp``, ``OptimizerWithRegularizer``),
including their quirks: ``n`` counts samples including the current batch; AdaGrad,
Adam and Adamax ignore the schedule (constant ``learning_rate``); Adam and Adamax
ignore L2 decay unless L1 is also set (then both act through the regularizer). As v2
did, a parameter with both momentum and L1 decay is refused (``OptimizerConfigError``).

This module holds the ``Optimizer`` base: v2's settings and the chain built from them;
the per-parameter update transformation is in ``optim.update_rule``, the concrete rules
(``Momentum``, ``Adam`` ...) in ``optim.rules``.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Iterable, Mapping
from typing import Any

import jax
import optax

from paddle_lite._src.errors import did_you_mean
from paddle_lite._src.optim import regularizers, sparse_rows
from paddle_lite._src.optim.regularizers import (
    ModelAverage,
    ModelAverageState,
    OptimizerArgumentError,
    number,
)
from paddle_lite._src.optim.schedules import OptimizerConfigError, make_schedule
from paddle_lite._src.optim.update_rule import ParamHyper, RuleState, rule_transform
from paddle_lite._src.specs import ParamSpec

SETTINGS: dict[str, Any] = {
    "learning_rate": 1e-3,
    "learning_rate_decay_a": 0.0,
    "learning_rate_decay_b": 0.0,
    "learning_rate_schedule": "poly",
    "learning_rate_args": "",
    "regularization": None,
    "model_average": None,
    "gradient_clipping_threshold": None,
    "is_async": False,
    "async_lagged_grad_discard_ratio": 1.5,
    "batch_size": None,
}


def _unset(value: float | None, default: float) -> float:
    """v2 treats ``None`` and 0 as unset for per-parameter settings."""
    return default if value is None or value == 0 else float(value)


class Optimizer:
    """Base of the v2 optimizers; holds the v1 ``settings`` shared by all of them.

    Args:
        **settings: the settings below, by keyword.

    Other Parameters:
        learning_rate (float): global learning rate (v2 default 1e-3).
        learning_rate_decay_a (float): the schedule's ``a`` (default 0).
        learning_rate_decay_b (float): the schedule's ``b`` (default 0).
        learning_rate_schedule (str): the schedule's name: ``"poly"`` (default),
            ``"caffe_poly"``, ``"constant"``, ``"exp"``, ``"discexp"``, ``"linear"``,
            ``"manual"`` or ``"pass_manual"``.
        learning_rate_args (str): the ``"manual"`` / ``"pass_manual"`` schedule's
            segments.
        regularization (L2Regularization | L1Regularization | list): weight decay.
        model_average (ModelAverage): averaged parameters for testing and inference.
        gradient_clipping_threshold (float): global elementwise gradient clip (None/0:
            off).
        is_async (bool): accepted; training is local.
        async_lagged_grad_discard_ratio (float): accepted; training is local.
        batch_size (int): accepted and ignored, as in v2.

    An optimizer is the ``update_equation`` of ``paddle.trainer.SGD``; ``to_optax``
    builds its transformation, ``average_params`` reads the model average.
    """

    slot_names: tuple[str, ...] = ()
    scheduled = True
    momentum_form = True
    rate_vector = False
    sparse_rows = False  # v2 can update sparse_update parameters row by row
    decayed_slots: tuple[str, ...] = ()  # slots that decay by rho per update

    def __init__(self, **settings: Any) -> None:
        self._check_keywords(settings)
        values = {**SETTINGS, **settings}
        name = type(self).__name__
        self.learning_rate = number(name, "learning_rate", values["learning_rate"])
        regularizers.usual(name, "learning_rate", self.learning_rate, 0.0, math.inf,
                           "a negative rate climbs the cost", stacklevel=4)  # fmt: skip
        self.learning_rate_decay_a = number(
            name, "learning_rate_decay_a", values["learning_rate_decay_a"]
        )
        self.learning_rate_decay_b = number(
            name, "learning_rate_decay_b", values["learning_rate_decay_b"]
        )
        self.learning_rate_schedule = values["learning_rate_schedule"]
        self.learning_rate_args = values["learning_rate_args"]
        # the learning-rate schedule: a pure jax function ``(n, pass_id) -> lr``
        self.schedule = make_schedule(
            self.learning_rate_schedule,
            self.learning_rate,
            self.learning_rate_decay_a,
            self.learning_rate_decay_b,
            self.learning_rate_args,
        )
        self.l2_rate, self.l1_rate = regularizers.parse_regularization(
            name, values["regularization"]
        )
        self.model_average = values["model_average"]
        if self.model_average is not None and not isinstance(self.model_average, ModelAverage):
            raise OptimizerArgumentError(
                f"{name}: model_average must be a ModelAverage; received {self.model_average!r}."
            )
        clip = values["gradient_clipping_threshold"]
        self.gradient_clipping_threshold = (
            None if clip is None else number(name, "gradient_clipping_threshold", clip, 0.0)
        )
        self.is_async = bool(values["is_async"])
        self.async_lagged_grad_discard_ratio = values["async_lagged_grad_discard_ratio"]
        self.momentum = 0.0

    def _check_keywords(self, settings: Mapping[str, Any]) -> None:
        unknown = sorted(set(settings) - set(SETTINGS))
        if unknown:
            own = [
                p
                for p in inspect.signature(type(self).__init__).parameters
                if p not in ("self", "settings")
            ]
            valid = own + list(SETTINGS)
            raise OptimizerArgumentError(
                f"{type(self).__name__}() got unexpected keyword argument(s) {unknown}; "
                f"valid keywords are {valid}." + did_you_mean(unknown[0], valid)
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(learning_rate={self.learning_rate!r})"

    def resolve(self, spec: ParamSpec) -> ParamHyper:
        """The update settings of ``spec`` with the global defaults filled in."""
        h = ParamHyper(
            lr_scale=float(spec.learning_rate),
            momentum=_unset(spec.momentum, self.momentum),
            l2=_unset(spec.decay_rate, self.l2_rate),
            l1=_unset(spec.decay_rate_l1, self.l1_rate),
            clip=_unset(spec.gradient_clipping_threshold, self.gradient_clipping_threshold or 0.0),
        )
        if sparse_rows.is_sparse(self, spec):
            sparse_rows.check_decay(spec.name, h.momentum, h.l1, h.l2)
            return dataclasses.replace(h, sparse=True)
        if sparse_rows.is_lazy_momentum(self, spec):
            sparse_rows.check_decay(spec.name, h.momentum, h.l1, h.l2)
        elif h.momentum and h.l1:
            _refuse_l1_momentum(type(self).__name__, spec.name, h)
        return h

    def with_global_defaults(self, specs: Mapping[str, ParamSpec]) -> dict[str, ParamSpec]:
        """``specs`` as v2 stores them after training starts: unset values filled in.

        Static parameters keep their unset values (v2 ignores them). Example: with
        ``AdaGrad(regularization=L2Regularization(8e-4))`` a parameter declared with
        ``l2_rate=0`` reports ``decay_rate == 8e-4`` (v2 test_paramconf_order).
        """
        out = {}
        for name, spec in specs.items():
            if spec.is_static:
                out[name] = spec
                continue
            h = self.resolve(spec)
            out[name] = dataclasses.replace(
                spec,
                momentum=h.momentum,
                decay_rate=h.l2,
                decay_rate_l1=h.l1,
                gradient_clipping_threshold=h.clip or None,
            )
        return out

    def to_optax(
        self, specs: Mapping[str, ParamSpec], frozen: Iterable[str] = frozenset()
    ) -> optax.GradientTransformationExtraArgs:
        """Build the optax transformation for the parameters ``specs``.

        Args:
            specs: ``{name: ParamSpec}`` of every parameter, in order.
            frozen: names never updated (besides the static ones).

        Returns:
            An ``optax.GradientTransformationExtraArgs``; call
            ``update(grads, state, params, batch_size=..., pass_id=...)``.
        """
        trainable = regularizers.trainable_names(specs, frozen)
        hypers = {name: self.resolve(specs[name]) for name in trainable}
        parts = [
            regularizers.clip_gradients({k: h.clip for k, h in hypers.items() if h.clip > 0}),
            rule_transform(self, hypers),
        ]
        if self.averages:
            parts.append(regularizers.model_average(self.model_average))
        return regularizers.only_trainable(optax.chain(*parts), trainable, tuple(specs))

    @property
    def averages(self) -> bool:
        """Whether [`average_params`][paddle_lite.optimizer.Optimizer.average_params] averages (a
        ``ModelAverage`` with a window)."""
        return self.model_average is not None and self.model_average.average_window > 0

    def average_params(self, state: Any, params: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters to test and save with: v2's model average when configured.

        Args:
            state: the state of ``to_optax(...)``.
            params: the current parameters.

        Returns:
            ``{name: array}``; the averaged values of the trained parameters, or a copy
            of ``params`` without ``model_average``. Pure jax (jit-able).
        """
        for part in state if isinstance(state, tuple) else ():
            if isinstance(part, ModelAverageState):
                return regularizers.averaged_params(part, dict(params))
        return dict(params)

    def catch_up(
        self, state: Any, params: Mapping[str, Any], specs: Mapping[str, ParamSpec], pass_id: Any
    ) -> tuple[dict[str, Any], Any]:
        """v2 ``catchUpWith``: the L1/L2 decay every row of a ``sparse_update``
        parameter missed, applied now (at a pass's end, and before testing).

        Args:
            state: the state of ``to_optax(specs)``.
            params: the trained parameters ``{name: array}``.
            specs: the specs ``to_optax`` was built from.
            pass_id: the current pass (for the learning-rate schedule).

        Returns:
            ``(params, state)`` with the decay applied and the rows' clocks reset. Pure jax.
        """
        parts = list(state) if isinstance(state, tuple) else []
        for i, part in enumerate(parts):
            clocks = part.slots.get(sparse_rows.DECAYED) if isinstance(part, RuleState) else None
            if not clocks:
                continue
            params, slots = dict(params), {s: dict(v) for s, v in part.slots.items()}
            lr = self.schedule(part.samples, pass_id) if self.scheduled else self.learning_rate
            for name in clocks:
                h = self.resolve(specs[name])
                own = {s: tree[name] for s, tree in part.slots.items() if name in tree}
                params[name], slots[sparse_rows.DECAYED][name] = sparse_rows.catch_up(
                    self, params[name], own, lr * h.lr_scale, h, part.step
                )
            parts[i] = part._replace(slots=slots)
        return dict(params), tuple(parts) if parts else state

    def slots_for(self, hyper: ParamHyper) -> tuple[str, ...]:
        """Slot arrays one parameter needs (``velocity`` only with momentum)."""
        velocity = ("velocity",) if self.momentum_form and hyper.momentum != 0 else ()
        return self.slot_names + velocity

    def precondition(
        self, g: jax.Array, slots: dict[str, jax.Array], step: jax.Array
    ) -> tuple[jax.Array | None, dict[str, jax.Array]]:
        """Per-element rate ``r`` of ``v = momentum*v - lr*r*(g + l2*w)``; None is 1."""
        return None, {}

    def direct(
        self, g: jax.Array, slots: dict[str, jax.Array], step: jax.Array, lr: jax.Array
    ) -> tuple[jax.Array, dict[str, jax.Array]]:
        """The whole step of rules outside the momentum form (Adam, Adamax)."""
        raise NotImplementedError

    def param_update(
        self,
        g: jax.Array,
        w: jax.Array,
        slots: dict[str, jax.Array],
        lr: jax.Array,
        h: ParamHyper,
        step: jax.Array,
    ) -> tuple[jax.Array, dict[str, jax.Array]]:
        """One parameter's delta and new slots (v2 rule, then the L1 regularizer)."""
        decay = 0.0 if h.l1 > 0 else h.l2
        rate = None
        if self.momentum_form:
            rate, new = self.precondition(g, slots, step)
            scaled_lr = lr if rate is None else lr * rate
            delta = -scaled_lr * (g + decay * w) if decay else -scaled_lr * g
            if "velocity" in slots:
                delta = h.momentum * slots["velocity"] + delta
                new["velocity"] = delta
        else:
            delta, new = self.direct(g, slots, step, lr)
        if h.l1 > 0:
            eta = lr * rate if (rate is not None and self.rate_vector) else lr
            value = regularizers.apply_l1(w + delta, eta * h.l1)
            if h.l2 > 0:
                value = regularizers.apply_l2(value, eta * h.l2)
            delta = value - w
        return delta, new


def _refuse_l1_momentum(owner: str, name: str, h: ParamHyper) -> None:
    """v2's ``OptimizerWithRegularizer::create`` aborts on L1 decay with momentum."""
    raise OptimizerConfigError(
        f"{owner}: parameter '{name}' has momentum {h.momentum} and L1 decay "
        f"(l1_rate {h.l1}); v2 refuses this ('Parameter cannot support momentum if it use "
        "L1 decay'). Drop the L1 decay for it (ParamAttr(l1_rate=...) / L1Regularization) "
        "or train it without momentum (the optimizer's momentum, ParamAttr(momentum=...))."
    )


def as_optax(
    update_equation: Any, specs: Mapping[str, ParamSpec], frozen: Iterable[str] = frozenset()
) -> optax.GradientTransformationExtraArgs:
    """The optax transformation for a trainer's ``update_equation``.

    Args:
        update_equation: a paddle_lite ``Optimizer`` (``to_optax`` is used) or any
            ``optax.GradientTransformation`` (then extra arguments such as
            ``batch_size`` are dropped, and static/frozen parameters get zero updates).
        specs: ``{name: ParamSpec}`` of every parameter, in order.
        frozen: names never updated.

    Returns:
        An ``optax.GradientTransformationExtraArgs`` over ``{name: array}`` dicts.

    Example:
        >>> tx = as_optax(optax.sgd(0.1), {})
        >>> tx.init({})
        (EmptyState(), EmptyState())
    """
    if isinstance(update_equation, Optimizer):
        return update_equation.to_optax(specs, frozen)
    if isinstance(update_equation, optax.GradientTransformation):
        raw = update_equation

        def update(grads, state, params=None, **extra):
            del extra
            return raw.update(grads, state, params)

        wrapped = optax.GradientTransformation(raw.init, update)
        trainable = regularizers.trainable_names(specs, frozen)
        return regularizers.only_trainable(wrapped, trainable, tuple(specs))
    raise TypeError(
        "update equation parameter must be paddle_lite.optimizer.Optimizer or an optax "
        f"GradientTransformation; received {type(update_equation).__name__}: {update_equation!r}."
    )
