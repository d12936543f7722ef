"""Evaluators (v2 ``paddle.evaluator``): metrics accumulated over a pass.

Declared evaluators whose inputs are all in the trained topology report their
values in ``event.metrics`` under their names.
"""

from paddle_lite._src.evaluator_base import Evaluator
from paddle_lite._src.evaluators import classification_error
from paddle_lite._src.evaluators_scores import auc, column_sum, pnpair, precision_recall, sum
from paddle_lite._src.evaluators_seq import chunk, ctc_error

__all__ = [
    "Evaluator",
    "auc",
    "chunk",
    "classification_error",
    "column_sum",
    "ctc_error",
    "pnpair",
    "precision_recall",
    "sum",
]
