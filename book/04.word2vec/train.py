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
# # Chapter 4, word2vec
#
# An N-gram neural language model on PTB (v2 book, paddle_lite): four words in, the next
# word out, through a shared word embedding whose table is the chapter's result.
#
# In Jupyter (`train.ipynb`, paired with this file by jupytext) run all cells: a progress
# bar follows each pass, the train and test cost are drawn as they fall, and the cells
# leave `history`, `parameters`, `embeddings` and `result` to inspect. As a script:
# `python book/04.word2vec/train.py [--num-passes 100] [--save-dir DIR] [--plot]`. Each
# pass's parameters, the dictionary and the embedding table are saved into `save_dir`.

# %% tags=["parameters"]
num_passes = 100  # passes over the PTB 5-grams
save_dir = "~/.cache/paddle_lite/book/04.word2vec"  # parameters, word_dict, embedding_table
plot = True  # draw the cost curves (a script writes save_dir/train_and_test.png with --plot)
word_dict = None  # None: paddle.dataset.imikolov.build_dict()
train_reader = None  # None: paddle.dataset.imikolov.train(word_dict, N)
test_reader = None  # None: paddle.dataset.imikolov.test(word_dict, N)

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 4, word2vec (v2 book).")
    parser.add_argument("--num-passes", type=int, default=num_passes)
    parser.add_argument("--save-dir", default=save_dir, help="default: %(default)s")
    parser.add_argument("--plot", action="store_true", help="write train_and_test.png there")
    args = parser.parse_args()
    num_passes, save_dir, plot = args.num_passes, args.save_dir, args.plot

# %%
import math
import os
import sys

import numpy as np

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
paddle.init(use_gpu=with_gpu, trainer_count=3)  # three devices, data-parallel
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # in Jupyter
save_dir = os.path.expanduser(save_dir)
os.makedirs(save_dir, exist_ok=True)

embsize = 32
hiddensize = 256
N = 5

if word_dict is None:
    word_dict = paddle.dataset.imikolov.build_dict()
if train_reader is None:
    train_reader = paddle.dataset.imikolov.train(word_dict, N)
if test_reader is None:
    test_reader = paddle.dataset.imikolov.test(word_dict, N)
dict_size = len(word_dict)

# %% [markdown]
# ## The network
#
# The four context words share one embedding table (`_proj`), concatenated into a
# sigmoid hidden layer and a softmax over the dictionary.


# %%
def wordemb(inlayer):
    wordemb = paddle.layer.table_projection(
        input=inlayer,
        size=embsize,
        param_attr=paddle.attr.Param(
            name="_proj", initial_std=0.001, learning_rate=1, l2_rate=0, sparse_update=True
        ),
    )
    return wordemb


firstword = paddle.layer.data(name="firstw", type=paddle.data_type.integer_value(dict_size))
secondword = paddle.layer.data(name="secondw", type=paddle.data_type.integer_value(dict_size))
thirdword = paddle.layer.data(name="thirdw", type=paddle.data_type.integer_value(dict_size))
fourthword = paddle.layer.data(name="fourthw", type=paddle.data_type.integer_value(dict_size))
nextword = paddle.layer.data(name="fifthw", type=paddle.data_type.integer_value(dict_size))

Efirst = wordemb(firstword)
Esecond = wordemb(secondword)
Ethird = wordemb(thirdword)
Efourth = wordemb(fourthword)

contextemb = paddle.layer.concat(input=[Efirst, Esecond, Ethird, Efourth])
hidden1 = paddle.layer.fc(
    input=contextemb,
    size=hiddensize,
    act=paddle.activation.Sigmoid(),
    layer_attr=paddle.attr.Extra(drop_rate=0.5),
    bias_attr=paddle.attr.Param(learning_rate=2),
    param_attr=paddle.attr.Param(initial_std=1.0 / math.sqrt(embsize * 8), learning_rate=1),
)
predictword = paddle.layer.fc(
    input=hidden1,
    size=dict_size,
    bias_attr=paddle.attr.Param(learning_rate=2),
    act=paddle.activation.Softmax(),
)
cost = paddle.layer.classification_cost(input=predictword, label=nextword)

parameters = paddle.parameters.create(cost)
adagrad = paddle.optimizer.AdaGrad(
    learning_rate=3e-3, regularization=paddle.optimizer.L2Regularization(8e-4)
)
trainer = paddle.trainer.SGD(cost, parameters, adagrad)

# %% [markdown]
# ## Training
#
# Batches of 32 5-grams; after each pass the test set's metrics are printed and its cost
# drawn, and the parameters are saved.

# %%
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
        result = trainer.test(paddle.batch(test_reader, 32))
        print("Pass %d, Testing metrics %s" % (event.pass_id, result.metrics))
        trainer.save_parameter_to_tar(os.path.join(save_dir, "model_%d.tar" % event.pass_id))
        ploter.append("Test cost", step, result.cost)
        if plot:
            ploter.plot(plot_file)  # in Jupyter: redrawn in place


history = trainer.train(paddle.batch(train_reader, 32), num_passes, event_handler)

# %% [markdown]
# ## Results
#
# The test metrics, and the learned embedding table: one row per word, written to
# `embedding_table` (CSV) with `word_dict`.

# %%
result = trainer.test(paddle.batch(test_reader, 32))
print("Test cost %f, %s" % (result.cost, result.metrics))

embeddings = parameters.get("_proj").reshape(len(word_dict), embsize)
with open(os.path.join(save_dir, "word_dict"), "w") as f:
    for word, idx in word_dict.items():
        f.write("%s %d\n" % (word, idx))
np.savetxt(os.path.join(save_dir, "embedding_table"), embeddings, delimiter=",", newline="\n")
print("The embedding table (%d words x %d) is in %s" % (*embeddings.shape, save_dir))
