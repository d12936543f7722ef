"""``paddle.trainer_config_helpers`` as a paddle.v2 program sees it.

Every v2 install had this v1 package (v2's own ``config_base.py`` imported it), and
programs of 2017 imported it, mostly ``from paddle.trainer_config_helpers import *``,
for names paddle.v2 also had under a shorter name. Those are v2's own objects here,
renamed back by the rules v2 renamed them with (``paddle/v2/activation.py``,
``pooling.py``, ``attr.py``, ``evaluator.py``, ``layer.py``, ``networks.py``,
``optimizer.py``): ``TanhActivation`` is ``paddle.activation.Tanh``, ``MaxPooling`` is
``paddle.pooling.Max``, ``ParamAttr`` is ``paddle.attr.ParamAttr``,
``classification_error_evaluator`` is ``paddle.evaluator.classification_error``,
``fc_layer`` is ``paddle.layer.fc`` (a layer v2's ``paddle.layer`` made from it, as the
v2 of 2018 let programs use ``fc_layer`` directly), ``simple_lstm`` is
``paddle.networks.simple_lstm``, ``L2Regularization`` and ``ModelAverage`` are
``paddle.optimizer``'s. The v1 config machinery paddle.v2 never had (``settings``,
``outputs``, ``data_layer(name, size)``, the learning-method classes,
``define_py_data_sources2``, ...) imports, and raises ``V1ConfigError`` when used
(``old_config``).

The names resolve through the module ``__getattr__``, so ``import *`` (which reads
``__all__``) and attribute access give the same objects.
"""

from __future__ import annotations

from typing import Any

from paddle_lite import activation, attr, evaluator, layer, networks, optimizer, pooling
from paddle_lite._src.compat.v2_imports.old_config import V1ConfigName

MODULE = "paddle.trainer_config_helpers"

# activations.py, poolings.py and attrs.py: v2 dropped the suffix (or kept the name).
_NAMED = {
    "AbsActivation": activation.Abs,
    "BReluActivation": activation.BRelu,
    "BaseActivation": activation.BaseActivation,
    "ExpActivation": activation.Exp,
    "IdentityActivation": activation.Identity,
    "LinearActivation": activation.Linear,
    "LogActivation": activation.Log,
    "ReciprocalActivation": activation.Reciprocal,
    "ReluActivation": activation.Relu,
    "STanhActivation": activation.STanh,
    "SequenceSoftmaxActivation": activation.SequenceSoftmax,
    "SigmoidActivation": activation.Sigmoid,
    "SoftReluActivation": activation.SoftRelu,
    "SoftSignActivation": activation.SoftSign,
    "SoftmaxActivation": activation.Softmax,
    "SqrtActivation": activation.Sqrt,
    "SquareActivation": activation.Square,
    "TanhActivation": activation.Tanh,
    "AvgPooling": pooling.Avg,
    "BasePoolingType": pooling.BasePoolingType,
    "CudnnAvgInclPadPooling": pooling.CudnnAvgInclPad,
    "CudnnAvgPooling": pooling.CudnnAvg,
    "CudnnMaxPooling": pooling.CudnnMax,
    "MaxPooling": pooling.Max,
    "MaxWithMaskPooling": pooling.MaxWithMask,
    "SquareRootNPooling": pooling.SquareRootN,
    "SumPooling": pooling.Sum,
    "ExtraAttr": attr.ExtraAttr,
    "ExtraLayerAttribute": attr.ExtraLayerAttribute,
    "HookAttr": attr.HookAttr,
    "ParamAttr": attr.ParamAttr,
    "ParameterAttribute": attr.ParameterAttribute,
    # optimizers.py: the two paddle/v2/optimizer.py took over as they were
    "L2Regularization": optimizer.L2Regularization,
    "ModelAverage": optimizer.ModelAverage,
}

# evaluators.py: v2's evaluator.py named each without "_evaluator".
_EVALUATORS = (
    "auc", "chunk", "classification_error", "classification_error_printer", "column_sum",
    "ctc_error", "detection_map", "gradient_printer", "maxframe_printer", "maxid_printer",
    "pnpair", "precision_recall", "seqtext_printer", "sum", "value_printer",
)  # fmt: skip

# networks.py: v2's networks.py took every one but inputs and outputs under its name.
_NETWORKS = tuple(networks.__all__)

