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
# # Chapter 5, recommender system
#
# Two towers and a scaled cosine on MovieLens-1M (v2 book, paddle_lite): a user's
# features and a movie's features meet in a rating between -5 and 5.
#
# In Jupyter (`train.ipynb`, paired with this file by jupytext) run all cells: a progress
# bar follows each pass, the train cost is drawn as it falls, and the cells leave
# `history`, `parameters`, `result` and `score` to inspect. As a script:
# `python book/05.recommender_system/train.py [--num-passes 1] [--save-dir DIR] [--plot]`.
# Each pass's parameters are saved into `save_dir`.

# %% tags=["parameters"]
num_passes = 1  # passes over the 900,000 training ratings
save_dir = "~/.cache/paddle_lite/book/05.recommender_system"  # each pass's parameters
plot = True  # draw the cost curve (a script writes save_dir/train_cost.png with --plot)
train_reader = None  # None: paddle.dataset.movielens.train()
test_reader = None  # None: paddle.dataset.movielens.test()

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 5, recommender system (v2 book).")
    parser.add_argument("--num-passes", type=int, default=num_passes)
    parser.add_argument("--save-dir", default=save_dir, help="default: %(default)s")
    parser.add_argument("--plot", action="store_true", help="write train_cost.png there")
    args = parser.parse_args()
    num_passes, save_dir, plot = args.num_passes, args.save_dir, args.plot

# %%
import os
import sys

import paddle_lite as paddle

with_gpu = os.getenv("WITH_GPU", "0") != "0"
paddle.init(use_gpu=with_gpu)
in_notebook = "ipykernel" in sys.modules and __name__ == "__main__"  # in Jupyter
save_dir = os.path.expanduser(save_dir)
os.makedirs(save_dir, exist_ok=True)
if train_reader is None:
    train_reader = paddle.dataset.movielens.train()
if test_reader is None:
    test_reader = paddle.dataset.movielens.test()

# %% [markdown]
# ## The network
#
# The user tower (id, gender, age, job) and the movie tower (id, categories, title) each
# end in a 200-unit layer; their cosine, scaled by 5, is the predicted score.


# %%
def get_usr_combined_features():
    uid = paddle.layer.data(
        name="user_id",
        type=paddle.data_type.integer_value(paddle.dataset.movielens.max_user_id() + 1),
    )
    usr_emb = paddle.layer.embedding(input=uid, size=32)
    usr_fc = paddle.layer.fc(input=usr_emb, size=32)

    usr_gender_id = paddle.layer.data(name="gender_id", type=paddle.data_type.integer_value(2))
    usr_gender_emb = paddle.layer.embedding(input=usr_gender_id, size=16)
    usr_gender_fc = paddle.layer.fc(input=usr_gender_emb, size=16)

    usr_age_id = paddle.layer.data(
        name="age_id", type=paddle.data_type.integer_value(len(paddle.dataset.movielens.age_table))
    )
    usr_age_emb = paddle.layer.embedding(input=usr_age_id, size=16)
    usr_age_fc = paddle.layer.fc(input=usr_age_emb, size=16)

    usr_job_id = paddle.layer.data(
        name="job_id",
        type=paddle.data_type.integer_value(paddle.dataset.movielens.max_job_id() + 1),
    )
    usr_job_emb = paddle.layer.embedding(input=usr_job_id, size=16)
    usr_job_fc = paddle.layer.fc(input=usr_job_emb, size=16)

    usr_combined_features = paddle.layer.fc(
        input=[usr_fc, usr_gender_fc, usr_age_fc, usr_job_fc],
        size=200,
        act=paddle.activation.Tanh(),
    )
    return usr_combined_features


def get_mov_combined_features():
    movie_title_dict = paddle.dataset.movielens.get_movie_title_dict()

    mov_id = paddle.layer.data(
        name="movie_id",
        type=paddle.data_type.integer_value(paddle.dataset.movielens.max_movie_id() + 1),
    )
    mov_emb = paddle.layer.embedding(input=mov_id, size=32)
    mov_fc = paddle.layer.fc(input=mov_emb, size=32)

    mov_categories = paddle.layer.data(
        name="category_id",
        type=paddle.data_type.sparse_binary_vector(
            len(paddle.dataset.movielens.movie_categories())
        ),
    )
    mov_categories_hidden = paddle.layer.fc(input=mov_categories, size=32)

    mov_title_id = paddle.layer.data(
        name="movie_title", type=paddle.data_type.integer_value_sequence(len(movie_title_dict))
    )
    mov_title_emb = paddle.layer.embedding(input=mov_title_id, size=32)
    mov_title_conv = paddle.networks.sequence_conv_pool(
        input=mov_title_emb, hidden_size=32, context_len=3
    )

    mov_combined_features = paddle.layer.fc(
        input=[mov_fc, mov_categories_hidden, mov_title_conv],
        size=200,
        act=paddle.activation.Tanh(),
    )
    return mov_combined_features


usr_combined_features = get_usr_combined_features()
mov_combined_features = get_mov_combined_features()
inference = paddle.layer.cos_sim(a=usr_combined_features, b=mov_combined_features, size=1, scale=5)
cost = paddle.layer.square_error_cost(
    input=inference,
    label=paddle.layer.data(name="score", type=paddle.data_type.dense_vector(1)),
)

parameters = paddle.parameters.create(cost)
trainer = paddle.trainer.SGD(
    cost=cost, parameters=parameters, update_equation=paddle.optimizer.Adam(learning_rate=1e-4)
)

# %% [markdown]
# ## Training
#
# Batches of 256 shuffled ratings; each pass's parameters are saved.

# %%
feeding = {
    "user_id": 0,
    "gender_id": 1,
    "age_id": 2,
    "job_id": 3,
    "movie_id": 4,
    "category_id": 5,
    "movie_title": 6,
    "score": 7,
}
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
        if plot and step % 100 == 0:
            ploter.plot(plot_file)  # in Jupyter: redrawn in place
        step += 1
    if isinstance(event, paddle.event.EndPass):
        trainer.save_parameter_to_tar(os.path.join(save_dir, "params_pass_%d.tar" % event.pass_id))
        if plot:
            ploter.plot(plot_file)


history = trainer.train(
    reader=paddle.batch(paddle.reader.shuffle(train_reader, buf_size=8192), batch_size=256),
    event_handler=event_handler,
    feeding=feeding,
    num_passes=num_passes,
)

# %% [markdown]
# ## Results
#
# The test cost, and the score the network predicts for user 234 and movie 345.

# %%
result = trainer.test(reader=paddle.batch(test_reader, batch_size=256), feeding=feeding)
print("Test cost %f" % result.cost)

user_id = 234
movie_id = 345
user = paddle.dataset.movielens.user_info()[user_id]
movie = paddle.dataset.movielens.movie_info()[movie_id]
feature = user.value() + movie.value()

infer_dict = dict(feeding)
del infer_dict["score"]
prediction = paddle.infer(
    output_layer=inference, parameters=parameters, input=[feature], feeding=infer_dict
)
score = (prediction[0][0] + 5.0) / 2
print("[Predict] User %d Rating Movie %d With Score %.2f" % (user_id, movie_id, score))
