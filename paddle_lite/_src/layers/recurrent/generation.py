"""Sequence generation: ``GeneratedInput``, ``beam_search``, ``eos`` and ``sampling_id``.

``beam_search`` defines its step like ``recurrent_group`` (same layer and parameter
names, so a generator built with the training network's step function and group
name uses the trained parameters), adding v2's generation layers around it: a memory
``__beam_search_predict__`` of the previous word (booted with ``bos_id``), its
embedding through the shared table ``embedding_name``, and a ``max_id`` of the
step's first output named ``__beam_search_predict__``. The search itself
(``beam_search``) is one ``lax.while_loop``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paddle_lite._src.attrs import ExtraAttr, ParamAttr
from paddle_lite._src.errors import LayerConfigError, LayerTypeError
from paddle_lite._src.graph import Layer, qualified_name
from paddle_lite._src.initializers import name_key
from paddle_lite._src.kinds import Kind, register_kind
from paddle_lite._src.layers import base
from paddle_lite._src.layers.embedding import embedding
from paddle_lite._src.layers.math.basic import max_id
from paddle_lite._src.layers.recurrent.beam_search import BeamResult, search
from paddle_lite._src.layers.recurrent.group import (
    StepGraphKind,
    boot_memories,
    group_layer,
    split_inputs,
)
from paddle_lite._src.layers.recurrent.memory import StaticInput, base_name, define_step, memory
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import data_of, with_data

PREDICT = "__beam_search_predict__"


class BaseGeneratedInput:
    """The input of a generating group that is fed back from its own output."""

    def __init__(self) -> None:
        self.bos_id: int | None = None
        self.eos_id: int | None = None

    def before_real_step(self) -> Layer:
        """The layer fed to the step function in place of this input."""
        raise NotImplementedError

    def after_real_step(self, *args: Any) -> list[Layer]:
        """The layers the step's outputs become (the generated id first)."""
        raise NotImplementedError


class GeneratedInput(BaseGeneratedInput):
    """The embedding of the previously generated word (v2's ``GeneratedInput``).

    Args:
        size: the target dictionary size.
        embedding_name: the name of the target embedding table, shared with training.
        embedding_size: the width of that table.

    Example:
        >>> word = paddle.layer.GeneratedInput(size=30000,
        ...                                    embedding_name="_target_language_embedding",
        ...                                    embedding_size=512)
    """

    def __init__(self, size: int, embedding_name: str, embedding_size: int) -> None:
        super().__init__()
        self.size = base.positive_int(size, layer="GeneratedInput", arg="size")
        self.embedding_name = embedding_name
        self.embedding_size = base.positive_int(
            embedding_size, layer="GeneratedInput", arg="embedding_size"
        )

    def before_real_step(self) -> Layer:
        """The embedding of the previous generated id (``bos_id`` at the first step)."""
        predict = memory(name=PREDICT, size=self.size, boot_with_const_id=self.bos_id)
        return embedding(
            input=predict,
            size=self.embedding_size,
            param_attr=ParamAttr(name=self.embedding_name),
        )

    def after_real_step(self, input: Any) -> list[Layer]:
        """The step's output and its arg-max id, which the next step reads back."""
        outs = list(input) if isinstance(input, (list, tuple)) else [input]
        return [max_id(input=outs[0], name=PREDICT), *outs[1:]]


# eos / sampling_id -------------------------------------------------------------------
class EosKind(Kind):
    name = "eos_id"

    def infer_spec(self, inputs, attrs):
        if inputs[0].dtype != "int32":
            raise LayerConfigError(f"input must hold ids; received {inputs[0].dtype} values.")
        return Spec(2, "int32", inputs[0].seq_level)

    def apply(self, params, inputs, attrs, *, key, mode):
        ids = data_of(inputs[0])
        return with_data(inputs[0], (ids == attrs["eos_id"]).astype(jnp.int32))


