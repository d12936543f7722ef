"""Training under the launcher on cloud_reader: each process reads its own tasks.

Run: python -m paddle_lite.launch --nproc N cloud_training.py ENDPOINT PATTERN PREFIX OUT
         [CHECKPOINT_DIR STOP_PASS STOP_BATCH]

Trains a small classifier for 2 passes on ``paddle.batch(map_readers(sample,
cloud_reader(PATTERN, ENDPOINT, prefix=PREFIX)), 8)``, whose records are ``(id, features,
label)``. Each process writes ``OUT.<rank>.json``: the record ids it read in each pass, the
steps it trained and the samples ``History`` counted in each pass. With CHECKPOINT_DIR it
loads the newest checkpoint there first, checkpoints every 2 batches, and (STOP_PASS,
STOP_BATCH >= 0) exits with status 3 after that batch.
"""

import json
import os
import sys

import numpy as np

import paddle_lite as paddle


def main(endpoint, pattern, prefix, out, folder=None, stop_pass=-1, stop_batch=-1):
    paddle.init(seed=3)
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(4))
    y = paddle.layer.data(name="y", type=paddle.data_type.integer_value(2))
    h = paddle.layer.fc(input=x, size=8, act=paddle.activation.Tanh())
    p = paddle.layer.fc(input=h, size=2, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=p, label=y)
    params = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.1))
    read, steps = [[], []], [0]
    passes = [0]

    def sample(record):
        ident, features, label = record
        read[passes[0]].append(ident)
        return np.asarray(features, np.float32), label

    records = paddle.reader.creator.cloud_reader(
        pattern, endpoint, prefix=prefix, lease_ttl_sec=1, poll_sec=0.05, chunks_per_task=2
    )

    def handler(event):
        if isinstance(event, paddle.event.BeginPass):
            passes[0] = min(event.pass_id, 1)
        if isinstance(event, paddle.event.EndIteration):
            steps[0] += 1
            if (event.pass_id, event.batch_id) == (int(stop_pass), int(stop_batch)):
                raise SystemExit(3)

    reader = paddle.batch(paddle.reader.map_readers(sample, records), 8)
    options = {}
    if folder:
        trainer.load_checkpoint(folder, missing_ok=True)
        options = {"checkpoint_dir": folder, "checkpoint_every": 2}
    rank = os.environ.get("PADDLE_LITE_PROCESS_ID", "0")
    history = None
    try:
        history = trainer.train(reader, num_passes=2, event_handler=handler, **options)
    finally:
        finite = all(np.isfinite(v).all() for v in params.values().values())
        samples = [r.samples for r in history] if history is not None else None
        with open(f"{out}.{rank}.json", "w") as f:
            json.dump({"read": read, "steps": steps[0], "finite": bool(finite),
                       "samples": samples}, f)  # fmt: skip


if __name__ == "__main__":
    main(*sys.argv[1:])
