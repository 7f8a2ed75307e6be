"""Fused batch normalisation: FusedBatchNorm, V2 and V3, their gradient ops, and fused_batch_norm.

    %y:6 = "tf.FusedBatchNormV3"(%x, %scale, %offset, %mean, %variance)
             <{data_format = "NHWC", epsilon = 1.000000e-03 : f32, exponential_avg_factor = 1.000000e+00 : f32,
               is_training = true}> : (tensor<8x4x4x3xf32>, tensor<3xf32>, ...) -> (tensor<8x4x4x3xf32>, ...)

Training normalises with the batch's statistics over every dim but the channel one and returns the
running mean and the Bessel-corrected running variance (blended with the given ones by
``exponential_avg_factor``); reserve_space_1 / _2 keep the batch mean and (biased) variance for the
gradient. Inference normalises with the given mean and variance. Half-precision x is computed in
float32, the dtype of scale and the statistics (TensorFlow's CPU kernels,
tensorflow/core/kernels/fused_batch_norm_op.cc). The gradient ops' own gradients are in
nn_fused_batch_norm_grads.py.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import check_dtype, fmt_shape
from tinytf.ops.tensor_inputs import as_tensor

__all__ = ["fused_batch_norm"]
__namespaces__ = {"fused_batch_norm": ("nn",)}

FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")


def channel_axis(data_format: str) -> int:
    return 1 if data_format.startswith("NC") else -1


def reduce_axes(rank: int, data_format: str) -> tuple:
    axis = channel_axis(data_format) % rank
    return tuple(i for i in range(rank) if i != axis)


def per_channel(xp, c, rank, data_format):
    """A [C] vector shaped to broadcast against x."""
    shape = [1] * rank
    shape[channel_axis(data_format)] = -1
    return xp.reshape(c, shape)


def _check_layout(op, x_shape, data_format, vectors):
    if data_format not in FORMATS:
        raise InvalidArgumentError(f"{op}: data_format must be one of {', '.join(FORMATS)}, got {data_format!r}", op)
    rank = 5 if "D" in data_format else 4
    if x_shape is not None and len(x_shape) != rank:
        raise InvalidArgumentError(f"{op}: x must be {rank}-dimensional for {data_format}, got {fmt_shape(x_shape)}",
                                   op)
    channels = None if x_shape is None else x_shape[channel_axis(data_format)]
    for what, shape, may_be_empty in vectors:
        if shape is None:
            continue
        if len(shape) != 1:
            raise InvalidArgumentError(f"{op}: {what} must be 1-dimensional, got {fmt_shape(shape)}", op)
        if None not in (channels, shape[0]) and shape[0] != channels and not (may_be_empty and shape[0] == 0):
            raise InvalidArgumentError(
                f"{op}: {what} must have the same number of elements as the channels of x, got {shape[0]} and "
                f"{channels} (x {fmt_shape(x_shape)} {data_format})", op)
    return channels


def batch_norm_forward(xp, x, scale, offset, mean, variance, *, epsilon, exponential_avg_factor, data_format,
                       is_training):
    """(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2) as TensorFlow's kernel."""
    u = scale.dtype
    rank = x.ndim
    wide = x.astype(u)
    eps = xp.asarray(np.float32(epsilon), u)
    if is_training:
        axes = reduce_axes(rank, data_format)
        count = int(np.prod([x.shape[a] for a in axes]))
        m = xp.mean(wide, axis=axes)
        centered = wide - per_channel(xp, m, rank, data_format)
        var = xp.mean(centered * centered, axis=axes)
        adjust = xp.asarray(count / (count - 1) if count > 1 else 1.0, u)
        factor = np.float32(exponential_avg_factor)
        if factor == 1:
            new_mean, new_var = m, var * adjust
        else:
            f = xp.asarray(factor, u)
            new_mean = (1 - f) * mean + f * m
            new_var = (1 - f) * variance + f * adjust * var
    else:
        m, var = mean, variance
        centered = wide - per_channel(xp, m, rank, data_format)
        new_mean, new_var = mean, variance
    inv = (var + eps) ** xp.asarray(-0.5, u) * scale
    y = centered * per_channel(xp, inv, rank, data_format) + per_channel(xp, offset, rank, data_format)
    return y.astype(x.dtype), new_mean, new_var, m, var


