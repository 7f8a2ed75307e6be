"""Permuting dims: Transpose, ConjugateTranspose, and InvertPermutation (which their gradients use).

    %t = "tf.Transpose"(%x, %perm) : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<4x3xf32>
    %h = "tf.ConjugateTranspose"(%z, %perm) : (tensor<3x4xcomplex<f32>>, tensor<2xi32>) -> tensor<4x3xcomplex<f32>>
    %p = "tf.InvertPermutation"(%perm) : (tensor<2xi32>) -> tensor<2xi32>
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.array import constant
from tinytf.ops.operands import (
    check_index,
    const_value,
    folding,
    index_operand,
    is_python_value,
)
from tinytf.ops.shape import rank


def check_permutation(op_name: str, perm, rank: int) -> list[int]:
    """``perm`` as a list of axes in [0, rank) (negative ones count from the end), as TensorFlow."""
    perm = [int(p) for p in np.asarray(perm).reshape(-1)]
    if len(perm) != rank:
        raise InvalidArgumentError(
            f"{op_name}: transpose expects a vector of size {rank}. But input(1) is a vector of size {len(perm)}",
            op_name)
    out = []
    for p in perm:
        if not -rank <= p < rank:
            raise InvalidArgumentError(f"{op_name}: {p} is out of range [0 .. {rank})", op_name)
        out.append(p % rank)
    for d in range(rank):
        if d not in out:
            raise InvalidArgumentError(f"{op_name}: {d} is missing from {{{','.join(map(str, perm))}}}.", op_name)
    return out



@register
class Transpose(Op):
    """Permutes the dims of ``x``: output dim i is input dim perm[i].

    %y = "tf.Transpose"(%x, %perm) : (tensor<3x4xf32>, tensor<2xi32>) -> tensor<4x3xf32>
    """

    name = "tf.Transpose"
    BATCHING: ClassVar[str] = "transpose"
    x = operand_def()
    perm = operand_def()
    y = result_def()

    def verify_ir(self):
        perm, x, y = v.shape(self.perm.type), v.shape(self.x.type), v.shape(self.y.type)
        if perm is not None and len(perm) != 1:
            v.fail(f"expected perm to be a 1-D Tensor, got perm of rank {len(perm)}")
        if x is not None and y is not None and len(x) != len(y):
            v.fail(f"x should be of the same rank with y, got x of rank {len(x)}, and y of rank {len(y)}")
        if x is None or y is None or perm is None or perm[0] is None:
            return
        if len(x) != perm[0]:
            v.fail(f"expected perm to be a 1-D Tensor of size equal to the rank of x, got perm of size {perm[0]}, and "
                   f"x of rank {len(x)}")
        for i, p in enumerate(v.const_ints(self.perm) or ()):
            if not -len(x) <= p < len(x):
                v.fail(f"perm[{i}]={p} must be in range [-{len(x)}, {len(x)})")
            p %= len(x)
            if y[i] is not None and x[p] is not None and y[i] != x[p]:
                v.fail(f"requires y.shape[{i}] ({y[i]}) to be equal to x.shape[perm[{p}]] ({x[p]})")
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, x, perm):
        check_index(cls.name, perm, "perm", rank=1)
        value = const_value(perm)
        rank = x.rank if x.rank is not None else (perm.shape[0] if perm.shape is not None else None)
        if rank is None:
            return TensorSpec(None, x.dtype)
        if value is None:
            if perm.shape is not None and perm.shape[0] not in (None, rank):
                check_permutation(cls.name, [0] * perm.shape[0], rank)  # raises: wrong size
            return TensorSpec((None,) * rank, x.dtype)
        order = check_permutation(cls.name, value, rank)
        if x.shape is None:
            return TensorSpec((None,) * rank, x.dtype)
        return TensorSpec(tuple(x.shape[p] for p in order), x.dtype)

    @classmethod
    def compute(cls, xp, x, perm):
        return xp.transpose(x, check_permutation(cls.name, perm, x.ndim))

    @classmethod
    def kernel_for(cls, operands, constants, **_):  # (static plans: a constant permutation, checked once)
        if 1 not in constants:
            return None
        order, transpose = check_permutation(cls.name, constants[1], len(operands[0][0])), np.transpose
        return (lambda x, perm: transpose(x, order)), 0

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = transpose(x, p): dx = transpose(U, invert_permutation(p))
        return [transpose(dy, invert_permutation(op.inputs[1])), None]


@register
class ConjugateTranspose(Op):
    """Transpose and complex conjugate: output dim i is input dim perm[i], each element conjugated.

    %y = "tf.ConjugateTranspose"(%x, %perm) : (tensor<2x3xcomplex<f32>>, tensor<2xi32>) -> tensor<3x2xcomplex<f32>>
    """

    name = "tf.ConjugateTranspose"
    x = operand_def()
    perm = operand_def()
    y = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, x, perm):
        spec = Transpose.infer(TensorSpec(x.shape, x.dtype), perm)  # (a value is never folded: not integer)
        return TensorSpec(spec.shape, x.dtype)

    @classmethod
    def compute(cls, xp, x, perm):
        return xp.conj(xp.transpose(x, check_permutation(cls.name, perm, x.ndim)))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = conj(transpose(x, p)): dx = conj(transpose(U, inv(p)))
        return [ConjugateTranspose.bind(dy, invert_permutation(op.inputs[1])), None]


def transpose(a, perm=None, conjugate=False, name=None):
    """``tt.transpose``; without ``perm`` the dims are reversed; ``conjugate=True`` conjugates complex
    elements too (tf.ConjugateTranspose)."""
    if is_python_value(a):
        a = constant(a)
    if perm is None:
        known = getattr(a, "shape", None)
        if known is not None and not isinstance(known, tuple | list):
            known = getattr(known, "rank", None) and tuple(known)
        if known is not None:
            perm = list(range(len(known) - 1, -1, -1))
        else:
            from tinytf.ops.math import subtract
            from tinytf.ops.sequences import range as range_

            perm = range_(subtract(rank(a), 1), -1, -1)
    op = ConjugateTranspose if conjugate and a.dtype.is_complex else Transpose
    return op.bind(a, index_operand(perm))


@register
class InvertPermutation(Op):
    """y[x[i]] = i.  %y = "tf.InvertPermutation"(%x) : (tensor<3xi32>) -> tensor<3xi32>"""

    name = "tf.InvertPermutation"
    x = operand_def()
    y = result_def()

    def verify_ir(self):
        r = v.rank(self.x.type)
        if r is not None and r != 1:
            v.fail("requires input x to be 1-dimensional")
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    @folding
    def infer(cls, x):
        check_index(cls.name, x, "x", rank=1)
        value = const_value(x)
        if value is not None:
            cls._check(value)
        return TensorSpec(x.shape, x.dtype)

    @classmethod
    def _check(cls, x):
        n = len(x)
        if sorted(int(v) for v in x) != list(range(n)):
            raise InvalidArgumentError(f"{cls.name}: {list(map(int, x))} is not a valid permutation of 0..{n - 1}",
                                       cls.name)

    @classmethod
    def compute(cls, xp, x):
        return xp.argsort(x).astype(x.dtype)


def invert_permutation(x, name=None):
    return InvertPermutation.bind(index_operand(x))


__namespaces__ = {"invert_permutation": ("math",)}  # where TensorFlow has it (tinytf.runtime.namespaces)


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["transpose", "invert_permutation"]
