"""The XLA options paddle_lite compiles its programs with on a CPU.

XLA:CPU hands dots, reductions and convolutions to YNNPACK by default (jaxlib 0.10). On
the 2-core AVX2 machines this project is measured on, XLA's own convolutions ran
LeNet-5's training step 1.5x and ResNet-32's 1.7x as fast, PyTorch's ``channels_last``
beside them (``python -m bench.cpu_conv_variants``), so paddle_lite's training, test and
inference programs keep YNNPACK for dots and reductions only. A jaxlib without the option
compiles them with XLA's defaults; other backends get no options.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import jax
import numpy as np

YNN_KINDS = "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"
CPU_OPTIONS = {"xla_cpu_experimental_ynn_fusion_type": YNN_KINDS}


@functools.lru_cache(maxsize=1)
def _cpu_options() -> tuple[tuple[str, str], ...]:
    """``CPU_OPTIONS`` where this jax and jaxlib take them (one tiny compile), else none."""
    if "compiler_options" not in inspect.signature(jax.jit).parameters:
        return ()
    try:
        probe = jax.jit(lambda x: x + 1, compiler_options=CPU_OPTIONS)
        probe.lower(np.float32(0)).compile()
    except Exception:
        return ()
    return tuple(CPU_OPTIONS.items())


def options() -> dict[str, Any]:
    """The compiler options for a program about to be jitted on the default backend."""
    return dict(_cpu_options()) if jax.default_backend() == "cpu" else {}


def jit(fun: Any, **kwargs: Any) -> Any:
    """``jax.jit(fun, **kwargs)`` compiled with ``options``. JAX takes compiler
    options on a top-level jit only: read the program's jaxpr with ``.trace(...)``, not
    by tracing it inside another function."""
    chosen = options()
    if chosen:
        kwargs["compiler_options"] = chosen
    return jax.jit(fun, **kwargs)
