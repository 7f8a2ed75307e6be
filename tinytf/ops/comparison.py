"""Comparisons, logic and selection: Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual,
LogicalAnd, LogicalOr, LogicalNot, Select (TF1 rules) and SelectV2 (broadcasting, ``tt.where``).

    %z = "tf.Less"(%x, %y) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi1>
    %o = "tf.SelectV2"(%c, %t, %e) : (tensor<3xi1>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>

Comparisons and logic have no gradient; Select routes the upstream gradient to the branch taken.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Commutative, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import broadcast_shapes, fmt_shape, same_dtype
from tinytf.ops.type_lists import BOOL, NUMBER, REAL, Binary, Unary, check_types


class _Compare(Binary):
    """x <op> y with broadcasting, a bool result; no gradient."""

    TYPES: ClassVar = REAL
    traits = traits_def(NotDifferentiable())

    def verify_ir(self):  # (Less, Greater, LogicalAnd, ...: ResultsBroadcastableShape, a bool result)
        v.check_types(self, results={"z": v.BOOL})
        v.results_broadcastable(self)

    @classmethod
    def infer(cls, x, y, **attrs):
        spec = super().infer(x, y, **attrs)
        return TensorSpec(spec.shape, dtypes.bool_)


class _Equality(_Compare):
    """Equal / NotEqual: any dtype; with ``incompatible_shape_error = false`` shapes that do not
    broadcast give a scalar (False for Equal, True for NotEqual) instead of an error."""

    TYPES: ClassVar = NUMBER | BOOL | {"string"}
    incompatible_shape_error = attr(True)
    traits = traits_def(Commutative())

    def verify_ir(self):
        v.check_types(self, results={"z": v.BOOL})
        if self.attr_values()["incompatible_shape_error"]:
            v.results_broadcastable(self)

    @classmethod
    def infer(cls, x, y, *, incompatible_shape_error=True):
        if not incompatible_shape_error:
            try:
                return super().infer(x, y)
            except InvalidArgumentError:
                same_dtype(cls.name, x, y)
                return TensorSpec((), dtypes.bool_)
        return super().infer(x, y)

    @classmethod
    def _compute(cls, xp, fn, x, y, incompatible_shape_error):
        if not incompatible_shape_error:
            try:
                np.broadcast_shapes(x.shape, y.shape)
            except ValueError:
                return xp.asarray(cls.name == "tf.NotEqual")
        return fn(x, y)


@register
class Equal(_Equality):
    """x == y (NaN != NaN).  %z = "tf.Equal"(%x, %y) <{incompatible_shape_error = true}> : (...) -> tensor<3xi1>"""

    name = "tf.Equal"

    @classmethod
    def compute(cls, xp, x, y, *, incompatible_shape_error=True):
        return cls._compute(xp, xp.equal, x, y, incompatible_shape_error)


def equal(x, y, name=None):
    return Equal.bind(x, y, incompatible_shape_error=True)


@register
class NotEqual(_Equality):
    """x != y.  %z = "tf.NotEqual"(%x, %y) <{incompatible_shape_error = true}> : (...) -> tensor<3xi1>"""

    name = "tf.NotEqual"

    @classmethod
    def compute(cls, xp, x, y, *, incompatible_shape_error=True):
        return cls._compute(xp, xp.not_equal, x, y, incompatible_shape_error)


def not_equal(x, y, name=None):
    return NotEqual.bind(x, y, incompatible_shape_error=True)


@register
class Less(_Compare):
    """x < y.  %z = "tf.Less"(%x, %y) : (tensor<3xi32>, tensor<i32>) -> tensor<3xi1>"""

    name = "tf.Less"
    EXACT_UFUNC: ClassVar = np.less

    @staticmethod
    def compute(xp, x, y):
        return xp.less(x, y)


def less(x, y, name=None):
    return Less.bind(x, y)


@register
class LessEqual(_Compare):
    """x <= y.  %z = "tf.LessEqual"(%x, %y) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>"""

    name = "tf.LessEqual"
    EXACT_UFUNC: ClassVar = np.less_equal

    @staticmethod
    def compute(xp, x, y):
        return xp.less_equal(x, y)


def less_equal(x, y, name=None):
    return LessEqual.bind(x, y)


@register
class Greater(_Compare):
    """x > y.  %z = "tf.Greater"(%x, %y) : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>"""

    name = "tf.Greater"
    EXACT_UFUNC: ClassVar = np.greater

    @staticmethod
    def compute(xp, x, y):
        return xp.greater(x, y)


def greater(x, y, name=None):
    return Greater.bind(x, y)


@register
class GreaterEqual(_Compare):
    """x >= y.  %z = "tf.GreaterEqual"(%x, %y) : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>"""

    name = "tf.GreaterEqual"
    EXACT_UFUNC: ClassVar = np.greater_equal

    @staticmethod
    def compute(xp, x, y):
        return xp.greater_equal(x, y)


def greater_equal(x, y, name=None):
    return GreaterEqual.bind(x, y)


class _Logical(_Compare):
    TYPES: ClassVar = BOOL
    traits = traits_def(Commutative())


@register
class LogicalAnd(_Logical):
    """x and y.  %z = "tf.LogicalAnd"(%x, %y) : (tensor<3xi1>, tensor<i1>) -> tensor<3xi1>"""

    name = "tf.LogicalAnd"
    EXACT_UFUNC: ClassVar = np.logical_and

    @staticmethod
    def compute(xp, x, y):
        return xp.logical_and(x, y)


def logical_and(x, y, name=None):
    return LogicalAnd.bind(x, y)


@register
class LogicalOr(_Logical):
    """x or y.  %z = "tf.LogicalOr"(%x, %y) : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>"""

    name = "tf.LogicalOr"
    EXACT_UFUNC: ClassVar = np.logical_or

    @staticmethod
    def compute(xp, x, y):
        return xp.logical_or(x, y)


def logical_or(x, y, name=None):
    return LogicalOr.bind(x, y)


@register
class LogicalNot(Unary):
    """not x.  %y = "tf.LogicalNot"(%x) : (tensor<3xi1>) -> tensor<3xi1>"""

    name = "tf.LogicalNot"
    CHEAP: ClassVar[bool] = True
    TYPES: ClassVar = BOOL
    traits = traits_def(NotDifferentiable())

    @staticmethod
    def compute(xp, x):
        return xp.logical_not(x)


def logical_not(x, name=None):
    return LogicalNot.bind(x)


@register
class ToBool(Op):
    """A tensor's truth as If's predicate: a scalar is true when nonzero (a string when not empty), any
    other tensor when it has elements.  %b = "tf.ToBool"(%x) : (tensor<3xf32>) -> tensor<i1>"""

    name = "tf.ToBool"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    def verify_ir(self):
        v.check_inferred(self, [v.tensor_type((), dtypes.bool_)])

    @classmethod
    def infer(cls, input):
        return TensorSpec((), dtypes.bool_)

    @staticmethod
    def compute(xp, input):
        if input.ndim:
            return xp.asarray(input.size > 0)
        if input.dtype.kind in "OSU":
            return np.asarray(len(input.item()) > 0)
        return input != 0


class _Select(Op):
    condition = operand_def()
    t = operand_def()
    e = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def _check(cls, condition, t, e):
        check_types(cls.name, condition, BOOL, "condition")
        return same_dtype(cls.name, t, e)


def _zeros_like(t):
    from tinytf.ops.array import zeros_like

    return zeros_like(t)


@register
class Select(_Select):
    """TF1 select: t and e have one shape; condition is a scalar, that shape, or a vector picking rows.

    %o = "tf.Select"(%c, %t, %e) : (tensor<2xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    """

    name = "tf.Select"
    BATCHING: ClassVar[str] = "loop"

    def verify_ir(self):
        t, e = self.t.type, self.e.type
        if not v.cast_compatible(t, e):
            v.fail("requires t and e have compatible shapes")
        ts, es = v.shape(t), v.shape(e)
        if ts is None and es is None:
            return
        data_rank = len(ts if ts is not None else es)
        firsts = [s[0] for s in (ts, es) if s and s[0] is not None]
        first = max(firsts) if firsts else None
        c = v.shape(self.condition.type)
        if c is None or len(c) in (0, data_rank):
            return
        if len(c) == 1:
            if data_rank == 0:
                v.fail("requires that t and e are nonscalar when pred is a vector")
            if first is not None and c[0] is not None and first != c[0]:
                v.fail("requires that, when pred is a vector, the shape matches the first dimension of t and e")
            return
        v.fail("requires that pred is a scalar OR has the same rank as t and e OR is a vector")

    @classmethod
    def infer(cls, condition, t, e):
        dtype = cls._check(condition, t, e)
        shape = t.shape if t.shape is not None else e.shape
        if not t.is_compatible_with(e.shape):
            raise InvalidArgumentError(
                f"{cls.name}: 'then' and 'else' must have the same shape, got {fmt_shape(t.shape)} and "
                f"{fmt_shape(e.shape)}", cls.name)
        c = condition.shape
        if c is not None and shape is not None and c != () and not condition.is_compatible_with(shape):
            rows_ok = len(c) == 1 and len(shape) >= 1 and (c[0] is None or shape[0] is None or c[0] == shape[0])
            if not rows_ok:
                raise InvalidArgumentError(
                    f"{cls.name}: condition {fmt_shape(c)} must be a scalar, a vector of the first dim, or the "
                    f"shape of 'then' {fmt_shape(shape)}", cls.name)
        if t.shape is not None and e.shape is not None:
            shape = tuple(a if a is not None else b for a, b in zip(t.shape, e.shape))
        return TensorSpec(shape, dtype)

    @staticmethod
    def compute(xp, condition, t, e):
        if condition.ndim == 1 and t.ndim > 1:
            condition = condition.reshape((-1,) + (1,) * (t.ndim - 1))
        return xp.where(condition, t, e)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = c ? t : e: dt = U where c else 0, de = U where not c
        c, t, _ = op.inputs
        zeros = _zeros_like(t)
        return [None, Select.bind(c, dy, zeros), Select.bind(c, zeros, dy)]


@register
class SelectV2(_Select):
    """condition ? t : e with broadcasting over all three.

    %o = "tf.SelectV2"(%c, %t, %e) : (tensor<3x1xi1>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    """

    name = "tf.SelectV2"
    verify_ir = v.results_broadcastable

    @classmethod
    def infer(cls, condition, t, e):
        dtype = cls._check(condition, t, e)
        try:
            shape = broadcast_shapes(cls.name, condition.shape, broadcast_shapes(cls.name, t.shape, e.shape))
        except InvalidArgumentError:
            raise InvalidArgumentError(
                f"{cls.name}: condition {fmt_shape(condition.shape)}, then {fmt_shape(t.shape)}, and else "
                f"{fmt_shape(e.shape)} must be broadcastable", cls.name) from None
        return TensorSpec(shape, dtype)

    @staticmethod
    def compute(xp, condition, t, e):
        return xp.where(condition, t, e)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = c ? t : e: dt = U where c else 0, de = U where not c
        from tinytf.ops.math import scalar_like

        c = op.inputs[0]
        zero = scalar_like(dy)
        return [None, SelectV2.bind(c, dy, zero), SelectV2.bind(c, zero, dy)]


def where(condition, x=None, y=None, name=None):
    """``tt.where(c, x, y)``: SelectV2; ``tt.where(c)``: the coordinates of c's true elements (tf.Where)."""
    if x is None and y is None:
        from tinytf.ops.masking import where_indices  # (masking builds on gather, which builds on this module)

        return where_indices(condition)
    if x is None or y is None:
        raise InvalidArgumentError("tt.where: give both x and y, or neither", "tf.SelectV2")
    return SelectV2.bind(condition, x, y)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
           "logical_not", "where"]
