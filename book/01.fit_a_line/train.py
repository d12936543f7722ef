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
# # Chapter 1, fit a line
#
# Linear regression of Boston house prices (v2 book, paddle_lite): thirteen features of a
# house in, its price (in $1000) out, trained with the squared error.
#
# In Jupyter (`train.ipynb`, paired with this file by jupytext) run all cells: a progress
# bar follows each pass, the train and test cost are drawn as they fall, and the cells
# leave `history`, `parameters` and `result` to inspect. As a script:
# `python book/01.fit_a_line/train.py [--num-passes 30] [--save-dir DIR] [--plot]`.
# The parameters are saved into `save_dir`, where `infer.py` reads them.

# %% tags=["parameters"]
num_passes = 30  # passes over the 404 training houses
save_dir = "~/.cache/paddle_lite/book/01.fit_a_line"  # the trained parameters (infer.py reads)
plot = True  # draw the cost curves (a script writes save_dir/train_and_test.png with --plot)

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 1, fit a line (v2 book).")
    parser.add_argument("--num-passes", type=int, default=num_passes)
    parser.add_argument("--save-dir", default=save_dir, help="default: %(default)s")
    parser.add_argument("--plot", action="store_true", help="write train_and_test.png there")
    args = parser.parse_args()
    num_passes, save_dir, plot = args.num_passes, args.save_dir, args.plot

# %%
import os
import sys

import paddle_lite as paddle
import paddle_lite.dataset.uci_housing as uci_housing

with_gpu = os.getenv("WITH_GPU", "0") != "0"
paddle.init(use_gpu=with_gpu, trainer_count=1)
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # in Jupyter
save_dir = os.path.expanduser(save_dir)
os.makedirs(save_dir, exist_ok=True)

# %% [markdown]
# ## The network
#
# One fully connected layer with a linear activation: `y = x·w + b`.

# %%
x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
y_predict = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())
y = paddle.layer.data(name="y", type=paddle.data_type.dense_vector(1))
cost = paddle.layer.square_error_cost(input=y_predict, label=y)

parameters = paddle.parameters.create(cost)
optimizer = paddle.optimizer.Momentum(momentum=0)
trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)

# %% [markdown]
# ## Training
#
# Batches of 2 shuffled houses; after each pass the test set's cost is printed and drawn,
# and every 10th pass's parameters are saved.

# %%
feeding = {"x": 0, "y": 1}
train_reader = paddle.batch(paddle.reader.shuffle(uci_housing.train(), buf_size=500), batch_size=2)
test_reader = paddle.batch(uci_housing.test(), batch_size=2)
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
        if event.pass_id % 10 == 0:
            trainer.save_parameter_to_tar(
                os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id)
            )
        result = trainer.test(reader=test_reader, feeding=feeding)
        print("Test %d, Cost %f" % (event.pass_id, result.cost))
        ploter.append("Test cost", step, result.cost)
        if plot:
            ploter.plot(plot_file)  # in Jupyter: redrawn in place


history = trainer.train(
    reader=train_reader, feeding=feeding, event_handler=event_handler, num_passes=num_passes
)
trainer.save_parameter_to_tar(os.path.join(save_dir, "fit_a_line.tar"))
print("The trained parameters are in %s" % os.path.join(save_dir, "fit_a_line.tar"))

# %% [markdown]
# ## Results
#
# The test cost of the trained line, and its predictions for the first five test houses.

# %%
result = trainer.test(reader=test_reader, feeding=feeding)
print("Test cost after %d passes: %f" % (num_passes, result.cost))

test_data = [(features,) for features, _ in uci_housing.test()()][:5]
test_label = [price for _, price in uci_housing.test()()][:5]
probs = paddle.infer(output_layer=y_predict, parameters=parameters, input=test_data)
for label, predict in zip(test_label, probs, strict=True):
    print("label=" + str(label[0]) + ", predict=" + str(predict[0]))
