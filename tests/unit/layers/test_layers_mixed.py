"""The mixed layer, its projections and operators, against numpy float64."""

import json

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.initializers import initialize
from paddle_lite._src.layers import mixed as M
from paddle_lite._src.layers import projections as PR
from paddle_lite._src.layers.fc import fc
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq, Sparse
from paddle_lite.errors import LayerConfigError, LayerConfigWarning, LayerTypeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _fresh_names():
    with paddle.layer.name_scope():
        yield


def _dense(name, dim):
    return L.data(name=name, type=DT.dense_vector(dim))


def _feed(*shape):
    return RNG.normal(size=shape).astype(np.float32)


def _run(out, feeds, mode="test"):
    params = {s.name: initialize(s, 3) for s in Topology(out).param_specs()}
    (value,), _ = forward([out], params, feeds, mode=mode)
    return value, {k: v.astype(np.float64) for k, v in params.items()}


def test_full_matrix_projection_is_x_times_w():
    x = _dense("x", 4)
    m = M.mixed(size=3, input=[PR.full_matrix_projection(input=x)])
    fx = _feed(5, 4)
    got, p = _run(m, {"x": fx})
    assert m.name == "__mixed_0__" and isinstance(m.activation, A.Linear)
    assert [(s.name, s.shape) for s in m.params] == [("___mixed_0__.w0", (4, 3))]
    assert m.params[0].init.std == pytest.approx(0.5)
    np.testing.assert_allclose(got, fx.astype(np.float64) @ p["___mixed_0__.w0"], rtol=1e-5)


def test_trans_full_matrix_projection_uses_w_transposed():
    x = _dense("x", 4)
    m = M.mixed(input=PR.trans_full_matrix_projection(input=x, size=2))
    fx = _feed(3, 4)
    got, p = _run(m, {"x": fx})
    assert m.size == 2 and m.params[0].shape == (2, 4)
    np.testing.assert_allclose(got, fx.astype(np.float64) @ p["___mixed_0__.w0"].T, rtol=1e-5)


def test_table_projection_looks_up_rows_of_plain_and_sequence_ids():
    ids = L.data(name="ids", type=DT.integer_value(6))
    m = M.mixed(size=3, input=[PR.table_projection(input=ids)])
    got, p = _run(m, {"ids": np.array([5, 0, 2], np.int32)})
    assert m.params[0].shape == (6, 3)
    np.testing.assert_allclose(got, p["___mixed_0__.w0"][[5, 0, 2]], rtol=1e-6)
    words = L.data(name="w", type=DT.integer_value_sequence(6))
    s = M.mixed(size=2, input=[PR.table_projection(input=words)])
    seq = np.array([[1, 4, 0], [3, 0, 0]], np.int32)
    got, p = _run(s, {"w": Seq(seq, np.array([3, 1], np.int32))})
    assert isinstance(got, Seq) and s.spec.seq_level == 1
    np.testing.assert_allclose(got.data, p["___mixed_1__.w0"][seq], rtol=1e-6)
    np.testing.assert_array_equal(got.lengths, [3, 1])


def test_identity_projection_copies_and_slices():
    x = _dense("x", 5)
    whole = M.mixed(input=[PR.identity_projection(input=x)])
    tail = M.mixed(input=[PR.identity_projection(input=x, offset=2)])
    part = M.mixed(input=[PR.identity_projection(input=x, offset=1, size=2)])
    fx = _feed(3, 5)
    assert (whole.size, tail.size, part.size) == (5, 3, 2)
    assert whole.params == () and part.params == ()
    np.testing.assert_array_equal(_run(whole, {"x": fx})[0], fx)
    np.testing.assert_array_equal(_run(tail, {"x": fx})[0], fx[:, 2:])
    np.testing.assert_array_equal(_run(part, {"x": fx})[0], fx[:, 1:3])


