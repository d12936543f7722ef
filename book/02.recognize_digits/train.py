# %% [markdown]
# # Chapter 2, recognize digits
#
# Softmax regression, a multilayer perceptron and LeNet-5 on MNIST (v2 book, paddle_lite).
# Run as a script, `python book/02.recognize_digits/train.py [--net lenet|mlp|softmax]
# [--num-passes 5]`, or open the paired notebook `train.ipynb` (the same program;
# `jupytext --sync book/02.recognize_digits/train.py` regenerates it): there the cost
# curve is drawn live and a progress bar follows each pass.

# %%
import argparse
import os
import sys
import tempfile

import numpy as np

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # run in Jupyter

# %% tags=["parameters"]
net = "lenet"  # or "mlp" or "softmax"
num_passes = 5
train_reader = None  # None: paddle.dataset.mnist.train()
test_reader = None  # None: paddle.dataset.mnist.test()


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


# %%
NETWORKS = {
    "softmax": softmax_regression,
    "mlp": multilayer_perceptron,
    "lenet": convolutional_neural_network,
}


# %%
def main(net="lenet", num_passes=5, train_reader=None, test_reader=None, save_dir=None):
    save_dir = save_dir or tempfile.mkdtemp(prefix="paddle_book_")  # never the cwd unasked
    paddle.init(use_gpu=with_gpu, trainer_count=1)

    # define network topology
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

    train_reader = train_reader or paddle.dataset.mnist.train()
    test_reader = test_reader or paddle.dataset.mnist.test()
    lists = []
    ploter = paddle.plot.Ploter("Train cost", "Test cost") if in_notebook else None
    progress = paddle.event.progress() if in_notebook else None
    step = [0]

    def event_handler(event):
        if progress is not None:
            progress(event)
        if isinstance(event, paddle.event.EndIteration):
            if ploter is not None and step[0] % 10 == 0:
                ploter.append("Train cost", step[0], event.cost)
                if step[0] % 100 == 0:
                    ploter.plot()  # redraws the curve in place
            if event.batch_id % 100 == 0 and not in_notebook:
                print(
                    "Pass %d, Batch %d, Cost %f, %s"
                    % (event.pass_id, event.batch_id, event.cost, event.metrics)
                )
            step[0] += 1
        if isinstance(event, paddle.event.EndPass):
            # save parameters
            with open(os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id), "wb") as f:
                trainer.save_parameter_to_tar(f)

            result = trainer.test(reader=paddle.batch(test_reader, batch_size=128))
            print("Test with Pass %d, Cost %f, %s\n" % (event.pass_id, result.cost, result.metrics))
            lists.append(
                (event.pass_id, result.cost, result.metrics["classification_error_evaluator"])
            )
            if ploter is not None:
                ploter.append("Test cost", step[0], result.cost)
                ploter.plot()

    trainer.train(
        reader=paddle.batch(paddle.reader.shuffle(train_reader, buf_size=8192), batch_size=128),
        event_handler=event_handler,
        num_passes=num_passes,
    )

    # find the best pass
    best = sorted(lists, key=lambda list: float(list[1]))[0]
    print("Best pass is %s, testing Avgcost is %s" % (best[0], best[1]))
    print("The classification accuracy is %.2f%%" % (100 - float(best[2]) * 100))

    # inference on the first test image (the book loads image/infer_3.png)
    first_image, first_label = next(iter(test_reader()))
    probs = paddle.infer(output_layer=predict, parameters=parameters, input=[(first_image,)])
    lab = np.argsort(-probs)
    print("Label of the first test image is: %d (true label %d)" % (lab[0][0], first_label))
    return best


# %%
if __name__ == "__main__" and in_notebook:
    best = main(net, num_passes, train_reader, test_reader)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Chapter 2, recognize digits (v2 book).")
    parser.add_argument("--net", choices=sorted(NETWORKS), default="lenet")
    parser.add_argument("--num-passes", type=int, default=5)
    parser.add_argument(
        "--save-dir", default=None, help="where to save (default: a new temporary folder)"
    )
    args = parser.parse_args()
    main(args.net, args.num_passes, save_dir=args.save_dir)
