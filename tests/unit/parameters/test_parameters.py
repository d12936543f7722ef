"""Parameters: create, the v2 Parameters API, the v2 tar format (byte level), npz."""

from __future__ import annotations

import gzip
import io
import math
import os
import struct
import tarfile
import warnings

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src import config
from paddle_lite._src import parameters as P
from paddle_lite._src.activations import Linear
from paddle_lite._src.attrs import ParamAttr
from paddle_lite._src.data_types import dense_vector
from paddle_lite._src.graph import name_scope
from paddle_lite._src.layers.data import data
from paddle_lite._src.layers.fc import fc
from paddle_lite._src.proto import parameter_config as proto
from paddle_lite._src.proto import wire as proto_wire
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite._src.topology import Topology
from paddle_lite.errors import ParameterError, ParameterWarning

try:
    from tests.unit._dataset_fixtures import shared_root
except ImportError:  # pragma: no cover - run from inside tests/unit
    from _dataset_fixtures import shared_root

REAL_TAR = str(shared_root() / "v2_models" / "fit_a_line.tar")
W0, WBIAS = "___fc_layer_0__.w0", "___fc_layer_0__.wbias"
REAL_W0_PROTO = (
    b"\x0a\x12"
    + W0.encode()
    + b"\x10\x0d"
    + b"\x29"
    + struct.pack("<d", 0.0)
    + b"\x31"
    + struct.pack("<d", 1 / math.sqrt(13))
    + b"\x48\x0d\x48\x01\x58\x00\x60\x01"
)
needs_real = pytest.mark.skipif(not os.path.exists(REAL_TAR), reason=f"{REAL_TAR} is absent")


def fit_a_line():
    """Chapter 1's network with v2's default names."""
    with name_scope():
        x = data(name="x", type=dense_vector(13))
        return fc(input=x, size=1, act=Linear())


def real_members() -> dict[str, bytes]:
    with tarfile.open(REAL_TAR) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}


def random_params(rng, n=5) -> P.Parameters:
    params = P.Parameters()
    for i in range(n):
        shape = (int(rng.integers(1, 8)), int(rng.integers(1, 8)))
        params.append_spec(ParamSpec(f"param_{i}", shape, InitSpec("gaussian", 0.0, 1.0)))
        params.set(f"param_{i}", rng.standard_normal(shape).astype(np.float32))
    return params


def tar_bytes(params) -> bytes:
    buf = io.BytesIO()
    params.to_tar(buf)
    return buf.getvalue()


# ParameterConfig wire format -----------------------------------------------------------
def test_proto_encodes_the_real_config_bytes():
    spec = ParamSpec(W0, (13, 1), InitSpec("gaussian", 0.0, 1 / math.sqrt(13), smart=True))
    assert proto.encode(proto.from_spec(spec)) == REAL_W0_PROTO
    bias = ParamSpec(WBIAS, (1, 1), InitSpec("gaussian", 0.0, 0.0))
    expected = (
        b"\x0a\x15"
        + WBIAS.encode()
        + b"\x10\x01\x29"
        + bytes(8)
        + b"\x31"
        + bytes(8)
        + b"\x48\x01\x48\x01\x58\x00\x60\x00"
    )
    assert proto.encode(proto.from_spec(bias)) == expected


@needs_real
def test_proto_matches_the_real_file_for_the_network_spec():
    members = real_members()
    params = P.create(fit_a_line())
    for name in (W0, WBIAS):
        assert proto.encode(proto.from_spec(params.spec(name))) == members[name + ".protobuf"]
    cfg = proto.decode(members[W0 + ".protobuf"])
    assert (cfg.name, cfg.size, cfg.dims) == (W0, 13, (13, 1))
    assert (cfg.initial_mean, cfg.initial_strategy, cfg.initial_smart) == (0.0, 0, True)
    assert cfg.initial_std == 1 / math.sqrt(13)
    assert cfg.learning_rate is None and cfg.value("learning_rate") == 1.0


