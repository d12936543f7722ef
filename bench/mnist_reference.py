"""Chapter 2's three networks: paddle_lite against the same model written in JAX + optax.

Both sides train with the book's hyper-parameters (Momentum 0.9, learning rate
0.1/128 on gradients summed over the batch, L2 0.0005*128 as weight decay, batch
128) on the same data in the same order, and are tested on the full MNIST test set.
With ``--same-init`` (default) the reference starts from paddle_lite's initial values,
so any accuracy gap is the framework's; ``--no-same-init`` draws its own (same
distribution). The book's rate is aggressive for summed gradients: training is
chaotic, so float rounding alone moves the final accuracy. The last column measures
that: the reference run again from the same start scaled by (1 + 1e-6). A gap
between paddle_lite and the reference no larger than that spread is not the
framework's. Prints test accuracy and seconds per pass, side by side.

Run (needs the MNIST files in the data home, e.g. PADDLE_LITE_DATA_HOME=../shared/datasets):
    python bench/mnist_reference.py [--passes 5] [--nets softmax,mlp,lenet]
"""

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

import paddle_lite as paddle

LR, MOMENTUM, L2, BATCH = 0.1 / 128, 0.9, 0.0005 * 128, 128


# --- the reference: plain JAX + optax --------------------------------------------------
def _dense(key, n_in, n_out):
    return {"w": jax.random.normal(key, (n_in, n_out)) / np.sqrt(n_in), "b": jnp.zeros(n_out)}


def _conv(key, c_in, c_out, k):
    std = np.sqrt(2.0 / (k * k * c_in))
    return {"w": std * jax.random.normal(key, (c_out, c_in, k, k)), "b": jnp.zeros(c_out)}


def ref_init(net, key):
    k = jax.random.split(key, 3)
    if net == "softmax":
        return [_dense(k[0], 784, 10)]
    if net == "mlp":
        return [_dense(k[0], 784, 128), _dense(k[1], 128, 64), _dense(k[2], 64, 10)]
    return [_conv(k[0], 1, 20, 5), _conv(k[1], 20, 50, 5), _dense(k[2], 800, 10)]


def _conv_pool(x, p):
    y = jax.lax.conv_general_dilated(x, p["w"], (1, 1), "VALID") + p["b"][None, :, None, None]
    y = jax.nn.relu(y)
    return jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def ref_logits(net, params, x):
    if net == "lenet":
        h = _conv_pool(_conv_pool(x.reshape(-1, 1, 28, 28), params[0]), params[1])
        return h.reshape(x.shape[0], -1) @ params[2]["w"] + params[2]["b"]
    h = x
    for layer in params[:-1]:
        h = jax.nn.relu(h @ layer["w"] + layer["b"])
    return h @ params[-1]["w"] + params[-1]["b"]


def from_lite(net, values):
    """The reference's parameter tree holding paddle_lite's values (same layer order)."""
    arrays = [jnp.asarray(v) for v in values.values()]
    pairs = [arrays[i : i + 2] for i in range(0, len(arrays), 2)]
    return [{"w": w, "b": b.reshape(-1)} for w, b in pairs]


def ref_train(net, batches, test, passes, init=None):
    params = ref_init(net, jax.random.PRNGKey(0)) if init is None else init
    tx = optax.chain(optax.add_decayed_weights(L2), optax.sgd(LR, momentum=MOMENTUM))
    state = tx.init(params)

    def loss(p, x, y):  # v2's cost: -log of the softmax probability, summed over the batch
        prob = jax.nn.softmax(ref_logits(net, p, x))
        return -jnp.log(jnp.maximum(jnp.take_along_axis(prob, y[:, None], 1), 1e-37)).sum()

    @jax.jit
    def step(p, s, x, y):
        g = jax.grad(loss)(p, x, y)
        u, s = tx.update(g, s, p)
        return optax.apply_updates(p, u), s

    start = time.perf_counter()
    for _ in range(passes):
        for x, y in batches:
            params, state = step(params, state, x, y)
    jax.block_until_ready(params)
    seconds = (time.perf_counter() - start) / passes
    pred = jnp.argmax(ref_logits(net, params, test[0]), axis=1)
    return float((pred == test[1]).mean()), seconds


