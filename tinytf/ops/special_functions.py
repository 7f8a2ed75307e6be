"""Special functions, elementwise: Lgamma, Digamma, Polygamma, Zeta, Erfinv, Ndtri, the modified Bessel
functions BesselI0, BesselI1, BesselI0e, BesselI1e, the regularized incomplete gamma functions Igamma,
Igammac (and IgammaGradA, their derivative in a) and the incomplete beta function Betainc.

    %y = "tf.Lgamma"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    %p = "tf.Igamma"(%a, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>

scipy.special computes them eagerly, jax.scipy.special under XLA (both imported on first use);
half-precision inputs are computed in float32 and rounded. Gradients are TensorFlow's: in the
parameter of Polygamma, Zeta and Betainc (n, x; a, b) there is none.
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Elementwise, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import broadcast_shapes, fmt_shape, same_dtype
from tinytf.ops.op_functions import ops
from tinytf.ops.tensor_inputs import as_tensor
from tinytf.ops.transcendental import log
from tinytf.ops.type_lists import FLOAT, Unary, check_types

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "erfinv", "erfcinv", "ndtri", "bessel_i0", "bessel_i1",
           "bessel_i0e", "bessel_i1e", "igamma", "igammac", "betainc", "lbeta"]

WIDE = frozenset({"float32", "float64"})


def special(xp, fn_name: str, *args):
    """scipy.special.<fn> on numpy, jax.scipy.special.<fn> under JAX (imported late: tinytf stays light)."""
    dtype = args[-1].dtype
    if xp is np:
        import scipy.special

        wide = [a.astype(np.float32) if a.dtype.itemsize < 4 else a for a in args]  # no half loops in scipy
        with np.errstate(all="ignore"):
            return np.asarray(getattr(scipy.special, fn_name)(*wide)).astype(dtype)
    import jax.scipy.special

    return getattr(jax.scipy.special, fn_name)(*args).astype(dtype)


class _Special(Unary):
    """``y = FN(x)`` from scipy.special / jax.scipy.special."""

    TYPES: ClassVar = FLOAT
    FN: ClassVar[str] = ""

    @classmethod
    def compute(cls, xp, x):
        return special(xp, cls.FN, x)


@register
class Lgamma(_Special):
    """log |Gamma(x)|.  %y = "tf.Lgamma"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Lgamma"
    FN: ClassVar[str] = "gammaln"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = lgamma(x): dx = U * digamma(x)
        return [ops.multiply(dy, digamma(op.inputs[0]))]


@register
class Digamma(_Special):
    """psi(x) = d/dx lgamma(x).  %y = "tf.Digamma"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Digamma"
    FN: ClassVar[str] = "digamma"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = digamma(x): dx = U * polygamma(1, x)
        x = op.inputs[0]
        return [ops.multiply(dy, polygamma(ops.scalar_like(x, 1), x))]


@register
class Erfinv(_Special):
    """The inverse of erf on (-1, 1).  %y = "tf.Erfinv"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Erfinv"
    FN: ClassVar[str] = "erfinv"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = erfinv(x): dx = U * sqrt(pi)/2 * exp(y^2)
        return [ops.multiply(ops.multiply(dy, math.sqrt(math.pi) / 2), ops.exp(ops.square(op.outputs[0])))]


@register
class Ndtri(_Special):
    """The inverse of the standard normal CDF.  %y = "tf.Ndtri"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.Ndtri"
    FN: ClassVar[str] = "ndtri"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = ndtri(x): dx = U * sqrt(2 pi) * exp(y^2 / 2)
        y = op.outputs[0]
        return [ops.multiply(ops.multiply(dy, math.sqrt(2 * math.pi)), ops.exp(ops.multiply(ops.square(y), 0.5)))]


@register
class BesselI0(_Special):
    """The modified Bessel function I0.  %y = "tf.BesselI0"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselI0"
    FN: ClassVar[str] = "i0"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = i0(x): dx = U * i1(x)
        return [ops.multiply(dy, bessel_i1(op.inputs[0]))]


@register
class BesselI1(_Special):
    """The modified Bessel function I1.  %y = "tf.BesselI1"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselI1"
    FN: ClassVar[str] = "i1"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = i1(x): dx = U * (i0(x) - y / x), U / 2 at x = 0
        x, y = op.inputs[0], op.outputs[0]
        safe = ops.where(ops.equal(x, ops.scalar_like(x, 0)), ops.scalar_like(x, 1), x)
        slope = ops.where(ops.equal(x, ops.scalar_like(x, 0)), ops.scalar_like(x, 0.5),
                          ops.subtract(bessel_i0(x), ops.divide(y, safe)))
        return [ops.multiply(dy, slope)]


@register
class BesselI0e(_Special):
    """exp(-|x|) I0(x).  %y = "tf.BesselI0e"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselI0e"
    FN: ClassVar[str] = "i0e"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = i0e(x): dx = U * (i1e(x) - sign(x) y)
        x, y = op.inputs[0], op.outputs[0]
        return [ops.multiply(dy, ops.subtract(bessel_i1e(x), ops.multiply(ops.sign(x), y)))]