def test_proto_skips_unknown_fields_of_every_wire_type():
    unknown = (
        b"\xc8\x03\x96\x01"  # field 57, varint 150
        + b"\xd1\x03"
        + bytes(range(8))  # field 58, fixed64
        + b"\xda\x03\x03abc"  # field 59, length-delimited
        + b"\xe5\x03"
        + bytes(4)  # field 60, fixed32
        + b"\xeb\x03\x08\x01\x12\x01x\xec\x03"  # field 61, a group holding fields 1, 2
        + b"\x25"
        + bytes(4)  # known field 4 with a wrong wire type
    )
    plain = proto.decode(REAL_W0_PROTO)
    assert proto.decode(REAL_W0_PROTO[:22] + unknown + REAL_W0_PROTO[22:]) == plain


def test_proto_negative_int32_packed_dims_and_errors():
    cfg = proto.ParameterConfig(
        name="p", size=6, dims=(2, 3), device=-1, update_hooks=(b"\x0a\x01a",)
    )
    data_ = proto.encode(cfg)
    assert b"\x50" + b"\xff" * 9 + b"\x01" in data_  # field 10, ten-byte varint
    assert proto.decode(data_) == cfg
    packed = b"\x0a\x01p\x10\x06\x4a\x02\x02\x03"  # dims packed: [2, 3]
    assert proto.decode(packed).dims == (2, 3)
    with pytest.raises(ParameterError, match="malformed"):
        proto.decode(REAL_W0_PROTO[:-3] + b"\x31\x00")
    with pytest.raises(ParameterError, match="name or size"):
        proto.decode(b"\x10\x06")
    with pytest.raises(ParameterError, match="dims"):
        proto.to_spec(proto.ParameterConfig(name="p", size=5, dims=(2, 3)))
    assert proto.to_spec(proto.ParameterConfig(name="p", size=5)).shape == (1, 5)


def test_proto_round_trips_update_settings_in_field_order():
    spec = ParamSpec(
        "w",
        (4, 3, 2),
        InitSpec("uniform", 0.5, 0.25),
        learning_rate=2.0,
        momentum=0.9,
        decay_rate=1e-3,
        decay_rate_l1=1e-4,
        gradient_clipping_threshold=5.0,
        is_static=True,
        sparse_update=True,
    )
    encoded = proto.encode(proto.from_spec(spec))
    assert proto.to_spec(proto.decode(encoded)) == spec
    numbers, reader = [], proto_wire.WireReader(encoded)
    while not reader.done():
        numbers.append(reader.field()[0])
    assert numbers == [1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 11, 12, 16, 17, 18, 22]


# v2 unit tests (tests/test_parameters.py) ----------------------------------------------
def test_serialization():
    rng = np.random.default_rng(0)
    params = random_params(rng)
    loaded = P.Parameters.from_tar(io.BytesIO(tar_bytes(params)))
    assert loaded.names() == params.names()
    for name in params.names():
        assert loaded.get_shape(name) == params.get_shape(name)
        np.testing.assert_allclose(loaded.get(name), params.get(name), rtol=0)


def test_initializer():
    expected = np.arange(6, dtype=np.float32).reshape(3, 2) / 7
    calls = []

    def init(name):
        calls.append(name)
        return expected.copy()

    with name_scope():
        x = data(name="x", type=dense_vector(3))
        y = fc(
            input=x, size=2, bias_attr=False, param_attr=ParamAttr(name="fc.w", initializer=init)
        )
    value = P.create(y)["fc.w"]
    assert calls == ["fc.w"]
    assert value.shape == (3, 2) and value.dtype == np.float32
    np.testing.assert_array_equal(value, expected)


