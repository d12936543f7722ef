"""UCI Boston housing: 506 rows of 13 features and the median price, split 404 / 102.

Each feature column is normalised as ``(x - mean) / (max - min)`` with statistics over all
506 rows; the price (in $1000) is kept as it is. The first ``int(506 * 0.8) = 404`` rows are
the training set and the remaining 102 the test set, without shuffling.

The file is ``<data home>/uci_housing/housing.data`` when present; otherwise the copy shipped
inside the package (the original file, md5 ``d4accdce7a25600298819f8e28e8d593``) is used, so
no download is ever needed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from paddle_lite._src.dataset import common
from paddle_lite._src.dataset.download import download, module_home
from paddle_lite._src.dataset.sources import corrupt
from paddle_lite._src.readers import seekable as seek
from paddle_lite._src.readers.length import SizedReader

if TYPE_CHECKING:
    from paddle_lite._src.parameters import Parameters

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
MD5 = "d4accdce7a25600298819f8e28e8d593"
MODEL_URL = "http://paddlemodels.bj.bcebos.com/uci_housing/fit_a_line.tar"
MODEL_MD5 = "52fc3da8ef3937822fcdd87ee05c0c9b"
FEATURE_NUM = 14
TRAIN_RATIO = 0.8

feature_names = [
    "CRIM",
    "ZN",
    "INDUS",
    "CHAS",
    "NOX",
    "RM",
    "AGE",
    "DIS",
    "RAD",
    "TAX",
    "PTRATIO",
    "B",
    "LSTAT",
]

_EMBEDDED = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "dataset",
    "data",
    "housing.data",
)


def data_file() -> str:
    """Return the housing file in use: the data-home copy if present, else the embedded one."""
    local = os.path.join(module_home("uci_housing"), "housing.data")
    return local if os.path.isfile(local) else _EMBEDDED


def load_data(
    filename: str, feature_num: int = FEATURE_NUM, ratio: float = TRAIN_RATIO
) -> tuple[np.ndarray, np.ndarray]:
    """Load, normalise and split the housing rows.

    Args:
      filename: a ``housing.data`` file (whitespace-separated numbers).
      feature_num: values per row (13 features + price).
      ratio: fraction of rows, from the top, that form the training set.

    Returns:
      ``(train, test)`` float32 arrays of shape ``[404, 14]`` and ``[102, 14]`` for the real file.

    Raises:
      CorruptFileError: the file does not hold a whole number of 14-value rows.
    """
    try:
        data = np.loadtxt(filename, dtype=np.float64)
    except ValueError as exc:
        raise corrupt(filename, f"not a table of numbers ({exc})", MD5) from exc
    if data.ndim != 2 or data.shape[1] != feature_num or data.shape[0] < 2:
        raise corrupt(
            filename, f"expected rows of {feature_num} numbers, received shape {data.shape}", MD5
        )
    maximums, minimums = data.max(axis=0), data.min(axis=0)
    averages = data.sum(axis=0) / data.shape[0]
    span = np.where(maximums > minimums, maximums - minimums, 1.0)
    features = (data[:, :-1] - averages[:-1]) / span[:-1]
    data = np.concatenate([features, data[:, -1:]], axis=1).astype(np.float32)
    offset = int(data.shape[0] * ratio)
    return data[:offset], data[offset:]


def _reader_creator(part: int) -> Callable[[], Iterator[tuple[np.ndarray, np.ndarray]]]:
    """The reader of one part: seekable, its rows held in memory."""
    rows = load_data(data_file())[part]
    return SizedReader(seek.seekable(lambda: seek.Mapped(_sample, [rows])), len(rows))


def _sample(row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return row[:-1].copy(), row[-1:].copy()


def train() -> Callable[[], Iterator[tuple[np.ndarray, np.ndarray]]]:
    """Create the training reader (404 samples).

    Returns:
      A reader yielding ``(features float32[13], price float32[1])``; ``len()`` is 404.

    Example:
      >>> features, price = next(iter(train()()))
      >>> features.shape, price.shape
      ((13,), (1,))
    """
    return _reader_creator(0)


def test() -> Callable[[], Iterator[tuple[np.ndarray, np.ndarray]]]:
    """Create the test reader (102 samples).

    Returns:
      A reader yielding ``(features float32[13], price float32[1])``; ``len()`` is 102.
    """
    return _reader_creator(1)


def model() -> Parameters:
    """The pre-trained chapter 1 parameters (``fit_a_line.tar``, written by v2).

    Read from ``<data home>/uci_housing/fit_a_line.tar`` when present, else downloaded.

    Returns:
        A ``paddle.parameters.Parameters`` with ``___fc_layer_0__.w0`` (13, 1) and
        ``___fc_layer_0__.wbias`` (1, 1).
    """
    path = download(MODEL_URL, "uci_housing", MODEL_MD5)
    # The one dataset function that returns parameters, as in v2; imported late so the
    # dataset package stays free of the compute stack at import.
    from paddle_lite._src.parameters import Parameters

    return Parameters.from_tar(path)


def fetch() -> str:
    """Download ``housing.data`` into the data home (the embedded copy makes this optional).

    Returns:
      The path of the downloaded file.
    """
    return download(URL, "uci_housing", MD5)


def convert(path: str) -> None:
    """Write the training and test sets as shards under ``path`` (see ``common.convert``)."""
    common.convert(path, train(), 1000, "uci_housing_train")
    common.convert(path, test(), 1000, "uci_housing_test")
