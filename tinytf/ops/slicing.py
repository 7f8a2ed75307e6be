"""Slicing: Slice, and ``strided_slice_from_key``, which turns a Python ``x[key]`` into StridedSlice
operands (StridedSlice and StridedSliceGrad themselves: strided_slice.py).

    %y = "tf.Slice"(%x, %begin, %size) : (tensor<3x4xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x4xf32>
"""
from __future__ import annotations

import builtins

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import shape as shapes
from tinytf.ops import verifiers as v
from tinytf.ops.array import constant
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.operands import check_index, const_ints, folding, is_python_value, static_shape, static_value
from tinytf.ops.strided_slice import StridedSlice as StridedSlice  # (re-exported: once one module with Slice)
from tinytf.ops.strided_slice import StridedSliceGrad as StridedSliceGrad
from tinytf.ops.strided_slice import dynamic_slice, index_operands, is_concrete, strided_slice

# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["slice"]


MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def strided_slice_from_key(x, key):
    """``x[key]`` as TensorFlow encodes it: ints, slices, ``...``, ``None`` (newaxis), negative
    indices and scalar int tensors become StridedSlice's begin/end/strides and masks."""
    if getattr(key, "dtype", None) is dtypes.bool_ or (isinstance(key, np.ndarray) and key.dtype == bool):
        from tinytf.ops.masking import boolean_mask  # (masking builds on gather, which builds on this module)

        return boolean_mask(x, key)  # x[mask], as TensorFlow
    if not isinstance(key, tuple | list):
        key = (key,)
    begin, end, strides = [], [], []
    masks = dict.fromkeys(MASKS, 0)
    for i, item in enumerate(key):
        bit = 1 << i
        if isinstance(item, builtins.slice):
            for value, out, mask in ((item.start, begin, "begin_mask"), (item.stop, end, "end_mask")):
                if value is None:
                    out.append(0)
                    masks[mask] |= bit
                else:
                    out.append(_key_index(value))
            strides.append(1 if item.step is None else _key_index(item.step))
        elif item is Ellipsis:
            begin.append(0), end.append(0), strides.append(1)
            masks["ellipsis_mask"] |= bit
        elif item is None:
            begin.append(0), end.append(0), strides.append(1)
            masks["new_axis_mask"] |= bit
        else:
            index = _key_index(item)
            begin.append(index)
            end.append(index + 1 if is_python_value(index) else index)  # end is ignored when shrinking
            strides.append(1)
            masks["shrink_axis_mask"] |= bit
    if not begin:
        begin = end = strides = np.zeros(0, np.int32)
    return strided_slice(x, begin, end, strides, **masks)


def _key_index(value):
    if isinstance(value, bool | np.bool_):
        raise InvalidArgumentError(f"tf.StridedSlice: boolean index {value!r} is not supported (use tt.boolean_mask)")
    if isinstance(value, int | np.integer):
        return int(value)
    if not is_python_value(value) and getattr(value, "dtype", None) in (dtypes.int32, dtypes.int64) and \
            getattr(value, "shape", None) == ():
        return value
    raise InvalidArgumentError(
        "tf.StridedSlice: Only integers, slices (`:`), ellipsis (`...`), tt.newaxis (`None`) and scalar "
        f"int32/int64 tensors are valid indices, got {value!r}")


# --- Slice -----------------------------------------------------------------------------------

def _slice_bounds(op_name: str, in_shape, begin, size):
    """(begin, size) per dim with size -1 resolved, checked as TensorFlow's Slice does."""
    out = []
    for i, (d, b, s) in enumerate(zip(in_shape, begin, size)):
        if s == -1:
            s = None if d is None else d - b
        if d is not None:
            if not 0 <= b <= d:
                raise InvalidArgumentError(f"{op_name}: Expected begin[{i}] in [0, {d}], but got {b}", op_name)
            if not 0 <= s <= d - b:
                raise InvalidArgumentError(f"{op_name}: Expected size[{i}] in [0, {d - b}], but got {s}", op_name)
        elif b < 0 or (s is not None and s < 0):
            raise InvalidArgumentError(f"{op_name}: begin {list(begin)} and size {list(size)} must be non-negative "
                                       f"(or size -1)", op_name)
        out.append((b, s))
    return out


