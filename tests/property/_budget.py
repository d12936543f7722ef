"""How many examples a property test draws: its CI budget, or ten times that when
``HYPOTHESIS_PROFILE=explore``."""

import os


def examples(ci_budget: int) -> int:
    """The ``max_examples`` for a test whose budget in the default (CI) profile is given."""
    return ci_budget * 10 if os.environ.get("HYPOTHESIS_PROFILE") == "explore" else ci_budget
