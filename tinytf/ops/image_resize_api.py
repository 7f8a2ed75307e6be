"""tt.image.resize (TensorFlow 2's resize_images_v2) and resize_with_pad, on the resize ops of image_resize.py.

    tt.image.resize(images, [64, 64])                               # bilinear, half-pixel centres, float32
    tt.image.resize(images, [64, 64], "lanczos3", antialias=True)   # tf.ScaleAndTranslate
    tt.image.resize_with_pad(image, 64, 64)                         # aspect ratio kept, zero padding

Images are [height, width, channels] or [batch, height, width, channels]; their height and width must be
known when the function is built (TensorFlow reads them the same way where it can).
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.image_resize import (
    ResizeArea,
    ResizeBicubic,
    ResizeBilinear,
    ResizeNearestNeighbor,
    ScaleAndTranslate,
)
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import static_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["resize", "resize_with_pad"]
__namespaces__ = {n: ("image",) for n in __all__}
__namespace_classes__ = {"ResizeMethod": ("image",)}


class ResizeMethod:
    """The names of tt.image.resize's methods (TensorFlow's tf.image.ResizeMethod)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


# Methods ScaleAndTranslate resamples with; with antialias, bilinear and bicubic do too (as triangle, keyscubic).
KERNEL_METHODS = ("lanczos3", "lanczos5", "gaussian", "mitchellcubic")
ANTIALIASED = {"bilinear": "triangle", "bicubic": "keyscubic"}
METHODS = ("bilinear", "nearest", "bicubic", "area", *KERNEL_METHODS)


def image_batch(what: str, images, op: str = "tf.ResizeBilinear"):
    """(images as [batch, h, w, c], whether a batch was given, its static dims)."""
    images = as_tensor(images)
    dims = static_dims(images)
    if dims is None or len(dims) not in (3, 4):
        raise InvalidArgumentError(f"tt.image.{what}: 'images' must have either 3 or 4 dimensions, got shape "
                                   f"{None if dims is None else list(dims)}", op)
    if len(dims) == 4:
        return images, True, dims
    return ops.expand_dims(images, 0), False, (1, *dims)


def unbatch(images, was_batch: bool):
    return images if was_batch else ops.squeeze(images, [0])


def static_hw(what: str, dims, op: str) -> tuple[int, int]:
    if dims[1] is None or dims[2] is None:
        raise UnimplementedError(f"tt.image.{what}: the image's height and width must be known when tracing, "
                                 f"got {list(dims)}", op)
    return dims[1], dims[2]


def static_ints(what: str, value, count: int, op: str) -> list[int]:
    known = static_value(value)
    if known is None:
        raise UnimplementedError(f"tt.image.{what}: needs {count} ints known when tracing, got {value!r}", op)
    known = np.asarray(known).reshape(-1)
    if known.size != count or known.dtype.kind not in "iu":
        raise InvalidArgumentError(f"tt.image.{what}: expected {count} ints, got {known.tolist()}", op)
    return [int(v) for v in known]


def resize_batch(images, height: int, width: int, method: str, antialias: bool, in_hw):
    """The resize op tf.image.resize (v2) picks for ``method``, on a batch."""
    size = np.asarray([height, width], np.int32)
    if method in KERNEL_METHODS or (antialias and method in ANTIALIASED):
        scale = np.asarray([height / in_hw[0], width / in_hw[1]], np.float32)
        return ScaleAndTranslate.bind(images, size, scale, np.zeros(2, np.float32),
                                      kernel_type=ANTIALIASED.get(method, method), antialias=antialias)
    if method == "bilinear":
        return ResizeBilinear.bind(images, size, half_pixel_centers=True)
    if method == "nearest":
        return ResizeNearestNeighbor.bind(images, size, half_pixel_centers=True)
    if method == "bicubic":
        return ResizeBicubic.bind(images, size, half_pixel_centers=True)
    return ResizeArea.bind(images, size)


def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False, name=None):
    """``tt.image.resize``: TensorFlow 2's tf.image.resize; float32 out except for "nearest" (the input's dtype)."""
    if method not in METHODS:
        raise InvalidArgumentError(f"tt.image.resize: Resize method {method!r} is not supported (one of {METHODS})",
                                   "tf.ResizeBilinear")
    batch, was_batch, dims = image_batch("resize", images)
    height, width = static_ints("resize", size, 2, "tf.ResizeBilinear")
    in_hw = static_hw("resize", dims, "tf.ResizeBilinear")
    if height <= 0 or width <= 0:
        raise InvalidArgumentError(f"tt.image.resize: size must be positive, got {[height, width]}", "tf.ResizeBilinear")
    if preserve_aspect_ratio:
        f32 = np.float32
        factor = min(f32(height) / f32(in_hw[0]), f32(width) / f32(in_hw[1]))
        height, width = int(np.round(factor * f32(in_hw[0]))), int(np.round(factor * f32(in_hw[1])))
    return unbatch(resize_batch(batch, height, width, method, antialias, in_hw), was_batch)


def resize_with_pad(image, target_height, target_width, method="bilinear", antialias=False):
    """``tt.image.resize_with_pad``: resized to fit inside the target keeping the aspect ratio, then
    zero-padded around to exactly the target (float32 out, as the resize's)."""
    from tinytf.ops.image_crop import pad_to_bounding_box

    batch, was_batch, dims = image_batch("resize_with_pad", image)
    in_h, in_w = static_hw("resize_with_pad", dims, "tf.ResizeBilinear")
    target_height, target_width = int(target_height), int(target_width)
    if target_height <= 0 or target_width <= 0:
        raise InvalidArgumentError(f"tt.image.resize_with_pad: target size must be positive, got "
                                   f"{[target_height, target_width]}", "tf.ResizeBilinear")
    f32 = np.float32
    ratio = max(f32(in_w) / f32(target_width), f32(in_h) / f32(target_height))
    new_h, new_w = f32(in_h) / ratio, f32(in_w) / ratio
    pad_h = max(0, int(np.floor((f32(target_height) - new_h) / f32(2))))
    pad_w = max(0, int(np.floor((f32(target_width) - new_w) / f32(2))))
    resized = resize(batch, [int(np.floor(new_h)), int(np.floor(new_w))], method, antialias=antialias)
    padded = pad_to_bounding_box(resized, pad_h, pad_w, target_height, target_width)
    return unbatch(padded, was_batch)

