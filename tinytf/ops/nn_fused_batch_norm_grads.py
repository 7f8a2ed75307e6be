"""The gradient ops of fused batch normalisation: FusedBatchNormGrad, V2 and V3, and their own gradients.

    %dx:5 = "tf.FusedBatchNormGradV3"(%dy, %x, %scale, %r1, %r2, %r3) <{data_format = "NHWC",
              epsilon = 1.000000e-03 : f32, is_training = true}> : (...) -> (tensor<8x4x4x3xf32>, tensor<3xf32>, ...)

With x̂ = (x - mean) / sqrt(var + eps) (the saved batch statistics in training, the population ones in
inference), per channel:

    offset_backprop = sum(dy)       scale_backprop = sum(dy * x̂)
    x_backprop      = scale / sqrt(var + eps) * (dy - mean(dy) - x̂ * mean(dy * x̂))   (training)
                    = scale / sqrt(var + eps) * dy                                      (inference)

The last two outputs are placeholders (zero scalars, as TensorFlow's CPU kernel gives). The second-order
rule differentiates these formulas with the batch statistics recomputed from x, as TensorFlow's
_BatchNormGrad does.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import check_dtype, fmt_shape
from tinytf.ops.nn_fused_batch_norm import (
    FORMATS,
    FusedBatchNorm,
    FusedBatchNormV2,
    _check_layout,
    _dtype,
    channel_axis,
    per_channel,
    reduce_axes,
)
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.tensor_inputs import static_rank

__all__: list[str] = []  # gradient ops only


def batch_norm_backward(xp, dy, x, scale, mean, variance, *, epsilon, data_format, is_training):
    u = scale.dtype
    rank = x.ndim
    axes = reduce_axes(rank, data_format)
    g, xw = dy.astype(u), x.astype(u)
    r = (variance + xp.asarray(np.float32(epsilon), u)) ** xp.asarray(-0.5, u)
    xhat = (xw - per_channel(xp, mean, rank, data_format)) * per_channel(xp, r, rank, data_format)
    doffset = xp.sum(g, axis=axes)
    dscale = xp.sum(g * xhat, axis=axes)
    if is_training:
        h = g - xp.mean(g, axis=axes, keepdims=True) - xhat * xp.mean(g * xhat, axis=axes, keepdims=True)
    else:
        h = g
    dx = h * per_channel(xp, scale * r, rank, data_format)
    return dx.astype(dy.dtype), dscale, doffset, xp.zeros((), u), xp.zeros((), u)


class _FusedBatchNormGradBase(Op):
    """Operands y_backprop, x, scale, reserve_space_1, _2 (V3: _3); results x_backprop, scale_backprop,
    offset_backprop and two placeholders (each op declares them: xDSL orders a subclass's fields first)."""

    epsilon = attr(1e-4)
    data_format = attr("NHWC")
    is_training = attr(True)
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"epsilon": v.F32_ATTR, "data_format": v.one_of(*FORMATS)}

    @classmethod
    def infer(cls, y_backprop, x, scale, reserve_space_1, reserve_space_2, *extra, epsilon=1e-4, data_format="NHWC",
              is_training=True):
        check_dtype(cls.name, x, "f", "x")
        if y_backprop.dtype is not x.dtype:
            raise InvalidArgumentError(f"{cls.name}: y_backprop {y_backprop.dtype.name} and x {x.dtype.name} must "
                                       "have the same dtype", cls.name)
        u = check_dtype(cls.name, scale, "f", "scale")
        if y_backprop.shape is not None and x.shape is not None and \
                not TensorSpec(y_backprop.shape).is_compatible_with(x.shape):
            raise InvalidArgumentError(f"{cls.name}: y_backprop {fmt_shape(y_backprop.shape)} and x "
                                       f"{fmt_shape(x.shape)} must have the same shape", cls.name)
        c = _check_layout(cls.name, x.shape, data_format, [("scale", scale.shape, False),
                                                            ("reserve_space_1", reserve_space_1.shape, False),
                                                            ("reserve_space_2", reserve_space_2.shape, False)])
        return [TensorSpec(x.shape, x.dtype), TensorSpec((c,), u), TensorSpec((c,), u), TensorSpec((), u),
                TensorSpec((), u)]

    @classmethod
    def compute(cls, xp, y_backprop, x, scale, reserve_space_1, reserve_space_2, *extra, epsilon=1e-4,
                data_format="NHWC", is_training=True):
        cls.infer(*(TensorSpec(a.shape, _dtype(a)) for a in (y_backprop, x, scale, reserve_space_1, reserve_space_2)),
                  epsilon=epsilon, data_format=data_format, is_training=is_training)
        return batch_norm_backward(xp, y_backprop, x, scale, reserve_space_1, reserve_space_2, epsilon=epsilon,
                                   data_format=data_format, is_training=is_training)

    @staticmethod
    def grad(op, ddx, ddscale, ddoffset, *unused):
        return _grad_of_grad(op, ddx, ddscale, ddoffset)


@register
class FusedBatchNormGrad(_FusedBatchNormGradBase):
    """The gradient of FusedBatchNorm."""

    name = "tf.FusedBatchNormGrad"
    y_backprop = operand_def()
    x = operand_def()
    scale = operand_def()
    reserve_space_1 = operand_def()
    reserve_space_2 = operand_def()
    x_backprop = result_def()
    scale_backprop = result_def()
    offset_backprop = result_def()
    reserve_space_3 = result_def()
    reserve_space_4 = result_def()


