"""Colour ops on [..., 3] RGB images in [0, 1]: RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation and
AdjustContrastv2, with TensorFlow's kernels' arithmetic (colorspace_op.h, adjust_hue_op.cc,
adjust_saturation_op.cc, adjust_contrast_op.cc), written once for numpy and jax.numpy.

    %hsv = "tf.RGBToHSV"(%rgb) : (tensor<2x4x4x3xf32>) -> tensor<2x4x4x3xf32>
    %out = "tf.AdjustHue"(%rgb, %delta) : (tensor<4x4x3xf32>, tensor<f32>) -> tensor<4x4x3xf32>

TensorFlow defines no gradient for AdjustHue, AdjustSaturation and AdjustContrastv2 (asking raises
LookupError, here too), lists HSVToRGB as not differentiable, and gives RGBToHSV its piecewise formula
(image_color.rgb_to_hsv_gradient).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import NoGradient, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape

__all__: list[str] = []  # raw ops; tt.image's colour functions are image_color.py's


def check_rgb(op_name: str, spec: TensorSpec, what: str = "images", min_rank: int = 1) -> TensorSpec:
    if spec.dtype.kind != "f":
        raise InvalidArgumentError(f"{op_name}: {what} must be floating point, got {spec.dtype.name}", op_name)
    if spec.shape is not None:
        if len(spec.shape) < min_rank:
            raise InvalidArgumentError(f"{op_name}: {what} must be at least {min_rank}-D, got {fmt_shape(spec.shape)}",
                                       op_name)
        if spec.shape[-1] not in (None, 3):
            raise InvalidArgumentError(f"{op_name}: {what} must have 3 channels (last dimension), got shape "
                                       f"{fmt_shape(spec.shape)}", op_name)
    return spec


def check_rgb_array(op_name: str, x, min_rank: int = 1):
    if x.ndim < min_rank or x.shape[-1] != 3:
        raise InvalidArgumentError(f"{op_name}: input must be at least {min_rank}-D with 3 channels (last dimension), "
                                   f"got shape {list(x.shape)}", op_name)


def check_scalar(op_name: str, spec: TensorSpec, what: str):
    if spec.dtype != dtypes.float32 or (spec.shape is not None and len(spec.shape) != 0):
        raise InvalidArgumentError(f"{op_name}: {what} must be a float32 scalar, got {spec.dtype.name} "
                                   f"{fmt_shape(spec.shape)}", op_name)


def rgb_to_hsv(xp, rgb):
    """TensorFlow's RGB -> HSV: v the max, s the range over v, h the sector's position in [0, 1)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    value = xp.maximum(xp.maximum(r, g), b)
    spread = value - xp.minimum(xp.minimum(r, g), b)
    one = xp.ones_like(value)
    saturation = xp.where(value > 0, spread / xp.where(value > 0, value, one), 0 * value)
    norm = one / (6 * xp.where(spread > 0, spread, one))
    hue = xp.where(r == value, norm * (g - b),
                   xp.where(g == value, norm * (b - r) + value.dtype.type(2 / 6), norm * (r - g) + value.dtype.type(4 / 6)))
    hue = xp.where(spread > 0, hue, 0 * hue)
    hue = xp.where(hue < 0, hue + 1, hue)
    return hue, saturation, value


def hsv_to_rgb_sectors(xp, hue, saturation, value):
    """adjust_hue_op.cc's HSV -> RGB: chroma c = s v placed by the sector floor(6 h), plus m = v - c."""
    chroma = saturation * value
    low = value - chroma
    six_h = hue * 6
    sector = xp.floor(six_h)
    mid = chroma * (1 - xp.abs(xp.mod(six_h, 2) - 1))
    zero = 0 * chroma
    table = {0: (chroma, mid, zero), 1: (mid, chroma, zero), 2: (zero, chroma, mid), 3: (zero, mid, chroma),
             4: (mid, zero, chroma), 5: (chroma, zero, mid)}
    channels = []
    for c in range(3):
        out = zero
        for k, parts in table.items():
            out = xp.where(sector == k, parts[c], out)
        channels.append(out + low)
    return xp.stack(channels, axis=-1)


class _Colour(Op):
    images = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, images):
        return TensorSpec(check_rgb(cls.name, images).shape, images.dtype)


