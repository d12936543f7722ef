"""Training events (v2 ``paddle.event``) and a progress-bar handler."""

from paddle_lite._src.events import (
    BeginIteration,
    BeginPass,
    BeginTraining,
    Compiling,
    EndForwardBackward,
    EndIteration,
    EndPass,
    EndTraining,
    TestResult,
    WithMetric,
)
from paddle_lite._src.progress import progress

__all__ = [
    "BeginIteration",
    "BeginPass",
    "BeginTraining",
    "Compiling",
    "EndForwardBackward",
    "EndIteration",
    "EndPass",
    "EndTraining",
    "TestResult",
    "WithMetric",
    "progress",
]
