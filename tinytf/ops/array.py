"""Array ops that make or relabel data: Const, Identity, IdentityN, Cast, StopGradient, Fill,
ZerosLike, OnesLike; the tt.zeros / ones / fill helpers.

    %c = "tf.Const"() <{value = dense<[2, 3]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %z = "tf.Fill"(%c, %v) : (tensor<2xi32>, tensor<f32>) -> tensor<2x3xf32>
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import ConstantLike, Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, ReturnsOperands, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import (
    folding,
    guard_allocation,
    index_operand,
    is_python_value,
    shape_from_operand,
)


@register
class Const(Op):
    """A constant tensor.  %c = "tf.Const"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>"""

    name = "tf.Const"
    output = result_def()
    value = attr(kind="tensor")
    traits = traits_def(Pure(), ConstantLike(), NotDifferentiable())

    @staticmethod
    def infer(*, value):  # the spec carries the value: shape rules may read constant operands
        return TensorSpec(value.shape, dtypes.as_dtype(value.dtype), value=value)

    @staticmethod
    def compute(xp, *, value):
        return xp.asarray(value)


def constant(value, dtype=None, shape=None, name=None):
    """``tt.constant``: a tensor from a Python value (float32 for floats, int32 for ints) or a numpy
    array (its own dtype, as ``tf.constant``)."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    elif isinstance(value, np.ndarray | np.generic) and value.dtype.kind in "biufc":
        dtype = dtypes.as_dtype(value.dtype)
    else:
        dtype = dtypes.result_type_of_python(value)
    array = np.asarray(value, dtype=dtype.np)
    if shape is not None:
        array = np.broadcast_to(array, tuple(shape)) if array.size == 1 else array.reshape(tuple(shape))
    # (np.ascontiguousarray would turn a scalar into a 1-element vector)
    return Const.bind(value=array if array.flags.c_contiguous else np.array(array, order="C"))


@register
class Identity(Op):
    """Returns its input. Never constant-folded: it keeps an int8 weight from folding back to float.

    %y = "tf.Identity"(%x) {device = ""} : (tensor<4xi8>) -> tensor<4xi8>
    """

    name = "tf.Identity"
    input = operand_def()
    output = result_def()
    verify_ir = v.operands_same_as_results_or_ref
    traits = traits_def(Pure(), NoConstantFold(), ReturnsOperands())

    @staticmethod
    def infer(input):
        return input

    @staticmethod
    def compute(xp, input):
        return input

    @staticmethod
    def lower(input):
        # An int8 weight behind tf.Identity (TensorFlow's dequantize pattern) stays an int8 value of the
        # XLA program: folding the chain, or letting XLA fold it, would store it as float.
        if isinstance(input, np.ndarray | np.generic) and input.dtype in (np.int8, np.uint8):
            import jax

            return jax.lax.optimization_barrier(jax.numpy.asarray(input))
        return input

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = x: dx = dy
        return [dy]


def identity(input, name=None):
    return Identity.bind(input)


@register
class IdentityN(Op):
    """Returns its inputs (Keras exports custom gradients, e.g. swish, through it)."""

    name = "tf.IdentityN"
    input = var_operand_def()
    output = var_result_def()
    traits = traits_def(Pure(), NoConstantFold(), ReturnsOperands())

    @staticmethod
    def infer(*input):
        return list(input)

    @staticmethod
    def compute(xp, *input):
        return tuple(input)

    @staticmethod
    def grad(op, *dys):  # Given upstream grads dys and ys = xs: dxs = dys
        return list(dys)


def identity_n(input, name=None):
    return IdentityN.bind(*input)


@register
class Cast(Op):
    """Converts to ``DstT``.  %y = "tf.Cast"(%x) <{Truncate = false}> : (tensor<2xi8>) -> tensor<2xi32>"""

    name = "tf.Cast"
    BATCHING: ClassVar[str] = "leading_axes"
    CHEAP: ClassVar[bool] = True
    x = operand_def()
    y = result_def()
    Truncate = attr(False)
    DstT = derived("type", lambda op: tf_types.dtype_of(op.results[0].type))
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, x, *, DstT, Truncate):
        # TensorFlow's Cast kernel converts numbers and bools only (strings: tf.strings.as_string and
        # tf.strings.to_number); a same-type cast is the identity
        if x.dtype is not None and x.dtype != DstT and "o" in (x.dtype.kind, DstT.kind):
            raise UnimplementedError(f"{cls.name}: Cast {x.dtype.tf} to {DstT.tf} is not supported", cls.name)
        return TensorSpec(x.shape, DstT)

    @staticmethod
    def compute(xp, x, *, DstT, Truncate):
        if x.dtype.kind == "c" and DstT.kind != "c":
            x = xp.real(x)
        return x.astype(DstT.np)

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = cast(x): dx = cast(dy) for float x, else None
        src = op.inputs[0].dtype
        return [cast(dy, src) if src.is_differentiable else None]


def cast(x, dtype, name=None):
    return Cast.bind(x, DstT=dtypes.as_dtype(dtype), Truncate=False)