def test_identity_offset_takes_the_layer_size_as_v2s_add_at_offset():
    """v2's IdentityOffsetProjection adds in[offset : offset + layer size] (its own size=
    is ignored when the layer has one; CHECK_LE(output_size + offset, input_size))."""
    x = _dense("x", 8)
    sized = M.mixed(size=3, input=[PR.identity_projection(input=x, offset=2)])
    overridden = M.mixed(size=3, input=[PR.identity_projection(input=x, offset=4, size=2)])
    beside_fc = M.mixed(
        input=[
            PR.full_matrix_projection(input=x, size=3),
            PR.identity_projection(input=x, offset=1),
        ]
    )
    fx = _feed(4, 8)
    assert (sized.size, overridden.size, beside_fc.size) == (3, 3, 3)
    np.testing.assert_array_equal(_run(sized, {"x": fx})[0], fx[:, 2:5])
    np.testing.assert_array_equal(_run(overridden, {"x": fx})[0], fx[:, 4:7])
    got, p = _run(beside_fc, {"x": fx})
    want = fx.astype(np.float64) @ p["___mixed_2__.w0"] + fx[:, 1:4]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(LayerConfigError, match=r"identity_offset.*\[6, 9\).*size 8"):
        M.mixed(size=3, input=[PR.identity_projection(input=x, offset=6)])


def test_dotmul_and_scaling_projections():
    x = _dense("x", 4)
    m = M.mixed(input=[PR.dotmul_projection(input=x), PR.scaling_projection(input=x)])
    fx = _feed(3, 4)
    got, p = _run(m, {"x": fx})
    assert [(s.role, s.shape) for s in m.params] == [("w0", (1, 4)), ("w1", (1, 1))]
    x64 = fx.astype(np.float64)
    want = x64 * p["___mixed_0__.w0"][0] + p["___mixed_0__.w1"][0, 0] * x64
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_dotmul_operator_scales_elementwise_product_and_infers_size():
    a, b = _dense("a", 3), _dense("b", 3)
    m = M.mixed(input=[PR.dotmul_operator(a=a, b=b, scale=0.5)])
    fa, fb = _feed(4, 3), _feed(4, 3)
    got, _ = _run(m, {"a": fa, "b": fb})
    assert m.size == 3 and m.params == () and m.inputs == (a, b)
    np.testing.assert_allclose(got, 0.5 * fa.astype(np.float64) * fb, rtol=1e-6)
    with pytest.warns(DeprecationWarning, match="deprecated"):
        op = PR.dotmul_operator(x=a, y=b)
    assert op.inputs == (a, b) and op.origin == [a, b]


def test_with_form_equals_input_form_and_roles_follow_projection_index():
    x, y = _dense("x", 4), _dense("y", 3)
    with M.mixed(size=3, act=A.Tanh(), bias_attr=True) as m:
        m += PR.full_matrix_projection(input=x)
        m += PR.identity_projection(input=y)
        m += PR.dotmul_projection(input=y)
    assert [s.name for s in m.params] == [
        "___mixed_0__.w0",
        "___mixed_0__.w2",
        "___mixed_0__.wbias",
    ]
    same = M.mixed(
        size=3,
        act=A.Tanh(),
        bias_attr=True,
        input=[
            PR.full_matrix_projection(input=x),
            PR.identity_projection(input=y),
            PR.dotmul_projection(input=y),
        ],
    )
    assert [(s.role, s.shape) for s in same.params] == [(s.role, s.shape) for s in m.params]
    assert same.attrs["projections"] == m.attrs["projections"]
    fx, fy = _feed(2, 4), _feed(2, 3)
    got, p = _run(m, {"x": fx, "y": fy})
    y64 = fy.astype(np.float64)
    pre = fx @ p["___mixed_0__.w0"] + y64 + y64 * p["___mixed_0__.w2"][0]
    np.testing.assert_allclose(got, np.tanh(pre + p["___mixed_0__.wbias"]), rtol=1e-5)
    assert np.all(p["___mixed_0__.wbias"] == 0)


def test_sealed_layer_is_a_normal_input_and_refuses_more_projections():
    x = _dense("x", 2)
    with M.mixed(size=2) as m:
        m += PR.identity_projection(input=x)
        with pytest.raises(LayerConfigError, match="still open"):
            fc(input=m, size=2)
        with pytest.raises(LayerConfigError, match="before its `with` block ended"):
            forward([m], {}, {"x": _feed(1, 2)})
    assert issubclass(M.AddToSealedMixedLayerException, LayerConfigError)
    with pytest.raises(M.AddToSealedMixedLayerException, match="__mixed_0__.*sealed"):
        m += PR.identity_projection(input=x)
    built = M.mixed(input=[PR.identity_projection(input=x)])
    with pytest.raises(M.AddToSealedMixedLayerException):
        built += PR.identity_projection(input=x)
    out = fc(input=m, size=1, act=A.Linear(), bias_attr=False)
    fx = _feed(3, 2)
    got, p = _run(out, {"x": fx})
    np.testing.assert_allclose(got, fx.astype(np.float64) @ p[out.params[0].name], rtol=1e-5)


