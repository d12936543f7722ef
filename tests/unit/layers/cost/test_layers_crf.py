"""The linear-chain CRF layers against brute force over all tag paths (numpy float64)."""

import itertools

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.layers.cost.crf import crf, crf_decoding
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerConfigWarning, LayerTypeError

L, DT = paddle.layer, paddle.data_type
F32 = np.float32
N = 3
RNG = np.random.default_rng(11)


# float64 references ----------------------------------------------------------------
def _score(x, tags, param):
    a, b, w = param[0], param[1], param[2:]
    s = a[tags[0]] + b[tags[-1]] + sum(x[t, k] for t, k in enumerate(tags))
    return s + sum(w[i, j] for i, j in itertools.pairwise(tags))


def _paths(length):
    return list(itertools.product(range(N), repeat=length))


def _np_cost(x, tags, param):
    """``log Z - s(tags)`` by enumerating every path; 0 for an empty sequence."""
    if len(tags) == 0:
        return 0.0
    scores = np.array([_score(x, p, param) for p in _paths(len(tags))])
    top = scores.max()
    return top + np.log(np.exp(scores - top).sum()) - _score(x, tags, param)


def _np_best(x, param, length):
    if length == 0:
        return np.zeros(0, np.int64)
    param = np.asarray(param, np.float64)
    paths = _paths(length)
    return np.array(paths[int(np.argmax([_score(x, p, param) for p in paths]))])


# fixtures --------------------------------------------------------------------------
def _layers(size=None, weight=False, coeff=1.0, param_name="crfw"):
    x = L.data(name="x", type=DT.dense_vector_sequence(N))
    y = L.data(name="y", type=DT.integer_value_sequence(N))
    w = L.data(name="w", type=DT.dense_vector(1)) if weight else None
    attr = paddle.attr.Param(name=param_name)
    cost = crf(input=x, label=y, size=size, weight=w, param_attr=attr, coeff=coeff)
    return x, y, cost


def _batch(lengths, t_max=4):
    """Emissions, labels and the float64 values inside the lengths; garbage outside."""
    b = len(lengths)
    x = RNG.normal(size=(b, t_max, N))
    y = RNG.integers(0, N, size=(b, t_max))
    for i, n in enumerate(lengths):
        x[i, n:] = [np.nan, np.inf, -1e30]
        y[i, n:] = 99 if i % 2 else -5
    lengths = np.asarray(lengths, np.int32)
    feeds = {"x": Seq(x.astype(F32), lengths), "y": Seq(y.astype(np.int32), lengths)}
    return feeds, x.astype(F32).astype(np.float64), y


def _param():
    return RNG.normal(size=(N + 2, N)).astype(F32)


def _run(out, feeds, param):
    (value,), _ = forward([out], {"crfw": param}, feeds)
    return value


LENGTHS = [4, 1, 3, 0, 2]


# crf cost --------------------------------------------------------------------------
def test_crf_cost_equals_brute_force_per_sequence_ignoring_padding():
    _, _, cost = _layers()
    feeds, x, y = _batch(LENGTHS)
    param = _param()
    got = np.asarray(_run(cost, feeds, param))
    want = [_np_cost(x[i, :n], y[i, :n], param.astype(np.float64)) for i, n in enumerate(LENGTHS)]
    assert got.shape == (5, 1) and got.dtype == np.float32
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-5, atol=1e-5)
    assert got[3, 0] == 0.0 and np.all(got[[0, 1, 2, 4], 0] > 0)


def test_crf_cost_does_not_depend_on_the_padded_length():
    _, _, cost = _layers()
    feeds, _, _ = _batch(LENGTHS)
    param = _param()
    wide = {k: Seq(np.concatenate([v.data, v.data], axis=1), v.lengths) for k, v in feeds.items()}
    np.testing.assert_allclose(
        np.asarray(_run(cost, wide, param)), np.asarray(_run(cost, feeds, param)), rtol=1e-6
    )


def test_crf_weight_scales_the_cost_and_coeff_only_the_gradient():
    feeds, x, y = _batch([3, 2])
    param = _param()
    weights = np.array([[0.5], [2.0]], F32)
    feeds["w"] = weights
    _, _, plain = _layers(weight=True)
    _, _, doubled = _layers(weight=True, coeff=2.0)
    value = np.asarray(_run(doubled, feeds, param))[:, 0]
    want = [
        weights[i, 0] * _np_cost(x[i, :n], y[i, :n], param.astype(np.float64))
        for i, n in enumerate([3, 2])
    ]
    np.testing.assert_allclose(value, want, rtol=1e-5)

    def total(layer, p):
        return forward([layer], {"crfw": p}, feeds)[0][0].sum()

    g1 = jax.jit(jax.grad(lambda p: total(plain, p)))(param)
    g2 = jax.jit(jax.grad(lambda p: total(doubled, p)))(param)
    np.testing.assert_allclose(np.asarray(g2), 2.0 * np.asarray(g1), rtol=1e-5, atol=1e-6)


