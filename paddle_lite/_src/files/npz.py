"""``.npz`` files written without pickles and read as data only: sizes checked before any
allocation.

``write_npz`` writes arrays as ``<name>.npy`` members (uncompressed, with a fixed
timestamp, so equal arrays give equal bytes; object arrays are refused). A parameter
``.npz`` (``Parameters.save_npz``) holds one member per parameter plus ``__specs__``
(``SPECS_MEMBER``), a string array of the specs as JSON.

``numpy.load`` trusts a member's header: a corrupt or hostile ``.npy`` header announcing a
huge shape makes it allocate that array before reading a byte. ``NpzReader`` parses the
header itself, refuses object arrays (pickles), checks the declared shape against what the
caller expects and the member's byte count against the header, and only then reads. Every
failure is a ``ParameterError`` naming the member and the file.

Example:
    ```python
    with NpzReader("model.npz") as npz:
        w = npz.array("fc.w", expected_shape=(13, 1))
    ```
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any, Literal

import numpy as np

from paddle_lite._src.errors import ParameterError
from paddle_lite._src.files import bounded_json
from paddle_lite._src.files.params import source_name
from paddle_lite._src.specs import ParamSpec

# What zipfile raises on damaged archives (a corrupt flag byte can announce an unknown
# compression method, NotImplementedError, or encryption, RuntimeError).
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    struct.error,
    EOFError,
    OSError,
    ValueError,
    KeyError,
    RuntimeError,
    NotImplementedError,
)
_MAX_HEADER = 10_000  # numpy's own default limit on an .npy header
SPECS_MEMBER = "__specs__"  # a parameter npz's specs, as JSON strings


class _Counting:
    """A read-only stream wrapper that counts the bytes read (the header's length)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream, self.count = stream, 0

    def read(self, n: int = -1) -> bytes:
        data = self.stream.read(n)
        self.count += len(data)
        return data


def _header(stream: _Counting, where: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """``(shape, fortran_order, dtype)`` of an ``.npy`` header; any malformation is typed.

    numpy parses the header's dict literal with Python's tokenizer, so a damaged one can
    raise ``SyntaxError`` or ``tokenize.TokenError`` as well as ``ValueError``.
    """
    try:
        version = np.lib.format.read_magic(stream)
        read = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        return read(stream, max_header_size=_MAX_HEADER)
    except Exception as err:  # a parser boundary: whatever numpy raises, the file is bad
        raise ParameterError(
            f"{where} has a malformed .npy header ({type(err).__name__}: {err})."
        ) from None


class NpzReader:
    """The members of an ``.npz`` (a path or a binary stream), read with checks.

    Args:
        source: the file (path or binary stream).
        where: how errors name the file (default: its path).
    """

    def __init__(self, source: Any, where: str | None = None) -> None:
        self.where = where if where is not None else source_name(source)
        try:
            self._zip = zipfile.ZipFile(source)
            self._infos = {i.filename: i for i in self._zip.infolist()}
        except _ZIP_ERRORS as err:
            raise ParameterError(
                f"cannot read the npz {self.where}: {err}. Expected a file written by "
                "Parameters.save_npz."
            ) from None

    def __enter__(self) -> NpzReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._zip.close()

    def names(self) -> list[str]:
        """The array names (members without their ``.npy`` suffix), in archive order."""
        return [n[: -len(".npy")] for n in self._infos if n.endswith(".npy")]

    def array(
        self, name: str, expected_shape: tuple[int, ...] | None = None, kind: str = "f"
    ) -> np.ndarray:
        """The array ``name``, its dtype kind (one of ``kind``: ``"f"``, ``"U"``, ``"fiub"``
        ...) and shape checked first."""
        info = self._infos.get(name + ".npy")
        if info is None:
            raise ParameterError(f"the npz {self.where} has no member '{name}.npy'.")
        try:
            with self._zip.open(info) as member:
                return self._read(member, info, name, expected_shape, kind)
        except ParameterError:
            raise
        except _ZIP_ERRORS as err:
            raise ParameterError(
                f"member '{name}.npy' of the npz {self.where} is corrupt or truncated: {err}."
            ) from None

    def _read(
        self,
        member: IO[bytes],
        info: zipfile.ZipInfo,
        name: str,
        expected_shape: tuple[int, ...] | None,
        kind: str,
    ) -> np.ndarray:
        where = f"member '{name}.npy' of the npz {self.where}"
        stream = _Counting(member)
        shape, fortran, dtype = _header(stream, where)
        if dtype.hasobject or dtype.kind not in kind:
            raise ParameterError(
                f"{where} holds {dtype} values; expected dtype kind {kind!r} (object arrays "
                "are never read: they are pickles)."
            )
        if expected_shape is not None and tuple(shape) != tuple(expected_shape):
            raise ParameterError(
                f"{where} has shape {tuple(shape)}; its spec declares {tuple(expected_shape)}."
            )
        nbytes = math.prod(shape) * dtype.itemsize
        if info.file_size != stream.count + nbytes:
            raise ParameterError(
                f"{where} is {info.file_size} bytes but its header announces "
                f"{stream.count + nbytes}; the file is truncated or corrupt."
            )
        data = stream.read(nbytes)
        if len(data) != nbytes:
            raise ParameterError(f"{where} has {len(data)} of its {nbytes} value bytes.")
        order: Literal["C", "F"] = "F" if fortran else "C"
        return np.frombuffer(data, dtype).reshape(shape, order=order).copy()


def spec_from_json(text: str, where: str, member: str) -> ParamSpec:
    """A ``ParamSpec`` from one JSON entry of the ``member`` array, any malformation a
    ``ParameterError``."""
    try:
        spec = ParamSpec.from_json(bounded_json.loads(text, where, ParameterError))
        if not isinstance(spec.name, str) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in spec.shape
        ):
            raise TypeError("name must be a str and shape non-negative ints")
    except (ValueError, TypeError, KeyError, AttributeError) as err:
        raise ParameterError(
            f"npz {where}: a '{member}' entry is not a valid parameter spec ({err}): {text[:80]!r}."
        ) from None
    return spec


def write_npz(stream: IO[bytes], arrays: Mapping[str, np.ndarray]) -> None:
    """``arrays`` as an ``.npz`` (what ``numpy.load`` and ``NpzReader`` read), in order:
    uncompressed members with a fixed timestamp, never a pickle."""
    archive = zipfile.ZipFile(stream, "w", zipfile.ZIP_STORED)
    try:
        for name, value in arrays.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, value, allow_pickle=False)
    except BaseException:
        # Abandoned (the caller's stream is a temporary file or a buffer): closing an
        # archive whose member a Ctrl-C cut short would raise a ValueError in its place.
        archive.fp = None
        raise
    archive.close()


