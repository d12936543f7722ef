"""Configurations v2's config parser accepted and v2's layers refused only when run: they
build here with a ``LayerConfigWarning``, parse as v2 did, and running them raises
``LayerConfigError`` naming the layer. Also multibox_loss over a label of rows wider than a
box, which v2 ran on misread boxes: it warns and runs as v2 read it."""

import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.values import Seq
from paddle_lite.errors import LayerConfigError, LayerConfigWarning
from tests.unit.layers.detection import test_layers_detection as det

L, DT, P = paddle.layer, paddle.data_type, paddle.pooling
AGG, EXP = L.AggregateLevel, L.ExpandLevel


def _seq(b=2, t=3, d=4):
    return Seq(np.ones((b, t, d), np.float32), np.array([t, 1], np.int32))


def _nested(b=2, s=2, t=3, d=4):
    sub = np.full((b, s), t, np.int32)
    return Seq(np.ones((b, s, t, d), np.float32), np.array([s, 1], np.int32), sub)


def _refuses_to_run(layer, feeds, words):
    """Built with a warning (checked by the caller), parsed, and refused when run."""
    assert words in layer.attrs["unrunnable"]
    assert layer.name in str(L.parse_network(layer))
    params = {p.name: np.zeros(p.shape, np.float32) for p in layer.params}
    with pytest.raises(LayerConfigError, match=rf"'{layer.name}' \({layer.kind}\) cannot run"):
        forward([layer], params, feeds)


# sequence pooling, first_seq / last_seq: v2's SequencePoolLayer ---------------------
@pytest.mark.parametrize(
    "build",
    [
        lambda n: L.pooling(input=n, stride=5, name="win"),
        lambda n: L.pooling(input=n, pooling_type=P.Avg(), stride=2, name="win"),
        lambda n: L.last_seq(input=n, stride=5, name="win"),
        lambda n: L.first_seq(input=n, stride=5, name="win"),
    ],
)
def test_stride_over_a_nested_sequence_builds_and_refuses_to_run(build):
    n = L.data(name="n", type=DT.dense_vector_sub_sequence(4))
    with pytest.warns(LayerConfigWarning, match=r"'win'.*invalid for hasSubseq"):
        layer = build(n)
    assert layer.spec.seq_level == 1
    _refuses_to_run(layer, {"n": _nested()}, "stride=")


@pytest.mark.parametrize("op", [L.pooling, L.last_seq, L.first_seq])
def test_to_sequence_over_a_plain_sequence_builds_and_refuses_to_run(op):
    x = L.data(name="x", type=DT.dense_vector_sequence(4))
    with pytest.warns(LayerConfigWarning, match=r"'agg'.*input must hasSubseq"):
        layer = op(input=x, agg_level=AGG.TO_SEQUENCE, name="agg")
    _refuses_to_run(layer, {"x": _seq()}, "TO_SEQUENCE")


def test_stride_with_to_sequence_is_still_refused_when_built():
    """v1's helper and v2's config parser asserted ``stride == -1`` for TO_SEQUENCE."""
    n = L.data(name="n", type=DT.dense_vector_sub_sequence(4))
    with pytest.raises(LayerConfigError, match="stride=2 needs agg_level TO_NO_SEQUENCE"):
        L.pooling(input=n, agg_level=AGG.TO_SEQUENCE, stride=2)


# expand: v2's ExpandLayer ----------------------------------------------------------
@pytest.mark.parametrize(
    "level, input_type, words",
    [
        (EXP.FROM_NO_SEQUENCE, DT.dense_vector_sequence(4), "one input row per sequence"),
        (EXP.FROM_SEQUENCE, DT.dense_vector(4), "one input row per sub-sequence"),
    ],
)
def test_expand_of_the_wrong_level_builds_and_refuses_to_run(level, input_type, words):
    x = L.data(name="x", type=input_type)
    n = L.data(name="n", type=DT.dense_vector_sub_sequence(4))
    with pytest.warns(LayerConfigWarning, match=rf"'ex'.*{words}"):
        layer = L.expand(input=x, expand_as=n, expand_level=level, name="ex")
    assert layer.spec.seq_level == 2
    value = _seq() if level == EXP.FROM_NO_SEQUENCE else np.ones((2, 4), np.float32)
    _refuses_to_run(layer, {"x": value, "n": _nested()}, "expand_level")


# mixed and fc: table_projection over floats, inputs of different levels ------------------
def test_table_projection_over_floats_builds_and_refuses_to_run():
    x = L.data(name="x", type=DT.dense_vector(4))
    with pytest.warns(LayerConfigWarning, match=r"'tab'.*\(table\) needs integer ids"):
        layer = L.mixed(size=3, name="tab", input=[L.table_projection(input=x)])
    assert [p.shape for p in layer.params] == [(4, 3)]
    _refuses_to_run(layer, {"x": np.ones((2, 4), np.float32)}, "TableProjection")


