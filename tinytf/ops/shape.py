"""Shape ops: Reshape, Squeeze, ExpandDims, Shape, Size, Rank, BroadcastTo.

    %y = "tf.Reshape"(%x, %shape) : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<2x6xf32>
    %s = "tf.Squeeze"(%b) <{squeeze_dims = []}> : (tensor<1x1x1x8xf32>) -> tensor<8xf32>

Operands that describe shapes (shape, dim, perm) are tensors; a shape rule uses their values when
they are known (eagerly, or constants) and leaves dims unknown (``None``) otherwise.
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import (
    check_index,
    const_value,
    folding,
    guard_allocation,
    index_operand,
    shape_from_operand,
)


def _known(shape) -> bool:
    return shape is not None and all(d is not None for d in shape)


def reshape_dims(op_name: str, in_shape, sizes) -> tuple:
    """The output shape of reshaping ``in_shape`` to ``sizes`` (one -1 allowed), as TensorFlow."""
    unknown, product, has_zero = -1, 1, False
    for i, size in enumerate(sizes):
        if size == -1:
            if unknown != -1:
                raise InvalidArgumentError(
                    f"{op_name}: Only one input size may be -1, not both {unknown} and {i}", op_name)
            unknown = i
        elif size < 0:
            raise InvalidArgumentError(f"{op_name}: Size {i} must be non-negative, not {size}", op_name)
        elif size == 0:
            has_zero = True  # left out of the product so the -1 dim can still be inferred
        else:
            product *= size
    out = list(sizes)
    if not _known(in_shape):
        if unknown != -1:
            out[unknown] = None
        return tuple(out)
    count = math.prod(in_shape)
    if unknown != -1:
        # As TensorFlow: zero-size input dims are left out when the target has a zero dim too.
        elements = math.prod(d for d in in_shape if d > 0 or not has_zero)
        input_has_zero = has_zero and any(d == 0 for d in in_shape)
        missing = elements // product
        if not input_has_zero and product * missing != elements:
            raise InvalidArgumentError(
                f"{op_name}: Input to reshape is a tensor with {count} values, but the requested shape "
                f"requires a multiple of {product} (input shape {fmt_shape(in_shape)}, requested {list(sizes)})",
                op_name)
        out[unknown] = missing
    if math.prod(out) != count:
        raise InvalidArgumentError(
            f"{op_name}: Input to reshape is a tensor with {count} values, but the requested shape has "
            f"{math.prod(out)} (input shape {fmt_shape(in_shape)}, requested {list(sizes)})", op_name)
    return tuple(out)


@register
class Reshape(Op):
    """``tensor`` with the dims in ``shape`` (one of them may be -1: whatever is left).

    %y = "tf.Reshape"(%x, %shape) : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<2x6xf32>
    """

    name = "tf.Reshape"
    BATCHING: ClassVar[str] = "reshape"
    tensor = operand_def()
    shape = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        v.check_types(self, operands={"shape": v.INDEX})
        expected = self.expected_type()
        out, tensor = self.output.type, self.tensor.type
        if not v.is_ranked(out):
            return
        n_out, n_in = v.num_elements(tf_types.shape_of(out)), v.num_elements(tf_types.shape_of(tensor))
        if n_out is not None and n_in is not None and n_out != n_in:
            v.fail(f"requires 'output' number of elements to match 'tensor' number of elements, but got {n_out} and "
                   f"{n_in}")
        if not v.cast_compatible(out, expected):
            v.fail(f"requires 'output' type '{out}' to be cast compatible with expected type '{expected}'")

    def expected_type(self):
        """TensorFlow's GetReshapeOutputType: the output type the operands give (its errors are verifier errors)."""
        element = v.element(self.tensor)
        shape_type = self.shape.type
        if not v.is_ranked(shape_type):
            return v.tensor_type(None, element)
        if len(shape_type.get_shape()) != 1:
            v.fail(f"requires 'shape' to be rank 1, but got {len(shape_type.get_shape())}")
        dims = v.const_ints(self.shape)
        if dims is None:
            n = tf_types.shape_of(shape_type)[0]
            return v.tensor_type(None if n is None else (None,) * n, element)
        unknown, known_size, zero = None, 1, False
        for i, d in enumerate(dims):
            if d == -1:
                if unknown is not None:
                    v.fail("requires 'shape' to have at most one dynamic dimension, but got multiple dynamic "
                           f"dimensions at indices {unknown} and {i}")
                unknown = i
            elif d == 0:
                zero = True
            elif d > 0:
                known_size *= d
            else:
                v.fail(f"requires 'shape' to have dimensions greater than -1, but got {d} at index {i}")
        out = [None if d == -1 else d for d in dims]
        tensor_shape = v.shape(self.tensor.type)
        if unknown is not None and v.num_elements(tensor_shape) is not None:
            size, tensor_zero = 1, False
            for d in tensor_shape:
                if d > 0 or not zero:
                    size *= d
                else:
                    tensor_zero = True
            missing = size // known_size if known_size else 0
            if not tensor_zero and known_size * missing != size:
                v.fail(f"requires 'tensor' number of elements be a multiple of {known_size}, but got {size}")
            out[unknown] = missing
        return v.tensor_type(tuple(out), element)

    @classmethod
    @folding
    def infer(cls, tensor, shape):
        check_index(cls.name, shape, "shape")
        if shape.shape is not None and len(shape.shape) > 1:  # (a scalar is TensorFlow's legacy 1-D shape)
            raise InvalidArgumentError(f"{cls.name}: sizes input must be 1-D, not {fmt_shape(shape.shape)}",
                                       cls.name)
        value = const_value(shape)
        if value is None:
            n = None if shape.shape is None else (shape.shape[0] if shape.shape else 1)
            return TensorSpec(None if n is None else (None,) * n, tensor.dtype)
        return TensorSpec(reshape_dims(cls.name, tensor.shape, [int(v) for v in value.reshape(-1)]), tensor.dtype)

    @classmethod
    def compute(cls, xp, tensor, shape):
        return xp.reshape(tensor, reshape_dims(cls.name, tensor.shape, [int(v) for v in np.reshape(shape, -1)]))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = reshape(x, s): dx = reshape(U, shape(x))
        return [reshape(dy, shape_of(op.inputs[0])), None]


