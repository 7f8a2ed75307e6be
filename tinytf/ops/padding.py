"""Growing a tensor at its edges or by repetition: Tile, Pad, PadV2, MirrorPad (and MirrorPadGrad).

    %y = "tf.Pad"(%x, %p) : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<4x7xf32>
    %m = "tf.MirrorPad"(%x, %p) <{mode = "REFLECT"}> : (tensor<2x3xf32>, tensor<2x2xi32>) -> tensor<4x7xf32>
    %t = "tf.Tile"(%x, %m) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import array, sequences
from tinytf.ops import shape as shapes
from tinytf.ops import verifiers as v
from tinytf.ops.array import constant
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.joining import stack
from tinytf.ops.operands import (
    check_index,
    const_ints,
    const_value,
    folding,
    guard_allocation,
    index_operand,
    is_python_value,
    static_shape,
    static_value,
)
from tinytf.ops.slicing import Slice
from tinytf.ops.transpose import transpose


@register
class Tile(Op):
    """``input`` repeated ``multiples[i]`` times along dim i.

    %y = "tf.Tile"(%x, %m) : (tensor<1x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
    """

    name = "tf.Tile"
    input = operand_def()
    multiples = operand_def()
    output = result_def()

    def verify_ir(self):
        x, m, out = v.shape(self.input.type), v.shape(self.multiples.type), v.shape(self.output.type)
        if m is not None and len(m) != 1:
            v.fail(f"expected multiples to be rank 1, got rank = {len(m)}")
        if x is not None and m is not None and m[0] is not None and (len(x) != m[0] or (not x and m[0] == 1)):
            v.fail(f"expected size of multiples equal to rank of input, got multiples of size {m[0]}, and input of "
                   f"rank {len(x)}")
        if x is None or out is None:
            return
        if len(x) != len(out):
            v.fail(f"expected rank of input to equal to rank of output, got input of rank {len(x)}, and output of "
                   f"rank {len(out)}")
        multiples = v.const_ints(self.multiples)
        for i, (a, b, k) in enumerate(zip(x, out, multiples or ())):
            if k < 0:
                v.fail(f"expected multiples to be non-negative, got multiples[{i}] = {k}")
            if a is not None and b is not None and b != a * k:
                v.fail(f"requires input.shape[{i}] ({a}) * {k} to be equal to output.shape[{i}] ({b})")
    traits = traits_def(Pure())

    @classmethod
    def _check(cls, in_shape, multiples):
        if len(multiples) != len(in_shape):
            raise InvalidArgumentError(
                f"{cls.name}: Expected multiples argument to be a vector of length {len(in_shape)} but got length "
                f"{len(multiples)} (input shape {fmt_shape(in_shape)})", cls.name)
        for i, m in enumerate(multiples):
            if m < 0:
                raise InvalidArgumentError(f"{cls.name}: Expected multiples[{i}] >= 0, but got {m}", cls.name)
        return tuple(None if d is None else d * m for d, m in zip(in_shape, multiples))

    @classmethod
    @folding
    def infer(cls, input, multiples):
        check_index(cls.name, multiples, "multiples", rank=1)
        m = const_ints(multiples)
        if input.shape is None:
            n = None if multiples.shape is None else multiples.shape[0]
            return TensorSpec(None if n is None else (None,) * n, input.dtype)
        if m is None:
            return TensorSpec((None,) * len(input.shape), input.dtype)
        out = cls._check(input.shape, m)
        guard_allocation(cls.name, out, input.dtype)
        return TensorSpec(out, input.dtype)

    @classmethod
    def compute(cls, xp, input, multiples):
        m = [int(v) for v in multiples]
        cls._check(input.shape, m)
        return xp.tile(input, m) if m else input

    @staticmethod
    def grad(op, dy):
        # Given upstream grad U and y = tile(x, m): dx = sum of reshape(U, [m0, d0, m1, d1, ...]) over the m axes
        from tinytf.ops.reduction import reduce_sum

        x, multiples = op.inputs
        m, x_shape = static_value(multiples), static_shape(x)
        if m is not None and x_shape is not None:
            split_shape = [d for pair in zip(m.tolist(), x_shape) for d in pair]
            return [reduce_sum(shapes.reshape(dy, split_shape), list(range(0, len(split_shape), 2))), None]
        split_shape = shapes.reshape(transpose(stack([multiples, shapes.shape(x, out_type=multiples.dtype)])),
                                     [-1])
        axes = sequences.range(0, shapes.size(split_shape), 2)
        return [reduce_sum(shapes.reshape(dy, split_shape), axes), None]


def tile(input, multiples, name=None):
    return Tile.bind(input, index_operand(multiples))


def _paddings_list(paddings) -> list:
    """A [rank, 2] paddings value as (before, after) pairs of ints."""
    return [tuple(int(v) for v in row) for row in np.asarray(paddings).reshape(-1, 2)]


class _PadBase(Op):
    """Pad and PadV2: ``paddings`` is [rank, 2] (before, after) per dim."""

    @classmethod
    def _padded(cls, in_shape, paddings):
        rows = len(paddings)
        if rows != len(in_shape):
            raise InvalidArgumentError(
                f"{cls.name}: The first dimension of paddings must be the rank of inputs{[rows, 2]} "
                f"{fmt_shape(in_shape)}", cls.name)
        if any(before < 0 or after < 0 for before, after in paddings):
            raise InvalidArgumentError(f"{cls.name}: Paddings must be non-negative, got {paddings}", cls.name)
        return tuple(None if d is None else d + before + after for d, (before, after) in zip(in_shape, paddings))

    @classmethod
    def _infer(cls, input, paddings):
        check_index(cls.name, paddings, "paddings", rank=2)
        if paddings.shape is not None and paddings.shape[1] not in (None, 2):
            raise InvalidArgumentError(
                f"{cls.name}: paddings must be a matrix with 2 columns: {fmt_shape(paddings.shape)}", cls.name)
        value = const_value(paddings)
        if input.shape is None:
            n = None if paddings.shape is None else paddings.shape[0]
            return TensorSpec(None if n is None else (None,) * n, input.dtype)
        if value is None:
            return TensorSpec((None,) * len(input.shape), input.dtype)
        out = cls._padded(input.shape, _paddings_list(value))
        guard_allocation(cls.name, out, input.dtype)
        return TensorSpec(out, input.dtype)

    @classmethod
    def _pad(cls, xp, input, paddings, constant_values):
        pads = _paddings_list(paddings)
        cls._padded(input.shape, pads)
        return xp.pad(input, pads, constant_values=constant_values) if pads else input

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = pad(x, p): dx = U[p[:, 0] : p[:, 0] + shape(x)]
        x, paddings = op.inputs[:2]
        pads, x_shape = static_value(paddings), static_shape(x)
        if pads is not None and x_shape is not None:
            begin = pads.reshape(-1, 2)[:, 0]
            return [Slice.bind(dy, constant(begin), constant(np.asarray(x_shape, begin.dtype)))] + \
                [None] * (len(op.inputs) - 1)
        before = Slice.bind(paddings, constant(np.zeros(2, paddings.dtype.np)),
                            stack([shapes.rank(x), 1]) if paddings.dtype == dtypes.int32 else
                            array.cast(stack([shapes.rank(x), 1]), paddings.dtype))
        begin = shapes.reshape(before, [-1])
        return [Slice.bind(dy, begin, shapes.shape(x, out_type=begin.dtype))] + [None] * (len(op.inputs) - 1)


@register
class Pad(_PadBase):
    """``input`` with zeros added before and after each dim.

    %y = "tf.Pad"(%x, %p) : (tensor<3x4xf32>, tensor<2x2xi32>) -> tensor<4x6xf32>
    """

    name = "tf.Pad"
    verify_ir = v.paddings_are_2d
    input = operand_def()
    paddings = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, input, paddings):
        return cls._infer(input, paddings)

    @classmethod
    def compute(cls, xp, input, paddings):
        return cls._pad(xp, input, paddings, 0)


@register
class PadV2(_PadBase):
    """``input`` with ``constant_values`` added before and after each dim.

    %y = "tf.PadV2"(%x, %p, %c) : (tensor<3x4xf32>, tensor<2x2xi32>, tensor<f32>) -> tensor<4x6xf32>
    """

    name = "tf.PadV2"
    verify_ir = v.paddings_are_2d
    input = operand_def()
    paddings = operand_def()
    constant_values = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, paddings, constant_values):
        same_dtype(cls.name, input, constant_values)
        if constant_values.shape is not None and constant_values.shape != ():
            raise InvalidArgumentError(
                f"{cls.name}: constant_values must be a scalar. Got: {fmt_shape(constant_values.shape)}", cls.name)
        return cls._infer(input, paddings)

    @classmethod
    def compute(cls, xp, input, paddings, constant_values):
        return cls._pad(xp, input, paddings, constant_values)


def _mirror_offset(op_name: str, mode: str) -> int:
    """How far the mirror is from the edge: REFLECT leaves the edge out (1), SYMMETRIC repeats it (0)."""
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise InvalidArgumentError(f"{op_name}: mode must be REFLECT or SYMMETRIC, got {mode!r}", op_name)
    return 1 if mode == "REFLECT" else 0


@register
class MirrorPad(_PadBase):
    """``input`` padded with its own mirror image: REFLECT ([1 2 3] -> 3 2 | 1 2 3 | 2 1) leaves the edge
    out, SYMMETRIC ([1 2 3] -> 2 1 | 1 2 3 | 3 2) repeats it.

    %y = "tf.MirrorPad"(%x, %p) <{mode = "SYMMETRIC"}> : (tensor<3xf32>, tensor<1x2xi32>) -> tensor<7xf32>
    """

    name = "tf.MirrorPad"
    verify_ir = v.paddings_are_2d
    input = operand_def()
    paddings = operand_def()
    output = result_def()
    mode = attr("REFLECT")
    traits = traits_def(Pure())

    @classmethod
    def _check_mirror(cls, in_shape, pads, mode):
        offset = _mirror_offset(cls.name, mode)
        for dim, (before, after) in zip(in_shape, pads):
            if dim is not None and max(before, after) > dim - offset:
                raise InvalidArgumentError(
                    f"{cls.name}: paddings must be no greater than the dimension size{' minus 1' * offset} in "
                    f"{mode} mode: {before}, {after} greater than {dim - offset} (input {fmt_shape(in_shape)})",
                    cls.name)

    @classmethod
    def infer(cls, input, paddings, *, mode):
        _mirror_offset(cls.name, mode)
        spec = cls._infer(input, paddings)
        value = const_value(paddings)
        if input.shape is not None and value is not None:
            cls._check_mirror(input.shape, _paddings_list(value), mode)
        return spec

    @classmethod
    def compute(cls, xp, input, paddings, *, mode):
        pads = _paddings_list(paddings)
        cls._padded(input.shape, pads)
        cls._check_mirror(input.shape, pads, mode)
        return xp.pad(input, pads, mode=mode.lower()) if pads else input

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dx = U's center plus its mirrored margins folded back
        return [MirrorPadGrad.bind(dy, op.inputs[1], mode=op.attrs["mode"]), None]


def _fold_axis(xp, g, axis: int, before: int, after: int, n: int, offset: int):
    """One axis of MirrorPadGrad: the n center entries plus each margin flipped back onto what it mirrors."""
    def part(start, stop):
        return g[(slice(None),) * axis + (slice(start, stop),)]

    def placed(margin, lead, trail):  # the flipped margin with zeros around it, along this axis only
        width = [(0, 0)] * g.ndim
        width[axis] = (lead, trail)
        return xp.pad(xp.flip(margin, axis), width)

    center = part(before, before + n)
    if before:
        center = center + placed(part(0, before), offset, n - offset - before)
    if after:
        center = center + placed(part(before + n, before + n + after), n - offset - after, offset)
    return center


@register
class MirrorPadGrad(Op):
    """The gradient of MirrorPad: each margin of ``input`` folded back onto the part it mirrors.

    %dx = "tf.MirrorPadGrad"(%dy, %p) <{mode = "REFLECT"}> : (tensor<7xf32>, tensor<1x2xi32>) -> tensor<3xf32>
    """

    name = "tf.MirrorPadGrad"
    input = operand_def()
    paddings = operand_def()
    output = result_def()
    mode = attr("REFLECT")
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, input, paddings, *, mode):
        _mirror_offset(cls.name, mode)
        check_index(cls.name, paddings, "paddings", rank=2)
        value = const_value(paddings)
        if input.shape is None or value is None:
            return TensorSpec(None if input.shape is None else (None,) * len(input.shape), input.dtype)
        return TensorSpec(cls._folded(input.shape, _paddings_list(value), mode), input.dtype)

    @classmethod
    def _folded(cls, shape, pads, mode):
        if len(pads) != len(shape):
            raise InvalidArgumentError(f"{cls.name}: paddings has {len(pads)} rows for an input of rank {len(shape)}",
                                       cls.name)
        out = tuple(None if d is None else d - before - after for d, (before, after) in zip(shape, pads))
        MirrorPad._check_mirror(out, pads, mode)
        if any(d is not None and d < 0 for d in out):
            raise InvalidArgumentError(f"{cls.name}: paddings {pads} are larger than the input {fmt_shape(shape)}",
                                       cls.name)
        return out

    @classmethod
    def compute(cls, xp, input, paddings, *, mode):
        pads, offset = _paddings_list(paddings), _mirror_offset(cls.name, mode)
        out_shape = cls._folded(input.shape, pads, mode)
        g = input
        for axis, ((before, after), n) in enumerate(zip(pads, out_shape)):
            g = _fold_axis(xp, g, axis, before, after, n, offset)
        return g

    @staticmethod
    def grad(op, ddx):  # MirrorPadGrad is linear; its adjoint is MirrorPad
        return [MirrorPad.bind(ddx, op.inputs[1], mode=op.attrs["mode"]), None]


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tt.pad``: Pad when padding with 0, PadV2 with another value, MirrorPad for REFLECT / SYMMETRIC."""
    if is_python_value(tensor):
        tensor = constant(tensor)
    paddings = index_operand(paddings)
    if mode.upper() != "CONSTANT":
        return MirrorPad.bind(tensor, paddings, mode=mode.upper())
    if is_python_value(constant_values) and np.all(np.asarray(constant_values) == 0):
        return Pad.bind(tensor, paddings)
    if is_python_value(constant_values):
        constant_values = constant(constant_values, tensor.dtype)
    return PadV2.bind(tensor, paddings, constant_values)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["tile", "pad"]
