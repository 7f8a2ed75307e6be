"""Moving blocks of space into the batch or the depth and back: SpaceToBatchND / BatchToSpaceND, the
4-D SpaceToBatch / BatchToSpace, SpaceToDepth / DepthToSpace.

    %y = "tf.SpaceToBatchND"(%x, %block, %pads)
           : (tensor<3x5x7x10xf32>, tensor<2xi64>, tensor<2x2xi64>) -> tensor<36x2x3x10xf32>
    %z = "tf.DepthToSpace"(%x) <{block_size = 2 : i64, data_format = "NHWC"}>
           : (tensor<1x2x2x8xf32>) -> tensor<1x4x4x2xf32>

Each op is a pad or crop, a reshape and a transpose, written once for numpy and jax.numpy; each one's
gradient is its inverse. Block shapes, paddings and crops must be constants to know the output shape.
The IR verifiers give TensorFlow's messages (tensorflow/compiler/mlir/tensorflow/ir/tf_ops_*.cc).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import check_index, const_value, index_operand

__all__ = ["space_to_batch_nd", "space_to_batch", "batch_to_space"]
__namespaces__ = {"space_to_batch_nd": ("top",), "space_to_batch": ("nn", "top"), "batch_to_space": ("top",)}


def _operand_value(name: str, what: str, value) -> np.ndarray:
    try:
        return np.asarray(value).astype(np.int64)
    except Exception:  # a traced value under XLA: the output shape would not be static
        raise InvalidArgumentError(f"{name}: {what} must be a constant under XLA", name) from None


def _block_and_pads(name, input_shape, block, pads, what):
    """TensorFlow's checks of block_shape [M] and paddings / crops [M, 2] against an input shape."""
    block, pads = np.asarray(block).reshape(-1), np.asarray(pads)
    m = block.shape[0]
    if pads.shape != (m, 2):
        raise InvalidArgumentError(
            f"{name}: {what} should have shape [{m}, 2] instead of {fmt_shape(pads.shape)}", name)
    if input_shape is not None and len(input_shape) < m + 1:
        raise InvalidArgumentError(
            f"{name}: input rank should be >= {m + 1} instead of {len(input_shape)} (input {fmt_shape(input_shape)})",
            name)
    if (block < 1).any():
        raise InvalidArgumentError(f"{name}: all values in block_shape must be positive, got {block.tolist()}", name)
    if (pads < 0).any():
        raise InvalidArgumentError(f"{name}: all values in {what} must be nonnegative, got {pads.tolist()}", name)
    return [int(b) for b in block], [(int(a), int(b)) for a, b in pads]


