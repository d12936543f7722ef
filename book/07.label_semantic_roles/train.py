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
# # Chapter 7, label semantic roles
#
# An 8-layer DB-LSTM with a CRF labels the semantic roles of a sentence's words around a
# verb, on CoNLL-2005 (v2 book, paddle_lite).
#
# In Jupyter (`train.ipynb`, paired with this file by jupytext) run all cells: a progress
# bar follows each pass, the train and test cost are drawn as they fall, and the cells
# leave `history`, `parameters` and `labels` to inspect. As a script:
# `python book/07.label_semantic_roles/train.py [--num-passes 1] [--save-dir DIR] [--plot]`.
# Each pass's parameters are saved into `save_dir`.

# %% tags=["parameters"]
num_passes = 1  # passes over the CoNLL-2005 test set (the book trains on it)
save_dir = "~/.cache/paddle_lite/book/07.label_semantic_roles"  # each pass's parameters
plot = True  # draw the cost curves (a script writes save_dir/train_and_test.png with --plot)
reader = None  # None: paddle.dataset.conll05.test()
embedding = None  # None: the book's pre-trained word embedding (conll05.get_embedding())
hidden_dim = 512  # the DB-LSTM's width
depth = 8  # and its number of LSTM layers

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 7, label semantic roles (v2 book).")
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
import paddle_lite.dataset.conll05 as conll05

with_gpu = os.getenv("WITH_GPU", "0") != "0"
paddle.init(use_gpu=with_gpu, trainer_count=1)
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # in Jupyter
save_dir = os.path.expanduser(save_dir)
os.makedirs(save_dir, exist_ok=True)

word_dim = 32
mark_dim = 5
mix_hidden_lr = 1e-3

# %% [markdown]
# ## The network
#
# Eight features per word (the word, its context of five, the verb and a mark) are
# embedded and mixed, fed through `depth` LSTMs of alternating direction with direct
# edges, and decoded by a CRF.


# %%
def load_parameter(file_name, h, w):
    with open(file_name, "rb") as f:
        f.read(16)  # skip header.
        return np.fromfile(f, dtype=np.float32).reshape(h, w)


def db_lstm(word_dict_len, label_dict_len, pred_dict_len, hidden_dim=512, depth=8):
    default_std = 1 / math.sqrt(hidden_dim) / 3.0
    # 8 features
    word = paddle.layer.data(
        name="word_data", type=paddle.data_type.integer_value_sequence(word_dict_len)
    )
    predicate = paddle.layer.data(
        name="verb_data", type=paddle.data_type.integer_value_sequence(pred_dict_len)
    )

    ctx_n2 = paddle.layer.data(
        name="ctx_n2_data", type=paddle.data_type.integer_value_sequence(word_dict_len)
    )
    ctx_n1 = paddle.layer.data(
        name="ctx_n1_data", type=paddle.data_type.integer_value_sequence(word_dict_len)
    )
    ctx_0 = paddle.layer.data(
        name="ctx_0_data", type=paddle.data_type.integer_value_sequence(word_dict_len)
    )
    ctx_p1 = paddle.layer.data(
        name="ctx_p1_data", type=paddle.data_type.integer_value_sequence(word_dict_len)
    )
    ctx_p2 = paddle.layer.data(
        name="ctx_p2_data", type=paddle.data_type.integer_value_sequence(word_dict_len)
    )
    mark = paddle.layer.data(name="mark_data", type=paddle.data_type.integer_value_sequence(2))

    emb_para = paddle.attr.Param(name="emb", initial_std=0.0, is_static=True)
    std_0 = paddle.attr.Param(initial_std=0.0)
    std_default = paddle.attr.Param(initial_std=default_std)

    predicate_embedding = paddle.layer.embedding(
        size=word_dim,
        input=predicate,
        param_attr=paddle.attr.Param(name="vemb", initial_std=default_std),
    )
    mark_embedding = paddle.layer.embedding(size=mark_dim, input=mark, param_attr=std_0)

    word_input = [word, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2]
    emb_layers = [
        paddle.layer.embedding(size=word_dim, input=x, param_attr=emb_para) for x in word_input
    ]
    emb_layers.append(predicate_embedding)
    emb_layers.append(mark_embedding)

    hidden_0 = paddle.layer.mixed(
        size=hidden_dim,
        bias_attr=std_default,
        input=[
            paddle.layer.full_matrix_projection(input=emb, param_attr=std_default)
            for emb in emb_layers
        ],
    )

    lstm_para_attr = paddle.attr.Param(initial_std=0.0, learning_rate=1.0)
    hidden_para_attr = paddle.attr.Param(initial_std=default_std, learning_rate=mix_hidden_lr)

    lstm_0 = paddle.layer.lstmemory(
        input=hidden_0,
        act=paddle.activation.Relu(),
        gate_act=paddle.activation.Sigmoid(),
        state_act=paddle.activation.Sigmoid(),
        bias_attr=std_0,
        param_attr=lstm_para_attr,
    )

    # stack L-LSTM and R-LSTM with direct edges
    input_tmp = [hidden_0, lstm_0]

    for i in range(1, depth):
        mix_hidden = paddle.layer.mixed(
            size=hidden_dim,
            bias_attr=std_default,
            input=[
                paddle.layer.full_matrix_projection(
                    input=input_tmp[0], param_attr=hidden_para_attr
                ),
                paddle.layer.full_matrix_projection(input=input_tmp[1], param_attr=lstm_para_attr),
            ],
        )

        lstm = paddle.layer.lstmemory(
            input=mix_hidden,
            act=paddle.activation.Relu(),
            gate_act=paddle.activation.Sigmoid(),
            state_act=paddle.activation.Sigmoid(),
            reverse=((i % 2) == 1),
            bias_attr=std_0,
            param_attr=lstm_para_attr,
        )

        input_tmp = [mix_hidden, lstm]

    feature_out = paddle.layer.mixed(
        size=label_dict_len,
        bias_attr=std_default,
        input=[
            paddle.layer.full_matrix_projection(input=input_tmp[0], param_attr=hidden_para_attr),
            paddle.layer.full_matrix_projection(input=input_tmp[1], param_attr=lstm_para_attr),
        ],
    )

    return feature_out


