"""Tracebacks and warnings that point at the user's code, not at paddle_lite's.

A paddle_lite error says in its message what went wrong, where (layer, data field, file)
and the fix; the dozen library frames between the user's call and the ``raise`` only
hide the line that matters. As JAX cuts its own frames from the tracebacks of errors
leaving its API (``jax_traceback_filtering``), ``api_boundary`` cuts paddle_lite's
frames from the traceback of a ``PaddleLiteError`` as it leaves a public entry point
(the layer functions, ``parameters.create``, ``SGD``, ``train``, ``test``, ``infer``, the
tar files). What stays is every frame of code outside the package: the program's own
lines, and those of its readers and event handlers when the error came up inside them.

Only paddle_lite's own errors are cut, and only their traceback: the type, message,
``__cause__`` and ``__context__`` stay as raised, so a reader's exception (the cause of a
``ReaderError``) keeps its whole traceback. Other exceptions pass untouched.
``PADDLE_LITE_TRACEBACK=full`` in the environment keeps every frame (read at each error,
so it can be set from a running notebook).

``user_stacklevel`` is the warnings' counterpart: the ``stacklevel`` that attributes
a warning to the first frame outside the package.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import types
from collections.abc import Callable
from typing import Any, TypeVar

from paddle_lite._src.errors import PaddleLiteError

F = TypeVar("F", bound=Callable[..., Any])

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
ENV = "PADDLE_LITE_TRACEBACK"
NOTE = (
    "(paddle_lite's own frames are left out of this traceback; "
    f"{ENV}=full in the environment shows them)"
)


def is_library_frame(frame: types.FrameType) -> bool:
    """True for a frame of paddle_lite's own code."""
    return frame.f_code.co_filename.startswith(PACKAGE_DIR)


def show_full_tracebacks() -> bool:
    """True when ``PADDLE_LITE_TRACEBACK=full`` asks for every frame."""
    return os.environ.get(ENV, "").strip().lower() == "full"


def without_library_frames(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The traceback ``tb`` with the frames of paddle_lite's code left out."""
    kept = []
    while tb is not None:
        if not is_library_frame(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for entry in reversed(kept):
        out = types.TracebackType(out, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return out


def hide_library_frames(err: BaseException) -> None:
    """Cut paddle_lite's frames from ``err``'s traceback, in place, and say so once in a
    note (Python 3.11+); nothing for other exceptions or under ``full``."""
    if not isinstance(err, PaddleLiteError) or show_full_tracebacks():
        return
    tb = err.__traceback__
    cut = without_library_frames(tb)
    if _length(cut) == _length(tb):
        return
    err.with_traceback(cut)
    if hasattr(err, "add_note") and NOTE not in getattr(err, "__notes__", ()):
        err.add_note(NOTE)


def _length(tb: types.TracebackType | None) -> int:
    count = 0
    while tb is not None:
        count, tb = count + 1, tb.tb_next
    return count


def api_boundary(func: F) -> F:
    """Wrap a public entry point: a paddle_lite error leaving it loses the library's frames
    from its traceback (see the module doc); anything else passes as raised. A generator
    function stays one (the errors of its iteration are cut too).

    Example:
        >>> @api_boundary
        ... def create(cost): ...
    """
    if inspect.isgeneratorfunction(func):

        @functools.wraps(func)
        def generator(*args: Any, **kwargs: Any) -> Any:
            try:
                return (yield from func(*args, **kwargs))
            except PaddleLiteError as err:
                hide_library_frames(err)
                raise

        return generator  # type: ignore[return-value]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PaddleLiteError as err:
            hide_library_frames(err)
            raise

    return wrapper  # type: ignore[return-value]


def user_stacklevel() -> int:
    """The ``stacklevel`` that attributes a warning to the first frame outside paddle_lite
    (the user's line), counted from the caller of this function."""
    frame, level = sys._getframe(1), 1
    while frame is not None and is_library_frame(frame):
        frame, level = frame.f_back, level + 1
    return level
