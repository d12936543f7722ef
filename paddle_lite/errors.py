"""Every error paddle_lite raises on purpose, under one base class, ``PaddleLiteError``.

Each also subclasses the builtin a v2 program would catch (``ValueError``, ``TypeError``,
``RuntimeError``, ``FloatingPointError``), so ``except ValueError`` keeps working;
``except paddle.errors.PaddleLiteError`` catches them all. ``DataWarning`` is the warning
category for suspicious data that is not an error.
"""

from paddle_lite._src.checkpoints import CheckpointError
from paddle_lite._src.dataset.cifar import UnsafePickleError
from paddle_lite._src.dataset.common import DatasetValueError
from paddle_lite._src.dataset.download import DownloadError
from paddle_lite._src.dataset.sources import CorruptFileError
from paddle_lite._src.errors import (
    ConfigError,
    DataError,
    DataWarning,
    LayerConfigError,
    LayerTypeError,
    NonFiniteError,
    PaddleLiteError,
    ParameterError,
    ReaderError,
    TopologyError,
)
from paddle_lite._src.layers.mixed import AddToSealedMixedLayerException
from paddle_lite._src.lr_schedules import OptimizerConfigError
from paddle_lite._src.readers.decorator import ComposeNotAligned, ReaderTypeError
from paddle_lite._src.readers.parallel import ReaderProcessError
from paddle_lite._src.regularizers import OptimizerArgumentError

__all__ = [
    "AddToSealedMixedLayerException",
    "CheckpointError",
    "ComposeNotAligned",
    "ConfigError",
    "CorruptFileError",
    "DataError",
    "DataWarning",
    "DatasetValueError",
    "DownloadError",
    "LayerConfigError",
    "LayerTypeError",
    "NonFiniteError",
    "OptimizerArgumentError",
    "OptimizerConfigError",
    "PaddleLiteError",
    "ParameterError",
    "ReaderError",
    "ReaderProcessError",
    "ReaderTypeError",
    "TopologyError",
    "UnsafePickleError",
]
