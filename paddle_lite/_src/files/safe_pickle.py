"""The pickles v2 wrote, read without running code, and plain values pickled as v2 read them.

v2's Python 2 stored data as pickles: CIFAR batches, ``dataset.common.convert``'s RecordIO
records (``cPickle.dumps(sample)``, protocol 0) and whatever a program wrote with protocol 2.
Loading a pickle can call any importable function, so paddle_lite never calls
``pickle.loads`` on a file. ``load_plain`` first walks the opcodes
(``pickle_check.check_opcodes``: protocols 0-2 only, memo indexes within the input), then
unpickles with ``RestrictedUnpickler``, whose ``find_class`` serves only the helpers
numpy's own pickles name (``numpy.core.multiarray._reconstruct`` and ``scalar``,
``numpy.ndarray``, ``numpy.dtype`` for bool and numeric dtypes, and ``_codecs.encode``, which
Python 3 uses for bytes in protocol 2). Tuples, lists, dicts, numbers, bool, None and strings
need no global at all. Any other global is refused before it is looked up.

A Python 2 ``str`` is a byte string: it reads back as ``bytes`` (a ``unicode`` reads back as
``str``), as the CIFAR and inference-file readers read them. The bytes are kept exactly, so
``value.decode("utf-8")`` recovers text that v2 stored as UTF-8.

``dumps_plain`` writes the other way: a protocol-2 pickle of plain values and numeric
numpy arrays in the form Python 2's numpy wrote them (``numpy.core.multiarray._reconstruct``,
a byte-string dtype and data), so that v2's own readers load it too; Python 3's pickler
would name ``numpy._core``, which Python 2's numpy cannot import. ``str`` is written as a
unicode string and ``bytes`` as a byte string, so both read back with their own type here.
"""

from __future__ import annotations

import io
import pickle
import struct
from typing import Any

import numpy as np

from paddle_lite._src.errors import DataError
from paddle_lite._src.files.pickle_check import check_opcodes

NUMERIC_KINDS = "biufc"


def _numeric_dtype(*args: Any) -> np.dtype:
    """``numpy.dtype`` for a pickle: object dtypes (whose arrays hold pickled objects) are
    refused, so an array's state can only be raw numbers."""
    dtype = np.dtype(*args)
    if dtype.hasobject:
        raise pickle.UnpicklingError("an object dtype (an array of Python objects) is refused")
    return dtype


def numpy_globals() -> dict[tuple[str, str], object]:
    """The ``(module, name)`` pairs numpy's pickles name (under numpy 1 and 2 module names),
    mapped to the objects to use, plus ``_codecs.encode``."""
    try:
        from numpy._core import multiarray, numeric
    except ImportError:  # numpy < 2
        from numpy.core import multiarray, numeric
    import codecs

    table: dict[tuple[str, str], object] = {("_codecs", "encode"): codecs.encode}
    for module in ("numpy.core", "numpy._core"):
        table[(f"{module}.multiarray", "_reconstruct")] = multiarray._reconstruct
        table[(f"{module}.multiarray", "scalar")] = multiarray.scalar
        if hasattr(numeric, "_frombuffer"):
            table[(f"{module}.numeric", "_frombuffer")] = numeric._frombuffer
    table[("numpy", "ndarray")] = np.ndarray
    table[("numpy", "dtype")] = _numeric_dtype
    return table


