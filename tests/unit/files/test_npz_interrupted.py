"""A Ctrl-C inside zipfile while an ``.npz`` is written comes out as itself."""

import gc
import io
import sys
import zipfile

import numpy as np
import pytest

from paddle_lite._src.files.npz import write_npz

ARRAYS = {"a": np.arange(6, dtype=np.float32), "b": np.ones((2, 3), np.int32)}


def _interrupt_in(code):
    """A trace function raising KeyboardInterrupt at the first line of ``code``."""

    def trace(frame, event, arg):
        if frame.f_code is code and event == "call":
            sys.settrace(None)
            raise KeyboardInterrupt
        return None

    return trace


@pytest.mark.parametrize("where", ["_ZipWriteFile.__init__", "_ZipWriteFile.write"])
def test_an_interrupt_inside_a_member_is_raised_as_itself(where, recwarn):
    cls, method = where.split(".")
    code = getattr(getattr(zipfile, cls), method).__code__
    buffer = io.BytesIO()
    sys.settrace(_interrupt_in(code))
    try:
        with pytest.raises(KeyboardInterrupt):
            write_npz(buffer, ARRAYS)
    finally:
        sys.settrace(None)
    gc.collect()  # the abandoned archive closes nothing when collected
    assert not [w for w in recwarn if "ZIP" in str(w.message)]
    again = io.BytesIO()
    write_npz(again, ARRAYS)  # and a new write is whole
    again.seek(0)
    with np.load(again) as loaded:
        assert sorted(loaded.files) == ["a", "b"]
        np.testing.assert_array_equal(loaded["b"], ARRAYS["b"])
