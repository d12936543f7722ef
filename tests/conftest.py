"""Shared test setup: every test starts with fresh automatic layer names."""

import pytest

from paddle_lite._src.graph import reset_names


@pytest.fixture(autouse=True)
def _fresh_names():
    reset_names()
    yield
