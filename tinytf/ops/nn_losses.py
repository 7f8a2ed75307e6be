"""tf.nn's losses: the L2Loss op, and the sigmoid / weighted cross entropies and the Poisson loss as
composites written as TensorFlow writes them (tensorflow/python/ops/nn_impl.py), in their stable forms.

    %l = "tf.L2Loss"(%t) : (tensor<3x4xf32>) -> tensor<f32>        // sum(t ** 2) / 2

The softmax cross entropies are ops of their own, in softmax.py.
"""
from __future__ import annotations

import math

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import check_dtype, fmt_shape
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["l2_loss", "sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits", "log_poisson_loss"]


@register
class L2Loss(Op):
    """sum(t ** 2) / 2, a scalar of t's dtype.  %l = "tf.L2Loss"(%t) : (tensor<3x4xf32>) -> tensor<f32>"""

    name = "tf.L2Loss"
    t = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, t):
        return TensorSpec((), check_dtype(cls.name, t, "f"))

    @staticmethod
    def compute(xp, t):
        wide = t.astype(xp.float32) if t.dtype.itemsize < 4 else t  # half precision sums in float32, as TF's kernel
        return (xp.sum(wide * wide) / 2).astype(t.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and l = sum(t^2) / 2: dt = t * U
        return [_ops.multiply(op.inputs[0], dy)]


def l2_loss(t, name=None):
    return L2Loss.bind(t)


def _same_shape(fn: str, labels, logits):
    a, b = static_dims(labels), static_dims(logits)
    if a is not None and b is not None and (len(a) != len(b) or any(
            x is not None and y is not None and x != y for x, y in zip(a, b, strict=True))):
        raise InvalidArgumentError(
            f"{fn}: logits and labels must have the same shape, got logits {fmt_shape(b)} and labels "
            f"{fmt_shape(a)}", fn)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x and labels z (no overflow for large |x|)."""
    m = _ops
    if labels is None or logits is None:
        raise InvalidArgumentError("sigmoid_cross_entropy_with_logits: both labels and logits are required",
                                   "sigmoid_cross_entropy_with_logits")
    logits = as_tensor(logits)
    labels = m.cast(labels, logits.dtype)
    _same_shape("sigmoid_cross_entropy_with_logits", labels, logits)
    zeros = m.zeros_like(logits)
    positive = m.greater_equal(logits, zeros)
    relu_logits = m.where(positive, logits, zeros)
    neg_abs_logits = m.where(positive, m.negative(logits), logits)
    return m.add(m.subtract(relu_logits, m.multiply(logits, labels)), m.log1p(m.exp(neg_abs_logits)))


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """The sigmoid cross entropy with the positive term weighted by ``pos_weight``:
    (1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0))."""
    m = _ops
    logits = as_tensor(logits)
    labels = m.cast(labels, logits.dtype)
    _same_shape("weighted_cross_entropy_with_logits", labels, logits)
    log_weight = m.add(1.0, m.multiply(m.subtract(m.cast(pos_weight, logits.dtype), 1.0), labels))
    softplus_neg = m.add(m.log1p(m.exp(m.negative(m.abs(logits)))), m.relu(m.negative(logits)))
    return m.add(m.multiply(m.subtract(1.0, labels), logits), m.multiply(log_weight, softplus_neg))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(c) - z * c for log-rates c and targets z; with ``compute_full_loss`` Stirling's approximation
    of log(z!) (z * log(z) - z + 0.5 * log(2 pi z)) is added where z > 1."""
    m = _ops
    log_input = as_tensor(log_input)
    targets = m.cast(targets, log_input.dtype)
    _same_shape("log_poisson_loss", targets, log_input)
    result = m.subtract(m.exp(log_input), m.multiply(log_input, targets))
    if not compute_full_loss:
        return result
    stirling = m.add(m.subtract(m.multiply(targets, m.log(targets)), targets),
                     m.multiply(0.5, m.log(m.multiply(2.0 * math.pi, targets))))
    zeros = m.zeros_like(targets)
    in_unit = m.logical_and(m.greater_equal(targets, zeros), m.less_equal(targets, m.ones_like(targets)))
    return m.add(result, m.where(in_unit, zeros, stirling))
