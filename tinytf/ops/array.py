"""Array ops that move or relabel data: Const, Identity, IdentityN, Cast."""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import ConstantLike, Pure

from tinytf import dtypes
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec


@register
class Const(Op):
    """A constant tensor.  %c = "tf.Const"() <{value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>"""

    name = "tf.Const"
    output = result_def()
    value = attr(kind="tensor")
    traits = traits_def(Pure(), ConstantLike(), NotDifferentiable())

    @staticmethod
    def infer(*, value):
        return TensorSpec(value.shape, dtypes.as_dtype(value.dtype))

    @staticmethod
    def compute(xp, *, value):
        return xp.asarray(value)


def constant(value, dtype=None, shape=None, name=None):
    """``tt.constant``: a tensor from a Python value or numpy array (float32 for Python floats)."""
    dtype = dtypes.result_type_of_python(value) if dtype is None else dtypes.as_dtype(dtype)
    array = np.asarray(value, dtype=dtype.np)
    if shape is not None:
        array = np.broadcast_to(array, tuple(shape)) if array.size == 1 else array.reshape(tuple(shape))
    return Const.bind(value=np.ascontiguousarray(array))


@register
class Identity(Op):
    """Returns its input. Never constant-folded: it keeps an int8 weight from folding back to float.

    %y = "tf.Identity"(%x) {device = ""} : (tensor<4xi8>) -> tensor<4xi8>
    """

    name = "tf.Identity"
    input = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NoConstantFold())

    @staticmethod
    def infer(input):
        return input

    @staticmethod
    def compute(xp, input):
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
    traits = traits_def(Pure(), NoConstantFold())

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
    x = operand_def()
    y = result_def()
    Truncate = attr(False)
    DstT = derived("type", lambda op: tf_types.dtype_of(op.results[0].type))
    traits = traits_def(Pure())

    @staticmethod
    def infer(x, *, DstT, Truncate):
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
