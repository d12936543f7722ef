"""v2's ``paddle.layer.LayerType`` (v1's table of layer type strings) and ``layer_support``.

``LayerType`` holds the type strings a v2 ``ModelConfig`` gives each layer (``fc``,
``seqlastins``, ``multi-class-cross-entropy`` ...), with v2's constant names, and
``LayerType.is_layer_type(name)``. ``layer_support(*attrs)`` is v1's decorator declaring
which ``ExtraAttr`` fields a layer function supports: a call whose ``ExtraAttr`` sets another
field raises ``NotImplementedError`` naming the function and the field, as in v2.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable
from typing import Any

from paddle_lite._src.attrs import ExtraAttr

# the ExtraAttr fields that v2 named for layer_support (plus DEVICE, always supported)
ERROR_CLIPPING = "error_clipping_threshold"
DROPOUT = "drop_rate"
DEVICE = "device"

_TYPES = """
DATA data; MIXED_LAYER mixed; LSTMEMORY lstmemory; GRUMEMORY gated_recurrent;
SEQUENCE_LAST_INSTANCE seqlastins; SEQUENCE_FIRST_INSTANCE seqfirstins;
SEQUENCE_RESHAPE seqreshape; POOLING_MAX max; POOLING_AVG average; UPSAMPLE_LAYER upsample;
FC_LAYER fc; COST cost; COSINE_SIM_VEC cos_vm; COSINE_SIM cos; L2_DISTANCE l2_distance;
HSIGMOID hsigmoid; CONV_LAYER conv; CONVTRANS_LAYER convt; EXCONV_LAYER exconv;
EXCONVTRANS_LAYER exconvt; CUDNNCONV_LAYER cudnn_conv; CUDNNCONVTRANS_LAYER cudnn_convt;
POOL_LAYER pool; POOL3D_LAYER pool3d; BATCH_NORM_LAYER batch_norm; NORM_LAYER norm;
SUM_TO_ONE_NORM_LAYER sum_to_one_norm; ROW_L2_NORM_LAYER row_l2_norm; ADDTO_LAYER addto;
CONCAT_LAYER concat; CONCAT_PROJ_LAYER concat2; SEQUENCE_CONCAT_LAYER seqconcat;
LSTM_STEP_LAYER lstm_step; GRU_STEP_LAYER gru_step; GET_OUTPUT_LAYER get_output;
EXPAND_LAYER expand; INTERPOLATION_LAYER interpolation; BILINEAR_INTERP_LAYER bilinear_interp;
POWER_LAYER power; SCALING_LAYER scaling; TRANS_LAYER trans; ROTATE_LAYER rotate;
DOT_PROD_LAYER dot_prod; OUT_PROD_LAYER out_prod; FEATURE_MAP_EXPAND_LAYER featmap_expand;
MEMORY memory; MAXID_LAYER maxid; EOSID_LAYER eos_id; RECURRENT_LAYER recurrent;
CONV_SHIFT_LAYER conv_shift; TENSOR_LAYER tensor; SEL_FC_LAYER selective_fc;
SAMPLING_ID_LAYER sampling_id; SLOPE_INTERCEPT_LAYER slope_intercept;
LINEAR_COMBINATION_LAYER convex_comb; BLOCK_EXPAND blockexpand; MAXOUT maxout; SPP_LAYER spp;
PAD_LAYER pad; MULTIPLEX_LAYER multiplex; ROW_CONV_LAYER row_conv; PRINT_LAYER print;
PRIORBOX_LAYER priorbox; MULTIBOX_LOSS_LAYER multibox_loss;
DETECTION_OUTPUT_LAYER detection_output; ROI_POOL_LAYER roi_pool; CTC_LAYER ctc;
WARP_CTC_LAYER warp_ctc; CRF_LAYER crf; CRF_DECODING_LAYER crf_decoding; NCE_LAYER nce;
CONV3D_LAYER conv3d; DECONV3D_LAYER deconv3d; RANK_COST rank-cost; LAMBDA_COST lambda_cost;
HUBER_REGRESSION huber_regression; HUBER_CLASSIFICATION huber_classification;
CROSS_ENTROPY multi-class-cross-entropy;
CROSS_ENTROPY_WITH_SELFNORM multi_class_cross_entropy_with_selfnorm;
CROSS_ENTROPY_OVER_BEAM cross_entropy_over_beam;
SOFT_BIN_CLASS_CROSS_ENTROPY soft_binary_class_cross_entropy;
MULTI_BIN_LABEL_CROSS_ENTROPY multi_binary_label_cross_entropy; SUM_COST sum_cost;
SMOOTH_L1 smooth_l1; PRELU prelu; SWITCH_ORDER_LAYER switch_order; CROP_LAYER crop;
SUB_NESTED_SEQ sub_nested_seq; CLIP_LAYER clip; SEQ_SLICE seq_slice;
KMAX_SEQ_SCORE kmax_seq_score; SCALE_SHIFT_LAYER scale_shift; RESIZE resize;
SUB_SEQ_LAYER subseq; SCALE_SUB_REGION_LAYER scale_sub_region;
FACTORIZATION_MACHINE factorization_machine
"""


class LayerType:
    """Layer type enumerations: v2's constant names for the ``ModelConfig`` type strings.

    Example:
        >>> paddle.layer.LayerType.FC_LAYER
        'fc'
        >>> paddle.layer.LayerType.is_layer_type("seqlastins")
        True
    """

    @staticmethod
    def is_layer_type(type_name: Any) -> bool:
        """Whether ``type_name`` is one of the type strings (an upper-case constant's value)."""
        return any(
            key.isupper() and isinstance(value, str) and value == type_name
            for key, value in vars(LayerType).items()
        )


for _entry in _TYPES.split(";"):
    _key, _value = _entry.split()
    setattr(LayerType, _key, _value)
del _entry, _key, _value

# ExtraAttr objects -> the fields some layer_support-decorated call declared supported;
# as in v2 (which set ``can_<field>`` on the object), a declaration outlives the call.
_SUPPORTED: weakref.WeakKeyDictionary[ExtraAttr, set[str]] = weakref.WeakKeyDictionary()


def layer_support(*attrs: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare the ``ExtraAttr`` fields a layer function supports (``device`` always is).

    Every ``ExtraAttr`` among the call's arguments is checked before the function runs:
    a field it sets that no supporting call has declared raises ``NotImplementedError``
    (``"Layer <function> does not support <field>"``), as in v2.

    Args:
        *attrs: the supported field names (``"drop_rate"``, ``"error_clipping_threshold"``).

    Returns:
        A decorator; the function it returns has v2's ``argspec`` attribute.

    Example:
        >>> @paddle.layer.layer_support("drop_rate")
        ... def my_fc(input, size, layer_attr=None):
        ...     return paddle.layer.fc(input=input, size=size, layer_attr=layer_attr)
        >>> out = my_fc(x, 4, layer_attr=paddle.attr.Extra(drop_rate=0.5))
    """
    supported = {*attrs, DEVICE}

    def decorator(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            extras = [v for v in (*args, *kwargs.values()) if isinstance(v, ExtraAttr)]
            for extra in extras:
                _SUPPORTED.setdefault(extra, set()).update(supported)
            for extra in extras:
                for field in extra.set_fields():
                    if field not in _SUPPORTED[extra]:
                        raise NotImplementedError(
                            f"Layer {method.__name__} does not support {field}"
                        )
            return method(*args, **kwargs)

        wrapper.argspec = getattr(method, "argspec", None) or inspect.getfullargspec(method)
        return wrapper

    return decorator
