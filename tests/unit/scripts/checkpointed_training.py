"""A training run that checkpoints often and resumes from its newest checkpoint.

Run: python checkpointed_training.py CHECKPOINT_DIR OUT.npz [SLOW_SECONDS]

Trains a small network (momentum, L2, model average, dropout, batch norm) on a
shuffled reader for 3 passes with checkpoints every 2 batches, after first loading
the newest checkpoint if there is one; writes the final parameters to OUT.npz.
SLOW_SECONDS sleeps in every EndIteration so a test can kill it mid-run.
"""

import random
import sys
import time

import numpy as np

import paddle_lite as paddle

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def network():
    x = L.data(name="x", type=DT.dense_vector(6))
    y = L.data(name="y", type=DT.integer_value(3))
    h = L.fc(input=x, size=8, act=A.Relu(), layer_attr=paddle.attr.Extra(drop_rate=0.2))
    h = L.batch_norm(input=h, act=A.Relu())
    return L.classification_cost(input=L.fc(input=h, size=3, act=A.Softmax()), label=y)


def samples():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 6)).astype(np.float32)
    return list(zip(x, rng.integers(0, 3, 60).tolist(), strict=True))


def main(folder, out, slow=0.0):
    paddle.init(seed=3)
    random.seed(7)  # the shuffle below draws from the global random, as v2 did
    cost = network()
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(
        momentum=0.9,
        learning_rate=0.05,
        regularization=paddle.optimizer.L2Regularization(1e-3),
        model_average=paddle.optimizer.ModelAverage(average_window=0.5),
    )
    trainer = paddle.trainer.SGD(cost, params, optimizer)
    trainer.load_checkpoint(folder, missing_ok=True)
    data = samples()
    reader = paddle.batch(paddle.reader.shuffle(lambda: iter(data), buf_size=100), 8)

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and slow:
            time.sleep(slow)

    trainer.train(
        reader, num_passes=3, event_handler=handler, checkpoint_dir=folder, checkpoint_every=2
    )
    np.savez(out, **{n: params.get(n) for n in params.keys()})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
