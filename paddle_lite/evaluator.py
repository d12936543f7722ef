"""Evaluators (v2 ``paddle.evaluator``): metrics accumulated over a pass.

Declared evaluators whose inputs are all in the trained topology report their
values in ``event.metrics`` under their names.
"""

from paddle_lite._src.compat.aliases import module_getattr
from paddle_lite._src.evaluators.auc import auc
from paddle_lite._src.evaluators.base import Evaluator
from paddle_lite._src.evaluators.chunk import chunk
from paddle_lite._src.evaluators.classification import classification_error
from paddle_lite._src.evaluators.ctc_error import ctc_error
from paddle_lite._src.evaluators.detection import detection_map
from paddle_lite._src.evaluators.gradient_printer import gradient_printer
from paddle_lite._src.evaluators.pnpair import pnpair
from paddle_lite._src.evaluators.precision_recall import precision_recall
from paddle_lite._src.evaluators.seqtext_printer import seqtext_printer
from paddle_lite._src.evaluators.sums import column_sum, sum
from paddle_lite._src.evaluators.value_printers import (
    classification_error_printer,
    maxframe_printer,
    maxid_printer,
    value_printer,
)

__all__ = [
    "Evaluator",
    "auc",
    "chunk",
    "classification_error",
    "classification_error_printer",
    "column_sum",
    "ctc_error",
    "detection_map",
    "gradient_printer",
    "maxframe_printer",
    "maxid_printer",
    "pnpair",
    "precision_recall",
    "seqtext_printer",
    "sum",
    "value_printer",
]

# v2's ``evaluator.base`` (the Evaluator base class).
__getattr__ = module_getattr("evaluator", {"base": Evaluator})
