"""v2 config math_ops: unary math ops and layer/number arithmetic."""

import paddle_lite as paddle


def network():
    op = paddle.op
    x = paddle.layer.data(name="data", type=paddle.data_type.dense_vector(100))
    for fn in (op.exp, op.sqrt, op.reciprocal, op.log, op.abs, op.sigmoid, op.tanh):
        x = fn(x)
    x = op.relu(op.square(x))
    y = 1 + x
    y = y + 1
    y = x + y
    y = y - x
    y = y - 2
    y = 2 - y
    y = 2 * y
    y = y * 3
    z = paddle.layer.data(name="data_2", type=paddle.data_type.dense_vector(1))
    y = y * z
    y = z * y
    y = y + z
    y = z + y
    return [y], []
