"""v2 config projections: mixed layers over every projection and operator."""

import paddle_lite as paddle

L = paddle.layer
dense = paddle.data_type.dense_vector


def _convs(img, flt, **kwargs):
    common = dict(filter_size=3, num_filters=64, num_channels=1, **kwargs)
    return [
        L.conv_operator(img=img, filter=flt, **common),
        L.conv_projection(img, **common),
    ]


def network():
    din = L.data(name="test", type=paddle.data_type.integer_value_sequence(100))
    din = L.embedding(input=din, size=256)
    m1 = L.mixed(size=100, input=[L.full_matrix_projection(input=din)])
    m2 = L.mixed(size=100, input=[L.table_projection(input=m1)])
    m3 = L.mixed(size=100, input=[L.identity_projection(input=m2)])
    m4 = L.mixed(size=100, input=[L.dotmul_projection(input=m3)])
    m5 = L.mixed(input=[L.context_projection(input=m4, context_len=3)])
    m6 = L.mixed(input=[L.dotmul_operator(a=m3, b=m4), L.scaling_projection(m3)])
    img = L.data(name="img", type=dense(32 * 32))
    flt = L.data(name="filter", type=dense(3 * 3 * 1 * 64))
    m7 = L.mixed(input=_convs(img, flt))
    m8 = L.mixed(input=_convs(img, flt, stride=2, padding=1, trans=True))
    end = L.mixed(
        input=[
            L.full_matrix_projection(input=m5),
            L.trans_full_matrix_projection(input=m6),
            L.full_matrix_projection(input=m7),
            L.full_matrix_projection(input=m8),
        ],
        size=100,
        layer_attr=paddle.attr.ExtraAttr(drop_rate=0.5, error_clipping_threshold=40),
    )
    return [end], []