class SamplingIdKind(Kind):
    name = "sampling_id"

    def infer_spec(self, inputs, attrs):
        if inputs[0].dtype != "float32":
            raise LayerConfigError(f"input must hold probabilities; got {inputs[0].dtype}.")
        return Spec(inputs[0].size, "int32", inputs[0].seq_level)

    def apply(self, params, inputs, attrs, *, key, mode):
        probs = data_of(inputs[0])
        if key is None:  # inference passes no key: a fixed stream per layer
            key = name_key(jax.random.PRNGKey(0), attrs["stream"])
        # v2's draw: r ~ U[0, 1), the first j with p_0 + ... + p_j > r, else the last
        # id (the rows are not normalized: a sum below 1 leaves the rest to the last id)
        r = jax.random.uniform(key, (*probs.shape[:-1], 1), dtype=probs.dtype)
        past = jnp.cumsum(probs, axis=-1) > r
        ids = jnp.where(past.any(axis=-1), jnp.argmax(past, axis=-1), probs.shape[-1] - 1)
        return with_data(inputs[0], ids.astype(jnp.int32))


register_kind(EosKind())
register_kind(SamplingIdKind())


@base.layer_function
def eos(
    input: Layer,
    eos_id: int,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """Mark the end-of-sequence ids: ``out = [id == eos_id]`` (v2's ``eos_layer``).

    ``beam_search`` adds one, ``__<group>_eos_layer__``, after its step (as v2 did).

    Args:
        input: an integer-id layer (or id sequence).
        eos_id: the id that ends a sequence.
        name: the layer name (default ``__eos_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An int32 id layer of the input's shape, 1 where the id is ``eos_id`` and 0
        elsewhere; its size is 2, the range of a boolean id (v2's).

    Example:
        >>> done = paddle.layer.eos(input=word, eos_id=1)
        >>> done.size
        2
    """
    name = base.layer_name(name, "eos_layer")
    inp = base.as_layer(input, layer=name, arg="input")
    if isinstance(eos_id, bool) or not isinstance(eos_id, int):
        raise LayerTypeError(f"layer '{name}': eos_id must be an int; received {eos_id!r}.")
    attrs = {
        "eos_id": eos_id,
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("eos_id", name=name, inputs=[inp], attrs=attrs)


@base.layer_function
def sampling_id(
    input: Layer,
    name: str | None = None,
    layer_attr: ExtraAttr | None = None,
) -> Layer:
    """An id drawn from each row's distribution: ``id ~ Categorical(p)``,
    ``P(id = j) = p_j``.

    As v2 draws it: ``r ~ U[0, 1)`` and the first ``j`` with ``p_0 + ... + p_j > r``,
    else the last id. A row is not normalized: whatever its sum leaves below 1 goes to
    the last id.

    In training the draw follows the step's PRNG key; in inference (no key) each layer
    draws from a fixed stream, so repeated calls give the same ids.

    Args:
        input: a dense layer (or sequence) of probabilities, e.g. a softmax output.
        name: the layer name (default ``__sampling_id_layer_<n>__``).
        layer_attr: ``Extra(device=...)`` only.

    Returns:
        An int32 id layer (one id per sample or step) of range ``input.size``.

    Example:
        >>> drawn = paddle.layer.sampling_id(input=prob)
        >>> drawn.size
        10
    """
    name = base.layer_name(name, "sampling_id_layer")
    inp = base.as_layer(input, layer=name, arg="input")
    attrs = {
        "stream": name,
        **base.extra_fields(layer_attr, layer=name, supported=base.DEVICE_ONLY),
    }
    return base.build("sampling_id", name=name, inputs=[inp], attrs=attrs)


# beam_search ----------------------------------------------------------------------
class BeamSearchKind(StepGraphKind):
    """The generating group: its value is a ``BeamResult``."""

    name = "beam_search"

    def infer_spec(self, inputs, attrs):
        return Spec(attrs["size"], "int32", 1)

    def apply(self, params, inputs, attrs, *, key, mode):
        graph = attrs["step"]
        params = {name: jnp.asarray(value) for name, value in params.items()}
        _, env, boots = split_inputs(graph, list(inputs))
        batch = jax.tree_util.tree_leaves(list(inputs))[0].shape[0]
        mems = boot_memories(graph, params, boots, batch)
        return search(graph, params, env, mems, batch, attrs["search"])


class BeamOutputKind(Kind):
    """The generated ids (v2's ``__beam_search_predict__`` out-link)."""

    name = "beam_output"

    def infer_spec(self, inputs, attrs):
        return inputs[0]

    def apply(self, params, inputs, attrs, *, key, mode):
        return inputs[0]


register_kind(BeamSearchKind())
register_kind(BeamOutputKind())


def _split_inputs(name: str, input: Any) -> tuple[list[Any], int, BaseGeneratedInput]:
    items = list(input) if isinstance(input, (list, tuple)) else [input]
    real, found = [], []
    for i, item in enumerate(items):
        if isinstance(item, BaseGeneratedInput):
            found.append(i)
        elif isinstance(item, Layer):
            raise LayerTypeError(
                f"beam_search '{name}': inputs must be StaticInput or GeneratedInput (none a "
                f"layer); input {i} is {item!r}."
            )
        else:  # StaticInput, or a plain value passed to the step as it is (as in v2)
            real.append(item)
    if len(found) != 1:
        raise LayerConfigError(
            f"beam_search '{name}' needs exactly one GeneratedInput among its inputs; "
            f"received {len(found)}."
        )
    return real, found[0], items[found[0]]


def _search_spec(graph, group, beam_size, eos_id, max_length, num_results) -> dict[str, Any]:
    predict = f"{PREDICT}@{group}"
    predict_memory = next(m.name for m in graph.memories if m.target == predict)
    return {
        "beam_size": beam_size,
        "eos_id": eos_id,
        "max_length": max_length,
        "num_results": num_results,
        "prob": graph.node(predict).inputs[0].name,
        "predict_memory": predict_memory,
        "links": tuple((m.name, m.target) for m in graph.memories if m.name != predict_memory),
    }


@base.layer_function
def beam_search(
    step: Callable[..., Layer | Sequence[Layer]],
    input: Sequence[StaticInput | BaseGeneratedInput],
    bos_id: int,
    eos_id: int,
    beam_size: int,
    max_length: int = 500,
    name: str | None = None,
    num_results_per_sample: int | None = None,
) -> Layer:
    """Generate sequences with ``step`` by beam search (v2's ``beam_search``).

    ``step`` is the training decoder's step function: it receives the
    ``StaticInput`` values and, in place of the ``GeneratedInput``, the embedding of
    the previous word (``bos_id`` first). Its first output is the next word's
    probability distribution. Each source keeps the ``beam_size`` best partial
    sequences by ``sum log p``; a sequence ends with ``eos_id`` or at ``max_length``
    words. The whole search is one compiled ``lax.while_loop``; it stops early
    once every source is done.

    Args:
        step: the step function (the same one ``recurrent_group`` trained).
        input: ``StaticInput`` objects and exactly one ``GeneratedInput``; other items
            that are not layers reach ``step`` as they are, in their positions.
        bos_id: the id fed before the first word.
        eos_id: the id that ends a sequence.
        beam_size: paths kept per source.
        max_length: the most words a result has (``eos`` included).
        name: the group's name: give the training group's name so the step's layers,
            hence parameters, are named alike (default ``__beam_search_<n>__``).
        num_results_per_sample: results per source (default ``beam_size``).

    Returns:
        The generated ids: an int32 id sequence layer whose size is that of the step's
        first output (the dictionary). ``paddle.infer(..., field=['prob', 'id'])``
        gives v2's layout: ``prob`` ``[sources, num_results]`` log probabilities and
        ``id`` each result as ``[length, word ids..., -1]`` (only the best result's
        words, without length and ``-1``, when ``num_results_per_sample`` is 1).

    Example:
        >>> enc = paddle.layer.last_seq(input=emb)
        >>> def decoder_step(enc_vec, cur_word):
        ...     state = paddle.layer.memory(name="decoder", size=16, boot_layer=enc)
        ...     h = paddle.layer.fc(input=[enc_vec, cur_word, state], size=16,
        ...                         name="decoder")
        ...     return paddle.layer.fc(input=h, size=100, act=paddle.activation.Softmax())
        >>> trg = paddle.layer.embedding(input=word, size=16,
        ...                              param_attr=paddle.attr.Param(name="trg_emb"))
        >>> train = paddle.layer.recurrent_group(
        ...     name="decoder", step=decoder_step,
        ...     input=[paddle.layer.StaticInput(input=enc), trg])
        >>> gen = paddle.layer.beam_search(
        ...     name="decoder", step=decoder_step,
        ...     input=[paddle.layer.StaticInput(input=enc),
        ...            paddle.layer.GeneratedInput(size=100, embedding_name="trg_emb",
        ...                                        embedding_size=16)],
        ...     bos_id=0, eos_id=1, beam_size=3, max_length=20)
        >>> gen.size
        100
    """
    name = base.layer_name(name, "beam_search")
    beam_size = base.positive_int(beam_size, layer=name, arg="beam_size")
    max_length = base.positive_int(max_length, layer=name, arg="max_length")
    num_results = beam_size if num_results_per_sample is None else num_results_per_sample
    num_results = base.positive_int(num_results, layer=name, arg="num_results_per_sample")
    if num_results > beam_size:
        raise LayerConfigError(
            f"beam_search '{name}': num_results_per_sample ({num_results}) must not exceed "
            f"beam_size ({beam_size})."
        )
    real, index, generated = _split_inputs(name, input)
    generated.bos_id, generated.eos_id = bos_id, eos_id

    def real_step(*args: Layer) -> list[Layer]:
        args_list = list(args)
        args_list.insert(index, generated.before_real_step())
        predict = generated.after_real_step(step(*args_list))
        eos(input=predict[0], eos_id=eos_id, name=f"__{name}_eos_layer__")
        return predict

    group = qualified_name(name)
    graph, inputs, outs = define_step(group, real_step, real)
    if not inputs:
        raise LayerConfigError(
            f"beam_search '{name}' needs a StaticInput or a memory booted from a layer "
            "outside the step: they decide how many sequences to generate."
        )
    attrs = {
        "size": outs[0].size,
        "search": _search_spec(graph, group, beam_size, eos_id, max_length, num_results),
    }
    node = group_layer("beam_search", group, graph, inputs, attrs)
    return base.build("beam_output", name=base_name(outs[0].name), inputs=[node], attrs={})


# v2's infer layout ------------------------------------------------------------------
def beam_fields(result: BeamResult) -> dict[str, Any]:
    """``{'id', 'prob', 'value'}`` of generated sequences in v2's layout (numpy)."""
    ids, lengths = np.asarray(result.ids), np.asarray(result.lengths)
    scores, words = np.asarray(result.scores), np.asarray(result.word_scores)
    flat_ids: list[int] = []
    flat_words: list[float] = []
    single = ids.shape[1] == 1
    for i in range(ids.shape[0]):
        for j in range(ids.shape[1]):
            n = int(lengths[i, j])
            if n == 0:
                continue
            if single:
                flat_ids += ids[i, j, :n].tolist()
                flat_words += words[i, j, :n].tolist()
            else:
                flat_ids += [n, *ids[i, j, :n].tolist(), -1]
                flat_words += [*words[i, j, :n].tolist(), -1.0]
    return {
        "id": np.asarray(flat_ids, np.int32),
        "prob": scores,
        "value": np.asarray(flat_words, np.float32)[:, None],
    }
