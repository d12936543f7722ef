"""The recurrent layers' weights as a v2 model tar holds them: each parameter member is
the flat float32 buffer that v2's C++ wraps in its ``Weight`` (LstmLayer: ``[H, 4H]``
row-major and a ``7H`` bias of gate biases then peepholes; GatedRecurrentLayer: an
``[H, 2H]`` gate matrix then an ``[H, H]`` candidate matrix; RecurrentLayer ``[H, H]``).
A tar written byte by byte from such buffers loads and computes v2's values."""

import io
import struct
import tarfile

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.parameters import Parameters

try:
    from tests.unit.layers.recurrent import test_layers_recurrent as ref
except ImportError:
    import test_layers_recurrent as ref

L, DT = paddle.layer, paddle.data_type
H = 3


def _v2_tar(template, buffers):
    """A tar of v2's members: ``<name>`` = header ``<IIQ`` (0, 4, count) and the raw
    float32 buffer, and ``<name>.protobuf`` (the ParameterConfig, from ``template``)."""
    written = io.BytesIO()
    template.to_tar(written)
    written.seek(0)
    out = io.BytesIO()
    with tarfile.open(fileobj=written) as src, tarfile.open(fileobj=out, mode="w") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read()
            if not member.name.endswith(".protobuf"):
                flat = buffers[member.name].astype("<f4")
                data = struct.pack("<IIQ", 0, 4, flat.size) + flat.tobytes()
            info = tarfile.TarInfo(member.name)
            info.size = len(data)
            dst.addfile(info, io.BytesIO(data))
    out.seek(0)
    return out


def test_a_v2_tar_of_recurrent_weights_loads_and_computes_v2s_values():
    with L.name_scope():
        lstm = L.lstmemory(input=L.data(name="a", type=DT.dense_vector_sequence(4 * H)))
        gru = L.grumemory(
            input=L.data(name="b", type=DT.dense_vector_sequence(3 * H)), reverse=True
        )
        rnn = L.recurrent(input=L.data(name="c", type=DT.dense_vector_sequence(H)))
    template = paddle.parameters.create([lstm, gru, rnn])
    rng = np.random.default_rng(7)
    buffers = {n: rng.normal(size=template.get(n).size) * 0.5 for n in template.names()}
    loaded = Parameters.from_tar(_v2_tar(template, buffers))
    values = {n: loaded.get(n) for n in loaded.names()}
    feeds = {"a": ref._seq_data(4 * H), "b": ref._seq_data(3 * H), "c": ref._seq_data(H)}
    outs, _ = forward([lstm, gru, rnn], values, feeds)
    w = {n.split(".")[0].strip("_") + "." + n.split(".")[1]: b for n, b in buffers.items()}
    lstm_w, lstm_b = w["lstmemory_0.w0"], w["lstmemory_0.wbias"]
    gru_w, gru_b = w["gru_0.w0"], w["gru_0.wbias"]
    rnn_w, rnn_b = w["recurrent_layer_0.w0"].reshape(H, H), w["recurrent_layer_0.wbias"]
    ref._check(np.asarray(outs[0].data), feeds["a"], lambda x: ref.lstm_ref(x, lstm_w, lstm_b, 0))
    ref._check(np.asarray(outs[1].data), feeds["b"], lambda x: ref.gru_ref(x, gru_w, gru_b, 1))
    ref._check(
        np.asarray(outs[2].data), feeds["c"], lambda x: ref.rnn_ref(x, rnn_w, rnn_b, "tanh", 0)
    )
