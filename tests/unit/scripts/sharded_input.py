"""Training over a seekable reader that records which samples each process reads.

Run alone or under ``python -m paddle_lite.launch --nproc N``:

    python sharded_input.py OUT [--seq] [--ckpt DIR] [--stop-at PASS BATCH] [--passes P]

A small classifier (dense features, or with ``--seq`` integer sequences of 1 to 20 ids
through an embedding and sum pooling) trains with Momentum on 200 samples, shuffled with
a seed, in batches of 16. The reader is ``paddle.batch(shuffle(map_readers(sample,
np_array(range(200))), seed=7), 16)``: seekable, so each process reads only its rows.
Each process writes ``OUT.reads.<rank>.json``: the sample ids it read, per pass, and how
many it had read when its first step ended. Process 0 writes the parameters to
``OUT.npz``. ``--ckpt DIR`` loads the newest checkpoint there and checkpoints every 3
batches; ``--stop-at PASS BATCH`` exits with status 3 after that batch (every process).
"""

import argparse
import json
import os
import sys

import numpy as np

import paddle_lite as paddle

N, BATCH = 200, 16


def network(seq):
    if seq:
        words = paddle.layer.data(name="x", type=paddle.data_type.integer_value_sequence(50))
        emb = paddle.layer.embedding(input=words, size=8)
        h = paddle.layer.pooling(input=emb, pooling_type=paddle.pooling.Sum())
    else:
        x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(6))
        h = paddle.layer.fc(input=x, size=16, act=paddle.activation.Relu())
    p = paddle.layer.fc(input=h, size=3, act=paddle.activation.Softmax())
    y = paddle.layer.data(name="y", type=paddle.data_type.integer_value(3))
    return paddle.layer.classification_cost(input=p, label=y)


def data(seq):
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 3, N).tolist()
    if seq:
        lengths = rng.integers(1, 21, N)
        return [rng.integers(0, 50, n).tolist() for n in lengths], labels
    return rng.normal(size=(N, 6)).astype(np.float32), labels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--seq", action="store_true")
    parser.add_argument("--ckpt")
    parser.add_argument("--stop-at", nargs=2, type=int)
    parser.add_argument("--passes", type=int, default=2)
    args = parser.parse_args()
    paddle.init(seed=4)
    cost = network(args.seq)
    features, labels = data(args.seq)
    reads, log = [[]], {"first_step": None}

    def sample(i):
        reads[-1].append(int(i))
        return features[i], labels[i]

    samples = paddle.reader.map_readers(sample, paddle.reader.creator.np_array(np.arange(N)))
    reader = paddle.batch(paddle.reader.shuffle(samples, N, seed=7), BATCH)
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.Momentum(learning_rate=0.02, momentum=0.9)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=optimizer)
    options = {}
    if args.ckpt:
        trainer.load_checkpoint(args.ckpt, missing_ok=True)
        options = {"checkpoint_dir": args.ckpt, "checkpoint_every": 3}
    rank = int(os.environ.get("PADDLE_LITE_PROCESS_ID", "0"))

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            if log["first_step"] is None:
                log["first_step"] = sum(map(len, reads))
            if args.stop_at and [event.pass_id, event.batch_id] == args.stop_at:
                sys.exit(3)
        if isinstance(event, paddle.event.EndPass):
            reads.append([])

    try:
        trainer.train(reader, num_passes=args.passes, event_handler=handler, **options)
    finally:
        with open(f"{args.out}.reads.{rank}.json", "w") as f:
            json.dump({"passes": reads[:-1] or reads, "first_step": log["first_step"]}, f)
    if rank == 0:
        np.savez(args.out + ".npz", **{n: params.get(n) for n in params.keys()})


if __name__ == "__main__":
    main()
