"""``import paddle.v2 as paddle`` resolving to paddle_lite: a meta path finder.

A v2 program imports ``paddle.v2`` (``import paddle.v2 as paddle``,
``from paddle.v2.layer import fc``, ``import paddle.v2.dataset.mnist as mnist``) and
often ``paddle.trainer_config_helpers`` and ``paddle.trainer.PyDataProvider2``. Once
``install`` puts ``V2Finder`` first on ``sys.meta_path``, these names are
aliases of paddle_lite's modules, not copies: ``paddle.v2`` *is* ``paddle_lite``,
``paddle.v2.layer`` *is* ``paddle_lite.layer`` (each keeps its own ``__name__`` and
``__spec__``). ``paddle`` and ``paddle.trainer`` are small packages of their own: v1's
``paddle.trainer`` held ``PyDataProvider2`` where paddle.v2's ``trainer`` holds ``SGD``,
so neither can be a paddle_lite module; ``import paddle`` gives a package whose
attributes are ``v2``, ``trainer_config_helpers``, ``trainer`` and, for any other name,
paddle_lite's (``paddle.layer``). Any other ``paddle.*`` module is a
``ModuleNotFoundError`` saying what is provided.

A real PaddlePaddle installed as ``paddle`` is never hidden silently: ``install``
refuses with ``InstalledPaddleError`` naming both, unless asked to replace it for
this process; a ``paddle`` already imported is refused always (its objects are bound).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Sequence
from typing import Any

_HELPERS = "paddle_lite._src.compat.v2_imports."
ALIASES = {
    "paddle.v2": "paddle_lite",
    "paddle.trainer_config_helpers": _HELPERS + "config_helpers",
    "paddle.trainer.PyDataProvider2": _HELPERS + "data_provider",
}
PROVIDED = (
    "paddle.v2 (and its modules), paddle.trainer_config_helpers, paddle.trainer.PyDataProvider2"
)


def _paddle_getattr(name: str) -> Any:
    if name in ("v2", "trainer", "trainer_config_helpers"):
        return importlib.import_module(f"paddle.{name}")
    if name.startswith("__"):
        raise AttributeError(f"module 'paddle' has no attribute {name!r}")
    return getattr(importlib.import_module("paddle_lite"), name)


def _trainer_getattr(name: str) -> Any:
    if name == "PyDataProvider2":
        return importlib.import_module("paddle.trainer.PyDataProvider2")
    if name.startswith("__"):
        raise AttributeError(f"module 'paddle.trainer' has no attribute {name!r}")
    return getattr(importlib.import_module("paddle_lite.trainer"), name)


# The two packages made here: (docstring, module __getattr__).
PACKAGES = {
    "paddle": (
        "PaddlePaddle's top package as paddle_lite provides it for v2 programs: paddle.v2 is "
        "paddle_lite; other names are paddle_lite's.",
        _paddle_getattr,
    ),
    "paddle.trainer": (
        "v1's paddle.trainer as paddle_lite provides it: PyDataProvider2, and paddle.v2's "
        "trainer names (SGD).",
        _trainer_getattr,
    ),
}


def target(fullname: str) -> str | None:
    """The paddle_lite module ``fullname`` aliases, or None when it is not an alias."""
    if fullname in ALIASES:
        return ALIASES[fullname]
    if fullname.startswith("paddle.v2."):
        rest = fullname[len("paddle.v2.") :]
        if not any(part.startswith("_") for part in rest.split(".")):
            return f"paddle_lite.{rest}"
    return None


class _AliasLoader(importlib.abc.Loader):
    """Gives the existing module ``name`` (imported first) for an alias."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.original_spec: Any = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(self.name)
        self.original_spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self.original_spec  # the import system set the alias's spec


class _PackageLoader(importlib.abc.Loader):
    """Makes one of ``PACKAGES``."""

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        doc, getattr_ = PACKAGES[spec.name]
        module = types.ModuleType(spec.name, doc)
        module.__getattr__ = getattr_  # type: ignore[method-assign]
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class V2Finder(importlib.abc.MetaPathFinder):
    """Finds ``paddle``, ``paddle.v2.*``, ``paddle.trainer_config_helpers`` and
    ``paddle.trainer.PyDataProvider2`` as paddle_lite's modules (module doc)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target_module: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "paddle" and not fullname.startswith("paddle."):
            return None
        if fullname in PACKAGES:
            return importlib.machinery.ModuleSpec(fullname, _PackageLoader(), is_package=True)
        name = target(fullname)
        found = _spec(name) if name else None
        if found is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: paddle_lite runs paddle.v2 programs and "
                f"provides {PROVIDED}"
                + (f"; paddle_lite has no module {name!r}." if name else "."),
                name=fullname,
            )
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(name))
        spec.submodule_search_locations = found.submodule_search_locations
        return spec


def _spec(name: str) -> importlib.machinery.ModuleSpec | None:
    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:  # a parent package is missing
        return None


def installed_paddle() -> str | None:
    """Where a real PaddlePaddle ``paddle`` is imported or importable from, or None
    (a folder named ``paddle`` without ``__init__.py`` is no installation)."""
    loaded = sys.modules.get("paddle")
    ours = isinstance(getattr(getattr(loaded, "__spec__", None), "loader", None), _PackageLoader)
    if loaded is not None and not ours:
        return getattr(loaded, "__file__", None) or repr(loaded)
    if loaded is not None or any(isinstance(f, V2Finder) for f in sys.meta_path):
        return None
    try:
        spec = importlib.util.find_spec("paddle")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin in (None, "namespace"):
        return None
    return spec.origin
