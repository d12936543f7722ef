"""Sequence reshaping (seq_concat, expand, seq_reshape, context_projection) against
per-sample numpy float64 loops; every padded input carries junk beyond its lengths."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.layers import mixed as M
from paddle_lite._src.layers import projections as PR
from paddle_lite._src.layers.sequence import aggregate as AG
from paddle_lite._src.layers.sequence import pooling as S
from paddle_lite._src.layers.sequence import reshape as R
from paddle_lite._src.specs import Spec
from paddle_lite._src.values import Seq
from paddle_lite.errors import DataError, LayerConfigError, LayerConfigWarning, LayerTypeError

try:
    from tests.unit import _sequence_fixtures as sf
except ImportError:
    import _sequence_fixtures as sf

D, LENGTHS, RNG = sf.D, sf.LENGTHS, sf.RNG
SUB_COUNTS, SUB_LENGTHS = sf.SUB_COUNTS, sf.SUB_LENGTHS
DT, ATTR = paddle.data_type, paddle.attr
EXP = AG.ExpandLevel


# seq_concat ------------------------------------------------------------------------
def test_seq_concat_joins_the_valid_steps():
    a, b = sf.seq_data("a"), sf.seq_data("b")
    fa, fb = sf.seq_value(), sf.seq_value([2, 0, 3, 4], t=4)
    out = R.seq_concat(a=a, b=b, act=paddle.activation.Tanh(), bias_attr=True)
    got, p = sf.run(out, {"a": fa, "b": fb})
    assert out.spec.seq_level == 1 and got.data.shape == (4, 16, D)
    assert [s.name for s in out.params] == ["___seqconcat_0__.wbias"]
    bias = p["___seqconcat_0__.wbias"][0]
    for i in range(4):
        want = np.tanh(np.concatenate([sf.valid_steps(fa, i), sf.valid_steps(fb, i)]) + bias)
        assert int(got.lengths[i]) == len(want)
        np.testing.assert_allclose(sf.out_steps(got, i), want, rtol=1e-5, atol=1e-6)


def test_seq_concat_of_non_sequences_makes_two_steps():
    a, b = sf.dense_data("a"), sf.seq_data("b")
    fa, fb = RNG.normal(size=(4, D)).astype(np.float32), sf.seq_value()
    got, _ = sf.run(R.seq_concat(a=a, b=b), {"a": fa, "b": fb})
    for i in range(4):
        want = np.concatenate([fa[i : i + 1], sf.valid_steps(fb, i)])
        np.testing.assert_allclose(sf.out_steps(got, i), want, rtol=1e-6)
    with pytest.raises(LayerConfigError, match="a.size=3, b.size=4"):
        R.seq_concat(a=a, b=sf.seq_data("c", 4))


def _outer_rows(nested, b):
    """Sample ``b``'s steps as v2 held them under its outer start positions: its
    sub-sequences one after another (float64)."""
    subs = sf.valid_steps(nested, b)
    return np.concatenate(subs) if subs else np.zeros((0, nested.data.shape[-1]))


def test_seq_concat_and_seq_reshape_of_nested_sequences_use_the_outer_sequences():
    """v2's SequenceConcatLayer and SequenceReshapeLayer read only the outer start
    positions and set no sub-sequences: the output is a plain sequence per sample."""
    n, fn = sf.nested_data("n"), sf.nested_value()
    x, fx = sf.seq_data("x"), sf.seq_value()
    both = R.seq_concat(a=n, b=x)
    assert both.spec.seq_level == 1
    got, _ = sf.run(both, {"n": fn, "x": fx})
    assert got.sub_lengths is None
    for i in range(4):
        want = np.concatenate([_outer_rows(fn, i), sf.valid_steps(fx, i)])
        assert int(got.lengths[i]) == len(want)
        np.testing.assert_allclose(sf.out_steps(got, i), want, rtol=1e-6)
    subs = [[3, 1, 9], [2, 0, 4], [5, 5, 5], [4, 7, 7]]  # totals 4, 6, 0, 4 rows of 3
    fn2 = sf.nested_value(subs=subs)
    recut = R.seq_reshape(input=n, reshape_size=6)
    assert recut.spec.seq_level == 1
    got, _ = sf.run(recut, {"n": fn2})
    assert got.sub_lengths is None
    for i in range(4):
        want = _outer_rows(fn2, i).reshape(-1, 6)
        assert int(got.lengths[i]) == len(want)
        np.testing.assert_allclose(sf.out_steps(got, i), want, rtol=1e-6)


# expand ----------------------------------------------------------------------------
def test_expand_from_no_sequence_over_sequences_and_nested():
    v, x, n = sf.dense_data("v", 2), sf.seq_data("x"), sf.nested_data("n")
    fv = RNG.normal(size=(4, 2)).astype(np.float32)
    bias = ATTR.Param(initial_mean=1.0, initial_std=0.5)
    out = R.expand(input=v, expand_as=x, bias_attr=bias)
    got, p = sf.run(out, {"v": fv, "x": sf.seq_value()})
    assert out.spec == Spec(2, seq_level=1)
    b0 = p["___expand_layer_0__.wbias"][0]
    for i in range(4):
        np.testing.assert_allclose(
            sf.out_steps(got, i), np.tile(fv[i] + b0, (LENGTHS[i], 1)), rtol=1e-6
        )
    nested, _ = sf.run(R.expand(input=v, expand_as=n), {"v": fv, "n": sf.nested_value()})
    assert nested.data.shape == (4, 4, 8, 2)
    np.testing.assert_array_equal(nested.lengths, SUB_COUNTS)
    for i in range(4):
        for j in range(SUB_COUNTS[i]):
            rows = np.asarray(nested.data)[i, j, : nested.sub_lengths[i, j]]
            np.testing.assert_allclose(rows, np.tile(fv[i], (SUB_LENGTHS[i][j], 1)), rtol=1e-6)


def test_expand_from_sequence_fills_each_sub_sequence():
    s, n = sf.seq_data("s", 2), sf.nested_data("n")
    fs = sf.seq_value(SUB_COUNTS, t=4, d=2)
    out = R.expand(input=s, expand_as=n, expand_level=EXP.FROM_SEQUENCE)
    got, _ = sf.run(out, {"s": fs, "n": sf.nested_value()})
    assert out.spec.seq_level == 2
    for i in range(4):
        for j in range(SUB_COUNTS[i]):
            rows = np.asarray(got.data)[i, j, : SUB_LENGTHS[i][j]]
            np.testing.assert_allclose(
                rows, np.tile(sf.valid_steps(fs, i)[j], (SUB_LENGTHS[i][j], 1))
            )


def test_expand_from_sequence_needs_a_step_per_sub_sequence_in_each_sample():
    """v2's ExpandLayer (FROM_SEQUENCE) pairs the input's rows with expand_as's
    sub-sequences over the whole batch: other counts per sample are refused on the host
    (data layers), and give NaN rows for lengths computed on the device, never the
    input's padding."""
    s, n = sf.seq_data("s", 2), sf.nested_data("n")
    out = R.expand(input=s, expand_as=n, expand_level=EXP.FROM_SEQUENCE, name="out")
    params = paddle.parameters.create(out)
    ones = lambda *shape: np.ones(shape, np.float32)  # noqa: E731
    nested = [[ones(2, D), ones(1, D)], [ones(3, D)]]  # 2 sub-sequences, then 1
    got = paddle.infer(output_layer=out, parameters=params,
                       input=[(ones(2, 2), nested[0]), (ones(1, 2), nested[1])])  # fmt: skip
    np.testing.assert_array_equal(got, np.ones((6, 2)))
    with pytest.raises(DataError, match="input 1 'n' .* sample 0 has 2, but input 0 's'"):
        paddle.infer(output_layer=out, parameters=params,
                     input=[(ones(1, 2), nested[0]), (ones(2, 2), nested[1])])  # fmt: skip
    fs = sf.seq_value([1, 3, 0, 1], t=4, d=2)  # sample 0: 1 step for 2 sub-sequences
    got, _ = sf.run(out, {"s": fs, "n": sf.nested_value()})
    assert np.isnan(np.asarray(got.data)[0]).all()
    for b, j in ((1, 0), (1, 2), (3, 0)):  # the samples whose counts agree
        rows = np.asarray(got.data)[b, j, : SUB_LENGTHS[b][j]]
        np.testing.assert_allclose(rows, np.tile(sf.valid_steps(fs, b)[j], (len(rows), 1)))


