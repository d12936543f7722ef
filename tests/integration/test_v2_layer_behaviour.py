"""v2's tests/test_layer.py and test_op.py networks, with sizes and names asserted.

The v2 originals only checked that each network parses; here every network is
built, put in a topology, and its sizes, names and parameter shapes are checked.
"""

import pytest

import paddle_lite as paddle
from paddle_lite.errors import LayerConfigError

L, DT, A, P, ATTR = paddle.layer, paddle.data_type, paddle.activation, paddle.pooling, paddle.attr
Topology = paddle.topology.Topology


@pytest.fixture
def net():
    pixel = L.data(name="pixel", type=DT.dense_vector(128))
    label = L.data(name="label", type=DT.integer_value(10))
    weight = L.data(name="weight", type=DT.dense_vector(1))
    score = L.data(name="score", type=DT.dense_vector(1))
    hidden = L.fc(input=pixel, size=100, act=A.Sigmoid(), param_attr=ATTR.Param(name="hidden"))
    inference = L.fc(input=hidden, size=10, act=A.Softmax())
    conv = L.img_conv(
        input=pixel, filter_size=1, filter_size_y=1, num_channels=8, num_filters=16, act=A.Linear()
    )
    return dict(
        pixel=pixel,
        label=label,
        weight=weight,
        score=score,
        hidden=hidden,
        inference=inference,
        conv=conv,
    )


def test_setup_sizes(net):
    assert net["conv"].spec.image == (16, 4, 4)
    assert [p.name for p in net["hidden"].params] == ["hidden", "___fc_layer_0__.wbias"]


def test_pooling_layer(net):
    pool = L.img_pool(input=net["conv"], pool_size=2, num_channels=16, padding=1, pool_type=P.Max())
    maxout = L.maxout(input=net["conv"], groups=4)
    topo = Topology([pool, maxout])
    assert pool.spec.image == (16, 5, 5)  # 1 + ceil((4 + 2 - 2) / 1)
    assert maxout.spec.image == (4, 4, 4)
    assert topo.get_layer(pool.name) is pool


def test_norm_layer(net):
    norm1 = L.img_cmrnorm(input=net["conv"], size=5)
    norm2 = L.batch_norm(input=net["conv"])
    norm3 = L.sum_to_one_norm(input=net["conv"])
    params = paddle.parameters.create([norm1, norm2, norm3])
    assert norm1.size == norm2.size == norm3.size == 256
    bn = norm2.name
    assert [n for n in params.keys() if n.startswith("_" + bn)] == [
        f"_{bn}.w0",
        f"_{bn}.w1",
        f"_{bn}.w2",
        f"_{bn}.wbias",
    ]
    assert params.get_shape(f"_{bn}.w1") == (1, 16)


def test_math_layer(net):
    pixel, hidden, score = net["pixel"], net["hidden"], net["score"]
    addto = L.addto(input=[pixel, pixel])
    interpolation = L.interpolation(input=[hidden, hidden], weight=score)
    power = L.power(input=pixel, weight=score)
    scaling = L.scaling(input=pixel, weight=score)
    slope = L.slope_intercept(input=pixel)
    cos1 = L.cos_sim(a=pixel, b=pixel)
    cos2 = L.cos_sim(a=pixel, b=L.concat(input=[pixel, pixel]), size=2)
    trans = L.trans(input=slope)
    Topology([addto, interpolation, power, scaling, slope, cos1, cos2, trans])
    assert (addto.size, interpolation.size, power.size, scaling.size) == (128, 100, 128, 128)
    assert (cos1.size, cos2.size) == (1, 2)


def test_reshape_and_slicing(net):
    repeat = L.repeat(input=net["pixel"], num_repeats=4)
    pad = L.pad(input=net["conv"], pad_c=[2, 3], pad_h=[1, 2], pad_w=[3, 1])
    Topology([repeat, pad])
    assert repeat.size == 512
    assert pad.spec.image == (21, 7, 8)


