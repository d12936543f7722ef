"""Every public name of v2 exists in paddle_lite.

``V2_ALL`` holds, per module, the names of v2's ``__all__`` (Paddle 0.10-0.11, read from
``python/paddle/v2`` and the v1 helpers v2 wraps, with v2's renaming applied). Each one is an
attribute of the paddle_lite module of the same name, and none is a stub: nothing is
callable only to raise ``NotImplementedError``.
"""

import importlib

import pytest

import paddle_lite
from paddle_lite._src.compat import early_names


def _v2_layer_names():
    v1 = (
        "full_matrix_projection AggregateLevel ExpandLevel identity_projection dotmul_projection "
        "dotmul_operator repeat_layer seq_reshape_layer table_projection mixed_layer data_layer "
        "embedding_layer fc_layer grumemory pooling_layer lstmemory last_seq first_seq cos_sim "
        "l2_distance_layer hsigmoid conv_projection square_error_cost regression_cost "
        "classification_cost LayerOutput img_conv_layer img_pool_layer batch_norm_layer "
        "img_cmrnorm_layer addto_layer concat_layer seq_concat_layer lstm_step_layer "
        "recurrent_group memory StaticInput expand_layer scaling_layer scaling_projection "
        "power_layer interpolation_layer bilinear_interp_layer trans_layer rotate_layer "
        "sum_to_one_norm_layer row_l2_norm_layer get_output_layer LayerType context_projection "
        "beam_search maxid_layer GeneratedInput SubsequenceInput gru_step_layer "
        "gru_step_naive_layer recurrent_layer BaseGeneratedInput conv_operator conv_shift_layer "
        "tensor_layer selective_fc_layer sampling_id_layer slope_intercept_layer "
        "trans_full_matrix_projection linear_comb_layer convex_comb_layer ctc_layer "
        "warp_ctc_layer crf_layer crf_decoding_layer nce_layer cross_entropy_with_selfnorm "
        "cross_entropy BeamInput cross_entropy_over_beam multi_binary_label_cross_entropy "
        "sum_cost rank_cost lambda_cost huber_regression_cost huber_classification_cost "
        "block_expand_layer maxout_layer dot_prod_layer out_prod_layer printer_layer print_layer "
        "priorbox_layer cross_channel_norm_layer multibox_loss_layer detection_output_layer "
        "roi_pool_layer spp_layer pad_layer eos_layer smooth_l1_cost layer_support "
        "multiplex_layer row_conv_layer dropout_layer prelu_layer switch_order_layer "
        "gated_unit_layer crop_layer sub_nested_seq_layer clip_layer slice_projection "
        "seq_slice_layer kmax_seq_score_layer img_pool3d_layer scale_shift_layer "
        "img_conv3d_layer resize_layer sub_seq_layer scale_sub_region_layer upsample_layer "
        "factorization_machine"
    ).split()
    kept = {
        "StaticInput",
        "SubsequenceInput",
        "GeneratedInput",
        "LayerType",
        "layer_support",
        "BaseGeneratedInput",
    }

    def v2_name(name):  # v2's layer.py renaming
        if name in kept:
            return name
        if name == "maxid_layer":
            return "max_id"
        if name.endswith(("memory", "_seq", "_sim")) or name == "hsigmoid":
            return name
        if name in (
            "cross_entropy",
            "multi_binary_label_cross_entropy",
            "cross_entropy_with_selfnorm",
        ):
            return name + "_cost"
        return name[: -len("_layer")] if name.endswith("_layer") else name

    return sorted(
        {v2_name(n) for n in v1} | {"data", "parse_network", "get_layer", "mse_cost", "huber_cost"}
    )


V2_ALL = {
    "": "optimizer layer activation parameters init trainer event data_type attr pooling "
    "data_feeder dataset reader topology networks infer plot evaluator image master op "
    "minibatch inference batch",
    "layer": " ".join(_v2_layer_names()),
    "activation": "Tanh Sigmoid Softmax Identity Linear SequenceSoftmax Exp Relu BRelu SoftRelu "
    "STanh Abs Square Base Log Sqrt Reciprocal SoftSign",
    "attr": "Param Extra Hook ParamAttr ExtraAttr HookAttr ParameterAttribute "
    "ExtraLayerAttribute HookAttribute",
    "data_type": "InputType DataType SequenceType dense_vector dense_array "
    "dense_vector_sequence dense_vector_sub_sequence integer_value integer_value_sequence "
    "integer_value_sub_sequence integer_sequence sparse_binary_vector "
    "sparse_binary_vector_sequence sparse_binary_vector_sub_sequence sparse_float_vector "
    "sparse_float_vector_sequence sparse_float_vector_sub_sequence sparse_non_value_slot "
    "sparse_value_slot",
    "pooling": "Max Avg MaxWithMask CudnnMax CudnnAvg CudnnAvgInclPad Sum SquareRootN",
    "evaluator": "classification_error auc pnpair precision_recall ctc_error chunk sum "
    "column_sum value_printer gradient_printer maxid_printer maxframe_printer seqtext_printer "
    "classification_error_printer detection_map base",
    "optimizer": "Momentum Adam Adamax AdaGrad DecayedAdaGrad AdaDelta RMSProp ModelAverage "
    "L2Regularization",
    "reader": "map_readers buffered compose chain shuffle ComposeNotAligned firstn "
    "xmap_readers PipeReader creator",
    "reader.creator": "np_array text_file recordio cloud_reader",
    "dataset": "mnist imikolov imdb cifar movielens conll05 sentiment uci_housing wmt14 wmt16 "
    "mq2007 flowers voc2012 common",
    "dataset.common": "DATA_HOME download md5file split cluster_files_reader convert fetch_all",
    "image": "load_image_bytes load_image resize_short to_chw center_crop random_crop "
    "left_right_flip simple_transform load_and_transform batch_images_from_tar",
    "plot": "Ploter",
    "event": "EndIteration BeginIteration BeginPass EndPass TestResult EndForwardBackward",
    "trainer": "SGD",
    "inference": "Inference infer",
    "topology": "Topology",
    "parameters": "Parameters create",
    "minibatch": "batch",
    "op": "exp log abs sigmoid tanh square relu sqrt reciprocal softmax",
    "master": "client",
    "networks": "sequence_conv_pool text_conv_pool simple_lstm simple_img_conv_pool "
    "img_conv_bn_pool lstmemory_group lstmemory_unit small_vgg img_conv_group vgg_16_network "
    "gru_unit gru_group simple_gru simple_attention simple_gru2 bidirectional_gru "
    "bidirectional_lstm img_separable_conv dot_product_attention multi_head_attention",
    "data_feeder": "DataFeeder",
}

# Built by the generation work (recurrent groups, memories, beam search) in parallel.
CASES = [(m, n) for m, names in V2_ALL.items() for n in names.split()]


def _module(name):
    return paddle_lite if not name else importlib.import_module(f"paddle_lite.{name}")


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_v2_name_exists(module, name):
    if name in early_names.BY_MODULE.get(module, {}):  # renamed in a later v2: it warns
        with pytest.warns(DeprecationWarning, match=f"paddle.{module}.{name} is from an earlier"):
            value = getattr(_module(module), name)
    else:
        value = getattr(_module(module), name)  # an AttributeError fails the test
    assert value is not None