def test_init_from_tar_both_directions():
    rng = np.random.default_rng(1)
    p1 = random_params(rng, 3)
    p2 = P.Parameters()
    for name in p1.names():
        p2.append_spec(p1.spec(name))
    p2.append_spec(ParamSpec("extra", (2, 2), InitSpec("gaussian", 0.0, 1.0)))
    extra_before = p2.get("extra")
    with pytest.warns(ParameterWarning, match=r"holds no value for \['extra'\]"):
        p2.init_from_tar(io.BytesIO(tar_bytes(p1)))
    for name in p1.names():
        np.testing.assert_array_equal(p2.get(name), p1.get(name))
    np.testing.assert_array_equal(p2.get("extra"), extra_before)
    p2.set("param_0", p2.get("param_0") + 1)
    p1.init_from_tar(io.BytesIO(tar_bytes(p2)))
    assert "extra" not in p1
    np.testing.assert_array_equal(p1.get("param_0"), p2.get("param_0"))


def test_init_from_tar_excludes_reshapes_and_refuses_count_mismatch():
    src = P.Parameters()
    src.append_spec(ParamSpec("a", (6,), InitSpec("gaussian", 0.0, 1.0)))
    src.append_spec(ParamSpec("b", (2,), InitSpec("gaussian", 0.0, 1.0)))
    dst = P.Parameters()
    dst.append_spec(ParamSpec("a", (2, 3), InitSpec("gaussian", 0.0, 0.0)))
    dst.append_spec(ParamSpec("b", (1, 2), InitSpec("gaussian", 0.0, 0.0)))
    dst.init_from_tar(io.BytesIO(tar_bytes(src)), exclude_params=["b"])
    np.testing.assert_array_equal(dst.get("a"), src.get("a").reshape(2, 3))
    np.testing.assert_array_equal(dst.get("b"), np.zeros((1, 2)))
    bad = P.Parameters()
    bad.append_spec(ParamSpec("a", (5,), InitSpec("gaussian", 0.0, 0.0)))
    bad.append_spec(ParamSpec("b", (2,), InitSpec("gaussian", 0.0, 0.0)))
    with pytest.raises(ParameterError, match="'a'.*6 values"):
        bad.init_from_tar(io.BytesIO(tar_bytes(src)))
    np.testing.assert_array_equal(bad.get("b"), np.zeros(2))  # nothing changed


# byte level ----------------------------------------------------------------------------
def test_member_bytes_header_and_float32_payload():
    params = P.Parameters()
    value = np.array([[1.5, -2.0, 3.25]], np.float32)
    params.append_spec(ParamSpec("p", (1, 3), InitSpec("gaussian", 0.0, 0.0)), value)
    buf = io.BytesIO()
    params.serialize("p", buf)
    assert buf.getvalue() == (
        b"\0\0\0\0\x04\0\0\0\x03\0\0\0\0\0\0\0" + struct.pack("<3f", 1.5, -2.0, 3.25)
    )
    with tarfile.open(fileobj=io.BytesIO(tar_bytes(params))) as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == ["p", "p.protobuf"]
        assert all((m.mtime, m.mode, m.uid, m.gid) == (0, 0o644, 0, 0) for m in members)
        assert tar.extractfile("p").read() == buf.getvalue()
        expected = proto.encode(proto.from_spec(params.spec("p")))
        assert tar.extractfile("p.protobuf").read() == expected


def test_deserialize_checks_the_header():
    params = P.Parameters()
    params.append_spec(ParamSpec("p", (2, 2), InitSpec("gaussian", 0.0, 0.0)))
    payload = np.arange(4, dtype="<f4").tobytes()
    for header, match in [
        ((1, 4, 4), "version 1"),
        ((0, 2, 4), "value size 2"),
        ((0, 4, 5), "count 5"),
    ]:
        with pytest.raises(ParameterError, match=f"'p'.*{match}"):
            params.deserialize("p", io.BytesIO(struct.pack("<IIQ", *header) + payload))
    with pytest.raises(ParameterError, match="'p': 12 bytes"):
        params.deserialize("p", io.BytesIO(struct.pack("<IIQ", 0, 4, 4) + payload[:12]))
    doubles = np.array([0.5, 1.5, -2.5, 4.0], "<f8").tobytes()
    params.deserialize("p", io.BytesIO(struct.pack("<IIQ", 0, 8, 4) + doubles))
    np.testing.assert_array_equal(params.get("p"), [[0.5, 1.5], [-2.5, 4.0]])