@register
class RGBToHSV(_Colour):
    """RGB in [0, 1] to hue, saturation, value, each in [0, 1]."""

    name = "tf.RGBToHSV"

    @classmethod
    def compute(cls, xp, images):
        check_rgb_array(cls.name, images)
        return xp.stack(rgb_to_hsv(xp, images), axis=-1).astype(images.dtype)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = hsv(x): dx = U · TensorFlow's piecewise ∂hsv/∂rgb
        from tinytf.ops.image_color import rgb_to_hsv_gradient

        return [rgb_to_hsv_gradient(op.inputs[0], op.outputs[0], dy)]


@register
class HSVToRGB(_Colour):
    """Hue, saturation, value in [0, 1] to RGB (colorspace_op.h's clamped ramps)."""

    name = "tf.HSVToRGB"
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def compute(cls, xp, images):
        check_rgb_array(cls.name, images)
        h, s, v = images[..., 0], images[..., 1], images[..., 2]
        six_h = h * 6
        ramps = (xp.clip(xp.abs(six_h - 3) - 1, 0, 1), xp.clip(2 - xp.abs(six_h - 2), 0, 1),
                 xp.clip(2 - xp.abs(six_h - 4), 0, 1))
        return xp.stack([((1 - s) + s * ramp) * v for ramp in ramps], axis=-1).astype(images.dtype)


class _Adjust(Op):
    """An RGB image (at least 3-D) and a float32 scalar. TensorFlow defines no gradient for these."""

    images = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NoGradient())
    SCALAR: ClassVar[str] = "delta"

    @classmethod
    def infer(cls, images, scalar):
        check_rgb(cls.name, images, min_rank=3)
        check_scalar(cls.name, scalar, cls.SCALAR)
        return TensorSpec(images.shape, images.dtype)

    @classmethod
    def adjust(cls, xp, hue, saturation, scalar):
        raise NotImplementedError

    @classmethod
    def compute(cls, xp, images, scalar):
        check_rgb_array(cls.name, images, min_rank=3)
        x = images.astype(np.float32)
        hue, saturation, value = rgb_to_hsv(xp, x)
        hue, saturation = cls.adjust(xp, hue, saturation, xp.asarray(scalar, np.float32))
        return hsv_to_rgb_sectors(xp, hue, saturation, value).astype(images.dtype)


@register
class AdjustHue(_Adjust):
    """The hue turned by ``delta`` (a fraction of the colour wheel)."""

    name = "tf.AdjustHue"
    delta = operand_def()

    @classmethod
    def adjust(cls, xp, hue, saturation, delta):
        hue = xp.fmod(hue + delta, np.float32(1))
        return xp.where(hue < 0, hue + 1, hue), saturation


@register
class AdjustSaturation(_Adjust):
    """The saturation multiplied by ``scale``, clamped to [0, 1]."""

    name = "tf.AdjustSaturation"
    scale = operand_def()
    SCALAR: ClassVar[str] = "scale"

    @classmethod
    def adjust(cls, xp, hue, saturation, scale):
        return hue, xp.clip(saturation * scale, 0, 1)


@register
class AdjustContrastv2(Op):
    """Each channel of each image moved away from its mean by ``contrast_factor``: (x - mean) c + mean."""

    name = "tf.AdjustContrastv2"
    images = operand_def()
    contrast_factor = operand_def()
    output = result_def()
    traits = traits_def(Pure(), NoGradient())  # TensorFlow defines none (tf.image.adjust_contrast)

    @classmethod
    def infer(cls, images, contrast_factor):
        if images.dtype.kind != "f" or (images.shape is not None and len(images.shape) < 3):
            raise InvalidArgumentError(f"{cls.name}: input must be at least 3-D floating point, got "
                                       f"{images.dtype.name} {fmt_shape(images.shape)}", cls.name)
        check_scalar(cls.name, contrast_factor, "contrast_factor")
        return TensorSpec(images.shape, images.dtype)

    @classmethod
    def compute(cls, xp, images, contrast_factor):
        if images.ndim < 3:
            raise InvalidArgumentError(f"{cls.name}: input must be at least 3-D, got {list(images.shape)}", cls.name)
        x = images.astype(np.float32)
        mean = xp.mean(x, axis=(-3, -2), keepdims=True)
        return ((x - mean) * xp.asarray(contrast_factor, np.float32) + mean).astype(images.dtype)
