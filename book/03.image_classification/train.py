# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: tags,active,-all
#     notebook_metadata_filter: kernelspec,jupytext
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.7
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Chapter 3, image classification
#
# VGG or ResNet on CIFAR-10 (v2 book, paddle_lite).
#
# In Jupyter (`train.ipynb`, paired with this file by jupytext) run all cells: a progress
# bar follows each pass, the train and test cost are drawn as they fall, and the cells
# leave `history`, `parameters` and `result` to inspect. As a script:
# `python book/03.image_classification/train.py [--net vgg|resnet] [--num-passes 200]
# [--save-dir DIR] [--plot]`. Each pass's parameters and the inference topology are
# saved into `save_dir`.

# %% tags=["parameters"]
net = "vgg"  # or "resnet"
num_passes = 200  # passes over the 50,000 training images
save_dir = "~/.cache/paddle_lite/book/03.image_classification"  # parameters, topology
plot = True  # draw the cost curves (a script writes save_dir/train_and_test.png with --plot)
train_reader = None  # None: paddle.dataset.cifar.train10()
test_reader = None  # None: paddle.dataset.cifar.test10()
depth = 32  # the ResNet's depth

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 3, image classification (v2 book).")
    parser.add_argument("--net", choices=["vgg", "resnet"], default=net)
    parser.add_argument("--num-passes", type=int, default=num_passes)
    parser.add_argument("--save-dir", default=save_dir, help="default: %(default)s")
    parser.add_argument("--plot", action="store_true", help="write train_and_test.png there")
    args = parser.parse_args()
    net, num_passes, save_dir, plot = args.net, args.num_passes, args.save_dir, args.plot

# %%
import os
import sys

import paddle_lite as paddle

# vgg.py and resnet.py sit beside this file (in Jupyter: the working directory)
sys.path.insert(0, os.path.dirname(os.path.abspath(globals().get("__file__", "train.py"))))
from resnet import resnet_cifar10
from vgg import vgg_bn_drop

with_gpu = os.getenv("WITH_GPU", "0") != "0"
paddle.init(use_gpu=with_gpu, trainer_count=1)
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # in Jupyter
save_dir = os.path.expanduser(save_dir)
os.makedirs(save_dir, exist_ok=True)
if train_reader is None:
    train_reader = paddle.dataset.cifar.train10()
if test_reader is None:
    test_reader = paddle.dataset.cifar.test10()

# %% [markdown]
# ## The network
#
# VGG with batch norm and dropout (`vgg.py`) or a ResNet (`resnet.py`), a softmax on top.

# %%
datadim = 3 * 32 * 32
classdim = 10

image = paddle.layer.data(name="image", type=paddle.data_type.dense_vector(datadim))
body = vgg_bn_drop(image) if net == "vgg" else resnet_cifar10(image, depth=depth)
out = paddle.layer.fc(input=body, size=classdim, act=paddle.activation.Softmax())
lbl = paddle.layer.data(name="label", type=paddle.data_type.integer_value(classdim))
cost = paddle.layer.classification_cost(input=out, label=lbl)

parameters = paddle.parameters.create(cost)
momentum_optimizer = paddle.optimizer.Momentum(
    momentum=0.9,
    regularization=paddle.optimizer.L2Regularization(rate=0.0002 * 128),
    learning_rate=0.1 / 128.0,
    learning_rate_decay_a=0.1,
    learning_rate_decay_b=50000 * 100,
    learning_rate_schedule="discexp",
)
trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=momentum_optimizer)

# Save the inference topology to protobuf.
inference_topology = paddle.topology.Topology(layers=out)
with open(os.path.join(save_dir, "inference_topology.pkl"), "wb") as f:
    inference_topology.serialize_for_inference(f)

# %% [markdown]
# ## Training
#
# Batches of 128 shuffled images; after each pass its parameters are saved and the test
# set's metrics are printed and its cost drawn.

# %%
feeding = {"image": 0, "label": 1}
progress = paddle.event.progress()
ploter = paddle.plot.Ploter("Train cost", "Test cost")
plot_file = None if in_notebook else os.path.join(save_dir, "train_and_test.png")
step = 0


def event_handler(event):
    global step
    progress(event)
    if isinstance(event, paddle.event.EndIteration):
        if step % 10 == 0:
            ploter.append("Train cost", step, event.cost)
        step += 1
    if isinstance(event, paddle.event.EndPass):
        trainer.save_parameter_to_tar(os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id))
        result = trainer.test(reader=paddle.batch(test_reader, batch_size=128), feeding=feeding)
        print("Test with Pass %d, %s" % (event.pass_id, result.metrics))
        ploter.append("Test cost", step, result.cost)
        if plot:
            ploter.plot(plot_file)  # in Jupyter: redrawn in place


history = trainer.train(
    reader=paddle.batch(paddle.reader.shuffle(train_reader, buf_size=50000), batch_size=128),
    num_passes=num_passes,
    event_handler=event_handler,
    feeding=feeding,
)

# %% [markdown]
# ## Results
#
# The test metrics, and the network's answer for the first test image (the book loads
# `image/dog.png`).

# %%
result = trainer.test(reader=paddle.batch(test_reader, batch_size=128), feeding=feeding)
print("Test cost %f, %s" % (result.cost, result.metrics))

first_image, first_label = next(iter(test_reader()))
probs = paddle.infer(output_layer=out, parameters=parameters, input=[(first_image,)])
print("Label of the first test image is: %d (true label %d)" % (probs.argmax(), first_label))
