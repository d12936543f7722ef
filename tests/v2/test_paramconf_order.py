"""Port of v2's python/paddle/v2/tests/test_paramconf_order.py (commit ea46de65).

Translated: the package name, and the data: v2's ``paddle.dataset.imikolov.build_dict()``
downloaded the PTB corpus; here it reads a small PTB-format corpus the test writes into a
temporary data home (see ``_synthetic``).
"""

import math
import unittest

import paddle_lite as paddle

try:
    from tests.v2._synthetic import SyntheticHome, ptb_lines
except ImportError:  # run from inside tests/
    from v2._synthetic import SyntheticHome, ptb_lines


def wordemb(inlayer):
    wordemb = paddle.layer.table_projection(
        input=inlayer,
        size=5,
        param_attr=paddle.attr.Param(name="_proj", initial_std=0.001, learning_rate=1, l2_rate=0),
    )
    return wordemb


def train():
    word_dict = paddle.dataset.imikolov.build_dict()
    dict_size = len(word_dict)
    # Every layer takes integer value of range [0, dict_size)
    firstword = paddle.layer.data(name="firstw", type=paddle.data_type.integer_value(dict_size))
    secondword = paddle.layer.data(name="secondw", type=paddle.data_type.integer_value(dict_size))
    thirdword = paddle.layer.data(name="thirdw", type=paddle.data_type.integer_value(dict_size))
    fourthword = paddle.layer.data(name="fourthw", type=paddle.data_type.integer_value(dict_size))
    nextword = paddle.layer.data(name="fifthw", type=paddle.data_type.integer_value(dict_size))

    Efirst = wordemb(firstword)
    Esecond = wordemb(secondword)
    Ethird = wordemb(thirdword)
    Efourth = wordemb(fourthword)

    contextemb = paddle.layer.concat(input=[Efirst, Esecond, Ethird, Efourth])
    hidden1 = paddle.layer.fc(
        name="fc1",
        input=contextemb,
        size=128,
        act=paddle.activation.Sigmoid(),
        layer_attr=paddle.attr.Extra(drop_rate=0.5),
        bias_attr=paddle.attr.Param(learning_rate=2),
        param_attr=paddle.attr.Param(
            initial_std=1.0 / math.sqrt(5 * 8), learning_rate=1, l2_rate=6e-4
        ),
    )
    predictword = paddle.layer.fc(
        input=hidden1,
        size=dict_size,
        bias_attr=paddle.attr.Param(learning_rate=2),
        act=paddle.activation.Softmax(),
    )

    return paddle.layer.classification_cost(input=predictword, label=nextword)


class TestParamConfOrder(SyntheticHome):
    def write_data(self):
        train_text, valid_text = ptb_lines("a b c", "d e f")
        data = self.home / "imikolov" / "simple-examples" / "data"
        data.mkdir(parents=True)
        (data / "ptb.train.txt").write_bytes(train_text)
        (data / "ptb.valid.txt").write_bytes(valid_text)

    def test_param_conf_order(self):
        paddle.init()
        cost = train()
        parameters = paddle.parameters.create(cost)
        adagrad = paddle.optimizer.AdaGrad(
            learning_rate=3e-3, regularization=paddle.optimizer.L2Regularization(rate=8e-4)
        )

        trainer = paddle.trainer.SGD(cost, parameters, adagrad)
        for p in trainer.get_topology_proto().parameters:
            if p.name == "_fc1.w0":
                self.assertEqual(p.decay_rate, 6e-4)
            else:
                self.assertEqual(p.decay_rate, 8e-4)


if __name__ == "__main__":
    unittest.main()
