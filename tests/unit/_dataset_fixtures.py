"""Dataset test helpers: data homes, a blocked network, small files in the original formats."""

from __future__ import annotations

import gzip
import io
import os
import pickle
import tarfile
import urllib.error
import zipfile
from pathlib import Path

import numpy as np
import pytest

from paddle_lite._src.dataset import download as download_mod


def shared_root() -> Path:
    """Return the shared folder of real data and v2 model files (it may not exist).

    ``PADDLE_LITE_SHARED`` overrides the default ``../shared`` beside the checkout; pointing
    it at a missing folder runs the suite as a fresh clone on a new machine would.
    """
    env = os.environ.get("PADDLE_LITE_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared"


def shared_datasets() -> Path:
    """Return the folder of real data sets (it may not exist)."""
    return shared_root() / "datasets"


def shared_or_skip(*parts: str) -> Path:
    """Return a path inside the shared data folder, or skip the test when it is absent."""
    path = shared_datasets().joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real data {path} is not available on this machine")
    return path


def block_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make every download attempt fail at once; return the list of URLs that were tried."""
    tried: list[str] = []

    def refuse(url, *args, **kwargs):
        tried.append(str(url))
        raise urllib.error.URLError("network disabled in tests")

    monkeypatch.setattr(download_mod.urllib.request, "urlopen", refuse)
    return tried


def use_home(path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point ``PADDLE_LITE_DATA_HOME`` at ``path`` and return it."""
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(path))
    return path


def link_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, links: dict[str, Path]) -> Path:
    """Build a data home of symlinks ``{relative name: real path}`` and point the env var at it."""
    home = tmp_path / "linked_home"
    for rel, target in links.items():
        dest = home / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.symlink_to(target)
    return use_home(home, monkeypatch)


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def write_gz(path: Path, data: bytes) -> Path:
    return write(path, gzip.compress(data))


def idx_images(images: np.ndarray) -> bytes:
    """IDX bytes (magic 2051) for uint8 images of shape [n, 28, 28]."""
    header = np.array([2051, len(images), 28, 28], dtype=">u4").tobytes()
    return header + images.astype(np.uint8).tobytes()


def idx_labels(labels: np.ndarray) -> bytes:
    """IDX bytes (magic 2049) for uint8 labels."""
    return np.array([2049, len(labels)], dtype=">u4").tobytes() + labels.astype(np.uint8).tobytes()


def make_tar(path: Path, members: dict[str, bytes], mode: str = "w:gz") -> Path:
    """Write a tar archive with the given ``{member name: bytes}``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, mode) as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def write_tree(root: Path, members: dict[str, bytes]) -> Path:
    for name, data in members.items():
        write(root / name, data)
    return root


def cifar_batch(n: int, seed: int, label_key: str, n_classes: int, byte_keys: bool = True) -> bytes:
    """A pickled CIFAR batch (protocol 2, as written by Python 2) of ``n`` random images."""
    rng = np.random.default_rng(seed)
    batch = {
        "data": rng.integers(0, 256, size=(n, 3072), dtype=np.uint8),
        label_key: [int(v) for v in rng.integers(0, n_classes, size=n)],
        "batch_label": "fixture batch",
    }
    if byte_keys:
        batch = {k.encode(): v for k, v in batch.items()}
    return pickle.dumps(batch, protocol=2)


PTB_TRAIN = b"the cat sat\nthe dog sat on the mat\n<unk> cat\n"
PTB_VALID = b"the cat ran\n"

CONLL_WORDS = b"\n".join([b"Hi", b"there", b"", b"The", b"cat", b"sat", b"on", b"mats", b"", b""])
CONLL_PROPS = b"\n".join(
    [
        b"-",
        b"-",
        b"",
        b"-    (A0*     *",
        b"-       *)  (A1*",
        b"sit   (V*)     *)",
        b"-   (AM-LOC*   *",
        b"lie      *)   (V*)",
        b"",
        b"",
    ]
)
CONLL_TARGETS = b"B-A0\nB-A1\nB-AM-LOC\nB-V\nI-A0\nI-A1\nI-AM-LOC\nO\n"
CONLL_VERBS = b"lie\nsit\n"
CONLL_WORDDICT = b"<unk>\nbos\neos\nThe\ncat\nsat\non\nmats\n"


def conll_members() -> dict[str, bytes]:
    """The two corpus members of ``conll05st-tests.tar.gz``."""
    base = "conll05st-release/test.wsj"
    return {
        f"{base}/words/test.wsj.words.gz": gzip.compress(CONLL_WORDS),
        f"{base}/props/test.wsj.props.gz": gzip.compress(CONLL_PROPS),
    }
