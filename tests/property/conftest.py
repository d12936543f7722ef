"""Hypothesis settings for the property tests: derandomized by default (the same examples
on every run, so the suite stays fast and never flaky), with no example database written
into the checkout. ``HYPOTHESIS_PROFILE=explore`` draws fresh random examples, ten times as
many (see ``_budget.examples``), for a longer search."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "explore",
    derandomize=False,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
