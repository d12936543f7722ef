"""Names of earlier v2 versions that later ones renamed: each still works, with a
``DeprecationWarning`` naming the new one.

Programs written against the v2 of 2017 use names v2 changed before its last release;
the table below lists each (the public module, the old name, the name now, and where
PaddlePaddle/Paddle recorded the rename). The public modules serve them from their module
``__getattr__`` (``aliases.module_getattr``), so they are not in ``__all__`` and reading
one warns once per place in the program. Renamed *arguments* (``reader_dict=``,
``output=``) go through ``arg_checks.renamed``, which warns the same way.
"""

from __future__ import annotations

import dataclasses
import importlib
import warnings
from typing import Any

from paddle_lite._src.tracebacks import user_stacklevel


@dataclasses.dataclass(frozen=True)
class Renamed:
    """``paddle.<module>.<old>``, renamed ``<new>`` (a ``paddle.``-rooted path) ``when``."""

    module: str
    old: str
    new: str
    when: str

    def target(self) -> Any:
        """The object the new name gives (paddle_lite's, for ``paddle.`` paths)."""
        module, _, name = f"paddle_lite.{self.new[len('paddle.') :]}".rpartition(".")
        return getattr(importlib.import_module(module), name)


RENAMED: tuple[Renamed, ...] = (
    Renamed("layer", "mse_cost", "paddle.layer.square_error_cost",
            "v2 0.10's name; renamed in Sep 2017, PaddlePaddle PR #3845"),
    Renamed("layer", "huber_cost", "paddle.layer.huber_classification_cost",
            "v2 0.10's name; v2 0.11 split it into huber_classification_cost and "
            "huber_regression_cost"),
    Renamed("layer", "kmax_sequence_score", "paddle.layer.kmax_seq_score",
            "2017's name; v2 0.11 released it as kmax_seq_score (PaddlePaddle issue #6830)"),
    Renamed("layer", "StaticInputV2", "paddle.layer.StaticInput",
            "the class of v2 0.10's paddle/v2/layer.py; v2 0.11 took v1's StaticInput"),
    Renamed("layer", "GeneratedInputV2", "paddle.layer.GeneratedInput",
            "the class of v2 0.10's paddle/v2/layer.py; v2 0.11 took v1's GeneratedInput"),
    Renamed("layer", "BaseGeneratedInputV2", "paddle.layer.BaseGeneratedInput",
            "the class of v2 0.10's paddle/v2/layer.py; v2 0.11 took v1's "
            "BaseGeneratedInput"),
    Renamed("data_type", "sparse_vector", "paddle.data_type.sparse_float_vector",
            "PyDataProvider2's name until Oct 2017, PaddlePaddle PR #4968"),
    Renamed("data_type", "sparse_vector_sequence",
            "paddle.data_type.sparse_float_vector_sequence",
            "PyDataProvider2's name until Oct 2017, PaddlePaddle PR #4968"),
    Renamed("data_type", "sparse_vector_sub_sequence",
            "paddle.data_type.sparse_float_vector_sub_sequence",
            "PyDataProvider2's name until Oct 2017, PaddlePaddle PR #4968"),
    Renamed("reader", "batched", "paddle.batch",
            "Feb 2017's name; moved to paddle.batch in Mar 2017, PaddlePaddle PR #1537"),
    Renamed("reader.decorator", "batched", "paddle.batch",
            "Feb 2017's name; moved to paddle.batch in Mar 2017, PaddlePaddle PR #1537"),
    Renamed("reader", "shuffled", "paddle.reader.shuffle",
            "Mar 2017's name; renamed shuffle, PaddlePaddle issue #1582"),
    Renamed("reader.decorator", "shuffled", "paddle.reader.shuffle",
            "Mar 2017's name; renamed shuffle, PaddlePaddle issue #1582"),
    Renamed("dataset.mnist", "train_creator", "paddle.dataset.mnist.train",
            "Feb 2017's name; renamed train, PaddlePaddle PR #1476"),
    Renamed("dataset.mnist", "test_creator", "paddle.dataset.mnist.test",
            "Feb 2017's name; renamed test, PaddlePaddle PR #1476"),
)  # fmt: skip

# Renamed arguments: (the name now, when).
ARGUMENTS = {
    "reader_dict": (
        "feeding",
        "Feb 2017's name in train, test and infer; renamed feeding in Mar 2017, "
        "PaddlePaddle PR #1564",
    ),
    "output": (
        "output_layer",
        "Mar 2017's name in paddle/v2/inference.py's infer and Inference",
    ),
    "reader": (
        "input",
        "Mar 2017's paddle.infer read a reader; it takes the samples as input= since "
        "PaddlePaddle issue #1531",
    ),
}

BY_MODULE: dict[str, dict[str, Renamed]] = {}
for _entry in RENAMED:
    BY_MODULE.setdefault(_entry.module, {})[_entry.old] = _entry


def warn_renamed(old: str, new: str, when: str) -> None:
    """A ``DeprecationWarning`` at the user's line: ``old`` is now ``new``."""
    warnings.warn(
        f"{old} is from an earlier v2 ({when}); it works as {new}, which is what to "
        "write now.",
        DeprecationWarning,
        stacklevel=user_stacklevel(),
    )


def resolve(entry: Renamed) -> Any:
    """The object ``entry``'s old name gives, after the warning."""
    warn_renamed(f"paddle.{entry.module}.{entry.old}", entry.new, entry.when)
    return entry.target()
