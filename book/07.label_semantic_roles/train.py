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
# # Chapter 7, label semantic roles
#
# Chapter 7, label semantic roles: an 8-layer DB-LSTM with a CRF on CoNLL-2005 (v2 book).
#
# Run: `python book/07.label_semantic_roles/train.py [--num-passes 1]`
#
# The paired notebook `train.ipynb` is this program (`jupytext --sync
# book/07.label_semantic_roles/train.py` regenerates it); in Jupyter the training cost is drawn
# live with a progress bar.

# %%
import argparse
import math
import os
import sys
import tempfile

import numpy as np

import paddle_lite as paddle
import paddle_lite.dataset.conll05 as conll05

with_gpu = os.getenv("WITH_GPU", "0") != "0"
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # run in Jupyter

word_dim = 32
mark_dim = 5
mix_hidden_lr = 1e-3


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


# %% tags=["parameters"]
num_passes = 1


# %%
def main(num_passes=1, reader=None, embedding=None, hidden_dim=512, depth=8, save_dir=None):
    save_dir = save_dir or tempfile.mkdtemp(prefix="paddle_book_")  # never the cwd unasked
    paddle.init(use_gpu=with_gpu, trainer_count=1)

    # define network topology
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
        param_attr=paddle.attr.Param(
            name="crfw", initial_std=default_std, learning_rate=mix_hidden_lr
        ),
    )

    crf_dec = paddle.layer.crf_decoding(
        size=label_dict_len,
        input=feature_out,
        label=target,
        param_attr=paddle.attr.Param(name="crfw"),
    )
    evaluator = paddle.evaluator.sum(input=crf_dec)

    # create parameters
    parameters = paddle.parameters.create(crf_cost)
    if embedding is None:
        embedding = load_parameter(conll05.get_embedding(), word_dict_len, 32)
    parameters.set("emb", embedding)

    # create optimizer
    optimizer = paddle.optimizer.Momentum(
        momentum=0,
        learning_rate=2e-2,
        regularization=paddle.optimizer.L2Regularization(rate=8e-4),
        model_average=paddle.optimizer.ModelAverage(average_window=0.5, max_average_window=10000),
    )

    trainer = paddle.trainer.SGD(
        cost=crf_cost, parameters=parameters, update_equation=optimizer, extra_layers=crf_dec
    )

    reader = reader or conll05.test()
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

    def event_handler(event):
        if isinstance(event, paddle.event.EndIteration):
            if event.batch_id % 100 == 0:
                print(
                    "Pass %d, Batch %d, Cost %f, %s"
                    % (event.pass_id, event.batch_id, event.cost, event.metrics)
                )
            if event.batch_id % 1000 == 0:
                result = trainer.test(reader=reader, feeding=feeding)
                print(
                    "\nTest with Pass %d, Batch %d, %s"
                    % (event.pass_id, event.batch_id, result.metrics)
                )

        if isinstance(event, paddle.event.EndPass):
            # save parameters
            with open(os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id), "wb") as f:
                trainer.save_parameter_to_tar(f)

            result = trainer.test(reader=reader, feeding=feeding)
            print("\nTest with Pass %d, %s" % (event.pass_id, result.metrics))

    if in_notebook:  # the cost curve drawn live and a progress bar
        event_handler = paddle.plot.live(event_handler)
    trainer.train(
        reader=reader, event_handler=event_handler, num_passes=num_passes, feeding=feeding
    )

    test_creator = reader
    test_data = []
    for item in test_creator():
        test_data.append(item[0][0:8])
        if len(test_data) == 1:
            break

    predict = paddle.layer.crf_decoding(
        size=label_dict_len, input=feature_out, param_attr=paddle.attr.Param(name="crfw")
    )
    probs = paddle.infer(
        output_layer=predict, parameters=parameters, input=test_data, feeding=feeding, field="id"
    )
    assert len(probs) == len(test_data[0][0])
    labels_reverse = {}
    for k, v in label_dict.items():
        labels_reverse[v] = k
    pre_lab = [labels_reverse[i] for i in probs]
    print(pre_lab)
    del evaluator
    return pre_lab


# %%
if __name__ == "__main__" and in_notebook:
    result = main(num_passes)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Chapter 7 of the v2 book.")
    parser.add_argument("--num-passes", type=int, default=1)
    parser.add_argument(
        "--save-dir", default=None, help="where to save (default: a new temporary folder)"
    )
    args = parser.parse_args()
    main(args.num_passes, save_dir=args.save_dir)
