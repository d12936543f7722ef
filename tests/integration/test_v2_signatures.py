"""v2 programs call paddle_lite with v2's argument names, positional orders and defaults.

Each public v2 callable (layer functions, networks, evaluators, attrs, activations, poolings,
ops, optimizers, data types, reader decorators and creators, minibatch, trainer.SGD and its
``train``/``test``, parameters, inference, topology, data_feeder, events, dataset modules,
image, plot) is read from v2's Python 2 source with ``ast`` (integration/v2_surface.py; the
``def`` lines of the dataset modules, image and plot, and the PaddlePaddle/Paddle commits
they come from, are in integration/v2_fetched_signatures.py) and compared with
``inspect.signature`` of what paddle_lite exports under the same name:

(a) every v2 parameter name is a parameter of paddle_lite's (keyword calls work);
(b) v2's positional parameters are, in order, the first positional parameters of paddle_lite's
    (positional calls work; paddle_lite adds parameters only after v2's or keyword-only);
(c) defaults are equal; where v2's default is ``None`` that a v1 decorator fills
    (``wrap_act_default`` and the like), paddle_lite's default is ``None`` too.

A v2 name paddle_lite does not export is the coverage test's business
(test_v2_coverage.py), not this one's. Deliberate differences are listed in ``EXCEPTIONS``
with the reason; an exception that no longer differs fails too, so the list stays exact.
"""

from __future__ import annotations

import pickle
import sys

import pytest

import paddle_lite.activation as activation
import paddle_lite.data_type as data_type
import paddle_lite.evaluator as evaluator
import paddle_lite.layer as layer
import paddle_lite.pooling as pooling
from integration import v2_signatures as vs
from integration.v2_surface import v2_event_attributes, v2_surface
from paddle_lite._src.optim.optimizers import SETTINGS

EXCEPTIONS = {
    "batch": "the stored (2018) minibatch.py has drop_last=True, dropping the short last "
    "batch; DESIGN.md keeps the last short batch unless drop_last=True, as the 2017 batch("
    "reader, batch_size) of the v2 book era did (it had no drop_last and yielded the rest).",
    "minibatch.batch": "the same function as paddle.batch (see 'batch').",
    "layer.parse_network": "paddle_lite also takes further positional arguments as extra layers "
    "(v2 0.10 took *outputs), so parse_network(out, extras) binds extras positionally as in v2.",
    "layer.classification_cost": "v2's default is classification_error_evaluator and v2 "
    "rejected evaluator=None (it asserts callable); paddle_lite's default None attaches that "
    "same evaluator, and passing the v2 function works as in v2.",
    "data_feeder.DataFeeder.convert": "v2's second argument is a swig Arguments object to fill "
    "(C++ runtime only); paddle_lite returns the converted batch, so takes the samples alone.",
}

SKIPPED = {
    "activation.Base": "v2's BaseActivation(name, support_hppl) is the base of the built-in "
    "activations; paddle_lite's are plain classes with no proto-name constructor to share.",
}


def _namespace(module: str) -> dict:
    """Names v2's non-literal defaults use, bound to paddle_lite's objects."""
    ns = {f"{n}Activation": getattr(activation, n) for n in activation.__all__}
    ns |= {f"{n}Pooling": getattr(pooling, n) for n in pooling.__all__}
    ns |= {f"{n}_evaluator": getattr(evaluator, n) for n in evaluator.__all__}
    ns |= {"AggregateLevel": layer.AggregateLevel, "ExpandLevel": layer.ExpandLevel}
    ns |= {"SequenceType": data_type.SequenceType, "pickle": pickle}
    return ns | vars(sys.modules[module])


def _keywords(name: str) -> dict | None:
    """What paddle_lite takes through ``**kwargs`` where v2 did too."""
    return SETTINGS if name.startswith("optimizer.") else None


