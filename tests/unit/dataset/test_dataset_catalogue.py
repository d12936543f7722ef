"""flowers, mq2007, voc2012 and sentiment on small generated files in the original formats;
the network is blocked throughout."""

from __future__ import annotations

import io

import numpy as np
import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite._src import image
from paddle_lite._src.dataset.flowers import MEAN
from paddle_lite._src.dataset.matfile import write_mat
from paddle_lite.dataset import flowers, mq2007, sentiment, voc2012, voc_seg
from paddle_lite.errors import DataError, DownloadError

RNG = np.random.default_rng(13)


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


def _encoded(array, fmt, **kwargs):
    pil = pytest.importorskip("PIL.Image", reason="the image extra (Pillow) encodes the files")
    buf = io.BytesIO()
    pil.fromarray(array, **kwargs).save(buf, format=fmt)
    return buf.getvalue()


# sentiment ---------------------------------------------------------------------------
REVIEWS = {
    "movie_reviews/neg/cv000_1.txt": b"bad , bad film .\nthe end .",
    "movie_reviews/neg/cv001_2.txt": b"it's awful .",
    "movie_reviews/pos/cv000_3.txt": b"good film , the best .",
    "movie_reviews/pos/cv001_4.txt": b"good !",
    "movie_reviews/README": b"not a review",
}


@pytest.mark.parametrize("layout", ["movie_reviews.zip", "corpora/movie_reviews.zip", "folder"])
def test_sentiment_dictionary_and_alternating_samples(tmp_path, monkeypatch, layout):
    home = fx.use_home(tmp_path, monkeypatch) / "sentiment"
    if layout == "folder":
        fx.write_tree(home, REVIEWS)
    else:
        fx.make_zip(home / layout, REVIEWS)
    words = sentiment.get_word_dict()
    # counts: . 4, , 2, bad 2, film 2, good 2, the 2, then ones in word order
    assert [w for w, _ in words[:6]] == [".", ",", "bad", "film", "good", "the"]
    assert [i for _, i in words] == list(range(len(words)))
    ids = dict(words)
    data = sentiment.load_sentiment_data()
    assert [label for _, label in data] == [0, 1, 0, 1]
    assert data[0][0] == [ids[w] for w in ["bad", ",", "bad", "film", ".", "the", "end", "."]]
    assert data[2][0] == [ids[w] for w in ["it", "'", "s", "awful", "."]]  # WordPunct tokens
    assert list(sentiment.train()) == data and list(sentiment.test()) == []


