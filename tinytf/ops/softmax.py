"""Softmax ops: Softmax, LogSoftmax and the two softmax cross-entropy ops, with tf.nn.softmax and friends.

    %y = "tf.Softmax"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %loss, %backprop = "tf.SparseSoftmaxCrossEntropyWithLogits"(%f, %l)
        : (tensor<4x5xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4x5xf32>)

Each op normalises over the last axis; the public functions move another ``axis`` last (transpose) or
flatten leading dims (reshape) around it. Gradients find multiply, reduce_sum, ... by name (``_ops``).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import broadcast_shapes, check_dtype, fmt_shape, normalize_axis, same_dtype
from tinytf.ops.op_functions import ops as _ops

__all__ = ["softmax", "log_softmax", "sparse_softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits"]


class _LastAxis(Op):
    """A normalisation over the last axis of a tensor of rank >= 1."""

    logits = operand_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, logits):
        check_dtype(cls.name, logits, "f")
        if logits.shape is not None and len(logits.shape) < 1:
            raise InvalidArgumentError(f"{cls.name}: logits must have >= 1 dimension, got {fmt_shape(logits.shape)}",
                                       cls.name)
        return logits


def _row_max(xp, x):
    return xp.max(x, axis=-1, keepdims=True, initial=-np.inf)  # (initial: a 0-length last axis has no max)


def _log_softmax(xp, x):
    shifted = x - _row_max(xp, x)
    with np.errstate(divide="ignore", invalid="ignore"):  # -inf and NaN rows give NaN silently, as in TensorFlow
        return shifted - xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))


def _softmax(xp, x):
    with np.errstate(invalid="ignore"):
        e = xp.exp(x - _row_max(xp, x))
        return e / xp.sum(e, axis=-1, keepdims=True)


@register
class Softmax(_LastAxis):
    """exp(x) / sum(exp(x)) over the last axis.  %y = "tf.Softmax"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>"""

    name = "tf.Softmax"

    def verify_ir(self):
        if not v.rank_at_least(self.logits.type, 1):
            v.fail("requires operand to have rank at least 1")
    BATCHING: ClassVar[str] = "leading_axes"
    softmax = result_def()

    @staticmethod
    def compute(xp, logits):
        return _softmax(xp, logits)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = softmax(x): dx = (U - sum(U * y, -1)) * y
        m, y = _ops, op.outputs[0]
        return [m.multiply(m.subtract(dy, _sum_last(m.multiply(dy, y))), y)]


@register
class LogSoftmax(_LastAxis):
    """x - log(sum(exp(x))) over the last axis.  %y = "tf.LogSoftmax"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>"""

    name = "tf.LogSoftmax"
    BATCHING: ClassVar[str] = "leading_axes"
    logsoftmax = result_def()

    @staticmethod
    def compute(xp, logits):
        return _log_softmax(xp, logits)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = log_softmax(x): dx = U - sum(U, -1) * exp(y)
        m = _ops
        return [m.subtract(dy, m.multiply(_sum_last(dy), m.exp(op.outputs[0])))]


def _sum_last(x):
    return _ops.reduce_sum(x, axis=-1, keepdims=True)


def _xent_grad(op, dloss, dbackprop):
    """The logits gradient shared by both cross-entropy ops (TensorFlow's _BroadcastMul and grad-grad term)."""
    m = _ops
    dlogits = m.multiply(m.expand_dims(dloss, -1), op.outputs[1])
    if dbackprop is not None:  # second order: backprop = softmax(logits) - labels also depends on logits
        y = Softmax.bind(op.inputs[0])
        dlogits = m.add(dlogits, m.multiply(m.subtract(dbackprop, _sum_last(m.multiply(dbackprop, y))), y))
    return dlogits


@register
class SparseSoftmaxCrossEntropyWithLogits(Op):
    """Per-row cross-entropy of softmax(features) against integer class labels, and its gradient.

    %loss, %backprop = "tf.SparseSoftmaxCrossEntropyWithLogits"(%f, %l)
        : (tensor<4x5xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4x5xf32>)
    """

    name = "tf.SparseSoftmaxCrossEntropyWithLogits"
    BATCHING: ClassVar[str] = "fold"
    FOLD_TILED: ClassVar[tuple] = (1,)  # the labels go along with the folded batch
    features = operand_def()
    labels = operand_def()
    loss = result_def()
    backprop = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        if not v.has_rank(self.features.type, 2):
            v.fail("requires features operand of rank two")
        if not v.has_rank(self.labels.type, 1):
            v.fail("requires labels operand of rank one")
        features, labels = v.shape(self.features.type), v.shape(self.labels.type)
        if features is not None and labels is not None and None not in (features[0], labels[0]) \
                and features[0] != labels[0]:
            v.fail("requires features and labels with matching first dimension")

    @classmethod
    def infer(cls, features, labels):
        dtype = check_dtype(cls.name, features, "f", "features")
        check_dtype(cls.name, labels, "i", "labels")
        f, lab = features.shape, labels.shape
        if f is not None and len(f) != 2:
            raise InvalidArgumentError(f"{cls.name}: logits must be 2-D, but got shape {fmt_shape(f)}", cls.name)
        if lab is not None and len(lab) != 1:
            raise InvalidArgumentError(f"{cls.name}: labels must be 1-D, but got shape {fmt_shape(lab)}", cls.name)
        if f is not None and lab is not None and None not in (f[0], lab[0]) and f[0] != lab[0]:
            raise InvalidArgumentError(
                f"{cls.name}: logits and labels must have the same first dimension, got logits shape "
                f"{fmt_shape(f)} and labels shape {fmt_shape(lab)}", cls.name)
        batch = f[0] if f is not None and f[0] is not None else (lab[0] if lab is not None else None)
        classes = f[1] if f is not None else None
        return [TensorSpec((batch,), dtype), TensorSpec((batch, classes), dtype)]

    @classmethod
    def compute(cls, xp, features, labels):
        classes = features.shape[-1]
        valid = (labels >= 0) & (labels < classes)
        if isinstance(labels, np.ndarray):  # eager: TensorFlow's CPU kernel rejects bad labels
            if not valid.all():
                bad = labels[~valid][0]
                raise InvalidArgumentError(
                    f"{cls.name}: Received a label value of {bad} which is outside the valid range of "
                    f"[0, {classes}).  Label values: {' '.join(str(v) for v in labels.ravel()[:100])}", cls.name)
        log_p = _log_softmax(xp, features)
        onehot = labels[:, None] == xp.arange(classes, dtype=labels.dtype)
        loss = -xp.sum(xp.where(onehot, log_p, xp.zeros((), log_p.dtype)), axis=-1)
        backprop = xp.exp(log_p) - onehot.astype(features.dtype)
        nan = xp.asarray(np.nan, features.dtype)  # under XLA bad labels give NaN, as on TensorFlow's GPU
        return xp.where(valid, loss, nan), xp.where(valid[:, None], backprop, nan)

    @staticmethod
    def grad(op, dloss, dbackprop=None):  # Given upstream grad U and loss = xent(f, l): df = U[:, None] * backprop
        return [_xent_grad(op, dloss, dbackprop), None]


@register
class SoftmaxCrossEntropyWithLogits(Op):
    """Per-row cross-entropy of softmax(features) against a label distribution; the two broadcast.

    %loss, %backprop = "tf.SoftmaxCrossEntropyWithLogits"(%f, %l)
        : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4xf32>, tensor<4x5xf32>)
    """

    name = "tf.SoftmaxCrossEntropyWithLogits"
    BATCHING: ClassVar[str] = "fold"
    FOLD_TILED: ClassVar[tuple] = (1,)  # the labels go along with the folded batch
    features = operand_def()
    labels = operand_def()
    loss = result_def()
    backprop = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        both = v.broadcast_shape(v.shape(self.features.type), v.shape(self.labels.type))
        if both is False or (both is not None and len(both) != 2):
            v.fail("requires features and labels to be broadcast compatible to rank two")

    @classmethod
    def infer(cls, features, labels):
        dtype = check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, features, labels)), "f")
        for what, spec in (("logits", features), ("labels", labels)):
            if spec.shape is not None and len(spec.shape) != 2:
                raise InvalidArgumentError(
                    f"{cls.name}: {what} must be 2-dimensional, but got shape {fmt_shape(spec.shape)}", cls.name)
        shape = broadcast_shapes(cls.name, features.shape, labels.shape)
        if shape is None:
            return [TensorSpec((None,), dtype), TensorSpec((None, None), dtype)]
        return [TensorSpec(shape[:1], dtype), TensorSpec(shape, dtype)]

    @staticmethod
    def compute(xp, features, labels):
        log_p = _log_softmax(xp, features)
        labels = xp.broadcast_to(labels, xp.broadcast_shapes(features.shape, labels.shape))
        loss = -xp.sum(labels * log_p, axis=-1)
        return loss, xp.exp(log_p) - labels

    @staticmethod
    def grad(op, dloss, dbackprop=None):  # Given upstream grad U: df = U[:, None] * backprop, dl = -U[:, None] * log_softmax(f)
        m = _ops
        dlabels = m.multiply(m.expand_dims(dloss, -1), m.negative(LogSoftmax.bind(op.inputs[0])))
        if dbackprop is not None:  # backprop = softmax - labels (TensorFlow drops this second-order term)
            dlabels = m.subtract(dlabels, dbackprop)
        return [_xent_grad(op, dloss, dbackprop), dlabels]