def _np_grads(x, y, lengths, param, eps=1e-6):
    """Central differences of the summed float64 brute-force cost."""

    def total(xx, pp):
        return sum(_np_cost(xx[i, :n], y[i, :n], pp) for i, n in enumerate(lengths))

    gx, gp = np.zeros_like(x), np.zeros_like(param)
    for arr, grad in ((x, gx), (param, gp)):
        for idx in np.ndindex(arr.shape):
            if arr is x and idx[1] >= lengths[idx[0]]:
                continue
            old = arr[idx]
            arr[idx] = old + eps
            up = total(x, param)
            arr[idx] = old - eps
            down = total(x, param)
            arr[idx] = old
            grad[idx] = (up - down) / (2 * eps)
    return gx, gp


def test_crf_gradients_match_finite_differences_and_vanish_on_padding():
    _, _, cost = _layers()
    lengths = [3, 1, 0, 2]
    feeds, x, y = _batch(lengths, t_max=3)
    param = _param()

    def total(p, data):
        fed = dict(feeds, x=Seq(data, feeds["x"].lengths))
        return forward([cost], {"crfw": p}, fed)[0][0].sum()

    gp, gx = jax.jit(jax.grad(total, argnums=(0, 1)))(param, feeds["x"].data)
    gx, gp = np.asarray(gx), np.asarray(gp)
    assert np.all(np.isfinite(gx)) and np.all(np.isfinite(gp))
    want_x, want_p = _np_grads(x.copy(), y, lengths, param.astype(np.float64))
    np.testing.assert_allclose(gx, want_x, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gp, want_p, rtol=1e-4, atol=1e-5)
    assert np.all(gx[0, 3:] == 0) and np.all(gx[1, 1:] == 0) and np.all(gx[2] == 0)


def test_crf_size_defaults_to_input_size_and_names_follow_v2():
    x = L.data(name="x", type=DT.dense_vector_sequence(N))
    y = L.data(name="y", type=DT.integer_value_sequence(N))
    cost = crf(input=x, label=y)
    dec = crf_decoding(input=x, size=N)
    assert cost.name == "__crf_layer_0__" and dec.name == "__crf_decoding_layer_0__"
    assert cost.spec.size == 1 and cost.spec.seq_level == 0
    (p,) = cost.params
    assert p.name == "___crf_layer_0__.w0" and p.shape == (N + 2, N)
    assert p.init.smart and p.init.std == pytest.approx(1 / np.sqrt(N + 2))
    assert dec.params[0].name == "___crf_decoding_layer_0__.w0"


# crf_decoding ----------------------------------------------------------------------
def test_crf_decoding_is_the_brute_force_best_path():
    x, y, _ = _layers()
    dec = crf_decoding(input=x, size=N, param_attr=paddle.attr.Param(name="crfw"))
    assert dec.spec.dtype == "int32" and dec.spec.size == N and dec.spec.seq_level == 1
    feeds, xs, _ = _batch(LENGTHS)
    param = _param()
    got = _run(dec, feeds, param)
    ids = np.asarray(got.data)
    assert isinstance(got, Seq) and ids.shape == (5, 4) and np.issubdtype(ids.dtype, np.integer)
    np.testing.assert_array_equal(np.asarray(got.lengths), LENGTHS)
    for i, n in enumerate(LENGTHS):
        np.testing.assert_array_equal(ids[i, :n], _np_best(xs[i, :n], param, n))
        assert np.all(ids[i, n:] == 0)


def test_crf_decoding_with_label_flags_wrong_steps():
    x, y, _ = _layers()
    dec = crf_decoding(input=x, size=N, label=y, param_attr=paddle.attr.Param(name="crfw"))
    assert dec.spec.dtype == "float32" and dec.spec.size == 1 and dec.spec.seq_level == 1
    feeds, xs, _ = _batch(LENGTHS)
    param = _param()
    best = [_np_best(xs[i, :n], param, n) for i, n in enumerate(LENGTHS)]
    labels = np.asarray(feeds["y"].data).copy()
    labels[0, :4] = best[0]
    labels[0, 2] = (best[0][2] + 1) % N
    labels[2, :3] = best[2]
    feeds["y"] = Seq(labels, feeds["y"].lengths)
    errors = np.asarray(_run(dec, feeds, param).data)
    assert errors.shape == (5, 4, 1) and errors.dtype == np.float32
    want = np.zeros((5, 4))
    for i, n in enumerate(LENGTHS):
        want[i, :n] = labels[i, :n] != best[i]
    np.testing.assert_array_equal(errors[..., 0], want)
    assert want[0].tolist() == [0, 0, 1, 0] and want[2].sum() == 0


