"""StridedSlice and its gradient StridedSliceGrad: NumPy-style basic indexing with TensorFlow's five
masks (the index arithmetic: strided_slice_plan.py; Slice and Python's ``x[key]``: slicing.py), and
the index-operand helpers the slicing ops share.

    %y = "tf.StridedSlice"(%x, %b, %e, %s) <{begin_mask = 2 : i64, ellipsis_mask = 0 : i64,
        end_mask = 3 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 0 : i64}>
        : (tensor<3x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x2xf32>
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import array
from tinytf.ops import shape as shapes
from tinytf.ops import verifiers as v
from tinytf.ops.array import ones_like
from tinytf.ops.base import fmt_shape, same_dtype
from tinytf.ops.operands import (
    check_index,
    const_ints,
    folding,
    guard_allocation,
    index_operand,
    is_python_value,
    shape_from_operand,
    static_shape,
)
from tinytf.ops.strided_slice_plan import _NEW_AXIS, _SHRINK_AXIS, _dense_spec, static_slice, strided_slice_plan

# The op function (tinytf.runtime.namespaces puts it in tt.* only, as slicing.py's slice; the rest are helpers).
__all__ = ["strided_slice"]
__namespaces__ = {"strided_slice": ("top",)}


def index_operands(*values):
    """Index operands sharing one dtype (TensorFlow's ops take one Index type): int64 when any of them
    is int64 (as TensorFlow's ``x[key]``), else int32."""
    kind = dtypes.int64 if any(index_operand_dtype(v) == dtypes.int64 for v in values) else dtypes.int32
    operands = [index_operand(v, kind if is_python_value(v) else None) for v in values]
    return [o if dtypes.as_dtype(o.dtype) == kind else array.cast(o, kind) for o in operands]


def index_operand_dtype(value):
    """The dtype ``index_operand`` would give ``value`` by itself."""
    if not is_python_value(value):
        return value.dtype
    if isinstance(value, list | tuple) and any(not is_python_value(v) for v in value):
        return dtypes.int64 if any(getattr(v, "dtype", None) == dtypes.int64 for v in value) else dtypes.int32
    array_ = np.asarray(value)
    fits = array_.size == 0 or (array_.min() >= -(2**31) and array_.max() < 2**31)
    return dtypes.int32 if fits else dtypes.int64


def is_concrete(value) -> bool:
    """A value known now (under XLA: not a tracer)."""
    return isinstance(value, np.ndarray | np.generic | int)


def dynamic_slice(input, starts: list, sizes: list):
    """``input[starts : starts + sizes]`` with run-time starts (clamped into range, as XLA does)."""
    import jax

    return jax.lax.dynamic_slice(input, [jax.numpy.asarray(b, "int32") for b in starts], sizes)


# --- StridedSlice, StridedSliceGrad ------------------------------------------------------------

class _StridedSliceMasks(Op):
    """The five masks StridedSlice and StridedSliceGrad share (bit i refers to spec entry i)."""

    begin_mask = attr(0)  # (declared in the alphabetical order TensorFlow prints them in)
    ellipsis_mask = attr(0)
    end_mask = attr(0)
    new_axis_mask = attr(0)
    shrink_axis_mask = attr(0)

    def verify_ir(self):
        """TensorFlow's VerifyStridedSliceBase."""
        expected = None
        for operand in (self.begin, self.end, self.strides):
            s = v.shape(operand)
            if s is None:
                continue
            if len(s) != 1:
                v.fail("requires begin, end and strides to be 1D tensors")
            if s[0] is None:
                continue
            if expected is None:
                if s[0] >= 32:
                    v.fail("requires begin, end and strides operands with less than 32 elements")
                expected = s[0]
            elif s[0] != expected:
                v.fail("requires begin, end and strides to have the same number of elements")
        strides = v.const_ints(self.strides)
        if strides is not None and 0 in strides:
            v.fail("requires non-zero strides")
        ellipsis = self.attr_values()["ellipsis_mask"] & 0xFFFFFFFF
        if ellipsis & (ellipsis - 1):
            v.fail("cannot have multiple ellipses")

    @classmethod
    def _spec_values(cls, begin, end, strides):
        for what, spec in (("begin", begin), ("end", end), ("strides", strides)):
            check_index(cls.name, spec, what, rank=1)
        same_dtype(cls.name, begin, end, strides)
        lengths = {s.shape[0] for s in (begin, end, strides) if s.shape is not None} - {None}
        if len(lengths) > 1:
            raise InvalidArgumentError(
                f"{cls.name}: Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                f"{fmt_shape(begin.shape)}, {fmt_shape(end.shape)}, and {fmt_shape(strides.shape)} instead.",
                cls.name)
        return const_ints(begin), const_ints(end), const_ints(strides), (lengths.pop() if lengths else None)


@register
class StridedSlice(_StridedSliceMasks):
    """NumPy-style basic indexing: begin:end:strides per spec entry, with TensorFlow's five masks.

    %y = "tf.StridedSlice"(%x, %b, %e, %s) <{begin_mask = 0 : i64, ellipsis_mask = 0 : i64, end_mask = 0 : i64,
        new_axis_mask = 0 : i64, shrink_axis_mask = 3 : i64}>
        : (tensor<3x4xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<f32>
    """

    name = "tf.StridedSlice"
    input = operand_def()
    begin = operand_def()
    end = operand_def()
    strides = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, input, begin, end, strides, **masks):
        b, e, s, n = cls._spec_values(begin, end, strides)
        if input.shape is None or s is None:
            return TensorSpec(None, input.dtype)
        _, final = strided_slice_plan(cls.name, input.shape, b, e, s, masks)
        return TensorSpec(final, input.dtype)

    @classmethod
    def compute(cls, xp, input, begin, end, strides, **masks):
        dims, final = strided_slice_plan(cls.name, input.shape, [int(v) for v in begin], [int(v) for v in end],
                                         [int(v) for v in strides], masks)
        return xp.reshape(input[tuple(d.as_slice() for d in dims)], final)

    @classmethod
    def kernel_for(cls, operands, constants, **masks):  # (static plans: a loop body slicing its gates)
        if not all(i in constants for i in (1, 2, 3)):
            return None
        return static_slice(cls.name, operands[0][0], *(constants[i] for i in (1, 2, 3)), masks), 0

    @classmethod
    def lower(cls, input, begin, end, strides, **masks):
        """Under XLA a run-time begin is fine where the size is not: x[i], x[:, i] (a dynamic-slice)."""
        import jax.numpy as jnp

        if is_concrete(begin) and is_concrete(end):
            return cls.compute(jnp, input, begin, end, strides, **masks)
        general = cls.compute  # where a size depends on run-time values: XLA's NeedsConstant from it
        if not is_concrete(strides) or any(int(v) != 1 for v in np.asarray(strides)):
            return general(jnp, input, begin, end, strides, **masks)
        strides = [1] * len(np.asarray(strides))
        dense, gather = _dense_spec(cls.name, len(input.shape), len(strides), masks)
        starts, sizes = [], []
        for (i, begin_masked, end_masked, shrink), dim in zip(dense, input.shape):
            if i is None or (begin_masked and end_masked and not shrink):
                starts.append(0)
                sizes.append(dim)
            elif shrink:
                index = begin[i]
                starts.append(jnp.where(index < 0, index + dim, index))
                sizes.append(1)
            else:
                return general(jnp, input, begin, end, strides, **masks)
        out = dynamic_slice(input, starts, sizes)
        final = tuple(1 if g == _NEW_AXIS else sizes[g] for g in gather if g != _SHRINK_AXIS)
        return jnp.reshape(out, final)

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and y = x[b:e:s]: dx = U scattered into zeros of x's shape
        x, begin, end, strides = op.inputs
        return [StridedSliceGrad.bind(shapes.shape(x, out_type=begin.dtype), begin, end, strides, dy, **op.attrs),
                None, None, None]


@register
class StridedSliceGrad(_StridedSliceMasks):
    """Zeros of ``shape`` with ``dy`` written where StridedSlice with these operands would read.

    %dx = "tf.StridedSliceGrad"(%shape, %b, %e, %s, %dy) <{begin_mask = 0 : i64, ...}>
        : (tensor<2xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<2x4xf32>) -> tensor<3x4xf32>
    """

    name = "tf.StridedSliceGrad"
    shape = operand_def()
    begin = operand_def()
    end = operand_def()
    strides = operand_def()
    dy = operand_def()
    output = result_def()

    def verify_ir(self):
        r = v.rank(self.shape.type)
        if r is not None and r != 1:
            v.fail(f"'shape' operand must be 1D tensor, but got {r}D tensor")
        super().verify_ir()
    traits = traits_def(Pure())

    @classmethod
    def infer(cls, shape, begin, end, strides, dy, **masks):
        b, e, s, n = cls._spec_values(begin, end, strides)
        out = shape_from_operand(cls.name, shape)
        guard_allocation(cls.name, out, dy.dtype)
        if out is not None and None not in out and s is not None:
            _, final = strided_slice_plan(cls.name, out, b, e, s, masks)
            if dy.shape is not None and not TensorSpec(final).is_compatible_with(dy.shape):
                raise InvalidArgumentError(
                    f"{cls.name}: shape of dy {fmt_shape(dy.shape)} is not the slice's shape {fmt_shape(final)}",
                    cls.name)
        return TensorSpec(out, dy.dtype)

    @classmethod
    def _plan(cls, shape, begin, end, strides, dy, masks):
        dims, final = strided_slice_plan(cls.name, tuple(int(d) for d in shape), [int(v) for v in begin],
                                         [int(v) for v in end], [int(v) for v in strides], masks)
        if tuple(dy.shape) != tuple(final):
            raise InvalidArgumentError(
                f"{cls.name}: shape of dy {fmt_shape(dy.shape)} is not the slice's shape {fmt_shape(final)}", cls.name)
        return tuple(d.as_slice() for d in dims), tuple(d.size for d in dims)

    @classmethod
    def compute(cls, xp, shape, begin, end, strides, dy, **masks):
        index, processing = cls._plan(shape, begin, end, strides, dy, masks)
        out = np.zeros(tuple(int(d) for d in shape), dy.dtype)
        out[index] = dy.reshape(processing)  # a fresh array: writing into it is safe
        return out

    @classmethod
    def lower(cls, shape, begin, end, strides, dy, **masks):
        import jax.numpy as jnp

        index, processing = cls._plan(np.asarray(shape), np.asarray(begin), np.asarray(end), np.asarray(strides),
                                      dy, masks)
        return jnp.zeros(tuple(int(d) for d in np.asarray(shape)), dy.dtype).at[index].set(dy.reshape(processing))

    @staticmethod
    def grad(op, ddx):  # Given upstream grad U and dx = scatter(dy): ddy = strided_slice(U), as TensorFlow
        _, begin, end, strides, _ = op.inputs
        return [None, None, None, None, StridedSlice.bind(ddx, begin, end, strides, **op.attrs)]


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    if strides is None:
        n = len(begin) if is_python_value(begin) else (static_shape(begin) or (None,))[0]
        strides = [1] * n if n is not None else ones_like(begin)
    begin, end, strides = index_operands(begin, end, strides)
    return StridedSlice.bind(input_, begin, end, strides, begin_mask=begin_mask, end_mask=end_mask,
                             ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                             shrink_axis_mask=shrink_axis_mask)
