"""What v2 accepted, paddle_lite accepts: bool arguments given as 0/1, layers v2 built but
could not run, v1's LayerType table and the layer_support decorator."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite.errors import LayerConfigError, LayerConfigWarning, LayerTypeError

L, DT, A = paddle.layer, paddle.data_type, paddle.activation


# bools -----------------------------------------------------------------------------
@pytest.mark.parametrize("value, expected", [(0, False), (1, True), (np.bool_(True), True)])
def test_reverse_takes_what_v2s_proto_bool_fields_took(value, expected):
    seq = L.data(name="s", type=DT.dense_vector_sequence(8))
    assert L.lstmemory(input=L.fc(input=seq, size=8), reverse=value).attrs["reverse"] is expected
    assert L.recurrent(input=seq, reverse=value).attrs["reverse"] is expected
    group = L.recurrent_group(step=lambda x: L.fc(input=x, size=2), input=seq, reverse=value)
    assert group is not None


def test_bool_arguments_still_refuse_non_integers():
    seq = L.data(name="s", type=DT.dense_vector_sequence(8))
    with pytest.raises(LayerTypeError, match="reverse must be a bool or 0/1; received 0.5"):
        L.recurrent(input=seq, reverse=0.5)
    img = L.data(name="img", type=DT.dense_vector(16), height=4, width=4)
    with pytest.raises(LayerTypeError, match="use_global_stats must be None, a bool or 0/1"):
        L.batch_norm(input=img, num_channels=1, use_global_stats="yes")


def test_bias_attr_compares_with_true_as_v2_did():
    x = L.data(name="x", type=DT.dense_vector(3))
    assert [p.role for p in L.fc(input=x, size=2, bias_attr=0).params] == ["w0"]
    assert [p.role for p in L.fc(input=x, size=2, bias_attr=1).params] == ["w0", "wbias"]
    assert len(L.fc(input=x, size=2, bias_attr=np.bool_(False)).params) == 1


# layers v2 built but could not run ---------------------------------------------------
def test_unrunnable_layer_builds_parses_and_refuses_to_run():
    y = L.data(name="y", type=DT.dense_vector(3))
    ids = L.data(name="ids", type=DT.integer_value(3))
    with pytest.warns(LayerConfigWarning, match="square_error.*compiling or running it raises"):
        cost = L.square_error_cost(input=y, label=ids)
    assert "label holds integer ids" in cost.attrs["unrunnable"]
    assert "square_error" in str(L.parse_network(cost))
    paddle.topology.Topology(cost).proto()
    feeds = {"y": np.zeros((2, 3), np.float32), "ids": np.zeros((2,), np.int32)}
    with pytest.raises(
        LayerConfigError, match=r"'__square_error_cost_0__' \(square_error\) cannot"
    ):
        forward([cost], {}, feeds)


def test_unrunnable_layer_survives_a_json_round_trip():
    x = L.data(name="x", type=DT.dense_vector(128))
    with pytest.warns(LayerConfigWarning):
        rot = L.rotate(input=x, height=16, width=49)
    back = paddle.topology.Topology.from_json(paddle.topology.Topology(rot).to_json())
    (loaded,) = [n for n in back.nodes if n.name == rot.name]
    assert loaded.attrs["unrunnable"] == rot.attrs["unrunnable"] and loaded.spec == rot.spec


def test_a_layer_above_an_unrunnable_one_builds_and_the_error_names_the_cause():
    x = L.data(name="x", type=DT.dense_vector(128))
    with pytest.warns(LayerConfigWarning):
        rot = L.rotate(input=x, height=16, width=49)
    out = L.fc(input=rot, size=2)
    with pytest.raises(LayerConfigError, match="__rotate_layer_0__"):
        forward(
            [out],
            {p.name: np.zeros(p.shape, np.float32) for p in out.params},
            {"x": np.zeros((1, 128), np.float32)},
        )


# LayerType and layer_support -------------------------------------------------------
def test_layer_type_has_v2s_constants():
    T = L.LayerType
    assert (T.DATA, T.FC_LAYER, T.CROSS_ENTROPY, T.RANK_COST) == (
        "data",
        "fc",
        "multi-class-cross-entropy",
        "rank-cost",
    )
    assert T.is_layer_type("seqlastins") and T.is_layer_type("blockexpand")
    assert not T.is_layer_type("no_such_type") and not T.is_layer_type(None)


def test_layer_support_checks_extra_attr_fields_like_v2():
    @L.layer_support("drop_rate")
    def dropping(input, layer_attr=None):
        return input

    @L.layer_support()
    def plain(input, layer_attr=None):
        return input

    assert dropping(1, layer_attr=paddle.attr.Extra(drop_rate=0.5)) == 1
    assert plain(2, layer_attr=paddle.attr.Extra(device=1)) == 2  # device: always
    with pytest.raises(NotImplementedError, match="Layer plain does not support drop_rate"):
        plain(3, layer_attr=paddle.attr.Extra(drop_rate=0.5))
    extra = paddle.attr.Extra(error_clipping_threshold=1.0)
    with pytest.raises(NotImplementedError, match="does not support error_clipping_threshold"):
        dropping(4, extra)
    assert dropping.argspec.args == ["input", "layer_attr"]


def test_padding_attr_compares_with_true_as_v2_did():
    s = L.data(name="s", type=DT.dense_vector_sequence(4))
    on = L.mixed(input=L.context_projection(input=s, context_len=3, padding_attr=1), size=12)
    off = L.mixed(input=L.context_projection(input=s, context_len=3, padding_attr=0), size=12)
    assert [p.shape for p in on.params] == [(2, 4)] and off.params == ()