def test_expand_bias_rules_and_errors():
    v, x, n = sf.dense_data("v"), sf.seq_data("x"), sf.nested_data("n")
    assert R.expand(input=v, expand_as=x, bias_attr=True).params == ()
    same, _ = sf.run(R.expand(input=v, expand_as=v), {"v": np.ones((2, D), np.float32)})
    np.testing.assert_array_equal(same, np.ones((2, D)))
    # v2 built these and failed when they ran: they build with a warning here
    with pytest.warns(LayerConfigWarning, match="input seq_level 1"):
        R.expand(input=x, expand_as=n)
    with pytest.warns(LayerConfigWarning, match="expand_as seq_level 1"):
        R.expand(input=x, expand_as=x, expand_level=EXP.FROM_SEQUENCE)
    with pytest.raises(LayerTypeError, match="expand_level"):
        R.expand(input=v, expand_as=x, expand_level="sub")


# seq_reshape -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("m", "n", "lengths"), [(4, 2, LENGTHS), (2, 4, [4, 2, 0, 6]), (6, 4, [2, 4, 0, 6])]
)
def test_seq_reshape_recuts_the_values(m, n, lengths):
    x, fx = sf.seq_data("x", m), sf.seq_value(lengths, d=m)
    out = R.seq_reshape(input=x, reshape_size=n, bias_attr=True)
    got, p = sf.run(out, {"x": fx})
    assert out.size == n and out.params[0].shape == (1, n)
    bias = p["___seqreshape_0__.wbias"][0]
    for i in range(4):
        want = sf.valid_steps(fx, i).reshape(-1, n) + bias
        assert int(got.lengths[i]) == len(want)
        np.testing.assert_allclose(sf.out_steps(got, i), want, rtol=1e-5, atol=1e-6)


