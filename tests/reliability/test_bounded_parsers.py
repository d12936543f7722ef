"""Readers of untrusted bytes bound their memory and raise only typed errors.

Seeded byte mutations (bits flipped, bytes set, inserted, deleted, the file cut) of each
format the library reads: v2 inference pickles, v2 RecordIO files (gzip and uncompressed
chunks of pickled records), paddle_lite inference JSON, and every file of a checkpoint folder
(with the manifest left as it was, and rewritten to match so the inner parsers are reached).
Each read either succeeds or raises the library's typed error; the peak of Python
allocations (tracemalloc) stays under 64 MB for inputs under 1 MB.
"""

import hashlib
import io
import json
import os
import random
import shutil
import time
import tracemalloc

import numpy as np
import pytest
import v2_recordio_files as go
from unit.proto import test_v2_inference_file as v2_files

import paddle_lite as paddle
from paddle_lite._src import inference
from paddle_lite._src.proto import inference_file as V2
from paddle_lite._src.proto import inference_payload as V2_PAYLOAD
from paddle_lite._src.readers import recordio_v2
from paddle_lite._src.specs import InitSpec, ParamSpec
from paddle_lite._src.training import checkpoints
from paddle_lite._src.training.checkpoint_folders import MANIFEST
from paddle_lite.errors import PaddleLiteError, TopologyError

PEAK_LIMIT = 64 << 20


def _s(text):
    data = text if isinstance(text, bytes) else text.encode()
    return b"U" + bytes([len(data)]) + data


def _v2_file():
    """A protocol-2 pickle as Python 2 wrote v2's inference files (memo puts included)."""
    state = b"N}q\x03(" + _s("dim") + b"K\x04" + _s("seq_type") + b"K\x00" + _s("type")
    state += b"K\x00u\x86q\x04b"
    item = _s("x") + b"cpaddle.trainer.PyDataProvider2\nInputType\nq\x02)\x81" + state + b"\x86"
    protobin = _model()
    return (
        b"\x80\x02}q\x00("
        + _s("protobin")
        + b"T"
        + len(protobin).to_bytes(4, "little")
        + protobin
        + _s("data_type")
        + b"]q\x01("
        + item
        + b"eu."
    )


def _model():
    """A ModelConfig of data 'x' (4) -> fc (3, softmax), as v2's config parser writes it."""
    layers = [
        {"name": "x", "type": "data", "size": 4},
        {
            "name": "__fc_layer_0__",
            "type": "fc",
            "size": 3,
            "active_type": "softmax",
            "bias_parameter_name": "___fc_layer_0__.wbias",
            "inputs": [{"input_layer_name": "x", "input_parameter_name": "___fc_layer_0__.w0"}],
        },
    ]
    model = {"type": "nn", "layers": layers, "output_layer_names": ["__fc_layer_0__"]}
    return v2_files._encode("ModelConfig", model)


def _mutants(base, count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        out = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            kind, pos = rng.randrange(5), rng.randrange(max(len(out), 1))
            if kind == 0 and out:
                out[pos] ^= 1 << rng.randrange(8)
            elif kind == 1 and out:
                out[pos] = rng.randrange(256)
            elif kind == 2:
                out[pos:pos] = bytes([rng.randrange(256)])
            elif kind == 3 and out:
                del out[pos]
            elif kind == 4 and rng.random() < 0.3:
                del out[pos:]
        yield bytes(out)


def _bounded(read, data, error):
    """'loaded' or 'refused'; the peak of Python allocations is checked."""
    tracemalloc.start()
    try:
        read(data)
        outcome = "loaded"
    except error:
        outcome = "refused"
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < PEAK_LIMIT, (peak, data[:64])
    return outcome


def _fuzz(fault, what, read, base, error, count, seed):
    fault.case(
        "bounded parsers",
        f"{what}: {count} seeded byte mutations",
        f"it loads or raises {error.__name__}; under 64 MB each",
    )
    outcomes = {"loaded": 0, "refused": 0}
    for mutant in _mutants(base, count, seed):
        outcomes[_bounded(read, mutant, error)] += 1
    fault.observed(
        f"{count} mutated files: {outcomes['refused']} refused with a typed error, "
        f"{outcomes['loaded']} loaded, 0 other exceptions, peak under 64 MB"
    )


def _read_topology(data):
    stream = io.BytesIO(data)
    stream.name = "model.inference"
    inference._file_topology(stream)


def test_the_v2_base_file_loads():
    protobin, types = V2_PAYLOAD.load_payload(_v2_file())
    assert types == [("x", paddle.data_type.dense_vector(4))]
    assert V2.rebuild(protobin, types).outputs[0].size == 3


def test_mutated_v2_inference_pickles(fault):
    _fuzz(fault, "v2 inference pickle", _read_topology, _v2_file(), PaddleLiteError, 400, 1)


@pytest.mark.parametrize(
    "blob",
    [b"\x80\x02}r\x00\x00\x00\x08.", b"\x80\x02}r\xff\xff\xff\xff.", b"\x80\x02}h\x05."],
    ids=["memo-2^27", "memo-2^32", "get-unstored"],
)
def test_tiny_pickles_with_huge_memo_indexes(blob, fault):
    fault.case(
        "bounded parsers",
        f"the {len(blob)}-byte v2 inference file {blob!r}",
        "TopologyError naming the file, at once, without allocating",
    )
    start = time.perf_counter()
    tracemalloc.start()
    with pytest.raises(TopologyError, match="model.inference") as info:
        _read_topology(blob)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 1 << 20 and time.perf_counter() - start < 1.0
    fault.observed(info.value)


def test_mutated_inference_json(fault):
    paddle.layer.reset_names()
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(4))
    out = paddle.layer.fc(input=x, size=3, act=paddle.activation.Softmax())
    stream = io.BytesIO()
    paddle.topology.Topology(out).serialize_for_inference(stream)
    _fuzz(fault, "inference JSON", _read_topology, stream.getvalue(), PaddleLiteError, 300, 2)