def reshape(tensor, shape, name=None):
    return Reshape.bind(tensor, index_operand(shape))


def _squeezed_axes(op_name: str, shape, squeeze_dims):
    """The axes Squeeze removes, or None when that depends on unknown dims."""
    rank = len(shape)
    axes = set()
    for d in squeeze_dims:
        if not -rank <= d < rank:
            raise InvalidArgumentError(
                f"{op_name}: Tried to squeeze dim index {d} for tensor with {rank} dimensions.", op_name)
        axes.add(d % rank)
    for d in sorted(axes):
        if shape[d] is not None and shape[d] != 1:
            raise InvalidArgumentError(
                f"{op_name}: Can not squeeze dim[{d}], expected a dimension of 1, got {shape[d]} "
                f"(shape {fmt_shape(shape)})", op_name)
    if squeeze_dims:
        return sorted(axes)
    if any(d is None for d in shape):
        return None  # which dims are 1 is not known yet
    return [i for i, d in enumerate(shape) if d == 1]


@register
class Squeeze(Op):
    """Removes size-1 dims: those in ``squeeze_dims``, or all of them when it is empty.

    %y = "tf.Squeeze"(%x) <{squeeze_dims = [0]}> : (tensor<1x4xf32>) -> tensor<4xf32>
    """

    name = "tf.Squeeze"
    BATCHING: ClassVar[str] = "squeeze"
    input = operand_def()
    output = result_def()
    squeeze_dims = attr((), kind="ints")
    traits = traits_def(Pure())

    def verify_ir(self):
        r = v.rank(self.input.type)
        for d in () if r is None else self.attr_values()["squeeze_dims"]:
            if not -r <= d < r:
                v.fail(f"squeeze dimension {d} not in [{-r}, {r})")

    @classmethod
    @folding
    def infer(cls, input, *, squeeze_dims):
        if input.shape is None:
            return TensorSpec(None, input.dtype)
        axes = _squeezed_axes(cls.name, input.shape, squeeze_dims)
        if axes is None:
            return TensorSpec(None, input.dtype)
        return TensorSpec(tuple(d for i, d in enumerate(input.shape) if i not in axes), input.dtype)

    @classmethod
    def compute(cls, xp, input, *, squeeze_dims):
        axes = _squeezed_axes(cls.name, input.shape, squeeze_dims)
        return xp.reshape(input, tuple(d for i, d in enumerate(input.shape) if i not in axes))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = squeeze(x): dx = reshape(U, shape(x))
        return [reshape(dy, shape_of(op.inputs[0]))]


