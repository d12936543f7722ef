"""Typed exceptions. Each subclasses the builtin a v2 program would catch."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class PaddleLiteError(Exception):
    """Base class of every error paddle_lite raises on purpose."""


class LayerConfigError(PaddleLiteError, ValueError):
    """A layer was configured with a bad value (size, shape, attribute)."""


class LayerTypeError(PaddleLiteError, TypeError):
    """A layer received an argument of the wrong type or an unknown keyword."""


class TopologyError(PaddleLiteError, ValueError):
    """A topology is malformed: unknown inputs, duplicate names, bad outputs."""


class ParameterError(PaddleLiteError, ValueError):
    """A parameter is missing, declared twice inconsistently, or has a bad value."""


class DataError(PaddleLiteError, ValueError):
    """A data sample or data file does not match what was declared."""


class ArgumentTypeError(PaddleLiteError, TypeError):
    """A trainer, inference or parameter function received an argument of the wrong kind
    (``parameters=None``, a layer where ``Parameters`` belong, ...)."""


class MissingDependencyError(PaddleLiteError, ImportError):
    """An optional package a feature needs is not installed; the message says which
    ``pip install`` command adds it."""


class ConfigError(PaddleLiteError, ValueError):
    """A global setting (``paddle.init``, environment variables) is invalid."""


class TrainerBusyError(PaddleLiteError, RuntimeError):
    """A trainer was asked to ``train`` while one of its ``train`` calls is running (from
    inside an event handler): train() is not re-entrant; ``test`` and saving are."""


class ReaderError(PaddleLiteError, RuntimeError):
    """A user's reader raised while training or testing read it; the reader's own
    exception (with its traceback) is the ``__cause__``."""


class MasterError(PaddleLiteError, RuntimeError):
    """``paddle.master.client`` could not reach etcd, lost its lease, or could not set the
    data set; the message names the endpoints or keys and what to check."""


class LayerConfigWarning(UserWarning):
    """A layer v2 built but could not run (e.g. ``block_expand`` with its default
    ``block_y=0``): it is built and parsed as in v2, and compiling or running it raises
    [`LayerConfigError`][paddle_lite.errors.LayerConfigError]."""


class DataWarning(UserWarning):
    """Suspicious data that is not an error, e.g. a reader that yielded no batch in a pass."""


class CostWarning(UserWarning):
    """A layer passed as ``cost=`` does not look like a cost (v2 trained it all the same)."""


class TrainingWarning(UserWarning):
    """A training call that does something surprising, e.g. one that trains nothing."""


class OptimizerWarning(UserWarning):
    """An optimizer setting v2 accepted that is almost surely a mistake (``beta1=1``,
    ``momentum=1.5``, a negative learning rate): it is kept, as in v2."""


class ParameterWarning(UserWarning):
    """Parameters a load left alone, e.g. those of the network a tar does not hold."""


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return a ``" Did you mean 'x'?"`` suffix, or an empty string."""
    close = difflib.get_close_matches(name, list(candidates), n=1)
    return f" Did you mean '{close[0]}'?" if close else ""


class NonFiniteError(PaddleLiteError, FloatingPointError):
    """A training step's cost, gradients or update were not finite (NaN or infinity)."""


class V1ConfigError(PaddleLiteError, NotImplementedError):
    """A name of PaddlePaddle's v1 config API (``paddle.trainer_config_helpers``,
    ``paddle.trainer.PyDataProvider2``: ``settings``, ``outputs``, ``data_layer``,
    ``@provider``, ...) that paddle.v2 programs had no use for: the message says what it
    was and what a v2 program writes instead."""


class InstalledPaddleError(PaddleLiteError, ImportError):
    """``install_v2_imports`` (or ``python -m paddle_lite.v2``) found a real PaddlePaddle
    importable as ``paddle``, which the v2 imports would hide; the message names both."""
