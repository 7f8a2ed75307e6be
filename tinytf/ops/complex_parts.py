"""Complex numbers from and to their parts: Complex, Real, Imag, ComplexAbs, Angle.

    %z = "tf.Complex"(%re, %im) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xcomplex<f32>>
    %r = "tf.Real"(%z) : (tensor<3xcomplex<f32>>) -> tensor<3xf32>

The gradients are TensorFlow's (math_grad.py): a complex gradient g of a real loss L is
dL/dRe + i dL/dIm, so Real's gradient is complex(g, 0) and Complex's is (real(g), imag(g)). The
spectral ops (tinytf/ops/fft.py) and Eig produce complex values; these ops take them apart.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.op import Elementwise, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import broadcast_shapes, same_dtype
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import is_python_value
from tinytf.ops.tensor_inputs import as_tensor

__all__ = ["complex", "real", "imag", "angle"]
__namespaces__ = {"complex": ("top",), "real": ("math",), "imag": ("math",), "angle": ("math",)}

_REAL_OF = {"complex64": dtypes.float32, "complex128": dtypes.float64}
_COMPLEX_OF = {"float32": dtypes.complex64, "float64": dtypes.complex128}


def real_dtype(dtype):
    """float32 for complex64, float64 for complex128; a real dtype is its own."""
    return _REAL_OF.get(dtype.name, dtype)


def complex_dtype(dtype):
    """complex64 for float32, complex128 for float64; a complex dtype is its own."""
    return _COMPLEX_OF.get(dtype.name, dtype)


def _check(op_name: str, spec, kinds: dict, what: str = "input"):
    if spec.dtype.name not in kinds:
        raise InvalidArgumentError(f"{op_name}: {what} of dtype {spec.dtype.name} is not supported (allowed: "
                                   f"{', '.join(sorted(kinds))})", op_name)


@register
class Complex(Op):
    """real + i·imag, broadcasting.  %z = "tf.Complex"(%re, %im) : (tensor<2xf32>, tensor<f32>) -> tensor<2xcomplex<f32>>"""

    name = "tf.Complex"
    real = operand_def()
    imag = operand_def()
    out = result_def()
    Tout = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    traits = traits_def(Pure(), Elementwise())

    @classmethod
    def infer(cls, real, imag, *, Tout=None):
        dtype = same_dtype(cls.name, real, imag)
        _check(cls.name, real, _COMPLEX_OF)
        want = _COMPLEX_OF[dtype.name]
        if Tout is not None and Tout != want:
            raise InvalidArgumentError(f"{cls.name}: Tout {Tout.name} does not match inputs of dtype {dtype.name} "
                                       f"(it must be {want.name})", cls.name)
        return TensorSpec(broadcast_shapes(cls.name, real.shape, imag.shape), want)

    @staticmethod
    def compute(xp, real, imag, *, Tout=None):
        dtype = np.complex64 if real.dtype == np.float32 else np.complex128
        return (xp.asarray(real).astype(dtype) + 1j * xp.asarray(imag).astype(dtype)).astype(dtype)

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = x + i y: dx = real(U), dy = imag(U)
        return [real(dz), imag(dz)]


def complex(real, imag, name=None):  # noqa: A001 (TensorFlow's name)
    """``tt.complex(re, im)``: complex64 from float32 parts, complex128 from float64."""
    real = as_tensor(real, like=imag if not is_python_value(imag) else None)
    imag = as_tensor(imag, like=real)
    return Complex.bind(real, imag, Tout=_COMPLEX_OF.get(real.dtype.name))


class _Part(Op):
    """A real function of a complex (or real) ``input``: its result has the input's real dtype."""

    input = operand_def()
    output = result_def()
    Tout = derived("type", lambda op: tf_types.dtype_of(op.results[0].type), default=None)
    traits = traits_def(Pure(), Elementwise())
    BATCHING: ClassVar[str] = "leading_axes"
    KINDS: ClassVar[dict] = _REAL_OF

    @classmethod
    def infer(cls, input, *, Tout=None):
        _check(cls.name, input, cls.KINDS)
        want = real_dtype(input.dtype)
        if Tout is not None and Tout != want:
            raise InvalidArgumentError(f"{cls.name}: Tout {Tout.name} does not match an input of dtype "
                                       f"{input.dtype.name} (it must be {want.name})", cls.name)
        return TensorSpec(input.shape, want)


@register
class Real(_Part):
    """The real part.  %r = "tf.Real"(%z) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>"""

    name = "tf.Real"

    @staticmethod
    def compute(xp, input, *, Tout=None):
        return xp.real(input)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = re(z): dz = complex(U, 0)
        return [complex(dy, _zeros(dy))]


@register
class Imag(_Part):
    """The imaginary part.  %i = "tf.Imag"(%z) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>"""

    name = "tf.Imag"

    @staticmethod
    def compute(xp, input, *, Tout=None):
        return xp.imag(input)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = im(z): dz = complex(0, U)
        return [complex(_zeros(dy), dy)]


@register
class ComplexAbs(_Part):
    """|z| of complex z (tt.abs of a complex tensor).  %a = "tf.ComplexAbs"(%z) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>"""

    name = "tf.ComplexAbs"

    @staticmethod
    def compute(xp, input, *, Tout=None):
        return xp.abs(input)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = |z|: dz = complex(U, 0) * z / complex(y, 0) (0 where y = 0)
        z, y = op.inputs[0], op.outputs[0]
        return [ops.div_no_nan(ops.multiply(complex(dy, _zeros(dy)), z), complex(y, _zeros(y)))]


@register
class Angle(_Part):
    """The argument of z, atan2(im, re).  %a = "tf.Angle"(%z) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>"""

    name = "tf.Angle"

    @staticmethod
    def compute(xp, input, *, Tout=None):
        return xp.angle(input)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = angle(z): dz = -complex(U, 0) / complex(im z, re z)
        z = op.inputs[0]
        return [ops.negative(ops.multiply(complex(dy, _zeros(dy)), ops.reciprocal(complex(imag(z), real(z)))))]


def _zeros(t):
    return ops.zeros_like(t)


def real(input, name=None):
    """``tt.math.real``: the real part of a complex tensor; a real tensor is returned as it is."""
    input = as_tensor(input)
    return Real.bind(input, Tout=real_dtype(input.dtype)) if input.dtype.is_complex else input


def imag(input, name=None):
    """``tt.math.imag``: the imaginary part (zeros for a real tensor)."""
    input = as_tensor(input)
    return Imag.bind(input, Tout=real_dtype(input.dtype)) if input.dtype.is_complex else ops.zeros_like(input)


def angle(input, name=None):
    """``tt.math.angle``: the argument of a complex tensor; of a real one, pi where it is negative, else 0."""
    input = as_tensor(input)
    if input.dtype.is_complex:
        return Angle.bind(input, Tout=real_dtype(input.dtype))
    return ops.where(ops.less(input, ops.scalar_like(input, 0)), ops.scalar_like(input, np.pi), ops.zeros_like(input))


def complex_abs(x):
    """|x| of a complex tensor (tf.ComplexAbs, what tf.abs binds for complex x)."""
    return ComplexAbs.bind(x, Tout=real_dtype(x.dtype))
