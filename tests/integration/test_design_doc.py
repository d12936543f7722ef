"""The v2 design doc's two examples: a 3-tower ranking model and a GAN, sharing by name."""

import numpy as np

import paddle_lite as paddle
from paddle_lite._src.compile import forward

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def _tower(name):
    words = L.data(name=name, type=DT.integer_value(50))
    e = L.embedding(input=words, size=8, parameter_name="embedding")
    return L.fc(input=e, size=4, act=A.Softmax(), parameter_name="semantic")


def _ranking():
    f_a, f_b, f_q = _tower("A"), _tower("B"), _tower("Q")
    cost = L.less_than(L.cross_entropy(f_a, f_q), L.cross_entropy(f_b, f_q))
    return f_a, f_b, f_q, cost


def test_ranking_model_shares_embedding_and_semantic():
    f_a, f_b, f_q, cost = _ranking()
    params = paddle.parameters.create(cost)
    assert params.keys() == ["embedding", "semantic", "semantic.wbias"]
    assert params.get_shape("embedding") == (50, 8)
    assert [n for n, _ in paddle.topology.Topology(cost).data_type()] == ["A", "B", "Q"]
    # fA alone needs only input A, and all towers compute the same function.
    ids = np.array([3, 7, 11], np.int32)
    values = params.values()
    (out_a,), _ = forward([f_a], values, {"A": ids})
    (out_b,), _ = forward([f_b], values, {"B": ids})
    np.testing.assert_array_equal(np.asarray(out_a), np.asarray(out_b))
    emb, w, b = values["embedding"], values["semantic"], values["semantic.wbias"]
    z = emb[ids] @ w + b
    want = np.exp(z - z.max(1, keepdims=True))
    np.testing.assert_allclose(out_a, want / want.sum(1, keepdims=True), rtol=1e-5)


def test_ranking_cost_value():
    f_a, f_b, f_q, cost = _ranking()
    values = paddle.parameters.create(cost).values()
    feeds = {
        "A": np.array([1, 2], np.int32),
        "B": np.array([3, 4], np.int32),
        "Q": np.array([5, 6], np.int32),
    }
    (got, pa, pb, pq), _ = forward([cost, f_a, f_b, f_q], values, feeds)
    ce_a = -(np.asarray(pq) * np.log(pa)).sum(1)
    ce_b = -(np.asarray(pq) * np.log(pb)).sum(1)
    np.testing.assert_allclose(np.asarray(got)[:, 0], np.log1p(np.exp(ce_a - ce_b)), rtol=1e-5)


def _gan():
    def generator(z):
        return L.fc(input=z, size=6, act=A.Tanh(), parameter_name="G")

    def discriminator(x):
        return L.fc(input=x, size=1, act=A.Sigmoid(), parameter_name="D")

    noise = L.data(name="noise", type=DT.dense_vector(3))
    image = L.data(name="image", type=DT.dense_vector(6))
    d0 = L.should_be_false(discriminator(generator(noise)))
    d1 = L.should_be_true(discriminator(image))
    return d0, d1


def test_gan_parameters_are_the_union_by_name():
    d0, d1 = _gan()
    params = paddle.parameters.create([d0, d1])
    assert params.keys() == ["G", "G.wbias", "D", "D.wbias"]
    assert paddle.parameters.create(d1).keys() == ["D", "D.wbias"]
    # Both topologies read the same D: its values are one array.
    np.testing.assert_array_equal(params.get("D"), paddle.parameters.create(d1).get("D"))


def test_gan_costs():
    d0, d1 = _gan()
    values = paddle.parameters.create([d0, d1]).values()
    z = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    (c0,), _ = forward([d0], values, {"noise": z})
    g = np.tanh(z @ values["G"] + values["G.wbias"])
    p = 1 / (1 + np.exp(-(g @ values["D"] + values["D.wbias"])))
    np.testing.assert_allclose(np.asarray(c0), -np.log(1 - p), rtol=1e-5)
