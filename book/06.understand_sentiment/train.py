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
# # Chapter 6, understand sentiment
#
# A text CNN or a stacked LSTM classifies IMDB movie reviews as positive or negative (v2
# book, paddle_lite).
#
# In Jupyter (`train.ipynb`, paired with this file by jupytext) run all cells: a progress
# bar follows each pass, the train and test cost are drawn as they fall, and the cells
# leave `history`, `parameters` and `result` to inspect. As a script:
# `python book/06.understand_sentiment/train.py [--net conv|lstm] [--num-passes 20]
# [--save-dir DIR] [--plot]`. Each pass's parameters and the inference topology are
# saved into `save_dir`.

# %% tags=["parameters"]
net = "conv"  # or "lstm"
num_passes = 20  # passes over the 25,000 training reviews
save_dir = "~/.cache/paddle_lite/book/06.understand_sentiment"  # parameters, topology
plot = True  # draw the cost curves (a script writes save_dir/train_and_test.png with --plot)
word_dict = None  # None: paddle.dataset.imdb.word_dict()
train_reader = None  # None: paddle.dataset.imdb.train(word_dict)
test_reader = None  # None: paddle.dataset.imdb.test(word_dict)

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 6, understand sentiment (v2 book).")
    parser.add_argument("--net", choices=["conv", "lstm"], default=net)
    parser.add_argument("--num-passes", type=int, default=num_passes)
    parser.add_argument("--save-dir", default=save_dir, help="default: %(default)s")
    parser.add_argument("--plot", action="store_true", help="write train_and_test.png there")
    args = parser.parse_args()
    net, num_passes, save_dir, plot = args.net, args.num_passes, args.save_dir, args.plot

# %%
import os
import sys

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
paddle.init(use_gpu=with_gpu, trainer_count=1)
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # in Jupyter
save_dir = os.path.expanduser(save_dir)
os.makedirs(save_dir, exist_ok=True)
if word_dict is None:
    print("Loading IMDB word dict....")
    word_dict = paddle.dataset.imdb.word_dict()
if train_reader is None:
    train_reader = paddle.dataset.imdb.train(word_dict)
if test_reader is None:
    test_reader = paddle.dataset.imdb.test(word_dict)

# %% [markdown]
# ## The networks
#
# A text CNN (two `sequence_conv_pool` of context 3 and 4) or a stacked LSTM whose levels
# alternate directions; `net` picks one.


# %%
def convolution_net(input_dim, class_dim=2, emb_dim=128, hid_dim=128):
    data = paddle.layer.data("word", paddle.data_type.integer_value_sequence(input_dim))
    emb = paddle.layer.embedding(input=data, size=emb_dim)
    conv_3 = paddle.networks.sequence_conv_pool(input=emb, context_len=3, hidden_size=hid_dim)
    conv_4 = paddle.networks.sequence_conv_pool(input=emb, context_len=4, hidden_size=hid_dim)
    output = paddle.layer.fc(
        input=[conv_3, conv_4], size=class_dim, act=paddle.activation.Softmax()
    )
    lbl = paddle.layer.data("label", paddle.data_type.integer_value(2))
    cost = paddle.layer.classification_cost(input=output, label=lbl)
    return cost, output


def stacked_lstm_net(input_dim, class_dim=2, emb_dim=128, hid_dim=512, stacked_num=3):
    """A stacked LSTM: a fc then an lstmemory per level, directions alternating."""
    assert stacked_num % 2 == 1

    fc_para_attr = paddle.attr.Param(learning_rate=1e-3)
    lstm_para_attr = paddle.attr.Param(initial_std=0.0, learning_rate=1.0)
    para_attr = [fc_para_attr, lstm_para_attr]
    bias_attr = paddle.attr.Param(initial_std=0.0, l2_rate=0.0)
    relu = paddle.activation.Relu()
    linear = paddle.activation.Linear()

    data = paddle.layer.data("word", paddle.data_type.integer_value_sequence(input_dim))
    emb = paddle.layer.embedding(input=data, size=emb_dim)

    fc1 = paddle.layer.fc(input=emb, size=hid_dim, act=linear, bias_attr=bias_attr)
    lstm1 = paddle.layer.lstmemory(input=fc1, act=relu, bias_attr=bias_attr)

    inputs = [fc1, lstm1]
    for i in range(2, stacked_num + 1):
        fc = paddle.layer.fc(
            input=inputs, size=hid_dim, act=linear, param_attr=para_attr, bias_attr=bias_attr
        )
        lstm = paddle.layer.lstmemory(input=fc, reverse=(i % 2) == 0, act=relu, bias_attr=bias_attr)
        inputs = [fc, lstm]

    fc_last = paddle.layer.pooling(input=inputs[0], pooling_type=paddle.pooling.Max())
    lstm_last = paddle.layer.pooling(input=inputs[1], pooling_type=paddle.pooling.Max())
    output = paddle.layer.fc(
        input=[fc_last, lstm_last],
        size=class_dim,
        act=paddle.activation.Softmax(),
        bias_attr=bias_attr,
        param_attr=para_attr,
    )

    lbl = paddle.layer.data("label", paddle.data_type.integer_value(2))
    cost = paddle.layer.classification_cost(input=output, label=lbl)
    return cost, output


dict_dim = len(word_dict)
class_dim = 2
if net == "conv":
    cost, output = convolution_net(dict_dim, class_dim=class_dim)
else:
    cost, output = stacked_lstm_net(dict_dim, class_dim=class_dim, stacked_num=3)

parameters = paddle.parameters.create(cost)
adam_optimizer = paddle.optimizer.Adam(
    learning_rate=2e-3,
    regularization=paddle.optimizer.L2Regularization(rate=8e-4),
    model_average=paddle.optimizer.ModelAverage(average_window=0.5),
)
trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=adam_optimizer)

# %% [markdown]
# ## Training
#
# Batches of 100 shuffled reviews; after each pass its parameters are saved and the test
# set's metrics are printed and its cost drawn.

# %%
feeding = {"word": 0, "label": 1}
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
        result = trainer.test(reader=paddle.batch(test_reader, batch_size=100), feeding=feeding)
        print("Test with Pass %d, %s" % (event.pass_id, result.metrics))
        ploter.append("Test cost", step, result.cost)
        if plot:
            ploter.plot(plot_file)  # in Jupyter: redrawn in place


history = trainer.train(
    reader=paddle.batch(paddle.reader.shuffle(train_reader, buf_size=1000), batch_size=100),
    event_handler=event_handler,
    feeding=feeding,
    num_passes=num_passes,
)

# Save the inference topology to protobuf.
inference_topology = paddle.topology.Topology(layers=output)
with open(os.path.join(save_dir, "inference_topology.pkl"), "wb") as f:
    inference_topology.serialize_for_inference(f)

# %% [markdown]
# ## Results
#
# The test metrics, and the network's reading of two reviews.

# %%
result = trainer.test(reader=paddle.batch(test_reader, batch_size=100), feeding=feeding)
print("Test cost %f, %s" % (result.cost, result.metrics))

reviews = ["read the book forget the movie", "this is a great movie"]
unk = word_dict["<unk>"]
input = [([word_dict.get(w, unk) for w in r.split()],) for r in reviews]
probs = paddle.infer(output_layer=output, parameters=parameters, input=input, feeding={"word": 0})
for review, prob in zip(reviews, probs, strict=True):
    print(
        "%s: predicting probability is %s, label is %s"
        % (review, prob, "pos" if prob[0] > prob[1] else "neg")
    )
