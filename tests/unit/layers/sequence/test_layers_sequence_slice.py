"""Sequence selection (kmax_seq_score, sub_nested_seq, seq_slice, sub_seq) against
float64 transcriptions of v2's C++ over its flat batch layout: values, and gradients
w.r.t. the sequence input (v2's ``addToRows``). Padded inputs carry junk (huge values
and NaN) beyond their lengths."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.specs import Spec
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerTypeError

try:
    from tests.unit import _sequence_fixtures as sf
    from tests.unit import _v2_slice_reference as ref
except ImportError:
    import _sequence_fixtures as sf
    import _v2_slice_reference as ref

L, DT, RNG = paddle.layer, paddle.data_type, np.random.default_rng(3)


def grad_wrt(out, feeds, name):
    """``(value, d/dx sum(w * out), w)`` for random weights ``w`` on the whole output."""
    params = {s.name: initialize(s, 5) for s in Topology(out).param_specs()}

    def total(x, w):
        (v,), _ = forward([out], params, {**feeds, name: feeds[name]._replace(data=x)})
        return jnp.sum(w * (v.data if isinstance(v, Seq) else v)), v

    x = jnp.asarray(feeds[name].data)
    _, value = total(x, 0.0)
    w = RNG.normal(size=np.shape(value.data if isinstance(value, Seq) else value))
    grad = jax.grad(lambda x: total(x, jnp.asarray(w, jnp.float32))[0])(x)
    return value, np.asarray(grad, np.float64), w, params


def expected_grad(value, w, selected, inp):
    """v2's input gradient: the output rows' weights added to their source rows."""
    positions, _ = ref.flat_positions(value)
    out_grad = np.array([w[p] for p in positions]).reshape(len(positions), -1)
    n_rows = len(ref.flat_positions(inp)[0])
    return ref.to_padded_grad(ref.add_to_rows(out_grad, selected, n_rows), inp)


def assert_slices(value, rows, selected, counts):
    """The output's sequences, in order, are ``rows[selected]`` cut by ``counts``."""
    got = [s for sample in ref.output_slices(value) for s in sample if len(s)]
    want = np.split(rows[selected], np.cumsum(counts)[:-1]) if counts else []
    assert [len(g) for g in got] == [len(w) for w in want]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6)


# kmax_seq_score ----------------------------------------------------------------------
def test_kmax_seq_score_matches_v2_on_sequences():
    scores = sf.seq_value(d=1)
    scores.data[3, :6, 0] = [0.5, 2.0, 0.5, -1.0, 2.0, 0.1]  # ties: the earlier step first
    out = L.kmax_seq_score(input=sf.seq_data("s", 1), beam_size=3)
    got, _ = sf.run(out, {"s": scores})
    assert out.name == "__kmax_seq_score_layer_0__" and out.spec == Spec(3)
    flat, info = ref.flat_rows(scores)
    np.testing.assert_array_equal(np.asarray(got), ref.kmax(flat[:, 0], info, 3))
    np.testing.assert_array_equal(np.asarray(got)[3], [1, 4, 0])
    np.testing.assert_array_equal(np.asarray(got)[2], [-1, -1, -1])  # an empty sequence
    # kmax_sequence_score: the name 2017 programs use (v2's kmax_sequence_score_layer)
    with pytest.warns(DeprecationWarning, match="paddle.layer.kmax_seq_score"):
        older = L.kmax_sequence_score(input=sf.seq_data("s", 1), beam_size=3)
    np.testing.assert_array_equal(np.asarray(sf.run(older, {"s": scores})[0]), np.asarray(got))


def test_kmax_seq_score_gives_a_row_per_sub_sequence_and_no_gradient():
    scores = sf.nested_value(d=1)
    out = L.kmax_seq_score(input=sf.nested_data("n", 1), beam_size=2)
    got, _ = sf.run(out, {"n": scores})
    assert out.spec == Spec(2, seq_level=1)
    np.testing.assert_array_equal(got.lengths, sf.SUB_COUNTS)
    rows = np.concatenate([np.asarray(got.data)[b, :c] for b, c in enumerate(sf.SUB_COUNTS)])
    flat, info = ref.flat_rows(scores)
    np.testing.assert_array_equal(rows, ref.kmax(flat[:, 0], info, 2))
    _, grad, _, _ = grad_wrt(out, {"n": scores}, "n")
    np.testing.assert_array_equal(grad, 0.0)


# sub_nested_seq ----------------------------------------------------------------------
def test_sub_nested_seq_matches_v2_rows_and_gradient():
    nested = sf.nested_value()
    sel = np.array([[1, 0, 1], [2, 0, -1], [-1, 0, 0], [0, -1, 0]], np.float32)
    out = L.sub_nested_seq(input=sf.nested_data("n"), selected_indices=sf.dense_data("i", 3))
    assert out.name == "__sub_nested_seq_layer_0__" and out.spec == Spec(sf.D, seq_level=2)
    feeds = {"n": nested, "i": sel}
    got, _ = sf.run(out, feeds)
    flat, info = ref.flat_rows(nested)
    selected, subs = ref.sub_nested_seq(info, sel)
    np.testing.assert_array_equal(got.lengths, [len(s) for s in subs])
    assert_slices(got, flat, selected, [n for s in subs for n in s if n])
    value, grad, w, _ = grad_wrt(out, feeds, "n")
    np.testing.assert_allclose(grad, expected_grad(value, w, selected, nested), rtol=1e-6)


