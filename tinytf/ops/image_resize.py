"""Resizing images: ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea, ScaleAndTranslate
(lanczos, gaussian, mitchellcubic and antialiasing), their gradient ops, and the shared resize rules.

    %r = "tf.ResizeBilinear"(%images, %size) <{align_corners = false, half_pixel_centers = true}>
           : (tensor<1x4x6x3xf32>, tensor<2xi32>) -> tensor<1x8x12x3xf32>

Each op is separable: the rows and the columns are each multiplied by a weight matrix placed by
TensorFlow's sampling arithmetic (image_resize_kernels.py), the same in numpy and jax.numpy; the
gradient ops multiply by the transposed matrices. tt.image.resize lives in image_resize_api.py.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NoGradient, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.image_resize_kernels import (
    SAMPLING_KERNELS,
    area_weights,
    bicubic_weights,
    bilinear_weights,
    nearest_indices,
    nearest_weights,
    scale_and_translate_weights,
)
from tinytf.ops.operands import check_index, const_value

__all__: list[str] = []  # raw ops only (tt.raw_ops.ResizeBilinear, ...); tt.image.resize is image_resize_api's

# TensorFlow's "T" of the resize ops: every real number type but int8/uint16's absence in a few.
IMAGE_KINDS = "fiu"


def check_images(op_name: str, spec: TensorSpec, what: str = "input") -> TensorSpec:
    if spec.dtype.kind not in IMAGE_KINDS:
        raise InvalidArgumentError(f"{op_name}: {what} of dtype {spec.dtype.name} is not supported", op_name)
    if spec.shape is not None and len(spec.shape) != 4:
        raise InvalidArgumentError(f"{op_name}: {what} must be 4-dimensional, got shape {fmt_shape(spec.shape)}", op_name)
    return spec


def check_size(op_name: str, size, what: str = "size") -> tuple[int, int] | None:
    """The size operand's two positive ints when known (else None)."""
    if isinstance(size, TensorSpec):
        check_index(op_name, size, what, rank=1)
        if size.shape is not None and size.shape[0] not in (None, 2):
            raise InvalidArgumentError(f"{op_name}: {what} must have two elements, got shape {fmt_shape(size.shape)}",
                                       op_name)
        size = const_value(size)
        if size is None:
            return None
    size = np.asarray(size)  # (a run-time size under XLA: its NeedsConstant)
    if size.shape != (2,):
        raise InvalidArgumentError(f"{op_name}: {what} must have two elements, got shape {list(size.shape)}", op_name)
    height, width = (int(v) for v in size)
    if height <= 0 or width <= 0:
        raise InvalidArgumentError(f"{op_name}: output dimensions must be positive, got [{height}, {width}]", op_name)
    return height, width


def checked_resize(op_name: str, images, size, out_dtype) -> tuple[int, int, int, int]:
    """The input's height and width and the output's, after the run-time checks of a resize."""
    if images.ndim != 4:
        raise InvalidArgumentError(f"{op_name}: input must be 4-dimensional, got shape {list(images.shape)}", op_name)
    height, width = check_size(op_name, size)
    batch, in_h, in_w, channels = images.shape
    if (in_h == 0 or in_w == 0) and batch * channels:
        raise InvalidArgumentError(f"{op_name}: input image must be of non-zero size, got {list(images.shape)}", op_name)
    check_allocation(op_name, (batch, height, width, channels), out_dtype)
    return in_h, in_w, height, width


def separable(xp, images, rows: np.ndarray, cols: np.ndarray, dtype=np.float32):
    """``rows · image · colsᵀ`` for every image and channel: [b, h, w, c] -> [b, rows, cols, c]."""
    x = images.astype(dtype)
    x = xp.einsum("oh,bhwc->bowc", rows.astype(dtype), x)
    return xp.einsum("bowc,pw->bopc", x, cols.astype(dtype))


