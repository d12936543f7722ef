"""Every error paddle_lite raises on purpose, under one base class, ``PaddleLiteError``.

Each also subclasses the builtin a v2 program would catch (``ValueError``, ``TypeError``,
``RuntimeError``, ``FloatingPointError``), so ``except ValueError`` keeps working;
``except paddle.errors.PaddleLiteError`` catches them all. ``DataWarning`` is the warning
category for suspicious data that is not an error, ``CostWarning`` the one for a
layer passed as ``cost=`` that is not a cost.
"""

from paddle_lite._src.checkpoints import CheckpointError
from paddle_lite._src.dataset.cifar import UnsafePickleError
from paddle_lite._src.dataset.common import DatasetValueError
from paddle_lite._src.dataset.download import DownloadError
from paddle_lite._src.dataset.sources import CorruptFileError
from paddle_lite._src.errors import (
    ArgumentTypeError,
    ConfigError,
    CostWarning,
    DataError,
    DataWarning,
    LayerConfigError,
    LayerTypeError,
    MissingDependencyError,
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
    "ArgumentTypeError",
    "CheckpointError",
    "ComposeNotAligned",
    "ConfigError",
    "CorruptFileError",
    "CostWarning",
    "DataError",
    "DataWarning",
    "DatasetValueError",
    "DownloadError",
    "LayerConfigError",
    "LayerTypeError",
    "MissingDependencyError",
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
