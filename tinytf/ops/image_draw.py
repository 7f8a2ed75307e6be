"""DrawBoundingBoxes / DrawBoundingBoxesV2 and tt.image.draw_bounding_boxes: one-pixel box outlines painted
onto a batch of images, as TensorFlow's draw_bounding_box_op.cc places them.

    %out = "tf.DrawBoundingBoxesV2"(%images, %boxes, %colors) : (tensor<2x8x8x3xf32>, tensor<2x1x4xf32>,
             tensor<1x4xf32>) -> tensor<2x8x8x3xf32>

A box [y_min, x_min, y_max, x_max] in [0, 1] covers rows trunc(y (height - 1)) and columns
trunc(x (width - 1)); each side inside the image is painted (clamped to the image), in box order with
colours cycling through ``colors`` (TensorFlow's ten default colours when it is empty). Inverted boxes and
boxes wholly outside the image are skipped. Painting is written with masks, so XLA runs it too.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape

__all__ = ["draw_bounding_boxes"]
__namespaces__ = {"draw_bounding_boxes": ("image",)}

# TensorFlow's default colours (RGBA): yellow, blue, red, lime, purple, olive, maroon, navy, aqua, fuchsia.
DEFAULT_COLORS = np.float32([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                             [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]])


def paint_boxes(xp, images, boxes, colors):
    batch, height, width, depth = images.shape
    if colors.shape[0] == 0:
        colors = DEFAULT_COLORS
    rows = np.arange(height)[None, :, None]
    cols = np.arange(width)[None, None, :]
    out = images
    for k in range(boxes.shape[1]):
        box = boxes[:, k, :].astype(np.float32)
        top = xp.trunc(box[:, 0] * np.float32(height - 1))[:, None, None]
        left = xp.trunc(box[:, 1] * np.float32(width - 1))[:, None, None]
        bottom = xp.trunc(box[:, 2] * np.float32(height - 1))[:, None, None]
        right = xp.trunc(box[:, 3] * np.float32(width - 1))[:, None, None]
        drawn = (top <= bottom) & (left <= right) & (top < height) & (bottom >= 0) & (left < width) & (right >= 0)
        in_cols = (cols >= xp.maximum(left, 0)) & (cols <= xp.minimum(right, width - 1))
        in_rows = (rows >= xp.maximum(top, 0)) & (rows <= xp.minimum(bottom, height - 1))
        outline = (((rows == top) | (rows == bottom)) & in_cols) | (((cols == left) | (cols == right)) & in_rows)
        color = colors[k % colors.shape[0], :depth].astype(images.dtype)
        out = xp.where((drawn & outline)[..., None], color, out)
    return out


class _Draw(Op):
    images = operand_def()
    boxes = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def check(cls, images, boxes):
        if images.dtype not in (dtypes.float32, dtypes.float16) or boxes.dtype != dtypes.float32:
            raise InvalidArgumentError(f"{cls.name}: images must be float32 or float16 and boxes float32, got "
                                       f"{images.dtype.name} and {boxes.dtype.name}", cls.name)
        if images.shape is not None and (len(images.shape) != 4 or images.shape[3] not in (None, 1, 3, 4)):
            raise InvalidArgumentError(f"{cls.name}: images must be 4-D with 1, 3 or 4 channels, got "
                                       f"{fmt_shape(images.shape)}", cls.name)
        if boxes.shape is not None and (len(boxes.shape) != 3 or boxes.shape[2] not in (None, 4)):
            raise InvalidArgumentError(f"{cls.name}: boxes must be 3-D [batch, num_boxes, 4], got "
                                       f"{fmt_shape(boxes.shape)}", cls.name)
        return TensorSpec(images.shape, images.dtype)

    @classmethod
    def run(cls, xp, images, boxes, colors):
        if images.ndim != 4 or images.shape[3] not in (1, 3, 4) or boxes.ndim != 3 or boxes.shape[2] != 4 \
                or boxes.shape[0] != images.shape[0]:
            raise InvalidArgumentError(f"{cls.name}: images {list(images.shape)} (1, 3 or 4 channels) and boxes "
                                       f"{list(boxes.shape)} do not fit", cls.name)
        if colors.ndim != 2 or (colors.shape[0] and colors.shape[1] < images.shape[3]):
            raise InvalidArgumentError(f"{cls.name}: Channel depth should be less than or equal to the color depth, got "
                                       f"colors {list(colors.shape)} for {images.shape[3]} channels", cls.name)
        if colors.shape[0] == 0 and images.shape[3] > DEFAULT_COLORS.shape[1]:
            raise InvalidArgumentError(f"{cls.name}: too many channels for the default colours", cls.name)
        return paint_boxes(xp, images, boxes, colors)


@register
class DrawBoundingBoxes(_Draw):
    """Box outlines in TensorFlow's default colours."""

    name = "tf.DrawBoundingBoxes"

    @classmethod
    def infer(cls, images, boxes):
        return cls.check(images, boxes)

    @classmethod
    def compute(cls, xp, images, boxes):
        return cls.run(xp, images, boxes, np.zeros((0, 4), np.float32))


@register
class DrawBoundingBoxesV2(_Draw):
    """Box outlines in ``colors`` [num_colors, >= channels] (the default colours when empty)."""

    name = "tf.DrawBoundingBoxesV2"
    colors = operand_def()

    @classmethod
    def infer(cls, images, boxes, colors):
        if colors.dtype != dtypes.float32 or (colors.shape is not None and len(colors.shape) != 2):
            raise InvalidArgumentError(f"{cls.name}: colors must be 2-D float32, got {colors.dtype.name} "
                                       f"{fmt_shape(colors.shape)}", cls.name)
        return cls.check(images, boxes)

    @classmethod
    def compute(cls, xp, images, boxes, colors):
        colors = np.asarray(colors)  # (run-time colours under XLA: its NeedsConstant)
        return cls.run(xp, images, boxes, colors)


def draw_bounding_boxes(images, boxes, colors, name=None):
    """``tt.image.draw_bounding_boxes`` (TensorFlow 2): ``colors`` [num_colors, channels], None for the default."""
    from tinytf.ops.tensor_inputs import as_tensor

    colors = np.zeros((0, 4), np.float32) if colors is None else colors
    return DrawBoundingBoxesV2.bind(as_tensor(images), as_tensor(boxes, dtypes.float32),
                                    as_tensor(colors, dtypes.float32))