@register
class BesselI1e(_Special):
    """exp(-|x|) I1(x).  %y = "tf.BesselI1e"(%x) : (tensor<3xf32>) -> tensor<3xf32>"""

    name = "tf.BesselI1e"
    FN: ClassVar[str] = "i1e"

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = i1e(x): dx = U * (i0e(x) - y (sign(x) + 1/x)), U / 2 at 0
        x, y = op.inputs[0], op.outputs[0]
        zero = ops.equal(x, ops.scalar_like(x, 0))
        safe = ops.where(zero, ops.scalar_like(x, 1), x)
        slope = ops.subtract(bessel_i0e(x), ops.multiply(y, ops.add(ops.sign(x), ops.reciprocal(safe))))
        return [ops.multiply(dy, ops.where(zero, ops.scalar_like(x, 0.5), slope))]


class NamedBinary(Op):
    """``z = f(first, second)`` elementwise with broadcasting over ``TYPES``: the base of binary ops whose
    TensorFlow operand names are not (x, y); each declares its two operands (Igamma's ``a``, ``x``), so
    ``tt.raw_ops.Igamma(a=..., x=...)`` takes TensorFlow's keywords."""

    TYPES: ClassVar = WIDE
    z = result_def()
    traits = traits_def(Pure(), Elementwise())

    @classmethod
    def infer(cls, first, second, **attrs):
        dtype = same_dtype(cls.name, first, second)
        check_types(cls.name, first, cls.TYPES)
        return TensorSpec(broadcast_shapes(cls.name, first.shape, second.shape), dtype)


class _SpecialBinary(NamedBinary):
    """``z = FN(a, x)`` with broadcasting, float32/float64."""

    FN: ClassVar[str] = ""

    @classmethod
    def compute(cls, xp, a, x):
        return special(xp, cls.FN, a, x)


@register
class Polygamma(_SpecialBinary):
    """The n-th derivative of digamma (n a whole number).  %z = "tf.Polygamma"(%n, %x) : (...) -> tensor<3xf32>"""

    name = "tf.Polygamma"
    a = operand_def()
    x = operand_def()
    FN: ClassVar[str] = "polygamma"

    @classmethod
    def compute(cls, xp, a, x):
        whole = (a >= 0) & (a == xp.floor(a))
        if xp is np:  # scipy's polygamma truncates n; TensorFlow returns NaN for n that is not a whole number
            n, xs = np.broadcast_arrays(np.where(whole, a, 0), x)
            out = special(np, "polygamma", n, xs)
        else:
            out = special(xp, "polygamma", xp.where(whole, a, 0).astype(np.int32), x)  # JAX's n is an integer
        return xp.where(whole, out, xp.asarray(np.nan, x.dtype))

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = polygamma(n, x): dn = None, dx = U * polygamma(n + 1, x)
        n, x = op.inputs
        return [None, ops.multiply(dz, polygamma(ops.add(n, ops.scalar_like(n, 1)), x))]


@register
class Zeta(_SpecialBinary):
    """The Hurwitz zeta function sum_k (k + q)^-x.  %z = "tf.Zeta"(%x, %q) : (...) -> tensor<3xf32>"""

    name = "tf.Zeta"
    x = operand_def()
    q = operand_def()
    FN: ClassVar[str] = "zeta"

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = zeta(x, q): dx = None, dq = -U * x * zeta(x + 1, q)
        x, q = op.inputs
        return [None, ops.multiply(dz, ops.negative(ops.multiply(x, zeta(ops.add(x, ops.scalar_like(x, 1)), q))))]


def _igamma_partial_x(a, x):
    """d/dx P(a, x) = exp(-x + (a - 1) log x - lgamma(a)), in log space as TensorFlow."""
    return ops.exp(ops.subtract(ops.add(ops.negative(x), ops.multiply(ops.subtract(a, ops.scalar_like(a, 1)),
                                                                      log(x))), lgamma(a)))


@register
class Igamma(_SpecialBinary):
    """The regularized lower incomplete gamma function P(a, x).  %z = "tf.Igamma"(%a, %x) : (...) -> ..."""

    name = "tf.Igamma"
    a = operand_def()
    x = operand_def()
    FN: ClassVar[str] = "gammainc"

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = P(a, x): da = U * IgammaGradA(a, x), dx = U * dP/dx
        a, x = op.inputs
        return [ops.multiply(dz, IgammaGradA.bind(a, x)), ops.multiply(dz, _igamma_partial_x(a, x))]


