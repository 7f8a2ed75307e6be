"""TensorFlow's allowed dtype lists for the math ops, and elementwise bases that check them.

An op names its list (``TYPES = REAL``) and its shape rule rejects any other dtype with an
InvalidArgumentError naming the op, as TensorFlow's ``Value for attr 'T' of int8 is not in the list``.
The lists follow the registered CPU kernels, which are sometimes narrower than the op def
(RealDiv and Reciprocal have no integer kernels).

    class Erf(Unary):
        TYPES: ClassVar = FLOAT      # xDSL accepts a constant on an op class only as an uppercase ClassVar
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from tinytf.errors import InvalidArgumentError
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import BinaryElementwise, UnaryElementwise, broadcast_shapes, same_dtype

FLOAT = frozenset({"float16", "bfloat16", "float32", "float64"})
COMPLEX = frozenset({"complex64", "complex128"})
SIGNED = frozenset({"int8", "int16", "int32", "int64"})
UNSIGNED = frozenset({"uint8", "uint16", "uint32", "uint64"})
INT = SIGNED | UNSIGNED
FLOAT_COMPLEX = FLOAT | COMPLEX
REAL = FLOAT | INT                     # Maximum, Less, FloorMod, Max, ArgMax, ...
NUMBER = REAL | COMPLEX                # AddV2, Mul, Sum, ...
SIGNED_NUMBER = FLOAT | SIGNED | COMPLEX  # Neg, Sign, Pow
BOOL = frozenset({"bool"})


def check_types(op_name: str, spec: TensorSpec, allowed: frozenset, what: str = "input"):
    """``spec.dtype`` when it is in ``allowed``, else InvalidArgumentError naming op and dtype."""
    if spec.dtype.name not in allowed:
        raise InvalidArgumentError(
            f"{op_name}: {what} of dtype {spec.dtype.name} is not supported "
            f"(allowed: {', '.join(sorted(allowed))})", op_name)
    return spec.dtype


def is_numpy(xp) -> bool:
    """True when running eagerly on numpy (where kernels may raise on bad data), not under JAX."""
    return xp is np


class Unary(UnaryElementwise):
    """``y = f(x)`` elementwise over the dtypes in ``TYPES``."""

    TYPES: ClassVar[frozenset] = FLOAT_COMPLEX

    @classmethod
    def infer(cls, x, **attrs):
        check_types(cls.name, x, cls.TYPES)
        return x


class Binary(BinaryElementwise):
    """``z = f(x, y)`` elementwise with broadcasting over the dtypes in ``TYPES``."""

    TYPES: ClassVar[frozenset] = NUMBER
    EXACT_UFUNC: ClassVar = None  # the numpy ufunc that is compute for every dtype (np.less), where one is

    @classmethod
    def infer(cls, x, y, **attrs):
        dtype = same_dtype(cls.name, x, y)
        check_types(cls.name, x, cls.TYPES)
        return TensorSpec(broadcast_shapes(cls.name, x.shape, y.shape), dtype)

    @classmethod
    def kernel_for(cls, operands, constants, **attrs):
        """The bare ufunc for checked integer and bool operands (a loop's counter and its bounds), and for floats
        where no forwarding kernel writes the result into a dying operand."""
        ufunc = cls.EXACT_UFUNC
        if ufunc is None or any(dtype.kind not in "biuf" for _, dtype in operands):
            return None
        if any(dtype.kind == "f" for _, dtype in operands) and (getattr(cls, "UFUNC", None) is not None or
                                                                 getattr(cls, "compute_into", None) is not None):
            return None
        (x, dtype), (y, _) = operands
        return ufunc, int(np.prod(np.broadcast_shapes(x, y))) * ufunc.resolve_dtypes((dtype, dtype, None))[2].itemsize
