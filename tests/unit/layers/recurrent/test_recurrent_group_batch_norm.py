"""batch_norm inside a recurrent group's step, as v2 ran it: each step normalises over
the sequences that reach it (v2 ran a step's frame over those alone), each such step
updates the moving mean and variance in turn, and a padding row of a short batch counts
nowhere. Checked against a float64 numpy loop over the steps."""

import numpy as np
import pytest

import paddle_lite as paddle

L, A = paddle.layer, paddle.activation
EPS, FRACTION = 1e-5, 0.9
BN = "___batch_norm_0__@__recurrent_group_0__"  # v2 names a step layer after its group


def _network(reverse):
    x = L.data(name="x", type=paddle.data_type.dense_vector_sequence(3))
    y = L.data(name="y", type=paddle.data_type.dense_vector(3))

    def step(x_t):
        mem = L.memory(name="acc", size=3)
        bn = L.batch_norm(input=x_t, act=A.Linear(), moving_average_fraction=FRACTION)
        return L.addto(input=[bn, mem], name="acc", act=A.Linear(), bias_attr=False)

    acc = L.recurrent_group(step=step, input=[x], reverse=reverse)
    out = (L.first_seq if reverse else L.last_seq)(input=acc)  # the sum over all steps
    return out, L.square_error_cost(input=out, label=y)


def _reference(batches, w0, bias, reverse):
    """The moving mean and variance after ``batches`` and each batch's training outputs."""
    mean_m, var_m, outs = np.zeros(3), np.zeros(3), []
    for batch in batches:
        seqs = [np.asarray(s, np.float64) for s, _ in batch]
        seqs = [s[::-1] for s in seqs] if reverse else seqs
        acc = np.zeros((len(seqs), 3))
        for t in range(max(len(s) for s in seqs)):
            rows = [i for i, s in enumerate(seqs) if len(s) > t]
            x = np.stack([seqs[i][t] for i in rows])
            mean, var = x.mean(0), x.var(0)
            acc[rows] += (x - mean) / np.sqrt(var + EPS) * w0 + bias
            mean_m = mean_m * FRACTION + mean * (1 - FRACTION)
            var_m = var_m * FRACTION + var * (1 - FRACTION)
        outs.append(acc)
    return mean_m, var_m, outs


def _batches():
    rng = np.random.default_rng(3)
    lengths = [[4, 1, 3, 2], [2, 3, 1]]  # the second batch is short: padded to 4 rows
    return [
        [(rng.normal(size=(n, 3)).astype(np.float32), np.zeros(3, np.float32)) for n in ns]
        for ns in lengths
    ]


@pytest.mark.parametrize("reverse", [False, True])
def test_moving_statistics_follow_each_step_over_the_sequences_that_reach_it(reverse):
    out, cost = _network(reverse)
    params = paddle.parameters.create(cost)
    w0, bias = params.get(f"{BN}.w0"), params.get(f"{BN}.wbias")
    trainer = paddle.trainer.SGD(cost, params, paddle.optimizer.Momentum(learning_rate=0.0))
    batches = _batches()
    seen = []

    def handler(event):
        if isinstance(event, paddle.event.EndIteration):
            seen.append(event.cost)

    trainer.train(lambda: iter(batches), num_passes=1, event_handler=handler)
    mean_m, var_m, outs = _reference(batches, w0[0], bias[0], reverse)
    np.testing.assert_allclose(params.get(f"{BN}.w1")[0], mean_m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(params.get(f"{BN}.w2")[0], var_m, rtol=1e-5, atol=1e-6)
    costs = [np.mean(np.sum(o**2, axis=1)) for o in outs]  # labels are 0
    np.testing.assert_allclose(seen, costs, rtol=1e-4)

    # test mode normalises every step with the moving statistics
    probe = [s for s, _ in batches[0]]
    got = paddle.infer(output_layer=out, parameters=params, input=[(s,) for s in probe])
    scale = w0[0] / np.sqrt(var_m + EPS)
    want = [((np.asarray(s, np.float64) - mean_m) * scale + bias[0]).sum(0) for s in probe]
    np.testing.assert_allclose(got, np.stack(want), rtol=1e-4, atol=1e-5)
