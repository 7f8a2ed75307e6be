"""StatelessSampleDistortedBoundingBox and tt.image.stateless_sample_distorted_bounding_box: a random crop
(Inception-style: aspect ratio and area drawn from ranges, covering enough of a bounding box), drawn from
Philox as TensorFlow's kernel draws it (sample_distorted_bounding_box_op.cc), so the crop is TensorFlow's.

    %begin, %size, %box = "tf.StatelessSampleDistortedBoundingBox"(%image_size, %boxes, %min_covered, %seed)
        <{area_range = [0.05 : f32, 1.0 : f32], aspect_ratio_range = [0.75 : f32, 1.33 : f32], max_attempts = 100,
          use_image_if_no_bounding_boxes = false}> : (tensor<3xi32>, tensor<1x2x4xf32>, tensor<f32>, tensor<2xi64>)
        -> (tensor<3xi32>, tensor<3xi32>, tensor<1x1x4xf32>)

Each attempt draws an aspect ratio (a float from the top 23 bits of one word), a height in its allowed range
and a position (exact uniform integers: words below 2^32 mod n redrawn, the rest mod n); float32 arithmetic, lrintf rounding.
The loop runs in Python over numpy's Philox words: eager and graph mode, not XLA.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import FailedPreconditionError, InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.random_philox import scramble_seed, stream
from tinytf.ops.random_stateful import _Stateful

__all__ = ["stateless_sample_distorted_bounding_box", "sample_distorted_bounding_box"]
__namespaces__ = {n: ("image",) for n in __all__}

F32 = np.float32


class PhiloxWords:
    """SimplePhilox: Philox's words one at a time, more blocks drawn as they run out."""

    def __init__(self, key, counter):
        self.key, self.counter, self.words, self.used, self.drawn = key, counter, np.zeros(0, np.uint32), 0, 0

    def next(self) -> int:
        if self.used == len(self.words):
            count = 4 * max(64, len(self.words))
            self.words = stream(np, self.key, self.counter, self.drawn + count)[self.drawn:]
            self.drawn += count
            self.used = 0
        self.used += 1
        return int(self.words[self.used - 1])

    def rand_float(self) -> np.float32:  # 23 random mantissa bits of a float in [1, 2), minus 1
        return (np.uint32(0x3F800000 | (self.next() & 0x7FFFFF)).view(np.float32) - F32(1)).astype(F32)

    def uniform(self, n: int) -> int:  # exactly uniform in [0, n): the low words that skew it are redrawn
        if n & (n - 1) == 0:
            return self.next() & (n - 1)
        reject = (0xFFFFFFFF % n) + 1
        word = self.next()
        while word < reject:
            word = self.next()
        return word % n


def lrint(x) -> int:
    return int(np.rint(F32(x)))


