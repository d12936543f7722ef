"""float64 numpy transcriptions of v2's C++ selection layers over v2's flat batch layout
(all steps stacked, with sequence and sub-sequence start positions), and the
conversions between that layout and paddle_lite's padded sequences."""

import numpy as np


# padded <-> flat ----------------------------------------------------------------------
def flat_positions(seq):
    """The padded position ``(b, t)`` or ``(b, j, t)`` of every flat v2 row, in order,
    and the start positions ``info``: per sample, its sub-sequence starts plus its end
    (a plain sequence is one group of all sequence starts, as v2 reorganizes it)."""
    lengths = np.asarray(seq.lengths)
    positions = []
    if seq.sub_lengths is None:
        starts = [0]
        for b, n in enumerate(lengths):
            positions += [(b, t) for t in range(n)]
            starts.append(starts[-1] + int(n))
        return positions, [starts]
    info = []
    for b, count in enumerate(lengths):
        group = [len(positions)]
        for j in range(count):
            positions += [(b, j, t) for t in range(int(seq.sub_lengths[b, j]))]
            group.append(len(positions))
        info.append(group)
    return positions, info


def flat_rows(seq):
    """The flat float64 rows of ``seq`` and its ``info`` (see :func:`flat_positions`)."""
    positions, info = flat_positions(seq)
    data = np.asarray(seq.data, np.float64)
    return np.array([data[p] for p in positions]).reshape(len(positions), -1), info


def output_slices(value):
    """The sequences of an output, in order: ``[[rows of sample b]]`` for a sequence,
    ``[[sub-sequence rows ...] per sample]`` for a nested sequence."""
    data = np.asarray(value.data, np.float64)
    if value.sub_lengths is None:
        return [[data[b, : value.lengths[b]]] for b in range(data.shape[0])]
    return [
        [data[b, j, : value.sub_lengths[b, j]] for j in range(value.lengths[b])]
        for b in range(data.shape[0])
    ]


def to_padded_grad(flat_grad, seq):
    """A gradient over the flat rows, placed at the padded positions of ``seq``."""
    positions, _ = flat_positions(seq)
    out = np.zeros(np.shape(seq.data), np.float64)
    for row, pos in zip(flat_grad, positions, strict=True):
        out[pos] += row
    return out


def add_to_rows(out_grad, selected, n_rows):
    """v2's ``addToRows``: input row ``selected[i]`` gathers output row ``i``'s gradient."""
    grad = np.zeros((n_rows, out_grad.shape[1]))
    for i, r in enumerate(selected):
        grad[r] += out_grad[i]
    return grad


# layers -----------------------------------------------------------------------------
def bounds(info):
    """``(first, last + 1)`` row of every sequence (plain) or sub-sequence (nested)."""
    return [(g[j], g[j + 1]) for g in info for j in range(len(g) - 1)]


def kmax(scores, info, k):
    """KmaxSeqScoreLayer: per (sub-)sequence the indices of its k best scores."""
    spans = bounds(info)
    out = -np.ones((len(spans), k))
    for i, (lo, hi) in enumerate(spans):
        order = np.argsort(-scores[lo:hi], kind="stable")[:k]
        out[i, : len(order)] = order
    return out


def sub_nested_seq(info, selected):
    """SubNestedSequenceLayer.calSelectedRows: (selected rows, per-sample sub lengths)."""
    rows, subs = [], []
    for i, group in enumerate(info):
        sample = []
        for j in range(selected.shape[1]):
            if selected[i, j] == -1.0:
                break
            s = int(selected[i, j])
            rows += list(range(group[s], group[s + 1]))
            sample.append(group[s + 1] - group[s])
        subs.append(sample)
    return rows, subs


def seq_slice(info, starts, ends):
    """SequenceSliceLayer.calSelectedRows: (selected rows, slice lengths per index row)."""
    width = (starts if starts is not None else ends).shape[1]
    rows, per_row, row_idx = [], [], 0
    for group in info:
        for j in range(len(group) - 1):
            per_row.append([])
            for k in range(width):
                if starts is not None and starts[row_idx, k] == -1.0:
                    break
                if ends is not None and ends[row_idx, k] == -1.0:
                    break
                beg = group[j] + (int(starts[row_idx, k]) if starts is not None else 0)
                end = group[j] + int(ends[row_idx, k]) if ends is not None else group[j + 1] - 1
                assert end - beg + 1 > 0
                rows += list(range(beg, end + 1))
                per_row[-1].append(end - beg + 1)
            row_idx += 1
    return rows, per_row


def sub_seq(info, offsets, sizes):
    """SubSequenceLayer: rows ``starts[i] + offsets[i]`` onwards, ``sizes[i]`` of them."""
    starts = info[0]
    rows = []
    for i in range(len(starts) - 1):
        rows += list(range(starts[i] + offsets[i], starts[i] + offsets[i] + sizes[i]))
    return rows


# cross_entropy_over_beam ------------------------------------------------------------
def _gold_track(cand, gold, k):
    """calValidExpandStep: (gold rows, gold columns, valid expansions, gold as extra)."""
    rows, cols = [0] * len(cand), [-1] * len(cand)
    for i in range(len(cand)):
        if i:
            before = cand[i - 1].ravel()[: rows[i - 1] * k + cols[i - 1]]
            rows[i] = int(np.sum(before != -1.0))
        hits = np.flatnonzero(cand[i][rows[i]] == gold[i])
        if not len(hits):
            return rows, cols, i + 1, True
        cols[i] = int(hits[0])
    return rows, cols, len(cand), False


def beam_cost_one(scores, info, cand, gold, k):
    """CostForOneSequence of one sample, transcribed from v2 (flat parent indices
    included): ``(cost, [gradient per expansion's scores])``.

    ``scores[i]`` the sample's scores of expansion i, ``info[i]`` its row starts
    (relative, plus the end), ``cand[i]`` its selected rows ``[rows, k]``.
    """
    rows, cols, valid, extra = _gold_track(cand, gold, k)
    last = valid - 1
    c = cand[last]
    n_paths = int(np.sum(c != -1.0))
    gold_idx = n_paths if extra else int(np.sum(c.ravel()[: rows[last] * k + cols[last]] != -1))
    n_paths += int(extra)
    path_rows = [[0] * n_paths for _ in range(valid)]
    parent = [0] * n_paths
    if extra:
        path_rows[last][-1] = gold[last] + info[last][rows[last]]
        parent[-1] = rows[last]
    cur = 0
    for i in range(c.shape[0]):
        for j in range(k):
            if c[i, j] != -1.0:
                path_rows[last][cur], parent[cur] = int(c[i, j]) + info[last][i], i
                cur += 1
    for b in range(valid - 2, -1, -1):
        ids = cand[b].ravel()
        for i in range(n_paths - 1 if extra else n_paths):
            row = parent[i] // k
            path_rows[b][i], parent[i] = int(ids[parent[i]]) + info[b][row], row
        if extra and n_paths > 1:  # v2 sets it inside its loop over the other paths
            path_rows[b][-1] = gold[b] + info[b][rows[b]]
    total = sum(np.asarray(scores[i])[path_rows[i]] for i in range(valid))
    soft = np.exp(total - total.max())
    soft /= soft.sum()
    cost = -np.log(soft[gold_idx])
    soft[gold_idx] -= 1.0
    grads = [np.zeros(len(s)) for s in scores]
    for i in range(valid):
        np.add.at(grads[i], path_rows[i], soft)
    return cost, grads
