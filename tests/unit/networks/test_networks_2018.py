"""The networks v2 added in 2018: dot_product_attention and multi_head_attention against
float64 numpy, img_separable_conv's two convolutions; v2's layer and parameter names."""

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.topology import Topology
from paddle_lite.errors import LayerConfigError
from tests.unit._sequence_fixtures import seq_data, seq_value

L, N, D = paddle.layer, paddle.networks, paddle.data_type
RNG = np.random.default_rng(5)
LENGTHS = [4, 1, 2]


def _params(*outs):
    return {s.name: initialize(s, 0) for s in Topology(list(outs)).param_specs()}


def _run(outs, params, feeds):
    return jax.jit(lambda p, f: forward(outs, p, f)[0])(params, feeds)


def _softmax_sum(e, values):
    a = np.exp(e - e.max()) / np.exp(e - e.max()).sum()
    return a @ values


def _steps(feeds, key, i, n):
    return np.asarray(feeds[key].data, np.float64)[i, :n]


def test_dot_product_attention_matches_numpy():
    enc, att = seq_data("enc", 4), seq_data("att", 3)
    state = L.data(name="state", type=D.dense_vector(4))
    context = N.dot_product_attention(
        encoded_sequence=enc, attended_sequence=att, transformed_state=state
    )
    assert context.name == "__dot_product_attention_0___pooling" and context.size == 3
    params = _params(context)
    assert {k: v.shape for k, v in params.items()} == {
        "___dot_product_attention_0___softmax.w0": (1, 1)
    }
    feeds = {
        "enc": seq_value(LENGTHS, t=4, d=4),
        "att": seq_value(LENGTHS, t=4, d=3),
        "state": RNG.normal(size=(3, 4)).astype(np.float32),
    }
    (value,) = _run([context], params, feeds)
    v = float(params["___dot_product_attention_0___softmax.w0"][0, 0])
    for i, n in enumerate(LENGTHS):
        e = v * (_steps(feeds, "enc", i, n) @ feeds["state"][i])
        want = _softmax_sum(e, _steps(feeds, "att", i, n))
        np.testing.assert_allclose(np.asarray(value)[i], want, rtol=1e-5, atol=1e-6)
    with pytest.raises(LayerConfigError, match="must equal encoded_sequence.size"):
        N.dot_product_attention(encoded_sequence=enc, attended_sequence=att, transformed_state=att)


@pytest.mark.parametrize("kind", ["dot-product attention", "additive attention"])
def test_multi_head_attention_matches_numpy(kind):
    key, value = seq_data("key", 5), seq_data("value", 2)
    query = L.data(name="query", type=D.dense_vector(3))
    out = N.multi_head_attention(
        query=query, key=key, value=value, key_proj_size=2, value_proj_size=3, head_num=2,
        attention_type=kind, name="mha",
    )  # fmt: skip
    assert out.size == 6 and out.kind == "concat"
    params = _params(out)
    shapes = {k: v.shape for k, v in params.items()}
    assert shapes["_mha_query_proj.w0"] == (3, 4) and shapes["_mha_key_proj.w0"] == (5, 4)
    softmax_in = 1 if kind == "dot-product attention" else 2  # a score, or tanh(q + k)
    assert shapes["_mha_value_proj.w0"] == (2, 6) and shapes["_mha_softmax_1.w0"] == (softmax_in, 1)
    names = {layer.name for layer in Topology(out).nodes}
    per_head = ["mha_dot-product_1", "mha_dot-product_scaling_1"]
    if kind == "additive attention":
        per_head = ["mha_combine_1"]
    assert {*per_head, "mha_softmax_1", "mha_scaling_1", "mha_pooling_1"} <= names
    feeds = {
        "key": seq_value(LENGTHS, t=4, d=5),
        "value": seq_value(LENGTHS, t=4, d=2),
        "query": RNG.normal(size=(3, 3)).astype(np.float32),
    }
    (got,) = _run([out], params, feeds)
    w = {k: np.asarray(v, np.float64) for k, v in params.items()}
    for i, n in enumerate(LENGTHS):
        q = feeds["query"][i] @ w["_mha_query_proj.w0"]
        k = _steps(feeds, "key", i, n) @ w["_mha_key_proj.w0"]
        v = _steps(feeds, "value", i, n) @ w["_mha_value_proj.w0"]
        heads = []
        for h in range(2):
            qh, kh, vh = q[2 * h : 2 * h + 2], k[:, 2 * h : 2 * h + 2], v[:, 3 * h : 3 * h + 3]
            soft = w[f"_mha_softmax_{h}.w0"][:, 0]
            if kind == "dot-product attention":
                e = (kh @ qh) * np.sqrt(1 / 2) * soft[0]
            else:
                e = np.tanh(kh + qh) @ soft
            heads.append(_softmax_sum(e, vh))
        np.testing.assert_allclose(np.asarray(got)[i], np.concatenate(heads), rtol=1e-5, atol=1e-6)


def test_multi_head_attention_refuses_an_unknown_type():
    key = seq_data("key2", 4)
    query = L.data(name="query2", type=D.dense_vector(4))
    with pytest.raises(LayerConfigError, match="attention_type must be one of"):
        N.multi_head_attention(query, key, key, 2, 2, 2, "cosine attention")


def test_img_separable_conv_is_a_depthwise_then_a_pointwise_conv():
    img = L.data(name="img3", type=D.dense_vector(2 * 6 * 6), height=6, width=6)
    out = N.img_separable_conv(
        input=img, num_channels=2, num_out_channels=5, filter_size=3, padding=1,
        depth_multiplier=2,
    )  # fmt: skip
    assert out.name == "__separable_conv_0___pointwise_conv" and out.size == 5 * 6 * 6
    depthwise = out.inputs[0]
    assert depthwise.name == "__separable_conv_0___depthwise_conv"
    assert depthwise.size == 4 * 6 * 6
    shapes = {s.name: s.shape for s in Topology(out).param_specs()}
    assert shapes == {
        "___separable_conv_0___depthwise_conv.w0": (4, 1, 3, 3),  # 4 filters of 1 channel
        "___separable_conv_0___depthwise_conv.wbias": (4, 1),
        "___separable_conv_0___pointwise_conv.w0": (5, 4, 1, 1),
        "___separable_conv_0___pointwise_conv.wbias": (5, 1),
    }
    params = _params(out)
    x = RNG.normal(size=(2, 2 * 6 * 6)).astype(np.float32)
    (got,) = _run([out], params, {"img3": x})
    p = {k: np.asarray(v, np.float64) for k, v in params.items()}
    xs = np.pad(x.reshape(2, 2, 6, 6).astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    kd = p["___separable_conv_0___depthwise_conv.w0"].reshape(4, 3, 3)
    d = np.zeros((2, 4, 6, 6))
    for f in range(4):  # filter f reads input channel f // depth_multiplier
        for r in range(6):
            for c in range(6):
                d[:, f, r, c] = (xs[:, f // 2, r : r + 3, c : c + 3] * kd[f]).sum(axis=(1, 2))
    d += p["___separable_conv_0___depthwise_conv.wbias"].reshape(1, 4, 1, 1)
    wp = p["___separable_conv_0___pointwise_conv.w0"].reshape(5, 4)
    y = np.einsum("of,bfrc->borc", wp, d) + p["___separable_conv_0___pointwise_conv.wbias"].reshape(
        1, 5, 1, 1
    )
    np.testing.assert_allclose(
        np.asarray(got), np.maximum(y, 0).reshape(2, -1), rtol=1e-4, atol=1e-5
    )
