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
# # Chapter 6, understand sentiment
#
# Chapter 6, understand sentiment: text CNN and stacked LSTM on IMDB (v2 book).
#
# Run: `python book/06.understand_sentiment/train.py [--net conv|lstm] [--num-passes 20]`
#
# The paired notebook `train.ipynb` is this program (`jupytext --sync
# book/06.understand_sentiment/train.py` regenerates it); in Jupyter the training cost is drawn
# live with a progress bar.

# %%
import argparse
import os
import sys
import tempfile

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # run in Jupyter


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


# %% tags=["parameters"]
net = "conv"  # or "lstm"
num_passes = 20


# %%
def main(
    net="conv", num_passes=20, word_dict=None, train_reader=None, test_reader=None, save_dir=None
):
    save_dir = save_dir or tempfile.mkdtemp(prefix="paddle_book_")  # never the cwd unasked
    paddle.init(use_gpu=with_gpu, trainer_count=1)

    # network config
    print("Loading IMDB word dict....")
    word_dict = word_dict or paddle.dataset.imdb.word_dict()
    dict_dim = len(word_dict)
    class_dim = 2
    train_reader = train_reader or paddle.dataset.imdb.train(word_dict)
    test_reader = test_reader or paddle.dataset.imdb.test(word_dict)

    # Please choose the way to build the network
    # by uncommenting the corresponding line.
    if net == "conv":
        cost, output = convolution_net(dict_dim, class_dim=class_dim)
    else:
        cost, output = stacked_lstm_net(dict_dim, class_dim=class_dim, stacked_num=3)

    # create parameters
    parameters = paddle.parameters.create(cost)

    # create optimizer
    adam_optimizer = paddle.optimizer.Adam(
        learning_rate=2e-3,
        regularization=paddle.optimizer.L2Regularization(rate=8e-4),
        model_average=paddle.optimizer.ModelAverage(average_window=0.5),
    )

    # create trainer
    trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=adam_optimizer)

    # End batch and end pass event handler
    def event_handler(event):
        if isinstance(event, paddle.event.EndIteration):
            if event.batch_id % 100 == 0:
                print(
                    "\nPass %d, Batch %d, Cost %f, %s"
                    % (event.pass_id, event.batch_id, event.cost, event.metrics)
                )
            else:
                sys.stdout.write(".")
                sys.stdout.flush()
        if isinstance(event, paddle.event.EndPass):
            with open(os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id), "wb") as f:
                trainer.save_parameter_to_tar(f)

            result = trainer.test(reader=paddle.batch(test_reader, batch_size=100), feeding=feeding)
            print("\nTest with Pass %d, %s" % (event.pass_id, result.metrics))

    feeding = {"word": 0, "label": 1}
    if in_notebook:  # the cost curve drawn live and a progress bar
        event_handler = paddle.plot.live(event_handler)
    trainer.train(
        reader=paddle.batch(paddle.reader.shuffle(train_reader, buf_size=1000), batch_size=100),
        event_handler=event_handler,
        feeding=feeding,
        num_passes=num_passes,
    )

    # Save the inference topology to protobuf.
    inference_topology = paddle.topology.Topology(layers=output)
    with open(os.path.join(save_dir, "inference_topology.pkl"), "wb") as f:
        inference_topology.serialize_for_inference(f)

    # inference on two reviews
    reviews = ["read the book forget the movie", "this is a great movie"]
    unk = word_dict["<unk>"]
    input = [([word_dict.get(w, unk) for w in r.split()],) for r in reviews]
    probs = paddle.infer(
        output_layer=output, parameters=parameters, input=input, feeding={"word": 0}
    )
    for review, prob in zip(reviews, probs, strict=True):
        print(
            "%s: predicting probability is %s, label is %s"
            % (review, prob, "pos" if prob[0] > prob[1] else "neg")
        )
    return trainer.test(reader=paddle.batch(test_reader, batch_size=100), feeding=feeding)


# %%
if __name__ == "__main__" and in_notebook:
    result = main(net, num_passes)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Chapter 6 of the v2 book.")
    parser.add_argument("--net", choices=["conv", "lstm"], default="conv")
    parser.add_argument("--num-passes", type=int, default=20)
    parser.add_argument(
        "--save-dir", default=None, help="where to save (default: a new temporary folder)"
    )
    args = parser.parse_args()
    main(args.net, args.num_passes, save_dir=args.save_dir)
