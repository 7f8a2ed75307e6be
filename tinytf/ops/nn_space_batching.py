"""Running an op on a dilated grid through space-to-batch: tf.nn.with_space_to_batch and
tf.required_space_to_batch_paddings, as TensorFlow's Python writes them (array_ops.py, nn_ops.py).

    y = tt.nn.with_space_to_batch(x, dilation_rate=[2, 2], padding="SAME", op=pool, filter_shape=[3, 3])
    # = batch_to_space(op(space_to_batch(x, rate, paddings), 2, "VALID"), rate, crops)

The block shape, the spatial shape and the filter shape must be known before running (TensorFlow also
accepts tensors for them).
"""
from __future__ import annotations

import numpy as np

from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops.nn_space import batch_to_space, space_to_batch_nd
from tinytf.ops.operands import static_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["with_space_to_batch", "required_space_to_batch_paddings"]
__namespaces__ = {"with_space_to_batch": ("nn",), "required_space_to_batch_paddings": ("top",)}


def _known(fn, what, value, dtype=np.int32):
    found = static_value(value) if not isinstance(value, list | tuple) else np.asarray(value)
    if found is None:
        raise UnimplementedError(f"{fn}: {what} must be known before running (a list or a constant)", fn)
    return np.asarray(found).astype(dtype)


def _paddings_and_crops(input_shape, block_shape, base_paddings):
    """numpy (paddings, crops): the base paddings, then enough at the end to make each dim a multiple of its block."""
    pad_start, orig_pad_end = base_paddings[:, 0], base_paddings[:, 1]
    full = input_shape + pad_start + orig_pad_end
    extra = (block_shape - full % block_shape) % block_shape
    paddings = np.stack([pad_start, orig_pad_end + extra], axis=1).astype(np.int32)
    crops = np.stack([np.zeros_like(extra), extra], axis=1).astype(np.int32)
    return paddings, crops


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """(paddings, crops) that make each padded spatial dim divisible by its block (base paddings first)."""
    fn = "required_space_to_batch_paddings"
    block = _known(fn, "block_shape", block_shape)
    if block.ndim != 1:
        raise InvalidArgumentError(f"{fn}: block_shape must be 1-D, got shape {list(block.shape)}", fn)
    shape = _known(fn, "input_shape", input_shape)
    base = np.zeros([block.shape[0], 2], np.int32) if base_paddings is None else _known(fn, "base_paddings",
                                                                                       base_paddings)
    if shape.shape != block.shape or base.shape != (block.shape[0], 2):
        raise InvalidArgumentError(f"{fn}: input_shape {list(shape.shape)} and base_paddings {list(base.shape)} must "
                                   f"be [{block.shape[0]}] and [{block.shape[0]}, 2]", fn)
    paddings, crops = _paddings_and_crops(shape, block, base)
    return as_tensor(paddings), as_tensor(crops)


def _spread(values, fill, spatial_dims):
    """Rows of ``values`` for the spatial dims, ``fill`` rows for the dims between them (from dim 1)."""
    rows, previous = [], 0
    for value, dim in zip(values, spatial_dims, strict=True):
        rows.extend([fill] * (dim - 1 - previous))
        rows.append(value)
        previous = dim
    return np.asarray(rows, np.int32)


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None, data_format=None):
    """``op(converted, num_spatial_dims, padding)`` on the dilated grid: space_to_batch_nd by the rates, ``op``
    with VALID padding, batch_to_space_nd back (``op`` alone, with ``padding``, when every rate is 1)."""
    fn = "with_space_to_batch"
    input = as_tensor(input)
    rate = _known(fn, "dilation_rate", dilation_rate)
    if rate.ndim != 1:
        raise InvalidArgumentError(f"{fn}: dilation_rate must be 1-D, got shape {list(rate.shape)}", fn)
    n = rate.shape[0]
    if (rate < 1).any():
        raise InvalidArgumentError(f"{fn}: dilation_rate must be positive, got {rate.tolist()}", fn)
    if (rate == 1).all():
        return op(input, n, padding)
    start = 2 if data_format is not None and data_format.startswith("NC") else 1
    dims = list(range(start, start + n)) if spatial_dims is None else sorted({int(d) for d in spatial_dims})
    if len(dims) != n or dims[0] < 1:
        raise InvalidArgumentError(f"{fn}: spatial_dims {dims} must be {n} distinct dims after the batch dim", fn)
    if padding == "SAME":
        if filter_shape is None:
            raise InvalidArgumentError(f"{fn}: filter_shape must be given for SAME padding", fn)
        extra = (_known(fn, "filter_shape", filter_shape)[:n] - 1) * rate
        base = np.stack([extra // 2, extra - extra // 2], axis=1)
    elif padding == "VALID":
        base = np.zeros([n, 2], np.int32)
    else:
        raise InvalidArgumentError(f"{fn}: padding must be 'SAME' or 'VALID', got {padding!r}", fn)
    shape = static_dims(input)
    if shape is None or len(shape) <= dims[-1] or any(shape[d] is None for d in dims):
        raise UnimplementedError(f"{fn}: the spatial dims of the input must be static, got shape {shape}", fn)
    paddings, crops = _paddings_and_crops(np.asarray([shape[d] for d in dims]), rate, base)
    block = _spread(rate, 1, dims)
    converted = space_to_batch_nd(input, block, _spread(paddings.tolist(), [0, 0], dims))
    result = op(converted, n, "VALID")
    return batch_to_space(result, block, _spread(crops.tolist(), [0, 0], dims))
