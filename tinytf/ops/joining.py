"""Joining along an axis: ConcatV2 (and Concat, its older form, and ConcatOffset, its gradient's offsets),
and Pack (stack). Their inverses, Unpack and Split/SplitV, are in tinytf/ops/splitting.py.

    %c = "tf.ConcatV2"(%a, %b, %axis) : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<i32>) -> tensor<6x4xf32>
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import shape as shapes
from tinytf.ops import verifiers as v
from tinytf.ops.array import constant, identity
from tinytf.ops.base import fmt_shape, normalize_axis, same_dtype
from tinytf.ops.operands import (
    as_int,
    check_index,
    folding,
    index_operand,
    is_python_value,
    scalar_axis,
)
from tinytf.ops.slicing import Slice

# Unpack, Split, SplitV and their functions, also reachable here (tinytf.ops.joining.Split, as before)
from tinytf.ops.splitting import Split, SplitV, Unpack, split, unstack  # noqa: F401


def _joined_shape(op_name: str, shapes_, axis: int, what: str = "Dimensions of inputs should match"):
    """Dims of equal-rank ``shapes_`` merged, except ``axis`` (returned as the list of its dims)."""
    out = list(shapes_[0])
    for k, shp in enumerate(shapes_[1:], 1):
        for d, (a, b) in enumerate(zip(out, shp)):
            if d == axis:
                continue
            if a is not None and b is not None and a != b:
                raise InvalidArgumentError(
                    f"{op_name}: {what}: shape[0] = {fmt_shape(shapes_[0])} vs. shape[{k}] = {fmt_shape(shp)}",
                    op_name)
            out[d] = a if a is not None else b
    return out


@register
class ConcatV2(Op):
    """``values`` joined along ``axis`` (the last operand).

    %y = "tf.ConcatV2"(%a, %b, %axis) : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<i32>) -> tensor<6x4xf32>
    """

    name = "tf.ConcatV2"
    BATCHING: ClassVar[str] = "concat"
    values = var_operand_def()
    axis = operand_def()
    output = result_def()

    def verify_ir(self):
        v.check_types(self, operands={"axis": v.INDEX})
        if not v.rank_at_most(self.axis, 1):
            v.fail("requires axis to be of scalar type (or vector type for older versions)")
        v.check_types_compatibility([x.type for x in self.values], mask_one_dim=True)
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, *operands):
        *values, axis = operands
        if len(values) < 2:
            raise InvalidArgumentError(f"{cls.name}: expects at least 2 values, got {len(values)}", cls.name)
        dtype = same_dtype(cls.name, *values)
        a = scalar_axis(cls.name, axis, legacy="vector")
        known = [v.shape for v in values if v.shape is not None]
        if not known:
            return TensorSpec(None, dtype)
        r = len(known[0])
        if r == 0:
            raise InvalidArgumentError(f"{cls.name}: Can't concatenate scalars (use tt.stack instead)", cls.name)
        if any(len(s) != r for s in known):
            raise InvalidArgumentError(
                f"{cls.name}: Ranks of all input tensors should match: shapes "
                f"{', '.join(fmt_shape(s) for s in known)}", cls.name)
        if a is None:
            return TensorSpec((None,) * r, dtype)
        if not -r <= a < r:
            raise InvalidArgumentError(
                f"{cls.name}: Expected concatenating dimensions in the range [{-r}, {r}), but got {a}", cls.name)
        a %= r
        out = _joined_shape(cls.name, known, a)
        along = [None if v.shape is None else v.shape[a] for v in values]
        out[a] = None if None in along else sum(along)
        return TensorSpec(tuple(out), dtype)

    @classmethod
    def compute(cls, xp, *operands):
        *values, axis = operands
        return xp.concatenate(values, axis=normalize_axis(cls.name, as_int(axis), values[0].ndim))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = concat(xs, a): dx_i = slice of U at x_i's offset along a
        *values, axis = op.inputs
        value_shapes = [shapes.shape(v) for v in values]
        offsets = ConcatOffset.bind(axis, *value_shapes)
        return [Slice.bind(dy, off, shp) for off, shp in zip(offsets, value_shapes)] + [None]


@register
class Concat(Op):
    """ConcatV2 with the axis first (TensorFlow's older form).

    %y = "tf.Concat"(%axis, %a, %b) : (tensor<i32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
    """

    name = "tf.Concat"
    concat_dim = operand_def()
    values = var_operand_def()
    output = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        v.check_types(self, operands={"concat_dim": v.TypeConstraint("tensor of 32-bit integer values",
                                                                     lambda e: str(e) == "i32")})
        if not v.rank_at_most(self.concat_dim, 1):
            v.fail("requires axis to be of scalar type (or vector type for older versions)")
        v.check_types_compatibility([x.type for x in self.values], mask_one_dim=True)

    @classmethod
    def infer(cls, concat_dim, *values):
        return ConcatV2.infer(*values, concat_dim)

    @classmethod
    def compute(cls, xp, concat_dim, *values):
        return ConcatV2.compute(xp, *values, concat_dim)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = concat(a, xs): dx_i = slice of U at x_i's offset along a
        axis, *values = op.inputs
        value_shapes = [shapes.shape(v) for v in values]
        offsets = ConcatOffset.bind(axis, *value_shapes)
        return [None] + [Slice.bind(dy, off, shp) for off, shp in zip(offsets, value_shapes)]


def concat(values, axis, name="concat"):
    values = _tensors(values)
    if len(values) == 1:
        return identity(values[0])
    return ConcatV2.bind(*values, index_operand(axis))


@register
class ConcatOffset(Op):
    """Where each of ``shape`` starts in their concatenation along ``concat_dim`` (ConcatV2's gradient).

    %o:2 = "tf.ConcatOffset"(%axis, %s0, %s1) : (tensor<i32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
    """

    name = "tf.ConcatOffset"
    concat_dim = operand_def()
    shape = var_operand_def()
    offset = var_result_def()

    def verify_ir(self):
        n = len(self.shape)
        if n < 2:
            v.fail(f"requires N to be at least 2, got {n}")
        if n != len(self.offset):
            v.fail(f"requires sizes of shapes and offsets to be the same, got sizes {n} and {len(self.offset)}")
        r = v.rank(self.concat_dim.type)
        if r is not None and r != 0:
            v.fail(f"requires concat_dim to be a scalar, got tensor of rank {r}")
        length = None
        for i, (shape, offset) in enumerate(zip(self.shape, self.offset)):
            if not v.compatible_shapes(shape.type, offset.type):
                v.fail(f"requires operand and result {i} to have compatible shapes")
            s = v.shape(shape.type)
            if s is None:
                continue
            if len(s) != 1:
                v.fail(f"requires shape tensor operand {i} to be of rank 1, got tensor of rank {len(s)}")
            if s[0] is None:
                continue
            if length is None:
                length = s[0]
            elif s[0] != length:
                v.fail(f"requires shape tensor (rank 1) operand {i} to be of length {length}, got tensor (rank 1) of "
                       f"length {s[0]}")
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    @folding
    def infer(cls, concat_dim, *shape):
        scalar_axis(cls.name, concat_dim, "concat_dim")
        if len(shape) < 2:
            raise InvalidArgumentError(f"{cls.name}: expects at least 2 shapes, got {len(shape)}", cls.name)
        for s in shape:
            check_index(cls.name, s, "shape", rank=1)
        same_dtype(cls.name, *shape)
        return [TensorSpec(s.shape, s.dtype) for s in shape]

    @classmethod
    def compute(cls, xp, concat_dim, *shape):
        r = len(shape[0])
        if any(len(s) != r for s in shape):
            raise InvalidArgumentError(f"{cls.name}: shapes of different ranks {[list(s) for s in shape]}", cls.name)
        a = normalize_axis(cls.name, as_int(concat_dim), r)
        _joined_shape(cls.name, [tuple(int(d) for d in s) for s in shape], a)
        starts = np.cumsum([0] + [int(s[a]) for s in shape[:-1]])
        return tuple(np.asarray([int(start) if d == a else 0 for d in range(r)], shape[0].dtype) for start in starts)


def _tensors(values):
    """Python values among ``values`` as constants of the first tensor's dtype (TensorFlow's conversion)."""
    values = list(values)
    kind = next((v.dtype for v in values if not is_python_value(v)), None)
    return [constant(v, kind) if is_python_value(v) else v for v in values]


@register
class Pack(Op):
    """``values`` (all one shape) stacked along a new dim ``axis``.

    %y = "tf.Pack"(%a, %b) <{axis = 0 : i64}> : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
    """

    name = "tf.Pack"
    BATCHING: ClassVar[str] = "pack"
    values = var_operand_def()
    output = result_def()
    axis = attr(0)

    def verify_ir(self):
        types = [x.type for x in self.values]
        v.check_types_compatibility(types)
        r = next((v.rank(t) for t in types if v.is_ranked(t)), None)
        axis = self.attr_values()["axis"]
        if r is not None and not -r - 1 <= axis < r + 1:
            v.fail(f"attribute 'axis' should be within range [{-r - 1}, {r + 1}); actual value: {axis}")
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, *values, axis):
        if not values:
            raise InvalidArgumentError(f"{cls.name}: expects at least 1 value", cls.name)
        dtype = same_dtype(cls.name, *values)
        known = [v.shape for v in values if v.shape is not None]
        if not known:
            return TensorSpec(None, dtype)
        r = len(known[0])
        if any(len(s) != r for s in known):
            raise InvalidArgumentError(
                f"{cls.name}: Shapes of all inputs must match: {', '.join(fmt_shape(s) for s in known)}", cls.name)
        shape_ = _joined_shape(cls.name, known, -1, "Shapes of all inputs must match")
        a = normalize_axis(cls.name, axis, r + 1)
        return TensorSpec(tuple(shape_[:a]) + (len(values),) + tuple(shape_[a:]), dtype)

    @classmethod
    def compute(cls, xp, *values, axis):
        return xp.stack(values, axis=normalize_axis(cls.name, axis, values[0].ndim + 1))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = stack(xs, a): dxs = unstack(U, a)
        return unstack(dy, num=len(op.inputs), axis=op.attrs["axis"])


def stack(values, axis=0, name="stack"):
    return Pack.bind(*_tensors(values), axis=axis)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["concat", "stack"]