class _Resize(Op):
    """Shared rules: ``images`` [batch, height, width, channels], ``size`` [new_height, new_width]."""

    images = operand_def()
    size = operand_def()
    resized_images = result_def()
    align_corners = attr(False)
    traits = traits_def(Pure())
    OUT_DTYPE: ClassVar = dtypes.float32  # None: the input's

    @classmethod
    def check_attrs(cls, attrs):
        if attrs.get("align_corners") and attrs.get("half_pixel_centers"):
            raise InvalidArgumentError(f"{cls.name}: If half_pixel_centers is True, align_corners must be False.",
                                       cls.name)

    @classmethod
    def infer(cls, images, size, **attrs):
        check_images(cls.name, images)
        cls.check_attrs(attrs)
        out = check_size(cls.name, size)
        batch, _, _, channels = images.shape if images.shape is not None else (None,) * 4
        shape = (batch, *(out or (None, None)), channels)
        return TensorSpec(shape, cls.OUT_DTYPE or images.dtype)

    @classmethod
    def checked(cls, images, size, attrs) -> tuple[int, int, int, int]:
        cls.check_attrs(attrs)
        return checked_resize(cls.name, images, size, cls.OUT_DTYPE or images.dtype)


@register
class ResizeBilinear(_Resize):
    """Bilinear interpolation; float32 out.  tf.image.resize's "bilinear" (half_pixel_centers=True)."""

    name = "tf.ResizeBilinear"
    half_pixel_centers = attr(False)

    @classmethod
    def compute(cls, xp, images, size, **attrs):
        in_h, in_w, h, w = cls.checked(images, size, attrs)
        ac, hp = attrs["align_corners"], attrs["half_pixel_centers"]
        return separable(xp, images, bilinear_weights(in_h, h, ac, hp), bilinear_weights(in_w, w, ac, hp))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = W_rows x W_colsᵀ: dx = W_rowsᵀ U W_cols
        return [ResizeBilinearGrad.bind(dy, op.inputs[0], **op.attrs), None]


@register
class ResizeBicubic(_Resize):
    """Cubic convolution (Keys a = -0.5 with half-pixel centres, a = -0.75 without); float32 out."""

    name = "tf.ResizeBicubic"
    half_pixel_centers = attr(False)

    @classmethod
    def compute(cls, xp, images, size, **attrs):
        in_h, in_w, h, w = cls.checked(images, size, attrs)
        ac, hp = attrs["align_corners"], attrs["half_pixel_centers"]
        return separable(xp, images, bicubic_weights(in_h, h, ac, hp), bicubic_weights(in_w, w, ac, hp))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dx = W_rowsᵀ U W_cols (the cubic weights)
        return [ResizeBicubicGrad.bind(dy, op.inputs[0], **op.attrs), None]


@register
class ResizeArea(_Resize):
    """Each output pixel the coverage-weighted mean of the input pixels under it; float32 out.
    TensorFlow defines no gradient for it."""

    name = "tf.ResizeArea"
    traits = traits_def(Pure(), NoGradient())

    @classmethod
    def compute(cls, xp, images, size, **attrs):
        in_h, in_w, h, w = cls.checked(images, size, attrs)
        ac = attrs["align_corners"]
        return separable(xp, images, area_weights(in_h, h, ac), area_weights(in_w, w, ac))


@register
class ResizeNearestNeighbor(_Resize):
    """Each output pixel a copy of one input pixel; the input's dtype out."""

    name = "tf.ResizeNearestNeighbor"
    half_pixel_centers = attr(False)
    OUT_DTYPE: ClassVar = None

    @classmethod
    def compute(cls, xp, images, size, **attrs):
        in_h, in_w, h, w = cls.checked(images, size, attrs)
        ac, hp = attrs["align_corners"], attrs["half_pixel_centers"]
        rows = xp.take(images, nearest_indices(in_h, h, ac, hp), axis=1)
        return xp.take(rows, nearest_indices(in_w, w, ac, hp), axis=2)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dx[i] = the sum of U over the outputs that copied pixel i
        from tinytf.ops.op_functions import ops

        image_size = ops.strided_slice(ops.shape(op.inputs[0]), [1], [3])
        return [ResizeNearestNeighborGrad.bind(dy, image_size, **op.attrs), None]


# --- gradient ops ------------------------------------------------------------------------------------

