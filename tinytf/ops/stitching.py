"""DynamicStitch: interleaves N data tensors into one, each slice going to the row its index names.

    %m = "tf.DynamicStitch"(%i0, %i1, %d0, %d1) : (tensor<2xi32>, tensor<i32>, tensor<2x3xf32>, tensor<3xf32>)
           -> tensor<3x3xf32>
    # merged[i0[k]] = d0[k], merged[i1] = d1: i0 = [0, 2], i1 = 1 -> [d0[0], d1, d0[1]]

TensorFlow's op has two operand lists of one length, N index tensors then N data tensors; tinytf's class has
one list (as TensorFlow's generic form writes them), ``indices_and_data``.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import result_def, traits_def, var_operand_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.base import fmt_shape
from tinytf.ops.gather import gather

__all__: list[str] = []  # tf.raw_ops only (TensorFlow's tf.dynamic_stitch takes two lists)


def _dims(s) -> str:
    return ", ".join("?" if d is None else str(d) for d in s)  # (as MLIR's diagnostics print a list)


def _halves(name: str, args: tuple) -> tuple[tuple, tuple]:
    if not args:
        raise InvalidArgumentError(f"{name}: Must have some inputs", name)
    if len(args) % 2:
        raise InvalidArgumentError(f"{name}: Must have even number of arguments", name)
    n = len(args) // 2
    return args[:n], args[n:]


def sources(name: str, indices) -> np.ndarray:
    """For each row of the result, the position (in all indices, flattened in order) of the slice that lands
    there: the last one naming the row, as TensorFlow's kernel copies in order; -1 for a row none names."""
    flat = np.concatenate([np.asarray(i, np.int64).reshape(-1) for i in indices]) if indices else np.zeros(0, np.int64)
    if (flat < 0).any():
        raise InvalidArgumentError(f"{name}: indices[{int(np.argmax(flat < 0))}] is out of range", name)
    rows = int(flat.max()) + 1 if flat.size else 0
    src = np.full(rows, -1, np.int64)
    np.maximum.at(src, flat, np.arange(flat.size, dtype=np.int64))
    return src


@register
class DynamicStitch(Op):
    """merged[indices[m][i, ...]] = data[m][i, ...]; a later (m, i) wins a row named twice, an unnamed row is 0."""

    name = "tf.DynamicStitch"
    indices_and_data = var_operand_def()
    merged = result_def()
    N = derived("int", lambda op: len(op.operands) // 2, default=None)
    T = derived("type", lambda op: tf_types.dtype_of(op.merged.type), default=None)
    traits = traits_def(Pure())

    def verify_ir(self):
        n = len(self.operands) // 2
        if n < 1:
            v.fail("requires attribute N with value >= 1")
        out = v.shape(self.merged.type)
        if out is not None and not out:
            v.fail("requires non scalar output")
        seen, all_constant, largest, item = set(), True, -1, None
        for index, data in zip(self.operands[:n], self.operands[n:2 * n]):
            values = v.const_ints(index)
            if values is None:
                all_constant = False
            else:
                for x in values:
                    if x < 0:
                        v.fail(f"requires non-negative index values; found {x}")
                    largest = max(largest, x)
                    seen.add(x)
            index_shape, data_shape = v.shape(index), v.shape(data)
            if index_shape is None or data_shape is None:
                continue
            prefix = data_shape[:len(index_shape)]
            if len(prefix) != len(index_shape) or any(a is not None and b is not None and a != b
                                                      for a, b in zip(index_shape, prefix)):
                v.fail(f"requires shape of data with type '{v.type_of(data)}' to have prefix matching with shape of "
                       f"the corresponding index type '{v.type_of(index)}'")
            rest = list(data_shape[len(index_shape):])
            if item is None:
                item = rest
                continue
            if len(rest) != len(item) or any(a is not None and b is not None and a != b for a, b in zip(rest, item)):
                v.fail(f"has inconsistent shaped data and index pairs; inferred item shapes [{_dims(item)}] and "
                       f"[{_dims(rest)}] don't match")
            item = [d if d is not None else r for d, r in zip(item, rest)]
        if not all_constant:
            return
        for i in range(largest + 1):
            if i not in seen:
                v.fail(f"missing index {i}")
        if item is not None:
            expected = v.tensor_type((largest + 1, *item), v.element(self.merged))
            if not v.cast_compatible(self.merged.type, expected):
                v.fail(f"has invalid output type; should be compatible with inferred type '{expected}'")

    @classmethod
    def infer(cls, *args, **_):
        indices, data = _halves(cls.name, args)
        for m, i in enumerate(indices):
            if i.dtype.name != "int32":
                raise InvalidArgumentError(f"{cls.name}: indices[{m}] must be int32, got {i.dtype.name}", cls.name)
        dtype = data[0].dtype
        for m, d in enumerate(data):
            if d.dtype is not dtype:
                raise InvalidArgumentError(f"{cls.name}: data[{m}] is {d.dtype.name}, data[0] is {dtype.name}",
                                           cls.name)
        item = None
        for m, (i, d) in enumerate(zip(indices, data)):
            if i.shape is None or d.shape is None:
                continue
            if len(d.shape) < len(i.shape) or any(a is not None and b is not None and a != b
                                                  for a, b in zip(i.shape, d.shape)):
                raise InvalidArgumentError(f"{cls.name}: data[{m}].shape = {fmt_shape(d.shape)} does not start with "
                                           f"indices[{m}].shape = {fmt_shape(i.shape)}", cls.name)
            rest = tuple(d.shape[len(i.shape):])
            if item is not None and (len(rest) != len(item) or any(a is not None and b is not None and a != b
                                                                   for a, b in zip(rest, item))):
                raise InvalidArgumentError(
                    f"{cls.name}: Need data[0].shape[{len(indices[0].shape)}:] = data[{m}].shape[{len(i.shape)}:], "
                    f"got data[0].shape = {fmt_shape(data[0].shape)}, data[{m}].shape = {fmt_shape(d.shape)}",
                    cls.name)
            item = rest if item is None else tuple(a if a is not None else b for a, b in zip(item, rest))
        rows = None
        if all(i.value is not None for i in indices):
            rows = len(sources(cls.name, [i.value for i in indices]))
        return TensorSpec(None if item is None else (rows, *item), dtype)

    @classmethod
    def compute(cls, xp, *args, **_):
        indices, data = _halves(cls.name, args)
        src = sources(cls.name, [np.asarray(i) for i in indices])  # (under XLA the indices must be constants)
        item = tuple(data[0].shape[np.ndim(indices[0]):])
        rows = xp.concatenate([xp.reshape(d, (-1, *item)) for d in data], axis=0)
        missing = src < 0
        if missing.any():
            rows = xp.concatenate([rows, xp.zeros((1, *item), rows.dtype)], axis=0)
            src = np.where(missing, rows.shape[0] - 1, src)
        return xp.take(rows, src, axis=0)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and merged = stitch(indices, data): d data[m] = gather(U, indices[m])
        n = len(op.inputs) // 2
        return [None] * n + [gather(dy, i) for i in op.inputs[:n]]
