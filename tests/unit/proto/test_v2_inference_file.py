"""Reading v2's serialize_for_inference files: a Python 2 protocol-2 pickle of the
ModelConfig protobuf, written here byte by byte as v2 wrote it."""

import io
import struct

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.proto import inference_payload as V2_PAYLOAD
from paddle_lite._src.proto.model_config import SCHEMA
from paddle_lite.errors import TopologyError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(4)


# a protobuf writer for the fields of SCHEMA (plus raw unknown fields) ------------------
def _varint(n):
    n &= (1 << 64) - 1
    out = b""
    while True:
        out += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return out


def _encode(message, values):
    by_name = {name: (num, kind) for num, (name, kind, _) in SCHEMA[message].items()}
    out = b""
    for name, value in values.items():
        if name == "__raw__":
            out += value
            continue
        num, kind = by_name[name]
        for v in value if isinstance(value, list) else [value]:
            if kind.startswith("msg:"):
                body = _encode(kind[4:], v)
                out += _varint(num << 3 | 2) + _varint(len(body)) + body
            elif kind == "str":
                out += _varint(num << 3 | 2) + _varint(len(v.encode())) + v.encode()
            elif kind == "double":
                out += _varint(num << 3 | 1) + struct.pack("<d", v)
            else:
                out += _varint(num << 3) + _varint(int(v))
    return out


# a Python 2 pickle writer: protocol 2, str as BINSTRING, InputType by NEWOBJ + BUILD -----
def _s(text):
    data = text if isinstance(text, bytes) else text.encode()
    return (
        b"U" + bytes([len(data)]) if len(data) < 256 else b"T" + struct.pack("<I", len(data))
    ) + data


def _input_type(dim, seq_type, tp):
    state = b"N}(" + _s("dim") + b"J" + struct.pack("<i", dim) + _s("seq_type") + b"K"
    state += bytes([seq_type]) + _s("type") + b"K" + bytes([tp]) + b"u\x86"
    return b"cpaddle.trainer.PyDataProvider2\nInputType\n)\x81" + state + b"b"


def _v2_file(protobin, data_types):
    items = b"".join(_s(n) + _input_type(*t) + b"\x86" for n, t in data_types)
    return b"\x80\x02}(" + _s("protobin") + _s(protobin) + _s("data_type") + b"](" + items + b"eu."


# the network, as v2's config parser would describe it ---------------------------------
CONV = {
    "filter_size": 3,
    "channels": 1,
    "stride": 1,
    "padding": 1,
    "groups": 1,
    "img_size": 4,
    "filter_size_y": 3,
    "padding_y": 1,
    "stride_y": 1,
    "img_size_y": 4,
}
POOL = {
    "pool_type": "max-projection",
    "channels": 2,
    "size_x": 2,
    "stride": 2,
    "img_size": 4,
    "padding": 0,
    "size_y": 2,
    "stride_y": 2,
    "img_size_y": 4,
    "padding_y": 0,
}
DEVICE = _varint(12 << 3) + _varint(-1)  # a field the reader does not know: skipped
LAYERS = [
    {"name": "pixel", "type": "data", "size": 16, "height": 4, "width": 4},
    {
        "name": "__conv_0__",
        "type": "exconv",
        "size": 32,
        "active_type": "relu",
        "num_filters": 2,
        "shared_biases": True,
        "bias_parameter_name": "___conv_0__.wbias",
        "inputs": [
            {
                "input_layer_name": "pixel",
                "input_parameter_name": "___conv_0__.w0",
                "conv_conf": CONV,
            }
        ],
        "__raw__": DEVICE,
    },
    {
        "name": "__pool_0__",
        "type": "pool",
        "size": 8,
        "inputs": [{"input_layer_name": "__conv_0__", "pool_conf": POOL}],
    },
    {
        "name": "hidden",
        "type": "fc",
        "size": 3,
        "active_type": "tanh",
        "bias_parameter_name": "_hidden.wbias",
        "inputs": [{"input_layer_name": "__pool_0__", "input_parameter_name": "shared_w"}],
    },
    {
        "name": "__mixed_0__",
        "type": "mixed",
        "size": 3,
        "active_type": "softmax",
        "inputs": [
            {
                "input_layer_name": "hidden",
                "input_parameter_name": "___mixed_0__.w0",
                "proj_conf": {
                    "type": "fc",
                    "name": "___mixed_0__.w0",
                    "input_size": 3,
                    "output_size": 3,
                },
            },
            {
                "input_layer_name": "hidden",
                "proj_conf": {"type": "identity", "name": "x", "input_size": 3, "output_size": 3},
            },
        ],
    },
]


