"""Every error paddle_lite raises on purpose, under one base class, ``PaddleLiteError``.

Each also subclasses the builtin a v2 program would catch (``ValueError``, ``TypeError``,
``RuntimeError``, ``FloatingPointError``), so ``except ValueError`` keeps working;
``except paddle.errors.PaddleLiteError`` catches them all. The warning categories are here
too: ``DataWarning`` (suspicious data), ``CostWarning`` (a ``cost=`` that is not a cost),
``LayerConfigWarning`` (a layer v2 built but could not run), ``ParameterWarning`` (parameters
a load left alone, or a set that lacks what the cost needs), ``OptimizerWarning`` (a setting
v2 accepted that is almost surely a mistake) and ``TrainingWarning`` (a training call that
does something surprising).
"""

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
    InstalledPaddleError,
    LayerConfigError,
    LayerConfigWarning,
    LayerTypeError,
    MasterError,
    MissingDependencyError,
    NonFiniteError,
    OptimizerWarning,
    PaddleLiteError,
    ParameterError,
    ParameterWarning,
    ReaderError,
    TopologyError,
    TrainerBusyError,
    TrainingWarning,
    V1ConfigError,
)
from paddle_lite._src.layers.mixed import AddToSealedMixedLayerException
from paddle_lite._src.master.etcd import EtcdError, EtcdUnavailable
from paddle_lite._src.optim.regularizers import OptimizerArgumentError
from paddle_lite._src.optim.schedules import OptimizerConfigError
from paddle_lite._src.readers.decorator import ComposeNotAligned, ReaderTypeError
from paddle_lite._src.readers.parallel import ReaderProcessError
from paddle_lite._src.training.checkpoints import CheckpointError, ResumeError
from paddle_lite._src.training.folder_lock import CheckpointLockedError

__all__ = [
    "AddToSealedMixedLayerException",
    "ArgumentTypeError",
    "CheckpointError",
    "CheckpointLockedError",
    "ComposeNotAligned",
    "ConfigError",
    "CorruptFileError",
    "CostWarning",
    "DataError",
    "DataWarning",
    "DatasetValueError",
    "DownloadError",
    "EtcdError",
    "EtcdUnavailable",
    "InstalledPaddleError",
    "LayerConfigError",
    "LayerConfigWarning",
    "LayerTypeError",
    "MasterError",
    "MissingDependencyError",
    "NonFiniteError",
    "OptimizerArgumentError",
    "OptimizerConfigError",
    "OptimizerWarning",
    "PaddleLiteError",
    "ParameterError",
    "ParameterWarning",
    "ReaderError",
    "ReaderProcessError",
    "ReaderTypeError",
    "ResumeError",
    "TopologyError",
    "TrainerBusyError",
    "TrainingWarning",
    "UnsafePickleError",
    "V1ConfigError",
]


def _print_as_public() -> None:
    """Give every class exported here the module users import it from, so an error prints
    as ``paddle_lite.errors.DataError``, not under the private module that defines it
    (pickle finds the classes here too)."""
    for name in __all__:
        globals()[name].__module__ = __name__


_print_as_public()