# --- paddle_lite ------------------------------------------------------------------------
def lite_network(net, img):
    act = paddle.activation
    if net == "softmax":
        return paddle.layer.fc(input=img, size=10, act=act.Softmax())
    if net == "mlp":
        h = paddle.layer.fc(input=img, size=128, act=act.Relu())
        h = paddle.layer.fc(input=h, size=64, act=act.Relu())
        return paddle.layer.fc(input=h, size=10, act=act.Softmax())
    h = paddle.networks.simple_img_conv_pool(
        input=img,
        filter_size=5,
        num_filters=20,
        num_channel=1,
        pool_size=2,
        pool_stride=2,
        act=act.Relu(),
    )
    h = paddle.networks.simple_img_conv_pool(
        input=h,
        filter_size=5,
        num_filters=50,
        num_channel=20,
        pool_size=2,
        pool_stride=2,
        act=act.Relu(),
    )
    return paddle.layer.fc(input=h, size=10, act=act.Softmax())


def lite_model(net, lr=LR, evaluator=None):
    """Chapter 2's ``net`` with its classification cost (``evaluator``: v2's default
    when None) and the book's Momentum at rate ``lr``: ``(cost, optimizer)``."""
    paddle.layer.reset_names()
    img = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
    label = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
    predict = lite_network(net, img)
    extra = {} if evaluator is None else {"evaluator": evaluator}
    cost = paddle.layer.classification_cost(input=predict, label=label, **extra)
    opt = paddle.optimizer.Momentum(
        learning_rate=lr,
        momentum=MOMENTUM,
        regularization=paddle.optimizer.L2Regularization(rate=L2),
    )
    return cost, opt


def lite_train(net, samples, test_samples, passes, lr=LR):
    cost, opt = lite_model(net, lr)
    params = paddle.parameters.create(cost)
    initial = params.values()
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)
    start = time.perf_counter()
    trainer.train(paddle.batch(lambda: iter(samples), BATCH), num_passes=passes)
    seconds = (time.perf_counter() - start) / passes
    result = trainer.test(paddle.batch(lambda: iter(test_samples), 1000))
    return 1.0 - result.metrics["classification_error_evaluator"], seconds, initial


def main(passes, nets, same_init):
    rng = np.random.default_rng(0)
    train = list(paddle.dataset.mnist.train()())
    train = [train[i] for i in rng.permutation(len(train))]  # one fixed shuffle for both
    test = list(paddle.dataset.mnist.test()())
    n = len(train) // BATCH * BATCH
    xs = np.stack([s[0] for s in train[:n]])
    ys = np.array([s[1] for s in train[:n]], np.int32)
    batches = [
        (jnp.asarray(xs[i : i + BATCH]), jnp.asarray(ys[i : i + BATCH])) for i in range(0, n, BATCH)
    ]
    test_arrays = (jnp.asarray(np.stack([s[0] for s in test])), jnp.asarray([s[1] for s in test]))
    print(f"MNIST: {n} training images, {len(test)} test images, {passes} passes, batch {BATCH}")
    print(
        f"{'net':8s} {'paddle_lite acc':>16s} {'jax+optax acc':>14s} {'diff (pts)':>10s} "
        f"{'lite s/pass':>12s} {'ref s/pass':>11s} {'ref(1+1e-6) acc':>16s}"
    )
    for net in nets:
        lite_acc, lite_s, initial = lite_train(net, train[:n], test, passes)
        init = from_lite(net, initial) if same_init else None
        ref_acc, ref_s = ref_train(net, batches, test_arrays, passes, init)
        start = init if init is not None else ref_init(net, jax.random.PRNGKey(0))
        nudged = jax.tree_util.tree_map(lambda v: v * (1 + 1e-6), start)
        spread_acc, _ = ref_train(net, batches, test_arrays, passes, nudged)
        print(
            f"{net:8s} {100 * lite_acc:16.2f} {100 * ref_acc:14.2f} "
            f"{100 * (lite_acc - ref_acc):10.2f} {lite_s:12.2f} {ref_s:11.2f} "
            f"{100 * spread_acc:16.2f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--nets", default="softmax,mlp,lenet")
    parser.add_argument("--same-init", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    main(args.passes, args.nets.split(","), args.same_init)
