"""The benchmarked models: the book's networks, data shapes and hyper-parameters.

``registry(mode)`` gives them for a mode: ``"full"`` is the book's configuration
(the default on accelerators); ``"cpu"`` keeps every shape the book's except where a
model would take seconds per step on a small CPU, and says what it shrank;
``"quick"`` shrinks further for a smoke run. Every shrunk field is listed in the
model's ``shrunk`` text and in the report, so no table presents it as the book's.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from bench import data, jax_nets, jax_nets_deep, jax_nets_translate, lite_nets

MODES = ("quick", "cpu", "full")
PTB_WORDS = 2073  # len(imikolov.build_dict()) on the real PTB files
IMDB_WORDS = 5147  # len(imdb.word_dict()) on the real IMDB reviews
WMT_WORDS = 30000  # the book's dict_size for both languages
WINDOW = 100  # bucket_by_length's default buf_size: batches sorted together


@dataclasses.dataclass(frozen=True)
class Model:
    """One benchmarked model and how each side builds and feeds it."""

    key: str
    title: str
    batch: int
    steps: int  # batches per timed repetition (default)
    config: str  # the exact configuration measured
    shrunk: str  # what differs from the book ("" when nothing)
    samples: Callable[[int, np.random.Generator], list[Any]]
    lite: Callable[[], Any]  # () -> (cost, update_equation, feeding), paddle_lite
    jax: Callable[[], Any]  # () -> JaxNet
    torch: Callable[[Any], Any] | None  # (torch_nets module) -> TorchNet; None: no PyTorch row
    columns: Callable[..., dict[str, Any]]  # (samples, pad) -> numpy columns for references
    lite_columns: Callable[[list[Any]], dict[str, Any]]  # samples -> paddle_lite column batch
    sequence: bool = False
    images: bool = False  # a conv net: PyTorch also runs it channels_last
    bucketed: bool = False  # read through paddle.reader.bucket_by_length
    window: int = 0  # draw the pass from a bucket_by_length window of this many batches


def _dense_columns(group: list[Any], pad: Any = None) -> dict[str, Any]:
    return data.dense_columns(group)


def _named(names: list[str]) -> Callable[[list[Any]], dict[str, Any]]:
    """Column batches ``{data layer: array}`` for samples whose fields feed ``names``."""

    def columns(group: list[Any]) -> dict[str, Any]:
        fields = list(zip(*group, strict=True))
        out = {}
        for name, field in zip(names, fields, strict=True):
            first = field[0]
            if isinstance(first, np.ndarray):
                out[name] = np.stack(field)
            elif isinstance(first, list):
                out[name] = list(field)  # sequences: one list of ids per sample
            else:
                out[name] = np.asarray(field, np.int32)
        return out

    return columns


def _ngram_columns(group: list[Any], pad: Any = None) -> dict[str, Any]:
    return data.id_columns(group)


def _shrunk(*fields: tuple[str, Any, Any]) -> str:
    """``"name got (book: want)"`` for each ``(name, got, want)`` that differs."""
    return ", ".join(f"{name} {got} (book: {want})" for name, got, want in fields if got != want)


def _fit_a_line(mode: str) -> Model:
    return Model(
        key="fit_a_line",
        title="ch. 1 fit a line",
        batch=2,
        steps={"quick": 200, "cpu": 2000, "full": 2000}[mode],
        config="fc 13->1, square error, SGD lr 1e-3 (Momentum 0), batch 2",
        shrunk="",
        samples=data.regression,
        lite=lite_nets.fit_a_line,
        jax=jax_nets.fit_a_line,
        torch=lambda t: t.fit_a_line(),
        columns=_dense_columns,
        lite_columns=_named(["x", "y"]),
    )


def _tiny(mode: str) -> Model:
    """The per-step cost of the engine itself: a network whose arithmetic is nothing."""
    return Model(
        key="tiny",
        title="tiny fc 16->1 (per-step overhead)",
        batch=16,
        steps={"quick": 300, "cpu": 2000, "full": 2000}[mode],
        config="fc 16->1, square error, SGD lr 1e-3 (Momentum 0), batch 16 rows of 16 floats",
        shrunk="not a book model: the training loop's own cost per step",
        samples=functools.partial(data.regression, dim=16),
        lite=functools.partial(lite_nets.fit_a_line, 16),
        jax=functools.partial(jax_nets.fit_a_line, 16),
        torch=lambda t: t.fit_a_line(16),
        columns=_dense_columns,
        lite_columns=_named(["x", "y"]),
    )


def _digits(mode: str) -> list[Model]:
    digits = dict(
        batch=128,
        samples=functools.partial(data.classification, dim=784, classes=10),
        columns=_dense_columns,
        lite_columns=_named(["pixel", "label"]),
    )
    mlp = Model(
        key="mlp",
        title="ch. 2 MLP 784-128-64-10",
        steps={"quick": 100, "cpu": 400, "full": 800}[mode],
        config="784-128-64-10 ReLU/softmax, Momentum 0.9 lr 0.1/128 L2 0.0005*128, batch 128",
        shrunk="",
        lite=functools.partial(lite_nets.recognize_digits, "mlp"),
        jax=jax_nets.mlp,
        torch=lambda t: t.mlp(),
        **digits,
    )
    lenet_batch = {"quick": 16, "cpu": 128, "full": 128}[mode]
    lenet = Model(
        key="lenet",
        title="ch. 2 LeNet-5",
        steps={"quick": 8, "cpu": 16, "full": 400}[mode],
        config=f"conv5x5x20-pool2-conv5x5x50-pool2-fc10, Momentum as MLP, batch {lenet_batch}",
        shrunk=_shrunk(("batch", lenet_batch, 128)),
        lite=functools.partial(lite_nets.recognize_digits, "lenet"),
        jax=jax_nets.lenet,
        torch=lambda t: t.lenet(),
        images=True,
        **{**digits, "batch": lenet_batch},
    )
    return [mlp, lenet]


def _resnet(mode: str) -> Model:
    depth, batch = {"quick": (8, 8), "cpu": (32, 32), "full": (32, 128)}[mode]
    return Model(
        key="resnet",
        title=f"ch. 3 ResNet-{depth}, CIFAR shape",
        batch=batch,
        steps={"quick": 2, "cpu": 8, "full": 200}[mode],
        config=(
            f"resnet_cifar10 depth {depth} (NCHW 3x32x32, BN), fc 10; Momentum 0.9 "
            f"lr 0.1/128 discexp, L2 0.0002*128, batch {batch}"
        ),
        shrunk=_shrunk(("depth", depth, 32), ("batch", batch, 128)),
        samples=functools.partial(data.classification, dim=3 * 32 * 32, classes=10),
        lite=functools.partial(lite_nets.image_classification, depth),
        jax=functools.partial(jax_nets_deep.resnet, depth, batch),
        torch=lambda t: t.resnet(depth),
        images=True,
        columns=_dense_columns,
        lite_columns=_named(["image", "label"]),
    )


def _ngram(mode: str) -> Model:
    return Model(
        key="ngram",
        title="ch. 4 N-gram (word2vec)",
        batch=32,
        steps={"quick": 40, "cpu": 400, "full": 800}[mode],
        config=(
            f"5-gram, dict {PTB_WORDS}, shared embedding 32, fc 256 sigmoid dropout 0.5, "
            f"fc {PTB_WORDS} softmax; AdaGrad lr 3e-3 L2 8e-4, bias lr x2, batch 32"
        ),
        shrunk="",
        samples=functools.partial(data.ngrams, dict_size=PTB_WORDS),
        lite=functools.partial(lite_nets.word2vec, PTB_WORDS),
        jax=functools.partial(jax_nets_deep.ngram, PTB_WORDS),
        torch=lambda t: t.ngram(PTB_WORDS),
        columns=_ngram_columns,
        lite_columns=_named(["firstw", "secondw", "thirdw", "fourthw", "fifthw"]),
    )


def _lstm_sizes(mode: str) -> tuple[int, int, int]:
    """``(emb_dim, hid_dim, batch)``: the book's 128, 512 (LSTM 128) and 100 in full mode."""
    return {"quick": (16, 32, 8), "cpu": (32, 128, 32), "full": (128, 512, 100)}[mode]