def test_size_inference_and_disagreement():
    x, y = _dense("x", 3), _dense("y", 4)
    assert M.mixed(input=[PR.full_matrix_projection(input=x, size=5)]).size == 5
    assert M.mixed(
        input=[PR.full_matrix_projection(input=y), PR.identity_projection(input=x)]
    ).params[0].shape == (4, 3)
    with pytest.raises(
        LayerConfigError,
        match=r"'bad' \(mixed\).*projection 1 \(identity\) "
        r"has output size 4, but the layer size is 3",
    ):
        M.mixed(
            name="bad", input=[PR.identity_projection(input=x), PR.identity_projection(input=y)]
        )
    with pytest.raises(LayerConfigError, match="size is not set"):
        M.mixed(input=[PR.full_matrix_projection(input=x)])
    with pytest.raises(LayerConfigError, match="has output size 3, but the layer size is 2"):
        M.mixed(size=2, input=[PR.dotmul_projection(input=x)])


def test_empty_with_block_and_bad_inputs_are_typed_errors():
    x = _dense("x", 3)
    ids = L.data(name="ids", type=DT.integer_value(4))
    with pytest.raises(LayerConfigError, match="no projection or operator was added"):
        with M.mixed(size=3):
            pass
    with pytest.raises(LayerTypeError, match="projections or operators.*identity_projection"):
        M.mixed(size=3, input=[x])
    # v2 built a table projection over floats and failed when it ran: a warning here
    with pytest.warns(LayerConfigWarning, match=r"'t' \(mixed\): projection 0 \(table\) needs int"):
        M.mixed(size=3, name="t", input=[PR.table_projection(input=x)])
    with pytest.raises(LayerConfigError, match="full_matrix.*received integer ids"):
        M.mixed(size=3, input=[PR.full_matrix_projection(input=ids)])
    with pytest.raises(LayerConfigError, match=r"identity_projection\(\): the slice \[2, 5\)"):
        PR.identity_projection(input=x, offset=2, size=3)
    with pytest.raises(LayerConfigError, match="same size; received 3"):
        PR.dotmul_operator(a=x, b=_dense("z", 2))
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'sise'"):
        PR.full_matrix_projection(input=x, sise=2)
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'c'"):
        PR.dotmul_operator(a=x, b=x, c=1)
    with pytest.raises(LayerConfigError, match="size must be >= 0.*received -1"):
        M.mixed(size=-1)
    with pytest.raises(LayerTypeError, match="size must be an int.*received '3'"):
        PR.full_matrix_projection(input=x, size="3")
    with pytest.raises(LayerTypeError, match="input must be a layer"):
        PR.identity_projection(input="x")


def test_named_param_attr_shares_one_parameter_across_mixed_layers():
    x = _dense("x", 4)
    shared = paddle.attr.Param(name="shared_w")
    m1 = M.mixed(size=2, input=[PR.full_matrix_projection(input=x, param_attr=shared)])
    m2 = M.mixed(size=2, input=[PR.full_matrix_projection(input=x, param_attr=shared)])
    topo = Topology([m1, m2])
    assert list(topo.params) == ["shared_w"] and topo.params["shared_w"].shape == (4, 2)
    params = {s.name: initialize(s, 0) for s in topo.param_specs()}
    fx = _feed(3, 4)
    (v1, v2), _ = forward([m1, m2], params, {"x": fx})
    np.testing.assert_array_equal(v1, v2)


def test_sparse_input_to_full_matrix_matches_dense():
    s = L.data(name="s", type=DT.sparse_float_vector(5))
    m = M.mixed(size=2, input=[PR.full_matrix_projection(input=s)])
    ids = np.array([[0, 3, 0], [4, 1, 0]], np.int32)
    vals = np.array([[2.0, -1.0, 0.0], [0.5, 1.5, 0.0]], np.float32)
    got, p = _run(m, {"s": Sparse(ids, vals)})
    dense = np.zeros((2, 5))
    dense[0, [0, 3]] = [2.0, -1.0]
    dense[1, [4, 1]] = [0.5, 1.5]
    np.testing.assert_allclose(got, dense @ p["___mixed_0__.w0"], rtol=1e-5)


