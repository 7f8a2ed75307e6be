"""tt.image's colour functions: convert_image_dtype, grayscale, HSV / YUV / YIQ, the adjust_* family,
per_image_standardization, and the random (stateful and stateless) brightness / contrast / hue / saturation.

As TensorFlow's (image_ops_impl.py), an integer image is converted to float32 in [0, 1], adjusted, and
converted back (saturating where TensorFlow saturates):

    tt.image.adjust_brightness(image_uint8, 0.1)       # uint8 out, +0.1 of the full range
    tt.image.convert_image_dtype(image_uint8, tt.float32)   # x / 255
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.ops.image_color_ops import AdjustContrastv2, AdjustHue, AdjustSaturation, HSVToRGB, RGBToHSV
from tinytf.ops.op_functions import ops
from tinytf.ops.random_uniform import stateless_uniform, uniform
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["convert_image_dtype", "rgb_to_grayscale", "grayscale_to_rgb", "rgb_to_hsv", "hsv_to_rgb", "rgb_to_yuv",
           "yuv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "adjust_brightness", "adjust_contrast", "adjust_saturation",
           "adjust_hue", "adjust_gamma", "per_image_standardization", "random_brightness", "random_contrast",
           "random_hue", "random_saturation", "stateless_random_brightness", "stateless_random_contrast",
           "stateless_random_hue", "stateless_random_saturation"]
__namespaces__ = {n: ("image",) for n in __all__}

# Luma of ITU-R BT.601 (Y = .299 R + .587 G + .114 B); U = .492111 (B - Y) and V = .877283 (R - Y), the
# constants TensorFlow's kernels hold; YIQ rotates U and V by 33 degrees (NTSC), and TensorFlow's
# forward matrix rounds Q's red weight to .2115 (its inverse is the unrounded matrix's).
_LUMA = np.array([0.299, 0.587, 0.114])
RGB_TO_YUV = np.stack([_LUMA, 0.492111 * (np.eye(3)[2] - _LUMA), 0.877283 * (np.eye(3)[0] - _LUMA)], axis=1)
_ANGLE = np.deg2rad(33.0)
_YIQ = RGB_TO_YUV @ np.array([[1, 0, 0], [0, -np.sin(_ANGLE), np.cos(_ANGLE)], [0, np.cos(_ANGLE), np.sin(_ANGLE)]])
YIQ_TO_RGB = np.linalg.inv(_YIQ)
RGB_TO_YIQ = _YIQ.copy()
RGB_TO_YIQ[0, 2] = 0.2115
GRAY_WEIGHTS = np.array([0.2989, 0.587, 0.114], np.float32)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Integer images span [0, MAX] of their type, float images [0, 1): converting rescales between the two
    (floor division or multiplication between integer types, x / MAX, x (MAX + 0.5) truncated)."""
    image = as_tensor(image)
    src, dst = image.dtype, dtypes.as_dtype(dtype)
    if src.kind not in "fiu" or dst.kind not in "fiu":
        raise InvalidArgumentError(f"tt.image.convert_image_dtype: image and dtype must be floating point or integer, "
                                   f"got {src.name} and {dst.name}", "tf.Cast")
    if src == dst:
        return ops.identity(image)
    cast = saturate_cast if saturate else ops.cast
    if src.kind in "iu" and dst.kind in "iu":
        max_in, max_out = int(np.iinfo(src.np).max), int(np.iinfo(dst.np).max)
        if max_in > max_out:
            return cast(ops.floordiv(image, np.asarray((max_in + 1) // (max_out + 1), src.np)), dst)
        return ops.multiply(cast(image, dst), np.asarray((max_out + 1) // (max_in + 1), dst.np))
    if src.kind == "f" and dst.kind == "f":
        return ops.cast(image, dst)
    if src.kind in "iu":
        return ops.multiply(ops.cast(image, dst), np.asarray(1.0 / np.iinfo(src.np).max, dst.np))
    return cast(ops.multiply(image, np.asarray(float(np.iinfo(dst.np).max) + 0.5, src.np)), dst)


def saturate_cast(value, dtype):
    """``value`` clipped to ``dtype``'s range before the cast (TensorFlow's saturate_cast)."""
    value, dtype = as_tensor(value), dtypes.as_dtype(dtype)
    if dtype.kind in "iu":
        out, src = np.iinfo(dtype.np), value.dtype.np
        if value.dtype.kind == "f":
            lo, hi = np.asarray(out.min, src), np.asarray(out.max, src)
            if float(hi) > out.max:  # float32(2**31 - 1) rounds up to 2**31: the float below it
                hi = np.nextafter(hi, np.asarray(0, src))
            value = ops.clip_by_value(value, lo, hi)
        elif value.dtype.kind in "iu":
            have = np.iinfo(src)
            if have.min < out.min or have.max > out.max:
                value = ops.clip_by_value(value, np.asarray(max(have.min, out.min), src),
                                          np.asarray(min(have.max, out.max), src))
    return ops.cast(value, dtype)


def _as_float(image):
    image = as_tensor(image)
    return image, image if image.dtype in (dtypes.float16, dtypes.float32) else convert_image_dtype(image, dtypes.float32)


def _check_channels(what, image, channels):
    dims = static_dims(image)
    if dims is None or not dims or dims[-1] != channels:
        raise InvalidArgumentError(f"tt.image.{what}: the last dimension must be {channels}, got shape "
                                   f"{None if dims is None else list(dims)}", "tf.Tensordot")


def rgb_to_grayscale(images, name=None):
    """``0.2989 R + 0.587 G + 0.114 B`` with a last dim of 1, in the input's dtype."""
    images = as_tensor(images)
    _check_channels("rgb_to_grayscale", images, 3)
    gray = ops.tensordot(convert_image_dtype(images, dtypes.float32), GRAY_WEIGHTS, [[-1], [-1]])
    return convert_image_dtype(ops.expand_dims(gray, -1), images.dtype)


def grayscale_to_rgb(images, name=None):
    """The single channel repeated three times."""
    images = as_tensor(images)
    _check_channels("grayscale_to_rgb", images, 1)
    return ops.concat([images, images, images], -1)


def rgb_to_hsv(images, name=None):
    """tf.RGBToHSV: hue, saturation and value in [0, 1]."""
    return RGBToHSV.bind(as_tensor(images))


def rgb_to_hsv_gradient(rgb, hsv, dy):
    """TensorFlow's gradient of RGBToHSV (image_grad.py), piecewise by which channel is the largest and which the
    smallest (ties as TensorFlow breaks them), each reciprocal 0 where its argument is 0 (divide_no_nan). Its hue
    part is TensorFlow's formula, not the exact derivative of the hue (it differs by up to a few percent)."""
    dtype = rgb.dtype
    channels = [ops.gather(rgb, c, axis=-1) for c in range(3)]
    sat, val = ops.gather(hsv, 1, axis=-1), ops.gather(hsv, 2, axis=-1)
    r, g, b = channels
    mask = lambda condition: ops.cast(condition, dtype)  # noqa: E731
    recip = lambda x: ops.divide_no_nan(ops.ones_like(x), x)  # noqa: E731
    biggest = [mask(ops.logical_and(r >= b, r >= g)), mask(ops.logical_and(g > r, g >= b)),
               mask(ops.logical_and(b > r, b > g))]
    smallest = [mask(ops.logical_and(r < b, r < g)), mask(ops.logical_and(g <= r, g < b)),
                mask(ops.logical_and(b <= r, b <= g))]
    positive = [mask(x > 0) for x in channels]
    grads = []
    for c in range(3):
        nxt, prv = (c + 1) % 3, (c + 2) % 3  # the channels after and before c in r -> g -> b -> r
        x = channels[c]
        others = (nxt, prv)
        d_value = biggest[c]
        d_sat = positive[c] * (biggest[c] * ops.add_n([smallest[o] * channels[o] for o in others]) * recip(ops.square(x))
                               - smallest[c] * recip(ops.add_n([biggest[o] * channels[o] for o in others])))
        # c the largest: -(next - previous) / (S V)^2
        hue_terms = [-positive[c] * biggest[c] * (channels[nxt] - channels[prv])
                     * recip(ops.square(sat)) * recip(ops.square(val))]
        for m in others:  # another channel m the largest
            third = nxt if m == prv else prv
            # c the smallest: (previous - next) / (m - c)^2; c in the middle: -+1 / (m - third)
            hue_terms.append(positive[m] * biggest[m] * smallest[c] * (channels[prv] - channels[nxt])
                             * recip(ops.square(channels[m] - x)))
            sign = 1.0 if m == prv else -1.0
            hue_terms.append(positive[m] * biggest[m] * smallest[third] * sign * recip(channels[m] - channels[third]))
        d_hue = ops.add_n(hue_terms) / 6.0
        grads.append(ops.add_n([ops.gather(dy, 2, axis=-1) * d_value, ops.gather(dy, 1, axis=-1) * d_sat,
                                ops.gather(dy, 0, axis=-1) * d_hue]))
    return ops.stack(grads, axis=-1)


def hsv_to_rgb(images, name=None):
    """tf.HSVToRGB."""
    return HSVToRGB.bind(as_tensor(images))


def _mix(what, images, matrix):
    images = as_tensor(images)
    _check_channels(what, images, 3)
    if images.dtype.kind != "f":
        raise InvalidArgumentError(f"tt.image.{what}: images must be floating point, got {images.dtype.name}",
                                   "tf.Tensordot")
    return ops.tensordot(images, matrix.astype(images.dtype.np), [[-1], [0]])


def rgb_to_yuv(images):
    """Y in [0, 1], U and V in [-0.5, 0.5] (BT.601)."""
    return _mix("rgb_to_yuv", images, RGB_TO_YUV)


def yuv_to_rgb(images):
    return _mix("yuv_to_rgb", images, np.linalg.inv(RGB_TO_YUV))


def rgb_to_yiq(images):
    """Y in [0, 1], I in [-0.5959, 0.5959], Q in [-0.5227, 0.5227] (NTSC)."""
    return _mix("rgb_to_yiq", images, RGB_TO_YIQ)


def yiq_to_rgb(images):
    return _mix("yiq_to_rgb", images, YIQ_TO_RGB)


def adjust_brightness(image, delta):
    """``image + delta`` (in [0, 1] units), saturated back to the input's dtype."""
    image, flt = _as_float(image)
    return convert_image_dtype(ops.add(flt, ops.cast(as_tensor(delta), flt.dtype)), image.dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """tf.AdjustContrastv2 on the float image: each channel pushed from its mean by ``contrast_factor``."""
    images, flt = _as_float(images)
    factor = ops.cast(as_tensor(contrast_factor), dtypes.float32)
    return convert_image_dtype(AdjustContrastv2.bind(flt, factor), images.dtype, saturate=True)


def adjust_saturation(image, saturation_factor, name=None):
    """tf.AdjustSaturation: the saturation scaled by ``saturation_factor``."""
    image, flt = _as_float(image)
    adjusted = AdjustSaturation.bind(flt, ops.cast(as_tensor(saturation_factor), dtypes.float32))
    return convert_image_dtype(adjusted, image.dtype)


def adjust_hue(image, delta, name=None):
    """tf.AdjustHue: the hue turned by ``delta`` in [-1, 1]."""
    if isinstance(delta, int | float) and not -1 <= delta <= 1:
        raise InvalidArgumentError(f"tt.image.adjust_hue: delta must be in the interval [-1, 1], got {delta}",
                                   "tf.AdjustHue")
    image, flt = _as_float(image)
    return convert_image_dtype(AdjustHue.bind(flt, ops.cast(as_tensor(delta), dtypes.float32)), image.dtype)


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` on the float image (gamma >= 0), saturated back to the input's dtype."""
    if isinstance(gamma, int | float) and gamma < 0:
        raise InvalidArgumentError(f"tt.image.adjust_gamma: Gamma should be a non-negative real number, got {gamma}",
                                   "tf.Pow")
    image, flt = _as_float(image)
    gamma = ops.cast(as_tensor(gamma), flt.dtype)
    adjusted = ops.multiply(ops.cast(as_tensor(gain), flt.dtype), ops.pow(flt, gamma))
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def per_image_standardization(image):
    """Each image (the last three dims) scaled to mean 0 and variance 1: (x - mean) / max(stddev, 1/sqrt(N))."""
    image = ops.cast(as_tensor(image), dtypes.float32)
    dims = static_dims(image)
    if dims is None or len(dims) < 3 or any(d is None for d in dims[-3:]):
        raise InvalidArgumentError(f"tt.image.per_image_standardization: 'image' must be at least three-dimensional "
                                   f"with a known [height, width, channels], got {dims}", "tf.Mean")
    axes = [-1, -2, -3]
    mean = ops.reduce_mean(image, axes, keepdims=True)
    centred = ops.subtract(image, mean)
    stddev = ops.sqrt(ops.reduce_mean(ops.square(centred), axes, keepdims=True))
    floor = np.float32(1) / np.sqrt(np.float32(np.prod(dims[-3:])))
    return ops.divide(centred, ops.maximum(stddev, floor))


# --- random adjustments: one uniform draw each, from tt.random (stateful) or stateless_uniform ---------

def _uniform(lower, upper, seed):
    return uniform([], lower, upper, seed=seed)


def _stateless_uniform(lower, upper, seed):
    return stateless_uniform([], seed, lower, upper)


def _check_range(what, lower, upper, minimum=0.0):
    if upper <= lower:
        raise InvalidArgumentError(f"tt.image.{what}: upper must be > lower, got {lower} and {upper}", "tf.Add")
    if lower < minimum:
        raise InvalidArgumentError(f"tt.image.{what}: lower must be non-negative, got {lower}", "tf.Add")


def _check_delta(what, max_delta, limit=None):
    if max_delta < 0 or (limit is not None and max_delta > limit):
        raise InvalidArgumentError(f"tt.image.{what}: max_delta must be in [0, {limit or 'inf'}], got {max_delta}",
                                   "tf.Add")


def random_brightness(image, max_delta, seed=None):
    _check_delta("random_brightness", max_delta)
    return adjust_brightness(image, _uniform(-max_delta, max_delta, seed))


def stateless_random_brightness(image, max_delta, seed):
    _check_delta("stateless_random_brightness", max_delta)
    return adjust_brightness(image, _stateless_uniform(-max_delta, max_delta, seed))


def random_contrast(image, lower, upper, seed=None):
    _check_range("random_contrast", lower, upper)
    return adjust_contrast(image, _uniform(lower, upper, seed))


def stateless_random_contrast(image, lower, upper, seed):
    _check_range("stateless_random_contrast", lower, upper)
    return adjust_contrast(image, _stateless_uniform(lower, upper, seed))


def random_hue(image, max_delta, seed=None):
    _check_delta("random_hue", max_delta, 0.5)
    return adjust_hue(image, _uniform(-max_delta, max_delta, seed))


def stateless_random_hue(image, max_delta, seed):
    _check_delta("stateless_random_hue", max_delta, 0.5)
    return adjust_hue(image, _stateless_uniform(-max_delta, max_delta, seed))


def random_saturation(image, lower, upper, seed=None):
    _check_range("random_saturation", lower, upper)
    return adjust_saturation(image, _uniform(lower, upper, seed))


def stateless_random_saturation(image, lower, upper, seed):
    _check_range("stateless_random_saturation", lower, upper)
    return adjust_saturation(image, _stateless_uniform(lower, upper, seed))
