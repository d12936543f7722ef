"""Small data files in the formats of v2's data sets, written into a temporary data home.

v2's dataset tests downloaded the real files. These tests run on files of the same format
that they write themselves under ``$PADDLE_LITE_DATA_HOME`` (a temporary folder; downloads
are blocked), so they pass on a machine without network or ``/work/shared``.
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import shutil
import tarfile
import tempfile
import unittest
import urllib.error
from pathlib import Path
from unittest import mock

import numpy as np

from paddle_lite._src.dataset import download as download_mod


class SyntheticHome(unittest.TestCase):
    """A TestCase whose data home is a fresh temporary folder, with the network blocked."""

    def setUp(self):
        self.home = Path(tempfile.mkdtemp())
        patches = [
            mock.patch.dict(os.environ, {"PADDLE_LITE_DATA_HOME": str(self.home)}),
            mock.patch.object(download_mod.urllib.request, "urlopen", side_effect=_refuse),
        ]
        for patch in patches:
            patch.start()
            self.addCleanup(patch.stop)
        self.addCleanup(shutil.rmtree, self.home, True)
        self.write_data()

    def write_data(self):
        """Write the module's files under ``self.home``."""


def _refuse(url, *args, **kwargs):
    raise urllib.error.URLError("network disabled in tests")


def ptb_lines(first_train: str, first_valid: str) -> tuple[bytes, bytes]:
    """PTB-style train/valid text whose first lines are the given ones (v2's test lines)."""
    train = f" {first_train} \n the cat sat on the mat \n a dog ran to the cat \n"
    valid = f" {first_valid} \n the dog sat \n"
    return (train * 20).encode(), (valid * 20).encode()


def write_tar(path: Path, members: dict[str, bytes], mode: str = "w:gz") -> Path:
    """A tar archive of ``{member name: bytes}``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, mode) as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def mnist_files(folder: Path, prefix: str, n: int) -> None:
    """IDX image/label files (gzipped) of ``n`` random images, labels cycling 0..9."""
    rng = np.random.default_rng(n)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    labels = np.arange(n, dtype=np.uint8) % 10
    head = np.array([2051, n, 28, 28], dtype=">u4").tobytes()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{prefix}-images-idx3-ubyte.gz").write_bytes(gzip.compress(head + images.tobytes()))
    head = np.array([2049, n], dtype=">u4").tobytes()
    (folder / f"{prefix}-labels-idx1-ubyte.gz").write_bytes(gzip.compress(head + labels.tobytes()))


def cifar_batch(n: int, label_key: str, n_classes: int) -> bytes:
    """A pickled CIFAR batch (protocol 2, bytes keys as Python 2 wrote them), labels cycling."""
    data = np.random.default_rng(n).integers(0, 256, size=(n, 3072), dtype=np.uint8)
    labels = [i % n_classes for i in range(n)]
    return pickle.dumps({b"data": data, label_key.encode(): labels}, protocol=2)


def letor_lines(queries: int, docs: int) -> str:
    """LETOR 4.0 lines: ``queries`` queries of ``docs`` documents with 46 features each."""
    rng, lines = np.random.default_rng(7), []
    for q in range(queries):
        for d in range(docs):
            feats = " ".join(f"{i}:{v:.6f}" for i, v in enumerate(rng.random(46), 1))
            lines.append(f"{d % 3} qid:{q + 1} {feats} #docid = GX{q:03d}-{d} inc = 1 prob = 0.5")
    return "\n".join(lines) + "\n"


def voc_members(split_sizes: dict[str, int]) -> dict[str, bytes]:
    """VOCdevkit members: small JPEG images, palette PNG class maps and the split lists."""
    pil = __import__("PIL.Image").Image
    rng, members = np.random.default_rng(3), {}
    count = max(split_sizes.values())
    names = [f"2007_{i:06d}" for i in range(count)]
    for name in names:
        jpg, png = io.BytesIO(), io.BytesIO()
        pil.fromarray(rng.integers(0, 256, size=(6, 8, 3), dtype=np.uint8)).save(jpg, "JPEG")
        label = pil.fromarray(rng.integers(0, 21, size=(6, 8), dtype=np.uint8), mode="P")
        label.putpalette([v for i in range(256) for v in (i, 255 - i, i // 2)])
        label.save(png, "PNG")
        members[f"VOCdevkit/VOC2012/JPEGImages/{name}.jpg"] = jpg.getvalue()
        members[f"VOCdevkit/VOC2012/SegmentationClass/{name}.png"] = png.getvalue()
    for split, size in split_sizes.items():
        text = "".join(n + "\n" for n in names[:size]).encode()
        members[f"VOCdevkit/VOC2012/ImageSets/Segmentation/{split}.txt"] = text
    return members


def shared_datasets() -> Path:
    """The folder of real data sets (``$PADDLE_LITE_SHARED/datasets``, default
    ``../shared/datasets`` beside the checkout); it may not exist."""
    env = os.environ.get("PADDLE_LITE_SHARED")
    root = Path(env) if env else Path(__file__).resolve().parents[3] / "shared"
    return root / "datasets"
