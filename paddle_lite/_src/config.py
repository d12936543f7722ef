"""Global settings made by ``paddle.init(...)``: the seed, the device, v2 flags.

v2's ``init`` turned every keyword into a command-line flag of its C++ core and
also read ``PADDLE_INIT_<NAME>`` environment variables (explicit keywords win).
The same flags are accepted here; ``use_gpu``, ``trainer_count`` and ``seed`` take
effect, the distributed ones are kept for the trainer, and the rest are accepted
for compatibility and recorded.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any

from paddle_lite._src import buckets, distributed, precision
from paddle_lite._src.errors import ConfigError, TrainingWarning, did_you_mean

_BOOL, _INT, _STR, _FLOAT = "bool", "int", "str", "float"
_PRECISION, _BUCKETS = "precision", "seq_buckets"

# v2 flag -> type (the flags of paddle/utils/Flags.cpp, the trainer's and the
# distributed ones). Distributed flags matter once the trainer runs several processes.
FLAGS: dict[str, str] = {
    "use_gpu": _BOOL,
    "trainer_count": _INT,
    "seed": _INT,
    "gpu_id": _INT,
    "use_mkldnn": _BOOL,
    "use_mkl_packed": _BOOL,
    "port": _INT,
    "ports_num": _INT,
    "ports_num_for_sparse": _INT,
    "num_gradient_servers": _INT,
    "trainer_id": _INT,
    "pservers": _STR,
    "nics": _STR,
    "rdma_tcp": _STR,
    "local": _BOOL,
    "log_period": _INT,
    "dot_period": _INT,
    "saving_period": _INT,
    "test_period": _INT,
    "num_passes": _INT,
    "show_parameter_stats_period": _INT,
    "log_error_clipping": _BOOL,
    "log_clipping": _BOOL,
    "beam_size": _INT,
    "save_dir": _STR,
    "init_model_path": _STR,
    "start_pass": _INT,
    "thread_local_rand_use_global_seed": _BOOL,
    "enable_parallel_vector": _INT,
    "loadsave_parameters_in_pserver": _BOOL,
    "prev_batch_state": _BOOL,
    "cudnn_dir": _STR,
    "cuda_dir": _STR,
    "allow_only_one_model_on_one_gpu": _BOOL,
    "parallel_thread_num": _INT,
    "check_sparse_distribution_in_pserver": _BOOL,
    "show_check_sparse_distribution_log": _BOOL,
    "trainer_role": _STR,
    "learning_rate": _FLOAT,
    "comment": _STR,
    "load_missing_parameter_strategy": _STR,
    "log_period_server": _INT,
    "checkgrad_eps": _FLOAT,
    "show_layer_stat": _BOOL,
    "predict_file": _STR,
    # paddle/trainer/Trainer.cpp
    "config": _STR,
    "config_args": _STR,
    "test_all_data_in_one_period": _BOOL,
    "average_test_period": _INT,
    "saving_period_by_batches": _INT,
    "test_pass": _INT,
    "test_wait": _INT,
    "with_cost": _BOOL,
    "distribute_test": _BOOL,
    "save_only_one": _BOOL,
    "feat_file": _STR,
    "predict_output_dir": _STR,
    "model_list": _STR,
    # paddle_lite's own settings
    "precision": _PRECISION,
    "seq_buckets": _BUCKETS,
    "coordinator_address": _STR,
    "num_processes": _INT,
    "process_id": _INT,
}

_SETTINGS: dict[str, Any] = {}


def get(name: str, default: Any = None) -> Any:
    """The value of setting ``name``, or ``default`` when it was never set."""
    return _SETTINGS.get(name, default)


def default_seed() -> int:
    """The seed parameters are initialised from when none is given (0 unless set)."""
    return int(_SETTINGS.get("seed") or 0)


def _convert(name: str, value: Any, source: str) -> Any:
    kind = FLAGS[name]
    if kind == _PRECISION:
        return precision.check(value)
    if kind == _BUCKETS:
        return _seq_buckets(value, source)
    try:
        if kind == _BOOL:
            if isinstance(value, str):
                lowered = value.strip().lower()
                if lowered not in ("0", "1", "true", "false", "yes", "no", ""):
                    raise ValueError(value)
                return lowered in ("1", "true", "yes")
            return bool(value)
        if kind == _INT:
            if isinstance(value, bool):
                raise ValueError(value)
            return int(value)
        if kind == _FLOAT:
            return float(value)
        return str(value)
    except (TypeError, ValueError):
        raise ConfigError(
            f"{source}: flag '{name}' expects a {kind}; received {value!r}."
        ) from None


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


def _check_name(name: str, source: str) -> None:
    if name == "parallel_nn":
        raise ConfigError(f"{source}: parallel_nn is not supported (v2 refused it too).")
    if name not in FLAGS:
        raise ConfigError(
            f"{source}: unknown flag '{name}'. Known flags: {', '.join(sorted(FLAGS))}."
            + did_you_mean(name, FLAGS)
        )


def env_flags(environ: Mapping[str, str]) -> dict[str, Any]:
    """Flags given as ``PADDLE_INIT_<NAME>`` environment variables."""
    flags = {}
    for key, value in environ.items():
        if key.startswith("PADDLE_INIT_"):
            name = key[len("PADDLE_INIT_") :].lower()
            _check_name(name, f"environment variable {key}")
            flags[name] = _convert(name, value, f"environment variable {key}")
    return flags


def init(**kwargs: Any) -> dict[str, Any]:
    """Configure paddle_lite (v2 ``paddle.init``); returns the settings in force.

    Args:
        use_gpu: run on the GPU (on the CPU, with a ``TrainingWarning``, when JAX sees
            none).
        trainer_count: local devices to train on, data-parallel (default 1): GPUs, or
            CPU host devices (then call ``init`` before any JAX work).
        coordinator_address, num_processes, process_id: join a multi-process job
            (also ``PADDLE_LITE_COORDINATOR_ADDRESS`` ... variables; see
            ``paddle_lite._src.distributed``).
        seed: default seed of ``parameters.create`` and of training randomness.
        precision: ``"float32"`` (default; v2's numerics), ``"tf32"`` or ``"bfloat16"``
            (mixed precision); see ``paddle_lite._src.precision``.
        seq_buckets: how the sequence time axis is padded: ``"default"`` (a tight
            ladder), ``"pow2"``, an int ``m`` (multiples of ``m``), a list of lengths or a
            callable; see ``paddle_lite._src.buckets``.
        **kwargs: any other v2 flag; ``PADDLE_INIT_<NAME>`` environment variables
            supply flags too, and explicit keywords override them.

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
            stacklevel=3,
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
