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
# # Chapter 8, machine translation
#
# Chapter 8, machine translation: an attention GRU encoder-decoder (v2 book).
#
# The encoder is a bidirectional GRU (two ``simple_gru``); the decoder is a GRU step in a
# ``recurrent_group`` that attends over the encoded source (``simple_attention``). The
# same step function generates translations with ``beam_search``, sharing the trained
# parameters by name.
#
# Run: `python book/08.machine_translation/train.py [--num-passes 2] [--dataset wmt14|wmt16]`
#      then  python book/08.machine_translation/train.py --generate \
#                   --model <dir>/params_pass_00001.tar
# (training saves into a new temporary folder, printed at the start; ``train(save_dir=...)``
# chooses the folder).
# (``--generate`` without ``--model`` uses the book's pre-trained ``wmt14.model()``.)
#
# The paired notebook `train.ipynb` is this program (`jupytext --sync
# book/08.machine_translation/train.py` regenerates it); in Jupyter the training cost is drawn
# live with a progress bar.

# %%
import argparse
import os
import sys
import tempfile

import numpy as np

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # run in Jupyter


def save_model(trainer, parameters, save_path):
    with open(save_path, "wb") as f:
        trainer.save_parameter_to_tar(f)


def seq_to_seq_net(
    source_dict_dim,
    target_dict_dim,
    is_generating,
    beam_size=3,
    max_length=250,
    word_vector_dim=512,  # dimension of word vector
    decoder_size=512,  # dimension of hidden unit of GRU decoder
    encoder_size=512,  # dimension of hidden unit of GRU encoder
):
    #### Encoder
    src_word_id = paddle.layer.data(
        name="source_language_word",
        type=paddle.data_type.integer_value_sequence(source_dict_dim),
    )
    src_embedding = paddle.layer.embedding(input=src_word_id, size=word_vector_dim)
    src_forward = paddle.networks.simple_gru(input=src_embedding, size=encoder_size)
    src_backward = paddle.networks.simple_gru(input=src_embedding, size=encoder_size, reverse=True)
    encoded_vector = paddle.layer.concat(input=[src_forward, src_backward])

    #### Decoder
    encoded_proj = paddle.layer.fc(
        act=paddle.activation.Linear(), size=decoder_size, bias_attr=False, input=encoded_vector
    )

    backward_first = paddle.layer.first_seq(input=src_backward)

    decoder_boot = paddle.layer.fc(
        size=decoder_size, act=paddle.activation.Tanh(), bias_attr=False, input=backward_first
    )

    def gru_decoder_with_attention(enc_vec, enc_proj, current_word):
        decoder_mem = paddle.layer.memory(
            name="gru_decoder", size=decoder_size, boot_layer=decoder_boot
        )

        context = paddle.networks.simple_attention(
            encoded_sequence=enc_vec, encoded_proj=enc_proj, decoder_state=decoder_mem
        )

        decoder_inputs = paddle.layer.fc(
            act=paddle.activation.Linear(),
            size=decoder_size * 3,
            bias_attr=False,
            input=[context, current_word],
            layer_attr=paddle.attr.ExtraLayerAttribute(error_clipping_threshold=100.0),
        )

        gru_step = paddle.layer.gru_step(
            name="gru_decoder", input=decoder_inputs, output_mem=decoder_mem, size=decoder_size
        )

        out = paddle.layer.fc(
            size=target_dict_dim, bias_attr=True, act=paddle.activation.Softmax(), input=gru_step
        )
        return out

    decoder_group_name = "decoder_group"
    group_input1 = paddle.layer.StaticInput(input=encoded_vector)
    group_input2 = paddle.layer.StaticInput(input=encoded_proj)
    group_inputs = [group_input1, group_input2]

    if not is_generating:
        trg_embedding = paddle.layer.embedding(
            input=paddle.layer.data(
                name="target_language_word",
                type=paddle.data_type.integer_value_sequence(target_dict_dim),
            ),
            size=word_vector_dim,
            param_attr=paddle.attr.ParamAttr(name="_target_language_embedding"),
        )
        group_inputs.append(trg_embedding)

        # For decoder equipped with attention mechanism, in training,
        # target embeding (the groudtruth) is the data input,
        # while encoded source sequence is accessed to as an unbounded memory.
        # Here, the StaticInput defines a read-only memory
        # for the recurrent_group.
        decoder = paddle.layer.recurrent_group(
            name=decoder_group_name, step=gru_decoder_with_attention, input=group_inputs
        )

        lbl = paddle.layer.data(
            name="target_language_next_word",
            type=paddle.data_type.integer_value_sequence(target_dict_dim),
        )
        cost = paddle.layer.classification_cost(input=decoder, label=lbl)

        return cost
    else:
        # In generation, the decoder predicts a next target word based on
        # the encoded source sequence and the previous generated target word.

        # The encoded source sequence (encoder's output) must be specified by
        # StaticInput, which is a read-only memory.
        # Embedding of the previous generated word is automatically retrieved
        # by GeneratedInputs initialized by a start mark <s>.

        trg_embedding = paddle.layer.GeneratedInput(
            size=target_dict_dim,
            embedding_name="_target_language_embedding",
            embedding_size=word_vector_dim,
        )
        group_inputs.append(trg_embedding)

        beam_gen = paddle.layer.beam_search(
            name=decoder_group_name,
            step=gru_decoder_with_attention,
            input=group_inputs,
            bos_id=0,
            eos_id=1,
            beam_size=beam_size,
            max_length=max_length,
        )

        return beam_gen