def test_seq_reshape_keeps_its_output_linear_as_v2_did_whatever_act():
    """v2's seq_reshape_layer took ``act`` but never passed it to its Layer: the
    output (and the parsed config's active_type) stayed linear."""
    x, fx = sf.seq_data("x", 4), sf.seq_value(LENGTHS, d=4)
    with pytest.warns(LayerConfigWarning, match="never passed it to its layer"):
        out = R.seq_reshape(input=x, reshape_size=2, act=paddle.activation.Tanh())
    got, _ = sf.run(out, {"x": fx})
    for i in range(4):
        want = sf.valid_steps(fx, i).reshape(-1, 2)
        np.testing.assert_allclose(sf.out_steps(got, i), want, rtol=1e-6)
    (conf,) = [c for c in paddle.layer.parse_network(out).layers if c.name == out.name]
    assert conf.active_type == ""


def test_seq_reshape_of_a_non_sequence_and_errors():
    d = sf.dense_data("d", 6)
    fd = RNG.normal(size=(2, 6)).astype(np.float32)
    got, _ = sf.run(R.seq_reshape(input=d, reshape_size=2), {"d": fd})
    np.testing.assert_array_equal(got.lengths, [3, 3])
    np.testing.assert_allclose(np.asarray(got.data)[:, :3], fd.reshape(2, 3, 2))
    with pytest.raises(LayerConfigError, match="reshape_size 4"):
        R.seq_reshape(input=d, reshape_size=4)
    with pytest.raises(LayerConfigError, match="reshape_size must be positive"):
        R.seq_reshape(input=d, reshape_size=0)
    kept = R.seq_reshape(input=d, reshape_size=2, layer_attr=ATTR.Extra(drop_rate=0.1))
    assert kept.attrs["drop_rate"] == 0.1
    with pytest.raises(LayerConfigError, match="does not support error_clipping"):
        S.last_seq(input=d, layer_attr=ATTR.Extra(error_clipping_threshold=1.0))


