"""``fc`` over sparse nested sequences (``sparse_binary_vector_sub_sequence``,
``sparse_float_vector_sub_sequence``): as v2's FullyConnectedLayer, each step's sparse row
times the weight, the same as over the flat rows; forward values and one SGD step against
a dense numpy computation."""

import numpy as np
import pytest

import paddle_lite as paddle

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
DIM, SIZE, LR = 7, 3, 0.1

# two samples: sub-sequences of steps, each step a sparse row
BINARY = [
    [[[1, 2]], [[0], [3, 4, 6]]],
    [[[5], [2, 5], [0, 1, 6]]],
]
FLOAT = [
    [[[(1, 0.5)]], [[(2, 0.7), (6, 2.0)], [(4, -1.0)]]],
    [[[(0, 1.5)], [(3, -0.25), (5, 0.75)]], [[(6, 1.0)]], [[(2, -2.0)]]],
]


def _dense_rows(samples, binary):
    """The steps of every sample, sub-sequence after sub-sequence, as dense float64 rows."""
    rows = []
    for sample in samples:
        for sub in sample:
            for step in sub:
                row = np.zeros(DIM)
                for item in step:
                    i, v = (item, 1.0) if binary else item
                    row[i] += v
                rows.append(row)
    return np.stack(rows)


CASES = [
    (DT.sparse_binary_vector_sub_sequence, DT.sparse_binary_vector_sequence, BINARY, True),
    (DT.sparse_float_vector_sub_sequence, DT.sparse_float_vector_sequence, FLOAT, False),
]


@pytest.mark.parametrize(("nested", "flat", "samples", "binary"), CASES)
def test_fc_forward_over_sparse_nested_rows(nested, flat, samples, binary):
    x = L.data(name="x", type=nested(DIM))
    out = L.fc(input=x, size=SIZE, act=A.Tanh())
    params = paddle.parameters.create(out)
    w, b = params.get("___fc_layer_0__.w0"), params.get("___fc_layer_0__.wbias")
    want = np.tanh(_dense_rows(samples, binary) @ w + b)
    got = paddle.infer(output_layer=out, parameters=params, input=[(s,) for s in samples])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    # the same rows as a one-level sequence per sample give the same values
    y = L.data(name="y", type=flat(DIM))
    named = {"param_attr": paddle.attr.Param(name="w"), "bias_attr": paddle.attr.Param(name="b")}
    flat_out = L.fc(input=y, size=SIZE, act=A.Tanh(), **named)
    flat_params = paddle.parameters.create(flat_out)
    flat_params.set("w", w)
    flat_params.set("b", b)
    steps = [[step for sub in sample for step in sub] for sample in samples]
    flat_got = paddle.infer(
        output_layer=flat_out, parameters=flat_params, input=[(s,) for s in steps]
    )
    np.testing.assert_allclose(got, flat_got, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(("nested", "flat", "samples", "binary"), CASES)
def test_one_sgd_step_of_fc_over_sparse_nested_rows(nested, flat, samples, binary):
    """``cost = sum of every step's fc output`` (linear): ``dW = sum_rows x_row 1ᵀ`` and
    ``db = rows``; one step of plain SGD moves the weights by ``-LR`` times that."""
    x = L.data(name="x", type=nested(DIM))
    out = L.fc(input=x, size=SIZE, act=A.Linear())
    cost = L.sum_cost(input=out)
    params = paddle.parameters.create(cost)
    w0 = params.get("___fc_layer_0__.w0").astype(np.float64)
    b0 = params.get("___fc_layer_0__.wbias").astype(np.float64)
    rows = _dense_rows(samples, binary)
    opt = paddle.optimizer.Momentum(momentum=0, learning_rate=LR)
    trainer = paddle.trainer.SGD(cost=cost, parameters=params, update_equation=opt)
    costs = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            costs.append(event.cost)

    reader = paddle.batch(lambda: iter([(s,) for s in samples]), len(samples))
    trainer.train(reader, num_passes=1, event_handler=handler)
    want_cost = (rows @ w0 + b0).sum() / len(samples)
    np.testing.assert_allclose(costs, [want_cost], rtol=1e-5)
    grad_w = rows.sum(axis=0)[:, None] * np.ones((1, SIZE))
    np.testing.assert_allclose(
        params.get("___fc_layer_0__.w0"), w0 - LR * grad_w, rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(
        params.get("___fc_layer_0__.wbias"), b0 - LR * len(rows), rtol=1e-5, atol=1e-6
    )