@pytest.mark.parametrize("kind", ["fc", "mixed"])
def test_inputs_of_different_levels_build_and_refuse_to_run(kind):
    x = L.data(name="x", type=DT.dense_vector_sequence(4))
    v = L.data(name="v", type=DT.dense_vector(4))
    with pytest.warns(LayerConfigWarning, match=rf"'rows'.*{kind} inputs.*\[0, 1\]"):
        if kind == "fc":
            layer = L.fc(input=[x, v], size=3, name="rows")
        else:
            projections = [L.full_matrix_projection(input=i) for i in (x, v)]
            layer = L.mixed(size=3, name="rows", input=projections)
    assert layer.spec.seq_level == 1  # the first input's, as v2 took it
    _refuses_to_run(layer, {"x": _seq(), "v": np.ones((2, 4), np.float32)}, "sequence level")


# recurrent_group: a memory of another sequence level ----------------------------------
def test_memory_of_another_level_builds_and_the_group_refuses_to_run():
    """v2's test_rnn_group: in a SubsequenceInput group an fc adds the step's sub-sequence
    to a non-sequence memory of itself (v2 checked only the memory's name and size)."""
    n = L.data(name="n", type=DT.dense_vector_sub_sequence(4))

    def step(s):
        m = L.memory(name="cell", size=3)
        return L.fc(input=[s, m], size=3, name="cell")

    with pytest.warns(LayerConfigWarning) as caught:
        out = L.recurrent_group(step=step, input=L.SubsequenceInput(input=n), name="grp")
    messages = [str(w.message) for w in caught]
    assert any("'grp' (recurrent_layer_group): memory 'cell+delay1@grp'" in m for m in messages)
    assert any("'cell@grp' (fc)" in m for m in messages)
    (group,) = out.inputs
    assert "remembers layer 'cell@grp' of seq_level 1" in group.attrs["unrunnable"]
    assert out.spec.seq_level == 2
    _refuses_to_run(group, {"n": _nested()}, "seq_level 1")


def test_memory_of_another_size_is_still_refused_when_built():
    """v2's config parser checked the size ('memory declare wrong size')."""
    x = L.data(name="x", type=DT.dense_vector_sequence(4))

    def step(s):
        m = L.memory(name="cell", size=5)
        return L.fc(input=[s, m], size=3, name="cell")

    with pytest.raises(LayerConfigError, match="has size 5 but layer 'cell@grp'"):
        L.recurrent_group(step=step, input=x, name="grp")


# multibox_loss: the label ------------------------------------------------------------
def _v2_boxes(rows, lengths):
    """v2's reading: the valid label rows laid end to end, box j of image n the 6 values
    from (start_n + j) * 6."""
    flat = np.concatenate([rows[b, :n].reshape(-1) for b, n in enumerate(lengths)])
    starts = np.cumsum(lengths) - lengths
    out = np.zeros((len(lengths), max(max(lengths), 1), 6), np.float32)
    for b, n in enumerate(lengths):
        for j in range(n):
            out[b, j] = flat[(starts[b] + j) * 6 : (starts[b] + j + 1) * 6]
    return Seq(out, np.array(lengths, np.int32))


def test_multibox_loss_reads_a_wide_label_as_v2_did():
    img, locs, confs, prior = det.ssd_head()

    def cost(label):
        return L.multibox_loss(
            input_loc=locs, input_conf=confs, priorbox=prior, label=label, num_classes=3
        )

    wide = L.data(name="wide", type=DT.dense_vector_sequence(12))
    with pytest.warns(LayerConfigWarning, match=r"label has size 12; v2 reads"):
        wide_cost = cost(wide)
    assert "unrunnable" not in wide_cost.attrs
    rows = np.full((3, 2, 12), 7.0, np.float32)  # padding: junk
    rows[0, 0] = det.LABELS[0][0] + det.LABELS[0][1]
    rows[1, 0] = det.LABELS[1][0] + [0.0] * 6
    lengths = [1, 1, 0]
    feeds = det.head_feeds(2)
    got = det.run(wide_cost, {**feeds, "wide": Seq(rows, np.array(lengths, np.int32))})
    narrow_cost = cost(L.data(name="gt", type=DT.dense_vector_sequence(6)))
    want = det.run(narrow_cost, {**feeds, "gt": _v2_boxes(rows, lengths)})
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    assert np.asarray(want)[0, 0] > 0


def test_multibox_loss_over_a_narrow_or_integer_label_refuses_to_run():
    img, locs, confs, prior = det.ssd_head()
    for name, kind, words in (
        ("five", DT.dense_vector_sequence(5), "less than the 6 values"),
        ("ids", DT.integer_value_sequence(6), "int32 values"),
    ):
        with pytest.warns(LayerConfigWarning, match=words):
            layer = L.multibox_loss(
                input_loc=locs,
                input_conf=confs,
                priorbox=prior,
                label=L.data(name=name, type=kind),
                num_classes=3,
            )
        assert words in layer.attrs["unrunnable"]
