"""Port of v2's python/paddle/v2/tests/test_op.py (commit dbd25805): Python 2 -> 3 only."""

import unittest

import paddle_lite.data_type as data_type
import paddle_lite.layer as layer
import paddle_lite.op as op


class OpTest(unittest.TestCase):
    def test_op(self):
        x = layer.data(name="data", type=data_type.dense_vector(128))
        x = op.exp(x)
        x = op.sqrt(x)
        x = op.reciprocal(x)
        x = op.log(x)
        x = op.abs(x)
        x = op.sigmoid(x)
        x = op.tanh(x)
        x = op.square(x)
        x = op.relu(x)
        y = 1 + x
        y = y + 1
        y = x + y
        y = y - x
        y = y - 2
        y = 2 - y
        y = 2 * y
        y = y * 3
        z = layer.data(name="data_2", type=data_type.dense_vector(1))
        y = y * z
        y = z * y
        y = y + z
        y = z + y
        print(layer.parse_network(y))


if __name__ == "__main__":
    unittest.main()
