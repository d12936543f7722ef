"""Global settings made by ``paddle.init(...)``: the seed, the device, v2 flags.

v2's ``init`` turned every keyword into a command-line flag of its C++ core and
also read ``PADDLE_INIT_<NAME>`` environment variables (explicit keywords win).
The same flags are accepted here (``paddle_lite._src.compat.flags`` lists them);
``use_gpu``, ``trainer_count`` and ``seed`` take effect, the distributed ones are
kept for the trainer, and the rest are accepted for compatibility and recorded.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any

from paddle_lite._src.compat.flags import BOOL, BUCKETS, FLAGS, FLOAT, INT, PRECISION
from paddle_lite._src.distributed import parallel as distributed
from paddle_lite._src.errors import ConfigError, TrainingWarning, did_you_mean
from paddle_lite._src.feeding import buckets
from paddle_lite._src.lowering import precision
from paddle_lite._src.tracebacks import api_boundary, user_stacklevel

_SETTINGS: dict[str, Any] = {}


def get(name: str, default: Any = None) -> Any:
    """The value of setting ``name``, or ``default`` when it was never set."""
    return _SETTINGS.get(name, default)


def default_seed() -> int:
    """The seed parameters are initialised from when none is given (0 unless set)."""
    return int(_SETTINGS.get("seed") or 0)


def _convert(name: str, value: Any, source: str) -> Any:
    kind = FLAGS[name]
    if kind == PRECISION:
        return precision.check(value)
    if kind == BUCKETS:
        return _seq_buckets(value, source)
    try:
        if kind == BOOL:
            return _to_bool(value)
        if kind == INT:
            return _to_int(value)
        if kind == FLOAT:
            return float(value)
        return str(value)
    except (TypeError, ValueError, OverflowError):
        article = "an" if kind == INT else "a"
        raise ConfigError(
            f"{source}: flag '{name}' expects {article} {kind}; received {value!r}."
        ) from None


_TRUE, _FALSE = ("1", "t", "true", "y", "yes"), ("0", "f", "false", "n", "no", "")


def _to_bool(value: Any) -> bool:
    """A bool as gflags read one from text: 1/t/true/y/yes or 0/f/false/n/no, any case."""
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered not in _TRUE + _FALSE:
            raise ValueError(value)
        return lowered in _TRUE
    return bool(value)


def _to_int(value: Any) -> int:
    """An int as gflags read one (decimal, or hex after ``0x``); a bool or a fraction is
    refused rather than truncated."""
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, str):
        text = value.strip()
        return int(text, 16) if text[:2].lower() == "0x" else int(text)
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(value)
    return int(value)


def _seq_buckets(value: Any, source: str) -> Any:
    """A ``seq_buckets`` value, checked; from the environment: ``16`` or ``32,64,128``."""
    if isinstance(value, str) and value not in ("default", "pow2"):
        try:
            parts = [int(p) for p in value.split(",")]
        except ValueError:
            raise ConfigError(
                f"{source}: seq_buckets {value!r} is not 'default', 'pow2', an int or "
                "comma-separated ints."
            ) from None
        value = parts[0] if len(parts) == 1 else parts
    buckets.make_policy(value)
    return value


def _check_name(name: str, source: str, keyword: bool = True) -> None:
    if keyword and name == "parallel_nn":
        raise ConfigError(f"{source}: parallel_nn is not supported (v2 refused it too).")
    if name not in FLAGS:
        raise ConfigError(
            f"{source}: unknown flag '{name}'; paddle.init takes the flags v2's C++ core "
            "defined (the table in paddle_lite/_src/compat/flags.py) and paddle_lite's own "
            "(precision, seq_buckets, ...)." + did_you_mean(name, FLAGS)
        )


def env_flags(environ: Mapping[str, str]) -> dict[str, Any]:
    """Flags given as ``PADDLE_INIT_<NAME>`` environment variables."""
    flags = {}
    for key, value in environ.items():
        if key.startswith("PADDLE_INIT_"):
            name = key[len("PADDLE_INIT_") :].lower()
            _check_name(name, f"environment variable {key}", keyword=False)
            flags[name] = _convert(name, value, f"environment variable {key}")
            if name == "parallel_nn":
                # v2 refused parallel_nn only as a keyword; from here it reached gflags
                warnings.warn(
                    f"environment variable {key}: parallel_nn has no effect in paddle_lite.",
                    TrainingWarning,
                    stacklevel=user_stacklevel(),
                )
    return flags


@api_boundary
def init(**kwargs: Any) -> dict[str, Any]:
    """Configure paddle_lite (v2 ``paddle.init``); returns the settings in force.

    Args:
        **kwargs: the flags below, or any other v2 flag; ``PADDLE_INIT_<NAME>``
            environment variables supply flags too, and explicit keywords override them.

    Other Parameters:
        use_gpu (bool): run on the GPU (on the CPU, with a ``TrainingWarning``, when JAX
            sees none). Default ``False``.
        trainer_count (int): local devices to train on, data-parallel (default 1): GPUs,
            or CPU host devices (then call ``init`` before any JAX work).
        coordinator_address (str): join a multi-process job coordinated at this
            ``host:port`` (also ``PADDLE_LITE_COORDINATOR_ADDRESS``; see the Scaling out
            page).
        num_processes (int): the number of processes in the job.
        process_id (int): this process's rank in the job, from 0.
        seed (int): default seed of ``parameters.create`` and of training randomness.
        precision (str): ``"float32"`` (default; v2's numerics), ``"tf32"`` or
            ``"bfloat16"`` (mixed precision).
        seq_buckets (str | int | Sequence[int] | Callable): how the sequence time axis
            is padded: ``"default"`` (a tight ladder), ``"pow2"``, an int ``m``
            (multiples of ``m``), a list of lengths or a callable.

    Example:
        ```python
        paddle.init(use_gpu=False, trainer_count=1, seed=1)
        ```
    """
    flags = env_flags(os.environ)
    for name, value in kwargs.items():
        _check_name(name, "paddle.init()")
        flags[name] = _convert(name, value, "paddle.init()")
    flags.setdefault("use_gpu", False)
    flags.setdefault("trainer_count", 1)
    if flags["trainer_count"] < 1:
        raise ConfigError(
            f"paddle.init(): trainer_count must be >= 1; received {flags['trainer_count']}."
        )
    if flags["use_gpu"] and not _has_gpu():
        flags["use_gpu"] = False
    internal = {k: v for k, v in _SETTINGS.items() if k.startswith("_")}  # kept across init
    distributed.setup(flags)
    _SETTINGS.clear()
    _SETTINGS.update(flags, **internal)
    return {k: v for k, v in _SETTINGS.items() if not k.startswith("_")}


def _has_gpu() -> bool:
    """Whether JAX sees a GPU; if not, a warning that training runs on the CPU (v2's
    GPU build stopped in ``hl_init`` on a machine without one; a JAX program runs on
    whatever devices it finds)."""
    import jax

    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        warnings.warn(
            "paddle.init(use_gpu=True): JAX finds no GPU on this machine (backends: "
            f"{jax.default_backend()}), so paddle_lite computes on the CPU. Install jax "
            "with CUDA support to use a GPU.",
            TrainingWarning,
            stacklevel=user_stacklevel(),
        )
        return False


def enable_compilation_cache() -> None:
    """Turn on JAX's persistent compilation cache (once), unless the user set one.

    The cache lives in ``$PADDLE_LITE_CACHE_DIR`` or ``~/.cache/paddle_lite/jax``;
    it makes a program's second start skip recompiling its training step.
    """
    if _SETTINGS.get("_compilation_cache"):
        return
    import jax

    if not jax.config.jax_compilation_cache_dir:
        default = os.path.join(os.path.expanduser("~"), ".cache", "paddle_lite", "jax")
        jax.config.update(
            "jax_compilation_cache_dir", os.environ.get("PADDLE_LITE_CACHE_DIR", default)
        )
    _SETTINGS["_compilation_cache"] = True
