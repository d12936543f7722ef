"""v2 config simple_rnn_layers: recurrent, lstmemory and grumemory, each both ways."""

import paddle_lite as paddle

L = paddle.layer
A = paddle.activation


def _proj(hidden, size):
    return L.fc(input=hidden, size=size, act=A.Linear(), bias_attr=False)


def network():
    din = L.data(name="data", type=paddle.data_type.dense_vector_sequence(200))
    hidden = L.fc(input=din, size=200, act=A.Sigmoid())
    rnn = L.recurrent(input=hidden, act=A.Sigmoid())
    rnn2 = L.recurrent(input=hidden, act=A.Sigmoid(), reverse=True)
    lstm1 = L.lstmemory(input=_proj(hidden, 200 * 4), act=A.Sigmoid())
    lstm2 = L.lstmemory(input=_proj(hidden, 200 * 4), act=A.Sigmoid(), reverse=True)
    gru1 = L.grumemory(input=_proj(hidden, 200 * 3), act=A.Sigmoid())
    gru2 = L.grumemory(input=_proj(hidden, 200 * 3), act=A.Sigmoid(), reverse=True)
    outputs = [
        L.last_seq(input=rnn),
        L.first_seq(input=rnn2),
        L.last_seq(input=lstm1),
        L.first_seq(input=lstm2),
        L.last_seq(input=gru1),
        L.first_seq(gru2),
    ]
    return outputs, []