class _FusedBatchNormBase(Op):
    """Operands x, scale, offset, mean, variance; results y, batch_mean, batch_variance, reserve_space_1, _2
    (each op declares them itself: xDSL orders a subclass's fields before its base's)."""

    epsilon = attr(1e-4)
    exponential_avg_factor = attr(1.0)
    data_format = attr("NHWC")
    is_training = attr(True)
    traits = traits_def(Pure())
    ATTR_CONSTRAINTS: ClassVar[dict] = {"epsilon": v.F32_ATTR, "exponential_avg_factor": v.F32_ATTR,
                                        "data_format": v.one_of(*FORMATS)}
    EXTRA_RESULTS: ClassVar[int] = 0

    def verify_ir(self):
        v.check_types(self, {name: v.F32 for name in ("scale", "offset", "mean", "variance")})

    @classmethod
    def infer(cls, x, scale, offset, mean, variance, *, epsilon=1e-4, exponential_avg_factor=1.0, data_format="NHWC",
              is_training=True):
        check_dtype(cls.name, x, "f", "x")
        u = check_dtype(cls.name, scale, "f", "scale")
        for spec, what in ((offset, "offset"), (mean, "mean"), (variance, "variance")):
            if spec.dtype is not u:
                raise InvalidArgumentError(f"{cls.name}: {what} must be {u.name} like scale, got {spec.dtype.name}",
                                           cls.name)
        empty_ok = is_training and np.float32(exponential_avg_factor) == 1
        c = _check_layout(cls.name, x.shape, data_format, [("scale", scale.shape, False),
                                                            ("offset", offset.shape, False),
                                                            ("mean", mean.shape, empty_ok),
                                                            ("variance", variance.shape, empty_ok)])
        stats = TensorSpec((c,), u)
        return [TensorSpec(x.shape, x.dtype)] + [stats] * 4 + [TensorSpec(_reserve_3(data_format), u)] * cls.EXTRA_RESULTS

    @classmethod
    def compute(cls, xp, x, scale, offset, mean, variance, **attrs):
        specs = [TensorSpec(a.shape, _dtype(a)) for a in (x, scale, offset, mean, variance)]
        cls.infer(*specs, **attrs)
        outs = list(batch_norm_forward(xp, x, scale, offset, mean, variance, **_defaults(attrs)))
        return tuple(outs + [xp.zeros(_reserve_3(attrs.get("data_format", "NHWC")), scale.dtype)] * cls.EXTRA_RESULTS)

    @staticmethod
    def grad(op, dy, *unused):  # Given upstream grad U of y: FusedBatchNormGrad(U, x, scale, saved statistics)
        from tinytf.ops.nn_fused_batch_norm_grads import fused_batch_norm_grad

        return fused_batch_norm_grad(op, dy)


def _reserve_3(data_format):
    """The shape of V3's unused reserve_space_3 as TensorFlow's CPU kernel gives it: [0], or [] for 5-D x."""
    return () if "D" in data_format else (0,)


def _dtype(array):
    return dtypes.as_dtype(array.dtype)


def _defaults(attrs):
    return {"epsilon": attrs.get("epsilon", 1e-4), "exponential_avg_factor": attrs.get("exponential_avg_factor", 1.0),
            "data_format": attrs.get("data_format", "NHWC"), "is_training": attrs.get("is_training", True)}


@register
class FusedBatchNorm(_FusedBatchNormBase):
    """Batch normalisation of 4-D x with float32 scale, offset and statistics."""

    name = "tf.FusedBatchNorm"
    x = operand_def()
    scale = operand_def()
    offset = operand_def()
    mean = operand_def()
    variance = operand_def()
    y = result_def()
    batch_mean = result_def()
    batch_variance = result_def()
    reserve_space_1 = result_def()
    reserve_space_2 = result_def()

    def verify_ir(self):
        super().verify_ir()  # ODS's operand types come first
        for what, value, rank in (("x", self.x, 4), ("scale", self.scale, 1), ("offset", self.offset, 1),
                                  ("mean", self.mean, 1), ("variance", self.variance, 1)):
            r = v.rank(value)
            if r is not None and (r != rank or not v.is_float(value)):
                v.fail(f"requires {what} to be a {rank}D float tensor")


@register
class FusedBatchNormV2(_FusedBatchNormBase):
    """FusedBatchNorm with x of its own dtype (half precision computed in float32)."""

    name = "tf.FusedBatchNormV2"
    x = operand_def()
    scale = operand_def()
    offset = operand_def()
    mean = operand_def()
    variance = operand_def()
    y = result_def()
    batch_mean = result_def()
    batch_variance = result_def()
    reserve_space_1 = result_def()
    reserve_space_2 = result_def()


@register
class FusedBatchNormV3(_FusedBatchNormBase):
    """FusedBatchNormV2 with one more (empty) reserve output, and 5-D data formats (NDHWC, NCDHW)."""

    name = "tf.FusedBatchNormV3"
    x = operand_def()
    scale = operand_def()
    offset = operand_def()
    mean = operand_def()
    variance = operand_def()
    y = result_def()
    batch_mean = result_def()
    batch_variance = result_def()
    reserve_space_1 = result_def()
    reserve_space_2 = result_def()
    reserve_space_3 = result_def()
    EXTRA_RESULTS: ClassVar[int] = 1


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001, data_format="NHWC", is_training=True,
                     name=None, exponential_avg_factor=1.0):
    """tf.compat.v1.nn.fused_batch_norm: (y, running mean, running variance) through FusedBatchNormV3."""
    x = as_tensor(x)
    scale = as_tensor(scale)
    if not is_training and (mean is None or variance is None):
        raise InvalidArgumentError("fused_batch_norm: mean and variance are required for inference",
                                   "tf.FusedBatchNormV3")
    empty = np.zeros((0,), scale.dtype.np)
    mean = as_tensor(empty if mean is None else mean, like=scale)
    variance = as_tensor(empty if variance is None else variance, like=scale)
    # TensorFlow's kernel takes epsilon of at least 1.001e-5 (cuDNN's minimum)
    epsilon = max(float(epsilon), 1.001e-5)
    outs = FusedBatchNormV3.bind(x, scale, as_tensor(offset, like=scale), mean, variance, epsilon=epsilon,
                                 exponential_avg_factor=float(exponential_avg_factor), data_format=data_format,
                                 is_training=bool(is_training))
    return outs[0], outs[1], outs[2]