def squeeze(input, axis=None, name=None):
    axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(int(a) for a in axis)
    return Squeeze.bind(input, squeeze_dims=axis)


def _expand_axis(op_name: str, dim, rank: int | None):
    value = np.asarray(dim).reshape(-1)
    if value.size != 1:
        raise InvalidArgumentError(f"{op_name}: 'dim' must be a tensor with a single value, got {value.size}",
                                   op_name)
    d = int(value[0])
    if rank is not None:
        if not -rank - 1 <= d <= rank:
            raise InvalidArgumentError(
                f"{op_name}: Tried to expand dim index {d} for tensor with {rank} dimensions.", op_name)
        d = d + rank + 1 if d < 0 else d
    return d


@register
class ExpandDims(Op):
    """Inserts a size-1 dim at index ``dim`` (negative counts from the end).

    %y = "tf.ExpandDims"(%x, %dim) : (tensor<4xf32>, tensor<i32>) -> tensor<1x4xf32>
    """

    name = "tf.ExpandDims"
    BATCHING: ClassVar[str] = "expand_dims"
    input = operand_def()
    dim = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, input, dim):
        check_index(cls.name, dim, "dim")
        value = const_value(dim)
        if input.shape is None:
            if value is not None:
                _expand_axis(cls.name, value, None)
            return TensorSpec(None, input.dtype)
        if value is None:
            return TensorSpec((None,) * (len(input.shape) + 1), input.dtype)
        d = _expand_axis(cls.name, value, len(input.shape))
        return TensorSpec(input.shape[:d] + (1,) + input.shape[d:], input.dtype)

    @classmethod
    def compute(cls, xp, input, dim):
        return xp.expand_dims(input, _expand_axis(cls.name, dim, input.ndim))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = expand_dims(x, d): dx = reshape(U, shape(x))
        return [reshape(dy, shape_of(op.inputs[0])), None]


def expand_dims(input, axis, name=None):
    return ExpandDims.bind(input, index_operand(axis))


# --- Shape, Size, Rank -----------------------------------------------------------------------

def _out_type(op_name: str, out_type):
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"{op_name}: out_type must be int32 or int64, got {out_type.name}", op_name)
    return out_type


def _result_type(op):
    return tf_types.dtype_of(op.results[0].type)


@register
class Shape(Op):
    """The shape of ``input`` as a vector.  %s = "tf.Shape"(%x) : (tensor<2x?xf32>) -> tensor<2xi32>"""

    name = "tf.Shape"
    BATCHING: ClassVar[str] = "same_for_every_item"
    input = operand_def()
    output = result_def()
    out_type = derived("type", _result_type, default=dtypes.int32)
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        v.check_types(self, results={"output": v.INDEX})
        v.check_shape_result(self.input.type, self.output.type, op=self)

    @classmethod
    def infer(cls, input, *, out_type):
        out_type = _out_type(cls.name, out_type)
        if input.shape is None:
            return TensorSpec((None,), out_type)
        value = np.asarray(input.shape, out_type.np) if _known(input.shape) else None
        return TensorSpec((len(input.shape),), out_type, value=value)

    @staticmethod
    def compute(xp, input, *, out_type):
        return xp.asarray(np.asarray(input.shape, dtypes.as_dtype(out_type).np))


