"""CropAndResize and its two gradient ops, and tt.image.crop_and_resize: boxes cut from a batch of images
and resampled (bilinear or nearest) to one crop size, as TensorFlow's crop_and_resize_op.cc places samples.

    %c = "tf.CropAndResize"(%image, %boxes, %box_ind, %crop_size) <{extrapolation_value = 0.0 : f32,
           method = "bilinear"}> : (tensor<2x24x20x3xf32>, tensor<5x4xf32>, tensor<5xi32>, tensor<2xi32>)
           -> tensor<5x4x6x3xf32>

A box [y1, x1, y2, x2] in normalised coordinates samples the crop's row y at y1 (h - 1) + y (y2 - y1)
(h - 1) / (crop_h - 1) (its middle when crop_h is 1); samples outside the image take extrapolation_value.
Each crop is ``Wy · image[box_ind] · Wxᵀ`` with per-box weight matrices built in xp from the boxes, so
the same code runs in numpy and under XLA, and the gradients are the adjoint products.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.image_resize import check_images, check_size
from tinytf.ops.operands import check_index, const_value

__all__ = ["crop_and_resize"]
__namespaces__ = {"crop_and_resize": ("image",)}

METHODS = ("bilinear", "nearest")


def _check_boxes(op_name, boxes, box_ind):
    if boxes.dtype != dtypes.float32 or (boxes.shape is not None and (len(boxes.shape) != 2 or boxes.shape[1] not in (None, 4))):
        raise InvalidArgumentError(f"{op_name}: boxes must be float32 [num_boxes, 4], got {boxes.dtype.name} "
                                   f"{fmt_shape(boxes.shape)}", op_name)
    check_index(op_name, box_ind, "box_index", rank=1)
    if boxes.shape is not None and box_ind.shape is not None and None not in (boxes.shape[0], box_ind.shape[0]) \
            and boxes.shape[0] != box_ind.shape[0]:
        raise InvalidArgumentError(f"{op_name}: box_index has incompatible shape {fmt_shape(box_ind.shape)} for boxes "
                                   f"{fmt_shape(boxes.shape)}", op_name)
    return None if boxes.shape is None else boxes.shape[0]


def _check_arrays(op_name, image_shape, boxes, box_ind):
    if boxes.ndim != 2 or boxes.shape[1] != 4 or box_ind.shape != (boxes.shape[0],):
        raise InvalidArgumentError(f"{op_name}: boxes must be [num_boxes, 4] and box_index [num_boxes], got "
                                   f"{list(boxes.shape)} and {list(box_ind.shape)}", op_name)
    if isinstance(box_ind, np.ndarray) and box_ind.size and (box_ind.min() < 0 or box_ind.max() >= image_shape[0]):
        raise InvalidArgumentError(f"{op_name}: box_index has values outside [0, {image_shape[0]})", op_name)
    if image_shape[1] <= 0 or image_shape[2] <= 0:
        raise InvalidArgumentError(f"{op_name}: image dimensions must be positive, got {list(image_shape)}", op_name)


def sample_positions(xp, start, end, size: int, crop: int):
    """[num_boxes, crop] positions in pixels along one axis, and whether each is inside the image."""
    start, end = start.astype(np.float32), end.astype(np.float32)
    last = np.float32(size - 1)
    if crop > 1:
        divisor = np.float32(crop - 1)
        if xp is not np:  # XLA turns a division by a constant into a product with its reciprocal: not TF's rounding
            divisor = _barrier(xp.full(start.shape, divisor))
        step = (end - start) * last / divisor
        pos = start[:, None] * last + np.arange(crop, dtype=np.float32)[None, :] * step[:, None]  # (XLA: one FMA)
    else:
        pos = (np.float32(0.5) * (start + end) * last)[:, None]
    return pos, (pos >= 0) & (pos <= last)


def _barrier(value):
    import jax

    return jax.lax.optimization_barrier(value)


def axis_weights(xp, pos, size: int, method: str):
    """[num_boxes, crop, size] interpolation weights (and, for bilinear, their derivative in pos)."""
    pixels = np.arange(size, dtype=np.float32)[None, None, :]
    if method == "nearest":
        return (xp.floor(pos + np.float32(0.5))[..., None] == pixels).astype(np.float32), None
    top, bottom = xp.floor(pos)[..., None], xp.ceil(pos)[..., None]
    lerp = (pos - xp.floor(pos))[..., None]
    is_top, is_bottom = (top == pixels).astype(np.float32), (bottom == pixels).astype(np.float32)
    return is_top * (1 - lerp) + is_bottom * lerp, is_bottom - is_top


def _geometry(xp, image_shape, boxes, crop, method):
    (_, height, width, _), (crop_h, crop_w) = image_shape, crop
    pos_y, valid_y = sample_positions(xp, boxes[:, 0], boxes[:, 2], height, crop_h)
    pos_x, valid_x = sample_positions(xp, boxes[:, 1], boxes[:, 3], width, crop_w)
    wy, dwy = axis_weights(xp, pos_y, height, method)
    wx, dwx = axis_weights(xp, pos_x, width, method)
    valid = (valid_y[:, :, None] & valid_x[:, None, :])[..., None]  # [n, crop_h, crop_w, 1]
    return wy, wx, dwy, dwx, valid


@register
class CropAndResize(Op):
    """Crops of ``image[box_ind]`` at ``boxes``, resampled to ``crop_size``; float32 out."""

    name = "tf.CropAndResize"
    image = operand_def()
    boxes = operand_def()
    box_ind = operand_def()
    crop_size = operand_def()
    crops = result_def()
    method = attr("bilinear")
    extrapolation_value = attr(0.0)
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, image, boxes, box_ind, crop_size, **attrs):
        check_images(cls.name, image, "image")
        if attrs["method"] not in METHODS:
            raise InvalidArgumentError(f"{cls.name}: method must be 'bilinear' or 'nearest', got {attrs['method']!r}",
                                       cls.name)
        num_boxes = _check_boxes(cls.name, boxes, box_ind)
        crop = check_size(cls.name, crop_size, "crop_size") or (None, None)
        channels = None if image.shape is None else image.shape[3]
        return TensorSpec((num_boxes, *crop, channels), dtypes.float32)

    @classmethod
    def compute(cls, xp, image, boxes, box_ind, crop_size, **attrs):
        if image.ndim != 4:
            raise InvalidArgumentError(f"{cls.name}: input image must be 4-D, got {list(image.shape)}", cls.name)
        crop = check_size(cls.name, crop_size, "crop_size")
        _check_arrays(cls.name, image.shape, boxes, box_ind)
        check_allocation(cls.name, (boxes.shape[0], *crop, image.shape[3]), dtypes.float32)
        wy, wx, _, _, valid = _geometry(xp, image.shape, boxes, crop, attrs["method"])
        crops = xp.einsum("nyh,nhwc->nywc", wy, xp.take(image, box_ind, axis=0).astype(np.float32))
        crops = xp.einsum("nywc,nxw->nyxc", crops, wx)
        return xp.where(valid, crops, np.float32(attrs["extrapolation_value"]))

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: d image = Σ_boxes Wyᵀ U Wx; d boxes from ∂W/∂position (bilinear)
        from tinytf.ops.op_functions import ops

        image, boxes, box_ind, _ = op.inputs
        d_image = None
        if image.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
            d_image = CropAndResizeGradImage.bind(dy, boxes, box_ind, ops.shape(image), T=image.dtype,
                                                  method=op.attrs["method"])
        return [d_image, CropAndResizeGradBoxes.bind(dy, image, boxes, box_ind), None, None]


def _check_grads(op_name, grads, boxes, box_ind):
    if grads.dtype != dtypes.float32 or (grads.shape is not None and len(grads.shape) != 4):
        raise InvalidArgumentError(f"{op_name}: grads must be 4-D float32, got {grads.dtype.name} "
                                   f"{fmt_shape(grads.shape)}", op_name)
    _check_boxes(op_name, boxes, box_ind)


@register
class CropAndResizeGradImage(Op):
    """The gradient of CropAndResize with respect to the image: each box's grads spread back by its weights."""

    name = "tf.CropAndResizeGradImage"
    grads = operand_def()
    boxes = operand_def()
    box_ind = operand_def()
    image_size = operand_def()
    output = result_def()
    T = attr(kind="type")
    method = attr("bilinear")
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, grads, boxes, box_ind, image_size, **attrs):
        _check_grads(cls.name, grads, boxes, box_ind)
        out_dtype = dtypes.as_dtype(attrs["T"])
        if out_dtype.kind != "f" or attrs["method"] not in METHODS:
            raise InvalidArgumentError(f"{cls.name}: T must be floating point and method bilinear or nearest, got "
                                       f"{out_dtype.name} and {attrs['method']!r}", cls.name)
        check_index(cls.name, image_size, "image_size", rank=1)
        size = const_value(image_size)
        return TensorSpec(None if size is None else tuple(int(v) for v in size.reshape(-1)), out_dtype)

    @classmethod
    def compute(cls, xp, grads, boxes, box_ind, image_size, **attrs):
        shape = tuple(int(v) for v in np.asarray(image_size).reshape(-1))  # (run-time sizes under XLA: NeedsConstant)
        if len(shape) != 4 or min(shape) <= 0 or grads.ndim != 4 or grads.shape[3] != shape[3]:
            raise InvalidArgumentError(f"{cls.name}: image_size {list(shape)} does not fit grads {list(grads.shape)}",
                                       cls.name)
        _check_arrays(cls.name, shape, boxes, box_ind)
        if grads.shape[0] != boxes.shape[0]:
            raise InvalidArgumentError(f"{cls.name}: grads {list(grads.shape)} and boxes {list(boxes.shape)} differ in "
                                       f"the number of boxes", cls.name)
        check_allocation(cls.name, shape, attrs["T"])
        wy, wx, _, _, valid = _geometry(xp, shape, boxes, grads.shape[1:3], attrs["method"])
        spread = xp.einsum("nyh,nyxc->nhxc", wy, xp.where(valid, grads, np.float32(0)))
        spread = xp.einsum("nhxc,nxw->nhwc", spread, wx)
        owner = (box_ind[:, None] == np.arange(shape[0])[None, :]).astype(np.float32)  # [n, batch]
        return xp.einsum("nb,nhwc->bhwc", owner, spread).astype(dtypes.as_dtype(attrs["T"]).np)


