"""Training events (v2 ``paddle.event``) and a progress-bar handler."""

from paddle_lite._src.display.progress import progress
from paddle_lite._src.training.events import (
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