# context_projection ----------------------------------------------------------------
def _v2_context(rows, starts, context_len, context_start, padding):
    """v2's ContextProjectionForward, transcribed: rows of all sequences stacked, with
    ``starts`` the sequence start positions."""
    width = rows.shape[1]
    out = np.zeros((rows.shape[0], width * context_len))
    begin_pad = max(0, -context_start)
    for i in range(len(starts) - 1):
        for j in range(context_len):
            begin = starts[i] + context_start + j
            end = starts[i + 1] + context_start + j
            dst_begin, dst_end = starts[i], starts[i + 1]
            cols = slice(j * width, (j + 1) * width)
            if begin < starts[i]:
                pad_size = min(starts[i] - begin, starts[i + 1] - starts[i])
                if padding is not None:
                    out[starts[i] : starts[i] + pad_size, cols] += padding[j : j + pad_size]
                dst_begin, begin = starts[i] + pad_size, starts[i]
            if end > starts[i + 1]:
                pad_size = min(end - starts[i + 1], starts[i + 1] - starts[i])
                if padding is not None:
                    first = begin_pad + context_start + j - pad_size
                    out[starts[i + 1] - pad_size : starts[i + 1], cols] += padding[
                        first : first + pad_size
                    ]
                dst_end, end = starts[i + 1] - pad_size, starts[i + 1]
            if end > begin:
                out[dst_begin:dst_end, cols] += rows[begin:end]
    return out


CONTEXTS = [(3, None, -1), (4, None, -2), (5, None, -2), (3, 0, 0), (4, -3, -3), (2, 2, 2)]


@pytest.mark.parametrize("padding", [False, True, "param"])
@pytest.mark.parametrize(("context_len", "start", "default"), CONTEXTS)
def test_context_projection_matches_v2(context_len, start, default, padding):
    x, fx = sf.seq_data("x"), sf.seq_value([4, 1, 0, 6, 2])
    attr = ATTR.Param(initial_std=0.3) if padding == "param" else padding
    proj = PR.context_projection(
        input=x, context_len=context_len, context_start=start, padding_attr=attr
    )
    assert proj.context_start == default
    out = M.mixed(input=proj)
    got, p = sf.run(out, {"x": fx}, seed=9)
    assert out.size == D * context_len and out.spec.seq_level == 1
    total = max(0, -default) + max(0, default + context_len - 1)
    pad = p.get("___mixed_0__.w0")
    if padding is False or total == 0:
        assert out.params == ()
    else:
        assert out.params[0].shape == (total, D)
        assert out.params[0].init.std == (0.3 if padding == "param" else 0.0)
    lengths = [4, 1, 0, 6, 2]
    rows = np.concatenate([sf.valid_steps(fx, b) for b in range(5)])
    want = _v2_context(rows, np.cumsum([0] + lengths), context_len, default, pad)
    got_rows = np.concatenate([sf.out_steps(got, b) for b in range(5)])
    np.testing.assert_allclose(got_rows, want, rtol=1e-5, atol=1e-6)


