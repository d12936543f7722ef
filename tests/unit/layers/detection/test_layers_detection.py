"""priorbox, cross_channel_norm, multibox_loss, detection_output and the detection_map
evaluator against float64 references written from v2's C++ loops (_detection_reference)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.evaluators.base import total_stats
from paddle_lite._src.evaluators.detection import DetectionMAP
from paddle_lite._src.layers.detection.loss import match_priors
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerConfigWarning, LayerTypeError
from tests.unit import _detection_reference as ref

L, DT = paddle.layer, paddle.data_type
VAR = [0.1, 0.1, 0.2, 0.2]


@pytest.fixture
def x64():
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", False)


def image(name, c, h, w):
    return L.data(name=name, type=DT.dense_vector(c * h * w), height=h, width=w)


def run(layer, feeds, params=None):
    (value,), _ = forward([layer], params or {}, feeds)
    return value


# priorbox ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mins", "maxes", "ratios", "per_pixel"),
    [([4], [9], [2.0, 3.0], 6), ([3, 5], [], [2.0, 1.0], 6), ([3, 5], [4, 7], [0.5], 8)],
)
def test_priorbox_matches_v2_loops(mins, maxes, ratios, per_pixel):
    img, fmap = image("img", 3, 10, 12), image("fmap", 2, 3, 2)
    pb = L.priorbox(
        input=fmap, image=img, aspect_ratio=ratios, variance=VAR, min_size=mins, max_size=maxes
    )
    assert pb.name == "__priorbox_0__" and pb.size == 3 * 2 * per_pixel * 8
    feeds = {"img": np.zeros((2, 360), np.float32), "fmap": np.zeros((2, 12), np.float32)}
    got = np.asarray(run(pb, feeds))
    want = ref.priorbox((3, 2), (10, 12), mins, maxes, ratios, VAR)
    np.testing.assert_allclose(got[0], want, atol=1e-6)
    np.testing.assert_array_equal(got[0], got[1])


def test_priorbox_checks():
    img, fmap = image("img", 3, 8, 8), image("fmap", 2, 2, 2)
    with pytest.raises(LayerConfigError, match="max_size has 1 entries and min_size 2"):
        L.priorbox(
            input=fmap, image=img, aspect_ratio=[2.0], variance=VAR, min_size=[2, 3], max_size=[4]
        )
    with pytest.raises(LayerConfigError, match="variance has 3 values"):
        L.priorbox(input=fmap, image=img, aspect_ratio=[2.0], variance=VAR[:3], min_size=[2])
    flat = L.data(name="flat", type=DT.dense_vector(8))
    with pytest.raises(LayerConfigError, match="is not an image"):
        L.priorbox(input=flat, image=img, aspect_ratio=[2.0], variance=VAR, min_size=[2])


# cross_channel_norm -------------------------------------------------------------------
def test_cross_channel_norm_forward_and_v2_backward():
    fmap = image("fmap", 3, 2, 2)
    norm = L.cross_channel_norm(input=fmap, param_attr=paddle.attr.Param(initial_std=0.0))
    (param,) = norm.params
    assert (param.name, param.shape) == ("___cross_channel_norm_0__.w0", (3, 1))
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 12)).astype(np.float32)
    scale = np.array([[2.0], [0.5], [1.5]], np.float32)
    got = run(norm, {"fmap": x}, {param.name: scale})
    x3 = x.astype(np.float64).reshape(2, 3, 4)
    n = np.sqrt((x3**2).sum(axis=1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(got, (x3 / n * scale[None]).reshape(2, 12), rtol=1e-5)

    g = rng.normal(size=(2, 12)).astype(np.float32)
    f = lambda xx, s: forward([norm], {param.name: s}, {"fmap": xx})[0][0]  # noqa: E731
    _, vjp = jax.vjp(f, x, scale)
    dx, ds = vjp(g)
    g3 = g.reshape(2, 3, 4).astype(np.float64)
    want_ds = (g3 * x3 / n).sum(axis=(0, 2))[:, None]
    dot = (x3 * g3).sum(axis=1, keepdims=True)
    want_dx = scale[None] * (g3 - x3 * dot / n**2) / n
    np.testing.assert_allclose(ds, want_ds, rtol=1e-4)
    np.testing.assert_allclose(dx, want_dx.reshape(2, 12), rtol=1e-4, atol=1e-6)


def test_cross_channel_norm_gradient_is_exact_for_equal_scales(x64):
    fmap = image("fmap", 3, 1, 2)
    norm = L.cross_channel_norm(input=fmap)
    x = np.random.default_rng(2).normal(size=(2, 6))
    scale = np.full((3, 1), 1.7)

    def f(xx):
        return jnp.sum(jnp.sin(forward([norm], {norm.params[0].name: scale}, {"fmap": xx})[0][0]))

    check_grads(f, (x,), order=1, modes=["rev"])


def test_cross_channel_norm_needs_an_image():
    with pytest.raises(LayerConfigError, match="not a dense image"):
        L.cross_channel_norm(input=L.data(name="v", type=DT.dense_vector(4)))


# matching ------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_matching_follows_v2(seed):
    rng = np.random.default_rng(seed)
    lo = rng.uniform(0, 0.7, size=(12, 2))
    priors = np.concatenate([lo, lo + rng.uniform(0.1, 0.3, size=(12, 2))], axis=1)
    glo = rng.uniform(0, 0.6, size=(3, 2))
    gts = np.concatenate([glo, glo + rng.uniform(0.2, 0.4, size=(3, 2))], axis=1)
    gts_padded = np.concatenate([gts, np.zeros((1, 4))])
    valid = np.array([True, True, True, False])
    got_idx, got_ov = match_priors(priors, gts_padded, valid, 0.3)
    want_idx, want_ov = ref.match(list(priors), list(gts), 0.3)
    np.testing.assert_array_equal(got_idx, want_idx)
    np.testing.assert_allclose(got_ov, want_ov, rtol=1e-5)


# multibox_loss ---------------------------------------------------------------------------
N_CLASS = 3
LABELS = [
    [[1, 0.05, 0.1, 0.45, 0.5, 0], [2, 0.5, 0.45, 0.95, 0.9, 0]],
    [[1, 0.3, 0.2, 0.8, 0.7, 0]],
    [],
]


def ssd_head():
    """Two feature maps (2x2 and 1x1, 4 priors per pixel): 20 priors."""
    img = image("img", 3, 8, 8)
    locs = [image("loc1", 16, 2, 2), image("loc2", 16, 1, 1)]
    confs = [image("conf1", 4 * N_CLASS, 2, 2), image("conf2", 4 * N_CLASS, 1, 1)]
    pbs = [
        L.priorbox(
            input=loc, image=img, aspect_ratio=[2.0], variance=VAR, min_size=[m], max_size=[x]
        )
        for loc, m, x in ((locs[0], 3, 5), (locs[1], 5, 8))
    ]
    return img, locs, confs, L.concat(input=pbs)


def head_feeds(seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    feeds = {"img": np.zeros((3, 192), dtype)}
    for name, size in (("loc1", 64), ("loc2", 16), ("conf1", 48), ("conf2", 12)):
        feeds[name] = rng.normal(scale=0.8, size=(3, size)).astype(dtype)
    return feeds


def label_seq(labels, dtype=np.float32):
    data = np.zeros((len(labels), 2, 6), dtype)
    for i, boxes in enumerate(labels):
        if boxes:
            data[i, : len(boxes)] = boxes
    return Seq(data, np.array([len(b) for b in labels], np.int32))


def nhwc(feeds, names, pixels):
    return np.concatenate(
        [ref.nchw_to_nhwc(feeds[n], p) for n, p in zip(names, pixels, strict=True)], axis=1
    )


def to_nchw(grad, names, sizes, pixels):
    """Split an NHWC gradient by input and transpose each back to NCHW."""
    out, start = {}, 0
    for name, size, hw in zip(names, sizes, pixels, strict=True):
        part = grad[:, start : start + size]
        c = size // hw
        out[name] = part.reshape(-1, hw, c).transpose(0, 2, 1).reshape(-1, size)
        start += size
    return out


@pytest.mark.parametrize("ratio", [3.0, 1.5])
def test_multibox_loss_value_and_gradient(x64, ratio):
    img, locs, confs, prior = ssd_head()
    cost = L.multibox_loss(
        input_loc=locs,
        input_conf=confs,
        priorbox=prior,
        label=L.data(name="gt", type=DT.dense_vector_sequence(6)),
        num_classes=N_CLASS,
        overlap_threshold=0.3,
        neg_pos_ratio=ratio,
        neg_overlap=0.4,
    )
    assert cost.name == "__multibox_loss_0__" and cost.size == 1
    assert [i.name for i in cost.inputs] == ["__concat_0__", "gt", "loc1", "loc2", "conf1", "conf2"]
    feeds = {**head_feeds(3, np.float64), "gt": label_seq(LABELS, np.float64)}
    prior_row = np.asarray(run(prior, feeds))[0]
    attrs = dict(cost.attrs)
    loc = nhwc(feeds, ["loc1", "loc2"], [4, 1])
    conf = nhwc(feeds, ["conf1", "conf2"], [4, 1])
    want, g_loc, g_conf = ref.multibox(prior_row, loc, conf, LABELS, attrs)
    assert want > 0
    np.testing.assert_allclose(np.asarray(run(cost, feeds)), np.full((3, 1), want), rtol=1e-7)

    names = ["loc1", "loc2", "conf1", "conf2"]
    total = lambda f: jnp.sum(forward([cost], {}, {**feeds, **f})[0][0])  # noqa: E731
    grads = jax.grad(total)({n: feeds[n] for n in names})
    want_g = {
        **to_nchw(g_loc, ["loc1", "loc2"], [64, 16], [4, 1]),
        **to_nchw(g_conf, ["conf1", "conf2"], [48, 12], [4, 1]),
    }
    for n in names:
        np.testing.assert_allclose(grads[n], want_g[n], rtol=1e-5, atol=1e-7)


def test_multibox_loss_without_boxes_is_zero():
    img, locs, confs, prior = ssd_head()
    gt = L.data(name="gt", type=DT.dense_vector_sequence(6))
    cost = L.multibox_loss(
        input_loc=locs, input_conf=confs, priorbox=prior, label=gt, num_classes=N_CLASS
    )
    feeds = {**head_feeds(0), "gt": label_seq([[], [], []])}
    np.testing.assert_array_equal(run(cost, feeds), np.zeros((3, 1)))


def test_multibox_loss_checks():
    img, locs, confs, prior = ssd_head()
    gt = L.data(name="gt", type=DT.dense_vector_sequence(6))
    with pytest.raises(LayerConfigError, match="background_id"):
        L.multibox_loss(
            input_loc=locs,
            input_conf=confs,
            priorbox=prior,
            label=gt,
            num_classes=2,
            background_id=2,
        )
    with pytest.raises(LayerConfigError, match="2 input_loc layers but 1 input_conf"):
        L.multibox_loss(
            input_loc=locs, input_conf=confs[0], priorbox=prior, label=gt, num_classes=3
        )
    bad = L.data(name="bad", type=DT.dense_vector_sequence(5))
    with pytest.warns(LayerConfigWarning, match="less than the 6 values of a box"):
        L.multibox_loss(input_loc=locs, input_conf=confs, priorbox=prior, label=bad, num_classes=3)
    wrong = L.multibox_loss(
        input_loc=locs, input_conf=confs, priorbox=prior, label=gt, num_classes=4
    )
    with pytest.raises(LayerConfigError, match="confidence inputs hold 60 values"):
        run(wrong, {**head_feeds(0), "gt": label_seq(LABELS)})
    with pytest.raises(LayerTypeError, match="input_loc"):
        L.multibox_loss(input_loc="loc", input_conf=confs, priorbox=prior, label=gt, num_classes=3)


# detection_output ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "settings",
    [
        {"nms_threshold": 0.3, "nms_top_k": 400, "keep_top_k": 200, "confidence_threshold": 0.2},
        {"nms_threshold": 0.45, "nms_top_k": 5, "keep_top_k": 6, "confidence_threshold": 0.01},
        {
            "nms_threshold": 0.6,
            "nms_top_k": 3,
            "keep_top_k": 0,
            "confidence_threshold": 0.3,
            "background_id": 1,
        },
    ],
)
def test_detection_output_rows_are_v2s(settings):
    img, locs, confs, prior = ssd_head()
    det = L.detection_output(
        input_loc=locs, input_conf=confs, priorbox=prior, num_classes=N_CLASS, **settings
    )
    assert det.size == 7 and det.spec.seq_level == 1
    feeds = head_feeds(5)
    prior_row = np.asarray(run(prior, feeds))[0].astype(np.float64)
    loc = nhwc(feeds, ["loc1", "loc2"], [4, 1]).astype(np.float64)
    conf = nhwc(feeds, ["conf1", "conf2"], [4, 1]).astype(np.float64)
    attrs = {"num_classes": N_CLASS, "background_id": 0, **settings}
    want = ref.detection_output(prior_row, loc, conf, attrs)
    assert len(want) > 3
    params = paddle.parameters.create(det)
    names = ["img", "loc1", "loc2", "conf1", "conf2"]
    samples = [tuple(feeds[n][i] for n in names) for i in range(3)]
    got = paddle.infer(output_layer=det, parameters=params, input=samples)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    value = run(det, feeds)
    np.testing.assert_array_equal(value.lengths, [np.sum(want[:, 0] == i) for i in range(3)])


# detection_map --------------------------------------------------------------------------------
def _det_seq(rows_per_image, cap=4):
    data = np.zeros((len(rows_per_image), cap, 7), np.float32)
    for i, rows in enumerate(rows_per_image):
        for j, r in enumerate(rows):
            data[i, j] = [i, *r]
    return Seq(data, np.array([len(r) for r in rows_per_image], np.int32))


def _map_evaluator(as_list=False, **kwargs):
    img, locs, confs, prior = ssd_head()
    det = L.detection_output(input_loc=locs, input_conf=confs, priorbox=prior, num_classes=N_CLASS)
    gt = L.data(name="gt", type=DT.dense_vector_sequence(6))
    return paddle.evaluator.detection_map(input=[det] if as_list else det, label=gt, **kwargs)


@pytest.mark.parametrize(
    ("ap_type", "want"),
    [("11point", (6 + 5 * 2 / 3) / 11 * 100), ("Integral", (0.5 + 0.5 * 2 / 3) * 100)],
)
def test_detection_map_hand_checked(ap_type, want):
    ev = _map_evaluator(ap_type=ap_type, as_list=True)
    assert isinstance(ev, DetectionMAP) and ev.name == "__detection_map_evaluator_0__"
    gt = label_seq([[[1, 0.1, 0.1, 0.4, 0.4, 0]], [[1, 0.5, 0.5, 0.9, 0.9, 0]]])
    # class 1: 0.9 TP (image 0), 0.8 FP (image 1, misses), 0.7 TP (image 1)
    det = _det_seq(
        [
            [[1, 0.9, 0.1, 0.1, 0.4, 0.4]],
            [[1, 0.8, 0.0, 0.0, 0.2, 0.2], [1, 0.7, 0.5, 0.5, 0.9, 0.9]],
        ]
    )
    stats = total_stats([ev.batch_stats([det, gt])])
    got = ev.result(stats)[ev.name]
    assert got == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("evaluate_difficult", [False, True])
@pytest.mark.parametrize("ap_type", ["11point", "Integral"])
def test_detection_map_against_v2_loops(evaluate_difficult, ap_type):
    rng = np.random.default_rng(7)
    ev = _map_evaluator(
        evaluate_difficult=evaluate_difficult, ap_type=ap_type, overlap_threshold=0.4
    )
    batches, stats = [], []
    for _ in range(2):
        labels, dets = [], []
        for _ in range(3):
            n_gt = int(rng.integers(0, 3))
            lo = rng.uniform(0, 0.5, size=(n_gt, 2))
            boxes = np.concatenate([lo, lo + rng.uniform(0.2, 0.4, size=(n_gt, 2))], axis=1)
            labels.append([[int(rng.integers(1, 3)), *b, int(rng.random() < 0.3)] for b in boxes])
            rows = []
            for _ in range(int(rng.integers(0, 5))):
                if labels[-1] and rng.random() < 0.7:
                    src = labels[-1][int(rng.integers(len(labels[-1])))]
                    c, box = src[0], np.asarray(src[1:5]) + rng.normal(scale=0.05, size=4)
                else:
                    c, box = (
                        int(rng.integers(1, 3)),
                        np.sort(rng.uniform(0, 1, size=4))[[0, 1, 2, 3]],
                    )
                rows.append([c, float(np.float32(rng.uniform(0.05, 1.0))), *box])
            dets.append(rows)
        flat = np.asarray(
            [[i, *r] for i, rows in enumerate(dets) for r in rows], np.float32
        ).reshape(-1, 7)
        batches.append((flat.astype(np.float64), labels))
        stats.append(ev.batch_stats([_det_seq(dets, cap=5), label_seq(labels)]))
    want = ref.detection_map(batches, 0.4, evaluate_difficult, ap_type)
    assert ev.result(total_stats(stats))[ev.name] == pytest.approx(want, rel=1e-5)


def test_detection_map_checks():
    with pytest.raises(LayerConfigError, match="ap_type"):
        _map_evaluator(ap_type="voc")
    gt = L.data(name="gt2", type=DT.dense_vector_sequence(6))
    with pytest.raises(LayerConfigError, match="expected the output of"):
        paddle.evaluator.detection_map(
            input=L.data(name="rows", type=DT.dense_vector_sequence(7)), label=gt
        )
