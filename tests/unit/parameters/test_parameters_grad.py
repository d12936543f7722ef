"""``parameters.get_grad`` inside an ``EndForwardBackward`` handler (v2's FAQ: "fetch
parameters' weight and gradient during training"): the gradient of the batch's summed
cost, computed at the parameters after the batch's update; zeros elsewhere."""

import numpy as np

import paddle_lite as paddle

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def _data(n=7, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 3).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)
    return x, y


def _train(cost, params, reader, batch_size, names):
    """Train one pass; per batch, the parameters and get_grad at EndForwardBackward, and
    get_grad at EndIteration."""
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.EndForwardBackward):
            seen.append(({n: params.get(n) for n in names}, {n: params.get_grad(n) for n in names}))
        if isinstance(event, paddle.event.EndIteration):
            seen[-1] += ({n: params.get_grad(n) for n in names},)

    opt = paddle.optimizer.Momentum(learning_rate=0.05)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)
    trainer.train(reader=paddle.batch(reader, batch_size), num_passes=1, event_handler=handler)
    return seen


def test_gradient_of_the_summed_cost_per_batch_including_a_short_one():
    x = L.data(name="x", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(1))
    hidden = L.fc(input=x, size=2, act=A.Tanh(), name="h")
    pred = L.fc(input=hidden, size=1, act=A.Linear(), name="p")
    cost = L.square_error_cost(input=pred, label=y)
    params = paddle.parameters.create(cost)
    xs, ys = _data()
    names = ["_h.w0", "_h.wbias", "_p.w0", "_p.wbias"]
    seen = _train(cost, params, lambda: zip(xs, ys, strict=True), 4, names)
    assert len(seen) == 2  # batches of 4 and 3 (the short one is padded on the device)
    for (values, grads, after), rows in zip(seen, (slice(0, 4), slice(4, 7)), strict=True):
        w1, b1, w2, b2 = (values[n].astype(np.float64) for n in names)
        bx, by = xs[rows].astype(np.float64), ys[rows].astype(np.float64)
        h = np.tanh(bx @ w1 + b1)
        d = 2 * (h @ w2 + b2 - by)  # d/dpred of sum((pred - y)^2)
        dh = (d @ w2.T) * (1 - h**2)
        want = {"_p.w0": h.T @ d, "_p.wbias": d.sum(0, keepdims=True)}
        want.update({"_h.w0": bx.T @ dh, "_h.wbias": dh.sum(0, keepdims=True)})
        for n in names:
            assert grads[n].dtype == np.float32 and grads[n].shape == values[n].shape
            np.testing.assert_allclose(grads[n], want[n], rtol=1e-4, atol=1e-6, err_msg=n)
            np.testing.assert_array_equal(after[n], np.zeros_like(values[n]))  # EndIteration
    np.testing.assert_array_equal(params.get_grad("_p.w0"), np.zeros((2, 1)))  # after training


def test_shared_parameter_sums_both_uses_and_static_parameter_has_zeros():
    a = L.data(name="a", type=DT.dense_vector(3))
    b = L.data(name="b", type=DT.dense_vector(3))
    y = L.data(name="y", type=DT.dense_vector(1))
    shared = paddle.attr.Param(name="w")
    fa = L.fc(input=a, size=1, act=A.Linear(), param_attr=shared, bias_attr=False)
    fb = L.fc(input=b, size=1, act=A.Linear(), param_attr=shared, bias_attr=False)
    frozen = L.fc(input=a, size=1, act=A.Linear(), bias_attr=False,
                  param_attr=paddle.attr.Param(name="still", is_static=True))  # fmt: skip
    pred = L.addto(input=[fa, fb, frozen], act=A.Linear(), bias_attr=False)
    cost = L.square_error_cost(input=pred, label=y)
    params = paddle.parameters.create(cost)
    xs, ys = _data(4, seed=1)
    other = xs[::-1].copy()
    seen = _train(cost, params, lambda: zip(xs, other, ys, strict=True), 4, ["w", "still"])
    values, grads, _ = seen[0]
    w, still = values["w"].astype(np.float64), values["still"].astype(np.float64)
    bx, bo = xs.astype(np.float64), other.astype(np.float64)
    d = 2 * (bx @ w + bo @ w + bx @ still - ys)
    np.testing.assert_allclose(grads["w"], bx.T @ d + bo.T @ d, rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(grads["still"], np.zeros((3, 1)))


def test_sparse_update_embedding_gets_the_rows_it_used():
    word = L.data(name="w", type=DT.integer_value(10))
    y = L.data(name="y", type=DT.dense_vector(1))
    emb = L.embedding(
        input=word, size=2, param_attr=paddle.attr.Param(name="emb", sparse_update=True)
    )
    pred = L.fc(input=emb, size=1, act=A.Linear(), param_attr=paddle.attr.Param(name="fw"),
                bias_attr=False)  # fmt: skip
    cost = L.square_error_cost(input=pred, label=y)
    params = paddle.parameters.create(cost)
    ids, ys = [1, 3, 3, 7], np.array([[1.0], [2.0], [0.0], [-1.0]], np.float32)
    seen = _train(cost, params, lambda: zip(ids, ys, strict=True), 4, ["emb", "fw"])
    values, grads, _ = seen[0]
    table, fw = values["emb"].astype(np.float64), values["fw"].astype(np.float64)
    d = 2 * (table[ids] @ fw - ys)
    want = np.zeros_like(table)
    np.add.at(want, ids, d @ fw.T)  # row 3 is used twice: its gradients add
    np.testing.assert_allclose(grads["emb"], want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(grads["fw"], table[ids].T @ d, rtol=1e-5, atol=1e-7)