# --- StopGradient, Fill, ZerosLike, OnesLike --------------------------------------------------

@register
class StopGradient(Op):
    """Returns its input; gradients do not flow through it.

    %y = "tf.StopGradient"(%x) {device = ""} : (tensor<2x5x1xf32>) -> tensor<2x5x1xf32>
    """

    name = "tf.StopGradient"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NotDifferentiable(), ReturnsOperands())

    @staticmethod
    def infer(input):
        return TensorSpec(input.shape, input.dtype)

    @staticmethod
    def compute(xp, input):
        return input


def stop_gradient(input, name=None):
    return StopGradient.bind(input)


@register
class Fill(Op):
    """A tensor of shape ``dims`` filled with the scalar ``value``.

    %y = "tf.Fill"(%dims, %v) : (tensor<2xi32>, tensor<f32>) -> tensor<2x3xf32>
    """

    name = "tf.Fill"
    dims = operand_def()
    value = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        if not v.has_rank(self.dims, 1):
            v.fail("requires dims to be a 1D tensor")
        if not v.has_rank(self.value, 0):
            v.fail("requires value to be a scalar")

    @classmethod
    @folding
    def infer(cls, dims, value):
        if value.shape is not None and value.shape not in ((), (1,), (None,)):  # (TF takes a 1-element vector)
            raise InvalidArgumentError(
                f"{cls.name}: value must represent a scalar, got shape {fmt_shape(value.shape)}", cls.name)
        shape = shape_from_operand(cls.name, dims, "dims", legacy_scalar=True)
        guard_allocation(cls.name, shape, value.dtype)
        return TensorSpec(shape, value.dtype)

    @staticmethod
    def compute(xp, dims, value):
        if value.size != 1:
            raise InvalidArgumentError(f"tf.Fill: value must represent a scalar, got shape {list(value.shape)}")
        return xp.full(tuple(int(d) for d in np.asarray(dims).reshape(-1)), value.reshape(()), dtype=value.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = fill(dims, v): dv = sum(U)
        from tinytf.ops.reduction import reduce_sum

        return [None, reduce_sum(dy)]


def fill(dims, value, name=None):
    return Fill.bind(index_operand(dims), value)


def _filled(shape, value, dtype):
    """zeros/ones: a constant when the shape is known and small (as TensorFlow), else tf.Fill."""
    dtype = dtypes.as_dtype(dtype)
    mixed = isinstance(shape, list | tuple) and not all(is_python_value(d) for d in shape)  # [tt.shape(x)[0], 2]
    if not mixed and (is_python_value(shape) and not isinstance(shape, np.ndarray | np.generic) or
                      isinstance(shape, np.ndarray) and shape.dtype.kind in "iu"):
        dims = [int(shape)] if isinstance(shape, int) else [int(d) for d in np.asarray(shape).reshape(-1)]
        if any(d < 0 for d in dims):
            raise InvalidArgumentError(f"tf.Fill: dims {dims} has a negative dimension", Fill.name)
        check_allocation(Fill.name, dims, dtype)
        if np.prod(dims, dtype=np.int64) < 1000:
            return constant(np.full(dims, value, dtype.np))
    return Fill.bind(index_operand(shape), constant(np.asarray(value, dtype.np)))


def zeros(shape, dtype=dtypes.float32, name=None):
    return _filled(shape, 0, dtype)


def ones(shape, dtype=dtypes.float32, name=None):
    return _filled(shape, 1, dtype)


class _FilledLike(Op):
    """y = a constant of x's shape and dtype."""

    x = operand_def()
    y = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @staticmethod
    def infer(x):
        return TensorSpec(x.shape, x.dtype)


@register
class ZerosLike(_FilledLike):
    """Zeros of x's shape and dtype.  %y = "tf.ZerosLike"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.ZerosLike"
    BATCHING: ClassVar[str] = "leading_axes"
    CHEAP: ClassVar[bool] = True

    @staticmethod
    def compute(xp, x):
        return xp.zeros_like(x)


@register
class OnesLike(_FilledLike):
    """Ones of x's shape and dtype.  %y = "tf.OnesLike"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.OnesLike"
    BATCHING: ClassVar[str] = "leading_axes"
    CHEAP: ClassVar[bool] = True

    @staticmethod
    def compute(xp, x):
        return xp.ones_like(x)


def _like(cls, input, dtype, value):
    if dtype is not None and is_python_value(input):
        input = constant(input, dtype)
    elif is_python_value(input):
        input = constant(input)
    if dtype is None or dtypes.as_dtype(dtype) == input.dtype:
        return cls.bind(input)
    from tinytf.ops.shape import shape as shape_of

    return Fill.bind(shape_of(input), constant(np.asarray(value, dtypes.as_dtype(dtype).np)))


def zeros_like(input, dtype=None, name=None):
    return _like(ZerosLike, input, dtype, 0)


def ones_like(input, dtype=None, name=None):
    return _like(OnesLike, input, dtype, 1)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["constant", "identity", "identity_n", "cast", "stop_gradient", "fill", "zeros", "ones", "zeros_like",
           "ones_like"]
