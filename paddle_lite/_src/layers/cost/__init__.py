"""Cost layers: each outputs float32 ``[batch, 1]``, the per-sample cost, times its weight.

Every cost is a ``base.CostKind``: a function of named inputs per sample, which the kind
weights and sums over the batch (v2 differentiates the sum). Read ``base`` first:

1. ``base`` -- ``CostKind`` and ``build_cost``.
2. ``basic`` -- cross entropies; ``square`` -- squared error, ``sum_cost``.
3. ``rank`` -- ranking costs and binary judgements; ``robust`` -- Huber, smooth L1,
   modified Huber.
4. ``sampled`` -- costs over many classes: ``nce``, ``hsigmoid``.
5. ``crf`` -- the linear-chain CRF cost and its Viterbi decoding; ``ctc`` -- CTC costs;
   ``beam`` -- ``cross_entropy_over_beam``.
"""
