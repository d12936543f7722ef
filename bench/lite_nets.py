"""The benchmark's networks written with ``import paddle_lite as paddle``, as the book does.

Network functions come from the book's own files (``book/``) wherever a chapter
defines one; chapters 1 and 4 build their network inside ``main``, so those few
lines are repeated here verbatim. Each builder returns ``(cost, update_equation,
feeding)`` with the chapter's optimizer settings.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import pathlib
from types import ModuleType, SimpleNamespace
from typing import Any

import paddle_lite as paddle

BOOK = pathlib.Path(__file__).resolve().parents[1] / "book"
Built = tuple[Any, Any, dict[str, int]]


@functools.cache
def chapter(folder: str, name: str = "train") -> ModuleType | SimpleNamespace:
    """The book file ``book/<folder>/<name>.py``: a module of networks (``resnet.py``) is
    loaded; of a chapter's program, its definitions (``book/run_chapter.py``), nothing run."""
    if name == "train":
        spec = importlib.util.spec_from_file_location("run_chapter", BOOK / "run_chapter.py")
        runner = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(runner)
        return runner.definitions(folder)
    path = BOOK / folder / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"book_{folder.replace('.', '_')}_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fit_a_line(dim: int = 13) -> Built:
    """Chapter 1: ``fc(13 -> 1)``, square error, ``Momentum(momentum=0)`` (SGD, lr 1e-3);
    ``dim`` other than 13 gives the same network on wider rows (the tiny model)."""
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(dim))
    y_predict = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
    y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
    cost = paddle.layer.square_error_cost(input=y_predict, label=y)
    return cost, paddle.optimizer.Momentum(momentum=0), {"x": 0, "y": 1}


def recognize_digits(net: str) -> Built:
    """Chapter 2: the book's ``mlp`` or ``lenet`` network, Momentum 0.9, L2 0.0005*128."""
    book = chapter("02.recognize_digits")
    images = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
    label = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
    predict = book.NETWORKS[net](images)
    cost = paddle.layer.classification_cost(input=predict, label=label)
    optimizer = paddle.optimizer.Momentum(
        learning_rate=0.1 / 128.0,
        momentum=0.9,
        regularization=paddle.optimizer.L2Regularization(rate=0.0005 * 128),
    )
    return cost, optimizer, {"pixel": 0, "label": 1}


def image_classification(depth: int) -> Built:
    """Chapter 3: the book's ``resnet_cifar10(depth)`` and its Momentum (discexp) settings."""
    resnet = chapter("03.image_classification", "resnet")
    image = paddle.layer.data(name="image", type=paddle.data_type.dense_vector(3 * 32 * 32))
    body = resnet.resnet_cifar10(image, depth=depth)
    out = paddle.layer.fc(input=body, size=10, act=paddle.activation.Softmax())
    lbl = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
    cost = paddle.layer.classification_cost(input=out, label=lbl)
    optimizer = paddle.optimizer.Momentum(
        momentum=0.9,
        regularization=paddle.optimizer.L2Regularization(rate=0.0002 * 128),
        learning_rate=0.1 / 128.0,
        learning_rate_decay_a=0.1,
        learning_rate_decay_b=50000 * 100,
        learning_rate_schedule="discexp",
    )
    return cost, optimizer, {"image": 0, "label": 1}


def word2vec(dict_size: int) -> Built:
    """Chapter 4: the N-gram model of ``main`` around the book's ``wordemb``; AdaGrad."""
    book = chapter("04.word2vec")
    embsize, hiddensize = book.embsize, book.hiddensize
    names = ["firstw", "secondw", "thirdw", "fourthw", "fifthw"]
    words = [
        paddle.layer.data(name=n, type=paddle.data_type.integer_value(dict_size)) for n in names
    ]
    contextemb = paddle.layer.concat(input=[book.wordemb(w) for w in words[:4]])
    hidden1 = paddle.layer.fc(
        input=contextemb,
        size=hiddensize,
        act=paddle.activation.Sigmoid(),
        layer_attr=paddle.attr.Extra(drop_rate=0.5),
        bias_attr=paddle.attr.Param(learning_rate=2),
        param_attr=paddle.attr.Param(initial_std=1.0 / math.sqrt(embsize * 8), learning_rate=1),
    )
    predictword = paddle.layer.fc(
        input=hidden1,
        size=dict_size,
        bias_attr=paddle.attr.Param(learning_rate=2),
        act=paddle.activation.Softmax(),
    )
    cost = paddle.layer.classification_cost(input=predictword, label=words[4])
    adagrad = paddle.optimizer.AdaGrad(
        learning_rate=3e-3, regularization=paddle.optimizer.L2Regularization(8e-4)
    )
    return cost, adagrad, {n: i for i, n in enumerate(names)}


def understand_sentiment(dict_size: int, emb_dim: int, hid_dim: int) -> Built:
    """Chapter 6: the book's ``stacked_lstm_net`` (3 levels) with its Adam settings."""
    book = chapter("06.understand_sentiment")
    cost, _ = book.stacked_lstm_net(
        dict_size, class_dim=2, emb_dim=emb_dim, hid_dim=hid_dim, stacked_num=3
    )
    adam = paddle.optimizer.Adam(
        learning_rate=2e-3,
        regularization=paddle.optimizer.L2Regularization(rate=8e-4),
        model_average=paddle.optimizer.ModelAverage(average_window=0.5),
    )
    return cost, adam, {"word": 0, "label": 1}


def machine_translation(dict_size: int, dim: int) -> Built:
    """Chapter 8: the book's ``seq_to_seq_net`` (training) at width ``dim``; Adam 5e-5."""
    book = chapter("08.machine_translation")
    sizes = {"word_vector_dim": dim, "encoder_size": dim, "decoder_size": dim}
    cost = book.seq_to_seq_net(dict_size, dict_size, False, **sizes)
    adam = paddle.optimizer.Adam(
        learning_rate=5e-5, regularization=paddle.optimizer.L2Regularization(rate=8e-4)
    )
    names = ["source_language_word", "target_language_word", "target_language_next_word"]
    return cost, adam, {n: i for i, n in enumerate(names)}
