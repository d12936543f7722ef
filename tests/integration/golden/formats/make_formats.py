"""Write the golden files of paddle_lite's own formats, with the library on ``sys.path``.

``tests/integration/test_saved_formats.py`` loads what an earlier version wrote with the
current one. Regenerate only when a format changes on purpose (and keep the old files
loading): ``python tests/integration/golden/formats/make_formats.py OUT_DIR``.

The files: ``topology.json`` (``Topology.serialize``), ``inference.json``
(``serialize_for_inference``), ``parameters.tar`` (v2's tar) and ``parameters.npz``,
``checkpoint/`` (``SGD.save_checkpoint`` after two passes), ``inputs.npz`` and
``outputs.npz`` (what ``infer`` gave on them), ``resumed.npz`` (the parameters after
one more pass from the checkpoint) and ``version.txt``.
"""

from __future__ import annotations

import os
import sys

import numpy as np

import paddle_lite as paddle

SAMPLES = 24


def network():
    L, DT, A = paddle.layer, paddle.data_type, paddle.activation
    x = L.data(name="x", type=DT.dense_vector(8))
    words = L.data(name="words", type=DT.integer_value_sequence(20))
    label = L.data(name="label", type=DT.integer_value(3))
    emb = L.embedding(input=words, size=6)
    lstm = paddle.networks.simple_lstm(input=emb, size=4)
    pooled = L.pooling(input=emb, pooling_type=paddle.pooling.Avg())
    hidden = L.fc(input=[x, pooled, L.last_seq(input=lstm)], size=10, act=A.Tanh())
    normed = L.batch_norm(input=hidden, act=A.Relu())
    out = L.fc(input=normed, size=3, act=A.Softmax())
    return out, L.classification_cost(input=out, label=label)


def samples():
    rng = np.random.default_rng(7)
    return [
        (
            rng.normal(size=8).astype("float32"),
            [int(i) for i in rng.integers(0, 20, size=int(rng.integers(1, 6)))],
            int(rng.integers(0, 3)),
        )
        for _ in range(SAMPLES)
    ]


def reader():
    return iter(samples())


def trainer(cost, parameters):
    optimizer = paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9)
    return paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)


def resume_one_pass(cost, checkpoint):
    """A new trainer loads ``checkpoint`` and trains one more pass."""
    parameters = paddle.parameters.create(cost)
    sgd = trainer(cost, parameters)
    sgd.load_checkpoint(checkpoint)
    sgd.train(reader=paddle.batch(reader, 8), num_passes=3)
    return {name: parameters.get(name) for name in parameters.keys()}


def main(out_dir: str) -> None:
    paddle.init(use_gpu=False, trainer_count=1, seed=1)
    os.makedirs(out_dir, exist_ok=True)
    out, cost = network()
    parameters = paddle.parameters.create(cost)
    sgd = trainer(cost, parameters)
    sgd.train(reader=paddle.batch(reader, 8), num_passes=2)
    sgd.save_checkpoint(os.path.join(out_dir, "checkpoint"))
    with open(os.path.join(out_dir, "parameters.tar"), "wb") as f:
        parameters.to_tar(f)
    parameters.save_npz(os.path.join(out_dir, "parameters.npz"))
    topology = paddle.topology.Topology(out)
    topology.serialize(os.path.join(out_dir, "topology.json"))
    topology.serialize_for_inference(os.path.join(out_dir, "inference.json"))
    rows = samples()[:5]
    probs = paddle.infer(output_layer=out, parameters=parameters, input=[r[:2] for r in rows])
    np.savez(os.path.join(out_dir, "outputs.npz"), probs=np.asarray(probs))
    resumed = resume_one_pass(cost, os.path.join(out_dir, "checkpoint"))
    np.savez(os.path.join(out_dir, "resumed.npz"), **resumed)
    with open(os.path.join(out_dir, "version.txt"), "w") as f:
        f.write(paddle.__version__ + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
