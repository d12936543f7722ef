"""Shared test setup: every test starts with fresh automatic layer names, and every compiled
program goes into JAX's persistent compilation cache. (The ``fault`` fixture and the
``--fault-table`` option come from the ``fault_table`` plugin, loaded by pyproject.toml; the
``etcd`` and ``shared_etcd`` fixtures, a real etcd server, from ``etcd_server``.)"""

import os

import jax
import pytest
from etcd_server import etcd, shared_etcd  # noqa: F401 - fixtures for the tests

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


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: a worker per core, at most 4 (each worker is a JAX process that
    compiles its own programs; more of them mostly compete for memory)."""
    return max(1, min(os.cpu_count() or 1, 4))