@needs_real
def test_load_the_real_v2_tar():
    members = real_members()
    params = P.Parameters.from_tar(REAL_TAR)
    assert params.names() == [W0, WBIAS]
    assert params.get_shape(W0) == (13, 1) and params.get_shape(WBIAS) == (1, 1)
    for name in (W0, WBIAS):
        raw = np.frombuffer(members[name][16:], "<f4").astype(np.float64)
        np.testing.assert_array_equal(params.get(name).ravel(), raw)
        assert params.spec(name).owner == "" and params.spec(name).role == ""
    again = P.Parameters.from_tar(io.BytesIO(tar_bytes(params)))
    assert again.specs() == params.specs()
    for name in (W0, WBIAS):
        np.testing.assert_array_equal(again.get(name), params.get(name))


@needs_real
def test_our_tar_reproduces_the_real_file_byte_for_byte():
    with open(REAL_TAR, "rb") as f:
        real = f.read()
    params = P.create(fit_a_line())
    params.update(P.Parameters.from_tar(REAL_TAR).values())
    ours = tar_bytes(params)
    assert ours[: len(real)] == real
    assert ours[len(real) :] == bytes(1024)  # v2 never closed its tar: no end blocks


def test_gzipped_tar_and_long_names_and_deterministic_bytes():
    params = P.Parameters()
    long_name = "_" + "layer" * 30 + ".w0"
    params.append_spec(ParamSpec(long_name, (2, 3), InitSpec("gaussian", 0.0, 1.0)))
    first = tar_bytes(params)
    assert first == tar_bytes(params)
    loaded = P.Parameters.from_tar(io.BytesIO(gzip.compress(first)))
    assert loaded.names() == [long_name]
    np.testing.assert_array_equal(loaded.get(long_name), params.get(long_name))
    with pytest.raises(ParameterError, match="cannot read"):
        P.Parameters.from_tar(io.BytesIO(b"not a tar" * 100))


# create ---------------------------------------------------------------------------------
def gan():
    """The design doc's GAN: one discriminator over real and generated samples."""

    def discriminator(x):
        return fc(
            input=x,
            size=1,
            act=Linear(),
            param_attr=ParamAttr(name="D.w"),
            bias_attr=ParamAttr(name="D.b", initial_std=0.0),
        )

    with name_scope():
        sample = data(name="sample", type=dense_vector(4))
        noise = data(name="noise", type=dense_vector(3))
        d0 = discriminator(sample)
        fake = fc(
            input=noise,
            size=4,
            param_attr=ParamAttr(name="G.w"),
            bias_attr=ParamAttr(name="G.b", initial_std=0.0),
        )
        d1 = discriminator(fake)
    return d0, d1


def test_create_over_two_topologies_shares_names():
    d0, d1 = gan()
    params = P.create([Topology(d0), Topology(d1)], seed=3)
    assert params.names() == ["D.w", "D.b", "G.w", "G.b"]
    assert [params.get_shape(n) for n in params.names()] == [(4, 1), (1, 1), (3, 4), (1, 4)]
    by_layers = P.create([d0, d1], seed=3)
    only_d1 = P.create(d1, seed=3)
    for name in params.names():
        np.testing.assert_array_equal(by_layers.get(name), params.get(name))
        np.testing.assert_array_equal(only_d1.get(name), params.get(name))


