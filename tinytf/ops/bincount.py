"""Counting values: tf.DenseBincount, and tt.math.bincount and confusion_matrix written with it.

    %c = "tf.DenseBincount"(%arr, %size, %w) <{binary_output = false}> : (tensor<6xi32>, tensor<i32>, tensor<0xi32>) -> tensor<?xi32>

    tt.math.bincount([1, 1, 3])                       # [0, 2, 0, 1]
    tt.math.confusion_matrix([0, 1, 2], [0, 2, 2])    # rows: labels, columns: predictions

The output size is data (max + 1) unless ``minlength`` and ``maxlength`` pin it, so the output's
shape is known before running only then; XLA needs it known. Counting is not differentiable.
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
from tinytf.ops.op_functions import ops
from tinytf.ops.operands import const_value, static_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import is_numpy

__all__ = ["bincount", "confusion_matrix"]
__namespaces__ = {n: ("math",) for n in __all__}

_WEIGHT_TYPES = ("int32", "int64", "float32", "float64")


@register
class DenseBincount(Op):
    """How often each value in [0, size) occurs in ``input`` (per row for a matrix), or the sum of its
    ``weights`` (empty: counts), or 1 where it occurs (``binary_output``); values >= size are ignored."""

    name = "tf.DenseBincount"
    input = operand_def()
    size = operand_def()
    weights = operand_def()
    output = result_def()
    binary_output = attr(False)
    traits = traits_def(Pure(), NotDifferentiable())

    @classmethod
    def infer(cls, input, size, weights, binary_output=False):
        if input.dtype.name not in ("int32", "int64") or size.dtype != input.dtype:
            raise InvalidArgumentError(f"{cls.name}: input and size must share an int32 or int64 dtype, got "
                                       f"{input.dtype.name} and {size.dtype.name}", cls.name)
        if weights.dtype.name not in _WEIGHT_TYPES:
            raise InvalidArgumentError(f"{cls.name}: weights must be one of {', '.join(_WEIGHT_TYPES)}, got "
                                       f"{weights.dtype.name}", cls.name)
        if input.shape is not None and len(input.shape) not in (1, 2):
            raise InvalidArgumentError(f"{cls.name}: input must be 1-D or 2-D, got {fmt_shape(input.shape)}", cls.name)
        if size.shape not in (None, ()):
            raise InvalidArgumentError(f"{cls.name}: size must be a scalar, got {fmt_shape(size.shape)}", cls.name)
        if (weights.shape is not None and input.shape is not None and tuple(weights.shape) not in ((0,),)
                and tuple(weights.shape) != tuple(input.shape)):
            raise InvalidArgumentError(f"{cls.name}: weights must be empty or have input's shape "
                                       f"{fmt_shape(input.shape)}, got {fmt_shape(weights.shape)}", cls.name)
        value = const_value(size)
        n = None if value is None else int(value)
        if n is not None and n < 0:
            raise InvalidArgumentError(f"{cls.name}: size ({n}) must be non-negative", cls.name)
        if input.shape is None:
            return TensorSpec(None, weights.dtype)
        return TensorSpec(tuple(input.shape[:-1]) + (n,), weights.dtype)

    @staticmethod
    def compute(xp, input, size, weights, binary_output=False):
        n = int(size)
        weighted = weights.size > 0
        if is_numpy(xp):
            if input.size and input.min() < 0:
                raise InvalidArgumentError(f"{DenseBincount.name}: Input arr must be non-negative!", DenseBincount.name)
            rows = input.reshape(-1, input.shape[-1]) if input.ndim else input.reshape(1, 1)
            w = weights.reshape(rows.shape) if weighted else None
            out = np.zeros((rows.shape[0], n), weights.dtype)
            for i, row in enumerate(rows):
                keep = row < n
                counts = np.bincount(row[keep], None if w is None else w[i][keep], minlength=n)[:n]
                out[i] = (counts > 0) if binary_output else counts
            return out.reshape(input.shape[:-1] + (n,))
        hits = (input[..., :, None] == xp.arange(n, dtype=input.dtype)).astype(weights.dtype)
        if weighted and not binary_output:
            hits = hits * weights[..., :, None]
        counts = hits.sum(axis=-2)
        return (counts > 0).astype(weights.dtype) if binary_output else counts


def _static_int(what, value):
    v = static_value(value)
    if v is None:
        return None
    if np.ndim(v) != 0:
        raise InvalidArgumentError(f"tt.math.bincount: {what} must be a scalar, got {v!r}", DenseBincount.name)
    return int(v)


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None, axis=None,
             binary_output=False):
    """``tt.math.bincount``: counts (or weight sums) of each value of ``arr`` in [0, max(arr) + 1), clamped to
    [minlength, maxlength]; every element (``axis=None``) or each row of a matrix (``axis=-1``)."""
    arr = as_tensor(arr)
    if arr.dtype.name not in ("int32", "int64"):
        raise InvalidArgumentError(f"tt.math.bincount: arr must be int32 or int64, got {arr.dtype.name}",
                                   DenseBincount.name)
    if weights is not None and binary_output:
        raise InvalidArgumentError("tt.math.bincount: Arguments `binary_output` and `weights` are mutually "
                                   "exclusive. Please specify only one.", DenseBincount.name)
    if axis is None:
        arr = ops.reshape(arr, [-1])
        weights = None if weights is None else ops.reshape(as_tensor(weights), [-1])
    elif axis not in (-1, 1) or len(static_dims(arr) or ()) != 2:
        raise UnimplementedError(f"tt.math.bincount: axis must be None or -1 (on a matrix), got {axis}",
                                 DenseBincount.name)
    values = static_value(arr)
    if values is not None:   # the size is known now: a constant (TensorFlow's graph computes the same)
        size = int(values.max()) + 1 if values.size else 0
        low, high = _static_int("minlength", minlength), _static_int("maxlength", maxlength)
        size = size if low is None else max(low, size)
        size = size if high is None else min(high, size)
        size = ops.constant(np.asarray(size, arr.dtype.np))
    else:
        size = ops.multiply(ops.cast(ops.greater(ops.size(arr), 0), arr.dtype),
                            ops.add(ops.reduce_max(arr), ops.scalar_like(arr, 1)))
        if minlength is not None:
            size = ops.maximum(ops.cast(as_tensor(minlength), arr.dtype), size)
        if maxlength is not None:
            size = ops.minimum(ops.cast(as_tensor(maxlength), arr.dtype), size)
    out_dtype = dtypes.as_dtype(dtype) if weights is None else as_tensor(weights).dtype
    w = ops.constant(np.zeros(0, out_dtype.np)) if weights is None else as_tensor(weights)
    return DenseBincount.bind(arr, size, w, binary_output=bool(binary_output))


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, name=None):
    """``tt.math.confusion_matrix``: [n, n] with entry [i, j] the number (or weight sum) of examples of label i
    predicted as j; n = num_classes, or max(labels, predictions) + 1."""
    labels, predictions = as_tensor(labels), as_tensor(predictions)
    label_values, predicted_values = static_value(labels), static_value(predictions)
    labels, predictions = ops.cast(labels, dtypes.int64), ops.cast(predictions, dtypes.int64)
    for what, values in (("labels", label_values), ("predictions", predicted_values)):
        if values is not None and values.size and values.min() < 0:
            raise InvalidArgumentError(f"tt.math.confusion_matrix: `{what}` contains negative values",
                                       DenseBincount.name)
    if num_classes is None:
        if label_values is None or predicted_values is None:
            raise UnimplementedError("tt.math.confusion_matrix: without num_classes, labels and predictions must be "
                                     "known before running", DenseBincount.name)
        n = int(max(label_values.max(initial=-1), predicted_values.max(initial=-1))) + 1
    else:
        n = _static_int("num_classes", num_classes)
        for what, values in (("labels", label_values), ("predictions", predicted_values)):
            if values is not None and values.size and values.max() >= n:
                raise InvalidArgumentError(f"tt.math.confusion_matrix: `{what}` out of bound: values must be < "
                                           f"num_classes {n}", DenseBincount.name)
    cells = ops.add(ops.multiply(labels, ops.scalar_like(labels, n)), predictions)
    w = ops.constant(np.zeros(0, dtypes.as_dtype(dtype).np)) if weights is None else \
        ops.cast(as_tensor(weights), dtypes.as_dtype(dtype))
    counts = DenseBincount.bind(ops.reshape(cells, [-1]), ops.constant(np.asarray(n * n, np.int64)),
                                w if weights is None else ops.reshape(w, [-1]))
    return ops.reshape(counts, [n, n])
