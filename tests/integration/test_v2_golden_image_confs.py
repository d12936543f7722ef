"""The image fields of ``Topology.proto()`` against v2's golden ModelConfig files.

v2 wrote a ``conv_conf`` on the first input of ``exconv``/``exconvt`` layers, a
``pool_conf`` on a ``pool`` layer's and an ``image_conf`` on a ``batch_norm`` layer's, and
``num_filters``, ``epsilon``, ``height`` and ``width`` on the layers; model converters
(MMdnn's PaddleParser) read them, with protobuf's ``HasField``. Every such field of every
golden config is compared here with ours.
"""

from __future__ import annotations

import numpy as np
import pytest

import paddle_lite as paddle
from tests.integration import v2_golden

TYPES = {"exconv", "exconvt", "pool", "norm", "batch_norm"}
SUB_CONFS = ("conv_conf", "pool_conf", "norm_conf", "image_conf")
LAYER_FIELDS = ("num_filters", "shared_biases", "epsilon", "moving_average_fraction")
LAYER_FIELDS += ("height", "width", "depth", "drop_rate")
CONFIGS = ("img_layers", "img_trans_layers", "test_BatchNorm3D", "test_bilinear_interp")
CONFIGS += ("test_maxout", "test_pad", "test_pooling3D_layer", "test_roi_pool_layer")


def _ours(name: str):
    import importlib

    from paddle_lite.topology import Topology

    module = importlib.import_module(f"tests.integration.v2_configs.{name}")
    with paddle.layer.name_scope():
        outputs, extras = module.network()
        return Topology(outputs, extras or None).proto()


def _field_differences(want: dict, got, path: str) -> list[str]:
    out = []
    for field, values in want.items():
        if isinstance(values[-1], dict):
            continue
        if not got.HasField(field):
            out.append(f"{path}.{field}: want {values[-1]!r}, not set")
        elif not v2_golden._equal(values[-1], getattr(got, field)):
            out.append(f"{path}.{field}: want {values[-1]!r}, got {getattr(got, field)!r}")
    return out


def _layer_differences(want: dict, got) -> list[str]:
    name = want["name"][-1]
    layer_want = {f: want[f] for f in LAYER_FIELDS if f in want}
    out = _field_differences(layer_want, got, name)
    for sub in SUB_CONFS:
        inputs = want.get("inputs", [])
        if inputs and sub in inputs[0]:
            if not got.inputs[0].HasField(sub):
                out.append(f"{name}.inputs[0].{sub}: not set")
                continue
            got_sub = getattr(got.inputs[0], sub)
            out += _field_differences(inputs[0][sub][-1], got_sub, f"{name}.{sub}")
    return out


@pytest.mark.parametrize("name", CONFIGS)
def test_image_fields_match_v2_golden(name):
    golden = v2_golden.golden(name)
    ours = {layer.name: layer for layer in _ours(name).layers}
    checked = [w for w in golden["layers"] if w["type"][-1] in TYPES]
    assert checked, f"{name} has no layer of the types {sorted(TYPES)}"
    diffs = [d for w in checked for d in _layer_differences(w, ours[w["name"][-1]])]
    assert diffs == []


def test_has_field_follows_what_v2_sets():
    image = paddle.layer.data(name="im", type=paddle.data_type.dense_vector(2 * 6 * 6), height=6)
    conv = paddle.layer.img_conv(
        input=image, filter_size=(3, 5), num_channels=2, num_filters=4, stride=(1, 2),
        padding=(1, 2), bias_attr=False,
    )  # fmt: skip
    flat = paddle.layer.batch_norm(
        input=paddle.layer.data(name="v", type=paddle.data_type.dense_vector(5))
    )
    layers = {layer.name: layer for layer in paddle.layer.parse_network([conv, flat]).layers}
    got = layers[conv.name]
    assert not got.HasField("bias_parameter_name") and got.HasField("active_type")
    assert got.inputs[0].HasField("input_parameter_name") and not got.HasField("pool_conf")
    spec = got.inputs[0].conv_conf
    # x is the width, y the height: a 3x5 (x by y) filter, stride 1 by 2, padding 1 by 2
    want = dict(filter_size=3, filter_size_y=5, stride=1, stride_y=2, padding=1, padding_y=2)
    want |= dict(img_size=6, img_size_y=6, output_x=6, output_y=3, channels=2, filter_channels=2)
    assert {k: getattr(spec, k) for k in want} == want
    assert (got.num_filters, got.height, got.width) == (4, 3, 6)
    # the filter reshapes as MMdnn reads it: [num_filters, channels, y, x]
    w = paddle.parameters.create(conv).get(got.inputs[0].input_parameter_name)
    assert np.asarray(w).reshape(4, 2, 5, 3).shape == (4, 2, 5, 3)
    bn = layers[flat.name]
    conf = bn.inputs[0].image_conf
    assert (conf.channels, conf.img_size, conf.img_size_y) == (5, 1, 1)
    assert not bn.HasField("height") and bn.epsilon == pytest.approx(1e-5)


def test_drop_rate_is_set_where_v2_set_it():
    """Every layer of every golden config has ``drop_rate`` exactly where v2 wrote one."""
    import warnings

    diffs = []
    for name in v2_golden.config_names():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = {layer.name: layer for layer in _ours(name).layers}
        for want in v2_golden.golden(name)["layers"]:
            got = ours.get(want["name"][-1])
            rate = want.get("drop_rate", [None])[-1]
            if got is not None and got.HasField("drop_rate") != (rate is not None):
                diffs.append(f"{name}/{want['name'][-1]}: want {rate}")
            elif rate is not None and got.drop_rate != pytest.approx(rate):
                diffs.append(f"{name}/{want['name'][-1]}: want {rate}, got {got.drop_rate}")
    assert diffs == []
