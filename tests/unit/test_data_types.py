"""Data types: v2 constructors, repr, enums and validation."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite.errors import LayerConfigError, LayerTypeError

dt = paddle.data_type
SEQ = dt.SequenceType
TYPE = dt.DataType


@pytest.mark.parametrize(
    "ctor, seq, tp",
    [
        (dt.dense_vector, SEQ.NO_SEQUENCE, TYPE.Dense),
        (dt.dense_array, SEQ.NO_SEQUENCE, TYPE.Dense),
        (dt.sparse_binary_vector, SEQ.NO_SEQUENCE, TYPE.SparseNonValue),
        (dt.sparse_float_vector, SEQ.NO_SEQUENCE, TYPE.SparseValue),
        (dt.integer_value, SEQ.NO_SEQUENCE, TYPE.Index),
        (dt.dense_vector_sequence, SEQ.SEQUENCE, TYPE.Dense),
        (dt.dense_vector_sub_sequence, SEQ.SUB_SEQUENCE, TYPE.Dense),
        (dt.sparse_binary_vector_sequence, SEQ.SEQUENCE, TYPE.SparseNonValue),
        (dt.sparse_binary_vector_sub_sequence, SEQ.SUB_SEQUENCE, TYPE.SparseNonValue),
        (dt.sparse_float_vector_sequence, SEQ.SEQUENCE, TYPE.SparseValue),
        (dt.sparse_float_vector_sub_sequence, SEQ.SUB_SEQUENCE, TYPE.SparseValue),
        (dt.integer_value_sequence, SEQ.SEQUENCE, TYPE.Index),
        (dt.integer_value_sub_sequence, SEQ.SUB_SEQUENCE, TYPE.Index),
        (dt.integer_sequence, SEQ.SEQUENCE, TYPE.Index),
    ],
)
def test_constructors(ctor, seq, tp):
    t = ctor(7)
    assert (t.dim, t.seq_type, t.type) == (7, seq, tp)
    assert dt.InputType.from_json(t.to_json()) == t


def test_enum_values_and_repr():
    assert (SEQ.NO_SEQUENCE, SEQ.SEQUENCE, SEQ.SUB_SEQUENCE) == (0, 1, 2)
    assert (TYPE.Dense, TYPE.SparseNonValue, TYPE.SparseValue, TYPE.Index) == (0, 1, 2, 3)
    assert repr(dt.dense_vector(784)) == "dense_vector(784)"
    assert str(dt.integer_value_sequence(10)) == "integer_value_sequence(10)"
    assert repr(dt.sparse_float_vector_sub_sequence(5)) == "sparse_float_vector_sub_sequence(5)"
    assert repr(dt.sparse_binary_vector(3)) == "sparse_binary_vector(3)"


def test_seq_type_argument():
    assert dt.dense_vector(3, seq_type=SEQ.SEQUENCE).seq_type == SEQ.SEQUENCE


def test_bad_dims():
    with pytest.raises(LayerConfigError, match="positive"):
        dt.dense_vector(0)
    with pytest.raises(LayerTypeError, match="int"):
        dt.integer_value(2.5)


def test_a_sparse_vector_input_feeds_an_fc_as_its_values_say():
    with pytest.warns(DeprecationWarning, match="sparse_float_vector"):  # its 2017 name
        x = paddle.layer.data(name="x", type=dt.sparse_vector(5))
    out = paddle.layer.fc(input=x, size=2, act=paddle.activation.Linear(), bias_attr=False)
    params = paddle.parameters.create(out)
    w = params.get("___fc_layer_0__.w0")
    got = paddle.infer(output_layer=out, parameters=params, input=[([(1, 0.5), (4, -2.0)],)])
    np.testing.assert_allclose(got[0], 0.5 * w[1] - 2.0 * w[4], rtol=1e-6)
