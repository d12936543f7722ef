"""v2 config test_detection_output_layer: SSD detection output."""

import paddle_lite as paddle

L = paddle.layer
dense = paddle.data_type.dense_vector


def network():
    input_loc = L.data(name="input_loc", type=dense(16), height=16, width=1)
    input_conf = L.data(name="input_conf", type=dense(8), height=1, width=8)
    priorbox = L.data(name="priorbox", type=dense(32), height=4, width=8)
    detout = L.detection_output(
        input_loc=input_loc,
        input_conf=input_conf,
        priorbox=priorbox,
        num_classes=21,
        nms_threshold=0.45,
        nms_top_k=400,
        keep_top_k=200,
        confidence_threshold=0.01,
        background_id=0,
        name="test_detection_output",
    )
    return [detout], []
