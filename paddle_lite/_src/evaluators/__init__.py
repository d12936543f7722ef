"""Evaluators (v2 ``paddle.evaluator``): metrics computed beside the cost.

Every evaluator follows one contract (``base.Evaluator``): additive per-batch statistics
computed on the device inside the step, combined on the host into the metric at the end of
a batch or pass. Read ``base`` first, then a family:

1. ``base`` -- the contract and the helpers every family shares.
2. ``classification`` -- ``classification_error`` and the evaluators a cost layer
   attaches to itself.
3. scores, one module each: ``auc``, ``precision_recall``, ``pnpair``, ``sums`` (``sum``
   and ``column_sum``).
4. sequences: ``chunk`` (a tagger's segment F1) and ``ctc_error`` (edit distance).
5. ``detection`` -- ``detection_map`` over ``detection_output``.
6. ``printers`` -- v2's printers: evaluators with no metric, that print values; then
   ``value_printers``, ``seqtext_printer`` and ``gradient_printer``.
"""
