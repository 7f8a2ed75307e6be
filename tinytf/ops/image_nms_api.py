"""CombinedNonMaxSuppression (per class, then the best over classes, per batch) and tt.image's non-max
suppression functions on the ops of image_nms.py.

    %b, %s, %c, %n = "tf.CombinedNonMaxSuppression"(%boxes, %scores, %per_class, %total, %iou, %score)
        <{clip_boxes = true, pad_per_class = false}> : (tensor<2x30x1x4xf32>, tensor<2x30x3xf32>, ...)
        -> (tensor<2x9x4xf32>, tensor<2x9xf32>, tensor<2x9xf32>, tensor<2xi32>)

    tt.image.non_max_suppression(boxes, scores, 10, iou_threshold=0.5)   # selected indices, best first
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.image_nms import (
    NonMaxSuppressionV3,
    NonMaxSuppressionV4,
    NonMaxSuppressionV5,
    NonMaxSuppressionWithOverlaps,
    greedy_select,
    iou_matrix,
)
from tinytf.ops.operands import const_value
from tinytf.ops.tensor_inputs import as_tensor

__all__ = ["non_max_suppression", "non_max_suppression_with_scores", "non_max_suppression_padded",
           "non_max_suppression_overlaps", "combined_non_max_suppression"]
__namespaces__ = {n: ("image",) for n in __all__}


def _scalar_value(spec):
    value = const_value(spec)
    return None if value is None else int(value)


@register
class CombinedNonMaxSuppression(Op):
    """Greedy NMS per batch and class (at most max_output_size_per_class each), then the max_total_size best
    over all classes, zero-padded; boxes clipped to [0, 1] with clip_boxes."""

    name = "tf.CombinedNonMaxSuppression"
    boxes = operand_def()
    scores = operand_def()
    max_output_size_per_class = operand_def()
    max_total_size = operand_def()
    iou_threshold = operand_def()
    score_threshold = operand_def()
    nmsed_boxes = result_def()
    nmsed_scores = result_def()
    nmsed_classes = result_def()
    valid_detections = result_def()
    pad_per_class = attr(False)
    clip_boxes = attr(True)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold, **attrs):
        if boxes.dtype != dtypes.float32 or scores.dtype != dtypes.float32:
            raise InvalidArgumentError(f"{cls.name}: boxes and scores must be float32", cls.name)
        if boxes.shape is not None and (len(boxes.shape) != 4 or boxes.shape[3] not in (None, 4)):
            raise InvalidArgumentError(f"{cls.name}: boxes must be 4-D [batch, num_boxes, q, 4], got "
                                       f"{fmt_shape(boxes.shape)}", cls.name)
        if scores.shape is not None and len(scores.shape) != 3:
            raise InvalidArgumentError(f"{cls.name}: scores must be 3-D [batch, num_boxes, num_classes], got "
                                       f"{fmt_shape(scores.shape)}", cls.name)
        for what, spec in (("max_output_size_per_class", max_output_size_per_class), ("max_total_size", max_total_size),
                           ("iou_threshold", iou_threshold), ("score_threshold", score_threshold)):
            if spec.shape is not None and len(spec.shape) != 0:
                raise InvalidArgumentError(f"{cls.name}: {what} must be 0-D, got {fmt_shape(spec.shape)}", cls.name)
        batch = None if boxes.shape is None else boxes.shape[0]
        per_class, total = _scalar_value(max_output_size_per_class), _scalar_value(max_total_size)
        classes = None if scores.shape is None else scores.shape[2]
        size = total
        if attrs["pad_per_class"] and None not in (per_class, total, classes):
            size = min(per_class * classes, total)
        elif attrs["pad_per_class"]:
            size = None
        return [TensorSpec((batch, size, 4), dtypes.float32), TensorSpec((batch, size), dtypes.float32),
                TensorSpec((batch, size), dtypes.float32), TensorSpec((batch,), dtypes.int32)]

    @classmethod
    def compute(cls, xp, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold,
                **attrs):
        if xp is not np:
            raise UnimplementedError(f"{cls.name}: does not compile to XLA here (its selection is a host loop)",
                                     cls.name)
        if boxes.ndim != 4 or boxes.shape[3] != 4 or scores.ndim != 3 or scores.shape[:2] != boxes.shape[:2] \
                or boxes.shape[2] not in (1, scores.shape[2]):
            raise InvalidArgumentError(f"{cls.name}: boxes {list(boxes.shape)} and scores {list(scores.shape)} do not "
                                       "fit ([batch, num_boxes, q, 4] with q 1 or num_classes; [batch, num_boxes, "
                                       "num_classes])", cls.name)
        per_class, total = int(max_output_size_per_class), int(max_total_size)
        if per_class <= 0 or total <= 0 or not 0 <= float(iou_threshold) <= 1:
            raise InvalidArgumentError(f"{cls.name}: max_output_size_per_class ({per_class}) and max_total_size "
                                       f"({total}) must be positive and iou_threshold in [0, 1]", cls.name)
        batch, _, q, _ = boxes.shape
        classes = scores.shape[2]
        size = min(per_class * classes, total) if attrs["pad_per_class"] else total
        out_boxes = np.zeros((batch, size, 4), np.float32)
        out_scores = np.zeros((batch, size), np.float32)
        out_classes = np.zeros((batch, size), np.float32)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):
            found = []  # (score, class, box)
            for c in range(classes):
                class_boxes = boxes[b, :, 0 if q == 1 else c].astype(np.float32)
                picked, picked_scores = greedy_select(iou_matrix(np, class_boxes), scores[b, :, c], per_class,
                                                      float(iou_threshold), float(score_threshold))
                found += [(s, c, class_boxes[i]) for i, s in zip(picked, picked_scores, strict=True)]
            found.sort(key=lambda item: -item[0])  # (TensorFlow's sort is not stable: ties may differ)
            found = found[:size]
            valid[b] = len(found)
            for k, (s, c, box) in enumerate(found):
                out_boxes[b, k] = np.clip(box, 0, 1) if attrs["clip_boxes"] else box
                out_scores[b, k], out_classes[b, k] = s, c
        return out_boxes, out_scores, out_classes, valid


def _f32(value):
    return as_tensor(value, dtypes.float32) if not hasattr(value, "dtype") else value


def _int(value):
    return as_tensor(np.asarray(value, np.int32)) if not hasattr(value, "dtype") else value


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """tf.NonMaxSuppressionV3: the selected boxes' indices, best score first."""
    return NonMaxSuppressionV3.bind(_f32(boxes), _f32(scores), _int(max_output_size), _f32(iou_threshold),
                                    _f32(score_threshold))


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """tf.NonMaxSuppressionV5: (indices, scores), soft-NMS when soft_nms_sigma > 0."""
    indices, selected, _ = NonMaxSuppressionV5.bind(_f32(boxes), _f32(scores), _int(max_output_size),
                                                    _f32(iou_threshold), _f32(score_threshold), _f32(soft_nms_sigma),
                                                    pad_to_max_output_size=False)
    return indices, selected


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """(indices, number valid): the greedy selection zero-padded to max_output_size (then cut to the valid ones
    unless pad_to_max_output_size). Boxes [..., num_boxes, 4] with static batch dims: each batch alone."""
    from tinytf.ops.op_functions import ops

    boxes, scores = _f32(boxes), _f32(scores)
    dims = None if boxes.shape is None else tuple(boxes.shape)
    if dims is None or len(dims) < 2 or any(d is None for d in dims[:-2]):
        raise UnimplementedError(f"tt.image.non_max_suppression_padded: boxes [..., num_boxes, 4] with known batch "
                                 f"dims, got {fmt_shape(dims)}", NonMaxSuppressionV4.name)
    if len(dims) == 2:
        indices, valid = NonMaxSuppressionV4.bind(boxes, scores, _int(max_output_size), _f32(iou_threshold),
                                                  _f32(score_threshold), pad_to_max_output_size=True)
        if not pad_to_max_output_size:
            indices = ops.slice(indices, [0], ops.reshape(valid, [1]))
        return indices, valid
    if not pad_to_max_output_size:
        raise InvalidArgumentError(f"tt.image.non_max_suppression_padded: 'pad_to_max_output_size' (value False) must "
                                   f"be True for batched input, got boxes {fmt_shape(dims)}", NonMaxSuppressionV4.name)
    batch = int(np.prod(dims[:-2]))
    flat_boxes, flat_scores = ops.reshape(boxes, [batch, -1, 4]), ops.reshape(scores, [batch, -1])
    picked = [NonMaxSuppressionV4.bind(ops.gather(flat_boxes, b), ops.gather(flat_scores, b), _int(max_output_size),
                                       _f32(iou_threshold), _f32(score_threshold), pad_to_max_output_size=True)
              for b in range(batch)]
    indices = ops.stack([i for i, _ in picked])
    valid = ops.stack([v for _, v in picked])
    return ops.reshape(indices, [*dims[:-2], -1]), ops.reshape(valid, list(dims[:-2]))


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """tf.NonMaxSuppressionWithOverlaps: greedy selection on a precomputed overlap matrix."""
    return NonMaxSuppressionWithOverlaps.bind(_f32(overlaps), _f32(scores), _int(max_output_size),
                                              _f32(overlap_threshold), _f32(score_threshold))


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """tf.CombinedNonMaxSuppression: (nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)."""
    return tuple(CombinedNonMaxSuppression.bind(_f32(boxes), _f32(scores), _int(max_output_size_per_class),
                                                _int(max_total_size), _f32(iou_threshold), _f32(score_threshold),
                                                pad_per_class=pad_per_class, clip_boxes=clip_boxes))
