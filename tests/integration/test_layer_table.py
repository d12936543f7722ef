"""The layer table: one descriptor per public layer function, checked four ways.

For every descriptor: the declared spec matches the produced value, eager equals
``jax.jit``, the JSON round trip computes the same values, and the parameter layout
(names, shapes, init, static flags) equals the golden file. Regenerate the golden
file after an intended change with ``PADDLE_LITE_UPDATE_GOLDEN=1 pytest tests/integration``.
"""

import importlib
import json
import os
import pathlib

import jax
import numpy as np
import pytest

import paddle_lite as paddle
from paddle_lite._src.compile import forward
from paddle_lite._src.graph import reset_names
from paddle_lite._src.initializers import initialize
from paddle_lite._src.layers.recurrent.beam_search import BeamResult
from paddle_lite._src.topology import Topology
from paddle_lite._src.values import Seq

HERE = pathlib.Path(__file__).parent
GOLDEN = HERE / "golden" / "param_layout.json"
# Public names of paddle_lite.layer that are not layer-building functions, or that are
# covered by the descriptor of the layer they feed.
NOT_LAYERS = {
    "Layer",
    "LayerOutput",
    "name_scope",
    "reset_names",
    "data",
    "AggregateLevel",
    "ExpandLevel",
    "AddToSealedMixedLayerException",
    "get_layer",
    "parse_network",
    "StaticInput",  # recurrent-group input markers, covered by recurrent_group
    "SubsequenceInput",
    "GeneratedInput",  # covered by beam_search
    "BaseGeneratedInput",
    "printer",  # returns None: a debug printer declared in the scope, not a layer
    "LayerType",  # v1's table of layer type strings
    "layer_support",  # v1's decorator of config functions
}


def _descriptors():
    found = []
    for path in sorted(HERE.glob("descriptors_*.py")):
        module = importlib.import_module(f"tests.integration.{path.stem}")
        found.extend(module.DESCRIPTORS)
    return found


DESCRIPTORS = _descriptors()
IDS = [d["name"] for d in DESCRIPTORS]


def _build(desc):
    reset_names()
    out, feeds = desc["build"]()
    params = {s.name: initialize(s, 0) for s in Topology(out).param_specs()}
    return out, feeds, params


def _data(value):
    if isinstance(value, BeamResult):  # generated sequences: their ids
        return np.asarray(value.ids)
    return np.asarray(value.data if isinstance(value, Seq) else value)


@pytest.mark.parametrize("desc", DESCRIPTORS, ids=IDS)
def test_declared_spec_matches_value(desc):
    out, feeds, params = _build(desc)
    (value,), _ = forward([out], params, feeds)
    data = _data(value)
    assert data.shape == tuple(desc["shape"])
    assert isinstance(value, (Seq, BeamResult)) == (out.spec.seq_level > 0)
    if out.spec.dtype == "int32":
        assert np.issubdtype(data.dtype, np.integer)
    else:
        assert data.dtype == np.float32 and data.shape[-1] == out.spec.size


@pytest.mark.parametrize("desc", DESCRIPTORS, ids=IDS)
def test_eager_equals_jit(desc):
    out, feeds, params = _build(desc)
    (eager,), _ = forward([out], params, feeds)
    jitted = jax.jit(lambda p, f: forward([out], p, f)[0][0])(params, feeds)
    np.testing.assert_allclose(_data(jitted), _data(eager), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("desc", DESCRIPTORS, ids=IDS)
def test_json_round_trip_computes_the_same(desc):
    out, feeds, params = _build(desc)
    topo = Topology(out)
    again = Topology.deserialize(topo.serialize())
    assert again.serialize() == topo.serialize()
    (before,), _ = forward([out], params, feeds)
    (after,), _ = forward([again.get_layer(out.name)], params, feeds)
    np.testing.assert_array_equal(_data(after), _data(before))


def _layout(desc):
    out, _, _ = _build(desc)
    return [
        [s.name, list(s.shape), s.init.describe(), s.is_static] for s in Topology(out).param_specs()
    ]


def test_parameter_layouts_match_golden():
    layouts = {d["name"]: _layout(d) for d in DESCRIPTORS}
    if os.environ.get("PADDLE_LITE_UPDATE_GOLDEN") == "1":
        rows = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(layouts.items())]
        GOLDEN.write_text("{\n" + ",\n".join(rows) + "\n}\n")
    golden = json.loads(GOLDEN.read_text())
    assert layouts == golden


def test_every_public_layer_has_a_descriptor():
    public = {n for n in paddle.layer.__all__ if n not in NOT_LAYERS}
    covered = {d["name"] for d in DESCRIPTORS}
    assert sorted(public - covered) == []