def test_crf_and_decoders_share_one_transition_parameter():
    x, y, cost = _layers()
    train_dec = crf_decoding(input=x, size=N, label=y, param_attr=paddle.attr.Param(name="crfw"))
    infer_dec = crf_decoding(input=x, size=N, param_attr=paddle.attr.Param(name="crfw"))
    topo = Topology([cost, train_dec, infer_dec])
    assert list(topo.params) == ["crfw"] and topo.params["crfw"].shape == (N + 2, N)
    feeds, xs, _ = _batch([4, 2])
    param = _param()
    (ids,), _ = forward([infer_dec], {"crfw": param}, feeds)
    np.testing.assert_array_equal(np.asarray(ids.data)[1, :2], _np_best(xs[1, :2], param, 2))


def test_jit_equals_eager_and_an_empty_time_axis_works():
    x, y, cost = _layers()
    dec = crf_decoding(input=x, size=N, param_attr=paddle.attr.Param(name="crfw"))
    feeds, _, _ = _batch(LENGTHS)
    params = {"crfw": _param()}
    eager, _ = forward([cost, dec], params, feeds)
    jitted = jax.jit(lambda p, f: forward([cost, dec], p, f)[0])(params, feeds)
    np.testing.assert_allclose(np.asarray(jitted[0]), np.asarray(eager[0]), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jitted[1].data), np.asarray(eager[1].data))
    lengths = np.zeros(2, np.int32)
    empty = {
        "x": Seq(np.zeros((2, 0, N), F32), lengths),
        "y": Seq(np.zeros((2, 0), np.int32), lengths),
    }
    (c, d), _ = forward([cost, dec], params, empty)
    assert np.asarray(c).tolist() == [[0.0], [0.0]] and np.asarray(d.data).shape == (2, 0)


# errors ----------------------------------------------------------------------------
def _data():
    return {
        "seq": L.data(name="seq", type=DT.dense_vector_sequence(N)),
        "dense": L.data(name="dense", type=DT.dense_vector(N)),
        "ids": L.data(name="ids", type=DT.integer_value_sequence(N)),
        "ids4": L.data(name="ids4", type=DT.integer_value_sequence(4)),
        "fseq": L.data(name="fseq", type=DT.dense_vector_sequence(N)),
        "wseq": L.data(name="wseq", type=DT.dense_vector_sequence(1)),
    }


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"input": "ids", "label": "ids"}, "input holds integer ids"),
        ({"input": "seq", "label": "ids", "weight": "wseq"}, "weight has seq_level 1"),
    ],
)
def test_crf_refuses_bad_inputs_naming_layer_and_argument(kwargs, pattern):
    layers = _data()
    args = {k: layers[v] if isinstance(v, str) else v for k, v in kwargs.items()}
    with pytest.raises(LayerConfigError, match=pattern) as info:
        crf(name="c", **args)
    assert "layer 'c' (crf)" in str(info.value)


def test_crf_layers_v2_built_but_could_not_run_warn_and_refuse_to_run():
    """v2 built a CRF over plain inputs or of another size and failed when it ran."""
    d = _data()
    plain_ids = L.data(name="plain_ids", type=DT.integer_value(N))
    cases = [
        (lambda: crf(name="c", input=d["seq"], label=d["ids"], size=5), "input has size 3; "),
        (lambda: crf(name="c2", input=d["seq"], label=d["fseq"]), "label holds dense float"),
        (lambda: crf_decoding(input=d["seq"], size=N, label=d["fseq"]), "label holds dense"),
        (lambda: crf_decoding(name="dec", input=d["seq"], size=4), r"'dec'.*input has size 3"),
        (lambda: crf_decoding(input=d["dense"], size=N), "input has seq_level 0; expected 1"),
        (lambda: crf(name="c3", input=d["dense"], label=d["ids"]), "input has seq_level 0"),
        (lambda: crf_decoding(input=d["seq"], size=N, label=plain_ids), "label has seq_level 0"),
    ]
    for build, pattern in cases:
        with pytest.warns(LayerConfigWarning, match=pattern):
            layer = build()
        assert "v2 built such a layer" in layer.attrs["unrunnable"]


def test_crf_label_of_another_range_warns_and_runs():
    d = _data()
    with pytest.warns(LayerConfigWarning, match=r"integer_value_sequence\(4\) but the CRF has 3"):
        layer = crf(name="c", input=d["seq"], label=d["ids4"])
    assert "unrunnable" not in layer.attrs


def test_crf_decoding_refuses_bad_inputs():
    with pytest.raises(LayerConfigError, match="at least 2 tags"):
        crf_decoding(input=L.data(name="one", type=DT.dense_vector_sequence(1)), size=1)


def test_argument_type_errors():
    d = _data()
    with pytest.raises(LayerTypeError, match="size must be an int"):
        crf_decoding(input=d["seq"], size="3")
    with pytest.raises(LayerTypeError, match="label must be a layer"):
        crf(input=d["seq"], label=[1, 2])
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'lable'"):
        crf(input=d["seq"], lable=d["ids"])
    with pytest.raises(LayerTypeError, match="coeff must be a number"):
        crf(input=d["seq"], label=d["ids"], coeff="1")
    with pytest.raises(LayerConfigError, match="does not support drop_rate"):
        crf(input=d["seq"], label=d["ids"], layer_attr=paddle.attr.Extra(drop_rate=0.5))
