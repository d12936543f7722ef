"""Float64 references of v2's SSD layers and detection mAP, written loop by loop from v2's
C++ (PriorBox.cpp, DetectionUtil.cpp, MultiBoxLossLayer.cpp, DetectionOutputLayer.cpp,
DetectionMAPEvaluator.cpp) for the unit tests."""

import math

import numpy as np


def priorbox(layer_hw, image_hw, min_sizes, max_sizes, ratios, variance):
    lh, lw = layer_hw
    ih, iw = image_hw
    ars = [1.0]
    for r in ratios:
        if abs(r - 1.0) >= 1e-6:
            ars += [r, 1.0 / r]
    step_w, step_h = iw / lw, ih / lh
    out = []
    for h in range(lh):
        for w in range(lw):
            cx, cy = (w + 0.5) * step_w, (h + 0.5) * step_h
            sizes = []
            for s, min_size in enumerate(min_sizes):
                sizes.append((min_size, min_size))
                if max_sizes:
                    side = math.sqrt(min_size * max_sizes[s])
                    sizes.append((side, side))
                for ar in ars:
                    if abs(ar - 1.0) < 1e-6:
                        continue
                    sizes.append((min_size * math.sqrt(ar), min_size / math.sqrt(ar)))
            for bw, bh in sizes:
                box = [
                    (cx - bw / 2) / iw,
                    (cy - bh / 2) / ih,
                    (cx + bw / 2) / iw,
                    (cy + bh / 2) / ih,
                ]
                out += [min(max(v, 0.0), 1.0) for v in box] + list(variance)
    return np.asarray(out)


def jaccard(a, b):
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    inter = iw * ih
    area = lambda r: (r[2] - r[0]) * (r[3] - r[1])  # noqa: E731
    return inter / (area(a) + area(b) - inter)


def match(priors, gts, threshold):
    """v2's matchBBox: (match indices, match overlaps)."""
    n = len(priors)
    idx, best = [-1] * n, [0.0] * n
    overlaps = {}
    for i in range(n):
        for j, g in enumerate(gts):
            o = jaccard(priors[i], g)
            if o > 1e-6:
                best[i] = max(best[i], o)
                overlaps.setdefault(i, {})[j] = o
    pool = list(range(len(gts)))
    while pool:
        mi, mj, mo = -1, -1, -1.0
        for i in sorted(overlaps):
            if idx[i] != -1:
                continue
            for j in pool:
                if j in overlaps[i] and overlaps[i][j] > mo:
                    mi, mj, mo = i, j, overlaps[i][j]
        if mi == -1:
            break
        idx[mi], best[mi] = mj, mo
        pool.remove(mj)
    for i in sorted(overlaps):
        if idx[i] != -1:
            continue
        mj, mo = -1, -1.0
        for j in range(len(gts)):
            if j in overlaps[i] and overlaps[i][j] > mo and overlaps[i][j] >= threshold:
                mj, mo = j, overlaps[i][j]
        if mj != -1:
            idx[i], best[i] = mj, mo
    return idx, best


def nchw_to_nhwc(value, hw):
    """One input [B, C*hw] read pixel by pixel: [B, hw*C]."""
    b, size = value.shape
    c = size // hw
    out = np.zeros_like(value)
    for n in range(b):
        for ch in range(c):
            for p in range(hw):
                out[n, p * c + ch] = value[n, ch * hw + p]
    return out


def encode(prior, var, gt):
    pw, ph = prior[2] - prior[0], prior[3] - prior[1]
    pcx, pcy = (prior[0] + prior[2]) / 2, (prior[1] + prior[3]) / 2
    gw, gh = gt[2] - gt[0], gt[3] - gt[1]
    gcx, gcy = (gt[0] + gt[2]) / 2, (gt[1] + gt[3]) / 2
    return [
        (gcx - pcx) / pw / var[0],
        (gcy - pcy) / ph / var[1],
        math.log(abs(gw / pw)) / var[2],
        math.log(abs(gh / ph)) / var[3],
    ]


