"""Shared test setup: every test starts with fresh automatic layer names; the ``fault``
fixture and ``--fault-table`` option come from ``fault_table``; every compiled program goes
into JAX's persistent compilation cache."""

import os

import jax
import pytest
from fault_table import (  # noqa: F401 - pytest hooks and fixture, found by name
    fault,
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_makereport,
    pytest_sessionfinish,
)

from paddle_lite._src import config
from paddle_lite._src.graph import reset_names


def _cache_every_compile() -> None:
    """Put every program the tests compile into JAX's persistent cache, eager single ops
    included (the library itself caches only compiles that take over a second).

    Most of the suite's time is XLA compiling small programs; with them cached, a second
    run of the suite compiles almost nothing (about three times faster on 2 CPU cores).
    The cache is the library's (``$PADDLE_LITE_CACHE_DIR`` or ``~/.cache/paddle_lite/jax``);
    ``PADDLE_LITE_TEST_JAX_CACHE=0`` turns this off.
    """
    if os.environ.get("PADDLE_LITE_TEST_JAX_CACHE", "1") == "0":
        return
    config.enable_compilation_cache()
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)


_cache_every_compile()


@pytest.fixture(autouse=True)
def _fresh_names():
    reset_names()
    yield