def random_crop(width, height, min_area_fraction, max_area_fraction, aspect, words):
    """One attempt: (x, y, w, h) or None, the kernel's GenerateRandomCrop."""
    if max_area_fraction <= 0 or aspect <= 0 or min_area_fraction > max_area_fraction:
        return None
    min_area = F32(F32(min_area_fraction * F32(width)) * F32(height))
    max_area = F32(F32(max_area_fraction * F32(width)) * F32(height))
    crop_h = lrint(np.sqrt(F32(min_area / aspect)))
    max_h = lrint(np.sqrt(F32(max_area / aspect)))
    if lrint(F32(max_h) * aspect) > width:
        max_h = int((width + 0.5 - float(F32(1e-7))) / float(aspect))  # (double arithmetic, as the kernel)
        if lrint(F32(max_h) * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    crop_h = min(crop_h, max_h)
    if crop_h < max_h:
        crop_h += words.uniform(max_h - crop_h + 1)
    crop_w = lrint(F32(crop_h) * aspect)
    area = F32(crop_w * crop_h)
    if area < min_area:
        crop_h += 1
        crop_w = lrint(F32(crop_h) * aspect)
        area = F32(crop_w * crop_h)
    if area > max_area:
        crop_h -= 1
        crop_w = lrint(F32(crop_h) * aspect)
        area = F32(crop_w * crop_h)
    if area < min_area or area > max_area or crop_w > width or crop_h > height or crop_w <= 0 or crop_h <= 0:
        return None
    y = words.uniform(height - crop_h) if crop_h < height else 0
    x = words.uniform(width - crop_w) if crop_w < width else 0
    return x, y, crop_w, crop_h


def covers_enough(crop, min_covered, boxes) -> bool:
    x, y, w, h = crop
    if F32(w * h) < 1:
        return False
    for x0, y0, x1, y1 in boxes:
        area = F32((x1 - x0) * (y1 - y0))
        if area < 1:
            continue
        ix0, iy0, ix1, iy1 = max(x, x0), max(y, y0), min(x + w, x1), min(y + h, y1)
        inter = F32((ix1 - ix0) * (iy1 - iy0)) if ix0 <= ix1 and iy0 <= iy1 else F32(0)
        if F32(inter / area) >= min_covered:
            return True
    return False


def check_sampling_attrs(op_name, attrs):
    aspect, area = list(attrs["aspect_ratio_range"]), list(attrs["area_range"])
    if len(aspect) != 2 or min(aspect) <= 0:
        raise InvalidArgumentError(f"{op_name}: Aspect ratio range must be 2 positive numbers, got {aspect}", op_name)
    if len(area) != 2 or min(area) <= 0 or max(area) > 1:
        raise InvalidArgumentError(f"{op_name}: Area range must be 2 numbers in (0, 1], got {area}", op_name)
    if attrs["max_attempts"] <= 0:
        raise InvalidArgumentError(f"{op_name}: Max attempts must be positive, got {attrs['max_attempts']}", op_name)


def sampling_specs(op_name, image_size, bounding_boxes, min_object_covered, attrs):
    check_sampling_attrs(op_name, attrs)
    if image_size.dtype.kind not in "iu" or (image_size.shape is not None and tuple(image_size.shape) != (3,)):
        raise InvalidArgumentError(f"{op_name}: image_size must be 3 integers, got {image_size.dtype.name} "
                                   f"{fmt_shape(image_size.shape)}", op_name)
    if bounding_boxes.dtype != dtypes.float32 or (bounding_boxes.shape is not None and (
            len(bounding_boxes.shape) != 3 or bounding_boxes.shape[2] not in (None, 4))):
        raise InvalidArgumentError(f"{op_name}: input boxes must be 3-dimensional [batch, num_boxes, coords] float32, "
                                   f"got {fmt_shape(bounding_boxes.shape)}", op_name)
    if min_object_covered.dtype != dtypes.float32:
        raise InvalidArgumentError(f"{op_name}: min_object_covered must be float32", op_name)
    return [TensorSpec((3,), image_size.dtype), TensorSpec((3,), image_size.dtype), TensorSpec((1, 1, 4))]


@register
class StatelessSampleDistortedBoundingBox(Op):
    """(begin, size, box) of a random crop of an image of ``image_size`` covering enough of a bounding box."""

    name = "tf.StatelessSampleDistortedBoundingBox"
    image_size = operand_def()
    bounding_boxes = operand_def()
    min_object_covered = operand_def()
    seed = operand_def()
    begin = result_def()
    size = result_def()
    bboxes = result_def()
    aspect_ratio_range = attr((0.75, 1.33), kind="floats")
    area_range = attr((0.05, 1.0), kind="floats")
    max_attempts = attr(100)
    use_image_if_no_bounding_boxes = attr(False)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, image_size, bounding_boxes, min_object_covered, seed, **attrs):
        if seed.dtype not in (dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: seed must be int32 or int64, got {seed.dtype.name}", cls.name)
        return sampling_specs(cls.name, image_size, bounding_boxes, min_object_covered, attrs)

    @classmethod
    def compute(cls, xp, image_size, bounding_boxes, min_object_covered, seed, **attrs):
        if xp is not np:
            raise UnimplementedError(f"{cls.name}: its rejection loop runs in Python, not under XLA", cls.name)
        if np.shape(seed) != (2,):
            raise InvalidArgumentError(f"{cls.name}: seed must have shape [2], not {list(np.shape(seed))}", cls.name)
        key, counter = scramble_seed(np, seed)
        return sample_crop(cls, image_size, bounding_boxes, min_object_covered, attrs, key, counter)


def sample_crop(cls, image_size, bounding_boxes, min_object_covered, attrs, key, counter):
    """(begin, size, bboxes) of the kernel's crop from the Philox stream at ``key`` and ``counter``."""
    check_sampling_attrs(cls.name, attrs)
    if np.shape(image_size) != (3,) or np.ndim(min_object_covered) != 0:
        raise InvalidArgumentError(f"{cls.name}: image_size must be [3] and min_object_covered 0-D, got "
                                   f"{list(np.shape(image_size))} and {list(np.shape(min_object_covered))}", cls.name)
    height, width = int(image_size[0]), int(image_size[1])
    if not (0 <= height < 2**31 - 1 and 0 <= width < 2**31 - 1):
        raise InvalidArgumentError(f"{cls.name}: image height and width must be in [0, int32 max), got "
                                   f"{[height, width]}", cls.name)
    covered = F32(min_object_covered)
    if covered < 0:
        raise InvalidArgumentError(f"{cls.name}: Min object covered must be non-negative: {covered}", cls.name)
    flat = np.asarray(bounding_boxes, np.float32).reshape(-1, 4)
    if flat.size and not ((flat >= 0) & (flat <= 1)).all():
        raise InvalidArgumentError(f"{cls.name}: All bounding box coordinates must be in [0.0, 1.0]", cls.name)
    boxes = [(int(F32(b[1] * F32(width))), int(F32(b[0] * F32(height))), int(F32(b[3] * F32(width))),
              int(F32(b[2] * F32(height)))) for b in flat]
    if not boxes:
        if not attrs["use_image_if_no_bounding_boxes"]:
            raise InvalidArgumentError(f"{cls.name}: No bounding boxes provided as input. One must enable "
                                       "use_image_if_no_bounding_boxes if you wish to not provide any bounding "
                                       "boxes.", cls.name)
        boxes = [(0, 0, width, height)]
    words = PhiloxWords(np.asarray(key), np.asarray(counter))
    (low_area, high_area), (low_aspect, high_aspect) = (F32(v) for v in attrs["area_range"]), \
        (F32(v) for v in attrs["aspect_ratio_range"])
    crop = (0, 0, width, height)
    for _ in range(int(attrs["max_attempts"])):
        aspect = F32(words.rand_float() * F32(high_aspect - low_aspect) + low_aspect)
        found = random_crop(width, height, low_area, high_area, aspect, words)
        if found is not None and covers_enough(found, covered, boxes):
            crop = found
            break
    x, y, w, h = crop
    if x + w > width or y + h > height:
        raise FailedPreconditionError(f"{cls.name}: the crop does not fit in the image", cls.name)
    out = image_size.dtype
    box = np.float32([[[F32(y) / F32(height), F32(x) / F32(width), F32(y + h) / F32(height),
                        F32(x + w) / F32(width)]]])
    return np.asarray([y, x, 0], out), np.asarray([h, w, -1], out), box


@register
class SampleDistortedBoundingBoxV2(_Stateful):
    """The random crop from the op's own Philox stream (seed, seed2: TensorFlow's seed rules), each run
    reserving max_attempts blocks as TensorFlow's kernel."""

    name = "tf.SampleDistortedBoundingBoxV2"
    image_size = operand_def()
    bounding_boxes = operand_def()
    min_object_covered = operand_def()
    begin = result_def()
    size = result_def()
    bboxes = result_def()
    aspect_ratio_range = attr((0.75, 1.33), kind="floats")
    area_range = attr((0.05, 1.0), kind="floats")
    max_attempts = attr(100)
    use_image_if_no_bounding_boxes = attr(False)

    @classmethod
    def infer(cls, image_size, bounding_boxes, min_object_covered, **attrs):
        return sampling_specs(cls.name, image_size, bounding_boxes, min_object_covered, attrs)

    @classmethod
    def kernel(cls, ctx, **attrs):
        from tinytf.ops.random_stateful import _stream

        check_sampling_attrs(cls.name, attrs)
        key, counter = _stream(ctx, cls, attrs).reserve(int(attrs["max_attempts"]))  # (4 words per attempt)
        outs = sample_crop(cls, ctx.input(0), ctx.input(1), ctx.input(2), attrs, key, counter)
        for i, value in enumerate(outs):
            ctx.set_output(i, value)

    @classmethod
    def lower(cls, *values, **attrs):
        raise UnimplementedError(f"{cls.name}: its rejection loop runs in Python, not under XLA", cls.name)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """(begin, size, bboxes) of a random crop from the op's stream: ``seed`` with tt.random's global seed as
    TensorFlow's get_seed; no seed (0) draws unseeded, as TensorFlow's."""
    from tinytf.ops.random_seed import get_seed
    from tinytf.ops.tensor_inputs import as_tensor

    seed1, seed2 = get_seed(seed) if seed else (0, 0)
    size = as_tensor(image_size) if hasattr(image_size, "dtype") else as_tensor(np.asarray(image_size, np.int32))
    return tuple(SampleDistortedBoundingBoxV2.bind(
        size, as_tensor(bounding_boxes, dtypes.float32), as_tensor(np.float32(min_object_covered)),
        seed=seed1 or 0, seed2=seed2 or 0, aspect_ratio_range=tuple(aspect_ratio_range or (0.75, 1.33)),
        area_range=tuple(area_range or (0.05, 1.0)), max_attempts=int(max_attempts or 100),
        use_image_if_no_bounding_boxes=bool(use_image_if_no_bounding_boxes)))


def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed, min_object_covered=0.1,
                                            aspect_ratio_range=None, area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """(begin, size, bboxes) of a random crop (TensorFlow's Inception-style crop, its values for ``seed``)."""
    from tinytf.ops.tensor_inputs import as_tensor

    size = as_tensor(image_size) if hasattr(image_size, "dtype") else as_tensor(np.asarray(image_size, np.int32))
    seed = as_tensor(np.asarray(seed, np.int64)) if not hasattr(seed, "dtype") else seed
    return tuple(StatelessSampleDistortedBoundingBox.bind(
        size, as_tensor(bounding_boxes, dtypes.float32), as_tensor(np.float32(min_object_covered)), seed,
        aspect_ratio_range=tuple(aspect_ratio_range or (0.75, 1.33)), area_range=tuple(area_range or (0.05, 1.0)),
        max_attempts=int(max_attempts or 100), use_image_if_no_bounding_boxes=bool(use_image_if_no_bounding_boxes)))
