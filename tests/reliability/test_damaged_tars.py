"""A damaged parameter tar is refused whole, never loaded in part.

Every cut at a 512-byte boundary and every single-bit flip in every header field of
every member gives a ``ParameterError`` naming the file and the byte offset, or (for the
few bytes a tar header does not check, e.g. the checksum field's terminator) exactly the
original parameters. The tars are written by paddle_lite itself (so the test runs
anywhere) and, when the shared folder is present, the book's real v2 ``fit_a_line.tar``
(written without end-of-archive blocks, as v2's ``to_tar`` left its tars).
"""

from __future__ import annotations

import gzip
import io
import pathlib
import tarfile
import warnings

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite.errors import ParameterError, ParameterWarning

Parameters = paddle.parameters.Parameters
V2_TAR = pathlib.Path("/work/shared/v2_models/fit_a_line.tar")
# (field, offset, length) of a tar header block (POSIX / GNU layout).
FIELDS = [
    ("name", 0, 100),
    ("mode", 100, 8),
    ("uid", 108, 8),
    ("gid", 116, 8),
    ("size", 124, 12),
    ("mtime", 136, 12),
    ("chksum", 148, 8),
    ("typeflag", 156, 1),
    ("linkname", 157, 100),
    ("magic", 257, 8),
    ("uname", 265, 32),
    ("gname", 297, 32),
    ("devmajor", 329, 8),
    ("devminor", 337, 8),
    ("rest", 345, 167),
]


def _params(names=("a", "b", "c", "d")):
    rng = np.random.default_rng(0)
    params = Parameters()
    for i, name in enumerate(names):
        spec = ParamSpec(name, (i + 2, 3), InitSpec("gaussian", 0.0, 1.0))
        params.append_spec(spec, rng.normal(size=spec.shape).astype(np.float32))
    return params


def _tar_bytes(params):
    buf = io.BytesIO()
    params.to_tar(buf)
    return buf.getvalue()


def _outcome(data, name="model.tar"):
    """'loaded' with the values, or the ParameterError; anything else fails the test."""
    stream = io.BytesIO(data)
    stream.name = name
    try:
        loaded = Parameters.from_tar(stream)
    except ParameterError as err:
        assert name in str(err), err
        return err
    return {n: loaded.get(n) for n in loaded.names()}


def _same(loaded, original):
    return (
        isinstance(loaded, dict)
        and loaded.keys() == set(original.names())
        and all(np.array_equal(loaded[n], original.get(n)) for n in loaded)
    )


def _header_offsets(data):
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return [(m.name, m.offset) for m in tar.getmembers()]


def _sources():
    own = _params()
    yield "paddle_lite to_tar", _tar_bytes(own), own
    if V2_TAR.exists():
        yield "v2 fit_a_line.tar", V2_TAR.read_bytes(), Parameters.from_tar(str(V2_TAR))


@pytest.mark.parametrize("which", [0, 1])
def test_every_cut_at_a_block_boundary_is_refused(which, fault):
    sources = list(_sources())
    if which >= len(sources):
        pytest.skip("the shared v2 model tar is not present")
    label, data, original = sources[which]
    assert _same(_outcome(data), original)
    fault.case(
        "parameter tar (damaged)",
        f"{label} ({len(data)} bytes) cut at each 512-byte boundary",
        "ParameterError naming the file and the offset; never a partial load",
    )
    ends = _pair_ends(data)
    refused, ambiguous = 0, []
    for cut in range(0, len(data), 512):
        got = _outcome(data[:cut])
        if isinstance(got, ParameterError):
            assert cut == 0 or "byte" in str(got), got
            refused += 1
            continue
        # v2 wrote no end-of-archive blocks, so a cut exactly after a parameter's config
        # member is a whole v2 tar of the parameters before it (module doc); every other
        # cut is refused.
        assert cut in ends and _same(got, _first(original, ends.index(cut) + 1)), cut
        ambiguous.append(cut)
    fault.observed(
        f"{refused} cuts refused with ParameterError naming the offset; {len(ambiguous)} cuts "
        "exactly between two parameters loaded as a whole v2-layout tar of the parameters "
        "before the cut (init_from_tar names the rest)"
    )


