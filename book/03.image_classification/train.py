# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,-all
#     notebook_metadata_filter: kernelspec,jupytext
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Chapter 3, image classification
#
# Chapter 3, image classification: VGG or ResNet on CIFAR-10 (v2 book).
#
# Run: `python book/03.image_classification/train.py [--net vgg|resnet] [--num-passes 200]`
#
# The paired notebook `train.ipynb` is this program (`jupytext --sync
# book/03.image_classification/train.py` regenerates it); in Jupyter the training cost is drawn
# live with a progress bar.

# %%
import argparse
import os
import sys
import tempfile

import paddle_lite as paddle

# vgg.py and resnet.py sit beside this file (in Jupyter: the working directory)
sys.path.insert(0, os.path.dirname(os.path.abspath(globals().get("__file__", "train.py"))))
from resnet import resnet_cifar10  # noqa: E402
from vgg import vgg_bn_drop  # noqa: E402

with_gpu = os.getenv("WITH_GPU", "0") != "0"
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # run in Jupyter


# %% tags=["parameters"]
net = "vgg"  # or "resnet"
num_passes = 200


# %%
def main(net="vgg", num_passes=200, train_reader=None, test_reader=None, save_dir=None, depth=32):
    save_dir = save_dir or tempfile.mkdtemp(prefix="paddle_book_")  # never the cwd unasked
    datadim = 3 * 32 * 32
    classdim = 10

    # PaddlePaddle init
    paddle.init(use_gpu=with_gpu, trainer_count=1)

    image = paddle.layer.data(name="image", type=paddle.data_type.dense_vector(datadim))

    # Add neural network config
    # option 1. resnet
    # net = resnet_cifar10(image, depth=32)
    # option 2. vgg
    body = vgg_bn_drop(image) if net == "vgg" else resnet_cifar10(image, depth=depth)

    out = paddle.layer.fc(input=body, size=classdim, act=paddle.activation.Softmax())

    lbl = paddle.layer.data(name="label", type=paddle.data_type.integer_value(classdim))
    cost = paddle.layer.classification_cost(input=out, label=lbl)

    # Create parameters
    parameters = paddle.parameters.create(cost)

    # Create optimizer
    momentum_optimizer = paddle.optimizer.Momentum(
        momentum=0.9,
        regularization=paddle.optimizer.L2Regularization(rate=0.0002 * 128),
        learning_rate=0.1 / 128.0,
        learning_rate_decay_a=0.1,
        learning_rate_decay_b=50000 * 100,
        learning_rate_schedule="discexp",
    )

    train_reader = train_reader or paddle.dataset.cifar.train10()
    test_reader = test_reader or paddle.dataset.cifar.test10()

    # End batch and end pass event handler
    def event_handler(event):
        if isinstance(event, paddle.event.EndIteration):
            if event.batch_id % 100 == 0:
                print(
                    "\nPass %d, Batch %d, Cost %f, %s"
                    % (event.pass_id, event.batch_id, event.cost, event.metrics)
                )
            else:
                sys.stdout.write(".")
                sys.stdout.flush()
        if isinstance(event, paddle.event.EndPass):
            # save parameters
            with open(os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id), "wb") as f:
                trainer.save_parameter_to_tar(f)

            result = trainer.test(
                reader=paddle.batch(test_reader, batch_size=128), feeding={"image": 0, "label": 1}
            )
            print("\nTest with Pass %d, %s" % (event.pass_id, result.metrics))

    # Create trainer
    trainer = paddle.trainer.SGD(
        cost=cost, parameters=parameters, update_equation=momentum_optimizer
    )

    # Save the inference topology to protobuf.
    inference_topology = paddle.topology.Topology(layers=out)
    with open(os.path.join(save_dir, "inference_topology.pkl"), "wb") as f:
        inference_topology.serialize_for_inference(f)

    if in_notebook:  # the cost curve drawn live and a progress bar
        event_handler = paddle.plot.live(event_handler)
    trainer.train(
        reader=paddle.batch(paddle.reader.shuffle(train_reader, buf_size=50000), batch_size=128),
        num_passes=num_passes,
        event_handler=event_handler,
        feeding={"image": 0, "label": 1},
    )

    # inference on the first test image (the book loads image/dog.png)
    first_image, first_label = next(iter(test_reader()))
    probs = paddle.infer(output_layer=out, parameters=parameters, input=[(first_image,)])
    print("\nLabel of the first test image is: %d (true label %d)" % (probs.argmax(), first_label))
    return trainer.test(
        reader=paddle.batch(test_reader, batch_size=128), feeding={"image": 0, "label": 1}
    )


# %%
if __name__ == "__main__" and in_notebook:
    result = main(net, num_passes)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Chapter 3 of the v2 book.")
    parser.add_argument("--net", choices=["vgg", "resnet"], default="vgg")
    parser.add_argument("--num-passes", type=int, default=200)
    parser.add_argument(
        "--save-dir", default=None, help="where to save (default: a new temporary folder)"
    )
    args = parser.parse_args()
    main(args.net, args.num_passes, save_dir=args.save_dir)
