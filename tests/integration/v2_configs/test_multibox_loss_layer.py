"""v2 config test_multibox_loss_layer: SSD multibox loss."""

import paddle_lite as paddle

L = paddle.layer
dense = paddle.data_type.dense_vector


def network():
    input_loc = L.data(name="input_loc", type=dense(16), height=16, width=1)
    input_conf = L.data(name="input_conf", type=dense(8), height=1, width=8)
    priorbox = L.data(name="priorbox", type=dense(32), height=4, width=8)
    label = L.data(name="label", type=paddle.data_type.dense_vector_sequence(24), height=4, width=6)
    multibox_loss = L.multibox_loss(
        input_loc=input_loc,
        input_conf=input_conf,
        priorbox=priorbox,
        label=label,
        num_classes=21,
        overlap_threshold=0.5,
        neg_pos_ratio=3.0,
        neg_overlap=0.5,
        background_id=0,
        name="test_multibox_loss",
    )
    return [multibox_loss], []
