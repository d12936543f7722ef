"""Record files by index: the sidecar index is used when it describes its data, rebuilt
with a warning otherwise, and never gives a wrong record."""

import os
import random
import warnings

import numpy as np
import pytest

from paddle_lite._src.readers import record_index, recordio, recordio_v2
from paddle_lite.errors import DataWarning
from paddle_lite.reader import creator

SAMPLES = [(i, [float(i)] * (i % 4), f"s{i}") for i in range(25)]


def _reader(samples=SAMPLES):
    return lambda: iter(samples)


def _by_index(path):
    view = creator.recordio(str(path)).open_pass()
    return [view[j] for j in range(len(view))]


def _quiet(function, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return function(*args)


def test_write_recordio_writes_an_index_that_reads_every_record(tmp_path):
    path = tmp_path / "data.rec"
    assert creator.write_recordio(str(path), _reader()) == 25
    assert (tmp_path / "data.rec.index").exists()
    offsets = list(recordio.record_offsets(str(path)))
    view = _quiet(record_index.records_view, str(path))
    assert view.offsets.tolist() == [*offsets, os.path.getsize(path)]
    assert _quiet(_by_index, path) == SAMPLES == list(creator.recordio(str(path))())
    random_order = random.Random(0).sample(range(25), 25)
    assert [view[j] for j in random_order] == [SAMPLES[j] for j in random_order]


@pytest.mark.parametrize(
    "spoil, why",
    [
        (lambda index, data: index.unlink(), "is missing"),
        (lambda index, data: index.write_bytes(index.read_bytes()[:-3]), "damaged"),
        (lambda index, data: index.write_bytes(b"PLRIDX1\n{not json\n"), "damaged"),
        (lambda index, data: _flip_offset(index), "fail their sha256"),
        (lambda index, data: _shorter_data(index, data), "describes a file of"),
        (lambda index, data: _same_size_other_data(index, data), "describes other data"),
    ],
)
def test_an_index_that_does_not_describe_its_data_is_rebuilt_with_a_warning(
    tmp_path, spoil, why
):
    data, index = tmp_path / "d.rec", tmp_path / "d.rec.index"
    creator.write_recordio(str(data), _reader())
    _OLD[:] = [index.read_bytes()]
    spoil(index, data)
    want = list(recordio.read_samples(str(data)))
    with pytest.warns(DataWarning, match=why):
        got = _by_index(data)
    assert got == want
    assert _quiet(_by_index, data) == want  # written back: the next read trusts it


_OLD: list[bytes] = []


def _flip_offset(index):
    raw = bytearray(index.read_bytes())
    raw[-5] ^= 0x40
    index.write_bytes(bytes(raw))


def _shorter_data(index, data):
    creator.write_recordio(str(data), _reader(SAMPLES[:7]))
    index.write_bytes(_OLD[0])  # the index of the longer file it replaced


def _same_size_other_data(index, data):
    saved = index.read_bytes()
    other = [(i, [float(i)] * (i % 4), f"t{i}") for i in range(25)]  # same sizes
    creator.write_recordio(str(data), _reader(other))
    index.write_bytes(saved)
    os.utime(data, ns=(1, 1))


def test_a_touched_file_with_the_same_data_keeps_its_index(tmp_path):
    data = tmp_path / "d.rec"
    creator.write_recordio(str(data), _reader())
    os.utime(data, ns=(5, 5))  # a copy, a restore from backup: same bytes, new time
    assert _quiet(_by_index, data) == SAMPLES


def test_a_folder_that_refuses_the_index_serves_the_scan_from_memory(tmp_path, monkeypatch):
    data = tmp_path / "d.rec"
    creator.write_recordio(str(data), _reader())
    (tmp_path / "d.rec.index").unlink()

    def refused(path, offsets):  # a read-only folder (root writes anywhere, so simulate it)
        raise PermissionError(13, "Permission denied", path + ".index")

    monkeypatch.setattr(record_index, "write_index", refused)
    with pytest.warns(DataWarning, match="is missing"):
        assert _by_index(data) == SAMPLES
    assert not (tmp_path / "d.rec.index").exists()


def test_v2_files_are_read_by_index_through_their_chunk_headers(tmp_path):
    path = tmp_path / "v2.recordio"
    recordio_v2.write_recordio_v2(str(path), _reader(), max_chunk_size=60, compressor="gzip")
    assert len(recordio_v2.scan_chunks(str(path))) > 3
    view = _quiet(record_index.records_view, str(path))
    order = random.Random(1).sample(range(25), 25)
    want = list(recordio_v2.read_samples(str(path)))
    assert [view[j] for j in order] == [want[j] for j in order]
    assert len(want) == 25 and not (tmp_path / "v2.recordio.index").exists()


def test_a_glob_leaves_out_the_indexes(tmp_path):
    for part in range(2):
        creator.write_recordio(str(tmp_path / f"part-{part}"), _reader(SAMPLES[part::2]))
    reader = creator.recordio(str(tmp_path / "part-*"))
    assert sorted(s[0] for s in reader()) == list(range(25))
    assert len(reader.open_pass()) == 25


def test_random_damage_to_an_index_never_gives_a_wrong_record(tmp_path):
    data, index = tmp_path / "d.rec", tmp_path / "d.rec.index"
    creator.write_recordio(str(data), _reader())
    good = index.read_bytes()
    rng = np.random.default_rng(0)
    for _ in range(60):
        raw = bytearray(good)
        for at in rng.integers(0, len(raw), 3):
            raw[at] ^= int(rng.integers(1, 256))
        index.write_bytes(bytes(raw))
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            assert _by_index(data) == SAMPLES
