"""Port of v2's python/paddle/v2/tests/test_op.py (commit dbd25805).

v2's test built a chain of unary ops and layer arithmetic and printed the config
``parse_network`` gave; the port asserts that config (see ``_parsed_config``), as v2's
``paddle.v2.op`` builds it: a unary op is a mixed layer over one identity projection with
the op's activation; ``layer + number`` (either side), ``layer * number``, ``-layer`` and
``number - layer`` are ``slope_intercept`` layers; ``layer + layer`` of one size is a mixed
layer over two identity projections, a size-1 layer is first repeated to the other's
size; ``layer * layer`` with one of size 1 is a ``scaling`` layer, that one its weight.
v2's golden ``math_ops.protostr`` holds the same program over 100 values (here 128).

One value differs from what ``paddle.v2.op`` printed: for ``y - 2`` its ``__sub__`` wrote
``intercept: 2`` (it passed the number unchanged, so ``y - 2`` computed ``y + 2``), while
its twin ``trainer_config_helpers.layer_math`` and the golden ``math_ops.protostr`` write
``intercept: -2``. paddle_lite computes ``y - 2``, as the golden does.
"""

import unittest

import paddle_lite.data_type as data_type
import paddle_lite.layer as layer
import paddle_lite.op as op
import paddle_lite.topology as topology

from ._parsed_config import assert_parsed, data_row, row

UNARY = [
    ("exp", "exponential"),
    ("sqrt", "sqrt"),
    ("reciprocal", "reciprocal"),
    ("log", "log"),
    ("abs", "abs"),
    ("sigmoid", "sigmoid"),
    ("tanh", "tanh"),
    ("square", "square"),
    ("relu", "relu"),
]


def _v2_config():
    """The layers v2's ``paddle.v2.op`` built for the test's program, in creation order,
    and the (slope, intercept) of each ``slope_intercept`` layer."""
    rows, prev = [data_row("data", 128)], "data"
    for name, act in UNARY:
        rows.append(row(f"__{name}_0__", "mixed", 128, prev, act=act))
        prev = rows[-1][0]
    relu = prev

    def si(i, inp):
        rows.append(row(f"__slope_intercept_layer_{i}__", "slope_intercept", 128, inp))
        return rows[-1][0]

    def mixed(i, a, b):
        rows.append(row(f"__mixed_{i}__", "mixed", 128, a, b))
        return rows[-1][0]

    y = si(1, si(0, relu))  # 1 + x; y + 1
    y = mixed(0, relu, y)  # x + y
    y = mixed(1, y, si(2, relu))  # y - x = y + (-x)
    y = si(3, y)  # y - 2
    y = si(5, si(4, y))  # 2 - y = (-y) + 2
    y = si(7, si(6, y))  # 2 * y; y * 3
    rows.append(data_row("data_2", 1))
    rows.append(row("__scaling_layer_0__", "scaling", 128, "data_2", y))  # y * z
    rows.append(row("__scaling_layer_1__", "scaling", 128, "data_2", "__scaling_layer_0__"))
    y = "__scaling_layer_1__"  # z * y
    for i in (0, 1):  # y + z; z + y (the size-1 layer repeated, the other first)
        rows.append(row(f"__repeat_layer_{i}__", "featmap_expand", 128, "data_2"))
        y = mixed(2 + i, y, f"__repeat_layer_{i}__")
    slopes = [(1, 1), (1, 1), (-1, 0), (1, -2), (-1, 0), (1, 2), (2, 0), (3, 0)]
    return rows, slopes


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
        config = layer.parse_network(y)
        rows, slopes = _v2_config()
        assert_parsed(config, rows, {}, inputs=["data", "data_2"], outputs=["__mixed_3__"])
        topo = topology.Topology(y)
        names = [c.name for c in config.layers if c.type == "slope_intercept"]
        attrs = [topo.get_layer(name).attrs for name in names]
        assert [(a["slope"], a["intercept"]) for a in attrs] == slopes


if __name__ == "__main__":
    unittest.main()