def _pair_ends(data):
    """The offsets just after each parameter's config member (where v2's tars end)."""
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return [
            m.offset_data + -(-m.size // 512) * 512
            for m in tar.getmembers()
            if m.name.endswith(".protobuf")
        ]


def _first(params, count):
    out = Parameters()
    for name in params.names()[:count]:
        out.append_spec(params.spec(name), params.get(name))
    return out


def _flip_outcomes(data, original):
    """Per header field: how many single-bit flips were refused / loaded unchanged."""
    counts = {}
    for _, start in _header_offsets(data):
        for field, offset, length in FIELDS:
            for byte in range(start + offset, start + offset + length):
                for bit in range(8):
                    mutated = bytearray(data)
                    mutated[byte] ^= 1 << bit
                    got = _outcome(bytes(mutated))
                    refused = isinstance(got, ParameterError)
                    assert refused or _same(got, original), (field, byte, bit, got)
                    row = counts.setdefault(field, [0, 0])
                    row[0 if refused else 1] += 1
    return counts


@pytest.mark.parametrize("which", [0, 1])
def test_every_bit_flip_in_every_header_field_is_refused(which, fault):
    sources = list(_sources())
    if which >= len(sources):
        pytest.skip("the shared v2 model tar is not present")
    label, data, original = sources[which]
    if label.startswith("paddle_lite"):  # smaller: two parameters, four members
        original = _params(("a", "b"))
        data = _tar_bytes(original)
    fault.case(
        "parameter tar (damaged)",
        f"{label}: each bit of each header field of each member flipped",
        "ParameterError naming the file and the offset, or the very same parameters",
    )
    counts = _flip_outcomes(data, original)
    unchanged = {f: c[1] for f, c in counts.items() if c[1]}
    # The checksum covers every header byte except the checksum field itself, whose
    # terminator bytes (NUL and space) are interchangeable.
    assert set(unchanged) <= {"chksum"}, unchanged
    total = sum(sum(c) for c in counts.values())
    fault.observed(
        f"{total} flips: {total - sum(unchanged.values())} refused with ParameterError, "
        f"{sum(unchanged.values())} (in the checksum field's terminator) loaded the same "
        "parameters, 0 loaded in part"
    )


def test_a_flipped_later_header_names_its_offset(fault):
    data = bytearray(_tar_bytes(_params()))
    name, offset = _header_offsets(bytes(data))[4]
    data[offset + 3] ^= 0x10
    fault.case(
        "parameter tar (damaged)",
        f"one bit flipped in the header of member 5 ({name!r}) of 8",
        "ParameterError naming the file and the byte offset",
    )
    got = _outcome(bytes(data))
    assert isinstance(got, ParameterError) and f"at byte {offset}" in str(got), got
    assert "bad checksum" in str(got) or "does not parse" in str(got)
    fault.observed(got)


def test_gzipped_tar_cut_or_missing_its_end_is_refused(fault):
    original = _params()
    packed = gzip.compress(_tar_bytes(original))
    assert _same(_outcome(packed), original)
    fault.case(
        "parameter tar (damaged)",
        "a gzipped tar cut at every 64th byte",
        "ParameterError naming the file",
    )
    for cut in range(0, len(packed), 64):
        assert isinstance(_outcome(packed[:cut]), ParameterError), cut
    fault.observed(f"{len(range(0, len(packed), 64))} cuts refused with ParameterError")


def test_v2_layout_without_end_blocks_loads_but_must_end_with_a_config():
    original = _params()
    data = _tar_bytes(original)
    body = data[:-1024]  # v2's to_tar never wrote the end-of-archive blocks
    assert _same(_outcome(body), original)
    offsets = dict(_header_offsets(data))
    got = _outcome(data[: offsets["d.protobuf"]])  # values of 'd', not its config
    assert isinstance(got, ParameterError) and "truncated" in str(got), got


def test_init_from_tar_names_what_the_tar_lacks(fault):
    full = _params()
    dst = _params()
    for name in dst.names():
        dst.set(name, np.zeros(dst.get_shape(name), np.float32))
    fault.case(
        "parameter tar (damaged)",
        "init_from_tar of a whole tar lacking parameters 'c' and 'd'",
        "ParameterWarning naming them; the others loaded (v2 loads what the tar holds)",
    )
    half = _params(("a", "b"))
    with pytest.warns(ParameterWarning, match=r"\['c', 'd'\]") as record:
        dst.init_from_tar(io.BytesIO(_tar_bytes(half)))
    np.testing.assert_array_equal(dst.get("a"), full.get("a"))
    assert not dst.get("d").any()
    fault.observed(record[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dst.init_from_tar(io.BytesIO(_tar_bytes(half)), exclude_params=["c", "d"])
    data = _tar_bytes(full)
    with pytest.raises(ParameterError, match="byte"):
        dst.init_from_tar(io.BytesIO(data[: len(data) // 2 // 512 * 512]))