def _seq_samples(lengths: Callable[..., Any]) -> Callable[[int, np.random.Generator], list[Any]]:
    def samples(n: int, rng: np.random.Generator) -> list[Any]:
        return data.reviews(lengths(n, rng), rng, IMDB_WORDS)

    return samples


def _lstm(mode: str, key: str, lengths: str, bucketed: bool = False) -> Model:
    emb, hid, batch = _lstm_sizes(mode)
    long_tail = lengths == "longtail"
    title = "ch. 6 stacked LSTM, " + ("IMDB-like lengths" if long_tail else "lengths 20..200")
    reader = "paddle.batch"
    if bucketed:
        title += ", bucket_by_length"
        reader = f"paddle.reader.bucket_by_length(batch_size, buf_size={WINDOW})"
    length_text = "uniform 20..200"
    if long_tail:
        length_text = (
            f"lognormal median 174 sigma 0.75 in 10..2500; the pass's samples are those of "
            f"the first batches bucket_by_length makes of {WINDOW} batches' worth"
        )
    return Model(
        key=key,
        title=title,
        batch=batch,
        steps={"quick": 2, "cpu": 16, "full": 40}[mode],
        config=(
            f"stacked_lstm_net 3 levels, dict {IMDB_WORDS}, emb {emb}, fc {hid} / LSTM "
            f"{hid // 4} (ReLU, peepholes); Adam lr 2e-3 + ModelAverage 0.5; batch {batch}; "
            f"lengths {length_text}; reader {reader}"
        ),
        shrunk=_shrunk(("emb_dim", emb, 128), ("hid_dim", hid, 512), ("batch", batch, 100)),
        samples=_seq_samples(data.longtail_lengths if long_tail else data.uniform_lengths),
        lite=functools.partial(lite_nets.understand_sentiment, IMDB_WORDS, emb, hid),
        jax=functools.partial(jax_nets_deep.stacked_lstm, IMDB_WORDS, emb, hid),
        torch=lambda t: t.stacked_lstm(IMDB_WORDS, emb, hid),
        columns=data.sequence_columns,
        lite_columns=_named(["word", "label"]),
        sequence=True,
        bucketed=bucketed,
        window=WINDOW if long_tail else 0,
    )