@register
class CropAndResizeGradBoxes(Op):
    """The gradient of CropAndResize with respect to the boxes (from bilinear sampling, whatever the method)."""

    name = "tf.CropAndResizeGradBoxes"
    grads = operand_def()
    image = operand_def()
    boxes = operand_def()
    box_ind = operand_def()
    output = result_def()
    method = attr("bilinear")
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, grads, image, boxes, box_ind, **attrs):
        _check_grads(cls.name, grads, boxes, box_ind)
        check_images(cls.name, image, "image")
        return TensorSpec(boxes.shape, dtypes.float32)

    @classmethod
    def compute(cls, xp, grads, image, boxes, box_ind, **attrs):
        if image.ndim != 4 or grads.ndim != 4 or grads.shape[3] != image.shape[3]:
            raise InvalidArgumentError(f"{cls.name}: grads {list(grads.shape)} do not fit image {list(image.shape)}",
                                       cls.name)
        _check_arrays(cls.name, image.shape, boxes, box_ind)
        if grads.shape[0] != boxes.shape[0]:
            raise InvalidArgumentError(f"{cls.name}: grads {list(grads.shape)} and boxes {list(boxes.shape)} differ in "
                                       f"the number of boxes", cls.name)
        (crop_h, crop_w), (_, height, width, _) = grads.shape[1:3], image.shape
        wy, wx, dwy, dwx, valid = _geometry(xp, image.shape, boxes, (crop_h, crop_w), "bilinear")
        picked = xp.take(image, box_ind, axis=0).astype(np.float32)
        g = xp.where(valid, grads, np.float32(0))
        # ∂out/∂pos_y = dWy · image · Wxᵀ and ∂out/∂pos_x = Wy · image · dWxᵀ, contracted with the grads
        d_pos_y = xp.einsum("nyxc,nyxc->ny", g, xp.einsum("nywc,nxw->nyxc", xp.einsum("nyh,nhwc->nywc", dwy, picked), wx))
        d_pos_x = xp.einsum("nyxc,nyxc->nx", g, xp.einsum("nywc,nxw->nyxc", xp.einsum("nyh,nhwc->nywc", wy, picked), dwx))
        out = []
        for d_pos, size, crop in ((d_pos_y, height, crop_h), (d_pos_x, width, crop_w)):
            last = np.float32(size - 1)
            if crop > 1:
                frac = np.arange(crop, dtype=np.float32) / np.float32(crop - 1)
                out.append((xp.sum(d_pos * (1 - frac), axis=1) * last, xp.sum(d_pos * frac, axis=1) * last))
            else:
                half = xp.sum(d_pos, axis=1) * np.float32(0.5) * last
                out.append((half, half))
        (dy1, dy2), (dx1, dx2) = out
        return xp.stack([dy1, dx1, dy2, dx2], axis=1).astype(np.float32)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None):
    """``tt.image.crop_and_resize`` (TensorFlow 2's argument names)."""
    from tinytf.ops.tensor_inputs import as_tensor

    boxes = as_tensor(boxes, dtypes.float32) if not hasattr(boxes, "dtype") else boxes
    box_indices = as_tensor(np.asarray(box_indices, np.int32)) if not hasattr(box_indices, "dtype") else box_indices
    crop = as_tensor(np.asarray(crop_size, np.int32)) if not hasattr(crop_size, "dtype") else crop_size
    return CropAndResize.bind(as_tensor(image), boxes, box_indices, crop, method=method,
                              extrapolation_value=float(extrapolation_value))
