"""The v2 design doc's two shared-parameter models: build, inspect, train, infer.

Run: python examples/demo.py
"""

import io

import numpy as np

import paddle_lite as paddle

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


def ranking_model():
    """Three towers sharing "embedding" and "semantic"; A should rank closer to Q than B."""

    def tower(name):
        words = L.data(name=name, type=DT.integer_value(1000))
        e = L.embedding(input=words, size=32, parameter_name="embedding")
        return L.fc(input=e, size=16, act=A.Softmax(), parameter_name="semantic")

    f_a, f_b, f_q = tower("A"), tower("B"), tower("Q")
    return L.less_than(L.cross_entropy(f_a, f_q), L.cross_entropy(f_b, f_q))


def gan():
    """A generator and a discriminator, two topologies sharing "G" and "D"."""
    noise = L.data(name="noise", type=DT.dense_vector(8))
    image = L.data(name="image", type=DT.dense_vector(64))

    def generator(z):
        return L.fc(input=z, size=64, act=A.Tanh(), parameter_name="G")

    def discriminator(x):
        return L.fc(input=x, size=1, act=A.Sigmoid(), parameter_name="D")

    return L.should_be_false(discriminator(generator(noise))), L.should_be_true(
        discriminator(image)
    )


def main():
    paddle.init(use_gpu=False, trainer_count=1, seed=1)

    cost = ranking_model()
    print("Ranking model")
    paddle.topology.Topology(cost).summary()
    params = paddle.parameters.create(cost)
    print("shared parameters:", params.keys(), "\n")

    d0, d1 = gan()
    print("GAN: generator topology")
    paddle.topology.Topology(d0).summary()
    gan_params = paddle.parameters.create([d0, d1])
    print("one parameter set for both topologies:", gan_params.keys())

    rng = np.random.default_rng(0)

    def noise():
        return ((rng.normal(size=8).astype(np.float32),) for _ in range(256))

    def real():
        return ((np.tanh(rng.normal(size=64) + 1.0).astype(np.float32),) for _ in range(256))

    adam = paddle.optimizer.Adam(learning_rate=1e-3)
    for round_id in range(3):
        d_before = gan_params.get("D")
        paddle.train(
            d0,
            gan_params,
            paddle.batch(noise, 32),
            update_equation=adam,
            immutable_parameters={"D"},
        )
        frozen_ok = np.array_equal(gan_params.get("D"), d_before)
        paddle.train(d1, gan_params, paddle.batch(real, 32), update_equation=adam)
        cost = paddle.test(d1, gan_params, paddle.batch(real, 32)).cost
        print(
            f"round {round_id}: D frozen during the G phase: {frozen_ok}; "
            f"D's cost on real samples {cost:.4f}"
        )

    buf = io.BytesIO()
    gan_params.to_tar(buf)
    buf.seek(0)
    again = paddle.parameters.Parameters.from_tar(buf)
    same = all(np.array_equal(again.get(n), gan_params.get(n)) for n in gan_params.keys())
    print(f"v2 tar round trip: {len(buf.getvalue())} bytes, identical values: {same}")


if __name__ == "__main__":
    main()
