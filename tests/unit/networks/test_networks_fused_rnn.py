"""simple_gru2 and the bidirectional networks: v2's layer names, sizes and values equal to
the same layers composed by hand."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerTypeError

L, DT, N = paddle.layer, paddle.data_type, paddle.networks
RNG = np.random.default_rng(8)


def _seq():
    x = L.data(name="x", type=DT.dense_vector_sequence(3))
    feed = Seq(RNG.normal(size=(2, 4, 3)).astype("f4"), np.array([4, 2], np.int32))
    return x, {"x": feed}


def _params(layer):
    specs = paddle.topology.Topology(layer).param_specs()
    return {s.name: RNG.normal(size=s.shape).astype("f4") * 0.5 for s in specs}


def test_simple_gru2_is_a_projection_then_grumemory():
    x, feeds = _seq()
    gru = N.simple_gru2(input=x, size=2)
    assert gru.name == "__simple_gru2_0__" and gru.inputs[0].name == "__simple_gru2_0___transform"
    assert [p.shape for p in gru.inputs[0].params] == [(3, 6)]  # no bias unless asked
    params = _params(gru)
    with L.name_scope():
        m = L.mixed(
            size=6,
            input=[
                L.full_matrix_projection(
                    input=x, param_attr=paddle.attr.Param(name=gru.inputs[0].params[0].name)
                )
            ],
        )
        ref = L.grumemory(
            input=m,
            param_attr=paddle.attr.Param(name=gru.params[0].name),
            bias_attr=paddle.attr.Param(name=gru.params[1].name),
        )
    (got, want), _ = forward([gru, ref], params, feeds)
    np.testing.assert_allclose(np.asarray(got.data), np.asarray(want.data), rtol=1e-6)


@pytest.mark.parametrize("fn", [N.bidirectional_gru, N.bidirectional_lstm])
def test_bidirectional_names_sizes_and_join(fn):
    x, feeds = _seq()
    last = fn(input=x, size=2, name="bi")
    names = [i.name for i in last.inputs]
    assert last.size == 4 and names == ["bi_fw_last", "bi_bw_last"]
    fw, bw = last.inputs[0].inputs[0], last.inputs[1].inputs[0]
    assert (fw.name, bw.name, bw.reverse, fw.reverse) == ("bi_fw", "bi_bw", True, False)
    seq = fn(input=x, size=2, name="bis", return_seq=True, fwd_act=paddle.activation.Relu())
    assert seq.spec.seq_level == 1 and seq.size == 4
    params = _params(last)
    (value, fwv, bwv), _ = forward([last, fw, bw], params, feeds)
    lengths = [4, 2]
    want = [
        np.concatenate([np.asarray(fwv.data)[b, n - 1], np.asarray(bwv.data)[b, 0]])
        for b, n in enumerate(lengths)
    ]
    np.testing.assert_allclose(np.asarray(value), np.stack(want), rtol=1e-6)
    with pytest.raises(LayerTypeError, match="unexpected keyword argument 'act'"):
        fn(input=x, size=2, act=None)
