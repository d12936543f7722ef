"""v2 RecordIO: files laid out byte by byte as Go's recordio package wrote them read back
exactly with each compressor; paddle_lite's writer follows the same layout; convert writes it;
``recordio`` reads both formats."""

import pickle
import pickletools
import struct
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
import v2_recordio_files as go

import paddle_lite as paddle
from paddle_lite._src.readers import recordio_v2
from paddle_lite.errors import DataError, MissingDependencyError
from paddle_lite.reader.creator import recordio, write_recordio, write_recordio_v2

try:
    import cramjam  # noqa: F401

    HAS_SNAPPY = True
except ImportError:
    HAS_SNAPPY = False

COMPRESSORS = [
    0,
    pytest.param(1, marks=pytest.mark.skipif(not HAS_SNAPPY, reason="cramjam (snappy) absent")),
    2,
]


def _v2_file(path, compressor):
    first = [go.py2_tuple_of_ints([1, 2, 3]), go.py2_tuple_of_ints([4, 5, 6])]
    second = [go.py2_sample(7, "word", [0.5, -1.25, 3.0]), go.py2_array_float32([2.0] * 100)]
    path.write_bytes(go.chunk(first, compressor) + go.chunk(second, compressor))
    return path


@pytest.mark.parametrize("compressor", COMPRESSORS)
def test_a_file_in_go_layout_reads_back_exactly(tmp_path, compressor):
    path = _v2_file(tmp_path / f"v2-{compressor}", compressor)
    got = list(recordio(str(path))())
    assert got[:2] == [(1, 2, 3), (4, 5, 6)]
    array, label, word, text = got[2]
    assert array.dtype == np.float32
    np.testing.assert_array_equal(array, np.array([0.5, -1.25, 3.0], np.float32))
    assert (label, word, text) == (7, b"word", "word")  # a Python 2 str is bytes
    np.testing.assert_array_equal(got[3], np.full(100, 2.0, np.float32))
    chunks = recordio_v2.scan_chunks(str(path))
    assert [(c.index, c.num_records) for c in chunks] == [(0, 2), (1, 2)]
    assert chunks[1].offset == 20 + struct.unpack_from("<I", path.read_bytes(), 12)[0]


def test_an_empty_file_is_a_file_of_no_chunks(tmp_path):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    assert list(recordio(str(path))()) == []
    assert recordio_v2.scan_chunks(str(path)) == []


@pytest.mark.parametrize(("name", "compressor"), [("none", 0), ("gzip", 2), (1, 1)])
def test_the_writer_lays_out_chunks_as_go_did(tmp_path, name, compressor):
    if compressor == 1 and not HAS_SNAPPY:
        pytest.skip("cramjam (snappy) absent")
    samples = [(i, "x" * i) for i in range(7)]
    path = tmp_path / "out"
    assert write_recordio_v2(path, lambda: iter(samples), name, max_chunk_size=60) == 7
    raw, offset, counts = path.read_bytes(), 0, []
    while offset < len(raw):
        magic, crc, comp, size, count = struct.unpack_from("<5I", raw, offset)
        data = raw[offset + 20 : offset + 20 + size]
        assert (magic, crc, comp) == (0x01020304, zlib.crc32(data), compressor)
        counts.append(count)
        offset += 20 + size
    records = [recordio_v2.safe_pickle.dumps_plain(s) for s in samples]
    expected, size, current = [], 0, 0  # Go: close the chunk before it passes 60 bytes
    for record in records:
        if current and size + len(record) > 60:
            expected.append(current)
            size, current = 0, 0
        size, current = size + len(record), current + 1
    assert counts == [*expected, current] and len(counts) > 1
    assert list(recordio(str(path))()) == samples


def test_written_records_are_python_2_pickles_v2_loads(tmp_path):
    sample = (np.arange(6, dtype=np.int64).reshape(2, 3), 2.5, "text", b"raw", [None, True], {1: 2})
    record = recordio_v2.safe_pickle.dumps_plain(sample)
    ops = list(pickletools.genops(record))
    assert max(op.proto for op, _, _ in ops) <= 2
    assert {arg for op, arg, _ in ops if op.name == "GLOBAL"} == {
        "numpy.core.multiarray _reconstruct",
        "numpy ndarray",
        "numpy dtype",
    }
    loaded = pickle.loads(record, encoding="bytes")  # our own bytes: what v2's loads did
    np.testing.assert_array_equal(loaded[0], sample[0])
    assert loaded[1:] == sample[1:]


def test_unstorable_values_and_compressors_are_refused(tmp_path):
    with pytest.raises(DataError, match=r"sample 1\[1\] has type set"):
        write_recordio_v2(tmp_path / "x", lambda: iter([1, (2, {3})]))
    with pytest.raises(DataError, match="dtype object"):
        write_recordio_v2(tmp_path / "x", lambda: iter([np.array([None])]))
    with pytest.raises(DataError, match="compressor must be one of"):
        write_recordio_v2(tmp_path / "x", lambda: iter([1]), "lz4")
    assert not (tmp_path / "x").exists()


def test_snappy_without_cramjam_names_the_install(tmp_path, monkeypatch):
    path = tmp_path / "snappy"
    path.write_bytes(go.chunk([go.py2_tuple_of_ints([1])], 1))
    monkeypatch.setitem(sys.modules, "cramjam", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'paddle_lite\[snappy\]'"):
        list(recordio(str(path))())


def test_recordio_reads_both_formats_in_one_pass(tmp_path):
    _v2_file(tmp_path / "part-0", 0)
    write_recordio(tmp_path / "part-1", lambda: iter([("lite", 1)]))
    got = list(recordio(str(tmp_path / "part-*"))())
    assert got[:2] == [(1, 2, 3), (4, 5, 6)] and got[-1] == ("lite", 1) and len(got) == 5


def test_convert_writes_v2_recordio_every_reader_reads(tmp_path):
    samples = [(np.full(3, i, np.float32), i) for i in range(5)]
    written = paddle.dataset.common.convert(str(tmp_path), lambda: iter(samples), 2, "demo")
    assert [p.rsplit("/", 1)[1] for p in written] == ["demo-00000", "demo-00001", "demo-00002"]
    assert all(Path(p).read_bytes()[:4] == b"\x04\x03\x02\x01" for p in written)
    for reader in (
        paddle.dataset.common.converted_reader(str(tmp_path / "demo-*")),
        recordio(str(tmp_path / "demo-*")),
    ):
        got = list(reader())
        assert [label for _, label in got] == [0, 1, 2, 3, 4]
        np.testing.assert_array_equal(got[4][0], np.full(3, 4, np.float32))
        assert got[4][0].dtype == np.float32
    old = tmp_path / "old-00000"  # a shard an earlier convert wrote in paddle_lite's format
    write_recordio(old, lambda: iter([(1, 2)]))
    assert list(paddle.dataset.common.converted_reader([str(old)])()) == [(1, 2)]