def _v2_context_backward(out_grad, starts, context_len, context_start, total_pad):
    """v2's ContextProjectionBackward (CPU), transcribed: the input rows' gradient and
    the padding's, from the output rows' gradient."""
    width = out_grad.shape[1] // context_len
    in_grad, w_grad = np.zeros((out_grad.shape[0], width)), np.zeros((total_pad, width))
    begin_pad = max(0, -context_start)
    for i in range(len(starts) - 1):
        for j in range(context_len):
            begin, end = starts[i] + context_start + j, starts[i + 1] + context_start + j
            dst_begin, dst_end = starts[i], starts[i + 1]
            cols = slice(j * width, (j + 1) * width)
            if begin < starts[i]:
                pad_size = min(starts[i] - begin, starts[i + 1] - starts[i])
                w_grad[j : j + pad_size] += out_grad[starts[i] : starts[i] + pad_size, cols]
                dst_begin, begin = starts[i] + pad_size, starts[i]
            if end > starts[i + 1]:
                pad_size = min(end - starts[i + 1], starts[i + 1] - starts[i])
                first = begin_pad + context_start + j - pad_size
                rows = slice(starts[i + 1] - pad_size, starts[i + 1])
                w_grad[first : first + pad_size] += out_grad[rows, cols]
                dst_end, end = starts[i + 1] - pad_size, starts[i + 1]
            if end > begin:
                in_grad[begin:end] += out_grad[dst_begin:dst_end, cols]
    return in_grad, w_grad


@pytest.mark.parametrize(("context_len", "start"), [(3, None), (4, -3), (2, 1)])
def test_context_projection_of_a_nested_sequence_runs_over_the_outer_sequence(context_len, start):
    """v2's ContextProjection reads only the outer start positions: the window runs over
    each sample's sub-sequences one after another, and the output keeps the nesting.
    Values, and the input and padding gradients of v2's backward."""
    n, fn = sf.nested_data("n"), sf.nested_value()
    proj = PR.context_projection(input=n, context_len=context_len, context_start=start)
    out = M.mixed(input=proj, bias_attr=False)
    assert out.spec.seq_level == 2
    params = {"___mixed_0__.w0": RNG.normal(size=out.params[0].shape).astype(np.float32)}
    mask = np.asarray(sf.valid_mask(fn))
    w = RNG.normal(size=mask.shape + (D * context_len,))

    def loss(data, pad):
        feeds = {"n": fn._replace(data=data)}
        (v,), _ = forward([out], {"___mixed_0__.w0": pad}, feeds)
        return jnp.sum(jnp.asarray(w, jnp.float32) * v.data), v

    (_, got), (g_in, g_pad) = jax.value_and_grad(loss, argnums=(0, 1), has_aux=True)(
        jnp.asarray(fn.data), jnp.asarray(params["___mixed_0__.w0"])
    )
    np.testing.assert_array_equal(got.sub_lengths[mask.any(2)], fn.sub_lengths[mask.any(2)])
    per_sample = [sf.valid_steps(fn, b) for b in range(len(SUB_COUNTS))]
    rows = np.concatenate([r for subs in per_sample for r in subs])
    starts = np.cumsum([0] + [sum(len(r) for r in subs) for subs in per_sample])
    pad = params["___mixed_0__.w0"].astype(np.float64)
    want = _v2_context(rows, starts, context_len, proj.context_start, pad)
    np.testing.assert_allclose(np.asarray(got.data)[mask], want, rtol=1e-5, atol=1e-6)
    want_in, want_pad = _v2_context_backward(w[mask], starts, context_len, proj.context_start,
                                             len(pad))  # fmt: skip
    np.testing.assert_allclose(np.asarray(g_in)[mask], want_in, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(g_in)[~mask], 0.0)
    np.testing.assert_allclose(g_pad, want_pad, rtol=1e-5, atol=1e-6)


def test_context_projection_example_from_v2_docs():
    """``[A..G]`` with context_len 3 gives ``0AB ABC BCD CDE DEF EFG FG0``."""
    x = sf.seq_data("x", 1)
    fx = Seq(np.arange(1, 9, dtype=np.float32).reshape(1, 8, 1), np.array([7], np.int32))
    got, _ = sf.run(M.mixed(input=PR.context_projection(input=x, context_len=3)), {"x": fx})
    want = [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6], [5, 6, 7], [6, 7, 0]]
    np.testing.assert_array_equal(sf.out_steps(got, 0), want)


