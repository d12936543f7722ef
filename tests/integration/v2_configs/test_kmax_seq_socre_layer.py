"""v2 config test_kmax_seq_socre_layer (sic): the ids of the k best-scored steps."""

import paddle_lite as paddle

L = paddle.layer


def network():
    data = L.data(name="input_seq", type=paddle.data_type.dense_vector_sequence(128))
    scores = L.fc(input=data, size=1, act=paddle.activation.Exp())
    return [L.kmax_seq_score(input=scores, beam_size=5)], []
