"""Non-max suppression: NonMaxSuppressionV3 / V4 / V5 (soft-NMS), NonMaxSuppressionWithOverlaps and
CombinedNonMaxSuppression, with TensorFlow's greedy selection (non_max_suppression_op.cc): candidates
above score_threshold in order of score (ties: the lower index first); a candidate whose IoU with a box
already selected exceeds iou_threshold is dropped; soft-NMS decays its score by exp(-iou^2 / (2 sigma))
per selected box and puts it back in line.

    %i = "tf.NonMaxSuppressionV3"(%boxes, %scores, %max, %iou, %score) : (tensor<30x4xf32>, tensor<30xf32>,
           tensor<i32>, tensor<f32>, tensor<f32>) -> tensor<?xi32>

The outputs' sizes depend on the data unless padded, so under XLA only the padded hard NMS of V4 / V5
compiles (as TensorFlow's XLA bridge); tt.image's functions are in image_nms_api.py.
"""
from __future__ import annotations

import heapq
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import const_value

__all__: list[str] = []


def iou_matrix(xp, boxes):
    """[n, n] intersection over union of boxes given as any two opposite corners (0 where an area is 0)."""
    lo = xp.minimum(boxes[:, :2], boxes[:, 2:])
    hi = xp.maximum(boxes[:, :2], boxes[:, 2:])
    area = (hi[:, 0] - lo[:, 0]) * (hi[:, 1] - lo[:, 1])
    inter_lo = xp.maximum(lo[:, None, :], lo[None, :, :])
    inter_hi = xp.minimum(hi[:, None, :], hi[None, :, :])
    side = xp.maximum(inter_hi - inter_lo, 0)
    inter = side[..., 0] * side[..., 1]
    union = area[:, None] + area[None, :] - inter
    positive = (area[:, None] > 0) & (area[None, :] > 0)
    return xp.where(positive, inter / xp.where(positive, union, 1), 0).astype(np.float32)


def greedy_select(similarity: np.ndarray, scores: np.ndarray, max_output: int, threshold: float,
                  score_threshold: float, soft_nms_sigma: float = 0.0):
    """TensorFlow's selection loop: (selected indices, their (decayed) scores)."""
    scores = scores.astype(np.float32)
    soft = soft_nms_sigma > 0
    scale = np.float32(-0.5 / soft_nms_sigma) if soft else np.float32(0)
    threshold, score_threshold = np.float32(threshold), np.float32(score_threshold)
    line = [(-scores[i], i, 0) for i in range(len(scores)) if scores[i] > score_threshold]  # (-score, index, begin)
    heapq.heapify(line)
    selected, selected_scores = [], []
    while len(selected) < max_output and line:
        negative, index, begin = heapq.heappop(line)
        score = original = np.float32(-negative)
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = similarity[index, selected[j]]
            if not soft and sim > threshold:
                hard = True
                break
            score = np.float32(score * np.exp(scale * sim * sim))
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(line, (-score, index, len(selected)))
    return np.asarray(selected, np.int32), np.asarray(selected_scores, np.float32)


def _scalar(op_name, spec, what, kinds):
    if spec.dtype.kind not in kinds or (spec.shape is not None and len(spec.shape) != 0):
        raise InvalidArgumentError(f"{op_name}: {what} must be 0-D, got {spec.dtype.name} {fmt_shape(spec.shape)}",
                                   op_name)


def _check_specs(op_name, boxes, scores, max_output_size, thresholds, square=False):
    if boxes.dtype.kind != "f" or scores.dtype.kind != "f":
        raise InvalidArgumentError(f"{op_name}: boxes and scores must be floating point, got {boxes.dtype.name} and "
                                   f"{scores.dtype.name}", op_name)
    if boxes.shape is not None and (len(boxes.shape) != 2 or (not square and boxes.shape[1] not in (None, 4))):
        raise InvalidArgumentError(f"{op_name}: boxes must be 2-D [num_boxes, 4], got {fmt_shape(boxes.shape)}", op_name)
    if scores.shape is not None and len(scores.shape) != 1:
        raise InvalidArgumentError(f"{op_name}: scores must be 1-D, got {fmt_shape(scores.shape)}", op_name)
    _scalar(op_name, max_output_size, "max_output_size", "iu")
    for what, spec in thresholds:
        _scalar(op_name, spec, what, "f")
    value = const_value(max_output_size)
    return None if value is None else int(value)


