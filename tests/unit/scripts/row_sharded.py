"""An embedding table split by rows over the devices (or copied to each); save the result.

Run: python row_sharded.py TRAINER_COUNT SHARDING(rows|none) OUT.npz
"""

import sys

import numpy as np

import paddle_lite as paddle


def main(count, sharding, out):
    paddle.init(trainer_count=count, seed=2)
    words = paddle.layer.data(name="w", type=paddle.data_type.integer_value(64))
    label = paddle.layer.data(name="y", type=paddle.data_type.integer_value(4))
    attr = paddle.attr.Param(
        name="table", sparse_update=True, sharding=None if sharding == "none" else sharding
    )
    emb = paddle.layer.embedding(input=words, size=8, param_attr=attr)
    hidden = paddle.layer.fc(input=emb, size=16, act=paddle.activation.Tanh())
    predict = paddle.layer.fc(input=hidden, size=4, act=paddle.activation.Softmax())
    cost = paddle.layer.classification_cost(input=predict, label=label)
    params = paddle.parameters.create(cost)
    optimizer = paddle.optimizer.AdaGrad(
        learning_rate=0.1, regularization=paddle.optimizer.L2Regularization(1e-3)
    )
    trainer = paddle.trainer.SGD(cost, params, optimizer)
    rng = np.random.default_rng(0)
    data = [(int(rng.integers(64)), int(rng.integers(4))) for _ in range(96)]
    shards = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration) and event.batch_id == 0:
            table = trainer._device.on_device_state().trainable["table"]
            shards.append([list(s.data.shape) for s in table.addressable_shards])

    trainer.train(paddle.batch(lambda: iter(data), 16), num_passes=2, event_handler=handler)
    np.savez(out, shards=np.array(shards[0]), **{n: params.get(n) for n in params.keys()})


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.argv[3])
