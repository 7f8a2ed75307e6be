"""Cropping, padding, flipping and rotating images: tt.image.crop_to_bounding_box, pad_to_bounding_box,
resize_with_crop_or_pad, central_crop, flip_left_right / flip_up_down, rot90, transpose, and the random
flips and crops (stateful with TensorFlow's seed rules, stateless bit-exact with TensorFlow's).

They are TensorFlow's Python compositions (image_ops_impl.py), built here from tinytf's Slice, Pad,
ReverseV2 and Transpose, so they run and differentiate in every mode:

    tt.image.crop_to_bounding_box(image, 1, 2, 32, 32)   # image[1:33, 2:34, :]
    tt.image.rot90(image, k=3)                           # np.rot90(image, 3)
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.ops.image_resize_api import image_batch, static_hw, static_ints, unbatch
from tinytf.ops.op_functions import ops
from tinytf.ops.random_uniform import stateless_uniform, uniform
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad", "central_crop",
           "flip_left_right", "flip_up_down", "rot90", "transpose_image", "random_flip_left_right", "random_flip_up_down",
           "stateless_random_flip_left_right", "stateless_random_flip_up_down", "random_crop", "stateless_random_crop"]
__namespaces__ = {n: ("image",) for n in __all__}
__export_as__ = {"transpose_image": "transpose"}  # tt.image.transpose; ops.transpose stays tt.transpose


def _box(what, dims, offset_height, offset_width, target_height, target_width):
    box = [int(offset_height), int(offset_width), int(target_height), int(target_width)]
    if box[0] < 0 or box[1] < 0:
        raise InvalidArgumentError(f"tt.image.{what}: offsets must be >= 0, got {box[:2]}", "tf.Slice")
    if box[2] <= 0 or box[3] <= 0:
        raise InvalidArgumentError(f"tt.image.{what}: target size must be > 0, got {box[2:]}", "tf.Slice")
    return box


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``image[..., offset_height:offset_height + target_height, offset_width:offset_width + target_width, :]``."""
    batch, was_batch, dims = image_batch("crop_to_bounding_box", image, "tf.Slice")
    top, left, height, width = _box("crop_to_bounding_box", dims, offset_height, offset_width, target_height, target_width)
    in_h, in_w = static_hw("crop_to_bounding_box", dims, "tf.Slice")
    if top + height > in_h or left + width > in_w:
        raise InvalidArgumentError(f"tt.image.crop_to_bounding_box: the box [{top}, {left}, {height}, {width}] does not "
                                   f"fit in an image of height {in_h} and width {in_w}", "tf.Slice")
    return unbatch(ops.slice(batch, [0, top, left, 0], [-1, height, width, -1]), was_batch)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``image`` placed at (offset_height, offset_width) in zeros of target_height x target_width."""
    batch, was_batch, dims = image_batch("pad_to_bounding_box", image, "tf.Pad")
    top, left, height, width = _box("pad_to_bounding_box", dims, offset_height, offset_width, target_height, target_width)
    in_h, in_w = static_hw("pad_to_bounding_box", dims, "tf.Pad")
    bottom, right = height - top - in_h, width - left - in_w
    if bottom < 0 or right < 0:
        raise InvalidArgumentError(f"tt.image.pad_to_bounding_box: an image of height {in_h} and width {in_w} at offset "
                                   f"[{top}, {left}] does not fit in [{height}, {width}]", "tf.Pad")
    return unbatch(ops.pad(batch, [[0, 0], [top, bottom], [left, right], [0, 0]]), was_batch)


def resize_with_crop_or_pad(image, target_height, target_width):
    """Centrally cropped and/or zero-padded to target_height x target_width."""
    batch, was_batch, dims = image_batch("resize_with_crop_or_pad", image, "tf.Slice")
    in_h, in_w = static_hw("resize_with_crop_or_pad", dims, "tf.Slice")
    target_height, target_width = int(target_height), int(target_width)
    dh, dw = target_height - in_h, target_width - in_w
    cropped = crop_to_bounding_box(batch, max(-dh // 2, 0), max(-dw // 2, 0), min(target_height, in_h),
                                   min(target_width, in_w))
    padded = pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), target_height, target_width)
    return unbatch(padded, was_batch)


def central_crop(image, central_fraction):
    """The central ``central_fraction`` of the image's height and width (in (0, 1])."""
    fraction = float(central_fraction)
    if not 0.0 < fraction <= 1.0:
        raise InvalidArgumentError(f"tt.image.central_crop: central_fraction must be within (0, 1], got {fraction}",
                                   "tf.Slice")
    image = as_tensor(image)
    if fraction == 1.0:
        return image
    batch, was_batch, dims = image_batch("central_crop", image, "tf.Slice")
    in_h, in_w = static_hw("central_crop", dims, "tf.Slice")
    top, left = int((in_h - in_h * fraction) / 2), int((in_w - in_w * fraction) / 2)
    return unbatch(ops.slice(batch, [0, top, left, 0], [-1, in_h - 2 * top, in_w - 2 * left, -1]), was_batch)


