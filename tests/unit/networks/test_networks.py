"""Composite networks: structure, names and sizes as v2 builds them."""

import jax
import numpy as np

import paddle_lite as paddle
from paddle_lite._src.compile import forward

L, DT, A, N = paddle.layer, paddle.data_type, paddle.activation, paddle.networks
Topology = paddle.topology.Topology


def _img(dim=784, name="img"):
    return L.data(name=name, type=DT.dense_vector(dim))


def test_simple_img_conv_pool_is_conv_then_pool():
    out = N.simple_img_conv_pool(
        input=_img(),
        filter_size=5,
        num_filters=20,
        num_channel=1,
        pool_size=2,
        pool_stride=2,
        act=A.Relu(),
    )
    conv = out.inputs[0]
    assert (conv.name, out.name) == ("__conv_pool_0___conv", "__conv_pool_0___pool")
    assert (conv.kind, out.kind) == ("img_conv", "img_pool")
    assert conv.spec.image == (20, 24, 24) and out.spec.image == (20, 12, 12)
    assert isinstance(conv.activation, A.Relu)


def test_img_conv_bn_pool_puts_the_activation_on_batch_norm():
    out = N.img_conv_bn_pool(
        input=_img(),
        filter_size=3,
        num_filters=4,
        num_channel=1,
        pool_size=2,
        pool_stride=2,
        act=A.Relu(),
        conv_padding=1,
    )
    bn = out.inputs[0]
    conv = bn.inputs[0]
    assert [conv.name, bn.name, out.name] == [
        "__conv_bn_pool_0___conv",
        "__conv_bn_pool_0___bn",
        "__conv_bn_pool_0___pool",
    ]
    assert isinstance(conv.activation, A.Linear) and isinstance(bn.activation, A.Relu)
    assert out.spec.image == (4, 14, 14)


def test_img_conv_group_with_batch_norm_and_dropout():
    out = N.img_conv_group(
        input=_img(3 * 8 * 8),
        num_channels=3,
        conv_num_filter=[6, 6],
        pool_size=2,
        pool_stride=2,
        conv_act=A.Relu(),
        conv_with_batchnorm=True,
        conv_batchnorm_drop_rate=[0.3, 0],
    )
    kinds = [n.kind for n in Topology(out).nodes]
    assert kinds == ["data", "img_conv", "batch_norm", "img_conv", "batch_norm", "img_pool"]
    bn1, bn2 = [n for n in Topology(out).nodes if n.kind == "batch_norm"]
    assert bn1.attrs.get("drop_rate") == 0.3 and not bn2.attrs.get("drop_rate")
    assert out.spec.image == (6, 4, 4)


def test_small_vgg_and_vgg16_sizes_and_parameter_counts():
    small = N.small_vgg(input_image=_img(3 * 32 * 32), num_channels=3, num_classes=10)
    assert small.size == 10 and isinstance(small.activation, A.Softmax)
    convs = [n for n in Topology(small).nodes if n.kind == "img_conv"]
    assert [c.spec.image[0] for c in convs] == [64, 64, 128, 128, 256, 256, 256, 512, 512, 512]
    L.reset_names()
    vgg = N.vgg_16_network(input_image=_img(3 * 224 * 224, "big"), num_channels=3)
    total = sum(p.size for p in Topology(vgg).param_specs())
    assert vgg.size == 1000
    assert total == 138_357_544  # VGG-16's well-known parameter count


def test_small_vgg_runs():
    out = N.small_vgg(input_image=_img(3 * 32 * 32), num_channels=3, num_classes=10)
    params = paddle.parameters.create(out)
    x = np.random.default_rng(0).normal(size=(2, 3 * 32 * 32)).astype(np.float32)
    # jitted: one compile of the whole network costs a third of running its ops eagerly
    run = jax.jit(lambda p, img: forward([out], p, {"img": img})[0][0])
    probs = np.asarray(run(params.values(), x))
    assert probs.shape == (2, 10) and np.all(probs >= 0)
    np.testing.assert_allclose(probs.sum(1), [1.0, 1.0], rtol=1e-5)
