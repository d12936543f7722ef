"""v2 config test_rnn_group: recurrent_group over sequences and sub-sequences, lstm/gru groups."""

import paddle_lite as paddle

L = paddle.layer
DT = paddle.data_type


def generate_rnn_simple(name):
    def rnn_simple(s):
        m = L.memory(name=name, size=200)
        return L.fc(input=[s, m], size=200, name=name)

    return rnn_simple


def generate_rnn_simple_no_name():
    def rnn_simple(s):
        m = L.memory(name=None, size=200)
        fc = L.fc(input=[s, m], size=200)
        m.set_input(fc)
        return fc

    return rnn_simple


def network():
    seq = L.data(name="seq_input", type=DT.dense_vector_sequence(100))
    sub_seq = L.data(name="sub_seq_input", type=DT.dense_vector_sub_sequence(100))
    lbl = L.data(name="label", type=DT.integer_value(1))
    lstm_param = L.mixed(input=[L.full_matrix_projection(input=seq, size=100 * 4)])
    gru_param = L.mixed(input=[L.full_matrix_projection(input=seq, size=100 * 3)])
    outputs = [
        L.last_seq(input=L.recurrent_group(step=generate_rnn_simple("rnn_forward"), input=seq)),
        L.first_seq(
            input=L.recurrent_group(step=generate_rnn_simple("rnn_back"), input=seq, reverse=True)
        ),
        L.last_seq(
            input=L.recurrent_group(
                step=generate_rnn_simple("rnn_subseq_forward"),
                input=L.SubsequenceInput(input=sub_seq),
            )
        ),
        L.last_seq(input=paddle.networks.lstmemory_group(input=lstm_param, size=100)),
        L.last_seq(input=paddle.networks.gru_group(input=gru_param, size=100)),
        L.last_seq(input=L.recurrent_group(step=generate_rnn_simple_no_name(), input=seq)),
    ]
    return outputs, [lbl]