# layers.py's __all__ (the last v2 release), data_layer aside (see _OLD_CONFIG).
_LAYERS = (
    "AggregateLevel", "BaseGeneratedInput", "BeamInput", "ExpandLevel", "GeneratedInput",
    "LayerOutput", "LayerType", "StaticInput", "SubsequenceInput", "addto_layer",
    "batch_norm_layer", "beam_search", "bilinear_interp_layer", "block_expand_layer",
    "classification_cost", "clip_layer", "concat_layer", "context_projection",
    "conv_operator", "conv_projection", "conv_shift_layer", "convex_comb_layer",
    "cos_sim", "crf_decoding_layer", "crf_layer", "crop_layer", "cross_channel_norm_layer",
    "cross_entropy", "cross_entropy_over_beam", "cross_entropy_with_selfnorm", "ctc_layer",
    "detection_output_layer", "dot_prod_layer", "dotmul_operator", "dotmul_projection",
    "dropout_layer", "embedding_layer", "eos_layer", "expand_layer",
    "factorization_machine", "fc_layer", "first_seq", "full_matrix_projection",
    "gated_unit_layer", "get_output_layer", "gru_step_layer", "gru_step_naive_layer",
    "grumemory", "hsigmoid", "huber_classification_cost", "huber_regression_cost",
    "identity_projection", "img_cmrnorm_layer", "img_conv3d_layer", "img_conv_layer",
    "img_pool3d_layer", "img_pool_layer", "interpolation_layer", "kmax_seq_score_layer",
    "l2_distance_layer", "lambda_cost", "last_seq", "layer_support", "linear_comb_layer",
    "lstm_step_layer", "lstmemory", "maxid_layer", "maxout_layer", "memory", "mixed_layer",
    "multi_binary_label_cross_entropy", "multibox_loss_layer", "multiplex_layer",
    "nce_layer", "out_prod_layer", "pad_layer", "pooling_layer", "power_layer",
    "prelu_layer", "print_layer", "printer_layer", "priorbox_layer", "rank_cost",
    "recurrent_group", "recurrent_layer", "regression_cost", "repeat_layer",
    "resize_layer", "roi_pool_layer", "rotate_layer", "row_conv_layer",
    "row_l2_norm_layer", "sampling_id_layer", "scale_shift_layer",
    "scale_sub_region_layer", "scaling_layer", "scaling_projection", "selective_fc_layer",
    "seq_concat_layer", "seq_reshape_layer", "seq_slice_layer", "slice_projection",
    "slope_intercept_layer", "smooth_l1_cost", "spp_layer", "square_error_cost",
    "sub_nested_seq_layer", "sub_seq_layer", "sum_cost", "sum_to_one_norm_layer",
    "switch_order_layer", "table_projection", "tensor_layer", "trans_full_matrix_projection",
    "trans_layer", "upsample_layer", "warp_ctc_layer",
)  # fmt: skip

