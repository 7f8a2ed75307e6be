"""tt.math.special: the Bessel functions of the first and second kind J0, J1, Y0, Y1, the modified ones
of the second kind K0, K1 (and exponentially scaled K0e, K1e), Dawson's integral, the exponential
integral Ei, the Fresnel integrals and Spence's function, elementwise; with the I0 / I1 family of
special_functions.py they make TensorFlow's tf.math.special. Also tt.math.log_sigmoid.

    %y = "tf.BesselJ0"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    tt.math.special.bessel_k1e(x); tt.math.special.fresnel_sin(x)

scipy.special eagerly; under XLA jax.scipy.special where it has the function (dawsn, expi, fresnel,
spence), else scipy through a JAX host callback (the J, Y and K Bessel functions: JAX has no Y or K,
and its bessel_jn gives NaN in float32). The gradients are TensorFlow's special_math_grad.py rules.
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np

from tinytf.framework.op import register
from tinytf.ops.op_functions import ops
from tinytf.ops.special_functions import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e
from tinytf.ops.tensor_inputs import as_tensor
from tinytf.ops.type_lists import FLOAT, Unary, is_numpy

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e",
           "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence", "bessel_i0", "bessel_i0e", "bessel_i1",
           "bessel_i1e", "log_sigmoid"]
__namespaces__ = {n: ("math.special",) for n in __all__} | {"log_sigmoid": ("math",)}


def _scipy(fn_name, x):
    """scipy.special's ``fn_name`` (``fresnel_sin`` / ``fresnel_cos``: one half of its fresnel) in x's dtype."""
    import scipy.special

    with np.errstate(all="ignore"):
        wide = x.astype(np.float32) if x.dtype.itemsize < 4 else x   # scipy has no half loops
        if fn_name.startswith("fresnel_"):
            sine, cosine = scipy.special.fresnel(wide)
            out = sine if fn_name == "fresnel_sin" else cosine
        else:
            out = getattr(scipy.special, fn_name)(wide)
    return np.asarray(out).astype(x.dtype)


class _SpecialFn(Unary):
    """``y = FN(x)``: scipy.special's ``FN`` eagerly; under XLA ``jax_fn(jax.scipy.special, x)`` or, without one,
    scipy in a host callback."""

    TYPES: ClassVar = FLOAT
    FN: ClassVar[str] = ""

    @staticmethod
    def jax_fn(special, x):
        return None

    @classmethod
    def compute(cls, xp, x):
        if is_numpy(xp):
            return _scipy(cls.FN, x)
        import jax
        import jax.scipy.special

        out = cls.jax_fn(jax.scipy.special, x)
        if out is None:   # no JAX implementation: scipy on the host
            out = jax.pure_callback(lambda v: _scipy(cls.FN, np.asarray(v)), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                                    vmap_method="expand_dims")
        return out.astype(x.dtype)


@register
class BesselJ0(_SpecialFn):
    """The Bessel function of the first kind J0.  %y = "tf.BesselJ0"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselJ0"
    FN: ClassVar[str] = "j0"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = j0(x): dx = -U j1(x)
        return [ops.negative(ops.multiply(dy, bessel_j1(op.inputs[0])))]


