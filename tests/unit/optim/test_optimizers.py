"""paddle.optimizer: v2 update formulas, schedules, regularization, model average.

Every expected value comes from a float64 numpy re-implementation of v2's C++
optimizers written here (FirstOrderOptimizer / TrainingAlgorithmOp /
OptimizerWithRegularizer / AverageOptimizer / LearningRateScheduler).
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import paddle_lite as paddle
from paddle_lite import optimizer as O
from paddle_lite._src.optim.optimizers import as_optax
from paddle_lite._src.optim.schedules import make_schedule
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite.errors import OptimizerArgumentError, OptimizerConfigError, ParameterError

LR, DECAY_A, DECAY_B, L2_GLOBAL, CLIP_GLOBAL = 0.05, 0.01, 0.5, 0.02, 0.8
BATCHES = [4, 4, 3, 4, 2]
PASSES = [0, 0, 1, 1, 2]


def _spec(name, shape, **kw):
    return ParamSpec(name, shape, InitSpec(), **kw)


SPECS = {
    # lr multiplier, momentum override, l2 override, own clip
    "w": _spec(
        "w",
        (2, 3),
        learning_rate=2.0,
        momentum=0.5,
        decay_rate=0.05,
        gradient_clipping_threshold=0.4,
    ),
    # everything unset; an explicit 0 for l2 and momentum also means unset
    "b": _spec("b", (3,), decay_rate=0.0, momentum=0.0),
    # L1 (with its own L2): the regularizer path
    "l1p": _spec("l1p", (4,), decay_rate_l1=0.03, decay_rate=0.01),
    "st": _spec("st", (2,), is_static=True),
    "fr": _spec("fr", (2,)),
}
FROZEN = frozenset({"fr"})
# v2 refuses L1 decay together with momentum: "l1p" only trains without momentum
NO_L1 = {k: s for k, s in SPECS.items() if k != "l1p"}


def _specs_for(opt):
    return NO_L1 if opt.momentum else SPECS


def _initial():
    rng = np.random.default_rng(0)
    params = {k: rng.normal(size=s.shape).astype(np.float32) for k, s in SPECS.items()}
    params["st"][0] = -0.0
    return params


def _grads(step):
    rng = np.random.default_rng(100 + step)
    return {k: rng.normal(scale=0.9, size=s.shape).astype(np.float32) for k, s in SPECS.items()}


# ---- float64 reference of v2 ------------------------------------------------------------
def ref_lr(n, scheduled):
    return LR * (1.0 + DECAY_A * n) ** (-DECAY_B) if scheduled else LR


def ref_precondition(method, g, st, t, c):
    """v2 per-element rate of the adaptive methods (TrainingAlgorithmOp)."""
    if method == "AdaGrad":
        st["G"] = st.get("G", 0.0) + g * g
        return 1.0 / np.sqrt(st["G"] + 1e-6)
    if method in ("DecayedAdaGrad", "RMSProp"):
        weight = 1.0 if t == 1 else 1.0 - c["rho"]
        st["E"] = c["rho"] * st.get("E", 0.0) + weight * g * g
        if method == "DecayedAdaGrad":
            return 1.0 / np.sqrt(st["E"] + c["epsilon"])
        st["F"] = c["rho"] * st.get("F", 0.0) + (1.0 - c["rho"]) * g
        return 1.0 / np.sqrt(st["E"] - st["F"] ** 2 + c["epsilon"])
    if method == "AdaDelta":
        st["E"] = c["rho"] * st.get("E", 0.0) + (1.0 - c["rho"]) * g * g
        rate = np.sqrt((st.get("D", 0.0) + c["epsilon"]) / (st["E"] + c["epsilon"]))
        st["D"] = c["rho"] * st.get("D", 0.0) + (1.0 - c["rho"]) * (g * rate) ** 2
        return rate
    return None


def ref_adam_family(method, g, w, st, t, lr, c):
    b1, b2 = c.get("beta1", 0.9), c.get("beta2", 0.999)
    st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    if method == "Adam":
        st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
        alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        return w - st["m"] * alpha / (np.sqrt(st["v"]) + c.get("epsilon", 1e-8))
    st["u"] = np.maximum(b2 * st.get("u", 0.0), np.abs(g))
    return w - lr / (1 - b1**t) * st["m"] / st["u"]


def ref_param_step(method, g, w, st, t, lr, cfg, c):
    """One v2 step of one parameter: clip, rule (decay inside unless L1), regularizer."""
    g = np.clip(g, -cfg["clip"], cfg["clip"]) if cfg["clip"] else g
    l1, l2, k = cfg["l1"], cfg["l2"], cfg["momentum"]
    decay = 0.0 if l1 > 0 else l2
    rate = None
    if method in ("Adam", "Adamax"):
        w = ref_adam_family(method, g, w, st, t, lr, c)
    else:
        rate = ref_precondition(method, g, st, t, c)
        r = 1.0 if rate is None else rate
        st["v"] = k * st.get("v", 0.0) - lr * r * (g + decay * w)
        w = w + st["v"]
    if l1 > 0:
        eta = lr * (rate if rate is not None else 1.0)
        w = np.sign(w) * np.maximum(np.abs(w) - eta * l1, 0.0)
        w = w / (1.0 + eta * l2) if l2 > 0 else w
    return w


def ref_configs(global_momentum, momentum_form):
    own_momentum = 0.5 if momentum_form else 0.0
    return {
        "w": dict(lr=2.0, momentum=own_momentum, l2=0.05, l1=0.0, clip=0.4),
        "b": dict(lr=1.0, momentum=global_momentum, l2=L2_GLOBAL, l1=0.0, clip=CLIP_GLOBAL),
        "l1p": dict(lr=1.0, momentum=global_momentum, l2=0.01, l1=0.03, clip=CLIP_GLOBAL),
    }


def ref_run(method, c, global_momentum=0.0):
    scheduled = method not in ("AdaGrad", "Adam", "Adamax")
    momentum_form = method not in ("Adam", "Adamax")
    configs = ref_configs(global_momentum, momentum_form)
    if global_momentum:
        del configs["l1p"]
    params = {k: v.astype(np.float64) for k, v in _initial().items()}
    states = {k: {} for k in configs}
    history, n = [], 0
    for t, batch in enumerate(BATCHES, start=1):
        n += batch
        grads = _grads(t - 1)
        for k, cfg in configs.items():
            lr = ref_lr(n, scheduled) * cfg["lr"]
            params[k] = ref_param_step(method, grads[k], params[k], states[k], t, lr, cfg, c)
        history.append({k: v.copy() for k, v in params.items()})
    return history


# ---- the code under test ---------------------------------------------------------------
def _settings(**extra):
    return dict(
        learning_rate=LR,
        learning_rate_decay_a=DECAY_A,
        learning_rate_decay_b=DECAY_B,
        regularization=O.L2Regularization(L2_GLOBAL),
        gradient_clipping_threshold=CLIP_GLOBAL,
        **extra,
    )


def run(opt, steps=5, jit=True, specs=SPECS, frozen=FROZEN):
    tx = opt.to_optax(specs, frozen=frozen)
    params = {k: jnp.asarray(v) for k, v in _initial().items() if k in specs}
    state = tx.init(params)

    def step(grads, state, params, batch_size, pass_id):
        updates, state = tx.update(grads, state, params, batch_size=batch_size, pass_id=pass_id)
        return optax.apply_updates(params, updates), state

    step = jax.jit(step) if jit else step
    history = []
    for i in range(steps):
        grads = {k: jnp.asarray(v) for k, v in _grads(i).items() if k in specs}
        params, state = step(grads, state, params, jnp.int32(BATCHES[i]), jnp.int32(PASSES[i]))
        history.append({k: np.asarray(v) for k, v in params.items()})
    return history, state, tx


CASES = [
    ("Momentum", lambda: O.Momentum(momentum=0.9, **_settings()), {}, 0.9),
    ("Momentum", lambda: O.Momentum(**_settings()), {}, 0.0),
    ("AdaGrad", lambda: O.AdaGrad(**_settings()), {}, 0.0),
    (
        "DecayedAdaGrad",
        lambda: O.DecayedAdaGrad(rho=0.9, epsilon=1e-5, **_settings()),
        {"rho": 0.9, "epsilon": 1e-5},
        0.0,
    ),
    (
        "RMSProp",
        lambda: O.RMSProp(rho=0.8, epsilon=1e-4, **_settings()),
        {"rho": 0.8, "epsilon": 1e-4},
        0.0,
    ),
    (
        "AdaDelta",
        lambda: O.AdaDelta(rho=0.9, epsilon=1e-3, **_settings()),
        {"rho": 0.9, "epsilon": 1e-3},
        0.0,
    ),
    (
        "Adam",
        lambda: O.Adam(beta1=0.8, beta2=0.99, epsilon=1e-6, **_settings()),
        {"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6},
        0.0,
    ),
    (
        "Adamax",
        lambda: O.Adamax(beta1=0.85, beta2=0.95, **_settings()),
        {"beta1": 0.85, "beta2": 0.95},
        0.0,
    ),
]


@pytest.mark.parametrize(
    "method,make,consts,momentum", CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES]
)
def test_matches_v2_formulas(method, make, consts, momentum):
    opt = make()
    got, _, _ = run(opt, specs=_specs_for(opt))
    want = ref_run(method, consts, global_momentum=momentum)
    for step, (g, w) in enumerate(zip(got, want, strict=True)):
        for name in ("w", "b") if momentum else ("w", "b", "l1p"):
            np.testing.assert_allclose(
                g[name], w[name], rtol=1e-5, atol=1e-7, err_msg=f"{method} step {step} param {name}"
            )


@pytest.mark.parametrize("make", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_static_and_frozen_stay_bit_identical(make):
    opt = make()
    history, state, _ = run(opt, specs=_specs_for(opt))
    start = _initial()
    for params in history:
        for name in ("st", "fr"):
            assert params[name].tobytes() == start[name].tobytes()
    assert np.signbit(history[-1]["st"][0])
    slot_names = {
        k
        for tree in jax.tree.leaves(state, is_leaf=lambda x: isinstance(x, dict))
        if isinstance(tree, dict)
        for k in tree
    }
    assert not slot_names & {"st", "fr"}


def test_eager_equals_jit():
    eager, _, _ = run(O.RMSProp(**_settings()), jit=False)
    jitted, _, _ = run(O.RMSProp(**_settings()), jit=True)
    for e, j in zip(eager, jitted, strict=True):
        for name in e:
            np.testing.assert_allclose(e[name], j[name], rtol=1e-5, atol=1e-7)


# ---- schedules -------------------------------------------------------------------------
SCHEDULE_CASES = [
    ("constant", 0.3, 0.7, "", lambda lr, a, b, n: lr),
    ("poly", 0.01, 0.75, "", lambda lr, a, b, n: lr * (1 + a * n) ** -b),
    ("caffe_poly", 500.0, 2.0, "", lambda lr, a, b, n: 0.0 if n > a else lr * (1 - n / a) ** b),
    ("exp", 0.5, 200.0, "", lambda lr, a, b, n: lr * a ** (n / b)),
    ("discexp", 0.5, 200.0, "", lambda lr, a, b, n: lr * a ** np.floor(n / b)),
    ("linear", 1e-4, 0.02, "", lambda lr, a, b, n: max(lr - a * n, b)),
]


def _manual_ref(lr, args, key):
    pairs = [(int(s), float(r)) for s, r in (p.split(":") for p in args.split(","))]
    for seg, rate in pairs:
        if key <= seg:
            return lr * rate
    return lr * pairs[-1][1]


@pytest.mark.parametrize(
    "name,a,b,args,formula", SCHEDULE_CASES, ids=[c[0] for c in SCHEDULE_CASES]
)
def test_schedules_at_several_n(name, a, b, args, formula):
    schedule = jax.jit(make_schedule(name, 0.1, a, b, args))
    for n in (1, 64, 199, 200, 333, 500, 501, 4000):
        np.testing.assert_allclose(
            schedule(jnp.int32(n), jnp.int32(0)),
            formula(0.1, a, b, n),
            rtol=1e-5,
            atol=1e-12,
            err_msg=f"{name} n={n}",
        )


def test_poly_with_zero_decay_is_constant():
    schedule = make_schedule("poly", 0.1, 0.0, 0.0)
    for n in (1, 10**6):
        np.testing.assert_allclose(schedule(n, 0), 0.1, rtol=1e-7)


def test_manual_and_pass_manual():
    args = "100:1.0,300:0.5,600:0.1"
    manual = jax.jit(make_schedule("manual", 0.2, 0, 0, args))
    for n in (1, 100, 101, 300, 301, 600, 601, 10**5):
        np.testing.assert_allclose(manual(jnp.int32(n), 0), _manual_ref(0.2, args, n), rtol=1e-6)
    by_pass = jax.jit(make_schedule("pass_manual", 0.2, 0, 0, "1:1.0,2:0.5,4:0.25"))
    for pass_id, want in [(0, 0.2), (1, 0.2), (2, 0.1), (3, 0.05), (4, 0.05), (9, 0.05)]:
        np.testing.assert_allclose(by_pass(jnp.int32(10**6), jnp.int32(pass_id)), want, rtol=1e-6)


def test_manual_compares_sample_counts_exactly():
    # ManualLRS::calc compares the int64 count with each segment: 2**24 + 1 is past a
    # segment of 2**24 (float32 would round the count down onto it)
    seg = 2**24
    manual = jax.jit(make_schedule("manual", 0.2, 0, 0, f"{seg}:1.0,{2 * seg}:0.5,{2**40}:0.25"))
    for n, want in [(seg, 0.2), (seg + 1, 0.1), (2 * seg + 1, 0.05), (2**31 - 1, 0.05)]:
        np.testing.assert_allclose(manual(jnp.int32(n), 0), want, rtol=1e-6, err_msg=f"n={n}")


def _sgd_steps(opt, batches, passes):
    """Per-step learning rates seen by a 1-element parameter with gradient 1."""
    specs = {"p": _spec("p", (1,))}
    tx = opt.to_optax(specs)
    params = {"p": jnp.zeros(1)}
    state = tx.init(params)
    rates = []
    for batch, pass_id in zip(batches, passes, strict=True):
        updates, state = tx.update(
            {"p": jnp.ones(1)}, state, params, batch_size=batch, pass_id=pass_id
        )
        rates.append(-float(updates["p"][0]))
    return rates


def test_n_counts_samples_including_the_current_batch():
    opt = O.Momentum(
        learning_rate=0.1,
        learning_rate_schedule="discexp",
        learning_rate_decay_a=0.5,
        learning_rate_decay_b=10,
    )
    rates = _sgd_steps(opt, [10, 5, 5, 10], [0, 0, 0, 0])
    np.testing.assert_allclose(rates, [0.05, 0.05, 0.025, 0.0125], rtol=1e-6)


def test_the_sample_count_saturates_instead_of_wrapping():
    # v2's numSamplesProcessed is an int64; the int32 count here stops at 2**31 - 1, so
    # a poly schedule stays finite and positive instead of seeing a negative count
    opt = O.Momentum(learning_rate=0.1, learning_rate_decay_a=1e-6, learning_rate_decay_b=0.5)
    tx = opt.to_optax({"p": _spec("p", (1,))})
    params = {"p": jnp.zeros(1)}
    state = tx.init(params)
    clip, rule = state
    state = (clip, rule._replace(samples=jnp.int32(2**31 - 100)))
    updates, (_, rule) = tx.update({"p": jnp.ones(1)}, state, params, batch_size=128, pass_id=0)
    assert int(rule.samples) == 2**31 - 1
    np.testing.assert_allclose(-updates["p"][0], 0.1 * (1 + 1e-6 * (2**31 - 1)) ** -0.5, rtol=1e-5)


def test_pass_manual_through_the_optimizer():
    opt = O.AdaDelta(
        learning_rate=1.0, learning_rate_schedule="pass_manual", learning_rate_args="0:1.0,1:0.5"
    )
    plain = O.AdaDelta(learning_rate=1.0, learning_rate_schedule="constant")
    scheduled = _sgd_steps(opt, [2, 2, 2], [0, 1, 2])
    constant = _sgd_steps(plain, [2, 2, 2], [0, 1, 2])
    np.testing.assert_allclose(scheduled, np.array(constant) * [1.0, 0.5, 0.5], rtol=1e-6)


def test_adagrad_adam_adamax_ignore_the_schedule():
    kw = dict(
        learning_rate=0.1,
        learning_rate_schedule="discexp",
        learning_rate_decay_a=0.5,
        learning_rate_decay_b=1,
    )
    for cls in (O.AdaGrad, O.Adam, O.Adamax):
        assert _sgd_steps(cls(**kw), [5, 5], [0, 0]) == _sgd_steps(
            cls(learning_rate=0.1, learning_rate_schedule="constant"), [5, 5], [0, 0]
        )


# ---- model average ---------------------------------------------------------------------
def ref_average(values, passes, window, max_window=None):
    """v2 AverageOptimizer (dense): the averaged value after each update."""
    max_w = max_window if max_window is not None else 2**62
    min_w = min(10000, max_w)
    updates = acc = old = prev = 0
    recent = old_sum = 0.0
    out = []
    for i, value in enumerate(values):
        if i and passes[i] != passes[i - 1]:  # finishPass of the previous pass
            if max_window is None:
                max_w, prev = updates - prev, updates
            min_w = min(min_w, updates)
        updates, acc = updates + 1, acc + 1
        recent = recent + value.astype(np.float64)
        if acc >= min_w and acc >= min(max_w, int(updates * window)):
            old_sum, recent, old, acc = recent, 0.0, acc, 0
        out.append((recent + old_sum) / (acc + old))
    return out


def _averaged_run(average, passes):
    specs = {"p": _spec("p", (3,)), "st": _spec("st", (1,), is_static=True)}
    opt = O.Momentum(learning_rate=0.1, model_average=average)
    tx = opt.to_optax(specs)
    params = {"p": jnp.asarray([1.0, -2.0, 0.5]), "st": jnp.asarray([7.0])}
    state = tx.init(params)
    np.testing.assert_array_equal(opt.average_params(state, params)["p"], params["p"])
    step = jax.jit(lambda g, s, p, pid: tx.update(g, s, p, batch_size=8, pass_id=pid))
    average = jax.jit(opt.average_params)
    values, averages = [], []
    for i, pass_id in enumerate(passes):
        grads = {
            "p": jnp.asarray(np.random.default_rng(i).normal(size=3), jnp.float32),
            "st": jnp.ones(1),
        }
        updates, state = step(grads, state, params, jnp.int32(pass_id))
        params = optax.apply_updates(params, updates)
        values.append(np.asarray(params["p"]))
        averaged = average(state, params)
        assert float(averaged["st"][0]) == 7.0
        averages.append(np.asarray(averaged["p"]))
    return values, averages


@pytest.mark.parametrize("window,max_window", [(0.5, None), (0.5, 2), (0.3, 4), (1.0, None)])
def test_model_average_follows_v2_windows(window, max_window):
    passes = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3]
    values, got = _averaged_run(O.ModelAverage(window, max_average_window=max_window), passes)
    want = ref_average(values, passes, window, max_window)
    for step, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g, w, rtol=1e-5, err_msg=f"step {step}")


def test_model_average_window_ends_where_v2s_float64_product_does():
    # isAverageWindowTooLong: numUpdates_ * average_window in float64, truncated; at
    # update 90, 90 * 0.7 is 62.99999999999999 (v2 ends the window there), 63 in float32
    passes = [0] * 27 + [1] * 64
    values, got = _averaged_run(O.ModelAverage(0.7, max_average_window=10**6), passes)
    want = ref_average(values, passes, 0.7, 10**6)
    for step, (g, w) in enumerate(zip(got, want, strict=True)):
        np.testing.assert_allclose(g, w, rtol=1e-5, err_msg=f"step {step}")


def test_model_average_in_the_first_pass_is_the_plain_mean():
    values, got = _averaged_run(O.ModelAverage(0.5), [0] * 6)
    for k in range(6):
        np.testing.assert_allclose(got[k], np.mean(values[: k + 1], axis=0), rtol=1e-5)


def test_average_params_without_model_average_returns_params():
    opt = O.Momentum()
    tx = opt.to_optax({"p": _spec("p", (2,))})
    params = {"p": jnp.ones(2)}
    assert opt.average_params(tx.init(params), params)["p"] is params["p"]


# ---- regularization: v2 test_paramconf_order ----------------------------------------------
def _paramconf_specs():
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(4))
    proj = paddle.layer.fc(
        input=x, size=3, bias_attr=False, param_attr=paddle.attr.Param(name="_proj", l2_rate=0)
    )
    fc1 = paddle.layer.fc(
        name="fc1",
        input=proj,
        size=2,
        bias_attr=paddle.attr.Param(learning_rate=2),
        param_attr=paddle.attr.Param(l2_rate=6e-4),
    )
    return {p.name: p for layer in (proj, fc1) for p in layer.params}


def test_param_conf_order_decay_rates():
    specs = _paramconf_specs()
    assert set(specs) == {"_proj", "_fc1.w0", "_fc1.wbias"}
    opt = O.AdaGrad(learning_rate=3e-3, regularization=O.L2Regularization(8e-4))
    resolved = opt.with_global_defaults(specs)
    assert resolved["_fc1.w0"].decay_rate == 6e-4
    assert resolved["_proj"].decay_rate == resolved["_fc1.wbias"].decay_rate == 8e-4
    tx = opt.to_optax(specs)
    params = {k: jnp.ones(s.shape) for k, s in specs.items()}
    grads = {k: jnp.zeros(s.shape) for k, s in specs.items()}
    updates, _ = tx.update(grads, tx.init(params), params, batch_size=1, pass_id=0)
    rate = 1.0 / np.sqrt(0.0 + 1e-6)  # AdaGrad's per-element rate with no gradient yet
    for name, lr_mult, decay in [("_fc1.w0", 1, 6e-4), ("_proj", 1, 8e-4), ("_fc1.wbias", 2, 8e-4)]:
        np.testing.assert_allclose(updates[name], -3e-3 * lr_mult * rate * decay * 1.0, rtol=1e-5)


def test_adam_applies_l2_only_with_l1_as_v2_does():
    specs = {"p": _spec("p", (2,))}
    params, grads = {"p": jnp.asarray([1.0, -1.0])}, {"p": jnp.asarray([0.5, 0.5])}
    results = []
    for reg in (None, O.L2Regularization(0.1), [O.L2Regularization(0.1), O.L1Regularization(0.2)]):
        tx = O.Adam(learning_rate=0.1, regularization=reg).to_optax(specs)
        updates, _ = tx.update(grads, tx.init(params), params, batch_size=2, pass_id=0)
        results.append(np.asarray(params["p"] + updates["p"], np.float64))
    np.testing.assert_array_equal(results[0], results[1])
    eta = 0.1
    shrunk = np.sign(results[0]) * np.maximum(np.abs(results[0]) - eta * 0.2, 0) / (1 + eta * 0.1)
    np.testing.assert_allclose(results[2], shrunk, rtol=1e-5)


def test_adamax_with_zero_gradient_does_not_move():
    tx = O.Adamax().to_optax({"p": _spec("p", (2,))})
    params = {"p": jnp.ones(2)}
    updates, _ = tx.update({"p": jnp.zeros(2)}, tx.init(params), params, batch_size=1)
    np.testing.assert_array_equal(updates["p"], 0.0)


# ---- as_optax ----------------------------------------------------------------------------
def test_as_optax_wraps_a_raw_transformation():
    tx = as_optax(optax.sgd(0.1), SPECS, FROZEN)
    params = {k: jnp.asarray(v) for k, v in _initial().items()}
    grads = {k: jnp.asarray(v) for k, v in _grads(0).items()}
    state = tx.init(params)
    updates, state = jax.jit(lambda g, s, p: tx.update(g, s, p, batch_size=3, pass_id=1))(
        grads, state, params
    )
    for name in ("w", "b", "l1p"):
        np.testing.assert_allclose(
            updates[name], -0.1 * _grads(0)[name].astype(np.float64), rtol=1e-6
        )
    for name in ("st", "fr"):
        new = optax.apply_updates(params, updates)[name]
        assert np.asarray(new).tobytes() == _initial()[name].tobytes()


def test_as_optax_adam_equals_optax_on_the_trainable_subset():
    tx = as_optax(optax.adam(1e-2), SPECS, FROZEN)
    direct = optax.adam(1e-2)
    params = {k: jnp.asarray(v) for k, v in _initial().items()}
    sub = {k: params[k] for k in ("w", "b", "l1p")}
    state, direct_state = tx.init(params), direct.init(sub)
    for i in range(3):
        grads = {k: jnp.asarray(v) for k, v in _grads(i).items()}
        updates, state = tx.update(grads, state, params, batch_size=4)
        want, direct_state = direct.update({k: grads[k] for k in sub}, direct_state, sub)
        for k in sub:
            np.testing.assert_allclose(updates[k], want[k], rtol=1e-6)


def test_as_optax_uses_our_optimizers_and_rejects_others():
    opt = O.Momentum(momentum=0.9, learning_rate=0.1)
    a, _, _ = run(opt, steps=2, specs=NO_L1)
    params = {k: jnp.asarray(v) for k, v in _initial().items() if k in NO_L1}
    tx = as_optax(opt, NO_L1, FROZEN)
    state = tx.init(params)
    grads = {k: jnp.asarray(v) for k, v in _grads(0).items() if k in NO_L1}
    updates, _ = tx.update(grads, state, params, batch_size=BATCHES[0], pass_id=0)
    np.testing.assert_allclose(optax.apply_updates(params, updates)["w"], a[0]["w"], rtol=1e-6)
    with pytest.raises(
        TypeError,
        match="update equation parameter must be paddle_lite.optimizer"
        ".Optimizer or an optax GradientTransformation; received",
    ):
        as_optax("sgd", SPECS)


# ---- settings and typed errors -------------------------------------------------------------
def test_v1_settings_are_accepted():
    opt = O.Momentum(
        momentum=0.9,
        batch_size=128,
        learning_rate=0.1 / 128,
        is_async=False,
        async_lagged_grad_discard_ratio=1.5,
        learning_rate_args="",
        model_average=O.ModelAverage(0.5, do_average_in_cpu=True),
        regularization=O.L2Regularization(rate=8e-4),
        gradient_clipping_threshold=25,
    )
    assert (opt.momentum, opt.learning_rate, opt.l2_rate) == (0.9, 0.1 / 128, 8e-4)
    assert O.Adam().learning_rate == 1e-3 and O.Adam().learning_rate_schedule == "poly"


def test_unknown_keyword_is_a_type_error_listing_valid_ones():
    with pytest.raises(OptimizerArgumentError) as err:
        O.Momentum(learning_rat=0.1)
    assert isinstance(err.value, TypeError)
    message = str(err.value)
    assert "learning_rat" in message and "'momentum'" in message
    assert "'gradient_clipping_threshold'" in message and "Did you mean 'learning_rate'" in message


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (
            dict(learning_rate_schedule="polynomial"),
            "unknown learning_rate_schedule 'polynomial'.*caffe_poly",
        ),
        (dict(learning_rate_schedule="manual"), "learning_rate_args must list 'segment:rate'"),
        (
            dict(learning_rate_schedule="manual", learning_rate_args="100-0.5"),
            "is not 'segment:rate'",
        ),
        (
            dict(learning_rate_schedule="exp", learning_rate_decay_a=0.5),
            "learning_rate_decay_b, which must be > 0",
        ),
        (
            dict(gradient_clipping_threshold=-1.0),
            "gradient_clipping_threshold must be finite and >= 0",
        ),
    ],
)
def test_bad_values_are_config_errors(kwargs, match):
    with pytest.raises(OptimizerConfigError, match=match):
        O.RMSProp(**kwargs)


@pytest.mark.parametrize(
    "make,match",
    [
        (lambda: O.Adam(learning_rate="0.1"), "learning_rate must be a number"),
        (lambda: O.Adam(regularization="l2"), "regularization must be L2Regularization"),
        (lambda: O.Adam(model_average=0.5), "model_average must be a ModelAverage"),
        (lambda: O.L2Regularization(rate=None), "rate must be a number"),
    ],
)
def test_bad_types_are_type_errors(make, match):
    with pytest.raises(OptimizerArgumentError, match=match):
        make()


def test_bad_rates_and_windows():
    with pytest.raises(OptimizerConfigError, match="rate must be finite and >= 0"):
        O.L1Regularization(-1e-3)
    with pytest.raises(OptimizerConfigError, match="max_average_window must be None or an int"):
        O.ModelAverage(0.5, max_average_window=0)


def test_misuse_of_the_transformation():
    specs = {"p": _spec("p", (2,))}
    with pytest.raises(ParameterError, match=r"frozen parameter\(s\) \['q'\]"):
        O.Momentum().to_optax(specs, frozen={"q"})
    tx = O.Momentum().to_optax(specs)
    with pytest.raises(ParameterError, match=r"missing \['p'\], unexpected \['x'\]"):
        tx.init({"x": jnp.ones(2)})
    params = {"p": jnp.ones(2)}
    with pytest.raises(OptimizerArgumentError, match="needs params and batch_size="):
        tx.update(params, tx.init(params), params)


def test_public_module_exports():
    import paddle_lite.optimizer as public

    assert public.__all__ == sorted(public.__all__)
    assert issubclass(public.AdaDelta, public.Optimizer)
    assert isinstance(public.Momentum(), public.Optimizer)