class RefusedGlobal(pickle.UnpicklingError):
    """A pickle named a global outside ``numpy_globals``."""


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that rebuilds plain containers, numbers, strings and numeric numpy arrays
    and refuses every other global (Python 2 ``str`` reads as ``bytes``).

    Args:
      file: a binary file object.
      source: the file (or ``archive:member``, record) named in errors.
    """

    def __init__(self, file: Any, source: str = "<pickle>") -> None:
        super().__init__(file, encoding="bytes")
        self.source = source
        self._allowed = numpy_globals()

    def find_class(self, module: str, name: str) -> Any:
        """The allowed numpy helper, or ``refusal`` raised."""
        found = self._allowed.get((module, name))
        if found is None:
            raise self.refusal(module, name)
        return found

    def refusal(self, module: str, name: str) -> Exception:
        """The error for a refused global (subclasses raise their own type)."""
        return RefusedGlobal(
            f"{self.source} names the Python object {module}.{name}; a data pickle may only "
            "hold tuples, lists, dicts, numbers, bool, None, strings, bytes and numeric numpy "
            "arrays, so it is refused (unpickling it could run code)."
        )


def load_plain(data: bytes, where: str, error: type[Exception] = DataError) -> Any:
    """Unpickle ``data`` without running code; every failure is ``error`` naming ``where``.

    Args:
      data: a pickle of protocol 0, 1 or 2.
      where: what ``data`` is (file, chunk and record), for the message.
      error: the exception type to raise.

    Returns:
      The value (tuples, lists, dicts, numbers, bool, None, str, bytes, numpy arrays).

    Example:
      ```python
      load_plain(b"(I1\\nI2\\ntp0\\n.", "record 0")   # (1, 2), a protocol-0 pickle
      ```
    """
    check_opcodes(data, where, error)
    try:
        return RestrictedUnpickler(io.BytesIO(data), where).load()
    except RefusedGlobal as exc:
        raise error(str(exc)) from None
    except Exception as exc:  # a parser boundary: whatever the unpickler raises is bad data
        raise error(f"{where} does not unpickle ({type(exc).__name__}: {exc}).") from None


# writing -------------------------------------------------------------------------------
def _short(opcode: bytes, long_opcode: bytes, data: bytes) -> bytes:
    if len(data) < 256:
        return opcode + bytes([len(data)]) + data
    return long_opcode + struct.pack("<I", len(data)) + data


def _int(value: int) -> bytes:
    if 0 <= value < 256:
        return b"K" + bytes([value])
    if 0 <= value < 65536:
        return b"M" + struct.pack("<H", value)
    if -(2**31) <= value < 2**31:
        return b"J" + struct.pack("<i", value)
    data = value.to_bytes((value.bit_length() + 8) // 8, "little", signed=True)
    return _short(b"\x8a", b"\x8b", data)


def _tuple(items: list[bytes]) -> bytes:
    return b"(" + b"".join(items) + b"t"


def _dtype(dtype: np.dtype) -> bytes:
    descr = f"{dtype.kind}{dtype.itemsize}".encode("ascii")
    endian = dtype.byteorder.replace("=", "<" if np.little_endian else ">").encode("ascii")
    state = [_int(3), _short(b"U", b"T", endian), b"NNN", _int(-1), _int(-1), _int(0)]
    return (
        b"cnumpy\ndtype\n"
        + _tuple([_short(b"U", b"T", descr), _int(0), _int(1)])
        + (b"R" + _tuple(state) + b"b")
    )


def _array(value: np.ndarray, where: str) -> bytes:
    if value.dtype.kind not in NUMERIC_KINDS or value.dtype.fields is not None:
        raise DataError(
            f"{where} is a numpy array of dtype {value.dtype}; only bool and numeric arrays "
            "can be stored."
        )
    data = np.ascontiguousarray(value).tobytes()
    state = [_int(1), _tuple([_int(n) for n in value.shape]), _dtype(value.dtype), b"\x89"]
    state.append(_short(b"U", b"T", data))
    head = b"cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n"
    return head + _tuple([_int(0)]) + _short(b"U", b"T", b"b") + b"\x87R" + _tuple(state) + b"b"


def _container(value: Any, where: str) -> bytes:
    if isinstance(value, tuple):
        return _tuple([_plain(v, f"{where}[{i}]") for i, v in enumerate(value)])
    if isinstance(value, list):
        items = b"".join(_plain(v, f"{where}[{i}]") for i, v in enumerate(value))
        return b"]" + (b"(" + items + b"e" if value else b"")
    pairs = b"".join(_plain(k, where) + _plain(v, f"{where}[{k!r}]") for k, v in value.items())
    return b"}" + (b"(" + pairs + b"u" if value else b"")


def _plain(value: Any, where: str) -> bytes:
    if value is None:
        return b"N"
    if isinstance(value, (bool, np.bool_)):
        return b"\x88" if value else b"\x89"
    if isinstance(value, np.generic) and value.dtype.kind in "iuf":
        value = value.item()
    if isinstance(value, int):
        return _int(value)
    if isinstance(value, float):
        return b"G" + struct.pack(">d", value)
    if isinstance(value, str):
        return b"X" + struct.pack("<I", len(data := value.encode("utf-8", "surrogatepass"))) + data
    if isinstance(value, (bytes, bytearray)):
        return _short(b"U", b"T", bytes(value))
    if isinstance(value, (tuple, list, dict)):
        return _container(value, where)
    if isinstance(value, np.ndarray):
        return _array(value, where)
    raise DataError(
        f"{where} has type {type(value).__name__}; a record can hold None, bool, int, float, "
        "str, bytes, list, tuple, dict and numeric numpy arrays."
    )


def dumps_plain(value: Any, where: str = "the sample") -> bytes:
    """A protocol-2 pickle of ``value`` that Python 2 (v2) and ``load_plain`` both read.

    Args:
      value: None, bool, int, float, str, bytes, lists, tuples, dicts and bool or numeric
        numpy arrays, nested; numpy scalars are written as Python numbers.
      where: what ``value`` is, named in errors.

    Returns:
      The pickle's bytes.

    Raises:
      DataError: ``value`` holds another type (the message names where).

    Example:
      ```python
      load_plain(dumps_plain((np.zeros(3, np.float32), 1)), "x")   # (array([0., 0., 0.]), 1)
      ```
    """
    return b"\x80\x02" + _plain(value, where) + b"."