def softmax(row):
    e = np.exp(row - row.max())
    return e / e.sum()


def mine(idx, best, scores, neg_overlap, ratio):
    """v2's negative mining of one image (neg_pos_ratio cast to size_t)."""
    n_pos = sum(1 for m in idx if m != -1)
    cand = [(scores[i], i) for i in range(len(idx)) if idx[i] == -1 and best[i] < neg_overlap]
    n_neg = min(n_pos * int(ratio), len(cand))
    cand.sort(key=lambda p: -p[0])
    return [i for _, i in cand[:n_neg]]


def multibox(prior, loc, conf, labels, attrs):
    """loss, d loss / d loc, d loss / d conf (loc [B, P*4], conf [B, P*C] in NHWC)."""
    n_prior, n_class, bg = len(prior) // 8, attrs["num_classes"], attrs["background_id"]
    pboxes = [prior[i * 8 : i * 8 + 4] for i in range(n_prior)]
    pvars = [prior[i * 8 + 4 : i * 8 + 8] for i in range(n_prior)]
    pos, neg = [], []
    for n, boxes in enumerate(labels):
        if not boxes:
            pos.append([-1] * n_prior)
            neg.append([])
            continue
        idx, best = match(pboxes, [b[1:5] for b in boxes], attrs["overlap_threshold"])
        scores = []
        for i in range(n_prior):
            p = softmax(conf[n, i * n_class : (i + 1) * n_class])
            scores.append(max(p[c] for c in range(n_class) if c != bg))
        pos.append(idx)
        neg.append(mine(idx, best, scores, attrs["neg_overlap"], attrs["neg_pos_ratio"]))
    n_match = sum(1 for idx in pos for m in idx if m != -1)
    g_loc, g_conf = np.zeros_like(loc), np.zeros_like(conf)
    if n_match == 0:
        return 0.0, g_loc, g_conf
    loss = 0.0
    for n, idx in enumerate(pos):
        for i, m in enumerate(idx):
            if m == -1:
                continue
            t = encode(pboxes[i], pvars[i], labels[n][m][1:5])
            for k in range(4):
                d = loc[n, i * 4 + k] - t[k]
                loss += 0.5 * d * d if abs(d) < 1 else abs(d) - 0.5
                g_loc[n, i * 4 + k] = (d if abs(d) < 1 else np.sign(d)) / n_match
        rows = [(i, int(labels[n][m][0])) for i, m in enumerate(idx) if m != -1]
        for i, c in rows + [(i, bg) for i in neg[n]]:
            p = softmax(conf[n, i * n_class : (i + 1) * n_class])
            loss -= math.log(p[c])
            p[c] -= 1.0
            g_conf[n, i * n_class : (i + 1) * n_class] = p / n_match
    return loss / n_match, g_loc, g_conf


def decode(prior, var, loc):
    pw, ph = prior[2] - prior[0], prior[3] - prior[1]
    pcx, pcy = (prior[0] + prior[2]) / 2, (prior[1] + prior[3]) / 2
    cx, cy = var[0] * loc[0] * pw + pcx, var[1] * loc[1] * ph + pcy
    w, h = math.exp(var[2] * loc[2]) * pw, math.exp(var[3] * loc[3]) * ph
    return [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]


def nms(boxes, scores, top_k, conf_thr, nms_thr):
    cand = [(s, i) for i, s in enumerate(scores) if s > conf_thr]
    cand.sort(key=lambda p: -p[0])  # stable, as std::stable_sort
    if 0 < top_k < len(cand):
        cand = cand[:top_k]
    kept = []
    for _, i in cand:
        if all(jaccard(boxes[i], boxes[k]) <= nms_thr for k in kept):
            kept.append(i)
    return kept


