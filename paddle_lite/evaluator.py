"""Evaluators (v2 ``paddle.evaluator``): metrics accumulated over a pass.

Declared evaluators whose inputs are all in the trained topology report their
values in ``event.metrics`` under their names.
"""

from paddle_lite._src.evaluator_base import Evaluator
from paddle_lite._src.evaluators import classification_error
from paddle_lite._src.evaluators_detection import detection_map
from paddle_lite._src.evaluators_scores import auc, column_sum, pnpair, precision_recall, sum
from paddle_lite._src.evaluators_seq import chunk, ctc_error
from paddle_lite._src.module_aliases import module_getattr
from paddle_lite._src.printers import (
    classification_error_printer,
    gradient_printer,
    maxframe_printer,
    maxid_printer,
    seqtext_printer,
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