def test_inference_file_errors_name_the_file(tmp_path, fault):
    path = tmp_path / "net.inference"
    path.write_bytes(b'{"format": "paddle_lite.inference/1", "topology": 3')
    fault.case(
        "bounded parsers",
        "Inference(fileobj=open('net.inference', 'rb')) of a damaged file",
        "TopologyError naming the file",
    )
    with open(path, "rb") as f, pytest.raises(TopologyError, match="net.inference") as info:
        paddle.inference.Inference(parameters=paddle.parameters.Parameters(), fileobj=f)
    fault.observed(info.value)


@pytest.mark.parametrize("where", ["Topology.deserialize", "Inference(fileobj=...)"])
def test_json_nested_a_million_deep(where, fault):
    deep = b"[" * 1_000_000 + b"]" * 1_000_000
    fault.case("bounded parsers", f"{where} of JSON nested 10^6 deep", "TopologyError")
    read = paddle.topology.Topology.deserialize if where.startswith("Top") else _read_topology
    with pytest.raises(TopologyError, match="nested 1000000 levels") as info:
        _bounded(read, deep, ())
    fault.observed(info.value)


def test_mutated_v2_recordio_files(tmp_path, fault):
    records = [go.py2_sample(3, "word", [0.5, 1.5]), go.py2_tuple_of_ints([1, 2])]
    base = go.chunk(records, 2) + go.chunk(records[::-1], 0)
    path = tmp_path / "shard-00000"
    path.write_bytes(base)
    assert len(list(recordio_v2.read_samples(str(path)))) == 4

    def read(data):
        path.write_bytes(data)
        list(recordio_v2.read_samples(str(path)))

    _fuzz(fault, "v2 RecordIO file", read, base, PaddleLiteError, 300, 4)


# checkpoint folders ------------------------------------------------------------------
def _checkpoint(folder):
    params = paddle.parameters.Parameters()
    for name, shape in [("w", (4, 3)), ("b", (3,))]:
        value = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        params.append_spec(ParamSpec(name, shape, InitSpec("gaussian", 0.0, 0.1)), value)
    arrays = {"key": np.array([1, 2], np.uint32), "opt0_0": np.ones(3, np.float32)}
    checkpoints.save(folder, params, arrays, {"pass_id": 1, "batch_id": 2, "parameters": {}})


def _rewrite_manifest(folder, name, data):
    with open(os.path.join(folder, MANIFEST), encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["files"][name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    with open(os.path.join(folder, MANIFEST), "w", encoding="utf-8") as f:
        json.dump(manifest, f)


@pytest.mark.parametrize("name", [*checkpoints.FILES, MANIFEST])
def test_mutated_checkpoint_files(tmp_path, name, fault):
    base_dir = str(tmp_path / "base")
    _checkpoint(base_dir)
    with open(os.path.join(base_dir, name), "rb") as f:
        base = f.read()
    work = str(tmp_path / "ck")
    resealed = name != MANIFEST  # the manifest rewritten, so the file's own parser runs

    def read(data):
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(base_dir, work)
        with open(os.path.join(work, name), "wb") as f:
            f.write(data)
        if resealed:
            _rewrite_manifest(work, name, data)
        checkpoints.load(work)

    what = f"checkpoint file {name}" + (" (manifest rewritten to match)" if resealed else "")
    _fuzz(fault, what, read, base, checkpoints.CheckpointError, 150, 3)


def test_checkpoint_meta_nested_a_million_deep(tmp_path, fault):
    folder = str(tmp_path / "ck")
    _checkpoint(folder)
    deep = b"[" * 1_000_000 + b"]" * 1_000_000
    with open(os.path.join(folder, checkpoints.META), "wb") as f:
        f.write(deep)
    _rewrite_manifest(folder, checkpoints.META, deep)
    fault.case(
        "bounded parsers",
        "checkpoint.json nested 10^6 deep (manifest rewritten to match)",
        "CheckpointError naming the checkpoint and the file",
    )
    with pytest.raises(checkpoints.CheckpointError, match="checkpoint.json.*nested") as info:
        checkpoints.load(folder)
    fault.observed(info.value)