@register
class BesselJ1(_SpecialFn):
    """The Bessel function of the first kind J1.  %y = "tf.BesselJ1"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselJ1"
    FN: ClassVar[str] = "j1"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = j1(x): dx = U (j0(x) - y / x), 0.5 U at x = 0
        return [ops.multiply(dy, _over_x_derivative(op.inputs[0], op.outputs[0], bessel_j0(op.inputs[0]), 0.5))]


def _over_x_derivative(x, y, lead, at_zero):
    """lead - y / x, with the limit ``at_zero`` at x = 0 (TensorFlow's imputed value)."""
    zero = ops.equal(x, ops.zeros_like(x))
    safe = ops.where(zero, ops.ones_like(x), x)
    return ops.where(zero, ops.scalar_like(x, at_zero), ops.subtract(lead, ops.divide(y, safe)))


@register
class BesselY0(_SpecialFn):
    """The Bessel function of the second kind Y0.  %y = "tf.BesselY0"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselY0"
    FN: ClassVar[str] = "y0"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = y0(x): dx = -U y1(x)
        return [ops.negative(ops.multiply(dy, bessel_y1(op.inputs[0])))]


@register
class BesselY1(_SpecialFn):
    """The Bessel function of the second kind Y1.  %y = "tf.BesselY1"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselY1"
    FN: ClassVar[str] = "y1"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = y1(x): dx = U (y0(x) - y / x)
        x, y = op.inputs[0], op.outputs[0]
        return [ops.multiply(dy, ops.subtract(bessel_y0(x), ops.divide(y, x)))]


@register
class BesselK0(_SpecialFn):
    """The modified Bessel function of the second kind K0.  %y = "tf.BesselK0"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselK0"
    FN: ClassVar[str] = "k0"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = k0(x): dx = -U k1(x)
        return [ops.negative(ops.multiply(dy, bessel_k1(op.inputs[0])))]


@register
class BesselK0e(_SpecialFn):
    """exp(x) K0(x).  %y = "tf.BesselK0e"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselK0e"
    FN: ClassVar[str] = "k0e"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = k0e(x): dx = U (y - k1e(x))
        return [ops.multiply(dy, ops.subtract(op.outputs[0], bessel_k1e(op.inputs[0])))]


@register
class BesselK1(_SpecialFn):
    """The modified Bessel function of the second kind K1.  %y = "tf.BesselK1"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselK1"
    FN: ClassVar[str] = "k1"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = k1(x): dx = -U (k0(x) + y / x)
        x, y = op.inputs[0], op.outputs[0]
        return [ops.negative(ops.multiply(dy, ops.add(bessel_k0(x), ops.divide(y, x))))]


@register
class BesselK1e(_SpecialFn):
    """exp(x) K1(x).  %y = "tf.BesselK1e"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselK1e"
    FN: ClassVar[str] = "k1e"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = k1e(x): dx = U (y (1 - 1/x) - k0e(x))
        x, y = op.inputs[0], op.outputs[0]
        return [ops.multiply(dy, ops.subtract(ops.multiply(y, ops.subtract(ops.ones_like(x), ops.reciprocal(x))),
                                              bessel_k0e(x)))]


@register
class Dawsn(_SpecialFn):
    """Dawson's integral exp(-x^2) ∫_0^x exp(t^2) dt.  %y = "tf.Dawsn"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Dawsn"
    FN: ClassVar[str] = "dawsn"
    jax_fn = staticmethod(lambda special, x: special.dawsn(x))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = dawsn(x): dx = U (1 - 2 x y)
        x, y = op.inputs[0], op.outputs[0]
        return [ops.multiply(dy, ops.subtract(ops.ones_like(x), ops.multiply(ops.multiply(x, y), 2.0)))]


@register
class Expint(_SpecialFn):
    """The exponential integral Ei(x).  %y = "tf.Expint"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Expint"
    FN: ClassVar[str] = "expi"
    jax_fn = staticmethod(lambda special, x: special.expi(x))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = Ei(x): dx = U exp(x) / x
        x = op.inputs[0]
        return [ops.multiply(dy, ops.divide(ops.exp(x), x))]


@register
class FresnelCos(_SpecialFn):
    """C(x) = ∫_0^x cos(π t^2 / 2) dt.  %y = "tf.FresnelCos"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.FresnelCos"
    FN: ClassVar[str] = "fresnel_cos"
    jax_fn = staticmethod(lambda special, x: special.fresnel(x)[1])

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = C(x): dx = U cos(π x^2 / 2)
        x = op.inputs[0]
        return [ops.multiply(dy, ops.cos(ops.multiply(ops.square(x), math.pi / 2)))]


@register
class FresnelSin(_SpecialFn):
    """S(x) = ∫_0^x sin(π t^2 / 2) dt.  %y = "tf.FresnelSin"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.FresnelSin"
    FN: ClassVar[str] = "fresnel_sin"
    jax_fn = staticmethod(lambda special, x: special.fresnel(x)[0])

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = S(x): dx = U sin(π x^2 / 2)
        x = op.inputs[0]
        return [ops.multiply(dy, ops.sin(ops.multiply(ops.square(x), math.pi / 2)))]


@register
class Spence(_SpecialFn):
    """Spence's function ∫_1^x log(t) / (1 - t) dt.  %y = "tf.Spence"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Spence"
    FN: ClassVar[str] = "spence"
    jax_fn = staticmethod(lambda special, x: special.spence(x))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = spence(x): dx = U log(x) / (1 - x), -U at x = 1
        x = op.inputs[0]
        one = ops.equal(x, ops.ones_like(x))
        safe = ops.where(one, ops.scalar_like(x, 2.0), x)
        slope = ops.divide(ops.log(safe), ops.subtract(ops.ones_like(x), safe))
        return [ops.multiply(dy, ops.where(one, ops.scalar_like(x, -1.0), slope))]


def _unary(cls):
    def fn(x, name=None):
        return cls.bind(as_tensor(x))

    fn.__name__ = fn.__qualname__ = {"j0": "bessel_j0", "j1": "bessel_j1", "y0": "bessel_y0", "y1": "bessel_y1",
                                     "k0": "bessel_k0", "k0e": "bessel_k0e", "k1": "bessel_k1", "k1e": "bessel_k1e",
                                     "expi": "expint"}.get(cls.FN, cls.FN)
    fn.__doc__ = f"``tt.math.special.{fn.__name__}``: {cls.__doc__.split('  %')[0]}"
    return fn


bessel_j0, bessel_j1, bessel_y0, bessel_y1 = (_unary(c) for c in (BesselJ0, BesselJ1, BesselY0, BesselY1))
bessel_k0, bessel_k0e, bessel_k1, bessel_k1e = (_unary(c) for c in (BesselK0, BesselK0e, BesselK1, BesselK1e))
dawsn, expint, fresnel_cos, fresnel_sin, spence = (_unary(c) for c in (Dawsn, Expint, FresnelCos, FresnelSin, Spence))


def log_sigmoid(x, name=None):
    """``tt.math.log_sigmoid``: log(1 / (1 + exp(-x))) = -softplus(-x), stable for large |x| (TensorFlow's)."""
    x = as_tensor(x)
    return ops.negative(ops.softplus(ops.negative(x)))