def _move_axis_last(x, axis, rank):
    """(transposed x, inverse permutation), or (x, None) when axis already is the last one."""
    axis = axis % rank
    if axis == rank - 1:
        return x, None
    perm = [i for i in range(rank) if i != axis] + [axis]
    inverse = [perm.index(i) for i in range(rank)]
    return _ops.transpose(x, perm), inverse


def _rank(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    return getattr(shape, "rank", None) if not isinstance(shape, tuple | list) else len(shape)


def softmax(logits, axis=None, name=None):
    return _along_axis(Softmax, logits, -1 if axis is None else axis)


def log_softmax(logits, axis=None, name=None):
    return _along_axis(LogSoftmax, logits, -1 if axis is None else axis)


def _along_axis(cls, logits, axis):
    rank = _rank(logits)
    if axis in (-1, None) or rank is None:
        return cls.bind(logits)
    normalize_axis(cls.name, axis, rank)
    x, inverse = _move_axis_last(logits, axis, rank)
    y = cls.bind(x)
    if inverse is None:
        return y
    return _ops.transpose(y, inverse)


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Per-example loss; labels have the shape of logits without the last axis."""
    rank = _rank(logits)
    if rank == 2:
        return SparseSoftmaxCrossEntropyWithLogits.bind(logits, labels)[0]
    if rank is None or rank < 1:
        raise InvalidArgumentError(f"{SparseSoftmaxCrossEntropyWithLogits.name}: logits must have rank >= 1",
                                   SparseSoftmaxCrossEntropyWithLogits.name)
    shape = tuple(logits.shape)
    loss = SparseSoftmaxCrossEntropyWithLogits.bind(_ops.reshape(logits, [-1, shape[-1]]), _ops.reshape(labels, [-1]))[0]
    return _ops.reshape(loss, list(shape[:-1]))


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Per-example loss of a label distribution along ``axis``; gradients flow into both."""
    rank = _rank(logits)
    if rank == 2 and axis in (-1, 1):
        return SoftmaxCrossEntropyWithLogits.bind(logits, labels)[0]
    if rank is None or rank < 1:
        raise InvalidArgumentError(f"{SoftmaxCrossEntropyWithLogits.name}: logits must have rank >= 1",
                                   SoftmaxCrossEntropyWithLogits.name)
    normalize_axis(SoftmaxCrossEntropyWithLogits.name, axis, rank)
    logits, _ = _move_axis_last(logits, axis, rank)
    labels, _ = _move_axis_last(labels, axis, rank)
    shape = tuple(logits.shape)
    loss = SoftmaxCrossEntropyWithLogits.bind(_ops.reshape(logits, [-1, shape[-1]]), _ops.reshape(labels, [-1, shape[-1]]))[0]
    return _ops.reshape(loss, list(shape[:-1]))
