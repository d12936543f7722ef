"""Image helpers (v2 ``paddle.image``): OpenCV-style BGR, HWC ``uint8`` images.

Decoding needs the ``image`` extra (Pillow): ``pip install "paddle_lite[image]"``.
"""

from paddle_lite._src.image import (
    batch_images_from_tar,
    center_crop,
    left_right_flip,
    load_and_transform,
    load_image,
    load_image_bytes,
    random_crop,
    resize_short,
    simple_transform,
    to_chw,
)

__all__ = [
    "batch_images_from_tar",
    "center_crop",
    "left_right_flip",
    "load_and_transform",
    "load_image",
    "load_image_bytes",
    "random_crop",
    "resize_short",
    "simple_transform",
    "to_chw",
]