_OPTIMIZER = "paddle.trainer.SGD(cost=cost, parameters=parameters, update_equation={})"
_LEARNING_METHODS = {
    "MomentumOptimizer": "paddle.optimizer.Momentum(momentum=0.9, learning_rate=...)",
    "AdamOptimizer": "paddle.optimizer.Adam(beta1=0.9, beta2=0.999, learning_rate=...)",
    "AdamaxOptimizer": "paddle.optimizer.Adamax(beta1=0.9, beta2=0.999, learning_rate=...)",
    "AdaGradOptimizer": "paddle.optimizer.AdaGrad(learning_rate=...)",
    "DecayedAdaGradOptimizer": "paddle.optimizer.DecayedAdaGrad(rho=0.95, learning_rate=...)",
    "AdaDeltaOptimizer": "paddle.optimizer.AdaDelta(rho=0.95, epsilon=1e-6, learning_rate=...)",
    "RMSPropOptimizer": "paddle.optimizer.RMSProp(rho=0.95, epsilon=1e-6, learning_rate=...)",
}
_OLD_CONFIG = {
    "settings": (
        "set a v1 config's batch size, learning rate, learning method and regularization",
        "give them to the optimizer and the reader instead: "
        + _OPTIMIZER.format(
            "paddle.optimizer.Momentum(momentum=0.9, learning_rate=1e-3, "
            "regularization=paddle.optimizer.L2Regularization(rate=8e-4))"
        )
        + ", and trainer.train(reader=paddle.batch(reader, batch_size=128), ...)",
    ),
    "outputs": (
        "named a v1 config's output layers",
        "pass the cost to paddle.parameters.create(cost) and paddle.trainer.SGD(cost=cost, "
        "...), and a prediction to paddle.infer(output_layer=prediction, ...)",
    ),
    "inputs": (
        "ordered a v1 config's data layers",
        "give the order of a sample's fields as feeding={'image': 0, 'label': 1} to "
        "trainer.train, trainer.test and paddle.infer",
    ),
    "data_layer": (
        "declared a data layer by its width alone, data_layer(name, size)",
        "a v2 data layer says what it reads: paddle.layer.data(name='x', "
        "type=paddle.data_type.dense_vector(size)) (integer_value(n) for class ids, "
        "integer_value_sequence(n) for word ids, ...)",
    ),
    "define_py_data_sources2": (
        "declared a v1 config's PyDataProvider2 data sources (files and a @provider module)",
        "a v2 program reads its data with a reader, a function returning an iterator of "
        "samples: trainer.train(reader=paddle.batch(paddle.reader.shuffle(reader, "
        "buf_size=1000), batch_size=128), ...)",
    ),
    "evaluator_base": (
        "declared an evaluator by its v1 type string",
        "declare it by name: paddle.evaluator.classification_error(input=prediction, "
        "label=label), paddle.evaluator.auc(...), paddle.evaluator.precision_recall(...)",
    ),
    "Optimizer": ("was the base of v1's learning methods", "use an optimizer of paddle.optimizer"),
    "BaseSGDOptimizer": (
        "was the base of v1's learning methods",
        "use an optimizer of paddle.optimizer (Momentum, Adam, ...)",
    ),
    "BaseRegularization": (
        "was the base of v1's regularizations",
        "pass regularization=paddle.optimizer.L2Regularization(rate=...) to the optimizer",
    ),
    **{
        name: (
            "was a learning method for v1's settings(learning_method=...)",
            "the optimizer is the trainer's update_equation: " + _OPTIMIZER.format(v2),
        )
        for name, v2 in _LEARNING_METHODS.items()
    },
    **{
        name: (
            "parsed v1 config files",
            "a v2 network needs no parsing; paddle.topology.Topology(cost).proto() gives its "
            "ModelConfig, and paddle.layer.reset_names() restarts the automatic names",
        )
        for name in (
            "parse_trainer_config",
            "parse_network_config",
            "parse_optimizer_config",
            "reset_parser",
        )
    },
}

_V1_CONFIG_NAMES = {
    name: V1ConfigName(MODULE, name, what, instead) for name, (what, instead) in _OLD_CONFIG.items()
}

__all__ = sorted(
    [*_NAMED, *_LAYERS, *_NETWORKS, *_OLD_CONFIG] + [f"{name}_evaluator" for name in _EVALUATORS]
)


def v2_layer_name(v1_name: str) -> str:
    """The name ``paddle.v2.layer`` gave the v1 layer function ``v1_name``
    (``paddle/v2/layer.py``'s ``__convert_name__``)."""
    if v1_name == "maxid_layer":
        return "max_id"
    if v1_name in (
        "cross_entropy",
        "cross_entropy_with_selfnorm",
        "multi_binary_label_cross_entropy",
    ):
        return v1_name + "_cost"
    keeps = ("memory", "_seq", "_sim", "_cost")
    if v1_name.endswith(keeps) or v1_name == "hsigmoid" or not v1_name.endswith("_layer"):
        return v1_name
    return v1_name[: -len("_layer")]


def __getattr__(name: str) -> Any:
    if name in _NAMED:
        return _NAMED[name]
    if name in _LAYERS:
        return getattr(layer, v2_layer_name(name))
    if name in _NETWORKS:
        return getattr(networks, name)
    if name.endswith("_evaluator") and name[: -len("_evaluator")] in _EVALUATORS:
        return getattr(evaluator, name[: -len("_evaluator")])
    if name in _V1_CONFIG_NAMES:
        return _V1_CONFIG_NAMES[name]
    raise AttributeError(f"module {MODULE!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(__all__)
