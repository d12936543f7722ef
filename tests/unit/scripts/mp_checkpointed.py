"""A checkpointed multi-process training job (run it under ``python -m paddle_lite.launch``).

Run: python mp_checkpointed.py CHECKPOINT_DIR OUT [--slow S] [--log FILE]
                               [--kill RANK PASS BATCH MARKER]

A 20-32-4 MLP on 512 rows, batches of 64, 2 passes, checkpoints every 3 batches; it
loads the newest checkpoint first. Process 0 writes the final parameters to OUT.npz
and, with ``--log``, a line ``<pass> <batch>`` per batch trained. ``--kill`` SIGKILLs
process RANK after that batch, once (the MARKER file says it happened), so a launcher
with ``--max-restarts`` restarts the job and it resumes.
"""

import argparse
import os
import signal
import time

import numpy as np

import paddle_lite as paddle


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("out")
    parser.add_argument("--slow", type=float, default=0.0)
    parser.add_argument("--log")
    parser.add_argument("--kill", nargs=4)
    args = parser.parse_args()
    paddle.init(seed=2)
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(20))
    y = paddle.layer.data(name="y", type=paddle.data_type.integer_value(4))
    h = paddle.layer.fc(input=x, size=32, act=paddle.activation.Relu())
    p = paddle.layer.fc(input=h, size=4, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=p, label=y)
    rng = np.random.RandomState(0)
    x, labels = rng.randn(512, 20).astype("float32"), rng.randint(0, 4, 512).tolist()
    rows = list(zip(x, labels, strict=True))
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=optimizer)
    trainer.load_checkpoint(args.folder, missing_ok=True)
    rank = int(os.environ.get("PADDLE_LITE_PROCESS_ID", "0"))

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            if args.log and rank == 0:
                with open(args.log, "a") as f:
                    f.write(f"{event.pass_id} {event.batch_id}\n")
            if args.kill and _due(args.kill, rank, event):
                open(args.kill[3], "w").close()
                os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(args.slow)

    trainer.train(
        paddle.batch(lambda: iter(rows), 64),
        num_passes=2,
        event_handler=handler,
        checkpoint_dir=args.folder,
        checkpoint_every=3,
    )
    if rank == 0:
        np.savez(args.out + ".npz", **{n: params.get(n) for n in params.keys()})


def _due(kill, rank, event):
    who, pass_id, batch_id, marker = kill
    at = (event.pass_id, event.batch_id) == (int(pass_id), int(batch_id))
    return rank == int(who) and at and not os.path.exists(marker)


if __name__ == "__main__":
    main()
