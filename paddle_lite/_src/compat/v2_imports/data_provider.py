"""``paddle.trainer.PyDataProvider2`` as a paddle.v2 program sees it.

v2's ``paddle/v2/data_type.py`` took its input types from this v1 module (every name
with ``_`` holding ``value``, ``vector`` or ``array``, and ``InputType``), so they are
``paddle.data_type``'s here: ``dense_vector``, ``integer_value``, ``*_sequence``,
``*_sub_sequence``, ``SequenceType``, ``DataType``; ``dense_slot`` and ``index_slot``
were the functions ``dense_vector`` and ``integer_value`` were aliases of. The data
provider machinery (``@provider``, ``CacheType``) imports, and raises
``V1ConfigError`` when used (``old_config``).
"""

from __future__ import annotations

from typing import Any

from paddle_lite import data_type
from paddle_lite._src.compat import early_names
from paddle_lite._src.compat.v2_imports.old_config import V1ConfigName

MODULE = "paddle.trainer.PyDataProvider2"

_ALIASES = {"dense_slot": "dense_vector", "index_slot": "integer_value"}

_READER = (
    "in a v2 program a reader is a function returning an iterator of samples (def "
    "reader(): for line in open(path): yield features, label), trained with "
    "trainer.train(reader=paddle.batch(reader, batch_size=128), ...), and each input "
    "type is a data layer's: paddle.layer.data(name='x', type=paddle.data_type.dense_vector(n))"
)
_V1_CONFIG_NAMES = {
    "provider": V1ConfigName(
        MODULE,
        "provider",
        "made a v1 data provider, a generator v1's C++ trainer called file by file",
        _READER,
    ),
    "CacheType": V1ConfigName(
        MODULE,
        "CacheType",
        "told a v1 @provider whether to keep its samples in memory",
        "to read a reader's samples once and keep them, make a list: samples = "
        "list(reader()), and read it with paddle.batch(lambda: iter(samples), batch_size)",
    ),
}

__all__ = sorted([*data_type.__all__, *_ALIASES, *_V1_CONFIG_NAMES])


def __getattr__(name: str) -> Any:
    if name in data_type.__all__ or name in _ALIASES or name in early_names.BY_MODULE["data_type"]:
        return getattr(data_type, _ALIASES.get(name, name))  # an old name warns
    if name in _V1_CONFIG_NAMES:
        return _V1_CONFIG_NAMES[name]
    raise AttributeError(f"module {MODULE!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
