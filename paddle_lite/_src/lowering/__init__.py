"""How compiled programs are lowered to XLA: layouts, precision, compiler options.

``compile`` (one level up) turns a topology into pure functions; these modules decide how
XLA sees them:

1. ``channels_last`` -- images kept NHWC between the convolution and pooling layers of a
   chain, while every layer reads and returns v2's CHW order.
2. ``precision`` -- ``paddle.init(precision=...)``: float32, TF32 or bfloat16 matmuls.
3. ``xla_options`` -- the XLA:CPU options programs compile with.
"""