def test_conflicting_declarations_name_both_layers():
    with name_scope():
        a = fc(
            input=data(name="a", type=dense_vector(4)),
            size=2,
            name="left",
            param_attr=ParamAttr(name="shared"),
        )
        b = fc(
            input=data(name="b", type=dense_vector(3)),
            size=2,
            name="right",
            param_attr=ParamAttr(name="shared"),
        )
        c = fc(
            input=data(name="c", type=dense_vector(4)),
            size=2,
            name="other",
            param_attr=ParamAttr(name="shared", initial_std=0.5),
        )
        d = fc(
            input=data(name="d", type=dense_vector(4)),
            size=2,
            name="third",
            param_attr=ParamAttr(name="shared", initial_std=0.1),
        )
    with pytest.raises(ParameterError, match="'shared'.*'left'.*'right'.*shape"):
        P.create([a, b])
    with pytest.raises(ParameterError, match="'other'.*'third'.*init"):
        P.create([Topology(c), Topology(d)])
    assert P.create([Topology(a), Topology(c)]).spec("shared").init.std == 0.5


def build_pair(first_is_a: bool):
    with name_scope():
        x = data(name="x", type=dense_vector(5))
        layers = {}
        for name in ["a", "b"] if first_is_a else ["b", "a"]:
            layers[name] = fc(input=x, size=3, name=name)
    return [layers["a"], layers["b"]]


def test_values_are_deterministic_and_keyed_by_name(monkeypatch):
    one, same = P.create(build_pair(True), seed=7), P.create(build_pair(True), seed=7)
    other_order = P.create(build_pair(False), seed=7)
    other_seed = P.create(build_pair(True), seed=8)
    assert other_order.names() == ["_b.w0", "_b.wbias", "_a.w0", "_a.wbias"]
    for name in ("_a.w0", "_b.w0"):
        np.testing.assert_array_equal(one.get(name), same.get(name))
        np.testing.assert_array_equal(one.get(name), other_order.get(name))
        assert not np.allclose(one.get(name), other_seed.get(name))
    assert not np.allclose(one.get("_a.w0"), one.get("_b.w0"))
    monkeypatch.setitem(config._SETTINGS, "seed", 7)
    np.testing.assert_array_equal(P.create(build_pair(True)).get("_a.w0"), one.get("_a.w0"))


def test_smart_init_statistics():
    with name_scope():
        y = fc(input=data(name="x", type=dense_vector(400)), size=500)
    params = P.create(y, seed=0)
    w = params.get("___fc_layer_0__.w0").astype(np.float64)
    assert w.shape == (400, 500)
    assert abs(w.mean()) < 4 * 0.05 / math.sqrt(w.size)  # within 4 standard errors of 0
    np.testing.assert_allclose(w.std(), 1 / math.sqrt(400), rtol=0.01)
    np.testing.assert_array_equal(params.get("___fc_layer_0__.wbias"), np.zeros((1, 500)))


# the Parameters API ------------------------------------------------------------------
def test_names_get_set_and_copies():
    params = random_params(np.random.default_rng(2), 3)
    assert params.keys() == params.names() == ["param_0", "param_1", "param_2"]
    assert list(params) == params.names() and len(params) == 3
    assert params.has_key("param_1") and "param_1" in params and "nope" not in params
    got = params.get("param_0")
    got += 100
    assert not np.allclose(params.get("param_0"), got)
    value = np.full(params.get_shape("param_1"), 0.1, np.float64)
    params["param_1"] = value
    assert params["param_1"].dtype == np.float32
    np.testing.assert_array_equal(params["param_1"], value.astype(np.float32))
    np.testing.assert_array_equal(params.get_grad("param_2"), np.zeros(params.get_shape("param_2")))
    vals = params.values()
    vals["param_0"][...] = 0
    assert params.get("param_0").any()