def space_to_batch_shape(name, shape, block, pads):
    if shape is None:
        return None
    out = [None if shape[0] is None else shape[0] * int(np.prod(block))]
    for i, (b, (lo, hi)) in enumerate(zip(block, pads, strict=True)):
        d = shape[i + 1]
        if d is not None and (d + lo + hi) % b:
            raise InvalidArgumentError(
                f"{name}: padded shape {d + lo + hi} (dim {i + 1} of input {fmt_shape(shape)}) must be divisible "
                f"by block_shape[{i}] = {b}", name)
        out.append(None if d is None else (d + lo + hi) // b)
    return tuple(out) + tuple(shape[len(block) + 1:])


def batch_to_space_shape(name, shape, block, crops):
    if shape is None:
        return None
    prod = int(np.prod(block))
    if shape[0] is not None and shape[0] % prod:
        raise InvalidArgumentError(
            f"{name}: input batch {shape[0]} of input {fmt_shape(shape)} must be divisible by the product of "
            f"block_shape {block}", name)
    out = [None if shape[0] is None else shape[0] // prod]
    for i, (b, (lo, hi)) in enumerate(zip(block, crops, strict=True)):
        d = shape[i + 1]
        if d is not None and d * b < lo + hi:
            raise InvalidArgumentError(
                f"{name}: crops {lo} + {hi} exceed dim {i + 1} of the output ({d} * {b}) of input {fmt_shape(shape)}",
                name)
        out.append(None if d is None else d * b - lo - hi)
    return tuple(out) + tuple(shape[len(block) + 1:])


def space_to_batch_kernel(xp, x, block, pads):
    """pad, split each spatial dim into (dim / b, b), move the b's before the batch, merge them into it."""
    m, rest = len(block), x.shape[len(block) + 1:]
    x = xp.pad(x, [(0, 0)] + list(pads) + [(0, 0)] * len(rest))
    split = [x.shape[0]]
    for i, b in enumerate(block):
        split += [x.shape[i + 1] // b, b]
    x = x.reshape(tuple(split) + tuple(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, x.ndim))
    x = xp.transpose(x, perm)
    return x.reshape((split[0] * int(np.prod(block)),) + tuple(split[1::2]) + tuple(rest))


def batch_to_space_kernel(xp, x, block, crops):
    """The inverse: split the batch into (b..., batch), interleave each b after its spatial dim, crop."""
    m, rest = len(block), x.shape[len(block) + 1:]
    batch = x.shape[0] // int(np.prod(block))
    x = x.reshape(tuple(block) + (batch,) + tuple(x.shape[1:]))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    x = xp.transpose(x, perm + list(range(2 * m + 1, x.ndim)))
    x = x.reshape((batch,) + tuple(x.shape[1 + 2 * i] * b for i, b in enumerate(block)) + tuple(rest))
    index = (slice(None),) + tuple(slice(lo, x.shape[i + 1] - hi) for i, (lo, hi) in enumerate(crops))
    return x[index]


class _BlockOp(Op):
    output = result_def()
    traits = traits_def(Pure())
    INVERSE: ClassVar[str] = ""

    @classmethod
    def _static(cls, input, block, pads, what):
        check_index(cls.name, block, "block_shape")
        check_index(cls.name, pads, what)
        b, p = const_value(block), const_value(pads)
        if b is None or p is None:
            n = None if input.shape is None or block.shape is None or None in block.shape else \
                len(input.shape)
            return TensorSpec(None if n is None else (None,) * n, input.dtype)
        block_l, pads_l = _block_and_pads(cls.name, input.shape, b, p, what)
        return TensorSpec(cls.out_shape(cls.name, input.shape, block_l, pads_l), input.dtype)


@register
class SpaceToBatchND(_BlockOp):
    """Zero-pads the M spatial dims of ``input`` [B, s..., rest...] and moves each block_shape block into the
    batch: output [B * prod(block), (s + pads) / block..., rest...]."""

    name = "tf.SpaceToBatchND"
    input = operand_def()
    block_shape = operand_def()
    paddings = operand_def()
    out_shape = staticmethod(space_to_batch_shape)

    def verify_ir(self):
        verify_space_to_batch_nd(self)

    @classmethod
    def infer(cls, input, block_shape, paddings):
        return cls._static(input, block_shape, paddings, "paddings")

    @classmethod
    def compute(cls, xp, input, block_shape, paddings):
        block, pads = _block_and_pads(cls.name, input.shape, _operand_value(cls.name, "block_shape", block_shape),
                                      _operand_value(cls.name, "paddings", paddings), "paddings")
        space_to_batch_shape(cls.name, input.shape, block, pads)
        return space_to_batch_kernel(xp, input, block, pads)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = space_to_batch(x, b, p): dx = batch_to_space(U, b, p)
        _, block, pads = op.inputs
        return [BatchToSpaceND.bind(dy, block, pads), None, None]


@register
class BatchToSpaceND(_BlockOp):
    """The inverse of SpaceToBatchND: input [B * prod(block), s..., rest...] to
    [B, s * block - crops..., rest...]."""

    name = "tf.BatchToSpaceND"
    input = operand_def()
    block_shape = operand_def()
    crops = operand_def()
    out_shape = staticmethod(batch_to_space_shape)

    @classmethod
    def infer(cls, input, block_shape, crops):
        return cls._static(input, block_shape, crops, "crops")

    @classmethod
    def compute(cls, xp, input, block_shape, crops):
        block, crops = _block_and_pads(cls.name, input.shape, _operand_value(cls.name, "block_shape", block_shape),
                                       _operand_value(cls.name, "crops", crops), "crops")
        batch_to_space_shape(cls.name, input.shape, block, crops)
        return batch_to_space_kernel(xp, input, block, crops)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = batch_to_space(x, b, c): dx = space_to_batch(U, b, c)
        _, block, crops = op.inputs
        return [SpaceToBatchND.bind(dy, block, crops), None, None]


def verify_space_to_batch_nd(op) -> None:
    """TensorFlow's SpaceToBatchND verifier."""
    x, block, pads = v.shape(op.input), v.shape(op.block_shape), v.shape(op.paddings)
    if block is not None and len(block) != 1:
        v.fail(f"requires rank of block_shape = 1; got {len(block)}")
    if pads is not None and len(pads) != 2:
        v.fail(f"requires rank of paddings = 2; got {len(pads)}")
    if pads is not None and pads[1] is not None and pads[1] != 2:
        v.fail(f"requires paddings.shape[1] to be 2; got {pads[1]}")
    if block is not None and pads is not None and None not in (block[0], pads[0]) and block[0] != pads[0]:
        v.fail("requires block_shape.shape[0] must equal paddings.shape[0]")
    if x is not None and block is not None and block[0] is not None and len(x) < 1 + block[0]:
        v.fail("requires rank of input >= 1 + rank of block")
    block_v, pads_v = v.const(op.block_shape), v.const(op.paddings)
    if block_v is not None:
        for i, b in enumerate(block_v.reshape(-1)):
            if b < 1:
                v.fail(f"requires all values of block_shape to be >= 1; failed for dimension {i}")
    if pads_v is not None:
        for i, row in enumerate(pads_v.reshape(-1, 2)):
            if (row < 0).any():
                v.fail(f"requires all values of paddings to be >= 0; failed for dimension {i}")
    if x is not None and block_v is not None and pads_v is not None:
        for i, (b, (lo, hi)) in enumerate(zip(block_v.reshape(-1), pads_v.reshape(-1, 2), strict=True)):
            if x[i + 1] is not None and (x[i + 1] + lo + hi) % b:
                v.fail("requires block_shape[i] divides input_shape[i + 1] + paddings[i, 0] + paddings[i, 1]; "
                       f"failed for i={i}")


def space_to_batch_nd(input, block_shape, paddings, name=None):
    return SpaceToBatchND.bind(input, index_operand(block_shape), index_operand(paddings))


def space_to_batch(input, block_shape, paddings, name=None):
    """TF2's tf.space_to_batch (tf.nn.space_to_batch): SpaceToBatchND."""
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input, block_shape, crops, name=None):
    """TF2's tf.batch_to_space: BatchToSpaceND."""
    return BatchToSpaceND.bind(input, index_operand(block_shape), index_operand(crops))


# --- the 4-D ops with a square block (TensorFlow 1's tf.space_to_batch and tf.batch_to_space) ------

class _SquareBlockOp(_BlockOp):
    block_size = attr(kind="int")

    @classmethod
    def check_square(cls, shape, block_size):
        if block_size < 2:
            raise InvalidArgumentError(f"{cls.name}: block_size should be > 1, got {block_size}", cls.name)
        if shape is not None and len(shape) != 4:
            raise InvalidArgumentError(f"{cls.name}: input must be 4-D, got {fmt_shape(shape)}", cls.name)

    @classmethod
    def _square(cls, input, pads, block_size, what):
        cls.check_square(input.shape, block_size)
        block = TensorSpec((2,), pads.dtype, value=np.asarray([block_size, block_size], pads.dtype.np))
        return cls._static(input, block, pads, what)


@register
class SpaceToBatch(_SquareBlockOp):
    """SpaceToBatchND of a 4-D NHWC input with block_shape [block_size, block_size]."""

    name = "tf.SpaceToBatch"
    input = operand_def()
    paddings = operand_def()
    out_shape = staticmethod(space_to_batch_shape)

    @classmethod
    def infer(cls, input, paddings, *, block_size):
        return cls._square(input, paddings, block_size, "paddings")

    @classmethod
    def compute(cls, xp, input, paddings, *, block_size):
        cls.check_square(input.shape, block_size)
        return SpaceToBatchND.compute(xp, input, np.asarray([block_size] * 2), paddings)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = space_to_batch(x, p): dx = batch_to_space(U, p)
        return [BatchToSpace.bind(dy, op.inputs[1], block_size=op.attrs["block_size"]), None]


@register
class BatchToSpace(_SquareBlockOp):
    """BatchToSpaceND of a 4-D NHWC input with block_shape [block_size, block_size]."""

    name = "tf.BatchToSpace"
    input = operand_def()
    crops = operand_def()
    out_shape = staticmethod(batch_to_space_shape)

    def verify_ir(self):
        verify_batch_to_space(self)

    @classmethod
    def infer(cls, input, crops, *, block_size):
        return cls._square(input, crops, block_size, "crops")

    @classmethod
    def compute(cls, xp, input, crops, *, block_size):
        cls.check_square(input.shape, block_size)
        return BatchToSpaceND.compute(xp, input, np.asarray([block_size] * 2), crops)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = batch_to_space(x, c): dx = space_to_batch(U, c)
        return [SpaceToBatch.bind(dy, op.inputs[1], block_size=op.attrs["block_size"]), None]


def verify_batch_to_space(op) -> None:
    """TensorFlow's BatchToSpace verifier, in its order."""
    size = op.attr_values()["block_size"]
    x, crops, out = v.shape(op.input), v.shape(op.crops), v.shape(op.output)
    if x is not None:
        if len(x) != 4:
            v.fail(f"requires input to be a 4D tensor, but got '{op.input.type}'")
        if x[0] is not None and x[0] % (size * size):
            v.fail("requires input batch (dimension 0) to be evenly divisible by (block_size * block_size), but got "
                   f"input batch {x[0]} and block_size {size}")
    if crops is not None:
        if len(crops) != 2:
            v.fail(f"requires crops to be a 2D tensor, but got '{op.crops.type}'")
        if any(d is not None and d != 2 for d in crops):
            v.fail(f"requires crops to be a tensor<2x2>, but got '{op.crops.type}'")
    values = v.const(op.crops)
    if values is not None and (values < 0).any():
        v.fail(f"requires all crop values to be nonnegative, but got {v.dense_str(op.crops)}")
    if out is None:
        return
    if len(out) != 4:
        v.fail(f"requires output to be a 4D tensor, but got '{op.output.type}'")
    x = x or (None,) * 4
    if None not in (x[0], out[0]) and out[0] * size * size != x[0]:
        v.fail("requires output batch (dimension 0) to be equal to input batch (dimension 0) / (block_size * "
               f"block_size), but got output batch {out[0]}, input batch {x[0]}, and block_size {size}")
    for dim, what, (a, b) in ((1, "height", ("crop_top", "crop_bottom")), (2, "width", ("crop_left", "crop_right"))):
        if None in (x[dim], out[dim]):
            continue
        if values is None and out[dim] > x[dim] * size:
            v.fail(f"requires output {what} (dimension {dim}) to be less than or equal to input {what} (dimension "
                   f"{dim}) * block_size, but got output {what} {out[dim]}, input {what} {x[dim]}, and block_size "
                   f"{size}")
        if values is not None:
            lo, hi = (int(c) for c in values.reshape(-1)[2 * dim - 2:2 * dim])
            if out[dim] != x[dim] * size - lo - hi:
                v.fail(f"requires output {what} (dimension {dim}) to be equal to input {what} (dimension {dim}) * "
                       f"block_size - {a} - {b}, but got output {what} {out[dim]}, input {what} {x[dim]}, {a} {lo}, "
                       f"{b} {hi}, and block_size {size}")
    if None not in (x[3], out[3]) and out[3] != x[3]:
        v.fail("requires output depth (dimension 3) to be equal to input depth (dimension 3), but got output depth "
               f"{out[3]} and input depth {x[3]}")