def _image_rank(what, image):
    image = as_tensor(image)
    dims = static_dims(image)
    if dims is None or len(dims) not in (3, 4):
        raise InvalidArgumentError(f"tt.image.{what}: 'image' must have either 3 or 4 dimensions, got shape "
                                   f"{None if dims is None else list(dims)}", "tf.ReverseV2")
    return image, len(dims) - 3  # the height's axis


def flip_left_right(image):
    """The image mirrored along its width."""
    image, h = _image_rank("flip_left_right", image)
    return ops.reverse(image, [h + 1])


def flip_up_down(image):
    """The image mirrored along its height."""
    image, h = _image_rank("flip_up_down", image)
    return ops.reverse(image, [h])


def transpose_image(image, name=None):
    """``tt.image.transpose``: height and width swapped."""
    image, h = _image_rank("transpose", image)
    perm = [0, 2, 1, 3] if h else [1, 0, 2]
    return ops.transpose(image, perm)


def rot90(image, k=1, name=None):
    """The image rotated counter-clockwise by k quarter turns (np.rot90 over height and width)."""
    image, h = _image_rank("rot90", image)
    k = int(k) % 4
    if k == 0:
        return image
    if k == 2:
        return ops.reverse(image, [h, h + 1])
    if k == 1:
        return transpose_image(ops.reverse(image, [h + 1]))
    return ops.reverse(transpose_image(image), [h + 1])


def _random_flip(what, image, axis_in_image, draw):
    """Each image flipped with probability 1/2 from ``draw(shape)`` uniforms in [0, 1): TensorFlow's recipe."""
    image, h = _image_rank(what, image)
    flipped = ops.reverse(image, [h + axis_in_image])
    if not h:
        return ops.where(ops.less(draw([]), 0.5), flipped, image)
    batch = static_dims(image)[0]
    uniform = draw([batch] if batch is not None else ops.strided_slice(ops.shape(image), [0], [1]))
    flips = ops.cast(ops.round(ops.reshape(uniform, [-1, 1, 1, 1])), image.dtype)
    return ops.add(ops.multiply(flips, flipped), ops.multiply(ops.subtract(ops.ones_like(flips), flips), image))


def random_flip_left_right(image, seed=None):
    """Flipped along the width with probability 1/2 (tt.random.uniform's draws, TensorFlow's seeds)."""
    return _random_flip("random_flip_left_right", image, 1, lambda shape: uniform(shape, 0, 1.0, seed=seed))


def random_flip_up_down(image, seed=None):
    """Flipped along the height with probability 1/2."""
    return _random_flip("random_flip_up_down", image, 0, lambda shape: uniform(shape, 0, 1.0, seed=seed))


def stateless_random_flip_left_right(image, seed):
    """Flipped along the width where a stateless uniform draw from ``seed`` is < 1/2 (TensorFlow's bits)."""
    return _random_flip("stateless_random_flip_left_right", image, 1,
                        lambda shape: stateless_uniform(shape, seed, 0, 1.0))


def stateless_random_flip_up_down(image, seed):
    """Flipped along the height where a stateless uniform draw from ``seed`` is < 1/2."""
    return _random_flip("stateless_random_flip_up_down", image, 0, lambda shape: stateless_uniform(shape, seed, 0, 1.0))


def _random_crop(what, value, size, draw):
    value = as_tensor(value)
    dims = static_dims(value)
    size = static_ints(what, size, len(dims) if dims is not None else -1, "tf.Slice")
    if dims is None or any(d is None for d in dims):
        raise InvalidArgumentError(f"tt.image.{what}: the value's shape must be known, got {dims}", "tf.Slice")
    if any(s > d or s < 0 for s, d in zip(size, dims, strict=True)):
        raise InvalidArgumentError(f"tt.image.{what}: Need value.shape >= size, got {list(dims)} and {size}", "tf.Slice")
    limit = np.asarray(dims, np.int32) - np.asarray(size, np.int32) + 1
    offset = ops.floormod(draw([len(dims)], dtypes.int32), limit)
    return ops.slice(value, offset, size)


def random_crop(value, size, seed=None, name=None):
    """A random ``size`` slice of ``value`` (offsets from tt.random.uniform's int32 draws, TensorFlow's recipe)."""
    return _random_crop("random_crop", value, size,
                        lambda shape, dtype: uniform(shape, maxval=np.iinfo(np.int32).max, dtype=dtype, seed=seed))


def stateless_random_crop(value, size, seed, name=None):
    """A ``size`` slice of ``value`` at offsets drawn statelessly from ``seed`` (TensorFlow's bits)."""
    return _random_crop("stateless_random_crop", value, size,
                        lambda shape, dtype: stateless_uniform(shape, seed, maxval=np.iinfo(np.int32).max, dtype=dtype))
