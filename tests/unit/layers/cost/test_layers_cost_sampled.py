"""nce and hsigmoid against float64 numpy references, with gradient checks."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward, layer_key
from paddle_lite._src.layers.cost import sampled as CS
from paddle_lite._src.values import Sparse
from paddle_lite.errors import LayerConfigError, LayerConfigWarning

L, DT, ATTR = paddle.layer, paddle.data_type, paddle.attr
RNG = np.random.default_rng(9)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _setup(num_classes=6, dim=4, batch=3):
    x = L.data(name="x", type=DT.dense_vector(dim))
    lab = L.data(name="lab", type=DT.integer_value(num_classes))
    feeds = {
        "x": RNG.normal(size=(batch, dim)),
        "lab": RNG.integers(0, num_classes, size=batch).astype(np.int32),
    }
    return x, lab, feeds


def _params(layer):
    return {p.name: RNG.normal(size=p.shape) * 0.5 for p in layer.params}


def _f32(d):
    return {k: v.astype("f4") if v.dtype == np.float64 else v for k, v in d.items()}


# nce ---------------------------------------------------------------------------------
def _nce_expected_ref(x, labels, w, b, q, k):
    o = _sigmoid(x @ w.T + b)  # [B, C]
    rows = np.arange(len(labels))
    target = -np.log(o[rows, labels] / (o[rows, labels] + k * q[labels]))
    noise = (k * q * -np.log(k * q / (o + k * q))).sum(axis=1)
    return target + noise


@pytest.mark.parametrize("dist", [None, [0.1, 0.2, 0.3, 0.15, 0.15, 0.1]])
def test_nce_test_mode_is_the_exact_expectation(dist):
    x, lab, feeds = _setup()
    cost = L.nce(input=x, label=lab, num_classes=6, num_neg_samples=5, neg_distribution=dist)
    assert cost.name == "__nce_layer_0__"
    assert [p.shape for p in cost.params] == [(6, 4), (1, 6)]
    assert cost.params[0].init.std == pytest.approx(1 / np.sqrt(6))  # v2's smart init
    params = _params(cost)
    w, b = params["___nce_layer_0__.w0"], params["___nce_layer_0__.wbias"][0]
    (got,), _ = forward([cost], _f32(params), _f32(feeds))
    q = np.full(6, 1 / 6) if dist is None else np.asarray(dist)
    want = _nce_expected_ref(feeds["x"], feeds["lab"], w, b, q, 5)
    np.testing.assert_allclose(np.asarray(got)[:, 0], want, rtol=1e-5)
    (again,), _ = forward([cost], _f32(params), _f32(feeds))
    np.testing.assert_array_equal(np.asarray(again), np.asarray(got))  # deterministic


def test_nce_training_draws_noise_from_the_distribution():
    x, lab, feeds = _setup(batch=1)
    dist = [0.5, 0.3, 0.1, 0.05, 0.05, 0.0]
    cost = L.nce(input=x, label=lab, num_neg_samples=4, neg_distribution=dist, bias_attr=False)
    params = _f32(_params(cost))
    feeds = _f32(feeds)
    (test_cost,), _ = forward([cost], params, feeds)
    keys = jax.random.split(jax.random.PRNGKey(0), 2000)
    one = lambda key: forward([cost], params, feeds, key, "train")[0][0][0, 0]  # noqa: E731
    draws = np.asarray(jax.jit(jax.vmap(one))(keys))
    # every draw is a valid sampled cost; their mean converges to the test-mode expectation
    assert np.std(draws) > 0
    assert np.mean(draws) == pytest.approx(float(test_cost[0, 0]), rel=0.03)


def test_nce_training_cost_matches_the_drawn_classes():
    x, lab, feeds = _setup(batch=2)
    cost = L.nce(input=x, label=lab, num_neg_samples=3)
    params = _params(cost)
    key = jax.random.PRNGKey(4)
    (got,), _ = forward([cost], _f32(params), _f32(feeds), key, "train")
    noise = np.asarray(jax.random.randint(layer_key(key, cost), (2, 3), 0, 6))
    w, b = params["___nce_layer_0__.w0"], params["___nce_layer_0__.wbias"][0]
    o = _sigmoid(feeds["x"] @ w.T + b)
    rows, kq = np.arange(2), 3 / 6
    want = -np.log(o[rows, feeds["lab"]] / (o[rows, feeds["lab"]] + kq))
    want += -np.log(kq / (o[rows[:, None], noise] + kq)).sum(axis=1)
    np.testing.assert_allclose(np.asarray(got)[:, 0], want, rtol=1e-5)


def test_nce_sparse_label_costs_each_listed_class_as_a_target():
    """NCELayer::prepareSamples: a sparse label gives one target sample per listed
    column (its value unread), then num_neg_samples noise samples for the row."""
    x = L.data(name="x", type=DT.dense_vector(4))
    lab = L.data(name="lab", type=DT.sparse_binary_vector(6))
    cost = L.nce(input=x, label=lab, num_neg_samples=3)
    params = _params(cost)
    fx = RNG.normal(size=(3, 4))
    ids = np.array([[1, 4, 4], [2, 0, 0], [0, 0, 0]], np.int32)  # row 1: 4 listed twice
    vals = np.array([[1, 1, 1], [1, 0, 0], [0, 0, 0]], "f4")  # row 2: no target
    feeds = {"x": fx.astype("f4"), "lab": Sparse(ids, vals)}
    key = jax.random.PRNGKey(9)
    (got,), _ = forward([cost], _f32(params), feeds, key, "train")
    noise = np.asarray(jax.random.randint(layer_key(key, cost), (3, 3), 0, 6))
    w, b = params["___nce_layer_0__.w0"], params["___nce_layer_0__.wbias"][0]
    o, kq = _sigmoid(fx @ w.T + b), 3 / 6
    want = -np.log(kq / (o[np.arange(3)[:, None], noise] + kq)).sum(axis=1)
    for row, cols in enumerate([[1, 4, 4], [2], []]):
        want[row] += sum(-np.log(o[row, c] / (o[row, c] + kq)) for c in cols)
    np.testing.assert_allclose(np.asarray(got)[:, 0], want, rtol=1e-5)


def test_nce_weight_several_inputs_and_gradient():
    x, lab, feeds = _setup(batch=2)
    z = L.data(name="z", type=DT.dense_vector(2))
    wt = L.data(name="wt", type=DT.dense_vector(1))
    cost = L.nce(input=[x, z], label=lab, weight=wt, num_neg_samples=2)
    assert [p.shape for p in cost.params] == [(6, 4), (6, 2), (1, 6)]
    params = _params(cost)
    feeds = {**feeds, "z": RNG.normal(size=(2, 2)), "wt": np.array([[2.0], [0.5]])}
    names = [p.name for p in cost.params]

    def ref(w0):
        scores = feeds["x"] @ w0.T + feeds["z"] @ params[names[1]].T + params[names[2]][0]
        o = _sigmoid(scores)
        rows, lab_ids, q = np.arange(2), feeds["lab"], np.full(6, 1 / 6)
        c = -np.log(o[rows, lab_ids] / (o[rows, lab_ids] + 2 * q[lab_ids]))
        c = c + (2 * q * -np.log(2 * q / (o + 2 * q))).sum(axis=1)
        return (feeds["wt"][:, 0] * c).sum()

    def total(w0):
        (c,), _ = forward([cost], {**_f32(params), names[0]: w0}, _f32(feeds))
        return c.sum()

    w0 = params[names[0]]
    assert float(total(w0.astype("f4"))) == pytest.approx(ref(w0), rel=1e-5)
    grad = np.asarray(jax.grad(total)(w0.astype("f4")))
    eps, fd = 1e-6, np.zeros_like(w0)
    for idx in np.ndindex(w0.shape):
        up, down = w0.copy(), w0.copy()
        up[idx] += eps
        down[idx] -= eps
        fd[idx] = (ref(up) - ref(down)) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-5)


def test_nce_far_scores_keep_v2s_clipped_sigmoid_cost_and_gradient():
    # v2's sigmoid activation clips its argument to [-40, 13] and differentiates as
    # o (1 - o) of the clipped output; NCELayer::backwardCost gives -b / (o (o + b)) for the
    # label and 1 / (o + b) for noise. A label scored -87 underflowed o to 0 and made the
    # gradient inf (NaN in the step); below that it was 0, where v2 still pushes with ~-1.
    x = L.data(name="x", type=DT.dense_vector(1))
    lab = L.data(name="lab", type=DT.integer_value(3))
    q = np.array([0.0005, 0.4995, 0.5])
    cost = L.nce(input=x, label=lab, num_neg_samples=5, neg_distribution=q, bias_attr=False)
    feeds = {"x": np.array([[1.5]], np.float32), "lab": np.array([0], np.int32)}
    w_name = cost.params[0].name

    def total(w):
        (c,), _ = forward([cost], {w_name: w}, feeds)
        return c.sum()

    for z0 in (-30.0, -87.0 / 1.5, -95.0 / 1.5, -200.0, 20.0):
        w = np.array([[z0], [-0.2], [60.0]])
        o = _sigmoid(np.clip(w[:, 0] * 1.5, -40.0, 13.0))
        b = 5 * q
        want = -np.log(o[0] / (o[0] + b[0])) + (b * -np.log(b / (o + b))).sum()
        dz = b * o * (1 - o) / (o + b)  # the noise expectation's terms
        dz[0] += -b[0] / (o[0] * (o[0] + b[0])) * o[0] * (1 - o[0])
        w32 = w.astype(np.float32)
        assert float(total(w32)) == pytest.approx(want, rel=1e-5)
        grad = np.asarray(jax.grad(total)(w32))[:, 0]
        np.testing.assert_allclose(grad, dz * 1.5, rtol=1e-4, atol=1e-8)  # 1 - o in float32


def test_nce_argument_checks():
    x, lab, _ = _setup()
    with pytest.raises(LayerConfigError, match="summing to 1"):
        L.nce(input=x, label=lab, neg_distribution=[0.5, 0.5])
    with pytest.raises(LayerConfigError, match="must be a data layer"):
        L.nce(input=x, label=L.max_id(input=x))
    with pytest.warns(LayerConfigWarning, match="num_classes is 3"):  # v2 built and ran it
        assert "unrunnable" not in L.nce(input=x, label=lab, num_classes=3).attrs


# hsigmoid ----------------------------------------------------------------------------
def _hsigmoid_ref(x, labels, w, b, num_classes):
    max_len = (num_classes - 1).bit_length()
    costs = []
    for row, c in zip(x, labels, strict=True):
        code = int(c) + num_classes
        length = code.bit_length() - 1
        total = (max_len - length) * np.log(2.0)  # v2 charges the unused bits softplus(0)
        for j in range(length):
            node = (code >> (j + 1)) - 1
            z = np.clip(w[node] @ row + b[node], -40, 40)
            total += np.log1p(np.exp(z)) - (z if (code >> j) & 1 else 0.0)
        costs.append(total)
    return np.array(costs)


def test_hsigmoid_code_table_is_v2s_simple_code():
    nodes, bits, valid = CS.code_table(6)  # codes 6..11 = 110, 111, 1000, 1001, 1010, 1011
    assert valid.sum(axis=1).tolist() == [2, 2, 3, 3, 3, 3]
    assert nodes[0, :2].tolist() == [2, 0] and bits[0, :2].tolist() == [0, 1]
    assert nodes[5, :3].tolist() == [4, 1, 0] and bits[5, :3].tolist() == [1, 1, 0]


@pytest.mark.parametrize("num_classes", [3, 6, 8])
def test_hsigmoid_matches_the_code_path_sum(num_classes):
    x, lab, feeds = _setup(num_classes=num_classes, batch=4)
    cost = L.hsigmoid(input=x, label=lab)
    assert cost.name == "__hsigmoid_0__"
    assert [p.shape for p in cost.params] == [(num_classes - 1, 4), (1, num_classes - 1)]
    params = _params(cost)
    w, b = params["___hsigmoid_0__.w0"], params["___hsigmoid_0__.wbias"][0]
    (got,), _ = forward([cost], _f32(params), _f32(feeds))
    want = _hsigmoid_ref(feeds["x"], feeds["lab"], w, b, num_classes)
    np.testing.assert_allclose(np.asarray(got)[:, 0], want, rtol=1e-5)


def test_hsigmoid_probabilities_sum_to_one_over_a_full_tree():
    # with 8 classes every code has 3 bits: exp(-cost) is a distribution over classes
    x, lab, feeds = _setup(num_classes=8, batch=1)
    cost = L.hsigmoid(input=x, label=lab)
    params = _f32(_params(cost))
    probs = [
        float(
            np.exp(
                -forward(
                    [cost], params, {"x": feeds["x"].astype("f4"), "lab": np.array([c], np.int32)}
                )[0][0][0, 0]
            )
        )
        for c in range(8)
    ]
    assert sum(probs) == pytest.approx(1.0, rel=1e-5)


def test_hsigmoid_gradient_matches_finite_differences():
    x, lab, feeds = _setup(num_classes=5, batch=3)
    cost = L.hsigmoid(input=x, label=lab)
    params = _params(cost)
    w_name, b_name = (p.name for p in cost.params)

    def total(wv):
        (c,), _ = forward([cost], {**_f32(params), w_name: wv}, _f32(feeds))
        return c.sum()

    def ref(wv):
        return _hsigmoid_ref(feeds["x"], feeds["lab"], wv, params[b_name][0], 5).sum()

    w = params[w_name]
    grad = np.asarray(jax.grad(total)(w.astype("f4")))
    fd = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        up, down = w.copy(), w.copy()
        up[idx] += 1e-6
        down[idx] -= 1e-6
        fd[idx] = (ref(up) - ref(down)) / 2e-6
    np.testing.assert_allclose(grad, fd, rtol=1e-3, atol=1e-5)


def _hsigmoid_grad_ref(x, labels, w, b, num_classes):
    """HierarchicalSigmoidLayer::backward: ``sigmoid(clip(z)) - bit`` per code bit (the
    softreluDerivative of the clipped softrelu), into the bias and the weight rows."""
    dw, db = np.zeros_like(w), np.zeros_like(b)
    for row, c in zip(x, labels, strict=True):
        code = int(c) + num_classes
        for j in range(code.bit_length() - 1):
            node = (code >> (j + 1)) - 1
            dz = _sigmoid(np.clip(w[node] @ row + b[node], -40, 40)) - ((code >> j) & 1)
            dw[node] += dz * row
            db[node] += dz
    return dw, db


def test_hsigmoid_gradient_is_v2s_backward_beyond_the_clip():
    x, lab, feeds = _setup(num_classes=6, batch=4)
    feeds["lab"] = np.array([0, 2, 3, 5], np.int32)  # paths through nodes 0, 1 and 2
    cost = L.hsigmoid(input=x, label=lab)
    params = _params(cost)
    w_name, b_name = (p.name for p in cost.params)
    params[b_name][0, :3] = [60.0, -55.0, 45.0]  # scores far beyond the clip at +-40

    def total(pv):
        (c,), _ = forward([cost], pv, _f32(feeds))
        return c.sum()

    grads = jax.grad(total)(_f32(params))
    w, b = params[w_name].astype("f4"), params[b_name][0].astype("f4")
    want = _hsigmoid_ref(feeds["x"].astype("f4"), feeds["lab"], w, b, 6)
    (got,), _ = forward([cost], _f32(params), _f32(feeds))
    np.testing.assert_allclose(np.asarray(got)[:, 0], want, rtol=1e-5)
    dw, db = _hsigmoid_grad_ref(feeds["x"].astype("f4"), feeds["lab"], w, b, 6)
    np.testing.assert_allclose(np.asarray(grads[w_name]), dw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(grads[b_name])[0], db, rtol=1e-5, atol=1e-6)


def test_hsigmoid_needs_more_than_two_classes():
    x = L.data(name="x", type=DT.dense_vector(3))
    lab = L.data(name="lab", type=DT.integer_value(2))
    with pytest.raises(LayerConfigError, match="num_classes > 2"):
        L.hsigmoid(input=x, label=lab)