pytestmark = pytest.mark.skipif(
    not vs.V2.is_dir(), reason=f"v2's source tree is not at {vs.V2} (set PADDLE_V2_SOURCE)"
)
SURFACE = v2_surface() if vs.V2.is_dir() else {}


def _differences(name: str) -> list[str] | None:
    obj, owner, module = vs.resolve_exported(name)
    if obj is None:
        return None
    sig = vs.lite_signature(obj, owner)
    return vs.differences(SURFACE[name], sig, _namespace(module), _keywords(name))


@pytest.mark.parametrize("name", sorted(set(SURFACE) - set(SKIPPED)))
def test_v2_signature_is_kept(name):
    found = _differences(name)
    if found is None:
        pytest.skip(f"paddle_lite does not export {name} (see test_v2_coverage.py)")
    if name in EXCEPTIONS:
        assert found, f"{name} now matches v2; drop it from EXCEPTIONS"
        return
    assert found == [], f"{name}: " + "; ".join(found)


def test_the_surface_is_read_from_v2s_source():
    assert len(SURFACE) > 300
    fc = SURFACE["layer.fc"]
    assert fc.names() == [
        "input", "size", "act", "name", "param_attr", "bias_attr", "layer_attr"
    ]  # fmt: skip
    assert fc.params[2].default is vs.FILLED and fc.params[6].default is None
    assert SURFACE["layer.max_id"].names()[0] == "input"
    assert SURFACE["evaluator.auc"].names()[:2] == ["input", "label"]
    assert SURFACE["dataset.imikolov.build_dict"].params[0].default == 50
    assert "bias_attr" in SURFACE["layer.pooling"].names()
    assert SURFACE["pooling.Avg"].params[0].default == "average"


def test_exceptions_and_skips_name_compared_callables():
    assert set(EXCEPTIONS) | set(SKIPPED) <= set(SURFACE)


@pytest.mark.parametrize("event", sorted(v2_event_attributes()) if SURFACE else [])
def test_event_attributes_are_v2s(event):
    import paddle_lite.event as ev

    cls = getattr(ev, event)
    init = SURFACE[f"event.{event}"]
    dummies = {"pass_id": 0, "batch_id": 0, "cost": 0.0}
    instance = cls(*[dummies.get(p.name) for p in init.params])
    missing = {a for a in v2_event_attributes()[event] if not hasattr(instance, a)}
    assert not missing, f"{event} lacks v2's attributes {sorted(missing)}"


def test_values_v2_accepted_are_accepted():
    """Ints for bools and numpy ints for sizes passed v2's proto fields and ``== True`` tests."""
    import numpy as np

    import paddle_lite as paddle

    L, D = paddle.layer, paddle.data_type
    x = L.data(name="sig_x", type=D.dense_vector(8))
    seq = L.data(name="sig_seq", type=D.dense_vector_sequence(8))
    img = L.data(name="sig_img", type=D.dense_vector(2 * 4 * 4), height=4, width=4)
    assert L.fc(input=x, size=np.int64(4), bias_attr=1).size == 4
    assert len(L.fc(input=x, size=4, bias_attr=1).params) == 2
    assert len(L.fc(input=x, size=4, bias_attr=0).params) == 1
    assert L.addto(input=[x, x], bias_attr=None).params == ()
    assert L.lstmemory(input=L.fc(input=seq, size=16), reverse=1).attrs["reverse"] is True
    assert L.batch_norm(input=img, use_global_stats=0).attrs["use_global_stats"] is False
    assert L.slope_intercept(x, "sig_si", 2.0).attrs["slope"] == 2.0
    assert D.dense_vector(np.int64(3)) == D.dense_vector(3)
    ids = L.data(name="sig_ids", type=D.integer_value(np.int64(10)))
    assert L.embedding(input=ids, size=np.int64(4)).size == 4
    proj = L.full_matrix_projection(input=x, size=np.int64(3))
    assert L.mixed(input=[proj], size=3).size == 3
    assert L.dropout(input=x, dropout_rate=np.float32(0.5)).size == 8


