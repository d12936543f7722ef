"""Parameter tars, npz files, topology JSON and record files are read as data only.

Each test builds a damaged or hostile file and checks the library refuses it with a typed
error that names the file and the member (or layer, or record), before allocating what the
file announces; nothing is extracted, imported or unpickled.
"""

import io
import json
import pathlib
import pickle
import struct
import tarfile
import zipfile

import numpy as np
import pytest
import v2_recordio_files as go

import paddle_lite as paddle
from paddle_lite._src.dataset.cifar import load_batch
from paddle_lite._src.files.params import HEADER
from paddle_lite._src.proto import parameter_config as proto
from paddle_lite._src.readers import recordio, recordio_v2
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite._src.topology import load_inference_topology
from paddle_lite.errors import (
    DataError,
    ParameterError,
    ParameterWarning,
    TopologyError,
    UnsafePickleError,
)

Parameters = paddle.parameters.Parameters


def _params():
    params = Parameters()
    params.append_spec(
        ParamSpec("w", (3, 2), InitSpec("gaussian", 0.0, 0.1)), np.arange(6.0).reshape(3, 2)
    )
    return params


def _tar(members):
    """A tar of ``[(TarInfo fields, bytes)]`` written with Python's tarfile."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for fields, data in members:
            info = tarfile.TarInfo(fields.pop("name"))
            for key, value in fields.items():
                setattr(info, key, value)
            info.size = len(data) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buf.getvalue()


def _good_members():
    spec = ParamSpec("w", (3, 2), InitSpec("gaussian", 0.0, 0.1))
    values = HEADER.pack(0, 4, 6) + np.arange(6, dtype="<f4").tobytes()
    return [({"name": "w"}, values), ({"name": "w.protobuf"}, proto.encode(proto.from_spec(spec)))]


def _refused(tmp_path, data, fault, injected, match):
    path = tmp_path / "model.tar"
    path.write_bytes(data)
    fault.case("parameter tar", injected, f"ParameterError naming {match!r} and the file")
    with pytest.raises(ParameterError, match=match) as info:
        Parameters.from_tar(str(path))
    assert "model.tar" in str(info.value)
    fault.observed(info.value)


def test_a_good_hand_built_tar_loads(tmp_path):
    path = tmp_path / "model.tar"
    path.write_bytes(_tar(_good_members()))
    np.testing.assert_array_equal(Parameters.from_tar(str(path)).get("w"), _params().get("w"))


@pytest.mark.parametrize(
    "member, problem",
    [
        ({"name": "../w.protobuf"}, "'..' path component"),
        ({"name": "/etc/w.protobuf"}, "absolute path"),
        ({"name": "link", "type": tarfile.SYMTYPE, "linkname": "/etc/passwd"}, "is a link"),
        ({"name": "hard", "type": tarfile.LNKTYPE, "linkname": "w"}, "is a link"),
        ({"name": "dev", "type": tarfile.CHRTYPE}, "device, fifo"),
    ],
    ids=["dotdot", "absolute", "symlink", "hardlink", "device"],
)
def test_unsafe_members_are_refused(tmp_path, member, problem, fault):
    data = _tar([*_good_members(), (dict(member), b"x")])
    _refused(tmp_path, data, fault, f"a member {member['name']!r} ({problem})", problem)


def test_garbage_protobuf_member_names_the_member_and_the_file(tmp_path, fault):
    members = _good_members()
    members[1] = (members[1][0], b"\xff" * 16)
    _refused(tmp_path, _tar(members), fault, "garbage bytes in w.protobuf", "'w.protobuf'")


def test_deeply_nested_protobuf_groups_are_an_error_not_a_recursion(tmp_path, fault):
    members = _good_members()
    members[1] = (members[1][0], b"\x0b" * 5000)  # 5000 nested start-group keys
    _refused(tmp_path, _tar(members), fault, "5000 nested groups in w.protobuf", "nested deeper")


def test_non_utf8_parameter_name(tmp_path, fault):
    members = _good_members()
    members[1] = (members[1][0], b"\x0a\x02\xff\xfe\x10\x06")  # name: bytes ff fe, size 6
    _refused(tmp_path, _tar(members), fault, "a non-UTF-8 name in w.protobuf", "not UTF-8")


def test_config_naming_another_parameter(tmp_path, fault):
    spec = ParamSpec("other", (3, 2), InitSpec("gaussian", 0.0, 0.1))
    members = _good_members()
    members[1] = (members[1][0], proto.encode(proto.from_spec(spec)))
    _refused(tmp_path, _tar(members), fault, "w.protobuf holds the config of 'other'", "'other'")


def test_value_member_size_is_checked_before_reading(tmp_path, fault):
    members = _good_members()
    members[0] = (members[0][0], HEADER.pack(0, 4, 6) + b"\0" * 8)  # 2 of 6 values
    _refused(tmp_path, _tar(members), fault, "a value member holding 2 of 6 values", "announces")


def test_huge_announced_parameter_is_refused_without_allocating(tmp_path, fault):
    spec = ParamSpec("w", (1 << 20, 1 << 20), InitSpec("gaussian", 0.0, 0.1))  # 4 TiB
    members = [
        ({"name": "w"}, HEADER.pack(0, 4, 1 << 40)),
        ({"name": "w.protobuf"}, proto.encode(proto.from_spec(spec))),
    ]
    _refused(tmp_path, _tar(members), fault, "a config announcing 2^40 values (4 TiB)", "announces")


def test_oversized_config_member_is_refused_before_reading(tmp_path, fault):
    members = [*_good_members(), ({"name": "x.protobuf"}, b"\0" * (2 << 20))]
    _refused(tmp_path, _tar(members), fault, "a 2 MiB .protobuf member", "at most")


@pytest.mark.parametrize("cut", [100, 700, 1300], ids=["in-header", "in-values", "in-config"])
def test_truncated_tar(tmp_path, cut, fault):
    data = _tar(_good_members())
    path = tmp_path / "model.tar"
    path.write_bytes(data[:cut])
    fault.case("parameter tar", f"tar cut at byte {cut}", "ParameterError naming the file")
    with pytest.raises(ParameterError, match="model.tar") as info:
        Parameters.from_tar(str(path))
    fault.observed(info.value)


def test_gzip_garbage_and_empty_tar(tmp_path, fault):
    fault.case("parameter tar", "gzip magic followed by garbage", "ParameterError")
    with pytest.raises(ParameterError, match="cannot read the parameter tar") as info:
        Parameters.from_tar(io.BytesIO(b"\x1f\x8b\x08\x00" + b"\x07" * 200))
    fault.observed(info.value)
    fault.case(
        "parameter tar",
        "a valid tar with no parameter but another file",
        "an empty set, as v2 read it, with a ParameterWarning",
    )
    with pytest.warns(ParameterWarning, match="holds no parameter.*'readme'") as record:
        params = Parameters.from_tar(io.BytesIO(_tar([({"name": "readme"}, b"hi")])))
    assert params.names() == []
    fault.observed(f"empty set; ParameterWarning: {record[0].message}")
    fault.case("parameter tar", "an empty file (0 bytes)", "ParameterError")
    with pytest.raises(ParameterError, match="cannot read the parameter tar") as info:
        Parameters.from_tar(io.BytesIO(b""))
    fault.observed(info.value)


# npz --------------------------------------------------------------------------------
def _npz(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in members.items():
            archive.writestr(name + ".npy", data)
    return buf.getvalue()


def _npy(array, allow_pickle=False):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=allow_pickle)
    return buf.getvalue()


def _specs():
    spec = ParamSpec("w", (3, 2), InitSpec("gaussian", 0.0, 0.1))
    return _npy(np.array([json.dumps(spec.to_json())]))


def test_npz_object_array_is_never_unpickled(fault):
    class Boom:
        def __reduce__(self):
            return (exec, ("raise SystemExit('code ran')",))

    data = _npz({"__specs__": _specs(), "w": _npy(np.array([Boom()], object), True)})
    fault.case("npz", "an object array (a pickle that runs code)", "ParameterError, no code run")
    with pytest.raises(ParameterError, match="object arrays are never read") as info:
        Parameters.load_npz(io.BytesIO(data))
    fault.observed(info.value)


def test_npz_huge_header_is_refused_before_allocation(fault):
    header = {"descr": "<f4", "fortran_order": False, "shape": (1 << 20, 1 << 20)}
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header)
    data = _npz({"__specs__": _specs(), "w": buf.getvalue() + b"\0" * 24})
    fault.case("npz", "an array header announcing 4 TiB", "ParameterError before allocating")
    with pytest.raises(ParameterError, match="has shape") as info:
        Parameters.load_npz(io.BytesIO(data))
    fault.observed(info.value)


def test_npz_truncated_values_and_garbage(tmp_path, fault):
    values = _npy(np.zeros((3, 2), np.float32))
    data = _npz({"__specs__": _specs(), "w": values[:-8]})
    fault.case("npz", "an array member missing its last 8 bytes", "ParameterError")
    with pytest.raises(ParameterError, match="truncated or corrupt") as info:
        Parameters.load_npz(io.BytesIO(data))
    fault.observed(info.value)
    path = tmp_path / "p.npz"
    path.write_bytes(b"PK\x03\x04" + b"\x01" * 100)
    fault.case("npz", "garbage after a zip signature", "ParameterError naming the file")
    with pytest.raises(ParameterError, match="p.npz") as info:
        Parameters.load_npz(str(path))
    fault.observed(info.value)


def test_npz_spec_entries_that_are_not_specs(fault):
    data = _npz({"__specs__": _npy(np.array(['{"name": 3}'])), "w": _npy(np.zeros(3))})
    fault.case("npz", "a __specs__ entry that is not a spec", "ParameterError")
    with pytest.raises(ParameterError, match="not a valid parameter spec") as info:
        Parameters.load_npz(io.BytesIO(data))
    fault.observed(info.value)


# topology JSON ----------------------------------------------------------------------
def _topology_json():
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(4))
    out = paddle.layer.fc(input=x, size=3, name="out")
    return json.loads(paddle.topology.Topology(out).serialize())


def _edit(obj, layer, key, value):
    item = next(i for i in obj["layers"] if i["name"] == layer)
    item[key] = value(item[key]) if callable(value) else value
    return obj


@pytest.mark.parametrize(
    "what, edit, match",
    [
        ("an unknown layer kind", lambda o: _edit(o, "out", "kind", "evil"), "unknown layer kind"),
        (
            "a size edited to disagree with the parameters",
            lambda o: _edit(o, "out", "spec", lambda s: {**s, "size": 300}),
            "claims spec",
        ),
        (
            "a parameter shape edited to 4 TiB",
            lambda o: _edit(
                o, "out", "params", lambda ps: [{**ps[0], "shape": [1 << 20, 1 << 20]}, *ps[1:]]
            ),
            "claims spec",
        ),
        ("an input that is not defined", lambda o: _edit(o, "out", "inputs", ["y"]), "unknown"),
        ("a layer that is a number", lambda o: {**o, "layers": [3]}, "malformed"),
        ("an attribute of the wrong type", lambda o: _edit(o, "out", "attrs", 7), "malformed"),
        ("a different format tag", lambda o: {**o, "format": "pickle"}, "not a paddle_lite"),
    ],
    ids=["kind", "size", "param-shape", "input", "layer-type", "attrs", "format"],
)
def test_topology_json_claims_are_checked(tmp_path, what, edit, match, fault):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(edit(_topology_json())))
    fault.case("topology JSON", what, "TopologyError naming the file and the layer")
    with pytest.raises(TopologyError, match=match) as info:
        paddle.topology.Topology.deserialize(path)
    assert "net.json" in str(info.value)
    fault.observed(info.value)


def test_topology_text_that_is_not_json(fault):
    fault.case("topology JSON", "bytes that are not UTF-8 JSON", "TopologyError")
    with pytest.raises(TopologyError, match="not UTF-8 JSON") as info:
        paddle.topology.Topology.deserialize(b"\x80\x04K\x03.")  # a pickle
    fault.observed(info.value)


def test_inference_file_with_parameters_of_another_network(tmp_path, fault):
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(4))
    out = paddle.layer.fc(input=x, size=3, name="out")
    path = tmp_path / "inference.json"
    paddle.topology.Topology(out).serialize_for_inference(str(path))
    other = Parameters()
    for spec in load_inference_topology(path).param_specs():
        shape = (5, 3) if spec.name.endswith("w0") else spec.shape
        other.append_spec(ParamSpec(spec.name, shape, spec.init), np.zeros(shape))
    fault.case("inference file", "parameters of a network of another input size", "ParameterError")
    with pytest.raises(ParameterError, match=r"do not fit this topology \('_out.w0'") as info:
        paddle.inference.Inference(parameters=other, fileobj=path)
    fault.observed(info.value)


# record files and pickles ------------------------------------------------------------
def test_record_with_a_hostile_array_dtype(tmp_path, fault):
    payload = json.dumps({"__ndarray__": "AAAA", "dtype": "O", "shape": [1]}).encode()
    path = tmp_path / "data.rec"
    header = struct.pack("<II", len(payload), __import__("zlib").crc32(payload))
    path.write_bytes(recordio.MAGIC + header + payload)
    fault.case("record file", "a record declaring an object array", "DataError naming the record")
    with pytest.raises(DataError, match=r"record 0 of .*data.rec") as info:
        list(recordio.read_samples(str(path)))
    fault.observed(info.value)


def test_record_announcing_more_bytes_than_the_file_has(tmp_path, fault):
    path = tmp_path / "data.rec"
    path.write_bytes(recordio.MAGIC + struct.pack("<II", 0xFFFFFFF0, 0) + b"{}")
    fault.case("record file", "a record header announcing 4 GiB", "DataError before reading")
    with pytest.raises(DataError, match="truncated inside record 0") as info:
        list(recordio.read_samples(str(path)))
    fault.observed(info.value)


def _v2_records(path, compressor=2):
    good = [go.py2_tuple_of_ints([1, 2]), go.py2_tuple_of_ints([3, 4])]
    path.write_bytes(go.chunk(good, compressor) + go.chunk(good, compressor))
    return path.read_bytes()


V2_DAMAGE = [
    (
        "a flipped byte in chunk 1's data",
        lambda raw: raw[:-3] + bytes([raw[-3] ^ 1]) + raw[-2:],
        r"chunk 1 \(byte \d+\) of .*shard.* fails its CRC-32 checksum",
    ),
    ("chunk 1 cut short", lambda raw: raw[:-5], r"chunk 1 \(byte \d+\) of .*shard.* is truncated"),
    (
        "chunk 1 with a bad magic number",
        lambda raw: raw[: len(raw) // 2] + b"\0" + raw[len(raw) // 2 + 1 :],
        r"chunk 1 \(byte \d+\) of .*shard.* magic number",
    ),
    ("a header cut after 7 bytes", lambda raw: raw + raw[:7], r"chunk 2 .* header has 7 of 20"),
    ("compressor id 9", lambda raw: raw[:8] + b"\x09" + raw[9:], "names compressor 9"),
]


@pytest.mark.parametrize(("what", "damage", "message"), V2_DAMAGE, ids=[d[0] for d in V2_DAMAGE])
def test_damaged_v2_recordio_files(tmp_path, what, damage, message, fault):
    path = tmp_path / "shard-00000"
    path.write_bytes(damage(_v2_records(path)))
    fault.case("v2 RecordIO file", what, "DataError naming the file and the chunk")
    with pytest.raises(DataError, match=message) as info:
        list(paddle.reader.creator.recordio(str(path))())
    fault.observed(info.value)


def test_v2_record_pickling_os_system_runs_no_code(tmp_path, fault):
    evil = pickle.dumps((__import__("os").system, "echo owned"), protocol=0)
    path = tmp_path / "shard-00000"
    path.write_bytes(go.chunk([go.py2_tuple_of_ints([1]), evil]))
    fault.case("v2 RecordIO file", "record 1 pickling os.system", "DataError naming the record")
    with pytest.raises(DataError, match=r"record 1 of chunk 0 .*shard.*(posix|os)\.system"):
        list(recordio_v2.read_samples(str(path)))
    with pytest.raises(DataError, match="refused") as info:
        list(paddle.reader.creator.recordio(str(path))())
    fault.observed(info.value)


def test_cifar_pickle_runs_no_code(fault):
    evil = pickle.dumps({"data": __import__("os").system}, protocol=2)
    fault.case("CIFAR pickle", "a batch referencing os.system", "UnsafePickleError, no code run")
    with pytest.raises(UnsafePickleError, match="posix.system|os.system") as info:
        load_batch(evil, "data_batch_1")
    fault.observed(info.value)


def test_a_topology_written_to_a_str_path_reads_back_from_it(tmp_path):
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(4))
    topo = paddle.topology.Topology(paddle.layer.fc(input=x, size=3, name="out"))
    path = str(tmp_path / "net.json")
    text = topo.serialize(path)
    assert pathlib.Path(path).read_text() == text
    assert paddle.topology.Topology.deserialize(path).serialize() == text
    assert paddle.topology.Topology.deserialize(text).serialize() == text
    with pytest.raises(TopologyError, match="names no file is read as the JSON text"):
        paddle.topology.Topology.deserialize(str(tmp_path / "missing.json"))
