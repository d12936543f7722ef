"""Layers (v2 ``paddle.layer``): functions that build immutable layer nodes."""

from paddle_lite._src.compat.aliases import module_getattr
from paddle_lite._src.evaluators.printers import printer
from paddle_lite._src.graph import Layer, name_scope, reset_names
from paddle_lite._src.layers.addto import addto, dropout
from paddle_lite._src.layers.concat import concat
from paddle_lite._src.layers.cost.basic import (
    classification_cost,
    cross_entropy,
    cross_entropy_cost,
    cross_entropy_with_selfnorm_cost,
    multi_binary_label_cross_entropy_cost,
)
from paddle_lite._src.layers.cost.beam import BeamInput, cross_entropy_over_beam
from paddle_lite._src.layers.cost.crf import crf, crf_decoding
from paddle_lite._src.layers.cost.ctc import ctc, warp_ctc
from paddle_lite._src.layers.cost.rank import (
    lambda_cost,
    less_than,
    rank_cost,
    should_be_false,
    should_be_true,
)
from paddle_lite._src.layers.cost.robust import (
    huber_classification_cost,
    huber_regression_cost,
    smooth_l1_cost,
)
from paddle_lite._src.layers.cost.sampled import hsigmoid, nce
from paddle_lite._src.layers.cost.square import regression_cost, square_error_cost, sum_cost
from paddle_lite._src.layers.data import data
from paddle_lite._src.layers.detection.features import cross_channel_norm, priorbox
from paddle_lite._src.layers.detection.loss import multibox_loss
from paddle_lite._src.layers.detection.output import detection_output
from paddle_lite._src.layers.embedding import embedding
from paddle_lite._src.layers.fc import fc
from paddle_lite._src.layers.image.cmrnorm import img_cmrnorm
from paddle_lite._src.layers.image.conv import img_conv
from paddle_lite._src.layers.image.conv3d import img_conv3d, img_pool3d
from paddle_lite._src.layers.image.conv_mixed import conv_operator, conv_projection
from paddle_lite._src.layers.image.layout import crop, resize, scale_sub_region, switch_order
from paddle_lite._src.layers.image.pool import img_pool, maxout, pad
from paddle_lite._src.layers.image.reshape import bilinear_interp, block_expand, rotate
from paddle_lite._src.layers.image.roi_pool import roi_pool, upsample
from paddle_lite._src.layers.image.spp import spp
from paddle_lite._src.layers.layer_types import LayerType, layer_support
from paddle_lite._src.layers.math.basic import (
    cos_sim,
    interpolation,
    max_id,
    power,
    scaling,
    slope_intercept,
)
from paddle_lite._src.layers.math.combine import conv_shift, convex_comb, linear_comb, tensor
from paddle_lite._src.layers.math.learned import (
    factorization_machine,
    gated_unit,
    row_conv,
    slice_projection,
)
from paddle_lite._src.layers.math.pairs import dot_prod, l2_distance, multiplex, out_prod
from paddle_lite._src.layers.math.rows import clip, prelu, row_l2_norm, scale_shift
from paddle_lite._src.layers.math.tile import repeat, trans
from paddle_lite._src.layers.mixed import AddToSealedMixedLayerException, mixed
from paddle_lite._src.layers.norm import batch_norm, sum_to_one_norm
from paddle_lite._src.layers.projections import (
    context_projection,
    dotmul_operator,
    dotmul_projection,
    full_matrix_projection,
    identity_projection,
    scaling_projection,
    table_projection,
    trans_full_matrix_projection,
)
from paddle_lite._src.layers.recurrent.basic import grumemory, lstmemory, recurrent
from paddle_lite._src.layers.recurrent.generation import (
    BaseGeneratedInput,
    GeneratedInput,
    beam_search,
    eos,
    sampling_id,
)
from paddle_lite._src.layers.recurrent.group import recurrent_group
from paddle_lite._src.layers.recurrent.gru_step import gru_step, gru_step_naive
from paddle_lite._src.layers.recurrent.lstm_step import get_output, lstm_step
from paddle_lite._src.layers.recurrent.memory import StaticInput, SubsequenceInput, memory
from paddle_lite._src.layers.selective_fc import selective_fc
from paddle_lite._src.layers.sequence.aggregate import AggregateLevel, ExpandLevel
from paddle_lite._src.layers.sequence.pooling import first_seq, last_seq, pooling
from paddle_lite._src.layers.sequence.reshape import expand, seq_concat, seq_reshape
from paddle_lite._src.layers.sequence.select import kmax_seq_score, sub_nested_seq, sub_seq
from paddle_lite._src.layers.sequence.slice import seq_slice
from paddle_lite._src.topology import get_layer, parse_network