def parameter_arrays(
    specs: Iterable[ParamSpec], values: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The members of a parameter ``.npz``: each parameter's values, in spec order, then
    ``SPECS_MEMBER``."""
    specs = list(specs)
    if any(spec.name == SPECS_MEMBER for spec in specs):
        raise ParameterError(f"a parameter named '{SPECS_MEMBER}' cannot be saved as npz.")
    texts = np.array([json.dumps(spec.to_json(), sort_keys=True) for spec in specs])
    return {**{spec.name: values[spec.name] for spec in specs}, SPECS_MEMBER: texts}


def read_parameter_npz(f: Any) -> Iterator[tuple[ParamSpec, np.ndarray]]:
    """``(spec, values)`` of each parameter of a parameter ``.npz`` (a path or a binary
    stream), in ``SPECS_MEMBER``'s order, read one by one; each array's header is checked
    against its spec and its byte count before the array is allocated."""
    with NpzReader(f) as npz:
        if SPECS_MEMBER not in npz.names():
            raise ParameterError(
                f"not a paddle_lite parameters npz: {npz.where} has no '{SPECS_MEMBER}'."
            )
        for text in npz.array(SPECS_MEMBER, kind="U").reshape(-1):
            spec = spec_from_json(str(text), npz.where, SPECS_MEMBER)
            if spec.name not in npz.names():
                raise ParameterError(f"npz {npz.where} has a spec for '{spec.name}' but no values.")
            yield spec, npz.array(spec.name, spec.shape)