def test_context_projection_smart_padding_init_and_errors():
    x, d = sf.seq_data("x"), sf.dense_data("d")
    proj = PR.context_projection(input=x, context_len=5, padding_attr=ATTR.Param())
    with paddle.layer.mixed() as m:
        m += proj
    assert m.params[0].shape == (4, D) and m.params[0].init.std == pytest.approx(0.5)
    fd = RNG.normal(size=(2, D)).astype(np.float32)
    one, _ = sf.run(
        M.mixed(size=5 * D, input=PR.context_projection(input=d, context_len=5)), {"d": fd}
    )
    np.testing.assert_allclose(
        one, np.concatenate([np.zeros((2, 2 * D)), fd, np.zeros((2, 2 * D))], 1)
    )
    with pytest.raises(LayerConfigError, match="context_len must be positive"):
        PR.context_projection(input=x, context_len=0)
    with pytest.raises(LayerTypeError, match="context_start must be an int"):
        PR.context_projection(input=x, context_len=3, context_start=1.5)


def test_expand_as_an_id_sequence_takes_its_lengths():
    v = sf.dense_data("v", 2)
    w = paddle.layer.data(name="w", type=DT.integer_value_sequence(9))
    fv = RNG.normal(size=(2, 2)).astype(np.float32)
    fw = Seq(np.zeros((2, 4), np.int32), np.array([3, 1], np.int32))
    got, _ = sf.run(R.expand(input=v, expand_as=w), {"v": fv, "w": fw})
    np.testing.assert_array_equal(got.lengths, [3, 1])
    np.testing.assert_allclose(np.asarray(got.data), np.broadcast_to(fv[:, None], (2, 4, 2)))


def test_seq_reshape_drops_a_trailing_partial_step():
    x, fx = sf.seq_data("x", 6), sf.seq_value([3, 1], d=6)
    got, _ = sf.run(R.seq_reshape(input=x, reshape_size=4), {"x": fx})
    np.testing.assert_array_equal(got.lengths, [4, 1])
    for i in range(2):
        flat = sf.valid_steps(fx, i).reshape(-1)
        want = flat[: len(flat) // 4 * 4].reshape(-1, 4)
        np.testing.assert_allclose(sf.out_steps(got, i), want, rtol=1e-6)


def test_seq_reshape_of_a_data_sequence_that_leaves_a_partial_step_is_a_data_error():
    """v2's SequenceReshapeLayer checked that each sequence's values fill whole steps
    (CHECK_EQ); the host refuses such a batch, naming the layer, the data and the sample."""
    x = paddle.layer.data(name="x", type=DT.dense_vector_sequence(6))
    out = R.seq_reshape(input=paddle.layer.fc(input=x, size=6), reshape_size=4, name="cut")
    params = paddle.parameters.create(out)
    rows = lambda n: np.ones((n, 6), np.float32)  # noqa: E731
    got = paddle.infer(output_layer=out, parameters=params, input=[(rows(2),), (rows(4),)])
    assert got.shape == (3 + 6, 4)
    with pytest.raises(DataError) as err:
        paddle.infer(output_layer=out, parameters=params, input=[(rows(2),), (rows(3),)])
    text = str(err.value)
    assert "seqreshape 'cut': input 0" in text and "(data layer 'x')" in text
    assert "3 steps of 6 values in sample 1: 18 values, not a multiple of" in text


def test_context_projection_default_padding_is_trainable_as_in_v2():
    """v2's ``wrap_bias_attr_default(['padding_attr'])`` turns an unset padding_attr into
    ``ParamAttr(initial_mean=0, initial_std=0)``: trainable padding, starting at zero. Only
    an explicit ``padding_attr=False`` gives fixed zero padding."""
    x = sf.seq_data("x")
    default = M.mixed(input=PR.context_projection(input=x, context_len=3))
    (param,) = default.params
    assert (param.name, param.shape) == ("___mixed_0__.w0", (2, D))
    assert (param.init.mean, param.init.std, param.init.smart) == (0.0, 0.0, False)
    assert (
        M.mixed(input=PR.context_projection(input=x, context_len=3, padding_attr=False)).params
        == ()
    )
