"""v2's ``pnpair`` evaluator: the ratio of rightly to wrongly ordered pairs of a ranking
score within each query.
"""

from __future__ import annotations

import jax.numpy as jnp

from paddle_lite._src.errors import LayerTypeError
from paddle_lite._src.evaluators.base import (
    Evaluator,
    build,
    check_dense_label,
    check_layer,
    check_weight,
    declare,
    evaluator_name,
    label_rows,
    rows,
    same_level,
    where_of,
)
from paddle_lite._src.graph import Layer
from paddle_lite._src.layers import base


class PnPair(Evaluator):
    """Positive/negative pair ratio of the last column within each query; key ``name``."""

    type = "pnpair"

    def batch_stats(self, values, valid=None):
        x, mask = rows(values[0], valid=valid)
        score = x[:, -1]
        y = label_rows(values[1], values[0]).astype(jnp.float32)
        query = label_rows(values[2], values[0])
        w = self.weights(values, values[0], mask)
        n = score.shape[0]
        pair = (query[:, None] == query[None, :]) & (y[:, None] != y[None, :])
        pair &= mask[:, None] & mask[None, :] & (jnp.arange(n)[:, None] < jnp.arange(n)[None, :])
        agree = jnp.sign(score[:, None] - score[None, :]) * jnp.sign(y[:, None] - y[None, :])
        pw = jnp.where(pair, (w[:, None] + w[None, :]) / 2.0, 0.0)
        return {
            "pos": jnp.sum(jnp.where(agree > 0, pw, 0.0)),
            "neg": jnp.sum(jnp.where(agree < 0, pw, 0.0)),
            "special": jnp.sum(jnp.where(agree == 0, pw, 0.0)),
        }

    def result(self, stats):
        neg = float(stats["neg"])
        return {self.name: float(stats["pos"]) / (neg if neg > 0 else 1.0)}


def _pnpair(input, label, query_id, weight, name) -> Evaluator:
    where = where_of(name, "pnpair")
    inp = check_layer(input, where, "input")
    lbl = check_layer(label, where, "label", mode="dense_or_ids")
    qid = check_layer(query_id, where, "query_id", mode="ids")
    check_dense_label(lbl, where, "expected ids or a size-1 dense relevance")
    same_level(where, inp, {"label": lbl, "query_id": qid})
    return build(PnPair, name, [inp, lbl, qid], {}, check_weight(weight, where, inp))


@base.layer_function
def pnpair(
    input: Layer,
    label: Layer,
    query_id: Layer | None = None,
    weight: Layer | None = None,
    name: str | None = None,
    info: Layer | None = None,
) -> Evaluator:
    """Positive-negative pair ratio of a ranking score (v2 ``pnpair``).

    Over every pair of rows with the same ``query_id`` and different labels, a pair
    is positive when the scores (last column of ``input``) order it like the labels
    and negative when they order it the other way (equal scores count neither). The
    pair weight is the mean of the two rows' weights.

    $$
    pnpair = \\sum_{pos} w / \\sum_{neg} w \\quad (\\text{denominator 1 when 0})
    $$

    Pairs are formed **within each batch** (so the statistics stay additive and
    O(batch²) on the device); v2 buffered the whole pass on the host and also paired
    rows of one query that fell in different batches. Keep each query's rows in one
    batch to get v2's value.

    Args:
        input: the score layer (last column used).
        label: relevance ids (or a size-1 dense relevance).
        query_id: an ``integer_value`` layer: the query each row belongs to.
        weight: optional size-1 layer of per-sample weights.
        name: the metric key (default ``__pnpair_evaluator_<n>__``).
        info: v2 0.10's name for ``query_id`` (give one of the two).

    Returns:
        The declared [`Evaluator`][paddle_lite.evaluator.Evaluator]; metric ``{name: pos / neg}``.

    Example:
        ```python
        paddle.evaluator.pnpair(input=score, label=rel, query_id=qid)
        ```
    """
    name = evaluator_name(name, "pnpair_evaluator")
    where = where_of(name, "pnpair")
    if (query_id is None) == (info is None):
        raise LayerTypeError(
            f"{where}: give the query ids once, as query_id= (or v2 0.10's info=); received "
            f"query_id={query_id!r}, info={info!r}."
        )
    qid = query_id if query_id is not None else info
    return declare(_pnpair(input, label, qid, weight, name))
