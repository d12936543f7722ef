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
# # Chapter 8, machine translation
#
# An attention GRU encoder-decoder (v2 book, paddle_lite). The encoder is a bidirectional
# GRU (two `simple_gru`); the decoder is a GRU step in a `recurrent_group` that attends over
# the encoded source (`simple_attention`). The same step function generates translations
# with `beam_search`, sharing the trained parameters by name.
#
# In Jupyter (`train.ipynb`, paired with this file by jupytext) run all cells: a progress
# bar follows each pass, the train cost is drawn as it falls, then the trained network
# translates the first sentences of the generation set; the cells leave `history`,
# `parameters` and `translations` to inspect. As a script:
# `python book/08.machine_translation/train.py [--num-passes 2] [--dataset wmt14|wmt16]
# [--save-dir DIR] [--plot]`. Parameters are saved into `save_dir` every `save_every`
# batches and after each pass. To translate only, with saved parameters:
# `python book/08.machine_translation/train.py --generate --model DIR/params_pass_00001.tar`
# (`--generate` without `--model` uses v2's published wmt14 model, downloaded once).

# %% tags=["parameters"]
is_generating = False  # True: no training, translate with `model`
dataset = "wmt14"  # or "wmt16" (Multi30K, English to German)
dict_size = 30000  # words per dictionary
num_passes = 2
save_dir = "~/.cache/paddle_lite/book/08.machine_translation"  # the saved parameters
plot = True  # draw the cost curve (a script writes save_dir/train_cost.png with --plot)
model = None  # is_generating: a parameter tar; None: v2's published wmt14 model
train_reader = None  # None: the dataset's training set
gen_data = None  # None: the first 3 sources of the dataset's generation set
dicts = None  # (source, target) id-to-word dictionaries; None: the dataset's
batch_size = 4
learning_rate = 5e-5
save_every = 10  # batches between saved parameters
beam_size = 3
max_length = 250  # of a generated translation
word_vector_dim = 512  # dimension of a word vector
encoder_size = 512  # dimension of the GRU encoder's hidden unit
decoder_size = 512  # dimension of the GRU decoder's hidden unit

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 8, machine translation (v2 book).")
    parser.add_argument("--generate", action="store_true", help="translate only, with --model")
    parser.add_argument("--dataset", choices=["wmt14", "wmt16"], default=dataset)
    parser.add_argument("--dict-size", type=int, default=dict_size)
    parser.add_argument("--num-passes", type=int, default=num_passes)
    parser.add_argument("--model", default=model, help="a parameter tar written by training")
    parser.add_argument("--save-dir", default=save_dir, help="default: %(default)s")
    parser.add_argument("--plot", action="store_true", help="write train_cost.png there")
    args = parser.parse_args()
    is_generating, dataset, dict_size = args.generate, args.dataset, args.dict_size
    num_passes, model, save_dir, plot = args.num_passes, args.model, args.save_dir, args.plot

# %%
import os
import sys

import numpy as np

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
paddle.init(use_gpu=with_gpu, trainer_count=1)
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # in Jupyter
save_dir = os.path.expanduser(save_dir)
os.makedirs(save_dir, exist_ok=True)
net_sizes = {
    "word_vector_dim": word_vector_dim,
    "encoder_size": encoder_size,
    "decoder_size": decoder_size,
}

# %% [markdown]
# ## The data
#
# wmt14 (French to English, the book's) or wmt16's Multi30K (English to German).

# %%
wmt = paddle.dataset.wmt16 if dataset == "wmt16" else paddle.dataset.wmt14
if train_reader is None:
    train_reader = wmt.train(dict_size, dict_size) if dataset == "wmt16" else wmt.train(dict_size)
if gen_data is None:
    gen_reader = wmt.test(dict_size, dict_size) if dataset == "wmt16" else wmt.gen(dict_size)
    gen_data = [[item[0]] for item in paddle.reader.firstn(gen_reader, 3)()]
if dicts is None and dataset == "wmt16":
    dicts = (wmt.get_dict("en", dict_size, True), wmt.get_dict("de", dict_size, True))
elif dicts is None:
    dicts = wmt.get_dict(dict_size)
src_dict, trg_dict = dicts

# %% [markdown]
# ## The network


# %%
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


# %% [markdown]
# ## Training
#
# Batches of `batch_size` shuffled sentence pairs; the parameters are saved every
# `save_every` batches and after each pass.

# %%
cost = seq_to_seq_net(dict_size, dict_size, False, **net_sizes)
parameters = paddle.parameters.create(cost)
optimizer = paddle.optimizer.Adam(
    learning_rate=learning_rate, regularization=paddle.optimizer.L2Regularization(rate=8e-4)
)
trainer = paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation=optimizer)

progress = paddle.event.progress()
ploter = paddle.plot.Ploter("Train cost")
plot_file = None if in_notebook else os.path.join(save_dir, "train_cost.png")
step = 0


def event_handler(event):
    global step
    progress(event)
    if isinstance(event, paddle.event.EndIteration):
        if step % 10 == 0:
            ploter.append("Train cost", step, event.cost)
        step += 1
        if not event.batch_id % save_every:
            name = "params_pass_%05d_batch_%05d.tar" % (event.pass_id, event.batch_id)
            trainer.save_parameter_to_tar(os.path.join(save_dir, name))
    if isinstance(event, paddle.event.EndPass):
        name = "params_pass_%05d.tar" % event.pass_id
        trainer.save_parameter_to_tar(os.path.join(save_dir, name))
        if plot:
            ploter.plot(plot_file)  # in Jupyter: redrawn in place


if is_generating:  # no training: the parameters of `model`, or v2's published ones
    if model is None:
        parameters = paddle.dataset.wmt14.model()  # the book's trained model, BLEU 26.92
    else:
        parameters = paddle.parameters.Parameters.from_tar(model)
else:
    history = trainer.train(
        reader=paddle.batch(paddle.reader.shuffle(train_reader, buf_size=8192), batch_size),
        event_handler=event_handler,
        num_passes=num_passes,
    )

# %% [markdown]
# ## Translations
#
# Beam search over the generator, which shares the trained parameters by name; for each
# source sentence its `beam_size` best translations with their log probabilities.

# %%
paddle.layer.reset_names()  # the generator's layers take the trained layers' names
beam_gen = seq_to_seq_net(dict_size, dict_size, True, beam_size, max_length, **net_sizes)

# prob is the prediction probabilities, and id is the prediction word.
beam_result = paddle.infer(
    output_layer=beam_gen, parameters=parameters, input=gen_data, field=["prob", "id"]
)

# -1 is the delimiter of generated sequences; each starts with its length.
gen_sen_idx = np.where(beam_result[1] == -1)[0]
assert len(gen_sen_idx) == len(gen_data) * beam_size
translations = []  # per source: [(log probability, [word ids])] best first
start_pos = 1
for i, sample in enumerate(gen_data):
    print(" ".join(src_dict[w] for w in sample[0][1:-1]))  # without the start and end marks
    translations.append([])
    for j in range(beam_size):
        end_pos = gen_sen_idx[i * beam_size + j]
        words = beam_result[1][start_pos:end_pos].tolist()
        print("%.4f\t%s" % (beam_result[0][i][j], " ".join(trg_dict[w] for w in words)))
        translations[-1].append((float(beam_result[0][i][j]), words))
        start_pos = end_pos + 2
    print("\n")