class _ResizeGrad(Op):
    """``grads`` [batch, out_h, out_w, c] back to ``original_image``'s shape and dtype."""

    grads = operand_def()
    original_image = operand_def()
    output = result_def()
    align_corners = attr(False)
    half_pixel_centers = attr(False)
    traits = traits_def(Pure(), NotDifferentiable())
    WEIGHTS: ClassVar = None

    @classmethod
    def infer(cls, grads, original_image, **attrs):
        ResizeBilinear.check_attrs(attrs)
        check_images(cls.name, grads, "grads")
        check_images(cls.name, original_image, "original_image")
        if grads.dtype != dtypes.float32 or original_image.dtype.kind != "f":
            raise InvalidArgumentError(f"{cls.name}: grads must be float32 and original_image floating point, got "
                                       f"{grads.dtype.name} and {original_image.dtype.name}", cls.name)
        return TensorSpec(original_image.shape, original_image.dtype)

    @classmethod
    def compute(cls, xp, grads, original_image, **attrs):
        ResizeBilinear.check_attrs(attrs)
        for what, value in (("grads", grads), ("original_image", original_image)):
            if value.ndim != 4:
                raise InvalidArgumentError(f"{cls.name}: {what} must be 4-dimensional, got {list(value.shape)}", cls.name)
        (batch, out_h, out_w, channels), (b2, in_h, in_w, c2) = grads.shape, original_image.shape
        if (batch, channels) != (b2, c2) or (min(in_h, in_w) == 0 and out_h * out_w):
            raise InvalidArgumentError(f"{cls.name}: grads {list(grads.shape)} do not fit original_image "
                                       f"{list(original_image.shape)}", cls.name)
        ac, hp = attrs["align_corners"], attrs["half_pixel_centers"]
        rows, cols = cls.WEIGHTS(in_h, out_h, ac, hp), cls.WEIGHTS(in_w, out_w, ac, hp)
        return separable(xp, grads, rows.T, cols.T).astype(original_image.dtype)


@register
class ResizeBilinearGrad(_ResizeGrad):
    """The gradient of ResizeBilinear with respect to its images."""

    name = "tf.ResizeBilinearGrad"
    WEIGHTS: ClassVar = staticmethod(bilinear_weights)


@register
class ResizeBicubicGrad(_ResizeGrad):
    """The gradient of ResizeBicubic with respect to its images."""

    name = "tf.ResizeBicubicGrad"
    WEIGHTS: ClassVar = staticmethod(bicubic_weights)


@register
class ResizeNearestNeighborGrad(Op):
    """The gradient of ResizeNearestNeighbor: each input pixel sums the grads of the outputs copying it."""

    name = "tf.ResizeNearestNeighborGrad"
    grads = operand_def()
    size = operand_def()
    output = result_def()
    align_corners = attr(False)
    half_pixel_centers = attr(False)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, grads, size, **attrs):
        ResizeBilinear.check_attrs(attrs)
        check_images(cls.name, grads, "grads")
        out = check_size(cls.name, size)
        batch, _, _, channels = grads.shape if grads.shape is not None else (None,) * 4
        return TensorSpec((batch, *(out or (None, None)), channels), grads.dtype)

    @classmethod
    def compute(cls, xp, grads, size, **attrs):
        ResizeBilinear.check_attrs(attrs)
        if grads.ndim != 4:
            raise InvalidArgumentError(f"{cls.name}: grads must be 4-dimensional, got {list(grads.shape)}", cls.name)
        in_h, in_w = check_size(cls.name, size)
        batch, out_h, out_w, channels = grads.shape
        check_allocation(cls.name, (batch, in_h, in_w, channels), grads.dtype)
        ac, hp = attrs["align_corners"], attrs["half_pixel_centers"]
        rows, cols = nearest_weights(in_h, out_h, ac, hp), nearest_weights(in_w, out_w, ac, hp)
        return separable(xp, grads, rows.T, cols.T, dtype=grads.dtype)


# --- ScaleAndTranslate --------------------------------------------------------------------------------

def _scale_translate(op_name, scale, translation):
    values = []
    for what, value in (("scale", scale), ("translation", translation)):
        value = np.asarray(value, np.float32)  # (run-time values under XLA: its NeedsConstant)
        if value.shape != (2,):
            raise InvalidArgumentError(f"{op_name}: {what} must have two elements, got shape {list(value.shape)}",
                                       op_name)
        values.append(value)
    if not np.all(values[0] > 0) or not np.all(np.isfinite(np.concatenate(values))):
        raise InvalidArgumentError(f"{op_name}: scale must be positive and both finite, got {values}", op_name)
    return values


