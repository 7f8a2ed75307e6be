"""ExtractImagePatches and tt.image.extract_patches: every ksize window of an image (strided, dilated by
rates, VALID or SAME padded with zeros) flattened into the depth of one output pixel.

    %p = "tf.ExtractImagePatches"(%images) <{ksizes = [1, 3, 3, 1], padding = "VALID", rates = [1, 1, 1, 1],
           strides = [1, 2, 2, 1]}> : (tensor<2x24x20x3xf32>) -> tensor<2x11x9x27xf32>

The pixel each patch element reads is fixed by the shapes, so the op is a gather with indices computed
in numpy (the same code runs in jax.numpy), and its gradient the matching segment sum.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape

__all__ = ["extract_patches"]
__namespaces__ = {"extract_patches": ("image",)}


def _window(op_name, attrs):
    sizes, strides, rates = (list(attrs[k]) for k in ("ksizes", "strides", "rates"))
    for what, values in (("ksizes", sizes), ("strides", strides), ("rates", rates)):
        if len(values) != 4 or values[0] != 1 or values[3] != 1 or min(values) < 1:
            raise InvalidArgumentError(f"{op_name}: {what} must be [1, rows, cols, 1] of positive ints, got {values}",
                                       op_name)
    if attrs["padding"] not in ("VALID", "SAME"):
        raise InvalidArgumentError(f"{op_name}: padding must be VALID or SAME, got {attrs['padding']!r}", op_name)
    return sizes[1:3], strides[1:3], rates[1:3]


def _axis(size, k, stride, rate, padding):
    """(output size, [out, k] input indices with -1 for padding) along one axis, as TF's conv padding."""
    effective = (k - 1) * rate + 1
    if padding == "VALID":
        out, before = max((size - effective + stride) // stride, 0), 0
    else:
        out = -(-size // stride)
        before = max((out - 1) * stride + effective - size, 0) // 2
    index = np.arange(out)[:, None] * stride - before + np.arange(k)[None, :] * rate
    return out, np.where((index >= 0) & (index < size), index, -1)


def patch_indices(op_name, shape, attrs):
    """([out_h, out_w, kh, kw] flat pixel indices into h*w, -1 for padding; out_h, out_w)."""
    (kh, kw), (sh, sw), (rh, rw) = _window(op_name, attrs)
    out_h, rows = _axis(shape[1], kh, sh, rh, attrs["padding"])
    out_w, cols = _axis(shape[2], kw, sw, rw, attrs["padding"])
    flat = rows[:, None, :, None] * shape[2] + cols[None, :, None, :]
    flat = np.where((rows[:, None, :, None] < 0) | (cols[None, :, None, :] < 0), -1, flat)
    return flat, out_h, out_w


@register
class ExtractImagePatches(Op):
    """Each output pixel holds the ksizes window at its stride, dilated by rates, flattened row by row."""

    name = "tf.ExtractImagePatches"
    images = operand_def()
    patches = result_def()
    ksizes = attr(kind="ints")
    strides = attr(kind="ints")
    rates = attr(kind="ints")
    padding = attr(kind="str")
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"ksizes": v.i64_array(4), "strides": v.i64_array(4), "rates": v.i64_array(4),
                                        "padding": v.PADDING}

    @classmethod
    def infer(cls, images, **attrs):
        (kh, kw), _, _ = _window(cls.name, attrs)
        if images.dtype.kind not in "fiuc" or (images.shape is not None and len(images.shape) != 4):
            raise InvalidArgumentError(f"{cls.name}: images must be a 4-D number tensor, got {images.dtype.name} "
                                       f"{fmt_shape(images.shape)}", cls.name)
        if images.shape is None:
            return TensorSpec(None, images.dtype)
        batch, height, width, depth = images.shape
        out_h = out_w = None
        if height is not None and width is not None:
            _, out_h, out_w = patch_indices(cls.name, images.shape, attrs)
        return TensorSpec((batch, out_h, out_w, None if depth is None else kh * kw * depth), images.dtype)

    @classmethod
    def compute(cls, xp, images, **attrs):
        if images.ndim != 4:
            raise InvalidArgumentError(f"{cls.name}: images must be 4-D, got {list(images.shape)}", cls.name)
        flat, out_h, out_w = patch_indices(cls.name, images.shape, attrs)
        batch, height, width, depth = images.shape
        check_allocation(cls.name, (batch, *flat.shape, depth), images.dtype)
        pixels = xp.reshape(images, (batch, height * width, depth))
        pixels = xp.concatenate([pixels, xp.zeros((batch, 1, depth), images.dtype)], axis=1)  # index -1: a zero
        picked = xp.take(pixels, flat.reshape(-1) % (height * width + 1), axis=1)
        return xp.reshape(picked, (batch, out_h, out_w, -1))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dx[pixel] = the sum of U over the patch elements reading it
        from tinytf.ops.op_functions import ops

        images = op.inputs[0]
        batch, height, width, depth = images.shape
        if None in (height, width, depth):
            raise InvalidArgumentError(f"tf.ExtractImagePatches: the gradient needs the images' height, width and depth, got "
                                       f"{fmt_shape(images.shape)}", "tf.ExtractImagePatches")
        flat, _, _ = patch_indices("tf.ExtractImagePatches", images.shape, op.attrs)
        segments = np.where(flat < 0, height * width, flat).reshape(-1).astype(np.int32)
        per_element = ops.transpose(ops.reshape(dy, [-1, segments.size, depth]), [1, 0, 2])
        summed = ops.unsorted_segment_sum(per_element, segments, height * width + 1)
        pixels = ops.slice(summed, [0, 0, 0], [height * width, -1, -1])
        return [ops.reshape(ops.transpose(pixels, [1, 0, 2]), [-1, height, width, depth])]


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """``tt.image.extract_patches``: tf.ExtractImagePatches with TensorFlow 2's argument names."""
    from tinytf.ops.tensor_inputs import as_tensor

    return ExtractImagePatches.bind(as_tensor(images), ksizes=tuple(int(s) for s in sizes),
                                    strides=tuple(int(s) for s in strides), rates=tuple(int(r) for r in rates),
                                    padding=padding)
