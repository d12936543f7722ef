"""Chapter 2's networks at the book's settings, step by step against v2's C++ arithmetic.

The reference is a float64 numpy transcription of what v2 computes for one batch, read
from its sources:

- ``FullyConnectedLayer``: ``z = x W + b``; ``ReluActivation``: ``max(z, 0)``, backward
  ``g * (y > 0)``; ``SoftmaxActivation``: ``exp(z - max z) / sum``, backward
  ``p * (g - sum(g * p))`` (``softmaxDerivative``).
- ``MultiClassCrossEntropy`` (``classification_cost``): ``-log p[label]``, backward
  ``oneHotCrossEntropyBp``: ``g[label] -= 1 / p[label]``; ``CostLayer::backward`` feeds
  each sample's derivative unscaled, so parameter gradients are sums over the batch.
- ``SgdThreadUpdater`` + ``SgdOptimizer`` (``learning_method`` momentum, L2 only, dense:
  ``OptimizerWithRegularizer::create`` returns the plain optimizer, so the decay is applied
  inside ``sgdUpdate``): ``mom = momentum * mom - lr * (grad + decay * value)``,
  ``value += mom``, with ``lr`` the constant ``poly`` schedule ``learning_rate * (1 + 0 *
  n) ** -0``.
- The reader scales pixels as ``x / 255 * 2 - 1`` (``paddle.v2.dataset.mnist``).

paddle_lite's first 20 steps follow the reference to float32 rounding, so its chapter 2
numerics are v2's; the spread of the book's figures over seeds is chaos at the book's
learning rate, not a difference of arithmetic (docs/book/02.recognize_digits.md).
"""

import warnings

import numpy as np
import pytest
from unit._dataset_fixtures import shared_datasets

import paddle_lite as paddle

BATCH, STEPS = 128, 20
LR, MOMENTUM, DECAY = 0.1 / 128.0, 0.9, 0.0005 * 128


def _synthetic_mnist(n):
    """Digit-like samples: pixels in [-1, 1], mostly background, a class pattern on top."""
    rng = np.random.default_rng(2)
    centres = rng.uniform(-1, 1, size=(10, 784)) > 0.6
    labels = rng.integers(0, 10, size=n)
    noise = rng.uniform(0, 1, size=(n, 784)) > 0.9
    pixels = np.where(centres[labels] ^ noise, 1.0, -1.0).astype(np.float32)
    return [(pixels[i], int(labels[i])) for i in range(n)]


def _real_mnist(n, monkeypatch):
    home = shared_datasets()
    if not (home / "mnist").exists():
        pytest.skip(f"real MNIST files are not in {home}")
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(home))
    samples = []
    with warnings.catch_warnings():  # the shared folder holds a 24,345-image prefix
        warnings.filterwarnings("ignore", "mnist: .* is missing", UserWarning)
        reader = paddle.dataset.mnist.train()()
        first = next(reader)
    samples = [first]
    for sample in reader:
        samples.append(sample)
        if len(samples) == n:
            return samples
    raise AssertionError("the MNIST prefix holds fewer than 20 batches")


def _network(sizes):
    img = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
    label = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
    out = img
    for i, size in enumerate(sizes[1:]):
        last = i == len(sizes) - 2
        act = paddle.activation.Softmax() if last else paddle.activation.Relu()
        out = paddle.layer.fc(input=out, size=size, act=act)
    return paddle.layer.classification_cost(input=out, label=label)


def _v2_steps(weights, biases, batches):
    """v2's arithmetic in float64: the mean cost of each batch; updates ``weights``/``biases``."""
    values = weights + biases
    moms = [np.zeros_like(v) for v in values]
    costs = []
    for batch in batches:
        x = np.stack([s[0] for s in batch]).astype(np.float64)
        y = np.array([s[1] for s in batch])
        rows = np.arange(len(y))
        outs = [x]
        for i, (w, b) in enumerate(zip(weights, biases, strict=True)):
            z = outs[-1] @ w + b
            if i < len(weights) - 1:
                outs.append(np.maximum(z, 0.0))
            else:
                e = np.exp(np.maximum(z - z.max(axis=1, keepdims=True), -64.0))
                outs.append(e / e.sum(axis=1, keepdims=True))
        p = outs[-1]
        costs.append(float(-np.log(p[rows, y]).mean()))
        g = np.zeros_like(p)
        g[rows, y] = -1.0 / p[rows, y]
        g = p * (g - (g * p).sum(axis=1, keepdims=True))
        grads_w, grads_b = [None] * len(weights), [None] * len(weights)
        for i in reversed(range(len(weights))):
            grads_w[i], grads_b[i] = outs[i].T @ g, g.sum(axis=0)
            if i:
                g = (g @ weights[i].T) * (outs[i] > 0)
        for value, grad, mom in zip(values, grads_w + grads_b, moms, strict=True):
            mom *= MOMENTUM
            mom -= LR * (grad + DECAY * value)
            value += mom
    return costs


@pytest.mark.parametrize("sizes", [[784, 10], [784, 128, 64, 10]], ids=["softmax", "mlp"])
@pytest.mark.parametrize("data", ["synthetic", "mnist"])
def test_first_20_steps_follow_v2_arithmetic(sizes, data, monkeypatch):
    n = BATCH * STEPS
    samples = _synthetic_mnist(n) if data == "synthetic" else _real_mnist(n, monkeypatch)
    batches = [samples[i : i + BATCH] for i in range(0, n, BATCH)]
    cost = _network(sizes)
    params = paddle.parameters.create(cost)
    layers = [f"___fc_layer_{i}__" for i in range(len(sizes) - 1)]
    weights = [params.get(f"{n}.w0").astype(np.float64) for n in layers]
    biases = [params.get(f"{n}.wbias").astype(np.float64).reshape(-1) for n in layers]
    optimizer = paddle.optimizer.Momentum(
        learning_rate=LR,
        momentum=MOMENTUM,
        regularization=paddle.optimizer.L2Regularization(rate=DECAY),
    )
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=optimizer)
    costs = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            costs.append(event.cost)

    trainer.train(reader=lambda: iter(batches), num_passes=1, event_handler=handler)
    initial = [w.copy() for w in weights]
    want_costs = _v2_steps(weights, biases, batches)
    # At the book's rate softmax regression's logits grow fast (costs of 10-20 within 20
    # steps on real digits), so float32 rounding grows to a few 1e-4 by step 20.
    np.testing.assert_allclose(costs, want_costs, rtol=1e-3, atol=1e-5)
    moved = max(np.abs(w - w0).max() for w, w0 in zip(weights, initial, strict=True))
    assert moved > 20 * 5e-4 * max(np.abs(w).max() for w in weights)  # the check has teeth
    # float32 rounding grows with the values (to about 1e-4 of the largest weight by step
    # 20 of softmax regression on real digits); a difference of arithmetic, such as the
    # softmax floor, moves them by about 1e-2
    tol = 5e-4 * max(np.abs(w).max() for w in weights)
    for name, want in zip(layers, weights, strict=True):
        np.testing.assert_allclose(params.get(f"{name}.w0"), want, atol=tol, rtol=0)
    for name, want in zip(layers, biases, strict=True):
        got = params.get(f"{name}.wbias").reshape(-1)
        np.testing.assert_allclose(got, want, atol=tol, rtol=0)