def _kernel_type(op_name, attrs):
    kind = attrs["kernel_type"]
    if kind not in SAMPLING_KERNELS:
        raise InvalidArgumentError(f"{op_name}: unrecognized kernel type {kind!r} (one of {sorted(SAMPLING_KERNELS)})",
                                   op_name)
    return kind


def _scale_translate_weights(op_name, in_hw, out_hw, scale, translation, attrs):
    (sy, sx), (ty, tx) = _scale_translate(op_name, scale, translation)
    kind = _kernel_type(op_name, attrs)
    return (scale_and_translate_weights(in_hw[0], out_hw[0], float(sy), float(ty), kind, attrs["antialias"]),
            scale_and_translate_weights(in_hw[1], out_hw[1], float(sx), float(tx), kind, attrs["antialias"]))


@register
class ScaleAndTranslate(Op):
    """Resampling with a kernel (lanczos1/3/5, gaussian, box, triangle, keyscubic, mitchellcubic): output
    pixel x samples the input at (x + 0.5 - translation) / scale; antialias widens the kernel on downscaling."""

    name = "tf.ScaleAndTranslate"
    images = operand_def()
    size = operand_def()
    scale = operand_def()
    translation = operand_def()
    resized_images = result_def()
    kernel_type = attr("lanczos3")
    antialias = attr(True)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, images, size, scale, translation, **attrs):
        check_images(cls.name, images)
        _kernel_type(cls.name, attrs)
        for what, spec in (("scale", scale), ("translation", translation)):
            if spec.dtype != dtypes.float32:
                raise InvalidArgumentError(f"{cls.name}: {what} must be float32, got {spec.dtype.name}", cls.name)
        out = check_size(cls.name, size)
        batch, _, _, channels = images.shape if images.shape is not None else (None,) * 4
        return TensorSpec((batch, *(out or (None, None)), channels), dtypes.float32)

    @classmethod
    def compute(cls, xp, images, size, scale, translation, **attrs):
        in_h, in_w, h, w = checked_resize(cls.name, images, size, dtypes.float32)
        rows, cols = _scale_translate_weights(cls.name, (in_h, in_w), (h, w), scale, translation, attrs)
        return separable(xp, images, rows, cols)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dx = W_rowsᵀ U W_cols (the kernel's span weights)
        return [ScaleAndTranslateGrad.bind(dy, op.inputs[0], op.inputs[2], op.inputs[3], **op.attrs), None, None, None]


@register
class ScaleAndTranslateGrad(Op):
    """The gradient of ScaleAndTranslate with respect to its images (float32)."""

    name = "tf.ScaleAndTranslateGrad"
    grads = operand_def()
    original_image = operand_def()
    scale = operand_def()
    translation = operand_def()
    output = result_def()
    kernel_type = attr("lanczos3")
    antialias = attr(True)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, grads, original_image, scale, translation, **attrs):
        check_images(cls.name, grads, "grads")
        check_images(cls.name, original_image, "original_image")
        _kernel_type(cls.name, attrs)
        if grads.dtype != dtypes.float32 or original_image.dtype != dtypes.float32:
            raise InvalidArgumentError(f"{cls.name}: grads and original_image must be float32, got "
                                       f"{grads.dtype.name} and {original_image.dtype.name}", cls.name)
        return TensorSpec(original_image.shape, dtypes.float32)

    @classmethod
    def compute(cls, xp, grads, original_image, scale, translation, **attrs):
        for what, value in (("grads", grads), ("original_image", original_image)):
            if value.ndim != 4:
                raise InvalidArgumentError(f"{cls.name}: {what} must be 4-dimensional, got {list(value.shape)}", cls.name)
        (batch, out_h, out_w, channels), (b2, in_h, in_w, c2) = grads.shape, original_image.shape
        if (batch, channels) != (b2, c2):
            raise InvalidArgumentError(f"{cls.name}: grads {list(grads.shape)} do not fit original_image "
                                       f"{list(original_image.shape)}", cls.name)
        rows, cols = _scale_translate_weights(cls.name, (in_h, in_w), (out_h, out_w), scale, translation, attrs)
        return separable(xp, grads, rows.T, cols.T)
