"""ExtractGlimpseV2 and tt.image.extract_glimpse: a size[0] x size[1] window of each image at its offset,
with the pixels outside the image filled with noise, as TensorFlow 2's kernel places the window.

    %g = "tf.ExtractGlimpseV2"(%input, %size, %offsets) <{centered = true, noise = "zero", normalized = true,
           uniform_noise = false}> : (tensor<2x7x9x3xf32>, tensor<2xi32>, tensor<2x2xf32>) -> tensor<2x3x4x3xf32>

Offsets are [y, x] per image. Normalized offsets are fractions of the image's height and width; centered
ones count from its centre (and then, normalized, name the window's centre). The window's top-left pixel is
the offset truncated toward zero. Noise: "zero"; "uniform" in [min, max] of the image; "gaussian" with each
channel's mean and standard deviation, clipped to the channel's range. TensorFlow draws its noise from an
unseeded generator, and so does tinytf (numpy's): only the "zero" fill compiles to XLA.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.image_resize import check_size

__all__ = ["extract_glimpse"]
__namespaces__ = {"extract_glimpse": ("image",)}

NOISES = ("uniform", "gaussian", "zero")


def _noise(op_name, attrs) -> str:
    noise, uniform = attrs["noise"], attrs["uniform_noise"]
    if uniform and noise not in ("", "uniform"):
        raise InvalidArgumentError(f"{op_name}: The uniform_noise and noise should not be specified at the same time",
                                   op_name)
    noise = noise or ("uniform" if uniform else "gaussian")
    if noise not in NOISES:
        raise InvalidArgumentError(f"{op_name}: noise must be one of {NOISES}, got {noise!r}", op_name)
    return noise


def window_corners(xp, offsets, image_hw, glimpse_hw, centered: bool, normalized: bool):
    """[batch] top-left rows and columns of the windows (float32 arithmetic, truncated as the kernel)."""
    f32 = np.float32
    (height, width), (gh, gw) = image_hw, glimpse_hw
    y, x = offsets[:, 0].astype(f32), offsets[:, 1].astype(f32)
    if normalized:
        y, x = y * f32(height), x * f32(width)
        if centered:
            y = y / f32(2) + f32(height / 2) - f32(gh / 2)
            x = x / f32(2) + f32(width / 2) - f32(gw / 2)
    elif centered:
        y, x = y + f32(height / 2), x + f32(width / 2)
    return xp.trunc(y).astype(np.int32), xp.trunc(x).astype(np.int32)


@register
class ExtractGlimpseV2(Op):
    """Each image's window of ``size`` at ``offsets`` ([batch, 2], y then x), noise outside the image."""

    name = "tf.ExtractGlimpseV2"
    input = operand_def()
    size = operand_def()
    offsets = operand_def()
    glimpse = result_def()
    centered = attr(True)
    normalized = attr(True)
    uniform_noise = attr(True)
    noise = attr("uniform")
    traits = traits_def(NotDifferentiable())  # (no Pure: its noise is random)

    @classmethod
    def infer(cls, input, size, offsets, **attrs):  # noqa: A002 (TensorFlow's operand name)
        _noise(cls.name, attrs)
        if input.dtype != dtypes.float32 or (input.shape is not None and len(input.shape) != 4):
            raise InvalidArgumentError(f"{cls.name}: input must be a vector of size 4 float32 dims, got "
                                       f"{input.dtype.name} {fmt_shape(input.shape)}", cls.name)
        if offsets.dtype != dtypes.float32 or (offsets.shape is not None and (len(offsets.shape) != 2
                                                                             or offsets.shape[1] not in (None, 2))):
            raise InvalidArgumentError(f"{cls.name}: offsets must be float32 [batch_size, 2], got {offsets.dtype.name} "
                                       f"{fmt_shape(offsets.shape)}", cls.name)
        hw = check_size(cls.name, size) or (None, None)
        batch, _, _, depth = input.shape if input.shape is not None else (None,) * 4
        return TensorSpec((batch, *hw, depth), dtypes.float32)

    @classmethod
    def compute(cls, xp, input, size, offsets, **attrs):  # noqa: A002
        noise = _noise(cls.name, attrs)
        if input.ndim != 4 or offsets.shape != (input.shape[0], 2):
            raise InvalidArgumentError(f"{cls.name}: input {list(input.shape)} and offsets {list(offsets.shape)} do not "
                                       "fit ([batch, h, w, c] and [batch, 2])", cls.name)
        gh, gw = check_size(cls.name, size)
        batch, height, width, depth = input.shape
        check_allocation(cls.name, (batch, gh, gw, depth), dtypes.float32)
        top, left = window_corners(xp, offsets, (height, width), (gh, gw), attrs["centered"], attrs["normalized"])
        rows, cols = top[:, None] + np.arange(gh)[None, :], left[:, None] + np.arange(gw)[None, :]
        inside = (((rows >= 0) & (rows < height))[:, :, None] & ((cols >= 0) & (cols < width))[:, None, :])[..., None]
        if height == 0 or width == 0:
            picked = xp.zeros((batch, gh, gw, depth), np.float32)
        else:
            picked = input[np.arange(batch)[:, None, None], xp.clip(rows, 0, height - 1)[:, :, None],
                           xp.clip(cols, 0, width - 1)[:, None, :]]
        if noise == "zero":
            return xp.where(inside, picked, np.float32(0))
        if xp is not np:
            raise UnimplementedError(f"{cls.name}: {noise} noise is drawn from an unseeded generator, which does not "
                                     "compile to XLA (noise='zero' does)", cls.name)
        return np.where(inside, picked, _fill(noise, input, (batch, gh, gw, depth))).astype(np.float32)


def _fill(noise, images, shape):
    rng = np.random.default_rng()
    if images.size == 0:
        return np.zeros(shape, np.float32)
    if noise == "uniform":
        low, high = images.min(axis=(1, 2, 3)), images.max(axis=(1, 2, 3))
        return low[:, None, None, None] + rng.random(shape) * (high - low)[:, None, None, None]
    low, high = images.min(axis=(1, 2))[:, None, None, :], images.max(axis=(1, 2))[:, None, None, :]
    mean, std = images.mean(axis=(1, 2))[:, None, None, :], images.std(axis=(1, 2))[:, None, None, :]
    return np.clip(mean + std * rng.standard_normal(shape), low, high)


def extract_glimpse(input, size, offsets, centered=True, normalized=True, noise="uniform", name=None):  # noqa: A002
    """``tt.image.extract_glimpse`` (TensorFlow 2's): windows of ``size`` at ``offsets``."""
    from tinytf.ops.tensor_inputs import as_tensor

    return ExtractGlimpseV2.bind(as_tensor(input, dtypes.float32), np.asarray(size, np.int32),
                                 as_tensor(offsets, dtypes.float32), centered=centered, normalized=normalized,
                                 uniform_noise=False, noise=noise)
