"""A training run that checkpoints often and resumes from its newest checkpoint.

Run: python checkpointed_training.py CHECKPOINT_DIR OUT.npz [SLOW_SECONDS [LOG [own-handler]]]

Trains a small network (momentum, L2, model average, dropout, batch norm) on a
shuffled reader for 3 passes with checkpoints every 2 batches, after first loading
the newest checkpoint if there is one; writes the final parameters to OUT.npz.
SLOW_SECONDS sleeps in every EndIteration so a test can kill it mid-run. LOG gets a
line ``begin`` when training begins and ``<pass> <batch>`` after each batch trained;
with ``own-handler`` the script has its own SIGTERM handler, which writes ``handler``
to LOG and exits with status 7.
"""

import random
import signal
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


def main(folder, out, slow=0.0, log=None, own_handler=False):
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

    def write(line):
        if log is not None:
            with open(log, "a") as f:
                f.write(line + "\n")

    if own_handler:

        def on_sigterm(signum, frame):
            write("handler")
            sys.exit(7)

        signal.signal(signal.SIGTERM, on_sigterm)

    def handler(event):
        if isinstance(event, paddle.event.BeginTraining):
            write("begin")
        if isinstance(event, paddle.event.EndIteration):
            write(f"{event.pass_id} {event.batch_id}")
            time.sleep(slow)

    trainer.train(
        reader, num_passes=3, event_handler=handler, checkpoint_dir=folder, checkpoint_every=2
    )
    np.savez(out, **{n: params.get(n) for n in params.keys()})


if __name__ == "__main__":
    args = sys.argv[1:]
    slow = float(args[2]) if len(args) > 2 else 0.0
    log = args[3] if len(args) > 3 else None
    main(args[0], args[1], slow, log, own_handler=args[4:] == ["own-handler"])
