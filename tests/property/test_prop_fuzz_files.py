"""Mutated-byte fuzzing of the file parsers: whatever the bytes, only typed errors come out.

Each test starts from a valid file (a v2 parameter tar, plain and gzipped; a
``ParameterConfig``; an npz; a topology JSON), applies random mutations (bytes overwritten,
inserted, deleted, the file cut) and reads the result. A read may succeed (a mutation in
padding changes nothing) or raise the format's typed error; anything else — an IndexError,
a struct.error, a UnicodeDecodeError, a RecursionError, a MemoryError — fails the test.
"""

import collections
import gzip
import io
import json

from _budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import paddle_lite as paddle
from paddle_lite._src.graph import reset_names
from paddle_lite._src.proto import parameter_config as proto
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite.errors import ParameterError, TopologyError

Parameters = paddle.parameters.Parameters

MUTATION = st.tuples(
    st.sampled_from(["set", "insert", "delete", "cut"]),
    st.floats(0, 1, exclude_max=True),
    st.integers(0, 255),
)
MUTATIONS = st.lists(MUTATION, min_size=1, max_size=4)


def mutate(data: bytes, mutations) -> bytes:
    out = bytearray(data)
    for kind, where, value in mutations:
        pos = int(where * max(len(out), 1))
        if kind == "set" and out:
            out[pos] = value
        elif kind == "insert":
            out[pos:pos] = bytes([value])
        elif kind == "delete" and out:
            del out[pos]
        elif kind == "cut":
            del out[pos:]
    return bytes(out)


def _params():
    params = Parameters()
    for name, shape in [("a.w0", (3, 4)), ("a.wbias", (1, 4)), ("b", (2,))]:
        spec = ParamSpec(name, shape, InitSpec("uniform", 0.0, 0.5), momentum=0.9)
        params.append_spec(spec)
    return params


def _tar(params, compress=False):
    buf = io.BytesIO()
    params.to_tar(buf)
    return gzip.compress(buf.getvalue(), mtime=0) if compress else buf.getvalue()


TAR, TAR_GZ = _tar(_params()), _tar(_params(), compress=True)
CONFIG = proto.encode(proto.from_spec(_params().spec("a.w0")))


def _fuzz(fault, what, read, base, error, budget, mutations=MUTATIONS):
    """Read ``budget`` mutations of ``base``; only ``error`` may be raised."""
    outcomes = collections.Counter()
    fault.case("fuzzing", f"{what}, randomly mutated bytes", f"it loads or raises {error.__name__}")

    @settings(max_examples=examples(budget))
    @given(mutations)
    def check(changes):
        try:
            read(mutate(base, changes))
        except error:
            outcomes["refused"] += 1
        else:
            outcomes["loaded"] += 1

    check()
    total = sum(outcomes.values())
    fault.observed(
        f"{total} mutated files: {outcomes['refused']} refused with {error.__name__}, "
        f"{outcomes['loaded']} loaded, 0 other exceptions"
    )
    return outcomes


def test_mutated_parameter_tars(fault):
    loaded = Parameters.from_tar(io.BytesIO(TAR))
    assert loaded.keys() == ["a.w0", "a.wbias", "b"]
    outcomes = _fuzz(
        fault,
        "v2 parameter tar",
        lambda d: Parameters.from_tar(io.BytesIO(d)),
        TAR,
        ParameterError,
        150,
    )
    assert outcomes["refused"] > 0


def test_mutated_gzipped_parameter_tars(fault):
    outcomes = _fuzz(
        fault,
        "gzipped parameter tar",
        lambda d: Parameters.from_tar(io.BytesIO(d)),
        TAR_GZ,
        ParameterError,
        80,
    )
    assert outcomes["refused"] > 0


def test_mutated_parameter_configs(fault):
    def read(data):
        return proto.to_spec(proto.decode(data))

    assert read(CONFIG) == _params().spec("a.w0")
    _fuzz(fault, "ParameterConfig message", read, CONFIG, ParameterError, 200)


def test_random_bytes_as_parameter_configs(fault):
    fault.case(
        "fuzzing", "ParameterConfig from random bytes", "it decodes or raises ParameterError"
    )
    count = collections.Counter()

    @settings(max_examples=examples(200))
    @given(st.binary(max_size=64))
    def check(data):
        try:
            proto.to_spec(proto.decode(data))
            count["loaded"] += 1
        except ParameterError:
            count["refused"] += 1

    check()
    fault.observed(
        f"{sum(count.values())} random messages: {count['refused']} refused, "
        f"{count['loaded']} decoded, 0 other exceptions"
    )


def test_mutated_npz_files(fault):
    buf = io.BytesIO()
    _params().save_npz(buf)
    base = buf.getvalue()
    outcomes = _fuzz(
        fault,
        "parameter npz",
        lambda d: Parameters.load_npz(io.BytesIO(d)),
        base,
        ParameterError,
        120,
    )
    assert outcomes["refused"] > 0


def _topology_text():
    reset_names()
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(4))
    hidden = paddle.layer.fc(input=x, size=3, act=paddle.activation.Relu())
    out = paddle.layer.fc(input=[hidden, x], size=2, act=paddle.activation.Softmax())
    return paddle.topology.Topology(out).serialize()


def test_mutated_topology_json_bytes(fault):
    base = _topology_text().encode()
    outcomes = _fuzz(
        fault, "topology JSON", paddle.topology.Topology.deserialize, base, TopologyError, 120
    )
    assert outcomes["refused"] > 0


LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=5),
    st.lists(st.integers(-3, 3), max_size=3),
    st.just({}),
)


def _leaves(obj, path=()):
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(obj, list) and obj:
        for i, value in enumerate(obj):
            yield from _leaves(value, (*path, i))
    else:
        yield path


def _replace(obj, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = dict(obj) if isinstance(obj, dict) else list(obj)
    copy[head] = _replace(obj[head], rest, value)
    return copy


def test_topology_json_with_values_replaced(fault):
    base = json.loads(_topology_text())
    leaves = list(_leaves(base))
    edits = st.lists(st.tuples(st.sampled_from(leaves), LEAF), min_size=1, max_size=3)
    fault.case(
        "fuzzing",
        "topology JSON, random values put in place of fields",
        "it loads or raises TopologyError",
    )
    count = collections.Counter()

    @settings(max_examples=examples(150))
    @given(edits)
    def check(changes):
        obj = base
        for path, value in changes:
            obj = _replace(obj, path, value)
        try:
            paddle.topology.Topology.from_json(obj)
            count["loaded"] += 1
        except TopologyError:
            count["refused"] += 1

    check()
    assert count["refused"] > 0
    fault.observed(
        f"{sum(count.values())} edited topologies: {count['refused']} refused with "
        f"TopologyError, {count['loaded']} loaded, 0 other exceptions"
    )