def _data(dataset, dict_size):
    """The training reader, the generation reader and the id-to-word dictionaries."""
    if dataset == "wmt16":  # the shared folder's Multi30K corpus (English -> German)
        train = paddle.dataset.wmt16.train(dict_size, dict_size)
        gen = paddle.dataset.wmt16.test(dict_size, dict_size)
        src_dict = paddle.dataset.wmt16.get_dict("en", dict_size, reverse=True)
        trg_dict = paddle.dataset.wmt16.get_dict("de", dict_size, reverse=True)
        return train, gen, (src_dict, trg_dict)
    return (
        paddle.dataset.wmt14.train(dict_size),
        paddle.dataset.wmt14.gen(dict_size),
        None,  # read when generating: paddle.dataset.wmt14.get_dict(dict_size)
    )


def train(
    dict_size=30000,
    num_passes=2,
    reader=None,
    batch_size=4,
    learning_rate=5e-5,
    save_dir=None,
    save_every=10,
    **net_args,
):
    """Train the network as the book does; returns the trained parameters."""
    save_dir = save_dir or tempfile.mkdtemp(prefix="paddle_book_")  # never the cwd unasked
    print("parameters are saved under %s" % save_dir)
    source_dict_dim = target_dict_dim = dict_size

    # define optimize method and trainer
    optimizer = paddle.optimizer.Adam(
        learning_rate=learning_rate, regularization=paddle.optimizer.L2Regularization(rate=8e-4)
    )

    cost = seq_to_seq_net(source_dict_dim, target_dict_dim, False, **net_args)
    parameters = paddle.parameters.create(cost)

    trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)
    # define data reader
    wmt14_reader = paddle.batch(
        paddle.reader.shuffle(reader or paddle.dataset.wmt14.train(dict_size), buf_size=8192),
        batch_size=batch_size,
    )

    # define event_handler callback
    def event_handler(event):
        if isinstance(event, paddle.event.EndIteration):
            if event.batch_id % 10 == 0:
                print(
                    "\nPass %d, Batch %d, Cost %f, %s"
                    % (event.pass_id, event.batch_id, event.cost, event.metrics)
                )
            else:
                sys.stdout.write(".")
                sys.stdout.flush()

            if not event.batch_id % save_every:
                save_path = "params_pass_%05d_batch_%05d.tar" % (event.pass_id, event.batch_id)
                save_model(trainer, parameters, os.path.join(save_dir, save_path))

        if isinstance(event, paddle.event.EndPass):
            # save parameters
            save_path = "params_pass_%05d.tar" % (event.pass_id)
            save_model(trainer, parameters, os.path.join(save_dir, save_path))

    # start to train
    if in_notebook:  # the cost curve drawn live and a progress bar
        event_handler = paddle.plot.live(event_handler)
    trainer.train(reader=wmt14_reader, event_handler=event_handler, num_passes=num_passes)
    return parameters


