"""Tests of paddle_lite.dataset.uci_housing."""

from __future__ import annotations

import numpy as np
import pytest

try:
    from tests.unit import _dataset_fixtures as fx
except ImportError:
    import _dataset_fixtures as fx

from paddle_lite._src.dataset import uci_housing as impl
from paddle_lite.dataset import common, uci_housing


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    fx.block_network(monkeypatch)


def _expected(path):
    data = np.loadtxt(path, dtype=np.float64)
    span = data.max(axis=0) - data.min(axis=0)
    feats = (data[:, :-1] - data.mean(axis=0)[:-1]) / span[:-1]
    return feats, data[:, -1]


def test_embedded_copy_is_the_original_file():
    assert common.md5file(impl._EMBEDDED) == "d4accdce7a25600298819f8e28e8d593"


def test_embedded_default_gives_404_and_102(tmp_path, monkeypatch):
    fx.use_home(tmp_path / "empty", monkeypatch)
    train = list(uci_housing.train()())
    test = list(uci_housing.test()())
    assert (len(train), len(test)) == (404, 102)
    feats, price = _expected(impl._EMBEDDED)
    got = np.stack([f for f, _ in train + test])
    assert got.dtype == np.float32 and got.shape == (506, 13)
    np.testing.assert_allclose(got, feats, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose([p[0] for _, p in train + test], price, rtol=1e-6)
    assert train[0][1].shape == (1,) and float(train[0][1][0]) == 24.0
    assert float(test[-1][1][0]) == pytest.approx(11.9)
    assert len(uci_housing.feature_names) == 13 and uci_housing.feature_names[-1] == "LSTAT"
    assert not (tmp_path / "empty").exists()


def test_reader_is_reiterable(tmp_path, monkeypatch):
    fx.use_home(tmp_path, monkeypatch)
    reader = uci_housing.test()
    first = [p[0] for _, p in reader()]
    assert first == [p[0] for _, p in reader()] and len(first) == 102


def test_data_home_file_takes_precedence(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    rows = np.arange(10 * 14, dtype=np.float64).reshape(10, 14)
    fx.write(
        home / "uci_housing" / "housing.data",
        "\n".join(" ".join(str(v) for v in row) for row in rows).encode(),
    )
    train, test = list(uci_housing.train()()), list(uci_housing.test()())
    assert (len(train), len(test)) == (8, 2)
    # each column spans 126 with mean 63 + column index
    np.testing.assert_allclose(train[0][0], np.full(13, -63 / 126), rtol=1e-6)
    assert float(test[-1][1][0]) == 139.0


def test_corrupt_file_names_path_and_md5(tmp_path, monkeypatch):
    home = fx.use_home(tmp_path, monkeypatch)
    bad = fx.write(home / "uci_housing" / "housing.data", b"1 2 3\n4 5 6\n")
    with pytest.raises(common.CorruptFileError) as info:
        uci_housing.train()
    assert str(bad) in str(info.value) and impl.MD5 in str(info.value)


def test_real_file_matches_embedded(tmp_path, monkeypatch):
    real = fx.shared_or_skip("uci_housing", "housing.data")
    fx.link_home(tmp_path, monkeypatch, {"uci_housing/housing.data": real})
    assert common.md5file(str(real)) == impl.MD5
    train = list(uci_housing.train()())
    assert len(train) == 404 and len(list(uci_housing.test()())) == 102
    assert train[0][0][0] == pytest.approx(-0.0405441, abs=1e-6)


def test_model_loads_the_v2_tar_from_the_data_home(tmp_path, monkeypatch):
    import shutil

    from paddle_lite._src.dataset.uci_housing import model
    from tests.unit._dataset_fixtures import shared_or_skip

    real = shared_or_skip("..", "v2_models", "fit_a_line.tar")
    home = tmp_path / "uci_housing"
    home.mkdir()
    shutil.copy(real, home / "fit_a_line.tar")
    monkeypatch.setenv("PADDLE_LITE_DATA_HOME", str(tmp_path))
    params = model()
    assert params.keys() == ["___fc_layer_0__.w0", "___fc_layer_0__.wbias"]
    assert params.get_shape("___fc_layer_0__.w0") == (13, 1)
