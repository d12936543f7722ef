# %% [markdown]
# # Chapter 1, fit a line
#
# Linear regression of Boston house prices (v2 book, paddle_lite). Run as a script,
# `python book/01.fit_a_line/train.py [--num-passes 30] [--plot]`, or open the paired
# notebook `train.ipynb` (the same program; `jupytext --sync book/01.fit_a_line/train.py`
# regenerates it): there the cost curve is drawn live and a progress bar follows the pass.

# %%
import argparse
import os
import sys
import tempfile

import paddle_lite as paddle
import paddle_lite.dataset.uci_housing as uci_housing

with_gpu = os.getenv("WITH_GPU", "0") != "0"
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # run in Jupyter

# %% tags=["parameters"]
num_passes = 30


# %%
def main(num_passes=30, save_dir=None, plot=False):
    save_dir = save_dir or tempfile.mkdtemp(prefix="paddle_book_")  # never the cwd unasked
    paddle.init(use_gpu=with_gpu, trainer_count=1)

    # network config
    x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
    y_predict = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
    y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
    cost = paddle.layer.square_error_cost(input=y_predict, label=y)

    # create parameters
    parameters = paddle.parameters.create(cost)

    # create optimizer
    optimizer = paddle.optimizer.Momentum(momentum=0)

    trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)

    feeding = {"x": 0, "y": 1}
    ploter = paddle.plot.Ploter("Train cost", "Test cost") if plot else None
    progress = paddle.event.progress() if in_notebook else None
    step = [0]

    # event_handler to print training and testing info
    def event_handler(event):
        if progress is not None:
            progress(event)
        if isinstance(event, paddle.event.EndIteration):
            if ploter is not None and step[0] % 10 == 0:
                ploter.append("Train cost", step[0], event.cost)
            if event.batch_id % 100 == 0 and not in_notebook:
                print("Pass %d, Batch %d, Cost %f" % (event.pass_id, event.batch_id, event.cost))
            step[0] += 1

        if isinstance(event, paddle.event.EndPass):
            if event.pass_id % 10 == 0:
                with open(os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id), "wb") as f:
                    trainer.save_parameter_to_tar(f)
            result = trainer.test(
                reader=paddle.batch(uci_housing.test(), batch_size=2), feeding=feeding
            )
            print("Test %d, Cost %f" % (event.pass_id, result.cost))
            if ploter is not None:
                ploter.append("Test cost", step[0], result.cost)
                # in Jupyter: redraw the curve in place; in a terminal: write a PNG file
                ploter.plot(None if in_notebook else os.path.join(save_dir, "train_and_test.png"))

    # training
    trainer.train(
        reader=paddle.batch(paddle.reader.shuffle(uci_housing.train(), buf_size=500), batch_size=2),
        feeding=feeding,
        event_handler=event_handler,
        num_passes=num_passes,
    )

    # inference
    test_data_creator = paddle.dataset.uci_housing.test()
    test_data = []
    test_label = []

    for item in test_data_creator():
        test_data.append((item[0],))
        test_label.append(item[1])
        if len(test_data) == 5:
            break

    # load parameters from tar file.
    # users can remove the comments and change the model name
    # with open('params_pass_20.tar', 'r') as f:
    #     parameters = paddle.parameters.Parameters.from_tar(f)

    probs = paddle.infer(output_layer=y_predict, parameters=parameters, input=test_data)

    for i in range(len(probs)):
        print("label=" + str(test_label[i][0]) + ", predict=" + str(probs[i][0]))
    return trainer.test(reader=paddle.batch(uci_housing.test(), batch_size=2), feeding=feeding)


# %%
if __name__ == "__main__" and in_notebook:
    result = main(num_passes, plot=True)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Chapter 1, fit a line (v2 book).")
    parser.add_argument("--num-passes", type=int, default=30)
    parser.add_argument(
        "--save-dir", default=None, help="where to save (default: a new temporary folder)"
    )
    parser.add_argument(
        "--plot", action="store_true", help="write train_and_test.png into the save dir"
    )
    args = parser.parse_args()
    main(args.num_passes, args.save_dir, args.plot)
