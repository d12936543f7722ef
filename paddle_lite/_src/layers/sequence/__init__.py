"""Sequence layers: aggregating, reshaping, selecting and slicing padded sequences.

Sequences are padded ``Seq(data [B, T, D], lengths [B])`` (nested: two levels of lengths);
every layer ignores the padding exactly.

1. ``aggregate`` -- masked reductions over time and the levels they aggregate to;
   ``pooling`` -- pooling over time, first and last steps; ``maxindex`` -- where each
   maximum was (``Max(output_max_index=True)``).
2. ``reshape`` -- ``seq_concat``, ``expand``, ``seq_reshape``; ``context`` --
   ``context_projection``'s window.
3. ``select`` -- ``kmax_seq_score``, ``sub_nested_seq``, ``sub_seq``; ``slice`` --
   ``seq_slice``.
"""