@register
class Slice(Op):
    """input[begin[i] : begin[i] + size[i]] in every dim; size -1 means to the end.

    %y = "tf.Slice"(%x, %begin, %size) : (tensor<3x4xf32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x4xf32>
    """

    name = "tf.Slice"
    input = operand_def()
    begin = operand_def()
    size = operand_def()
    output = result_def()

    def verify_ir(self):
        if not v.same_type(v.element(self.input), v.element(self.output)):
            v.fail("failed to verify that input and output must have same element type")
        begin, size = v.shape(self.begin), v.shape(self.size)
        if begin is not None and len(begin) != 1:
            v.fail("requires begin operand to be 1D tensor")
        if size is not None and len(size) != 1:
            v.fail("requires size operand to be 1D tensor")
        if begin is None or size is None or begin[0] is None or size[0] is None:
            return
        if begin[0] != size[0]:
            v.fail("requires begin and size operands to have the same number of elements")
        x, out = v.shape(self.input.type), v.shape(self.output.type)
        if x is not None and begin[0] != len(x):
            v.fail("requires number of elements in begin and size are equal to input rank")
        if x is not None and out is not None and len(out) != len(x):
            v.fail(f"requires output to have the same rank as input, but got input rank {len(x)} and output rank "
                   f"{len(out)}")
        begins, sizes = v.const_ints(self.begin), v.const_ints(self.size)
        if begins is not None:
            for i, b in enumerate(begins):
                dim = None if x is None else x[i]
                n = sizes[i] if sizes is not None else 0
                if n == -1 and dim is not None:
                    n = dim - b
                got = None if out is None else out[i]
                if got is not None and sizes is not None and got != n:
                    v.fail(f"requires output size to have the same size of slice, got slice size {n} and output size "
                           f"{got}")
                if b < 0 or (dim is not None and b + n > dim):
                    v.fail("requires 0 <= begin[i] <= begin[i] + size[i] <= Di")
        elif x is not None and sizes is not None:
            for n, dim in zip(sizes, x):
                if n != -1 and dim is not None and n > dim:
                    v.fail("requires size[i] <= Di, even if begin[i] is unknown at compile time")
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, input, begin, size):
        check_index(cls.name, begin, "begin", rank=1)
        check_index(cls.name, size, "size", rank=1)
        same_dtype(cls.name, begin, size)
        n = next((s.shape[0] for s in (begin, size) if s.shape is not None and s.shape[0] is not None), None)
        r = input.rank if input.rank is not None else n
        for spec in (begin, size):
            if r is not None and spec.shape is not None and spec.shape[0] not in (None, r):
                raise InvalidArgumentError(
                    f"{cls.name}: Expected begin and size arguments to be 1-D tensors of size {r}, but got shapes "
                    f"{fmt_shape(begin.shape)} and {fmt_shape(size.shape)} instead.", cls.name)
        if r is None:
            return TensorSpec(None, input.dtype)
        b, s = const_ints(begin), const_ints(size)
        in_shape = input.shape if input.shape is not None else (None,) * r
        if b is None:
            return TensorSpec(tuple(None if v == -1 else v for v in s) if s is not None else (None,) * r,
                              input.dtype)
        if s is None:
            return TensorSpec((None,) * r, input.dtype)
        return TensorSpec(tuple(sz for _, sz in _slice_bounds(cls.name, in_shape, b, s)), input.dtype)

    @classmethod
    def compute(cls, xp, input, begin, size):
        bounds = _slice_bounds(cls.name, input.shape, [int(v) for v in begin], [int(v) for v in size])
        return input[tuple(builtins.slice(b, b + s) for b, s in bounds)]

    @classmethod
    def lower(cls, input, begin, size):
        import jax.numpy as jnp

        if is_concrete(begin):
            return cls.compute(jnp, input, begin, size)
        if not is_concrete(size) or any(int(v) < 0 for v in np.asarray(size)):
            return cls.compute(jnp, input, begin, size)  # a shape from run-time values: XLA's NeedsConstant
        return dynamic_slice(input, [begin[i] for i in range(len(input.shape))], [int(v) for v in np.asarray(size)])

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x[b : b + s]: dx = pad(U, [[b, shape(x) - b - shape(U)]])
        from tinytf.ops.joining import stack  # joining and padding import this module
        from tinytf.ops.math import subtract
        from tinytf.ops.padding import pad

        x, begin, _ = op.inputs
        b = static_value(begin)
        if b is not None and static_shape(x) is not None and static_shape(dy) is not None:
            after = np.asarray(static_shape(x)) - b - np.asarray(static_shape(dy))
            return [pad(dy, constant(np.stack([b, after], axis=1).astype(b.dtype))), None, None]
        after = subtract(subtract(shapes.shape(x, out_type=begin.dtype), begin), shapes.shape(dy, out_type=begin.dtype))
        return [pad(dy, stack([begin, after], axis=1)), None, None]


def slice(input_, begin, size, name=None):  # noqa: A001 (TensorFlow's name)
    begin, size = index_operands(begin, size)
    return Slice.bind(input_, begin, size)