# seq_slice ---------------------------------------------------------------------------
PLAIN = [4, 1, 0, 6]
CASES = {
    "one slice": ([[1], [0], [-1], [2]], [[2], [0], [-1], [5]], 1),
    "two slices": ([[0, 2], [0, -1], [-1, 0], [5, 1]], [[3, 2], [0, 0], [-1, 0], [5, 3]], 2),
    "starts only": ([[3, 1], [0, -1], [-1, -1], [0, 4]], None, 2),
    "ends only": (None, [[2], [0], [-1], [0]], 1),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_seq_slice_of_sequences_matches_v2(case):
    starts, ends = (None if a is None else np.array(a, np.float32) for a in CASES[case][:2])
    width = CASES[case][2]
    x = sf.seq_value(PLAIN)
    feeds, kwargs = {"x": x}, {}
    for arg, value in (("starts", starts), ("ends", ends)):
        kwargs[arg] = None if value is None else sf.dense_data(arg, width)
        if value is not None:
            feeds[arg] = value
    out = L.seq_slice(input=sf.seq_data("x"), **kwargs)
    assert out.spec == Spec(sf.D, seq_level=1 if width == 1 else 2)
    got, _ = sf.run(out, feeds)
    flat, info = ref.flat_rows(x)
    selected, per_row = ref.seq_slice(info, starts, ends)
    counts = [len(r) for r in per_row]
    if width == 1:
        np.testing.assert_array_equal(got.lengths, [r[0] if r else 0 for r in per_row])
    else:
        np.testing.assert_array_equal(got.lengths, counts)
    assert_slices(got, flat, selected, [n for r in per_row for n in r])
    value, grad, w, _ = grad_wrt(out, feeds, "x")
    np.testing.assert_allclose(grad, expected_grad(value, w, selected, x), rtol=1e-6)


def _nested_slice_case(nested, starts, kind):
    feeds = {"n": nested, "s": starts}
    out = L.seq_slice(input=sf.nested_data("n"), starts=kind("s", 2), ends=None)
    assert out.spec == Spec(sf.D, seq_level=2)
    got, _ = sf.run(out, feeds)
    flat, info = ref.flat_rows(nested)
    rows = ref.flat_rows(starts)[0] if isinstance(starts, Seq) else starts
    selected, per_row = ref.seq_slice(info, rows, None)
    counts = np.asarray(nested.lengths)
    per_sample = np.split(np.array([len(r) for r in per_row]), np.cumsum(counts)[:-1])
    np.testing.assert_array_equal(got.lengths, [s.sum() for s in per_sample])
    assert_slices(got, flat, selected, [n for r in per_row for n in r])
    value, grad, w, _ = grad_wrt(out, feeds, "n")
    np.testing.assert_allclose(grad, expected_grad(value, w, selected, nested), rtol=1e-6)
    return got


def test_seq_slice_of_nested_sequences_matches_v2():
    starts = np.full((4, 4, 2), 7.0, np.float32)  # junk past each sample's sub-sequences
    starts[0, :2] = [[1, 0], [0, -1]]
    starts[1, :3] = [[0, 1], [-1, 0], [2, 3]]
    starts[3, :1] = [[3, 0]]
    rows = Seq(starts, np.array(sf.SUB_COUNTS, np.int32))
    got = _nested_slice_case(sf.nested_value(), rows, sf.seq_data)
    assert got.data.shape[1:3] == (8, 8)  # S*K sub-sequences of T steps


def test_seq_slice_index_rows_go_to_sub_sequences_in_batch_order():
    """v2 reads the index rows one after another across the batch, whatever sample
    holds them: 6 rows held 3 + 3 slice the 2 + 3 + 0 + 1 sub-sequences."""
    starts = np.full((4, 3, 2), 7.0, np.float32)
    starts[0] = [[1, 0], [0, -1], [0, 1]]
    starts[1] = [[-1, 0], [2, 3], [3, 0]]
    _nested_slice_case(
        sf.nested_value(), Seq(starts, np.array([3, 3, 0, 0], np.int32)), sf.seq_data
    )
    one_each = sf.nested_value(counts=[1, 1, 1, 1])  # a row per sample = per sub-sequence
    rows = np.array([[0, 2], [0, -1], [1, 0], [2, 3]], np.float32)
    _nested_slice_case(one_each, rows, sf.dense_data)


def test_seq_slice_past_the_end_of_a_sequence_gives_zeros_not_its_padding():
    """v2 read the rows of the next sequences of the batch there (or past the batch's
    end); here the steps outside the (sub-)sequence are zero, as for sub_seq, and carry
    no gradient to the input's padding."""
    x = sf.seq_value(PLAIN)  # padding holds huge values and NaN
    starts, ends = np.array([[1], [0], [0], [4]], np.float32), np.array([[6], [2], [1], [7]])
    out = L.seq_slice(input=sf.seq_data("x"), starts=sf.dense_data("s", 1),
                      ends=sf.dense_data("e", 1))  # fmt: skip
    feeds = {"x": x, "s": starts, "e": ends.astype(np.float32)}
    value, grad, _, _ = grad_wrt(out, feeds, "x")
    np.testing.assert_array_equal(value.lengths, [6, 3, 2, 4])
    for b, n in enumerate(PLAIN):
        lo = int(starts[b, 0])
        inside = sf.valid_steps(x, b)[lo:]
        got = sf.out_steps(value, b)
        np.testing.assert_allclose(got[: len(inside)], inside, rtol=1e-6)
        np.testing.assert_array_equal(got[len(inside) :], 0.0)
        np.testing.assert_array_equal(grad[b, n:], 0.0)


# sub_seq -----------------------------------------------------------------------------
def test_sub_seq_matches_v2_with_bias_and_activation():
    x = sf.seq_value(PLAIN)
    offsets, sizes = np.array([1, 0, 0, 2], np.int32), np.array([2, 1, 0, 4], np.int32)
    off_seq = Seq(np.stack([offsets, offsets + 50], 1), np.ones(4, np.int32))  # one id each
    feeds = {"x": x, "o": off_seq, "n": sizes}
    o = L.data(name="o", type=DT.integer_value_sequence(10))
    n = L.data(name="n", type=DT.integer_value(10))
    bias = paddle.attr.Param(initial_std=1.0)
    out = L.sub_seq(input=sf.seq_data("x"), offsets=o, sizes=n, act=paddle.activation.Tanh(),
                    bias_attr=bias)  # fmt: skip
    assert out.name == "__sub_seq_0__" and [p.name for p in out.params] == ["___sub_seq_0__.wbias"]
    value, grad, w, params = grad_wrt(out, feeds, "x")
    flat, info = ref.flat_rows(x)
    selected = ref.sub_seq(info, offsets, sizes)
    np.testing.assert_array_equal(value.lengths, sizes)
    want = np.tanh(flat[selected] + np.asarray(params["___sub_seq_0__.wbias"], np.float64)[0])
    assert_slices(value, want, list(range(len(selected))), [n for n in sizes if n])
    positions, _ = ref.flat_positions(value)
    out_grad = np.array([w[p] for p in positions]) * (1.0 - want**2)
    want_grad = ref.to_padded_grad(ref.add_to_rows(out_grad, selected, len(flat)), x)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-5, atol=1e-6)


