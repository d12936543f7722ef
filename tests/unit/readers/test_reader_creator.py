"""Reader creators: the v2 creator_test behaviours plus the record format and error paths."""

import pickle
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from paddle_lite.errors import DataError, DataWarning
from paddle_lite.reader.creator import np_array, recordio, text_file, write_recordio


def records_reader(samples):
    def reader():
        yield from samples

    return reader


def test_np_array_yields_rows():
    x = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    rows = list(np_array(x)())
    assert len(rows) == 3
    for i, row in enumerate(rows):
        np.testing.assert_array_equal(row, np.array([[4 * i, 4 * i + 1], [4 * i + 2, 4 * i + 3]]))
        assert row.dtype == np.float32
    assert [int(v) for v in np_array(np.array([5, 6]))()] == [5, 6]
    assert [float(v) for v in np_array(np.array(2.5))()] == [2.5]
    assert len(list(np_array(x)())) == 3


def test_text_file_yields_lines_without_newline(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("0 1\n2 3\n\n4 5", encoding="utf-8")
    assert list(text_file(str(path))()) == ["0 1", "2 3", "", "4 5"]
    assert list(text_file(path)()) == ["0 1", "2 3", "", "4 5"]
    path.write_bytes(b"a\r\nb\n")
    assert list(text_file(path)()) == ["a\r", "b"]
    with pytest.raises(TypeError, match="path must be a str"):
        text_file(3)
    with pytest.raises(FileNotFoundError):
        list(text_file(tmp_path / "missing.txt")())


@pytest.fixture
def rec_file(tmp_path):
    path = tmp_path / "data.rec"
    assert write_recordio(path, records_reader([(1, 2, 3), (4, 5, 6)])) == 2
    return str(path)


def test_recordio_str_and_list_forms(rec_file):
    assert list(recordio(rec_file)()) == [(1, 2, 3), (4, 5, 6)]
    assert list(recordio([rec_file])()) == [(1, 2, 3), (4, 5, 6)]
    assert list(recordio(rec_file, buf_size=1)()) == [(1, 2, 3), (4, 5, 6)]


def test_recordio_comma_list_and_glob(tmp_path, rec_file):
    other = tmp_path / "other.rec"
    write_recordio(other, records_reader([("x",)]))
    both = [(1, 2, 3), (4, 5, 6), ("x",)]
    assert list(recordio(f"{rec_file},{other}")()) == both
    assert list(recordio(str(tmp_path / "*.rec"))()) == both
    with pytest.raises(FileNotFoundError, match="matches no file"):
        list(recordio(str(tmp_path / "*.nothing"))())
    with pytest.raises(FileNotFoundError, match="no file"):
        list(recordio(str(tmp_path / "absent.rec"))())
    with pytest.raises(TypeError, match="paths must be a str"):
        recordio(42)


def test_recordio_round_trips_nested_values(tmp_path):
    image = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    sample = (
        image,
        [1, 2.5, None, True, "w"],
        {"ids": np.array([3, 1], dtype=np.int64), 7: (b"\x00\xff", -2)},
        float("inf"),
    )
    path = tmp_path / "nested.rec"
    write_recordio(path, records_reader([sample, ([],)]))
    got, empty = list(recordio(str(path))())
    assert isinstance(got, tuple) and len(got) == 4
    np.testing.assert_array_equal(got[0], image)
    assert got[0].dtype == np.float32 and got[0].shape == (3, 4)
    assert got[1] == [1, 2.5, None, True, "w"]
    assert set(got[2]) == {"ids", 7}
    np.testing.assert_array_equal(got[2]["ids"], np.array([3, 1]))
    assert got[2]["ids"].dtype == np.int64
    assert got[2][7] == (b"\x00\xff", -2)
    assert got[3] == float("inf")
    assert empty == ([],)


def test_recordio_file_layout(tmp_path):
    path = tmp_path / "layout.rec"
    write_recordio(path, records_reader([[1, "a"]]))
    raw = path.read_bytes()
    payload = b'[1,"a"]'
    assert raw == b"PLREC\x001\n" + struct.pack("<II", len(payload), zlib.crc32(payload)) + payload


def test_recordio_refuses_unknown_and_damaged_files(tmp_path, rec_file):
    pickled = tmp_path / "bare.pickle"  # a bare pickle is neither record format
    pickled.write_bytes(pickle.dumps((1, 2, 3)))
    with pytest.raises(DataError, match="neither a v2 RecordIO file .* nor a paddle_lite"):
        list(recordio(str(pickled))())
    raw = Path(rec_file).read_bytes()
    truncated = tmp_path / "cut.rec"  # copied without its index: rebuilt from a scan
    truncated.write_bytes(raw[:-2])
    with pytest.raises(DataError, match="truncated inside record 1"), pytest.warns(
        DataWarning, match="index of .*cut.rec' is missing"
    ):
        list(recordio(str(truncated))())
    corrupt = tmp_path / "flip.rec"
    corrupt.write_bytes(raw[:-1] + b"7")
    with pytest.raises(DataError, match="record 1 .* fails its checksum"), pytest.warns(
        DataWarning
    ):
        list(recordio(str(corrupt))())


def test_write_recordio_rejects_unstorable_values(tmp_path):
    with pytest.raises(DataError, match=r"sample\[1\] has type set"):
        write_recordio(tmp_path / "bad.rec", records_reader([(1, {2})]))
    with pytest.raises(DataError, match="dtype object"):
        write_recordio(tmp_path / "bad.rec", records_reader([np.array([None])]))
    with pytest.raises(TypeError, match="write_recordio: reader must be a reader"):
        write_recordio(tmp_path / "bad.rec", [(1, 2)])
