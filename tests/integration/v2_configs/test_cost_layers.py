"""v2 config test_cost_layers: every cost layer."""

import paddle_lite as paddle

L = paddle.layer
DT = paddle.data_type


def _data(name, size, seq=False):
    return L.data(name=name, type=(DT.dense_vector_sequence if seq else DT.dense_vector)(size))


def _label(name, size, seq=False):
    kind = DT.integer_value_sequence if seq else DT.integer_value
    return L.data(name=name, type=kind(size))


def network():
    seq_in = _data("input", 200, seq=True)
    labels = _label("labels", 5000, seq=True)
    probs = _data("probs", 10)
    xe_label = _data("xe-label", 10)
    hidden = L.fc(input=seq_in, size=4)
    outputs = [
        L.ctc(input=seq_in, label=labels),
        L.warp_ctc(input=seq_in, label=labels, blank=0),
        L.crf(input=hidden, label=_label("crf_label", 4, seq=True)),
        L.rank_cost(left=_data("left", 1), right=_data("right", 1), label=_data("label", 1)),
        L.lambda_cost(
            input=_data("list_feature", 100, seq=True), score=_data("list_scores", 1, seq=True)
        ),
        L.cross_entropy_cost(input=probs, label=xe_label),
        L.cross_entropy_with_selfnorm_cost(input=probs, label=xe_label),
        L.huber_regression_cost(input=seq_in, label=labels),
        L.huber_classification_cost(input=_data("huber_probs", 1), label=_label("huber_label", 1)),
        L.multi_binary_label_cross_entropy_cost(input=probs, label=xe_label),
        L.sum_cost(input=hidden),
        L.nce(input=hidden, label=labels),
    ]
    return outputs, []