def generate(parameters, gen_data, src_dict, trg_dict, dict_size=30000, beam_size=3, **net_args):
    """Translate ``gen_data`` (samples holding the source ids) with beam search, print
    each source and its ``beam_size`` translations as the book does, and return
    ``[(score, [word ids]) per result]`` per source."""
    source_dict_dim = target_dict_dim = dict_size
    beam_gen = seq_to_seq_net(source_dict_dim, target_dict_dim, True, beam_size, **net_args)

    # prob is the prediction probabilities, and id is the prediction word.
    beam_result = paddle.infer(
        output_layer=beam_gen, parameters=parameters, input=gen_data, field=["prob", "id"]
    )

    gen_sen_idx = np.where(beam_result[1] == -1)[0]
    assert len(gen_sen_idx) == len(gen_data) * beam_size

    # -1 is the delimiter of generated sequences.
    # the first element of each generated sequence its length.
    start_pos, end_pos = 1, 0
    results = []
    for i, sample in enumerate(gen_data):
        print(
            " ".join([src_dict[w] for w in sample[0][1:-1]])
        )  # skip the start and ending mark when printing the source sentence
        results.append([])
        for j in range(beam_size):
            end_pos = gen_sen_idx[i * beam_size + j]
            words = beam_result[1][start_pos:end_pos].tolist()
            print("%.4f\t%s" % (beam_result[0][i][j], " ".join(trg_dict[w] for w in words)))
            results[-1].append((float(beam_result[0][i][j]), words))
            start_pos = end_pos + 2
        print("\n")
    return results


# %% tags=["parameters"]
is_generating = False
dataset = "wmt14"  # or "wmt16"
dict_size = 30000
num_passes = 2


# %%
def main(is_generating=False, dataset="wmt14", dict_size=30000, num_passes=2, model=None):
    paddle.init(use_gpu=with_gpu, trainer_count=1)
    train_reader, gen_reader, dicts = _data(dataset, dict_size)

    # train the network
    if not is_generating:
        return train(dict_size=dict_size, num_passes=num_passes, reader=train_reader)

    # generate a english sequence to french
    # use the first 3 samples for generation
    gen_data = []
    gen_num = 3
    for item in gen_reader():
        gen_data.append([item[0]])
        if len(gen_data) == gen_num:
            break

    if model is None:
        # get the trained model, whose bleu = 26.92
        parameters = paddle.dataset.wmt14.model()
    else:
        parameters = paddle.parameters.Parameters.from_tar(model)

    # load the dictionary
    src_dict, trg_dict = dicts or paddle.dataset.wmt14.get_dict(dict_size)
    return generate(parameters, gen_data, src_dict, trg_dict, dict_size)


# %%
if __name__ == "__main__" and in_notebook:
    result = main(is_generating, dataset, dict_size, num_passes)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Chapter 8 of the v2 book.")
    parser.add_argument("--generate", action="store_true")
    parser.add_argument("--dataset", choices=["wmt14", "wmt16"], default="wmt14")
    parser.add_argument("--dict-size", type=int, default=30000)
    parser.add_argument("--num-passes", type=int, default=2)
    parser.add_argument("--model", default=None, help="a parameter tar written by training")
    args = parser.parse_args()
    main(args.generate, args.dataset, args.dict_size, args.num_passes, args.model)
