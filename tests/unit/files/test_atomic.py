"""atomic: the target is replaced whole or not at all, keeps its mode, leaves no litter."""

import io
import os
import stat

import pytest

from paddle_lite._src.files import atomic


def test_write_replaces_the_file_and_keeps_its_mode(tmp_path):
    target = tmp_path / "model.bin"
    target.write_bytes(b"old")
    os.chmod(target, 0o600)
    atomic.write_bytes(target, b"new bytes")
    assert target.read_bytes() == b"new bytes"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert os.listdir(tmp_path) == ["model.bin"]


def test_a_new_file_gets_0644_and_text_is_not_translated(tmp_path):
    target = tmp_path / "sub" / "a.txt"
    atomic.write_text(target, "line\r\nnext\n", makedirs=True)
    assert target.read_bytes() == b"line\r\nnext\n"
    assert stat.S_IMODE(target.stat().st_mode) == atomic.NEW_FILE_MODE


def test_an_error_inside_the_block_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "model.tar"
    target.write_bytes(b"version 1")
    with pytest.raises(RuntimeError, match="disk full"):
        with atomic.atomic_write(target) as f:
            f.write(b"half of version 2")
            raise RuntimeError("disk full")
    assert target.read_bytes() == b"version 1"
    assert os.listdir(tmp_path) == ["model.tar"]


def test_temporary_path_and_commit(tmp_path):
    target = tmp_path / "download.tgz"
    with atomic.temporary_path(target) as tmp:
        assert os.path.dirname(tmp) == str(tmp_path) and os.path.basename(tmp).startswith(".")
        with open(tmp, "wb") as f:
            f.write(b"payload")
        atomic.commit(tmp, str(target))
    assert target.read_bytes() == b"payload" and os.listdir(tmp_path) == ["download.tgz"]
    with atomic.temporary_path(tmp_path / "other") as tmp:
        pass  # not committed: removed, and no target appears
    assert not os.path.exists(tmp) and os.listdir(tmp_path) == ["download.tgz"]


def test_streams_are_flushed_and_synced_when_they_can_be(tmp_path):
    buf = io.BytesIO()
    buf.write(b"x")
    atomic.sync_stream(buf)  # no file descriptor: a flush only
    with open(tmp_path / "f", "wb") as f:
        f.write(b"abc")
        atomic.sync_stream(f)
        assert (tmp_path / "f").read_bytes() == b"abc"
    assert atomic.is_path(tmp_path / "f") and atomic.is_path("f") and not atomic.is_path(buf)


def test_bad_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="mode must be"):
        with atomic.atomic_write(tmp_path / "f", "ab"):
            pass