def _check_arrays(op_name, boxes, scores, max_output_size, iou_threshold, square=False):
    n = scores.shape[0] if scores.ndim == 1 else -1
    if boxes.ndim != 2 or boxes.shape[0] != n or boxes.shape[1] != (n if square else 4):
        raise InvalidArgumentError(f"{op_name}: boxes {list(boxes.shape)} and scores {list(scores.shape)} do not fit "
                                   f"([num_boxes, {'num_boxes' if square else 4}] and [num_boxes])", op_name)
    size = int(max_output_size)  # (a run-time size under XLA: its NeedsConstant)
    if size < 0:
        raise InvalidArgumentError(f"{op_name}: max_output_size must be non-negative, got {size}", op_name)
    if not square and not 0 <= float(iou_threshold) <= 1:
        raise InvalidArgumentError(f"{op_name}: iou_threshold must be in [0, 1], got {float(iou_threshold)}", op_name)
    return size


class _NMS(Op):
    boxes = operand_def()
    scores = operand_def()
    max_output_size = operand_def()
    iou_threshold = operand_def()
    score_threshold = operand_def()
    selected_indices = result_def()
    traits = traits_def(Pure(), NotDifferentiable())
    PADDED_OUTPUTS: ClassVar[int] = 0  # how many outputs follow selected_indices

    @classmethod
    def select(cls, boxes, scores, max_output_size, iou_threshold, score_threshold, sigma=0.0):
        size = _check_arrays(cls.name, boxes, scores, max_output_size, iou_threshold)
        if float(sigma) < 0:
            raise InvalidArgumentError(f"{cls.name}: soft_nms_sigma must be non-negative, got {float(sigma)}", cls.name)
        return size, greedy_select(iou_matrix(np, boxes.astype(np.float32)), scores, size, float(iou_threshold),
                                   float(score_threshold), float(sigma))

    @classmethod
    def padded(cls, size, picked, attrs):
        indices, scores = picked
        valid = np.int32(len(indices))
        if attrs.get("pad_to_max_output_size"):
            indices = np.pad(indices, (0, size - len(indices)))
            scores = np.pad(scores, (0, size - len(scores)))
        return indices, scores, valid


@register
class NonMaxSuppressionV3(_NMS):
    """The indices of the boxes greedy non-max suppression keeps, best first."""

    name = "tf.NonMaxSuppressionV3"

    @classmethod
    def infer(cls, boxes, scores, max_output_size, iou_threshold, score_threshold):
        _check_specs(cls.name, boxes, scores, max_output_size, [("iou_threshold", iou_threshold),
                                                                ("score_threshold", score_threshold)])
        return TensorSpec((None,), dtypes.int32)

    @classmethod
    def compute(cls, xp, boxes, scores, max_output_size, iou_threshold, score_threshold):
        if xp is not np:
            raise UnimplementedError(f"{cls.name}: its output size depends on the data, which XLA cannot compile "
                                     "(TensorFlow's XLA bridge takes NonMaxSuppressionV4 with padding)", cls.name)
        return cls.select(boxes, scores, max_output_size, iou_threshold, score_threshold)[1][0]


@register
class NonMaxSuppressionV4(_NMS):
    """V3 and the number selected; with pad_to_max_output_size the indices are zero-padded to max_output_size."""

    name = "tf.NonMaxSuppressionV4"
    valid_outputs = result_def()
    pad_to_max_output_size = attr(False)

    @classmethod
    def infer(cls, boxes, scores, max_output_size, iou_threshold, score_threshold, **attrs):
        size = _check_specs(cls.name, boxes, scores, max_output_size, [("iou_threshold", iou_threshold),
                                                                       ("score_threshold", score_threshold)])
        length = size if attrs["pad_to_max_output_size"] else None
        return [TensorSpec((length,), dtypes.int32), TensorSpec((), dtypes.int32)]

    @classmethod
    def compute(cls, xp, boxes, scores, max_output_size, iou_threshold, score_threshold, **attrs):
        if xp is not np:
            return padded_nms_xla(cls.name, boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0,
                                  attrs)[::2]
        size, picked = cls.select(boxes, scores, max_output_size, iou_threshold, score_threshold)
        indices, _, valid = cls.padded(size, picked, attrs)
        return indices, valid


