"""Scans beside Cumsum (scan.py): Cumprod, the running product, and CumulativeLogsumexp, the running
log(sum(exp(x))), along an axis operand, with TensorFlow's ``exclusive`` and ``reverse``.

    %o = "tf.Cumprod"(%x, %axis) <{exclusive = false, reverse = false}> : (tensor<3x4xf32>, tensor<i32>) -> tensor<3x4xf32>

An exclusive scan starts from the identity (1; -inf for the log-sum-exp). The axis must be a
constant under XLA.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from tinytf.framework.op import register
from tinytf.ops import verifiers as v
from tinytf.ops.op_functions import ops
from tinytf.ops.reduction import index_constant
from tinytf.ops.scan import Scan
from tinytf.ops.transcendental import log
from tinytf.ops.type_lists import FLOAT

__all__ = ["cumprod", "cumulative_logsumexp"]


@register
class Cumprod(Scan):
    """Running product along ``axis`` (integers wrap).

    %o = "tf.Cumprod"(%x, %axis) <{exclusive = false, reverse = false}> : (tensor<3x4xf32>, tensor<i32>) -> tensor<3x4xf32>
    """

    name = "tf.Cumprod"
    verify_ir = v.check_cumulative

    @staticmethod
    def _scan(xp, x, a):
        return xp.cumprod(x, axis=a, dtype=x.dtype)

    @staticmethod
    def _identity(dtype):
        return 1

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = cumprod(x): dx = cumsum(y U, other direction) / x (0 where x = 0)
        x, axis = op.inputs
        exclusive, reverse = op.attrs["exclusive"], op.attrs["reverse"]
        prod = Cumprod.bind(x, axis, exclusive=exclusive, reverse=reverse)
        out = ops.cumsum(ops.multiply(prod, dy), axis, exclusive=exclusive, reverse=not reverse)
        return [ops.div_no_nan(out, x), None]


@register
class CumulativeLogsumexp(Scan):
    """Running log(sum(exp(x))) along ``axis``, computed stably.

    %o = "tf.CumulativeLogsumexp"(%x, %axis) <{exclusive = false, reverse = false}> : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
    """

    name = "tf.CumulativeLogsumexp"
    verify_ir = v.check_cumulative
    TYPES: ClassVar = FLOAT

    @staticmethod
    def _scan(xp, x, a):
        if xp is np:
            wide = x.astype(np.float32) if x.dtype.itemsize < 4 else x
            return np.logaddexp.accumulate(wide, axis=a).astype(x.dtype)
        import jax

        return jax.lax.cumlogsumexp(x, axis=a)

    @staticmethod
    def _identity(dtype):
        return -np.inf

    @staticmethod
    def grad(op, dy):
        # Given upstream grad U and y = cumlogsumexp(x): dx = exp(cumlogsumexp(log U+ - y, other direction) + x)
        # - (the same for U-); U split by sign so that its logs exist, as TensorFlow does
        x, axis = op.inputs
        y = op.outputs[0]
        exclusive, reverse = op.attrs["exclusive"], op.attrs["reverse"]
        lowest = ops.scalar_like(dy, float(np.finfo(dy.dtype.np).min))
        zero = ops.scalar_like(dy, 0)
        log_pos = ops.where(ops.greater(dy, zero), log(ops.maximum(dy, ops.scalar_like(dy, 1e-38))), lowest)
        log_neg = ops.where(ops.less(dy, zero), log(ops.maximum(ops.negative(dy), ops.scalar_like(dy, 1e-38))),
                            lowest)

        def side(log_g):
            scanned = CumulativeLogsumexp.bind(ops.subtract(log_g, y), axis, exclusive=exclusive, reverse=not reverse)
            return ops.exp(ops.add(scanned, x))

        return [ops.subtract(side(log_pos), side(log_neg)), None]


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    return Cumprod.bind(x, index_constant(axis), exclusive=bool(exclusive), reverse=bool(reverse))


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    return CumulativeLogsumexp.bind(x, index_constant(axis), exclusive=bool(exclusive), reverse=bool(reverse))


__namespaces__ = {"cumprod": ("math",), "cumulative_logsumexp": ("math",)}
