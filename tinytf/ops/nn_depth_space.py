"""SpaceToDepth and DepthToSpace: each block_size x block_size block of pixels becomes one pixel with
block_size^2 times the channels, and back.

    %y = "tf.SpaceToDepth"(%x) <{block_size = 2 : i64, data_format = "NHWC"}>
           : (tensor<1x4x4x3xf32>) -> tensor<1x2x2x12xf32>

Output channel (i * block_size + j) * C + c of pixel (h, w) is input channel c of pixel
(h * block_size + i, w * block_size + j). NCHW tensors are moved to NHWC and back around the same
reshape and transpose; each op's gradient is the other.
"""
from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape

__all__ = ["space_to_depth", "depth_to_space"]
__namespaces__ = {"space_to_depth": ("nn",), "depth_to_space": ("nn",)}


def _nhwc(shape, data_format):
    return shape if data_format == "NHWC" else (shape[0], shape[2], shape[3], shape[1])


def _in_format(shape, data_format):
    return shape if data_format == "NHWC" else (shape[0], shape[3], shape[1], shape[2])


class _BlockMove(Op):
    input = operand_def()
    output = result_def()
    block_size = attr(kind="int")
    data_format = attr("NHWC")
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"data_format": v.one_of("NHWC", "NCHW", "NCHW_VECT_C")}

    @classmethod
    def infer(cls, input, *, block_size, data_format="NHWC"):
        cls.check(input.shape, block_size, data_format)
        if input.shape is None:
            return TensorSpec((None,) * 4, input.dtype)
        return TensorSpec(_in_format(cls.out_nhwc(_nhwc(input.shape, data_format), block_size), data_format),
                          input.dtype)

    @classmethod
    def check(cls, shape, block_size, data_format):
        if data_format not in ("NHWC", "NCHW"):
            raise InvalidArgumentError(f"{cls.name}: data_format {data_format!r} is not supported", cls.name)
        if block_size < 2:
            raise InvalidArgumentError(f"{cls.name}: block_size should be > 1, got {block_size}", cls.name)
        if shape is not None and len(shape) != 4:
            raise InvalidArgumentError(f"{cls.name}: input rank should be 4 instead of {len(shape)} "
                                       f"(input {fmt_shape(shape)})", cls.name)

    @classmethod
    def compute(cls, xp, input, *, block_size, data_format="NHWC"):
        cls.check(input.shape, block_size, data_format)
        x = input if data_format == "NHWC" else xp.transpose(input, (0, 2, 3, 1))
        cls.out_nhwc(x.shape, block_size)
        y = cls.move(x, block_size, xp)
        return y if data_format == "NHWC" else xp.transpose(y, (0, 3, 1, 2))


@register
class SpaceToDepth(_BlockMove):
    """Blocks of space into depth: [N, H, W, C] to [N, H / b, W / b, b * b * C]."""

    name = "tf.SpaceToDepth"

    @classmethod
    def out_nhwc(cls, shape, b):
        n, h, w, c = shape
        for what, d in (("height", h), ("width", w)):
            if d is not None and d % b:
                raise InvalidArgumentError(
                    f"{cls.name}: image {what} {d} must be divisible by block_size {b} (input {fmt_shape(shape)} "
                    "NHWC)", cls.name)
        return (n, None if h is None else h // b, None if w is None else w // b, None if c is None else c * b * b)

    @staticmethod
    def move(x, b, xp):
        n, h, w, c = x.shape
        x = x.reshape(n, h // b, b, w // b, b, c)
        return xp.transpose(x, (0, 1, 3, 2, 4, 5)).reshape(n, h // b, w // b, b * b * c)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = space_to_depth(x): dx = depth_to_space(U)
        return [DepthToSpace.bind(dy, **op.attrs)]


@register
class DepthToSpace(_BlockMove):
    """Depth into blocks of space: [N, H, W, C] to [N, H * b, W * b, C / (b * b)]."""

    name = "tf.DepthToSpace"

    @classmethod
    def out_nhwc(cls, shape, b):
        n, h, w, c = shape
        if c is not None and c % (b * b):
            raise InvalidArgumentError(
                f"{cls.name}: input depth {c} should be divisible by block_size * block_size = {b * b} (input "
                f"{fmt_shape(shape)} NHWC)", cls.name)
        return (n, None if h is None else h * b, None if w is None else w * b, None if c is None else c // (b * b))

    @staticmethod
    def move(x, b, xp):
        n, h, w, c = x.shape
        x = x.reshape(n, h, w, b, b, c // (b * b))
        return xp.transpose(x, (0, 1, 3, 2, 4, 5)).reshape(n, h * b, w * b, c // (b * b))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = depth_to_space(x): dx = space_to_depth(U)
        return [SpaceToDepth.bind(dy, **op.attrs)]


def space_to_depth(input, block_size, data_format="NHWC", name=None):
    return SpaceToDepth.bind(input, block_size=int(block_size), data_format=data_format)


def depth_to_space(input, block_size, data_format="NHWC", name=None):
    return DepthToSpace.bind(input, block_size=int(block_size), data_format=data_format)