word_dict, verb_dict, label_dict = conll05.get_dict()
word_dict_len = len(word_dict)
label_dict_len = len(label_dict)
pred_dict_len = len(verb_dict)
default_std = 1 / math.sqrt(hidden_dim) / 3.0

feature_out = db_lstm(word_dict_len, label_dict_len, pred_dict_len, hidden_dim, depth)
target = paddle.layer.data(
    name="target", type=paddle.data_type.integer_value_sequence(label_dict_len)
)
crf_cost = paddle.layer.crf(
    size=label_dict_len,
    input=feature_out,
    label=target,
    param_attr=paddle.attr.Param(name="crfw", initial_std=default_std, learning_rate=mix_hidden_lr),
)
crf_dec = paddle.layer.crf_decoding(
    size=label_dict_len,
    input=feature_out,
    label=target,
    param_attr=paddle.attr.Param(name="crfw"),
)
evaluator = paddle.evaluator.sum(input=crf_dec)

parameters = paddle.parameters.create(crf_cost)
if embedding is None:
    embedding = load_parameter(conll05.get_embedding(), word_dict_len, 32)
parameters.set("emb", embedding)

optimizer = paddle.optimizer.Momentum(
    momentum=0,
    learning_rate=2e-2,
    regularization=paddle.optimizer.L2Regularization(rate=8e-4),
    model_average=paddle.optimizer.ModelAverage(average_window=0.5, max_average_window=10000),
)
trainer = paddle.trainer.SGD(
    cost=crf_cost, parameters=parameters, update_equation=optimizer, extra_layers=crf_dec
)

# %% [markdown]
# ## Training
#
# Batches of 10 shuffled sentences; every 1000 batches and after each pass the test
# metrics are printed (and drawn after each pass); each pass's parameters are saved.

# %%
if reader is None:
    reader = conll05.test()
reader = paddle.batch(paddle.reader.shuffle(reader, buf_size=8192), batch_size=10)
feeding = {
    "word_data": 0,
    "ctx_n2_data": 1,
    "ctx_n1_data": 2,
    "ctx_0_data": 3,
    "ctx_p1_data": 4,
    "ctx_p2_data": 5,
    "verb_data": 6,
    "mark_data": 7,
    "target": 8,
}
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
        if event.batch_id % 1000 == 0:
            result = trainer.test(reader=reader, feeding=feeding)
            print(
                "\nTest with Pass %d, Batch %d, %s"
                % (event.pass_id, event.batch_id, result.metrics)
            )
    if isinstance(event, paddle.event.EndPass):
        trainer.save_parameter_to_tar(os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id))
        result = trainer.test(reader=reader, feeding=feeding)
        print("Test with Pass %d, %s" % (event.pass_id, result.metrics))
        ploter.append("Test cost", step, result.cost)
        if plot:
            ploter.plot(plot_file)  # in Jupyter: redrawn in place


history = trainer.train(
    reader=reader, event_handler=event_handler, num_passes=num_passes, feeding=feeding
)

# %% [markdown]
# ## Results
#
# The roles the trained network gives the words of the first sentence.

# %%
test_data = [next(iter(reader()))[0][0:8]]
predict = paddle.layer.crf_decoding(
    size=label_dict_len, input=feature_out, param_attr=paddle.attr.Param(name="crfw")
)
probs = paddle.infer(
    output_layer=predict, parameters=parameters, input=test_data, feeding=feeding, field="id"
)
labels_reverse = {v: k for k, v in label_dict.items()}
labels = [labels_reverse[i] for i in probs]
print(labels)
