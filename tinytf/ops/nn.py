"""Neural-network ops: BiasAdd, the activations (Relu, Relu6, Elu, Selu, Softplus, LeakyRelu) and their
gradient ops, Softmax, LogSoftmax and the two softmax cross-entropy ops; ``gelu`` is a composite.

    %y = "tf.LeakyRelu"(%x) <{alpha = 2.000000e-01 : f32}> : (tensor<2xf32>) -> tensor<2xf32>
    %loss, %backprop = "tf.SparseSoftmaxCrossEntropyWithLogits"(%f, %l)
        : (tensor<4x5xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4x5xf32>)

Gradients that need other op families (multiply, reduce_sum, ...) import them when they run.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Elementwise, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import broadcast_shapes, check_dtype, fmt_shape, normalize_axis, same_dtype


@register
class BiasAdd(Op):
    """value + bias along the channel dim (last for NHWC, dim 1 for NCHW).

    %y = "tf.BiasAdd"(%x, %b) <{data_format = "NHWC"}> : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "tf.BiasAdd"
    value = operand_def()
    bias = operand_def()
    output = result_def()
    data_format = attr("NHWC")
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, value, bias, *, data_format):
        dtype = same_dtype(cls.name, value, bias)
        if data_format not in ("NHWC", "NCHW"):
            raise InvalidArgumentError(f"{cls.name}: unknown data_format '{data_format}'", cls.name)
        if value.shape is not None and bias.shape is not None:
            channel = cls._channel_axis(len(value.shape), data_format)
            if len(value.shape) < 2 or len(bias.shape) != 1 or value.shape[channel] not in (None, bias.shape[0]) \
                    and bias.shape[0] is not None:
                raise InvalidArgumentError(
                    f"{cls.name}: bias {fmt_shape(bias.shape)} does not match the channels of "
                    f"value {fmt_shape(value.shape)} ({data_format})", cls.name)
        return TensorSpec(value.shape, dtype)

    @staticmethod
    def _channel_axis(rank: int, data_format: str) -> int:
        return 1 if data_format == "NCHW" and rank > 2 else rank - 1

    @classmethod
    def compute(cls, xp, value, bias, *, data_format):
        axis = cls._channel_axis(value.ndim, data_format)
        return value + bias.reshape((-1,) + (1,) * (value.ndim - 1 - axis))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x + b: dx = U, db = U summed over all but channels
        return [dy, BiasAddGrad.bind(dy, data_format=op.attrs["data_format"])]


@register
class BiasAddGrad(Op):
    """The bias gradient: out_backprop summed over every dim but the channel dim."""

    name = "tf.BiasAddGrad"
    out_backprop = operand_def()
    output = result_def()
    data_format = attr("NHWC")
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, out_backprop, *, data_format):
        shape = out_backprop.shape
        if shape is not None and len(shape) < 2:
            raise InvalidArgumentError(f"{cls.name}: input must be at least 2-D, got {fmt_shape(shape)}", cls.name)
        channels = None if shape is None else shape[BiasAdd._channel_axis(len(shape), data_format)]
        return TensorSpec((channels,), out_backprop.dtype)

    @staticmethod
    def compute(xp, out_backprop, *, data_format):
        axis = BiasAdd._channel_axis(out_backprop.ndim, data_format)
        return out_backprop.sum(axis=tuple(i for i in range(out_backprop.ndim) if i != axis))

    @staticmethod
    def grad(op, dbias):  # Given upstream grad U and b = sum(y): dy = U broadcast along the channel dim
        return [BiasAdd.bind(_ops.zeros_like(op.inputs[0]), dbias, data_format=op.attrs["data_format"])]


def bias_add(value, bias, data_format=None, name=None):
    return BiasAdd.bind(value, bias, data_format=data_format or "NHWC")


class _Activation(Op):
    """activations = f(features), elementwise (TensorFlow's operand and result names)."""

    features = operand_def()
    activations = result_def()
    traits = traits_def(Pure(), Elementwise())

    @staticmethod
    def kinds() -> str:
        return "f"

    @classmethod
    def infer(cls, features, **attrs):
        check_dtype(cls.name, features, cls.kinds())
        return features