@register
class FusedBatchNormGradV2(_FusedBatchNormGradBase):
    """The gradient of FusedBatchNormV2."""

    name = "tf.FusedBatchNormGradV2"
    y_backprop = operand_def()
    x = operand_def()
    scale = operand_def()
    reserve_space_1 = operand_def()
    reserve_space_2 = operand_def()
    x_backprop = result_def()
    scale_backprop = result_def()
    offset_backprop = result_def()
    reserve_space_3 = result_def()
    reserve_space_4 = result_def()


@register
class FusedBatchNormGradV3(_FusedBatchNormGradBase):
    """The gradient of FusedBatchNormV3 (reserve_space_3 is unused on the CPU)."""

    name = "tf.FusedBatchNormGradV3"
    y_backprop = operand_def()
    x = operand_def()
    scale = operand_def()
    reserve_space_1 = operand_def()
    reserve_space_2 = operand_def()
    reserve_space_3 = operand_def()
    x_backprop = result_def()
    scale_backprop = result_def()
    offset_backprop = result_def()
    reserve_space_4 = result_def()
    reserve_space_5 = result_def()


def fused_batch_norm_grad(op, dy):
    """The forward ops' rule: the gradient op with the saved batch statistics (training) or the given
    population ones (inference); TensorFlow ignores the gradients of the statistics outputs."""
    attrs = {k: op.attrs[k] for k in ("epsilon", "data_format", "is_training") if k in op.attrs}
    x, scale = op.inputs[0], op.inputs[1]
    if dy is None:
        dy = _ops.zeros_like(op.outputs[0])
    training = attrs.get("is_training", True)
    stats = list(op.outputs[3:5]) if training else list(op.inputs[3:5])
    if op.name == FusedBatchNorm.name:
        outs = FusedBatchNormGrad.bind(dy, x, scale, *stats, **attrs)
    elif op.name == FusedBatchNormV2.name:
        outs = FusedBatchNormGradV2.bind(dy, x, scale, *stats, **attrs)
    else:
        reserve_3 = op.outputs[5] if training else _ops.zeros_like(op.outputs[5])
        outs = FusedBatchNormGradV3.bind(dy, x, scale, *stats, reserve_3, **attrs)
    return [outs[0], outs[1], outs[2], None, None]


def _grad_of_grad(op, a, b, c):  # Given upstream grads A, B, C of (dx, dscale, doffset): d(dy), d(x), d(scale)
    m = _ops
    g, x, scale, pop_mean, pop_var = op.inputs[:5]
    fmt = op.attrs.get("data_format", "NHWC")
    eps = float(np.float32(op.attrs.get("epsilon", 1e-4)))
    rank = static_rank(x)
    axes = list(reduce_axes(rank, fmt))
    u = scale.dtype
    shape = [1] * rank
    shape[channel_axis(fmt)] = -1

    def mean(t):
        return m.reduce_mean(t, axes, keepdims=True)

    def vec(t):  # a [C] vector broadcast against x
        return m.reshape(t, shape)

    zeros_c = m.zeros_like(scale)
    a = m.zeros_like(m.cast(x, u)) if a is None else m.cast(a, u)
    b, c = zeros_c if b is None else b, zeros_c if c is None else c
    gw, xw, s = m.cast(g, u), m.cast(x, u), vec(scale)
    if op.attrs.get("is_training", True):
        centered = m.subtract(xw, mean(xw))
        r = m.rsqrt(m.add(mean(m.multiply(centered, centered)), eps))
    else:
        centered = m.subtract(xw, vec(pop_mean))
        r = vec(m.rsqrt(m.add(pop_var, eps)))
    xhat = m.multiply(centered, r)
    sr = m.multiply(s, r)
    if not op.attrs.get("is_training", True):
        dg = m.add(m.add(m.multiply(a, sr), m.multiply(vec(b), xhat)), vec(c))
        dx = m.multiply(m.multiply(vec(b), gw), r)
        dscale = m.reduce_sum(m.multiply(m.multiply(a, gw), r), axes)
    else:
        mgx, max_ = mean(m.multiply(gw, xhat)), mean(m.multiply(a, xhat))
        h = m.subtract(m.subtract(gw, mean(gw)), m.multiply(xhat, mgx))
        dg = m.add(m.add(m.multiply(sr, m.subtract(m.subtract(a, mean(a)), m.multiply(xhat, max_))),
                         m.multiply(vec(b), xhat)), vec(c))
        dscale = m.reduce_sum(m.multiply(m.multiply(a, r), h), axes)
        # dL/dx̂ with r held, then through x̂(x) and r(x)
        dxhat = m.subtract(m.multiply(vec(b), gw), m.multiply(sr, m.add(m.multiply(mgx, a), m.multiply(max_, gw))))
        dx = m.subtract(m.multiply(r, m.subtract(m.subtract(dxhat, mean(dxhat)), m.multiply(xhat, mean(
            m.multiply(dxhat, xhat))))), m.multiply(m.multiply(m.multiply(sr, r), xhat), mean(m.multiply(a, h))))
    grads = [m.cast(dg, g.dtype), m.cast(dx, x.dtype), dscale, None, None]
    return grads + [None] * (len(op.inputs) - 5)
