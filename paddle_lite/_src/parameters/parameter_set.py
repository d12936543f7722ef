"""``Parameters``: v2's parameter set, named float32 arrays with their specs.

A ``Parameters`` maps parameter names (in creation order) to float32 arrays and keeps
the ``ParamSpec`` of each; a parameter appended without a value is initialised from the
set's seed and its name.

A trainer keeps the values on the device while it trains; ``Parameters``' sync
interface (``lock``, ``version``, ``attach`` / ``receive`` / ``detach``, ``stored``)
is how it, and any other holder of copies, stays in step with the host.

Files: a v2 tar (``to_tar`` / ``from_tar``, byte for byte as PaddlePaddle v2 writes
it; ``files.params``) and an npz read without pickle (``save_npz`` / ``load_npz``;
``files.npz``); a destination given as a path is written atomically.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, Any

import jax
import numpy as np

from paddle_lite._src import config
from paddle_lite._src.errors import ParameterError, ParameterWarning, did_you_mean
from paddle_lite._src.files.atomic import write_output
from paddle_lite._src.files.npz import parameter_arrays, read_parameter_npz, write_npz
from paddle_lite._src.files.params import (
    member_bytes,
    read_parameter_tar,
    read_values,
    source_name,
    write_tar,
)
from paddle_lite._src.initializers import initialize
from paddle_lite._src.proto import parameter_config as proto
from paddle_lite._src.specs import ParamSpec
from paddle_lite._src.tracebacks import api_boundary, user_stacklevel


class Parameters:
    """Named float32 parameter arrays (v2 ``paddle.parameters.Parameters``).

    Example:
        ```python
        params = paddle.parameters.create(cost)
        w = params.get("___fc_layer_0__.w0")      # a copy, shape get_shape(name)
        params.set("___fc_layer_0__.w0", w * 0)
        with open("model.tar", "wb") as f:
            params.to_tar(f)
        ```
    """

    def __init__(self, seed: int | None = None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ParameterError(f"Parameters seed must be an int; received {seed!r}.")
        self._seed = config.default_seed() if seed is None else seed
        self._specs: dict[str, ParamSpec] = {}
        self._values: dict[str, np.ndarray] = {}
        self._pull: Callable[[], None] | None = None  # see attach()
        self._version = 0  # host-side writes (see version)
        self._caches: dict[str, dict[Any, Any]] = {}  # see cache()
        self._grad_source: Callable[[str], Any] | None = None  # see gradients_from()
        self._lock = threading.RLock()  # see lock

    def __getstate__(self) -> dict[str, Any]:
        """A copy (``copy.deepcopy``, pickle) holds the values, not the trainer's hold."""
        values = self._snapshot()
        transient = ("_pull", "_caches", "_grad_source", "_lock")
        return {**{k: v for k, v in self.__dict__.items() if k not in transient}, "_values": values}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._pull, self._caches, self._grad_source = None, {}, None
        self._lock = threading.RLock()

    @property
    def seed(self) -> int:
        """The seed a parameter appended without a value is initialised from."""
        return self._seed

    # the device's side -------------------------------------------------------------
    # A trainer keeps the parameters on the device while it trains; these few methods
    # are how it (and any other holder of copies, e.g. a cached inferer) stays in sync.

    @property
    def lock(self) -> threading.RLock:
        """The re-entrant lock that orders reads and writes of this set, and the trainer
        holding it, across threads: a read sees the values of one whole training step."""
        return self._lock

    @property
    def version(self) -> int:
        """How many host-side writes this set has had (``set``, ``update``, loads, a
        trainer letting go): a holder of copies reloads when it changes."""
        return self._version

    @property
    def holder(self) -> Callable[[], None] | None:
        """The ``pull`` of the trainer holding newer values on the device, or None."""
        return self._pull

    def attach(self, pull: Callable[[], None]) -> None:
        """A trainer now holds newer values on the device: ``pull()`` (which stores them
        here with [`receive`][paddle_lite.parameters.Parameters.receive]) runs before every read of
        this set."""
        self._pull = pull

    def detach(self) -> None:
        """The trainer has let go (its last values received): a host-side change."""
        self._pull = None
        self._version += 1

    def refresh(self) -> None:
        """Bring in the holder's newer values, if a trainer holds them."""
        if self._pull is not None:
            self._pull()

    def _snapshot(self) -> dict[str, np.ndarray]:
        """The values of one moment (``{name: array}``, not to be written to): stored
        arrays are replaced, never changed in place, so the dict is enough."""
        with self._lock:
            self.refresh()
            return dict(self._values)

    def stored(self, name: str) -> np.ndarray:
        """Parameter ``name`` as stored here, without pulling newer values and without a
        copy (do not write to it)."""
        return self._values[name]

    def receive(self, values: Mapping[str, np.ndarray]) -> None:
        """Store values the holder pulled from the device (not a host-side write:
        [`version`][paddle_lite.parameters.Parameters.version] does not change). The arrays are kept
        as given."""
        self._values.update(values)

    def cache(self, what: str) -> dict[Any, Any]:
        """The cache named ``what`` that lives as long as this set does (``paddle.infer``'s
        compiled inferers, the functional ``paddle.train``'s trainers); its entries hold
        the objects their keys name, so a key is never reused while cached."""
        return self._caches.setdefault(what, {})

    def _write(self, values: Mapping[str, np.ndarray]) -> None:
        """Store checked values: every host-side write goes through here, so a trainer
        (or a cached inferer) holding older values reloads them."""
        with self._lock:
            self.refresh()
            self._values.update(values)
            self._version += 1

    def __repr__(self) -> str:
        total = sum(spec.size for spec in self._specs.values())
        return f"<Parameters {len(self._specs)} arrays, {total:,} values>"

    # names -------------------------------------------------------------------------
    def keys(self) -> list[str]:
        """The parameter names, in creation order."""
        return list(self._specs)

    names = keys

    def has_key(self, key: str) -> bool:
        """True when a parameter is named ``key`` (v2's spelling of ``key in params``)."""
        return key in self._specs

    def __contains__(self, key: object) -> bool:
        return key in self._specs

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._specs))

    def __len__(self) -> int:
        return len(self._specs)

    # specs -------------------------------------------------------------------------
    @api_boundary
    def get_shape(self, key: str) -> tuple[int, ...]:
        """The shape of parameter ``key`` (``(1, size)`` for a config without dims)."""
        if not isinstance(key, str):
            raise ParameterError(
                f"parameter name should be string; received {key!r} of type {type(key).__name__}."
            )
        if key not in self._specs:
            raise ParameterError(
                f"No such parameter {key!r}; this set has {len(self._specs)} parameters."
                + did_you_mean(key, self._specs)
            )
        return tuple(self._specs[key].shape)

    def spec(self, name: str) -> ParamSpec:
        """The ``ParamSpec`` of parameter ``name``."""
        self.get_shape(name)
        return self._specs[name]

    def specs(self) -> list[ParamSpec]:
        """Every ``ParamSpec``, in creation order."""
        return list(self._specs.values())

    @property
    def __param_conf__(self) -> dict[str, proto.ParameterConfig]:
        """Name -> ``ParameterConfig`` as v2 writes it (v2's attribute of that name).

        v2 programs read it to log each parameter's ``initial_mean``, ``initial_std`` and
        ``dims``; the configs are built fresh, so changing them changes nothing.
        """
        return {name: proto.from_spec(spec) for name, spec in self._specs.items()}

    @api_boundary
    def append_spec(self, spec: ParamSpec | proto.ParameterConfig, value: Any = None) -> None:
        """Add a parameter (v2 ``__append_config__``), initialised unless ``value`` is given.

        Args:
            spec: its ``ParamSpec`` (or a decoded ``ParameterConfig``).
            value: an ndarray of ``spec.shape``; ``None`` initialises it from the seed.
        """
        if isinstance(spec, proto.ParameterConfig):
            spec = proto.to_spec(spec)
        if not isinstance(spec, ParamSpec):
            raise ParameterError(
                f"append_spec needs a ParamSpec; received {spec!r} of type {type(spec).__name__}."
            )
        if spec.name in self._specs:
            raise ParameterError(f"duplicated parameter name: '{spec.name}' is already here.")
        shape = tuple(spec.shape)
        array = initialize(spec, self._seed) if value is None else _float32(spec.name, shape, value)
        self._specs[spec.name], self._values[spec.name] = spec, array

    __append_config__ = append_spec

    # values ------------------------------------------------------------------------
    @api_boundary
    def get(self, parameter_name: str) -> np.ndarray:
        """A float32 copy of a parameter, of shape ``get_shape(parameter_name)``."""
        self.get_shape(parameter_name)
        return self._snapshot()[parameter_name].copy()

    def __getitem__(self, key: str) -> np.ndarray:
        return self.get(key)

    @api_boundary
    def get_grad(self, key: str) -> np.ndarray:
        """The gradient of the summed cost of the batch just trained with respect to
        parameter ``key``, inside an ``EndForwardBackward`` handler (v2 kept it there),
        computed when asked at the parameters after the batch's update (as ``event.gm``
        computes layer outputs); zeros elsewhere and for parameters not trained."""
        shape = self.get_shape(key)
        grad = None if self._grad_source is None else self._grad_source(key)
        return np.zeros(shape, np.float32) if grad is None else np.array(grad).reshape(shape)

    def gradients_from(self, source: Callable[[str], Any] | None) -> None:
        """``source(name)`` (an array, or None) answers
        [`get_grad`][paddle_lite.parameters.Parameters.get_grad] until reset with None (the trainer
        sets it while an ``EndForwardBackward`` is handled)."""
        self._grad_source = source

    @api_boundary
    def set(self, parameter_name: str, value: Any) -> None:
        """Replace a parameter by ``value`` (an ndarray of ``get_shape(parameter_name)``)."""
        self._write({parameter_name: self._checked(parameter_name, value)})

    def __setitem__(self, key: str, value: Any) -> None:
        self.set(key, value)

    def values(self) -> dict[str, np.ndarray]:
        """``{name: float32 copy}`` of every parameter, in creation order."""
        return {name: value.copy() for name, value in self._snapshot().items()}

    @api_boundary
    def update(self, values: Mapping[str, Any]) -> None:
        """[`set`][paddle_lite.parameters.Parameters.set] several parameters; nothing changes when
        one value is refused."""
        self._write({name: self._checked(name, value) for name, value in values.items()})

    def _checked(self, key: str, value: Any) -> np.ndarray:
        return _float32(key, self.get_shape(key), value)

    # files -------------------------------------------------------------------------
    @api_boundary
    def serialize(self, name: str, f: IO[bytes]) -> None:
        """Write parameter ``name`` as the 16-byte ``<IIQ`` header and float32 values."""
        self.get_shape(name)
        f.write(member_bytes(self._snapshot()[name]))

    @api_boundary
    def deserialize(self, name: str, f: IO[bytes]) -> None:
        """Read parameter ``name`` from the v2 binary format written by
        [`serialize`][paddle_lite.parameters.Parameters.serialize]."""
        self._write({name: read_values(name, self.get_shape(name), f)})

    @api_boundary
    def to_tar(self, f: Any) -> None:
        """Write every parameter as a v2 tar (``f``: a binary file object or a path).

        Per parameter, in order: a member ``<name>``
        ([`serialize`][paddle_lite.parameters.Parameters.serialize] bytes) and a member
        ``<name>.protobuf`` (its ``ParameterConfig``); PaddlePaddle v2 reads it.
        """
        specs, values = self.specs(), self._snapshot()
        write_output(f, lambda stream: write_tar(stream, specs, values))

    @staticmethod
    @api_boundary
    def from_tar(f: Any) -> Parameters:
        """The parameters of a v2 tar (plain or gzipped; a file object or a path).

        Every ``*.protobuf`` member is read first to rebuild the specs (in member
        order), then each parameter's values from the member of its name.

        Example:
            ```python
            with open("fit_a_line.tar", "rb") as f:
                params = paddle.parameters.Parameters.from_tar(f)
            ```
        """
        params = Parameters()
        for spec, values in read_parameter_tar(f):
            params.append_spec(spec, values)
        return params

    @api_boundary
    def init_from_tar(self, f: Any, exclude_params: Iterable[str] = ()) -> None:
        """Copy the values of the parameters present both here and in the tar ``f``.

        Names in ``exclude_params`` and names on one side only are ignored, as in v2;
        the parameters here that the tar lacks keep their values and are named in a
        ``ParameterWarning``. A value whose element count matches but whose shape
        differs is reshaped. Nothing changes when one value is refused, or when the
        tar is damaged (``ParameterError`` naming the file and the byte offset).
        """
        excluded = {exclude_params} if isinstance(exclude_params, str) else set(exclude_params)
        other = Parameters.from_tar(f)
        lacking = [n for n in self._specs if n not in other and n not in excluded]
        if lacking:
            warnings.warn(
                f"init_from_tar: the tar {source_name(f)} holds no value for {lacking}; "
                "they keep their current values.",
                ParameterWarning,
                stacklevel=user_stacklevel(),
            )
        self._write(
            {
                name: self._fitted(name, other.stored(name))
                for name in other.names()
                if name in self._specs and name not in excluded
            }
        )

    def _fitted(self, name: str, value: np.ndarray) -> np.ndarray:
        shape = self.get_shape(name)
        if value.size != self._specs[name].size:
            raise ParameterError(
                f"parameter '{name}': the tar holds {value.size} values (shape {value.shape}) "
                f"but this network declares shape {shape} ({self._specs[name].size} values)."
            )
        return value.reshape(shape).copy()

    @api_boundary
    def save_npz(self, f: Any) -> None:
        """Write the values and specs as an ``.npz`` (``f``: a binary file or a path)."""
        arrays = parameter_arrays(self.specs(), self._snapshot())
        write_output(f, lambda stream: write_npz(stream, arrays))

    @staticmethod
    @api_boundary
    def load_npz(f: Any) -> Parameters:
        """The parameters saved by [`save_npz`][paddle_lite.parameters.Parameters.save_npz], read as
        data only: nothing is unpickled, and each array's header is checked against its spec and its
        byte count before the array is allocated."""
        params = Parameters()
        for spec, values in read_parameter_npz(f):
            params.append_spec(spec, values)
        return params


def _float32(name: str, shape: tuple[int, ...], value: Any) -> np.ndarray:
    """``value`` as a fresh float32 array of ``shape`` (parameter ``name``'s), or a
    ``ParameterError`` saying what was received."""
    if not isinstance(value, (np.ndarray, jax.Array)):
        raise ParameterError(
            f"Must return ndarray: parameter '{name}' was given {type(value).__name__}; "
            f"pass a numpy.ndarray of shape {shape}."
        )
    try:
        array = np.array(value, dtype=np.float32)
    except (TypeError, ValueError) as err:
        raise ParameterError(
            f"parameter '{name}': cannot convert a {value.dtype} array to float32 ({err})."
        ) from None
    if array.shape != shape:
        raise ParameterError(
            f"Value shape mismatch, expect {shape}, but {array.shape}: parameter '{name}'."
        )
    return array