def shape(input, out_type=dtypes.int32, name=None):
    return Shape.bind(input, out_type=dtypes.as_dtype(out_type))


shape_of = shape  # for gradient rules, where ``shape`` is often a local name


@register
class Size(Op):
    """The number of elements of ``input``.  %n = "tf.Size"(%x) : (tensor<2x3xf32>) -> tensor<i32>"""

    name = "tf.Size"
    BATCHING: ClassVar[str] = "same_for_every_item"
    input = operand_def()
    output = result_def()
    out_type = derived("type", _result_type, default=dtypes.int32)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, input, *, out_type):
        out_type = _out_type(cls.name, out_type)
        if not _known(input.shape):
            return TensorSpec((), out_type)
        count = math.prod(input.shape)
        if count > np.iinfo(out_type.np).max:
            raise InvalidArgumentError(f"{cls.name}: {count} elements do not fit in {out_type.name}", cls.name)
        return TensorSpec((), out_type, value=np.asarray(count, out_type.np))

    @staticmethod
    def compute(xp, input, *, out_type):
        return xp.asarray(np.asarray(math.prod(input.shape), dtypes.as_dtype(out_type).np))


def size(input, out_type=dtypes.int32, name=None):
    return Size.bind(input, out_type=dtypes.as_dtype(out_type))


@register
class Rank(Op):
    """The number of dims of ``input``.  %r = "tf.Rank"(%x) : (tensor<2x3xf32>) -> tensor<i32>"""

    name = "tf.Rank"
    BATCHING: ClassVar[str] = "same_for_every_item"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @staticmethod
    def infer(input):
        value = None if input.shape is None else np.asarray(len(input.shape), np.int32)
        return TensorSpec((), dtypes.int32, value=value)

    @staticmethod
    def compute(xp, input):
        return xp.asarray(np.asarray(input.ndim, np.int32))


def rank(input, name=None):
    return Rank.bind(input)


# --- BroadcastTo ----------------------------------------------------------------------------

def broadcast_to_shape(op_name: str, in_shape, target):
    """``target``, after checking ``in_shape`` broadcasts to it (dims of 1 stretch, from the right)."""
    if in_shape is None or target is None:
        return target
    ok = len(in_shape) <= len(target) and all(
        a is None or b is None or a == 1 or a == b for a, b in zip(reversed(in_shape), reversed(target)))
    if not ok:
        raise InvalidArgumentError(
            f"{op_name}: Unable to broadcast tensor of shape {fmt_shape(in_shape)} to tensor of shape "
            f"{fmt_shape(target)}", op_name)
    return target


@register
class BroadcastTo(Op):
    """``input`` broadcast to ``shape``.

    %y = "tf.BroadcastTo"(%x, %shape) : (tensor<3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
    """

    name = "tf.BroadcastTo"
    input = operand_def()
    shape = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, input, shape):
        target = broadcast_to_shape(cls.name, input.shape, shape_from_operand(cls.name, shape))
        guard_allocation(cls.name, target, input.dtype)
        return TensorSpec(target, input.dtype)

    @classmethod
    def compute(cls, xp, input, shape):
        target = tuple(int(d) for d in shape)
        broadcast_to_shape(cls.name, input.shape, target)
        return xp.array(xp.broadcast_to(input, target))  # a copy: a broadcast view aliases its elements

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = broadcast_to(x, s): dx = U (the tape sums to x's shape)
        return [dy, None]


def broadcast_to(input, shape, name=None):
    return BroadcastTo.bind(input, index_operand(shape))


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["reshape", "squeeze", "expand_dims", "shape", "size", "rank", "broadcast_to"]
