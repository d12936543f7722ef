"""Descriptors of the recurrent-group and generation layers for the layer table test."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.values import Seq

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(17)
LENGTHS = np.array([4, 1, 3], np.int32)


def _seq(width, name="x"):
    x = L.data(name=name, type=DT.dense_vector_sequence(width))
    return x, Seq(RNG.normal(size=(3, 4, width)).astype(np.float32), LENGTHS)


def _recurrent_group():
    x, fx = _seq(3)
    ctx = L.data(name="ctx", type=DT.dense_vector(2))

    def step(y, c):
        mem = L.memory(name="h", size=4)
        return L.fc(input=[y, mem, c], size=4, name="h")

    out = L.recurrent_group(step=step, input=[x, L.StaticInput(input=ctx)], reverse=True)
    return out, {"x": fx, "ctx": RNG.normal(size=(3, 2)).astype(np.float32)}


def _memory():
    x, fx = _seq(3)

    def step(y):
        mem = L.memory(name="h", size=4, boot_bias=paddle.attr.Param(initial_std=0.5))
        return L.fc(input=[y, mem], size=4, name="h")

    return L.recurrent_group(step=step, input=x), {"x": fx}


def _lstm_parts():
    x, fx = _seq(8)

    def step(y):
        h_mem, c_mem = L.memory(name="lstm", size=2), L.memory(name="lstm_c", size=2)
        gates = L.mixed(
            size=8, input=[L.identity_projection(input=y), L.full_matrix_projection(input=h_mem)]
        )
        h = L.lstm_step(name="lstm", input=gates, state=c_mem)
        return [h, L.get_output(name="lstm_c", input=h, arg_name="state")]

    h, c = L.recurrent_group(step=step, input=x)
    return h, c, {"x": fx}


def _lstm_step():
    h, _, feeds = _lstm_parts()
    return h, feeds


def _get_output():
    _, c, feeds = _lstm_parts()
    return c, feeds


def _gru(step_fn):
    x, fx = _seq(6)

    def step(y):
        return step_fn(name="g", input=y, output_mem=L.memory(name="g", size=2))

    return L.recurrent_group(step=step, input=x), {"x": fx}


def _beam_search():
    ctx = L.data(name="ctx", type=DT.dense_vector(3))
    boot = L.fc(input=ctx, size=4)

    def step(c, word):
        mem = L.memory(name="s", size=4, boot_layer=boot)
        s = L.fc(input=[c, word, mem], size=4, name="s")
        return L.fc(input=s, size=6, act=A.Softmax())

    word = L.GeneratedInput(size=6, embedding_name="trg_emb", embedding_size=3)
    gen = L.beam_search(
        step=step,
        input=[L.StaticInput(input=ctx), word],
        bos_id=0,
        eos_id=1,
        beam_size=2,
        max_length=5,
    )
    return gen, {"ctx": RNG.normal(size=(3, 3)).astype(np.float32)}


def _eos():
    ids = L.data(name="ids", type=DT.integer_value_sequence(5))
    value = Seq(RNG.integers(0, 5, size=(3, 4)).astype(np.int32), LENGTHS)
    return L.eos(input=ids, eos_id=2), {"ids": value}


def _sampling_id():
    p = L.data(name="p", type=DT.dense_vector(4))
    probs = RNG.dirichlet(np.ones(4), size=3).astype(np.float32)
    return L.sampling_id(input=p), {"p": probs}


DESCRIPTORS = [
    {"name": "recurrent_group", "build": _recurrent_group, "shape": (3, 4, 4)},
    {"name": "memory", "build": _memory, "shape": (3, 4, 4)},
    {"name": "lstm_step", "build": _lstm_step, "shape": (3, 4, 2)},
    {"name": "get_output", "build": _get_output, "shape": (3, 4, 2)},
    {"name": "gru_step", "build": lambda: _gru(L.gru_step), "shape": (3, 4, 2)},
    {"name": "gru_step_naive", "build": lambda: _gru(L.gru_step_naive), "shape": (3, 4, 2)},
    {"name": "beam_search", "build": _beam_search, "shape": (3, 2, 5)},
    {"name": "eos", "build": _eos, "shape": (3, 4)},
    {"name": "sampling_id", "build": _sampling_id, "shape": (3,)},
]