@register
class NonMaxSuppressionV5(_NMS):
    """V4 with soft-NMS (soft_nms_sigma > 0) and the selected boxes' scores (decayed by soft-NMS)."""

    name = "tf.NonMaxSuppressionV5"
    soft_nms_sigma = operand_def()
    selected_scores = result_def()
    valid_outputs = result_def()
    pad_to_max_output_size = attr(False)
    traits = traits_def(Pure())  # TensorFlow defines no gradient for the scores: asking raises LookupError

    @classmethod
    def infer(cls, boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, **attrs):
        size = _check_specs(cls.name, boxes, scores, max_output_size, [
            ("iou_threshold", iou_threshold), ("score_threshold", score_threshold), ("soft_nms_sigma", soft_nms_sigma)])
        length = size if attrs["pad_to_max_output_size"] else None
        return [TensorSpec((length,), dtypes.int32), TensorSpec((length,), scores.dtype), TensorSpec((), dtypes.int32)]

    @classmethod
    def compute(cls, xp, boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, **attrs):
        if xp is not np:
            return padded_nms_xla(cls.name, boxes, scores, max_output_size, iou_threshold, score_threshold,
                                  soft_nms_sigma, attrs)
        size, picked = cls.select(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma)
        indices, selected, valid = cls.padded(size, picked, attrs)
        return indices, selected.astype(scores.dtype), valid


def padded_nms_xla(op_name, boxes, scores, max_output_size, iou_threshold, score_threshold, sigma, attrs):
    """Hard NMS padded to max_output_size in jax.numpy: one pass over the boxes in score order, keeping a box
    unless a kept one overlaps it too much (TensorFlow's XLA bridge compiles only this form)."""
    import jax
    import jax.numpy as jnp

    if not attrs.get("pad_to_max_output_size"):
        raise UnimplementedError(f"{op_name}: XLA needs pad_to_max_output_size=True (the output size depends on "
                                 "the data otherwise)", op_name)
    if not isinstance(sigma, np.ndarray | np.generic | float) or float(sigma) > 0:
        raise UnimplementedError(f"{op_name}: soft-NMS (soft_nms_sigma > 0) does not compile to XLA here", op_name)
    size = int(np.asarray(max_output_size))  # (a run-time size: NeedsConstant)
    if boxes.ndim != 2 or boxes.shape[1] != 4 or scores.shape != (boxes.shape[0],) or size < 0:
        raise InvalidArgumentError(f"{op_name}: boxes {list(boxes.shape)}, scores {list(scores.shape)} and "
                                   f"max_output_size {size} do not fit", op_name)
    n = boxes.shape[0]
    order = jnp.lexsort((jnp.arange(n), -scores.astype(jnp.float32)))
    iou = iou_matrix(jnp, boxes.astype(jnp.float32))[order][:, order]
    candidate = scores[order].astype(jnp.float32) > jnp.float32(score_threshold)

    def step(i, state):
        keep, count = state
        take = candidate[i] & ~jnp.any(keep & (iou[i] > jnp.float32(iou_threshold))) & (count < size)
        return keep.at[i].set(take), count + take.astype(jnp.int32)

    keep, count = jax.lax.fori_loop(0, n, step, (jnp.zeros(n, bool), jnp.int32(0)))
    slots = jnp.nonzero(keep, size=size, fill_value=0)[0]
    filled = jnp.arange(size) < count
    indices = jnp.where(filled, order[slots], 0).astype(jnp.int32)
    return indices, jnp.where(filled, scores[indices], 0).astype(scores.dtype), count


@register
class NonMaxSuppressionWithOverlaps(Op):
    """V3 with a precomputed [n, n] overlap matrix in place of IoU."""

    name = "tf.NonMaxSuppressionWithOverlaps"
    overlaps = operand_def()
    scores = operand_def()
    max_output_size = operand_def()
    overlap_threshold = operand_def()
    score_threshold = operand_def()
    selected_indices = result_def()
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        _check_specs(cls.name, overlaps, scores, max_output_size, [("overlap_threshold", overlap_threshold),
                                                                   ("score_threshold", score_threshold)], square=True)
        return TensorSpec((None,), dtypes.int32)

    @classmethod
    def compute(cls, xp, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        if xp is not np:
            raise UnimplementedError(f"{cls.name}: its output size depends on the data, which XLA cannot compile",
                                     cls.name)
        size = _check_arrays(cls.name, overlaps, scores, max_output_size, overlap_threshold, square=True)
        return greedy_select(overlaps.astype(np.float32), scores, size, float(overlap_threshold),
                             float(score_threshold))[0]
