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
# # Chapter 1, fit a line: inference
#
# Predicts the prices of the 102 test houses with the parameters `train.py` saved, offline.
# v2 published trained parameters for this chapter too: set `use_v2_model = True` (as a
# script, `--v2-model`) to download them once (`paddle.dataset.uci_housing.model()`,
# `fit_a_line.tar`, into the data home) and predict with those instead.
#
# In Jupyter (`infer.ipynb`, paired with this file by jupytext) run all cells; as a script:
# `python book/01.fit_a_line/infer.py [--save-dir DIR] [--v2-model]`.

# %% tags=["parameters"]
save_dir = "~/.cache/paddle_lite/book/01.fit_a_line"  # where train.py saved fit_a_line.tar
use_v2_model = False  # True: v2's published fit_a_line.tar (downloaded once)

# %% active="py"
if __name__ == "__main__":  # as a script, the command line sets the settings above
    import argparse

    parser = argparse.ArgumentParser(description="Chapter 1, fit a line: inference.")
    parser.add_argument("--save-dir", default=save_dir, help="default: %(default)s")
    parser.add_argument("--v2-model", action="store_true", help="v2's published parameters")
    args = parser.parse_args()
    save_dir, use_v2_model = args.save_dir, args.v2_model

# %%
import os

import paddle_lite as paddle
import paddle_lite.dataset.uci_housing as uci_housing

paddle.init(use_gpu=False, trainer_count=1)

x = paddle.layer.data(name="x", type=paddle.data_type.dense_vector(13))
y_predict = paddle.layer.fc(input=x, size=1, act=paddle.activation.Linear())

# %% [markdown]
# ## The parameters

# %%
params_file = os.path.join(os.path.expanduser(save_dir), "fit_a_line.tar")
if use_v2_model:
    parameters = uci_housing.model()
    print("Parameters: v2's published fit_a_line.tar")
elif os.path.exists(params_file):
    parameters = paddle.parameters.Parameters.from_tar(params_file)
    print("Parameters: %s" % params_file)
else:
    raise FileNotFoundError(
        "%s does not exist: train first (python book/01.fit_a_line/train.py), or set "
        "use_v2_model = True (--v2-model) for the parameters v2 published." % params_file
    )

# %% [markdown]
# ## Predictions

# %%
test_data = [(item[0],) for item in uci_housing.test()()]
probs = paddle.infer(output_layer=y_predict, parameters=parameters, input=test_data)
for p in probs:
    print("Predicted price: $%.2f" % (p[0] * 1000))
