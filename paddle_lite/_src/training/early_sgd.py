"""The trainer of the v2 of February 2017: ``SGD(update_equation=...)`` alone, with the
cost and the parameters given to ``train``.

The first v2 demos (PaddlePaddle's ``demo/mnist/api_train_v2.py`` and
``demo/image_classification/api_v2_train.py`` of Feb 2017) wrote:

    trainer = paddle.trainer.SGD(update_equation=adam_optimizer)
    trainer.train(reader=..., cost=cost, parameters=parameters, event_handler=...,
                  batch_size=32, reader_dict={...})

before ``cost`` and ``parameters`` moved into ``SGD(cost, parameters, update_equation)``
(Mar 2017). Such a trainer is built by the first ``train`` call, with a
``DeprecationWarning``; ``train``'s ``batch_size`` (the batches come from the reader)
is ignored. Anything else asked of it before that call says what to write.
"""

from __future__ import annotations

from typing import Any

from paddle_lite._src.compat import early_names
from paddle_lite._src.errors import ArgumentTypeError

_NOW = "paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)"
_WHEN = "Feb 2017's trainer, which took the cost and parameters in train()"
KEY = "_early_update_equation"


def defer(trainer: Any, update_equation: Any) -> None:
    """Keep ``update_equation`` until ``train`` gives the cost and the parameters."""
    if update_equation is None:
        raise ArgumentTypeError(
            f"paddle.trainer.SGD needs a cost, parameters and an update_equation: {_NOW}."
        )
    early_names.warn_renamed("paddle.trainer.SGD(update_equation=...)", _NOW, _WHEN)
    trainer.__dict__[KEY] = update_equation


def complete(trainer: Any, early: dict[str, Any]) -> None:
    """Build a deferred trainer from ``train``'s early arguments (``cost``,
    ``parameters``, ``batch_size``); refuse them for a trainer built the usual way."""
    equation = trainer.__dict__.get(KEY)
    if equation is None:
        if early:
            raise TypeError(f"train() got unexpected keyword arguments {sorted(early)}.")
        return
    unknown = sorted(set(early) - {"cost", "parameters", "batch_size"})
    if unknown:
        raise TypeError(f"train() got unexpected keyword arguments {unknown}.")
    cost, parameters = early.get("cost"), early.get("parameters")
    if cost is None or parameters is None:
        raise ArgumentTypeError(
            "this trainer was made as paddle.trainer.SGD(update_equation=...) alone, so "
            "train() needs cost= and parameters=; or write " + _NOW + "."
        )
    type(trainer).__init__(trainer, cost, parameters, equation)
    del trainer.__dict__[KEY]


def missing(trainer: Any, name: str) -> Any:
    """``__getattr__`` of a trainer: what to do when it waits for ``train``'s cost."""
    if KEY in trainer.__dict__ and not name.startswith("__"):
        raise ArgumentTypeError(
            "this trainer was made as paddle.trainer.SGD(update_equation=...) alone; it is "
            "built by train(reader, cost=cost, parameters=parameters, ...), or write " + _NOW
            + f" (asked for: {name})."
        )
    raise AttributeError(f"'{type(trainer).__name__}' object has no attribute {name!r}")