def test_cost_layers(net):
    inference, label, weight, hidden = net["inference"], net["label"], net["weight"], net["hidden"]
    score = net["score"]
    costs = [
        L.classification_cost(input=inference, label=label),
        L.classification_cost(input=inference, label=label, weight=weight),
        L.cross_entropy_cost(input=inference, label=label),
        L.cross_entropy_with_selfnorm_cost(input=inference, label=label),
        L.huber_regression_cost(input=score, label=score),
        L.huber_classification_cost(input=score, label=L.data(name="b", type=DT.integer_value(2))),
        L.multi_binary_label_cross_entropy_cost(
            input=inference, label=L.data(name="mb", type=DT.sparse_binary_vector(10))
        ),
        L.rank_cost(left=score, right=score, label=score),
        L.rank_cost(left=score, right=score, label=score, weight=weight),
        L.square_error_cost(input=hidden, label=hidden),
        L.square_error_cost(input=hidden, label=hidden, weight=weight),
        L.sum_cost(input=inference),
        L.smooth_l1_cost(input=hidden, label=hidden),
    ]
    topo = Topology(costs)
    assert all(c.size == 1 for c in costs)
    assert costs[0].name == "__cost_0__" and costs[1].name == "__cost_1__"
    assert {"pixel", "label", "weight", "score"} <= set(topo.data_layers())


def test_sampling_layer(net):
    maxid = L.max_id(input=net["inference"])
    assert maxid.name == "__maxid_layer_0__" and maxid.spec.dtype == "int32"


def test_projection_both_forms(net):
    pixel = net["pixel"]
    word = L.data(name="word", type=DT.integer_value_sequence(100))
    projs = lambda: [  # noqa: E731
        L.full_matrix_projection(input=pixel, size=50),
        L.trans_full_matrix_projection(input=pixel, size=50),
        L.identity_projection(input=pixel, offset=10, size=50),
        L.dotmul_projection(input=L.fc(input=pixel, size=50, name=None)),
        L.scaling_projection(input=L.fc(input=pixel, size=50)),
    ]
    listed = L.mixed(size=50, input=projs())
    with L.mixed(size=50) as built:
        for proj in projs():
            built += proj
    assert listed.size == built.size == 50
    assert [p.shape for p in built.params] == [(128, 50), (50, 128), (1, 50), (1, 1)]
    table = L.mixed(size=16, input=L.table_projection(input=word, size=16))
    assert table.spec.seq_level == 1 and table.params[0].shape == (100, 16)
    with pytest.raises(L.AddToSealedMixedLayerException):
        built += L.full_matrix_projection(input=pixel, size=50)


def test_operator(net):
    a = L.fc(input=net["pixel"], size=10)
    b = L.fc(input=net["pixel"], size=10)
    with L.mixed() as m:
        m += L.dotmul_operator(a=a, b=b)
    assert m.size == 10 and m.params == ()


def test_layer_arithmetic_parses(net):
    x, s = net["hidden"], net["score"]
    exprs = [
        x + 1.0,
        1.0 + x,
        x - 2.0,
        x * 3.0,
        2.0 * x,
        -x,
        x + x,
        x - x,
        x * s,
        x + s,
        paddle.op.exp(x),
        paddle.op.sqrt(x),
        paddle.op.relu(x),
    ]
    Topology(exprs)
    assert all(e.size == 100 for e in exprs)
    with pytest.raises((LayerConfigError, TypeError)):
        x * x


def test_small_vgg_like_stack_sizes():
    img = L.data(name="img", type=DT.dense_vector(784))
    conv = L.img_conv(input=img, filter_size=5, num_filters=20, num_channels=1)
    pool = L.img_pool(input=conv, pool_size=2, stride=2)
    assert conv.spec.image == (20, 24, 24) and pool.spec.image == (20, 12, 12)
    assert conv.params[0].shape == (20, 1, 5, 5) and conv.params[1].shape == (20, 1)


def test_aggregate_layer(net):
    pixel = net["pixel"]
    pool = L.pooling(input=pixel, pooling_type=P.Avg(), agg_level=L.AggregateLevel.TO_SEQUENCE)
    last = L.last_seq(input=pixel)
    first = L.first_seq(input=pixel)
    concat = L.concat(input=[last, first])
    seq_concat = L.seq_concat(a=last, b=first)
    L.parse_network([pool, last, first, concat, seq_concat])
    assert concat.size == 256 and seq_concat.size == 128