@register
class Igammac(_SpecialBinary):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).

    %z = "tf.Igammac"(%a, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    """

    name = "tf.Igammac"
    a = operand_def()
    x = operand_def()
    FN: ClassVar[str] = "gammaincc"

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = Q(a, x) = 1 - P(a, x): da = -U dP/da, dx = -U dP/dx
        a, x = op.inputs
        return [ops.negative(ops.multiply(dz, IgammaGradA.bind(a, x))),
                ops.negative(ops.multiply(dz, _igamma_partial_x(a, x)))]


@register
class IgammaGradA(_SpecialBinary):
    """d/da P(a, x).  %z = "tf.IgammaGradA"(%a, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>

    Neither numpy nor scipy has this derivative: eagerly too it is XLA's (``jax.lax.igamma_grad_a``, run
    on the host in the operands' precision), so eager, graph and XLA give the same bits. JAX is imported
    on the first call only (``import tinytf`` stays light).
    """

    name = "tf.IgammaGradA"
    a = operand_def()
    x = operand_def()
    traits = traits_def(Pure(), Elementwise(), NotDifferentiable())  # TensorFlow defines no gradient for it

    @staticmethod
    def compute(xp, a, x):
        import jax

        if xp is not np:
            return jax.lax.igamma_grad_a(a, x)
        with jax.enable_x64(a.dtype == np.float64):
            return np.asarray(jax.lax.igamma_grad_a(a, x), a.dtype)


@register
class Betainc(Op):
    """The regularized incomplete beta function I_x(a, b); a, b and x have one shape or are scalars.

    %z = "tf.Betainc"(%a, %b, %x) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    """

    name = "tf.Betainc"
    a = operand_def()
    b = operand_def()
    x = operand_def()
    z = result_def()
    traits = traits_def(Pure(), Elementwise())

    @classmethod
    def infer(cls, a, b, x):
        dtype = same_dtype(cls.name, a, b, x)
        check_types(cls.name, a, WIDE)
        shapes = [s.shape for s in (a, b, x) if s.shape != ()]
        known = [s for s in shapes if s is not None]
        if not known:
            return TensorSpec(None if shapes else (), dtype)
        out = known[0]
        for s in known[1:]:
            if len(s) != len(out) or any(p is not None and q is not None and p != q for p, q in zip(out, s)):
                raise InvalidArgumentError(f"{cls.name}: shapes of a, b and x must be equal or scalars, got "
                                           f"{', '.join(fmt_shape(t.shape) for t in (a, b, x))}", cls.name)
            out = tuple(q if p is None else p for p, q in zip(out, s))
        return TensorSpec(out, dtype)

    @staticmethod
    def compute(xp, a, b, x):
        return special(xp, "betainc", *xp.broadcast_arrays(a, b, x))

    @staticmethod
    def grad(op, dz):  # Given upstream grad U and z = I_x(a, b): da = db = None, dx = U x^(a-1) (1-x)^(b-1) / B(a, b)
        a, b, x = op.inputs
        one = ops.scalar_like(a, 1)
        log_beta = ops.subtract(ops.add(lgamma(a), lgamma(b)), lgamma(ops.add(a, b)))
        partial = ops.exp(ops.subtract(ops.add(ops.xlog1py(ops.subtract(b, one), ops.negative(x)),
                                               ops.xlogy(ops.subtract(a, one), x)), log_beta))
        return [None, None, ops.multiply(dz, partial)]


def lgamma(x, name=None):
    return Lgamma.bind(x)


def digamma(x, name=None):
    return Digamma.bind(x)


def polygamma(a, x, name=None):
    return Polygamma.bind(a, x)


def zeta(x, q, name=None):
    return Zeta.bind(x, q)


def erfinv(x, name=None):
    return Erfinv.bind(x)


def erfcinv(x, name=None):
    """The inverse of erfc on (0, 2): -ndtri(x / 2) / sqrt(2), as TensorFlow computes it."""
    x = as_tensor(x)
    return ops.multiply(ndtri(ops.multiply(x, ops.scalar_like(x, 0.5))), ops.scalar_like(x, -1 / math.sqrt(2)))


def ndtri(x, name=None):
    return Ndtri.bind(x)


def bessel_i0(x, name=None):
    return BesselI0.bind(x)


def bessel_i1(x, name=None):
    return BesselI1.bind(x)


def bessel_i0e(x, name=None):
    return BesselI0e.bind(x)


def bessel_i1e(x, name=None):
    return BesselI1e.bind(x)


def igamma(a, x, name=None):
    return Igamma.bind(a, x)


def igammac(a, x, name=None):
    return Igammac.bind(a, x)


def betainc(a, b, x, name=None):
    return Betainc.bind(a, b, x)


def lbeta(x, name=None):
    """log |B(x)| over the last axis: sum(lgamma(x)) - lgamma(sum(x)) (0 for an empty last axis)."""
    x = as_tensor(x)
    return ops.subtract(ops.reduce_sum(lgamma(x), -1), lgamma(ops.reduce_sum(x, -1)))


# tf.math.special and tf.math hold these; TensorFlow has no top-level aliases.
__namespaces__ = {n: ("math",) for n in __all__}