def test_sentiment_missing_corpus_names_the_file_and_the_folder(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(DownloadError, match="movie_reviews.zip.*155de2b77c6834dd8eea7cbe88e93acb"):
        sentiment.get_word_dict()


# mq2007 ------------------------------------------------------------------------------
def _letor_line(rel, qid, seed):
    feats = " ".join(
        f"{i}:{v:.6f}" for i, v in enumerate(np.random.default_rng(seed).random(46), 1)
    )
    return f"{rel} qid:{qid} {feats} #docid = GX{seed:03d} inc = 1 prob = 0.5\n"


def _fold(home):
    lines = [
        _letor_line(0, 10, 1),
        _letor_line(2, 10, 2),
        _letor_line(1, 10, 3),  # 3 docs
        _letor_line(0, 11, 4),
        _letor_line(0, 11, 5),  # all zero: dropped
        "garbage line\n",
        _letor_line(1, 12, 6),
        _letor_line(0, 12, 7),
    ]
    fx.write(home / "mq2007" / "MQ2007" / "Fold1" / "train.txt", "".join(lines).encode())


def test_mq2007_formats(tmp_path, monkeypatch):
    _fold(fx.use_home(tmp_path, monkeypatch))
    feat = {seed: np.random.default_rng(seed).random(46) for seed in range(1, 8)}
    pairs = list(mq2007.train(format="pairwise", shuffle=False))
    # query 10 ranked 2 (doc 2), 1 (doc 3), 0 (doc 1): 3 pairs; query 12: 1 pair
    assert len(pairs) == 4 and all(p[0].tolist() == [1] for p in pairs)
    np.testing.assert_allclose(pairs[0][1], feat[2], atol=1e-6)
    np.testing.assert_allclose(pairs[0][2], feat[3], atol=1e-6)
    np.testing.assert_allclose(pairs[3][2], feat[7], atol=1e-6)
    lists = list(mq2007.train(format="listwise", shuffle=False))
    assert [r.ravel().tolist() for r, _ in lists] == [[2, 1, 0], [1, 0]]
    assert lists[0][1].shape == (3, 46)
    points = list(mq2007.train(format="pointwise", shuffle=False))
    assert [r for r, _ in points] == [2, 1]  # v2 kept the first ranked document per query
    plain = list(mq2007.train(format="plain_txt", shuffle=False))
    assert [(q, r) for q, r, _ in plain] == [(10, 2), (12, 1)]


def test_mq2007_explains_the_rar_and_bad_format(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    with pytest.raises(DataError, match="Fold1/test.txt is missing"):
        list(mq2007.test())
    fx.write(home / "mq2007" / "MQ2007.rar", b"Rar!")
    with pytest.raises(DataError, match="cannot open. Extract it there"):
        list(mq2007.test())
    _fold(home)
    with pytest.raises(ValueError, match="format must be one of"):
        list(mq2007.train(format="triplets"))


# voc2012 -----------------------------------------------------------------------------
def _voc_members():
    members, images = {}, {}
    set_dir = "VOCdevkit/VOC2012/ImageSets/Segmentation/"
    for name in ("2007_000032", "2007_000039", "2007_000063"):
        rgb = RNG.integers(0, 256, size=(6, 8, 3)).astype(np.uint8)
        classes = RNG.integers(0, 3, size=(6, 8)).astype(np.uint8)
        members[f"VOCdevkit/VOC2012/JPEGImages/{name}.jpg"] = _encoded(rgb, "PNG")
        palette = [0, 0, 0, 128, 0, 0, 0, 128, 0] + [0] * (768 - 9)
        png = io.BytesIO()
        pil = pytest.importorskip("PIL.Image")
        img = pil.fromarray(classes, mode="P")
        img.putpalette(palette)
        img.save(png, format="PNG")
        members[f"VOCdevkit/VOC2012/SegmentationClass/{name}.png"] = png.getvalue()
        images[name] = (rgb, classes)
    members[set_dir + "train.txt"] = b"2007_000032\n2007_000063\n"
    members[set_dir + "trainval.txt"] = b"2007_000032\n2007_000039\n2007_000063\n"
    members[set_dir + "val.txt"] = b"2007_000039\n"
    return members, images


@pytest.mark.parametrize("layout", ["tar", "folder"])
def test_voc2012_splits_and_v2s_grey_labels(tmp_path, monkeypatch, layout):
    home = fx.use_home(tmp_path, monkeypatch) / "voc2012"
    members, images = _voc_members()
    if layout == "tar":
        fx.make_tar(home / "VOCtrainval_11-May-2012.tar", members, mode="w")
    else:
        fx.write_tree(home, members)
    train = list(voc2012.train()())
    assert len(train) == 3 and len(list(voc2012.test()())) == 2
    ((img, label),) = list(voc2012.val()())
    rgb, classes = images["2007_000039"]
    np.testing.assert_array_equal(img, rgb[:, :, ::-1])  # BGR, as OpenCV
    grey = {0: 0, 1: (4899 * 128 + 8192) >> 14, 2: (9617 * 128 + 8192) >> 14}
    np.testing.assert_array_equal(label, np.vectorize(grey.get)(classes))  # palette -> grey


def test_voc_seg_reads_the_same_tar_as_pil_decoded_it(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch) / "voc2012"
    members, images = _voc_members()
    fx.make_tar(home / "VOCtrainval_11-May-2012.tar", members, mode="w")
    assert len(list(voc_seg.train()())) == 3 and len(list(voc_seg.test()())) == 2
    ((img, label),) = list(voc_seg.val()())
    rgb, classes = images["2007_000039"]
    np.testing.assert_array_equal(img, rgb)  # RGB, as PIL
    np.testing.assert_array_equal(label, classes)  # the palette indices: class ids
    assert img.dtype == label.dtype == np.uint8 and img.size == 3 * label.size


# flowers -----------------------------------------------------------------------------
def _flowers_home(home, compress):
    members = {
        f"jpg/image_{i:05d}.jpg": _encoded(
            RNG.integers(0, 256, size=(20, 30, 3)).astype(np.uint8), "JPEG"
        )
        for i in range(1, 7)
    }
    fx.make_tar(home / "flowers" / "102flowers.tgz", members)
    labels = np.array([[5, 1, 102, 7, 7, 3]])
    fx.write(home / "flowers" / "imagelabels.mat", write_mat({"labels": labels}, compress))
    setid = {"trnid": [[2, 4]], "valid": [[6]], "tstid": [[1, 3, 5]]}
    fx.write(home / "flowers" / "setid.mat", write_mat(setid, compress))
    return members


@pytest.mark.parametrize("compress", [False, True])
def test_flowers_swapped_splits_labels_and_mapper(tmp_path, monkeypatch, compress):
    members = _flowers_home(fx.use_home(tmp_path, monkeypatch), compress)
    train = list(flowers.train(use_xmap=False)())
    assert [label for _, label in train] == [4, 101, 6]  # tstid images 1, 3, 5; labels - 1
    assert all(x.shape == (3 * 224 * 224,) and x.dtype == np.float32 for x, _ in train)
    test = list(flowers.test(mapper=lambda s: s, use_xmap=False)())
    assert test == [(members["jpg/image_00002.jpg"], 0), (members["jpg/image_00004.jpg"], 6)]
    valid = sorted(label for _, label in flowers.valid()())  # threads: order not kept
    assert valid == [2]
    want = image.simple_transform(
        image.load_image_bytes(members["jpg/image_00002.jpg"]), 256, 224, False, mean=MEAN
    )
    got = list(flowers.test(use_xmap=False)())[0][0]
    np.testing.assert_allclose(got, want.ravel())


def test_flowers_missing_labels_name_the_file(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    _flowers_home(home, False)
    (home / "flowers" / "setid.mat").unlink()
    with pytest.raises(DownloadError, match="setid.mat.*a5357ecc9cb78c4bef273ce3793fc85c"):
        list(flowers.train(use_xmap=False)())
