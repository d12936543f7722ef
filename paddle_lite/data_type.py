"""Input types of data layers (v2 ``paddle.data_type``)."""

from paddle_lite._src.compat.aliases import module_getattr
from paddle_lite._src.data_types import (
    DataType,
    InputType,
    SequenceType,
    dense_array,
    dense_vector,
    dense_vector_sequence,
    dense_vector_sub_sequence,
    integer_sequence,
    integer_value,
    integer_value_sequence,
    integer_value_sub_sequence,
    sparse_binary_vector,
    sparse_binary_vector_sequence,
    sparse_binary_vector_sub_sequence,
    sparse_float_vector,
    sparse_float_vector_sequence,
    sparse_float_vector_sub_sequence,
    sparse_non_value_slot,
    sparse_value_slot,
)

__all__ = [
    "DataType",
    "InputType",
    "SequenceType",
    "dense_array",
    "dense_vector",
    "dense_vector_sequence",
    "dense_vector_sub_sequence",
    "integer_sequence",
    "integer_value",
    "integer_value_sequence",
    "integer_value_sub_sequence",
    "sparse_binary_vector",
    "sparse_binary_vector_sequence",
    "sparse_binary_vector_sub_sequence",
    "sparse_float_vector",
    "sparse_float_vector_sequence",
    "sparse_float_vector_sub_sequence",
    "sparse_non_value_slot",
    "sparse_value_slot",
]

# the names of earlier v2 versions, with a DeprecationWarning (see _src/compat/early_names.py)
__getattr__ = module_getattr("data_type")
