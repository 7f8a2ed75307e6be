"""Scans: Cumsum, the running sum along an axis operand.

    %o = "tf.Cumsum"(%x, %axis) <{exclusive = false, reverse = false}> : (tensor<3x4xf32>, tensor<i32>) -> tensor<3x4xf32>

The axis is a scalar int32/int64 operand (a constant under XLA); integer sums wrap in their dtype.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape
from tinytf.ops.reduction import INDEX_TYPES, index_constant
from tinytf.ops.type_lists import NUMBER, check_types


class Scan(Op):
    """A running reduction along the ``axis`` operand: subclasses give ``_scan(xp, x, axis)`` and the
    ``_identity`` an exclusive scan starts from (cumulative.py's Cumprod and CumulativeLogsumexp too)."""

    x = operand_def()
    axis = operand_def()
    out = result_def()
    exclusive = attr(False)
    reverse = attr(False)
    traits = traits_def(Pure())

    TYPES: ClassVar = NUMBER

    @classmethod
    def infer(cls, x, axis, *, exclusive=False, reverse=False):
        check_types(cls.name, x, cls.TYPES)
        check_types(cls.name, axis, INDEX_TYPES, "axis")
        if axis.shape not in (None, ()):
            raise InvalidArgumentError(f"{cls.name}: ScanOp: axis must be a scalar, not {fmt_shape(axis.shape)}",
                                       cls.name)
        if axis.value is not None and x.shape is not None:
            cls._axis(int(np.asarray(axis.value)), len(x.shape))
        return x

    @classmethod
    def _axis(cls, axis, rank):
        if not -rank <= axis < rank:
            raise InvalidArgumentError(
                f"{cls.name}: ScanOp: Expected scan axis in the range [{-rank}, {rank}), but got {axis}", cls.name)
        return axis % rank

    @classmethod
    @np.errstate(all="ignore")
    def compute(cls, xp, x, axis, *, exclusive=False, reverse=False):
        if np.ndim(axis) != 0:
            raise InvalidArgumentError(f"{cls.name}: ScanOp: axis must be a scalar, not {list(np.shape(axis))}",
                                       cls.name)
        a = cls._axis(int(axis), x.ndim)
        if reverse:
            x = xp.flip(x, a)
        out = cls._scan(xp, x, a)
        if exclusive:  # shift by one: [identity, s0, s1, ...]
            first = xp.full(x.shape[:a] + (min(1, x.shape[a]),) + x.shape[a + 1:], cls._identity(x.dtype), x.dtype)
            out = xp.concatenate([first, xp.take(out, np.arange(x.shape[a] - 1), axis=a)], axis=a)
        return xp.flip(out, a) if reverse else out


@register
class Cumsum(Scan):
    """Running sum along ``axis``; ``exclusive`` starts at 0, ``reverse`` runs from the end.

    %o = "tf.Cumsum"(%x, %axis) <{exclusive = false, reverse = false}> : (tensor<3x4xf32>, tensor<i32>) -> tensor<3x4xf32>
    """

    name = "tf.Cumsum"
    verify_ir = v.check_cumulative

    @staticmethod
    def _scan(xp, x, a):
        out = xp.cumsum(x, axis=a, dtype=x.dtype)
        return out if x.dtype.kind in "iub" else out + xp.zeros((), x.dtype)  # TF's running sum starts at +0: never -0.0

    @staticmethod
    def _identity(dtype):
        return 0

    @staticmethod
    def grad(op, dout):  # Given upstream grad U and y = cumsum(x): dx = cumsum(U) in the other direction
        return [Cumsum.bind(dout, op.inputs[1], exclusive=op.attrs["exclusive"], reverse=not op.attrs["reverse"]),
                None]


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    return Cumsum.bind(x, index_constant(axis), exclusive=bool(exclusive), reverse=bool(reverse))


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["cumsum"]
