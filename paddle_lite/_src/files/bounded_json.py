"""JSON from untrusted bytes: nesting depth bounded before parsing, every failure typed.

``json.loads`` recurses once per nesting level, so a file of a million ``[`` raises a raw
``RecursionError`` (and whatever reads the result recursively would too). ``loads``
measures the depth first, without recursion (strings are removed by one regular
expression, the brackets left are counted with numpy), and refuses anything deeper than
``MAX_DEPTH``; a text that is not UTF-8 JSON is the caller's typed error as well.

Example:
    ```python
    meta = loads(data, "checkpoint 'ck' file 'checkpoint.json'", CheckpointError)
    ```
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

MAX_DEPTH = 200  # the library's own files nest a few dozen levels at most
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_OPEN = np.zeros(256, np.int8)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1


def depth(data: bytes) -> int:
    """The deepest bracket nesting of the JSON text ``data`` (strings ignored)."""
    bare = _STRING.sub(b"", data)
    if not bare:
        return 0
    steps = _OPEN[np.frombuffer(bare, np.uint8)].astype(np.int64)
    return int(np.cumsum(steps).max(initial=0))


def loads(data: bytes | str, where: str, error: type[Exception], max_depth: int = MAX_DEPTH) -> Any:
    """The value of the JSON text ``data``; ``error`` (naming ``where``) when it is not
    UTF-8 JSON or nests deeper than ``max_depth``."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    deepest = depth(raw)
    if deepest > max_depth:
        raise error(
            f"{where}: JSON nested {deepest} levels deep; at most {max_depth} are read (the "
            "file is corrupt or not written by paddle_lite)."
        )
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
        raise error(f"{where} is not UTF-8 JSON: {err}.") from None