@register
class Relu(_Activation):
    """max(x, 0).  %y = "tf.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Relu"

    @staticmethod
    def kinds() -> str:
        return "fiu"

    @staticmethod
    def compute(xp, x):
        return xp.maximum(x, xp.zeros((), x.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = relu(x): dx = dy where y > 0 (0 at x = 0)
        return [ReluGrad.bind(dy, op.outputs[0])]


def relu(features, name=None):
    return Relu.bind(features)


@register
class ReluGrad(Op):
    """gradients where features > 0, else 0 (the gradient of Relu)."""

    name = "tf.ReluGrad"
    gradients = operand_def()
    features = operand_def()
    backprops = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, gradients, features):
        same_dtype(cls.name, gradients, features)
        return gradients

    @staticmethod
    def compute(xp, gradients, features):
        return xp.where(features > 0, gradients, xp.zeros((), gradients.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * (f > 0): dg = U * (f > 0), df = 0
        return [ReluGrad.bind(dy, op.inputs[1]), None]


# --- activations -------------------------------------------------------------------------------
# TensorFlow's kernels (tensorflow/core/kernels/relu_op_functor.h, softplus_op.h); each gradient op
# takes (gradients, x) where x is the forward op's input, or its output for Elu and Selu.

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _zero(xp, x):
    return xp.zeros((), x.dtype)


@register
class Relu6(_Activation):
    """min(max(x, 0), 6).  %y = "tf.Relu6"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Relu6"

    @staticmethod
    def kinds() -> str:
        return "fiu"

    @staticmethod
    def compute(xp, x):
        return xp.minimum(xp.maximum(x, _zero(xp, x)), xp.asarray(6, x.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = relu6(x): dx = U where 0 < x < 6
        return [Relu6Grad.bind(dy, op.inputs[0])]


@register
class Elu(_Activation):
    """x if x > 0 else exp(x) - 1.  %y = "tf.Elu"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Elu"

    @staticmethod
    def kinds() -> str:
        return "f"

    @staticmethod
    def compute(xp, x):
        return xp.where(x < 0, xp.expm1(xp.minimum(x, _zero(xp, x))), x)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = elu(x): dx = U * (y + 1) where y < 0, else U
        return [EluGrad.bind(dy, op.outputs[0])]


@register
class Selu(_Activation):
    """scale * (x if x > 0 else alpha * (exp(x) - 1)).  %y = "tf.Selu"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Selu"

    @staticmethod
    def kinds() -> str:
        return "f"

    @staticmethod
    def compute(xp, x):
        neg = xp.expm1(xp.minimum(x, _zero(xp, x))) * xp.asarray(_SELU_SCALE * _SELU_ALPHA, x.dtype)
        return xp.where(x < 0, neg, x * xp.asarray(_SELU_SCALE, x.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = selu(x): dx = U * (y + scale*alpha) where y < 0, else U * scale
        return [SeluGrad.bind(dy, op.outputs[0])]


@register
class Softplus(_Activation):
    """log(1 + exp(x)), without overflow.  %y = "tf.Softplus"(%x) : (tensor<2xf32>) -> tensor<2xf32>"""

    name = "tf.Softplus"

    @staticmethod
    def kinds() -> str:
        return "f"

    @staticmethod
    def compute(xp, x):
        # TensorFlow's thresholds: beyond them softplus(x) is x (or exp(x)) to machine precision.
        threshold = float(np.log(float(ml_dtypes.finfo(x.dtype).eps))) + 2.0
        e = xp.exp(xp.minimum(x, xp.asarray(-threshold, x.dtype)))  # finite in the branch not taken
        return xp.where(x > -threshold, x, xp.where(x < threshold, e, xp.log1p(e)))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = softplus(x): dx = U * sigmoid(x)
        return [SoftplusGrad.bind(dy, op.inputs[0])]


@register
class LeakyRelu(_Activation):
    """x if x > 0 else alpha * x.

    %y = "tf.LeakyRelu"(%x) <{alpha = 2.000000e-01 : f32}> : (tensor<2xf32>) -> tensor<2xf32>
    """

    name = "tf.LeakyRelu"
    alpha = attr(0.2)

    @staticmethod
    def kinds() -> str:
        return "f"

    @staticmethod
    def compute(xp, x, *, alpha):
        return xp.where(x > 0, x, x * _alpha(xp, alpha, x))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = leaky_relu(x): dx = U where x > 0, else alpha * U
        return [LeakyReluGrad.bind(dy, op.inputs[0], alpha=op.attrs["alpha"])]


def _alpha(xp, alpha, x):
    return xp.asarray(np.float32(alpha), x.dtype)  # the attribute is an f32, as in TensorFlow


class _ActivationGrad(Op):
    """backprops = f(gradients, x), elementwise; both operands share a shape and dtype."""

    backprops = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, gradients, features, **attrs):
        check_dtype(cls.name, TensorSpec(None, same_dtype(cls.name, gradients, features)), "fiu")
        if gradients.shape is not None and features.shape is not None and \
                not TensorSpec(gradients.shape).is_compatible_with(features.shape):
            raise InvalidArgumentError(
                f"{cls.name}: gradients {fmt_shape(gradients.shape)} and features {fmt_shape(features.shape)} "
                "must have the same shape", cls.name)
        return gradients if gradients.shape is not None else features


class _GradOfFeatures(_ActivationGrad):
    gradients = operand_def()
    features = operand_def()  # the forward op's input


class _GradOfOutputs(_ActivationGrad):
    gradients = operand_def()
    outputs = operand_def()  # the forward op's output


@register
class Relu6Grad(_GradOfFeatures):
    """gradients where 0 < features < 6, else 0 (features is Relu6's input)."""

    name = "tf.Relu6Grad"

    @staticmethod
    def compute(xp, gradients, features):
        return xp.where((features > 0) & (features < 6), gradients, _zero(xp, gradients))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * [0 < f < 6]: dg = U * [0 < f < 6], df = 0
        return [Relu6Grad.bind(dy, op.inputs[1]), None]


@register
class EluGrad(_GradOfOutputs):
    """gradients * (outputs + 1) where outputs < 0, else gradients (outputs is Elu's output)."""

    name = "tf.EluGrad"
    @staticmethod
    def compute(xp, gradients, outputs):
        return xp.where(outputs < 0, gradients * (outputs + 1), gradients)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * (y + 1) [y < 0]: dg = elu_grad(U, y), dy = U * g [y < 0]
        g, y = op.inputs
        return [EluGrad.bind(dy, y), _where_negative(y, _ops.multiply(dy, g))]


@register
class SeluGrad(_GradOfOutputs):
    """gradients * (outputs + scale * alpha) where outputs < 0, else gradients * scale."""

    name = "tf.SeluGrad"
    @staticmethod
    def compute(xp, gradients, outputs):
        neg = gradients * (outputs + xp.asarray(_SELU_SCALE * _SELU_ALPHA, outputs.dtype))
        return xp.where(outputs < 0, neg, gradients * xp.asarray(_SELU_SCALE, gradients.dtype))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = selu_grad(g, y): dg = selu_grad(U, y), dy = U * g [y < 0]
        g, y = op.inputs
        return [SeluGrad.bind(dy, y), _where_negative(y, _ops.multiply(dy, g))]


@register
class SoftplusGrad(_GradOfFeatures):
    """gradients / (1 + exp(-features)) (features is Softplus's input)."""

    name = "tf.SoftplusGrad"

    @staticmethod
    def compute(xp, gradients, features):
        with np.errstate(over="ignore"):  # exp(-x) = inf for very negative x gives the right 0
            return gradients / (xp.exp(-features) + 1)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = g * sigmoid(x): dg = U * sigmoid(x), dx = U * g / (e^-x + 2 + e^x)
        m = _ops
        g, x = op.inputs
        denom = m.add(m.add(m.exp(m.negative(x)), 2.0), m.exp(x))
        return [SoftplusGrad.bind(dy, x), m.realdiv(m.multiply(dy, g), denom)]


@register
class LeakyReluGrad(_GradOfFeatures):
    """gradients where features > 0, else alpha * gradients."""

    name = "tf.LeakyReluGrad"
    alpha = attr(0.2)

    @staticmethod
    def compute(xp, gradients, features, *, alpha):
        return xp.where(features > 0, gradients, gradients * _alpha(xp, alpha, gradients))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and b = leaky_relu_grad(g, x): dg = leaky_relu_grad(U, x), dx = 0
        return [LeakyReluGrad.bind(dy, op.inputs[1], alpha=op.attrs["alpha"]), None]


class _OpFunctions:
    """``_ops.multiply(...)``: a public op function found by name in whichever tinytf.ops module defines it,
    on first use (gradients run after every module is imported, and the families may move between files)."""

    def __init__(self):
        self._found: dict = {}

    def __getattr__(self, name):
        found = self.__dict__.get("_found", {}).get(name)
        if found is None:
            import importlib
            import pkgutil

            import tinytf.ops as ops

            for info in pkgutil.iter_modules(ops.__path__):
                module = importlib.import_module(f"tinytf.ops.{info.name}")
                candidate = vars(module).get(name)
                if callable(candidate) and getattr(candidate, "__module__", None) == module.__name__:
                    found = self._found[name] = candidate
                    break
            else:
                raise AttributeError(f"no public op function '{name}' in tinytf.ops")
        return found


_ops = _OpFunctions()


def _where_negative(y, value):
    """value where y < 0, else 0, as ReluGrad(value, -y): no comparison or select op needed."""
    return ReluGrad.bind(value, _ops.negative(y))


def relu6(features, name=None):
    return Relu6.bind(features)


def elu(features, name=None):
    return Elu.bind(features)


def selu(features, name=None):
    return Selu.bind(features)


def softplus(features, name=None):
    return Softplus.bind(features)


def leaky_relu(features, alpha=0.2, name=None):
    return LeakyRelu.bind(features, alpha=float(alpha))


def gelu(features, approximate=False, name=None):
    """0.5 * x * (1 + erf(x / sqrt(2))), or the tanh approximation (composite, as in TensorFlow)."""
    m = _ops
    x = features
    if approximate:
        inner = m.multiply(m.add(x, m.multiply(0.044715, m.multiply(x, m.multiply(x, x)))), 0.7978845608028654)
        return m.multiply(m.multiply(0.5, x), m.add(1.0, m.tanh(inner)))
    return m.multiply(m.multiply(0.5, x), m.add(1.0, m.erf(m.multiply(x, 0.7071067811865476))))


# --- softmax and cross-entropy -----------------------------------------------------------------

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
    features = operand_def()
    labels = operand_def()
    loss = result_def()
    backprop = result_def()
    traits = traits_def(Pure())

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
    features = operand_def()
    labels = operand_def()
    loss = result_def()
    backprop = result_def()
    traits = traits_def(Pure())

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