def detection_output(prior, loc, conf, attrs):
    """v2's rows [image, label, score, xmin, ymin, xmax, ymax] (loc, conf in NHWC)."""
    n_prior, n_class = len(prior) // 8, attrs["num_classes"]
    rows = []
    for n in range(loc.shape[0]):
        probs = [softmax(conf[n, i * n_class : (i + 1) * n_class]) for i in range(n_prior)]
        boxes = [
            decode(
                prior[i * 8 : i * 8 + 4], prior[i * 8 + 4 : i * 8 + 8], loc[n, i * 4 : i * 4 + 4]
            )
            for i in range(n_prior)
        ]
        indices = {}
        for c in range(n_class):
            if c == attrs["background_id"]:
                continue
            scores = [p[c] for p in probs]
            indices[c] = nms(
                boxes,
                scores,
                attrs["nms_top_k"],
                attrs["confidence_threshold"],
                attrs["nms_threshold"],
            )
        total = sum(len(v) for v in indices.values())
        if 0 < attrs["keep_top_k"] < total:
            pairs = [(probs[i][c], c, i) for c, ids in indices.items() for i in ids]
            pairs.sort(key=lambda p: -p[0])
            indices = {}
            for _, c, i in pairs[: attrs["keep_top_k"]]:
                indices.setdefault(c, []).append(i)
        for c in sorted(indices):
            for i in indices[c]:
                rows.append([n, c, probs[i][c], *[min(max(v, 0.0), 1.0) for v in boxes[i]]])
    return np.asarray(rows).reshape(-1, 7)


def detection_map(batches, overlap_threshold, evaluate_difficult, ap_type):
    """v2's mAP (x100) over batches of (detection rows, labels per image)."""
    num_pos, tps, fps = {}, {}, {}
    for rows, labels in batches:
        for n, boxes in enumerate(labels):
            gts = {}
            for b in boxes:
                gts.setdefault(int(b[0]), []).append(b)
            for c, bs in gts.items():
                count = len(bs) if evaluate_difficult else sum(1 for b in bs if not b[5])
                num_pos[c] = num_pos.get(c, 0) + count
            dets = {}
            for r in rows:
                if int(r[0]) == n:
                    dets.setdefault(int(r[1]), []).append(r)
            for c, ds in dets.items():
                ds = sorted(ds, key=lambda r: -r[2])
                g = gts.get(c, [])
                visited = [False] * len(g)
                for d in ds:
                    best, bi = -1.0, 0
                    for j, b in enumerate(g):
                        o = jaccard(d[3:7], b[1:5])
                        if o > best:
                            best, bi = o, j
                    if g and best > overlap_threshold:
                        if evaluate_difficult or not g[bi][5]:
                            tp = not visited[bi]
                            visited[bi] = True
                            tps.setdefault(c, []).append((d[2], int(tp)))
                            fps.setdefault(c, []).append((d[2], int(not tp)))
                    else:
                        tps.setdefault(c, []).append((d[2], 0))
                        fps.setdefault(c, []).append((d[2], 1))
    total, count = 0.0, 0
    for c, npos in sorted(num_pos.items()):
        if npos == 0 or c not in tps:
            continue
        tp = np.cumsum([t for _, t in sorted(tps[c], key=lambda p: -p[0])])
        fp = np.cumsum([f for _, f in sorted(fps[c], key=lambda p: -p[0])])
        prec, rec = tp / (tp + fp), tp / npos
        if ap_type == "11point":
            maxp = [0.0] * 11
            start = len(rec) - 1
            for j in range(10, -1, -1):
                for i in range(start, -1, -1):
                    if rec[i] < j / 10.0:
                        start = i
                        if j > 0:
                            maxp[j - 1] = maxp[j]
                        break
                    maxp[j] = max(maxp[j], prec[i])
            total += sum(maxp) / 11
        else:
            prev, ap = 0.0, 0.0
            for p, r in zip(prec, rec, strict=True):
                if abs(r - prev) > 1e-6:
                    ap += p * abs(r - prev)
                prev = r
            total += ap
        count += 1
    return (total / count if count else 0.0) * 100
