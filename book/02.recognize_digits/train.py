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
# # Chapter 2, recognize digits
#
# Softmax regression, a multilayer perceptron and LeNet-5 on MNIST (v2 book, paddle_lite).
#
# In Jupyter (`train.ipynb`, paired with this file by jupytext) run all cells: a progress
# bar follows each pass, the train and test cost are drawn as they fall, and the cells
# leave `history`, `tests`, `best` and `parameters` to inspect. As a script:
# `python book/02.recognize_digits/train.py [--net lenet|mlp|softmax] [--num-passes 5]
# [--save-dir DIR] [--plot]`. Each pass's parameters are saved into `save_dir`.

# %% tags=["parameters"]
net = "lenet"  # or "mlp" or "softmax"
num_passes = 5  # passes over the 60,000 training images
save_dir = "~/.cache/paddle_lite/book/02.recognize_digits"  # each pass's parameters
plot = True  # draw the cost curves (a script writes save_dir/train_and_test.png with --plot)
train_reader = None  # None: paddle.dataset.mnist.train()
test_reader = None  # None: paddle.dataset.mnist.test()

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 2, recognize digits (v2 book).")
    parser.add_argument("--net", choices=["lenet", "mlp", "softmax"], default=net)
    parser.add_argument("--num-passes", type=int, default=num_passes)
    parser.add_argument("--save-dir", default=save_dir, help="default: %(default)s")
    parser.add_argument("--plot", action="store_true", help="write train_and_test.png there")
    args = parser.parse_args()
    net, num_passes, save_dir, plot = args.net, args.num_passes, args.save_dir, args.plot

# %%
import os
import sys

import numpy as np

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
paddle.init(use_gpu=with_gpu, trainer_count=1)
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # in Jupyter
save_dir = os.path.expanduser(save_dir)
os.makedirs(save_dir, exist_ok=True)
if train_reader is None:
    train_reader = paddle.dataset.mnist.train()
if test_reader is None:
    test_reader = paddle.dataset.mnist.test()

# %% [markdown]
# ## The networks
#
# Three classifiers of a 28x28 image into ten digits; `net` picks one.


# %%
def softmax_regression(img):
    predict = paddle.layer.fc(input=img, size=10, act=paddle.activation.Softmax())
    return predict


def multilayer_perceptron(img):
    # The first fully-connected layer
    hidden1 = paddle.layer.fc(input=img, size=128, act=paddle.activation.Relu())
    # The second fully-connected layer and the according activation function
    hidden2 = paddle.layer.fc(input=hidden1, size=64, act=paddle.activation.Relu())
    # The thrid fully-connected layer, note that the hidden size should be 10,
    # which is the number of unique digits
    predict = paddle.layer.fc(input=hidden2, size=10, act=paddle.activation.Softmax())
    return predict


def convolutional_neural_network(img):
    # first conv layer
    conv_pool_1 = paddle.networks.simple_img_conv_pool(
        input=img,
        filter_size=5,
        num_filters=20,
        num_channel=1,
        pool_size=2,
        pool_stride=2,
        act=paddle.activation.Relu(),
    )
    # second conv layer
    conv_pool_2 = paddle.networks.simple_img_conv_pool(
        input=conv_pool_1,
        filter_size=5,
        num_filters=50,
        num_channel=20,
        pool_size=2,
        pool_stride=2,
        act=paddle.activation.Relu(),
    )
    # fully-connected layer
    predict = paddle.layer.fc(input=conv_pool_2, size=10, act=paddle.activation.Softmax())
    return predict


NETWORKS = {
    "softmax": softmax_regression,
    "mlp": multilayer_perceptron,
    "lenet": convolutional_neural_network,
}

# %%
images = paddle.layer.data(name="pixel", type=paddle.data_type.dense_vector(784))
label = paddle.layer.data(name="label", type=paddle.data_type.integer_value(10))
predict = NETWORKS[net](images)
cost = paddle.layer.classification_cost(input=predict, label=label)

parameters = paddle.parameters.create(cost)
optimizer = paddle.optimizer.Momentum(
    learning_rate=0.1 / 128.0,
    momentum=0.9,
    regularization=paddle.optimizer.L2Regularization(rate=0.0005 * 128),
)
trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)

# %% [markdown]
# ## Training
#
# Batches of 128 shuffled images; after each pass its parameters are saved and the test
# set's cost and error are printed, drawn and kept in `tests`.

# %%
tests = []  # (pass, test cost, test error) per pass
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
        result = trainer.test(reader=paddle.batch(test_reader, batch_size=128))
        print("Test with Pass %d, Cost %f, %s" % (event.pass_id, result.cost, result.metrics))
        tests.append((event.pass_id, result.cost, result.metrics["classification_error_evaluator"]))
        ploter.append("Test cost", step, result.cost)
        if plot:
            ploter.plot(plot_file)  # in Jupyter: redrawn in place


history = trainer.train(
    reader=paddle.batch(paddle.reader.shuffle(train_reader, buf_size=8192), batch_size=128),
    event_handler=event_handler,
    num_passes=num_passes,
)

# %% [markdown]
# ## Results
#
# The pass with the lowest test cost, and the network's answer for the first test image
# (the book loads `image/infer_3.png`).

# %%
best = sorted(tests, key=lambda pass_result: float(pass_result[1]))[0]
print("Best pass is %s, testing Avgcost is %s" % (best[0], best[1]))
print("The classification accuracy is %.2f%%" % (100 - float(best[2]) * 100))

first_image, first_label = next(iter(test_reader()))
probs = paddle.infer(output_layer=predict, parameters=parameters, input=[(first_image,)])
lab = np.argsort(-probs)
print("Label of the first test image is: %d (true label %d)" % (lab[0][0], first_label))
