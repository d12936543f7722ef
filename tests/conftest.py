"""Shared test setup: every test starts with fresh automatic layer names; the ``fault``
fixture and ``--fault-table`` option come from ``fault_table``."""

import pytest
from fault_table import (  # noqa: F401 - pytest hooks and fixture, found by name
    fault,
    pytest_addoption,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_runtest_makereport,
    pytest_sessionfinish,
)

from paddle_lite._src.graph import reset_names


@pytest.fixture(autouse=True)
def _fresh_names():
    reset_names()
    yield
