"""Port of v2's python/paddle/v2/tests/test_topology.py (commit 7fc38ee3).

Translated: Python 2 -> 3 (``filter`` returns an iterator, so ``list(filter(...))``); the
v1 activations ``conf_helps.SigmoidActivation()`` / ``SoftmaxActivation()`` are v2's
``paddle.activation.Sigmoid()`` / ``Softmax()`` (v2's classes are those same v1 classes);
``paddle.trainer.PyDataProvider2.DataType`` is what v2 re-exported as
``paddle.data_type.DataType``. ``test_parse`` only built each topology's ModelConfig in
v2; the port asserts what v2 put in it (see ``_parsed_config``): the layers reachable from
the outputs, in the order they were created, their parameters, and the input and output
layers.
"""

import types
import unittest

import paddle_lite.activation as activation
import paddle_lite.data_type as pydp2
import paddle_lite.layer as layer
import paddle_lite.topology as topology
from paddle_lite import data_type

from ._parsed_config import assert_parsed, data_row, row

# the two v1 activation classes the test names, under their v1 names
conf_helps = types.SimpleNamespace(
    SigmoidActivation=activation.Sigmoid, SoftmaxActivation=activation.Softmax
)


class TestTopology(unittest.TestCase):
    def test_data_type(self):
        pixel = layer.data(name="pixel", type=data_type.dense_vector(784))
        label = layer.data(name="label", type=data_type.integer_value(10))
        hidden = layer.fc(input=pixel, size=100, act=conf_helps.SigmoidActivation())
        inference = layer.fc(input=hidden, size=10, act=conf_helps.SoftmaxActivation())
        cost = layer.classification_cost(input=inference, label=label)
        topo = topology.Topology(cost)
        data_types = topo.data_type()
        self.assertEqual(len(data_types), 2)
        pixel_data_type = list(filter(lambda type: type[0] == "pixel", data_types))
        self.assertEqual(len(pixel_data_type), 1)
        pixel_data_type = pixel_data_type[0]
        self.assertEqual(pixel_data_type[1].type, pydp2.DataType.Dense)
        self.assertEqual(pixel_data_type[1].dim, 784)

        label_data_type = list(filter(lambda type: type[0] == "label", data_types))
        self.assertEqual(len(label_data_type), 1)
        label_data_type = label_data_type[0]
        self.assertEqual(label_data_type[1].type, pydp2.DataType.Index)
        self.assertEqual(label_data_type[1].dim, 10)

    def test_get_layer(self):
        pixel = layer.data(name="pixel2", type=data_type.dense_vector(784))
        label = layer.data(name="label2", type=data_type.integer_value(10))
        hidden = layer.fc(input=pixel, size=100, act=conf_helps.SigmoidActivation())
        inference = layer.fc(input=hidden, size=10, act=conf_helps.SoftmaxActivation())
        cost = layer.classification_cost(input=inference, label=label)
        topo = topology.Topology(cost)
        pixel_layer = topo.get_layer("pixel2")
        label_layer = topo.get_layer("label2")
        self.assertEqual(pixel_layer, pixel)
        self.assertEqual(label_layer, label)

    def test_parse(self):
        pixel = layer.data(name="pixel3", type=data_type.dense_vector(784))
        label = layer.data(name="label3", type=data_type.integer_value(10))
        hidden = layer.fc(input=pixel, size=100, act=conf_helps.SigmoidActivation())
        inference = layer.fc(input=hidden, size=10, act=conf_helps.SoftmaxActivation())
        maxid = layer.max_id(input=inference)
        cost1 = layer.classification_cost(input=inference, label=label)
        cost2 = layer.cross_entropy_cost(input=inference, label=label)

        # fc_layer: weight "_<name>.w0" [input size, size], bias "_<name>.wbias" [1, size];
        # classification_cost is named "cost"; each cost has size 1; max_id keeps its
        # input's size
        fc0, fc1 = "___fc_layer_0__", "___fc_layer_1__"
        fcs = [
            row("__fc_layer_0__", "fc", 100, ("pixel3", f"{fc0}.w0"), act="sigmoid",
                bias=f"{fc0}.wbias"),
            row("__fc_layer_1__", "fc", 10, ("__fc_layer_0__", f"{fc1}.w0"), act="softmax",
                bias=f"{fc1}.wbias"),
        ]  # fmt: skip
        params = {
            f"{fc0}.w0": (78400, (784, 100)),
            f"{fc0}.wbias": (100, (1, 100)),
            f"{fc1}.w0": (1000, (100, 10)),
            f"{fc1}.wbias": (10, (1, 10)),
        }
        data = [data_row("pixel3", 784), data_row("label3", 10)]
        xent = "multi-class-cross-entropy"
        by_cost = row("__cost_0__", xent, 1, "__fc_layer_1__", "label3")
        by_xent = row("__cross_entropy_0__", xent, 1, "__fc_layer_1__", "label3")
        for net, costs in [
            (cost2, [by_xent]),
            ([cost1], [by_cost]),
            ([cost1, cost2], [by_cost, by_xent]),
        ]:
            outputs = [cost[0] for cost in costs]
            config = topology.Topology(net).proto()
            assert_parsed(config, data + fcs + costs, params, ["pixel3", "label3"], outputs)
        maxid_row = row("__maxid_layer_0__", "maxid", 10, "__fc_layer_1__")
        assert_parsed(
            topology.Topology([inference, maxid]).proto(),
            [data[0], *fcs, maxid_row],
            params,
            ["pixel3"],
            ["__fc_layer_1__", "__maxid_layer_0__"],
        )


if __name__ == "__main__":
    unittest.main()
