"""Checking a protocol-2 pickle's opcodes before Python's unpickler sees it.

The C unpickler trusts the numbers in its input: ``LONG_BINPUT`` with index ``2**27``
grows the memo to that many slots (about 2 GB for a 9-byte file), a ``GET`` of an index
never stored raises a raw ``KeyError``, and extension codes or persistent ids reach
machinery a data file has no business with. ``check_opcodes`` walks the opcodes with
``pickletools``' opcode table and argument readers (which parse, never execute, and read no
more bytes than are present; a protocol-0 ``STRING`` is read as raw bytes, since
``pickletools.genops`` fails on the escaped binary data Python 2 wrote there) and refuses,
with the caller's typed error:

* opcodes of protocols above 2 (v2 ran on Python 2; its files are protocol 0 to 2) and
  ``PERSID`` / ``BINPERSID`` / ``EXT1`` / ``EXT2`` / ``EXT4``;
* a memo index at or above the input's size (so the memo stays within the input's
  size), and a ``GET`` of an index no ``PUT`` stored;
* an argument that runs past the end of the input, an unknown opcode, or no ``STOP``.

Only then is the pickle loaded (by the caller, with its restricted ``find_class``).
"""

from __future__ import annotations

import io
import pickletools
from collections.abc import Iterator
from typing import Any

_REFUSED = {"PERSID", "BINPERSID", "EXT1", "EXT2", "EXT4"}
_BY_CODE = {op.code.encode("latin-1"): op for op in pickletools.opcodes}
_PUTS = {"PUT", "BINPUT", "LONG_BINPUT"}
_GETS = {"GET", "BINGET", "LONG_BINGET"}


def _opcodes(data: bytes) -> Iterator[tuple[pickletools.OpcodeInfo, Any, int]]:
    """``pickletools.genops`` without decoding ``STRING`` arguments as ASCII text."""
    stream = io.BytesIO(data)
    while True:
        pos = stream.tell()
        op = _BY_CODE.get(stream.read(1))
        if op is None:
            raise ValueError(
                f"no opcode (no STOP before the end), or an unknown one, at byte {pos}"
            )
        arg: Any  # the opcode's argument as pickletools reads it
        if op.name == "STRING":
            arg = pickletools.read_stringnl(stream, decode=False)
        else:
            arg = None if op.arg is None else op.arg.reader(stream)
        yield op, arg, pos
        if op.name == "STOP":
            return


def check_opcodes(data: bytes, where: str, error: type[Exception]) -> None:
    """Raise ``error`` (naming ``where`` and the byte offset) unless ``data`` is a
    protocol-2 pickle whose memo indexes and sizes fit the input (module doc)."""
    stored: set[int] = set()
    try:
        for op, arg, pos in _opcodes(data):
            name = op.name
            if op.proto > 2 or name in _REFUSED:
                raise error(
                    f"{where}: opcode {name} at byte {pos} is not allowed in a v2 pickle "
                    "(protocols 0 to 2, without persistent ids or extension codes, as "
                    "Python 2 wrote v2's files)."
                )
            if name in _PUTS:
                if not isinstance(arg, int) or not 0 <= arg < len(data):
                    raise error(
                        f"{where}: memo index {arg} at byte {pos} is beyond the file's "
                        f"{len(data)} bytes; the file is corrupt."
                    )
                stored.add(arg)
            elif name in _GETS and arg not in stored:
                raise error(f"{where}: memo index {arg} at byte {pos} was never stored.")
    except error:
        raise
    except ValueError as err:  # an unknown opcode or an argument past the end
        raise error(f"{where} is not a readable pickle: {err}.") from None
