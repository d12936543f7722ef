"""v2 config test_sub_nested_seq_select_layer: select sub-sequences of a nested sequence."""

import paddle_lite as paddle

L = paddle.layer
BEAM_SIZE = 5


def network():
    data = L.data(name="input_seq", type=paddle.data_type.dense_vector_sub_sequence(300))
    selected_ids = L.data(name="input", type=paddle.data_type.dense_vector(BEAM_SIZE))
    return [L.sub_nested_seq(input=data, selected_indices=selected_ids)], []
