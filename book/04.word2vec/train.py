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
# # Chapter 4, word2vec
#
# Chapter 4, word2vec: an N-gram neural language model on PTB (v2 book).
#
# Run: `python book/04.word2vec/train.py [--num-passes 100]`
#
# The paired notebook `train.ipynb` is this program (`jupytext --sync
# book/04.word2vec/train.py` regenerates it); in Jupyter the training cost is drawn
# live with a progress bar.

# %%
import argparse
import math
import os
import sys
import tempfile

import numpy as np

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # run in Jupyter

embsize = 32
hiddensize = 256
N = 5


def wordemb(inlayer):
    wordemb = paddle.layer.table_projection(
        input=inlayer,
        size=embsize,
        param_attr=paddle.attr.Param(
            name="_proj", initial_std=0.001, learning_rate=1, l2_rate=0, sparse_update=True
        ),
    )
    return wordemb


# %% tags=["parameters"]
num_passes = 100


# %%
def main(num_passes=100, word_dict=None, train_reader=None, test_reader=None, save_dir=None):
    save_dir = save_dir or tempfile.mkdtemp(prefix="paddle_book_")  # never the cwd unasked
    paddle.init(use_gpu=with_gpu, trainer_count=3)
    word_dict = word_dict or paddle.dataset.imikolov.build_dict()
    dict_size = len(word_dict)
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

    train_reader = train_reader or paddle.dataset.imikolov.train(word_dict, N)
    test_reader = test_reader or paddle.dataset.imikolov.test(word_dict, N)

    def event_handler(event):
        if isinstance(event, paddle.event.EndIteration):
            if event.batch_id % 100 == 0:
                print(
                    "Pass %d, Batch %d, Cost %f, %s"
                    % (event.pass_id, event.batch_id, event.cost, event.metrics)
                )

        if isinstance(event, paddle.event.EndPass):
            result = trainer.test(paddle.batch(test_reader, 32))
            print("Pass %d, Testing metrics %s" % (event.pass_id, result.metrics))
            with open(os.path.join(save_dir, "model_%d.tar" % event.pass_id), "wb") as f:
                trainer.save_parameter_to_tar(f)

    cost = paddle.layer.classification_cost(input=predictword, label=nextword)

    parameters = paddle.parameters.create(cost)
    adagrad = paddle.optimizer.AdaGrad(
        learning_rate=3e-3, regularization=paddle.optimizer.L2Regularization(8e-4)
    )
    trainer = paddle.trainer.SGD(cost, parameters, adagrad)
    if in_notebook:  # the cost curve drawn live and a progress bar
        event_handler = paddle.plot.live(event_handler)
    trainer.train(paddle.batch(train_reader, 32), num_passes, event_handler)

    # the learned embedding table, one row per word
    embeddings = parameters.get("_proj").reshape(len(word_dict), embsize)
    with open(os.path.join(save_dir, "word_dict"), "w") as f:
        for word, idx in word_dict.items():
            f.write("%s %d\n" % (word, idx))
    np.savetxt(os.path.join(save_dir, "embedding_table"), embeddings, delimiter=",", newline="\n")
    return trainer.test(paddle.batch(test_reader, 32)), embeddings


# %%
if __name__ == "__main__" and in_notebook:
    result = main(num_passes)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Chapter 4 of the v2 book.")
    parser.add_argument("--num-passes", type=int, default=100)
    parser.add_argument(
        "--save-dir", default=None, help="where to save (default: a new temporary folder)"
    )
    args = parser.parse_args()
    main(args.num_passes, save_dir=args.save_dir)