def test_sequence_inputs_keep_lengths_and_bias_broadcasts():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    m = M.mixed(
        size=2,
        bias_attr=paddle.attr.Param(initial_mean=0.5, initial_std=0.0),
        input=[PR.full_matrix_projection(input=x)],
    )
    data = _feed(2, 4, 3)
    got, p = _run(m, {"x": Seq(data, np.array([4, 2], np.int32))})
    assert isinstance(got, Seq) and got.data.shape == (2, 4, 2)
    np.testing.assert_allclose(got.data, data @ p["___mixed_0__.w0"] + 0.5, rtol=1e-5)


def test_drop_rate_scales_in_test_mode_and_unsupported_extra_is_refused():
    x = _dense("x", 3)
    m = M.mixed(
        input=[PR.identity_projection(input=x)],
        layer_attr=paddle.attr.Extra(drop_rate=0.25, error_clipping_threshold=10.0),
    )
    fx = _feed(2, 3)
    np.testing.assert_allclose(_run(m, {"x": fx})[0], 0.75 * fx.astype(np.float64), rtol=1e-6)
    with pytest.raises(LayerTypeError, match="layer_attr must be a paddle.attr.Extra"):
        M.mixed(input=[PR.identity_projection(input=x)], layer_attr=0.5)


def test_json_round_trip_keeps_projections_and_values():
    x, ids = _dense("x", 3), L.data(name="ids", type=DT.integer_value(4))
    with M.mixed(size=3, bias_attr=True) as m:
        m += PR.table_projection(input=ids)
        m += PR.identity_projection(input=x, offset=0, size=3)
        m += PR.dotmul_operator(a=x, b=x, scale=2.0)
    text = Topology(m).serialize()
    assert json.loads(text)
    again = Topology.deserialize(text).outputs[0]
    assert again.attrs["projections"] == m.attrs["projections"]
    feeds = {"x": _feed(2, 3), "ids": np.array([3, 1], np.int32)}
    params = {s.name: initialize(s, 5) for s in Topology(m).param_specs()}
    (want,), _ = forward([m], params, feeds)
    (got,), _ = forward([again], params, feeds)
    np.testing.assert_array_equal(got, want)
    x64 = feeds["x"].astype(np.float64)
    ref = params["___mixed_0__.w0"][[3, 1]] + x64 + 2.0 * x64 * x64
    np.testing.assert_allclose(want, ref, rtol=1e-5)


def test_concat_of_projections_places_outputs_side_by_side():
    x = L.data(name="x", type=DT.dense_vector(3))
    ids = L.data(name="ids", type=DT.integer_value(6))
    c = L.concat(
        input=[
            L.full_matrix_projection(input=x, size=4),
            L.table_projection(input=ids, size=2),
            L.identity_projection(input=x),
        ],
        bias_attr=True,
        act=A.Tanh(),
    )
    assert c.name == "__concat_0__" and c.size == 9
    assert [(p.name, p.shape) for p in c.params] == [
        ("___concat_0__.w0", (3, 4)),
        ("___concat_0__.w1", (6, 2)),
        ("___concat_0__.wbias", (1, 9)),
    ]
    fx = RNG.normal(size=(2, 3)).astype(np.float32)
    fi = np.array([5, 1], np.int32)
    params = {s.name: initialize(s, 3) for s in Topology(c).param_specs()}
    params["___concat_0__.wbias"] = RNG.normal(size=(1, 9)).astype(np.float32)
    (got,), _ = forward([c], params, {"x": fx, "ids": fi})
    want = np.concatenate([fx @ params["___concat_0__.w0"], params["___concat_0__.w1"][fi], fx], 1)
    np.testing.assert_allclose(got, np.tanh(want + params["___concat_0__.wbias"]), rtol=1e-5)
    with pytest.raises(LayerConfigError, match="have no size"):
        L.concat(input=[L.full_matrix_projection(input=x)])