def _model(layers=LAYERS, outputs=("__mixed_0__",)):
    param = _varint(3 << 3 | 2) + _varint(4) + b"\x0a\x02ab"  # a ParameterConfig: skipped
    return _encode(
        "ModelConfig",
        {
            "type": "nn",
            "layers": layers,
            "input_layer_names": "pixel",
            "output_layer_names": list(outputs),
            "__raw__": param,
        },
    )


def _reference():
    """The same network built with paddle_lite's functions and names."""
    pixel = L.data(name="pixel", type=DT.dense_vector(16), height=4, width=4)
    conv = L.img_conv(input=pixel, filter_size=3, num_filters=2, padding=1, act=A.Relu())
    pooled = L.img_pool(input=conv, pool_size=2, stride=2)
    hidden = L.fc(
        input=pooled,
        size=3,
        act=A.Tanh(),
        name="hidden",
        param_attr=paddle.attr.Param(name="shared_w"),
    )
    return L.mixed(
        input=[L.full_matrix_projection(input=hidden), L.identity_projection(input=hidden)],
        act=A.Softmax(),
    )


def test_v2_inference_file_rebuilds_the_network_and_infers_like_it():
    out = _reference()
    params = paddle.parameters.create(out)
    for name in params.names():
        params.set(name, RNG.normal(size=params.get_shape(name)).astype("f4"))
    samples = [(RNG.normal(size=16).astype("f4"),) for _ in range(3)]
    want = paddle.infer(output_layer=out, parameters=params, input=samples)
    blob = _v2_file(_model(), [("pixel", (16, 0, 0))])
    inferer = paddle.inference.Inference(parameters=params, fileobj=io.BytesIO(blob))
    np.testing.assert_allclose(inferer.infer(input=samples), want, rtol=1e-6)
    topo = inferer.topology
    assert [n.name for n in topo.nodes] == [layer["name"] for layer in LAYERS]
    assert sorted(topo.params) == sorted(params.names())
    assert topo.data_type()[0][1] == DT.dense_vector(16)


def test_only_v2_data_type_globals_may_appear():
    evil = b"\x80\x02cos\nsystem\n" + _s("echo hi") + b"\x85R."
    with pytest.raises(TopologyError, match="os.system.*refused"):
        V2_PAYLOAD.load_payload(evil)
    protobin, types = V2_PAYLOAD.load_payload(_v2_file(b"abc", [("w", (7, 1, 3))]))
    assert protobin == b"abc" and types == [("w", DT.integer_value_sequence(7))]


def test_unknown_layer_types_are_named():
    layers = [
        *LAYERS[:2],
        {
            "name": "roi",
            "type": "roi_pool",
            "size": 4,
            "inputs": [{"input_layer_name": "__conv_0__"}],
        },
    ]
    blob = _v2_file(_model(layers, ("roi",)), [("pixel", (16, 0, 0))])
    with pytest.raises(TopologyError, match=r"cannot rebuild: \['roi_pool'\]"):
        paddle.inference.Inference(
            parameters=paddle.parameters.Parameters(), fileobj=io.BytesIO(blob)
        )


def test_paddle_lite_json_files_still_load():
    out = _reference()
    params = paddle.parameters.create(out)
    stream = io.BytesIO()
    paddle.topology.Topology(out).serialize_for_inference(stream)
    inferer = paddle.inference.Inference(parameters=params, fileobj=io.BytesIO(stream.getvalue()))
    assert inferer.outputs[0].name == out.name