def test_recurrent_layer():
    feature = L.data(name="feature", type=DT.integer_value(12))
    recurrent = L.recurrent(input=feature)
    lstm = L.lstmemory(input=feature)
    gru = L.grumemory(input=feature)
    conf = L.parse_network([recurrent, lstm, gru])
    assert [layer.name for layer in conf.layers][1:] == [
        "__recurrent_layer_0__",
        "__lstmemory_0__",
        "__gru_0__",
    ]
    assert (recurrent.size, lstm.size, gru.size) == (12, 3, 4)


def test_reshape_layer(net):
    pixel, weight = net["pixel"], net["weight"]
    expand = L.expand(input=weight, expand_as=pixel, expand_level=L.ExpandLevel.FROM_NO_SEQUENCE)
    repeat = L.repeat(input=pixel, num_repeats=4)
    reshape = L.seq_reshape(input=pixel, reshape_size=4)
    L.parse_network([expand, repeat, reshape])
    assert (expand.size, repeat.size, reshape.size) == (1, 512, 4)


def test_catalogue_layers_of_v2s_test_layer(net):
    pixel, conv, hidden, score = net["pixel"], net["conv"], net["hidden"], net["score"]
    weight10 = L.data(name="weight10", type=DT.dense_vector(10))
    conv_shift = L.conv_shift(a=pixel, b=score)
    spp = L.spp(input=conv, pyramid_height=2, num_channels=16, pool_type=P.Max())
    linear_comb = L.linear_comb(weights=weight10, vectors=hidden, size=10)
    bilinear = L.bilinear_interp(input=conv, out_size_x=4, out_size_y=4)
    tensor = L.tensor(a=pixel, b=pixel, size=10)
    block = L.block_expand(
        input=conv, num_channels=16, stride_x=1, block_x=1, stride_y=1, block_y=1
    )
    rotate = L.rotate(input=pixel, height=16, width=8)
    conf = L.parse_network(conv, [conv_shift, spp, linear_comb, bilinear, tensor, block, rotate])
    names = [layer.name for layer in conf.layers]
    assert {
        "__conv_shift_layer_0__",
        "__spp_0__",
        "__linear_comb_layer_0__",
        "__bilinear_interp_layer_0__",
        "__tensor_layer_0__",
        "__block_expand_layer_0__",
        "__rotate_layer_0__",
    } <= set(names)
    sizes = (conv_shift.size, spp.size, linear_comb.size, bilinear.size, tensor.size, block.size)
    assert sizes == (128, 16 * 5, 10, 256, 10, 16)
    assert [p.shape for p in tensor.params] == [(128, 128, 10), (1, 10)]


def test_catalogue_costs_of_v2s_test_layer(net):
    inference = net["inference"]
    feats = L.data(name="feats", type=DT.dense_vector_sequence(11))
    seq_label = L.data(name="seq_label", type=DT.integer_value_sequence(10))
    probs = L.fc(input=feats, size=11, act=A.Softmax())
    label3 = L.data(name="label3", type=DT.integer_value(3))
    costs = [
        L.ctc(input=probs, label=seq_label),
        L.warp_ctc(input=feats, label=seq_label),
        L.nce(input=inference, label=label3, num_classes=3),
        L.hsigmoid(input=inference, label=label3, num_classes=3),
    ]
    conf = L.parse_network(costs)
    assert [c.name for c in costs] == [
        "__ctc_layer_0__",
        "__warp_ctc_layer_0__",
        "__nce_layer_0__",
        "__hsigmoid_0__",
    ]
    assert {
        p.name: tuple(p.dims) for p in conf.parameters if "nce" in p.name or "hsig" in p.name
    } == {
        "___nce_layer_0__.w0": (3, 10),
        "___nce_layer_0__.wbias": (1, 3),
        "___hsigmoid_0__.w0": (2, 10),
        "___hsigmoid_0__.wbias": (1, 2),
    }
