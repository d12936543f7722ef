"""v2's ``feeding``: which field of a sample each data layer reads.

``feeding`` is None (the data layers read the fields in their order), a list of data
layer names (in field order) or a dict ``{data layer name: field index or key}``. Keys
naming no data layer are ignored, as v2 ignored them (a training ``feeding`` passed on to
``infer``, which needs fewer layers); a data layer without a field is an error that names
the keys that look meant for it and the ``feeding`` to write.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from paddle_lite._src.data_types import InputType
from paddle_lite._src.errors import DataError


def feeding_index(data_types: Sequence[tuple[str, InputType]], feeding: Any) -> dict[str, int]:
    """``{data layer name: field index}`` from v2's ``feeding`` (None, list or dict)."""
    names = [name for name, _ in data_types]
    if feeding is None:
        return {name: i for i, name in enumerate(names)}
    if isinstance(feeding, Mapping):
        index = dict(feeding)
    elif isinstance(feeding, (list, tuple)):
        index = {name: i for i, name in enumerate(feeding)}
    else:
        raise TypeError("Feeding should be dict or sequence or None.")
    missing = [n for n in names if n not in index]
    if missing:
        raise DataError(_missing_fields(feeding, index, names, missing))
    return {name: _field_key(index[name]) for name in names}


def _missing_fields(feeding: Any, index: dict, names: list[str], missing: list[str]) -> str:
    """What ``feeding`` lacks, its keys that name no data layer (most often a misspelt
    name, or the name of a field rather than of its layer), and the ``feeding`` to write."""
    unknown = [key for key in index if key not in names]
    meant = {name: key for key in unknown if (name := _closest(key, missing))}
    if not meant and len(unknown) == len(missing) == 1:
        meant = {missing[0]: unknown[0]}
    message = (
        f"feeding {feeding!r} gives no field for data layer(s) {missing}; the network's "
        f"data layers are {names}."
    )
    if unknown:
        hints = ", ".join(f"{name!r} for {key!r}" for name, key in meant.items())
        message += f" Its key(s) {unknown} name no data layer of this network" + (
            f"; did you mean {hints}?" if hints else "."
        )
    fixed = {n: index[meant[n]] if n in meant else index.get(n, "<its field>") for n in names}
    return message + (
        f" feeding maps each data layer's name to its field in a sample: write feeding={fixed}."
    )


def _closest(key: Any, names: list[str]) -> str | None:
    close = difflib.get_close_matches(str(key), names, n=1, cutoff=0.5)
    return close[0] if close else None


def _field_key(value: Any) -> Any:
    """A field's index in a sample, or its key: v2 read ``sample[feeding[name]]``, so
    ``{"image": "pixels"}`` read samples that are dicts."""
    return value if isinstance(value, str) else int(value)