@pytest.mark.parametrize(
    "path,name,obj",
    [
        ("trainer_config_helpers/layers.py", "AggregateLevel", layer.AggregateLevel),
        ("trainer_config_helpers/layers.py", "ExpandLevel", layer.ExpandLevel),
        ("trainer/PyDataProvider2.py", "SequenceType", data_type.SequenceType),
        ("trainer/PyDataProvider2.py", "DataType", data_type.DataType),
    ],
)
def test_v2_constants_are_kept(path, name, obj):
    want = vs.class_constants(path, name)
    assert want and {k: getattr(obj, k, None) for k in want} == want


def _act_builders():
    """Each v2 layer whose ``wrap_act_default`` fills an activation, built with the
    activations left out, and where its activations are kept."""
    L, D = layer, data_type
    x = L.data(name="act_x", type=D.dense_vector(8))
    s = L.data(name="act_s", type=D.dense_vector_sequence(8))
    img = L.data(name="act_img", type=D.dense_vector(2 * 4 * 4), height=4, width=4)
    vol = L.data(name="act_vol", type=D.dense_vector(2 * 8), height=2, width=2, depth=2)
    cell = {"act": "cell_act"}
    return {
        "mixed_layer": (lambda: L.mixed(input=[L.full_matrix_projection(input=x, size=3)]), {}),
        "fc_layer": (lambda: L.fc(input=x, size=4), {}),
        "lstmemory": (lambda: L.lstmemory(input=L.fc(input=s, size=16)), cell),
        "grumemory": (lambda: L.grumemory(input=L.fc(input=s, size=12)), cell),
        "repeat_layer": (lambda: L.repeat(input=x, num_repeats=2), {}),
        "seq_reshape_layer": (lambda: L.seq_reshape(input=s, reshape_size=4), {}),
        "img_conv_layer": (lambda: L.img_conv(input=img, filter_size=3, num_filters=2), {}),
        "batch_norm_layer": (lambda: L.batch_norm(input=img), {}),
        "addto_layer": (lambda: L.addto(input=[x, x]), {}),
        "concat_layer": (lambda: L.concat(input=[x, x]), {}),
        "seq_concat_layer": (lambda: L.seq_concat(a=s, b=s), {}),
        "recurrent_layer": (lambda: L.recurrent(input=s), cell),
        "tensor_layer": (lambda: L.tensor(a=x, b=x, size=2), {}),
        "selective_fc_layer": (lambda: L.selective_fc(input=x, size=4), {}),
        "row_conv_layer": (lambda: L.row_conv(input=s, context_len=2), {}),
        "gated_unit_layer": (lambda: L.gated_unit(input=x, size=4), {}),
        "img_conv3d_layer": (
            lambda: L.img_conv3d(input=vol, filter_size=1, num_filters=2, num_channels=2),
            {},
        ),
        "factorization_machine": (lambda: L.factorization_machine(input=x, factor_size=2), {}),
        "sub_seq_layer": (
            lambda: L.sub_seq(
                input=s,
                offsets=L.data(name="act_o", type=D.integer_value(4)),
                sizes=L.data(name="act_z", type=D.integer_value(4)),
            ),
            {},
        ),  # fmt: skip
    }


@pytest.mark.parametrize(
    "fn,params",
    sorted(vs.act_defaults("trainer_config_helpers/layers.py").items()) if SURFACE else [],
)
def test_layers_fill_v2s_default_activations(fn, params):
    builders = _act_builders()
    if fn not in builders:
        pytest.skip(f"{fn} is built inside a recurrent group step; see its own tests")
    build, keys = builders[fn]
    built = build()
    for param, cls in params.items():
        want = _namespace(__name__)[cls]()
        got = built.attrs[keys.get(param, param)]
        assert vs.same_value(want, got), f"{fn}: {param} {got!r}, v2 fills {want!r}"