LayerOutput = Layer

__all__ = [
    "AddToSealedMixedLayerException",
    "AggregateLevel",
    "BaseGeneratedInput",
    "BeamInput",
    "ExpandLevel",
    "GeneratedInput",
    "Layer",
    "LayerOutput",
    "LayerType",
    "StaticInput",
    "SubsequenceInput",
    "addto",
    "batch_norm",
    "beam_search",
    "bilinear_interp",
    "block_expand",
    "classification_cost",
    "clip",
    "concat",
    "context_projection",
    "conv_operator",
    "conv_projection",
    "conv_shift",
    "convex_comb",
    "cos_sim",
    "crf",
    "crf_decoding",
    "crop",
    "cross_channel_norm",
    "cross_entropy",
    "cross_entropy_cost",
    "cross_entropy_over_beam",
    "cross_entropy_with_selfnorm_cost",
    "ctc",
    "data",
    "detection_output",
    "dot_prod",
    "dotmul_operator",
    "dotmul_projection",
    "dropout",
    "embedding",
    "eos",
    "expand",
    "factorization_machine",
    "fc",
    "first_seq",
    "full_matrix_projection",
    "gated_unit",
    "get_layer",
    "get_output",
    "gru_step",
    "gru_step_naive",
    "grumemory",
    "hsigmoid",
    "huber_classification_cost",
    "huber_regression_cost",
    "identity_projection",
    "img_cmrnorm",
    "img_conv",
    "img_conv3d",
    "img_pool",
    "img_pool3d",
    "interpolation",
    "kmax_seq_score",
    "l2_distance",
    "lambda_cost",
    "last_seq",
    "layer_support",
    "less_than",
    "linear_comb",
    "lstm_step",
    "lstmemory",
    "max_id",
    "maxout",
    "memory",
    "mixed",
    "multi_binary_label_cross_entropy_cost",
    "multibox_loss",
    "multiplex",
    "name_scope",
    "nce",
    "out_prod",
    "pad",
    "parse_network",
    "pooling",
    "power",
    "prelu",
    "printer",
    "priorbox",
    "rank_cost",
    "recurrent",
    "recurrent_group",
    "regression_cost",
    "repeat",
    "reset_names",
    "resize",
    "roi_pool",
    "rotate",
    "row_conv",
    "row_l2_norm",
    "sampling_id",
    "scale_shift",
    "scale_sub_region",
    "scaling",
    "scaling_projection",
    "selective_fc",
    "seq_concat",
    "seq_reshape",
    "seq_slice",
    "should_be_false",
    "should_be_true",
    "slice_projection",
    "slope_intercept",
    "smooth_l1_cost",
    "spp",
    "square_error_cost",
    "sub_nested_seq",
    "sub_seq",
    "sum_cost",
    "sum_to_one_norm",
    "switch_order",
    "table_projection",
    "tensor",
    "trans",
    "trans_full_matrix_projection",
    "upsample",
    "warp_ctc",
]

# v2 names served on access: "print" (the printer) and the names of earlier v2 versions
# (see _src/compat/early_names.py and _src/compat/aliases.py).
__getattr__ = module_getattr("layer", {"print": printer})
