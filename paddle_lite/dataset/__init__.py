"""Ready-made data sets as v2 reader creators (v2 ``paddle.v2.dataset``).

Files live in ``<data home>/<module>/``; the data home is ``~/.cache/paddle_lite/dataset`` or
the folder named by ``PADDLE_LITE_DATA_HOME``. Every module also accepts the extracted files of
its archive there, so the data sets work offline once the files are copied in.
"""

from paddle_lite.dataset import (
    cifar,
    common,
    conll05,
    flowers,
    imdb,
    imikolov,
    mnist,
    movielens,
    mq2007,
    sentiment,
    uci_housing,
    voc2012,
    voc_seg,
    wmt14,
    wmt16,
)

__all__ = [
    "cifar",
    "common",
    "conll05",
    "flowers",
    "imdb",
    "imikolov",
    "mnist",
    "movielens",
    "mq2007",
    "sentiment",
    "uci_housing",
    "voc2012",
    "voc_seg",
    "wmt14",
    "wmt16",
]
