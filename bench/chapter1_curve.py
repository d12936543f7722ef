"""Draw chapter 1's measured cost curve for its docs page: ``docs/img/fit_a_line_cost.png``.

Trains the chapter's network (fc 13->1, square error, ``Momentum(momentum=0)``, batch 2,
``shuffle(buf_size=500)``) for 30 passes with a fixed seed, tests after every pass, and
plots the per-pass mean training cost and test cost from the ``History`` that
``trainer.train`` returns. Run: ``python bench/chapter1_curve.py [out.png]``.
"""

from __future__ import annotations

import random
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import paddle_lite as paddle
from paddle_lite.dataset import uci_housing

OUT = "docs/img/fit_a_line_cost.png"


def train(num_passes: int = 30, seed: int = 0):
    random.seed(seed)
    paddle.init(use_gpu=False, trainer_count=1, seed=seed)
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
    y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
    y_predict = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
    cost = paddle.layer.square_error_cost(input=y_predict, label=y)
    parameters = paddle.parameters.create(cost)
    trainer = paddle.trainer.SGD(
        cost=cost, parameters=parameters, update_equation=paddle.optimizer.Momentum(momentum=0)
    )
    feeding = {"x": 0, "y": 1}
    test_reader = paddle.batch(uci_housing.test(), batch_size=2)

    def test_each_pass(event):
        if isinstance(event, paddle.event.EndPass):
            trainer.test(reader=test_reader, feeding=feeding)

    return trainer.train(
        reader=paddle.batch(paddle.reader.shuffle(uci_housing.train(), buf_size=500), 2),
        num_passes=num_passes,
        feeding=feeding,
        event_handler=test_each_pass,
    )


def draw(history, out: str) -> None:
    passes = [p.pass_id for p in history]
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=120)
    ax.plot(passes, history.cost, marker=".", label="train cost (pass mean)")
    ax.plot(passes, history.test_cost, marker=".", label="test cost")
    ax.axhspan(15, 20, color="0.85", label="the book's figure: about 15-20")
    ax.set_xlabel("pass")
    ax.set_ylabel("cost (squared error / sample)")
    ax.set_yscale("log")
    ax.set_title("Chapter 1, fit a line: measured with paddle_lite")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    history = train()
    print("test cost per pass:", [round(c, 2) for c in history.test_cost])
    draw(history, sys.argv[1] if len(sys.argv) > 1 else OUT)