def test_set_errors():
    params = random_params(np.random.default_rng(3), 2)
    shape = params.get_shape("param_0")
    with pytest.raises(ValueError, match="Must return ndarray.*'param_0'.*list"):
        params.set("param_0", [[0.0] * shape[1]] * shape[0])
    mismatch = r"Value shape mismatch, expect \(\d+, \d+\), but \(9, 9\).*'param_0'"
    with pytest.raises(ParameterError, match=mismatch):
        params["param_0"] = np.zeros((9, 9))
    with pytest.raises(ParameterError, match="No such parameter 'param_9'.*Did you mean"):
        params.get("param_9")
    with pytest.raises(ParameterError, match="should be string"):
        params.get_shape(3)
    with pytest.raises(ParameterError, match="duplicated"):
        params.append_spec(params.spec("param_0"))
    before = params.get("param_1")
    with pytest.raises(ParameterError):
        params.update({"param_1": np.zeros(params.get_shape("param_1")), "param_0": "x"})
    np.testing.assert_array_equal(params.get("param_1"), before)


def test_npz_round_trip(tmp_path):
    params = P.create(list(gan()), seed=1)
    buf = io.BytesIO()
    params.save_npz(buf)
    for source in (io.BytesIO(buf.getvalue()), tmp_path / "p.npz"):
        if not isinstance(source, io.BytesIO):
            params.save_npz(source)
        loaded = P.Parameters.load_npz(source)
        assert loaded.names() == params.names() and loaded.specs() == params.specs()
        for name in params.names():
            np.testing.assert_array_equal(loaded.get(name), params.get(name))
    with np.load(tmp_path / "p.npz", allow_pickle=False) as npz:
        np.testing.assert_array_equal(npz["D.w"], params.get("D.w"))


def test_path_writes_are_atomic(tmp_path, monkeypatch):
    params = random_params(np.random.default_rng(4), 2)
    target = tmp_path / "model.tar"
    params.to_tar(target)
    assert os.listdir(tmp_path) == ["model.tar"]
    good = target.read_bytes()
    assert good == tar_bytes(params)

    def fail(config_):
        raise RuntimeError("disk full")

    monkeypatch.setattr(proto, "encode", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        params.to_tar(str(target))
    assert os.listdir(tmp_path) == ["model.tar"] and target.read_bytes() == good


def test_v2_append_config_alias():
    params = P.Parameters()
    params.__append_config__(ParamSpec("a", (2, 3), InitSpec("gaussian", 0.0, 0.0)))
    assert params.keys() == ["a"] and params.get_shape("a") == (2, 3)
    np.testing.assert_array_equal(params.get("a"), np.zeros((2, 3)))


def test_pruning_hook_survives_the_tar_round_trip():
    spec = ParamSpec("w", (4, 3), InitSpec("gaussian", 0.0, 0.1), sparsity_ratio=0.75)
    raw = proto.encode(proto.from_spec(spec))
    assert b"\x0a\x07pruning\x11" in raw
    assert proto.to_spec(proto.decode(raw)).sparsity_ratio == 0.75


def test_a_tar_without_parameters_reads_as_an_empty_set_as_in_v2(tmp_path):
    empty = io.BytesIO()
    paddle.parameters.Parameters().to_tar(empty)
    empty.seek(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert paddle.parameters.Parameters.from_tar(empty).names() == []
    path = tmp_path / "other.tar"
    with tarfile.open(path, "w") as tar:  # a tar of something else entirely
        for name in ("README", "data/train.csv"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"hi"))
    with pytest.warns(ParameterWarning, match=r"2 other file\(s\) \('README', 'data/train.csv'\)"):
        assert paddle.parameters.Parameters.from_tar(str(path)).names() == []
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(2))
    params = paddle.parameters.create(paddle.layer.fc(input=x, size=1))
    before = params.get("___fc_layer_0__.w0").copy()
    empty.seek(0)
    with pytest.warns(ParameterWarning, match="holds no value for"):
        params.init_from_tar(empty)
    np.testing.assert_array_equal(params.get("___fc_layer_0__.w0"), before)
    with pytest.raises(ParameterError, match="cannot read the parameter tar"):
        paddle.parameters.Parameters.from_tar(io.BytesIO(b""))
    with pytest.raises(ParameterError, match="truncated or corrupt"):
        paddle.parameters.Parameters.from_tar(io.BytesIO(path.read_bytes()[:700]))
