"""Train the chapter-2 MLP data-parallel on ``trainer_count`` devices; save the result.

Run: python data_parallel.py TRAINER_COUNT OUT.npz [BATCH [PASSES [STOP_AT [BATCH_NORM]]]]
 or: python -m paddle_lite.launch --nproc 2 data_parallel.py 1 OUT (writes OUT.<rank>.npz)

CPU host devices stand in for GPUs. The batch size (default 30) need not divide by
the device count: batches are padded with rows of weight 0. ``BATCH_NORM`` 1 puts a
``batch_norm`` after each hidden layer (its statistics must leave the padding out).
"""

import os
import sys
import time

import numpy as np

import paddle_lite as paddle


def main(count, out, batch=30, passes=3, stop_at=-1, batch_norm=0):
    """``stop_at`` >= 0: sleep at that global step, so a test can kill this process there."""
    paddle.init(trainer_count=count, seed=1)
    images = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
    label = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
    h1 = paddle.layer.fc(input=images, size=128, act=paddle.activation.Relu())
    if batch_norm:
        h1 = paddle.layer.batch_norm(input=h1)
    h2 = paddle.layer.fc(input=h1, size=64, act=paddle.activation.Relu())
    if batch_norm:
        h2 = paddle.layer.batch_norm(input=h2)
    predict = paddle.layer.fc(input=h2, size=10, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=predict, label=label)
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(
        learning_rate=0.1 / 128.0,
        momentum=0.9,
        regularization=paddle.optimizer.L2Regularization(rate=0.0005 * 128),
    )
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=optimizer)
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (120, 784)).astype(np.float32)
    y = rng.integers(0, 10, 120).tolist()
    reader = paddle.batch(lambda: iter(zip(x, y, strict=True)), batch)
    costs = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and event.batch_id == stop_at:
            print("stalled", flush=True)
            time.sleep(600)
        if isinstance(event, paddle.event.EndPass):
            result = trainer.test(reader)
            costs.append([result.cost, result.metrics["classification_error_evaluator"]])

    trainer.train(reader, num_passes=passes, event_handler=handler)
    rank = os.environ.get("PADDLE_LITE_PROCESS_ID")  # set by paddle_lite.launch
    out = out if rank is None else f"{out}.{rank}.npz"
    np.savez(out, costs=np.array(costs), **{n: params.get(n) for n in params.keys()})


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], *(int(a) for a in sys.argv[3:]))