def _translate(mode: str) -> Model:
    dim, words, lo, hi = {
        "quick": (16, 1000, 4, 12),
        "cpu": (128, WMT_WORDS, 20, 40),
        "full": (512, WMT_WORDS, 20, 40),
    }[mode]
    return Model(
        key="seq2seq",
        title="ch. 8 attention GRU encoder-decoder",
        batch=4,
        steps={"quick": 2, "cpu": 16, "full": 100}[mode],
        config=(
            f"seq_to_seq_net training: dict {words}, embedding / encoder / decoder {dim}, "
            f"bidirectional GRU encoder, GRU decoder with attention, softmax {words}; "
            f"Adam lr 5e-5; batch 4; source and target lengths uniform {lo}..{hi} (+ <s>/<e>)"
        ),
        shrunk=_shrunk(("widths", dim, 512), ("dict", words, WMT_WORDS)),
        samples=functools.partial(data.translations, dict_size=words, lo=lo, hi=hi),
        lite=functools.partial(lite_nets.machine_translation, words, dim),
        jax=functools.partial(jax_nets_translate.seq2seq, words, dim, dim, dim),
        torch=None,
        columns=data.translation_columns,
        lite_columns=_named(
            ["source_language_word", "target_language_word", "target_language_next_word"]
        ),
        sequence=True,
    )


def registry(mode: str) -> dict[str, Model]:
    """Every model of ``mode`` (one of :data:`MODES`) by key, in report order."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; received {mode!r}.")
    models = [_tiny(mode), _fit_a_line(mode), *_digits(mode), _resnet(mode), _ngram(mode)]
    models += [
        _lstm(mode, "lstm", "uniform"),
        _lstm(mode, "lstm_imdb", "longtail"),
        _lstm(mode, "lstm_imdb_bucketed", "longtail", bucketed=True),
        _translate(mode),
    ]
    return {m.key: m for m in models}
