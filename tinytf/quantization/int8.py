"""Int8 weight quantization in numpy: scales and zero points, per tensor or per channel.

    q = quantize(w, channel_axes=(1,), symmetric=True)     # w: float [64, 32]
    q.values                  # int8 [64, 32]
    q.scale, q.zero_point     # float [32], int32 [] (0: symmetric)
    q.dequantize()            # (values - zero_point) * scale, as TensorFlow's dequantize chain computes it

Symmetric: zero point 0, scale = max|w| / 127, values in [-127, 127] (so -w quantizes to -q).
Asymmetric: the range [min(w, 0), max(w, 0)] maps affinely onto [-128, 127]; the zero point is
the int8 value that stands for 0.0, so zero weights (padding, pruned entries) stay exactly 0.

The scale broadcasts against the weight from the right: channel axes (1,) of a rank-2 weight give a
scale of shape [N]; (0,) gives [N, 1]; (2, 3) of a depthwise filter [H, W, C, M] gives [C, M].
The zero point has the scale's shape, or is a scalar when every channel's zero point is 0.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tinytf.errors import InvalidArgumentError

QMIN, QMAX = -128, 127


@dataclass(frozen=True)
class QuantizedWeight:
    values: np.ndarray      # int8, the weight's shape
    scale: np.ndarray       # the weight's float dtype; broadcasts against values
    zero_point: np.ndarray  # int32; scalar or the scale's shape

    @property
    def nbytes(self) -> int:
        return self.values.nbytes + self.scale.nbytes + self.zero_point.nbytes

    def dequantize(self) -> np.ndarray:
        """TensorFlow's chain: Cast i8->i32, Sub zero point, Cast i32->float, Mul scale."""
        centered = self.values.astype(np.int32) - self.zero_point
        return centered.astype(self.scale.dtype) * self.scale


def scale_shape(shape: tuple[int, ...], channel_axes: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of a per-channel scale: the weight's dims from the first channel axis on, 1 where
    a dim is not a channel axis (so it broadcasts from the right). ``()`` for per tensor."""
    if not channel_axes:
        return ()
    first = min(channel_axes)
    return tuple(shape[i] if i in channel_axes else 1 for i in range(first, len(shape)))


def quantize(weight: np.ndarray, channel_axes: tuple[int, ...] = (), symmetric: bool = True) -> QuantizedWeight:
    """Quantize a float array to int8 with one scale per channel (per tensor when ``channel_axes`` is empty)."""
    weight = np.asarray(weight)
    if weight.dtype.kind != "f":
        raise InvalidArgumentError(f"quantize: expected a float weight, got {weight.dtype}")
    if weight.size == 0:
        raise InvalidArgumentError(f"quantize: the weight of shape {list(weight.shape)} is empty")
    if not np.all(np.isfinite(weight)):
        raise InvalidArgumentError(f"quantize: the weight of shape {list(weight.shape)} has NaN or Inf values")
    axes = tuple(sorted({a % weight.ndim for a in channel_axes})) if weight.ndim else ()
    reduce = tuple(i for i in range(weight.ndim) if i not in axes)
    w = weight.astype(np.float64)  # the statistics in double: the stored scale is rounded once
    if symmetric:
        scale = np.max(np.abs(w), axis=reduce, keepdims=True) / QMAX
        scale = np.where(scale > 0, scale, 1.0)
        scale = scale.astype(weight.dtype)
        values = np.clip(np.rint(w / scale), -QMAX, QMAX).astype(np.int8)
        zero_point = np.zeros((), np.int32)
    else:
        lo = np.minimum(np.min(w, axis=reduce, keepdims=True), 0.0)
        hi = np.maximum(np.max(w, axis=reduce, keepdims=True), 0.0)
        scale = (hi - lo) / (QMAX - QMIN)
        scale = np.where(scale > 0, scale, 1.0).astype(weight.dtype)
        zero_point = np.clip(np.rint(QMIN - lo / scale), QMIN, QMAX).astype(np.int32)
        values = np.clip(np.rint(w / scale) + zero_point, QMIN, QMAX).astype(np.int8)
    target = scale_shape(weight.shape, axes)
    scale = scale.reshape(target)
    if zero_point.ndim:
        zero_point = zero_point.reshape(target)
        if not np.any(zero_point):
            zero_point = np.zeros((), np.int32)
    return QuantizedWeight(values, scale, zero_point)
