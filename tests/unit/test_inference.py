"""paddle.infer and Inference: fields, several outputs, pruning, serialized topologies."""

import io

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import DataError, DataWarning, TopologyError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation
RNG = np.random.default_rng(1)


def _classifier():
    x = L.data(name="x", type=DT.dense_vector(4))
    hidden = L.fc(input=x, size=6, act=A.Relu())
    prob = L.fc(input=hidden, size=3, act=A.Softmax())
    return x, hidden, prob


def _np_forward(params, xs):
    h = np.maximum(xs @ params.get("___fc_layer_0__.w0") + params.get("___fc_layer_0__.wbias"), 0)
    z = h @ params.get("___fc_layer_1__.w0") + params.get("___fc_layer_1__.wbias")
    e = np.exp(z - z.max(1, keepdims=True))
    return h, e / e.sum(1, keepdims=True)


def test_value_of_output_and_intermediate_layers():
    _, hidden, prob = _classifier()
    params = paddle.parameters.create(prob)
    xs = RNG.normal(size=(5, 4)).astype(np.float32)
    h, p = _np_forward(params, xs)
    np.testing.assert_allclose(
        paddle.infer(output_layer=prob, parameters=params, input=[(x,) for x in xs]), p, rtol=1e-5
    )
    np.testing.assert_allclose(
        paddle.infer(output_layer=hidden, parameters=params, input=[(x,) for x in xs]),
        h,
        rtol=1e-5,
        atol=1e-6,
    )


def test_several_outputs_concatenate_per_field_and_max_id_fields():
    _, hidden, prob = _classifier()
    ids = L.max_id(input=prob)
    params = paddle.parameters.create(prob)
    xs = RNG.normal(size=(3, 4)).astype(np.float32)
    _, p = _np_forward(params, xs)
    both = paddle.infer(output_layer=[prob, prob], parameters=params, input=[(x,) for x in xs])
    np.testing.assert_allclose(both, np.concatenate([p, p]), rtol=1e-5)
    got_ids, got_prob = paddle.infer(
        output_layer=ids, parameters=params, input=[(x,) for x in xs], field=["id", "prob"]
    )
    np.testing.assert_array_equal(np.asarray(got_ids).ravel(), p.argmax(1))
    np.testing.assert_allclose(got_prob, p.max(1, keepdims=True), rtol=1e-5)  # v2: [batch, 1]
    with pytest.raises(TopologyError, match="has no 'value' output"):
        paddle.infer(output_layer=ids, parameters=params, input=[(xs[0],)])
    with pytest.raises(DataError, match="infer field must be one of"):
        paddle.infer(output_layer=prob, parameters=params, input=[(xs[0],)], field="values")


def test_a_field_a_layer_lacks_is_none_unflattened_and_an_error_flattened():
    # v2's Arguments gave None for the 'id' of a dense layer: Inference.infer(...,
    # flatten_result=False) returned it; flattening (numpy.concatenate) failed.
    _, hidden, prob = _classifier()
    ids = L.max_id(input=prob)
    params = paddle.parameters.create(prob)
    xs = RNG.normal(size=(2, 4)).astype(np.float32)
    _, p = _np_forward(params, xs)
    inferer = paddle.inference.Inference(output_layer=[prob, ids], parameters=params)
    with pytest.warns(DataWarning) as caught:
        values, id_fields = inferer.infer(
            input=[(x,) for x in xs], field=["value", "id"], flatten_result=False
        )
    assert [str(w.message) for w in caught] == [
        "infer(): layer '__maxid_layer_0__' (maxid) has no 'value' output; its entry is None.",
        "infer(): layer '__fc_layer_1__' (fc) has no 'id' output; its entry is None.",
    ]
    np.testing.assert_allclose(values[0], p, rtol=1e-5)
    assert values[1] is None  # max_id has no value
    assert id_fields[0] is None
    np.testing.assert_array_equal(np.asarray(id_fields[1]).ravel(), p.argmax(1))
    fields = list(inferer.iter_infer_field(field="id", input=[(x,) for x in xs]))
    assert fields[0] == [None] and len(fields) == 2
    with pytest.raises(TopologyError, match="'__fc_layer_1__' \\(fc\\) has no 'id' output"):
        inferer.infer(input=[(x,) for x in xs], field="id")


def test_outputs_of_different_widths_come_apart_or_name_themselves():
    _, hidden, prob = _classifier()
    params = paddle.parameters.create(prob)
    xs = RNG.normal(size=(3, 4)).astype(np.float32)
    h, p = _np_forward(params, xs)
    inferer = paddle.inference.Inference(output_layer=[prob, hidden], parameters=params)
    got_p, got_h = inferer.infer(input=[(x,) for x in xs], flatten_result=False)
    np.testing.assert_allclose(got_p, p, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_h, h, rtol=1e-5, atol=1e-6)  # ReLU outputs near 0
    with pytest.raises(TopologyError, match=r"\(3, 3\), \(3, 6\).*flatten_result=False"):
        paddle.infer(output_layer=[prob, hidden], parameters=params, input=[(x,) for x in xs])


def test_infer_sees_values_loaded_by_init_from_tar():
    _, _, prob = _classifier()
    params = paddle.parameters.create(prob)
    other = paddle.parameters.create(prob, seed=5)
    xs = RNG.normal(size=(3, 4)).astype(np.float32)
    paddle.infer(output_layer=prob, parameters=params, input=[(x,) for x in xs])  # cached
    buf = io.BytesIO()
    other.to_tar(buf)
    params.init_from_tar(io.BytesIO(buf.getvalue()))
    got = paddle.infer(output_layer=prob, parameters=params, input=[(x,) for x in xs])
    np.testing.assert_allclose(got, _np_forward(other, xs)[1], rtol=1e-5)


def test_empty_input_gives_empty_list():
    _, _, prob = _classifier()
    assert (
        paddle.infer(output_layer=prob, parameters=paddle.parameters.create(prob), input=[]) == []
    )


def test_only_needed_inputs_are_fed():
    a = L.data(name="A", type=DT.integer_value(20))
    b = L.data(name="B", type=DT.integer_value(20))
    fa = L.fc(
        input=L.embedding(input=a, size=4, parameter_name="emb"), size=2, parameter_name="sem"
    )
    fb = L.fc(
        input=L.embedding(input=b, size=4, parameter_name="emb"), size=2, parameter_name="sem"
    )
    cost = L.square_error_cost(input=fa, label=fb)
    params = paddle.parameters.create(cost)
    out = paddle.infer(output_layer=fa, parameters=params, input=[(3,), (7,)])
    want = np.tanh(params.get("emb")[[3, 7]] @ params.get("sem") + params.get("sem.wbias"))
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_inference_from_serialized_topology_and_errors():
    _, _, prob = _classifier()
    params = paddle.parameters.create(prob)
    buf = io.BytesIO()
    paddle.topology.Topology(prob).serialize_for_inference(buf)
    buf.seek(0)
    inferer = paddle.inference.Inference(parameters=params, fileobj=buf)
    xs = RNG.normal(size=(2, 4)).astype(np.float32)
    np.testing.assert_allclose(
        inferer.infer(input=[(x,) for x in xs]), _np_forward(params, xs)[1], rtol=1e-5
    )
    with pytest.raises(ValueError, match="needs output_layer or fileobj"):
        paddle.inference.Inference(parameters=params)