def test_sub_seq_bias_needs_a_param_attr_and_takes_dense_numbers():
    x, one = sf.seq_data("x"), sf.dense_data("one", 1)
    assert L.sub_seq(input=x, offsets=one, sizes=one, bias_attr=True).params == ()
    got, _ = sf.run(
        L.sub_seq(input=x, offsets=one, sizes=one),
        {"x": sf.seq_value(PLAIN), "one": np.array([[1], [0], [0], [1]], np.float32)},
    )
    np.testing.assert_array_equal(got.lengths, [1, 0, 0, 1])


# errors ------------------------------------------------------------------------------
def test_selection_layers_refuse_bad_inputs():
    x, n, v = sf.seq_data("x"), sf.nested_data("n"), sf.dense_data("v", 2)
    with pytest.raises(LayerConfigError, match="input is a non-sequence"):
        L.kmax_seq_score(input=sf.dense_data("d", 1))
    with pytest.raises(LayerConfigError, match="input has size 3; expected 1"):
        L.kmax_seq_score(input=x)
    with pytest.raises(LayerConfigError, match="input is a sequence .*expected a nested"):
        L.sub_nested_seq(input=x, selected_indices=v)
    with pytest.raises(LayerConfigError, match="selected_indices is a nested sequence"):
        L.sub_nested_seq(input=n, selected_indices=n)
    with pytest.raises(LayerConfigError, match="both None"):
        L.seq_slice(input=x, starts=None, ends=None)
    with pytest.raises(LayerConfigError, match="same width; received 2 and 3"):
        L.seq_slice(input=x, starts=v, ends=sf.dense_data("e", 3))
    with pytest.raises(LayerConfigError, match="starts is a nested sequence"):
        L.seq_slice(input=n, starts=n, ends=None)
    with pytest.raises(LayerConfigError, match="'__sub_seq_0__'.*input is a non-sequence"):
        L.sub_seq(input=v, offsets=v, sizes=v)
    with pytest.raises(LayerConfigError, match="offsets is a dense input of size 2"):
        L.sub_seq(input=x, offsets=v, sizes=v)
    with pytest.raises(LayerTypeError, match="beam_size must be an int"):
        L.kmax_seq_score(input=sf.seq_data("s", 1), beam_size=2.5)  # 2.0 passes
    with pytest.raises(LayerTypeError, match="selected_indices must be a layer"):
        L.sub_nested_seq(input=n, selected_indices=[1, 2])
