"""Splitting along an axis, joining's inverses: Unpack (unstack), Split into equal parts, SplitV into
given sizes (one may be -1: the rest). ConcatV2 and Pack are in tinytf/ops/joining.py.

    %a:2 = "tf.Split"(%dim, %x) : (tensor<i32>, tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
"""
from __future__ import annotations

import builtins

import numpy as np
from xdsl.irdl import operand_def, traits_def, var_result_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError, ResourceExhaustedError
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v
from tinytf.ops.array import constant, zeros_like
from tinytf.ops.base import fmt_shape, normalize_axis
from tinytf.ops.operands import (
    as_int,
    check_index,
    const_ints,
    folding,
    index_operand,
    is_python_value,
    scalar_axis,
)


def split_dim_index(op) -> int | None:
    """TensorFlow's VerifySplitInputAndSplitDim (Split, SplitV): the split dim when it is known."""
    r = v.rank(op.split_dim.type)
    if r is not None and r != 0:
        v.fail("split dimension should be an integer scalar tensor")
    s = v.shape(op.value.type)
    if s is None:
        return None
    if not s:
        v.fail("cannot split scalar input tensor")
    dims = v.const_ints(op.split_dim)
    if not dims:
        return None
    if not -len(s) <= dims[0] < len(s):
        v.fail(f"split dimension must be in range [-{len(s)}, {len(s)})")
    return dims[0] % len(s)


_MAX_OUTPUTS = 1 << 20


def _check_output_count(op_name: str, n: int) -> None:
    """An absurd result count (Unpack's num, Split's num_split) would build that many tensors."""
    if n > _MAX_OUTPUTS:
        raise ResourceExhaustedError(f"{op_name}: {n} outputs is more than the limit of {_MAX_OUTPUTS}", op_name)


@register
class Unpack(Op):
    """The ``num`` slices of ``value`` along ``axis``, each without that dim.

    %a, %b = "tf.Unpack"(%x) <{axis = 0 : i64}> : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    """

    name = "tf.Unpack"
    value = operand_def()
    output = var_result_def()
    num = derived("int", lambda op: len(op.results))
    axis = attr(0)

    def verify_ir(self):
        s = v.shape(self.value.type)
        if s is None:
            return
        r, axis = len(s), self.attr_values()["axis"]
        if not -r <= axis < r:
            v.fail(f"axis attribute must be in the range of [-{r}, {r})")
        if s[axis % r] is not None and s[axis % r] != len(self.output):
            v.fail(f"result count must be equal to {s[axis % r]}")
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, value, *, num, axis):
        if num < 0:
            raise InvalidArgumentError(f"{cls.name}: num must be non-negative, got {num}", cls.name)
        _check_output_count(cls.name, num)
        if value.shape is None:
            return [TensorSpec(None, value.dtype) for _ in range(num)]
        a = normalize_axis(cls.name, axis, len(value.shape))
        if len(value.shape) == 0:
            raise InvalidArgumentError(f"{cls.name}: cannot unstack a scalar", cls.name)
        if value.shape[a] not in (None, num):
            raise InvalidArgumentError(
                f"{cls.name}: Input shape axis {a} must equal {num}, got {value.shape[a]} (shape "
                f"{fmt_shape(value.shape)})", cls.name)
        out = value.shape[:a] + value.shape[a + 1:]
        return [TensorSpec(out, value.dtype) for _ in range(num)]

    @classmethod
    def compute(cls, xp, value, *, num, axis):
        a = normalize_axis(cls.name, axis, value.ndim)
        if value.shape[a] != num:
            raise InvalidArgumentError(f"{cls.name}: Input shape axis {a} must equal {num}, got {value.shape[a]}",
                                       cls.name)
        return tuple(value[(builtins.slice(None),) * a + (i,)] for i in range(num))

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U_i and ys = unstack(x, a): dx = stack(U, a)
        from tinytf.ops.joining import stack  # joining imports this module

        dys = [zeros_like(y) if d is None else d for d, y in zip(dys, op.outputs)]
        return [stack(dys, axis=op.attrs["axis"])]


def unstack(value, num=None, axis=0, name="unstack"):
    if is_python_value(value):
        value = constant(value)
    if num is None:
        known = getattr(value, "shape", None)
        if known is None or not -len(known) <= axis < len(known) or known[axis] is None:
            raise InvalidArgumentError(f"tt.unstack: cannot infer num from shape {fmt_shape(known)}", Unpack.name)
        num = known[axis]
    return list(Unpack.bind(value, num=num, axis=axis))


@register
class Split(Op):
    """``value`` cut into ``num_split`` equal parts along ``split_dim`` (the first operand).

    %a:2 = "tf.Split"(%dim, %x) : (tensor<i32>, tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
    """

    name = "tf.Split"
    split_dim = operand_def()
    value = operand_def()
    output = var_result_def()
    num_split = derived("int", lambda op: len(op.results))

    def verify_ir(self):
        dim = split_dim_index(self)
        if dim is None:
            return
        size = v.shape(self.value.type)[dim]
        if size is not None and self.output and size % len(self.output):
            v.fail(f"dimension #{dim} not divisible by the number of result tensors")
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, split_dim, value, *, num_split):
        if num_split < 1:
            raise InvalidArgumentError(f"{cls.name}: num_split must be at least 1, got {num_split}", cls.name)
        _check_output_count(cls.name, num_split)
        a = scalar_axis(cls.name, split_dim, "split_dim")
        if value.shape is None:
            return [TensorSpec(None, value.dtype)] * num_split
        if a is None:
            return [TensorSpec((None,) * len(value.shape), value.dtype)] * num_split
        a = _split_axis(cls.name, a, len(value.shape))
        d = value.shape[a]
        if d is not None and d % num_split:
            raise InvalidArgumentError(
                f"{cls.name}: Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {a} (size = {d}) and num_split {num_split}", cls.name)
        out = value.shape[:a] + (None if d is None else d // num_split,) + value.shape[a + 1:]
        return [TensorSpec(out, value.dtype) for _ in range(num_split)]

    @classmethod
    def compute(cls, xp, split_dim, value, *, num_split):
        axis = _split_axis(cls.name, int(split_dim), value.ndim)
        size, lead = value.shape[axis] // num_split, (slice(None),) * axis
        return tuple(value[lead + (slice(i * size, (i + 1) * size),)] for i in range(num_split))  # (np.split's views)

    @classmethod
    def kernel_for(cls, operands, constants, *, num_split, **_):  # (static plans: a loop body splitting its gates)
        if 0 not in constants:
            return None
        shape = operands[1][0]
        axis = _split_axis(cls.name, int(constants[0]), len(shape))
        size, lead = shape[axis] // num_split, (slice(None),) * axis
        parts = [lead + (slice(i * size, (i + 1) * size),) for i in range(num_split)]
        return (lambda split_dim, value: [value[part] for part in parts]), 0

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U_i and ys = split(x): dx = concat(U, split_dim)
        from tinytf.ops.joining import concat  # joining imports this module

        dys = [zeros_like(y) if d is None else d for d, y in zip(dys, op.outputs)]
        return [None, concat(dys, op.inputs[0])]


def _split_axis(op_name: str, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        raise InvalidArgumentError(
            f"{op_name}: -input rank(-{rank}) <= split_dim < input rank ({rank}), but got {axis}", op_name)
    return axis % rank


def _split_sizes(op_name: str, dim, sizes):
    """SplitV's sizes with the one -1 resolved; checked against the split dim when it is known."""
    sizes = list(sizes)
    if sizes.count(-1) > 1:
        raise InvalidArgumentError(f"{op_name}: There can only be one -1 in the input, got {sizes}", op_name)
    if any(s < -1 for s in sizes):
        raise InvalidArgumentError(f"{op_name}: Split sizes must be >= 0 (or one -1), got {sizes}", op_name)
    known = sum(s for s in sizes if s != -1)
    if len(sizes) == 1 and dim is not None and sizes[0] != dim:
        raise InvalidArgumentError(
            f"{op_name}: If there is only one output, it must have the same size as the input. Input size: {dim} "
            f"output size: {sizes[0]}", op_name)
    if dim is None:
        return [None if s == -1 else s for s in sizes]
    if (-1 not in sizes and known != dim) or known > dim:
        raise InvalidArgumentError(
            f"{op_name}: Determined shape must either match input shape along split_dim exactly if fully "
            f"specified, or be less than the size of the input along split_dim if not fully specified. "
            f"Got: {known} (sizes {sizes}, dim {dim})", op_name)
    return [dim - known if s == -1 else s for s in sizes]


@register
class SplitV(Op):
    """``value`` cut along ``split_dim`` into parts of ``size_splits`` (one may be -1: the rest).

    %a:2 = "tf.SplitV"(%x, %sizes, %dim) : (tensor<5xf32>, tensor<2xi32>, tensor<i32>) -> (tensor<2xf32>, tensor<3xf32>)
    """

    name = "tf.SplitV"
    value = operand_def()
    size_splits = operand_def()
    split_dim = operand_def()
    output = var_result_def()
    num_split = derived("int", lambda op: len(op.results))

    def verify_ir(self):
        sizes_shape = v.shape(self.size_splits.type)
        if sizes_shape is None:
            return
        n = len(self.output)
        if len(sizes_shape) != 1 or sizes_shape[0] not in (None, n):
            v.fail(f"split sizes should be a 1D tensor of {n} elements")
        dim = split_dim_index(self)
        if dim is None:
            return
        size = v.shape(self.value.type)[dim]
        sizes = v.const_ints(self.size_splits)
        if size is None or sizes is None:
            return
        if sizes.count(-1) > 1:
            v.fail("cannot have more than one dynamic dimension in split sizes")
        total = sum(x for x in sizes if x != -1)
        if -1 not in sizes and total != size:
            v.fail(f"split sizes must sum up to the dimension size along split dimension, found {total} vs {size}")
        if -1 in sizes and total > size:
            v.fail("split sizes must sum up to be less than or equal to the dimension size along split dimension, "
                   f"found {total} vs {size}")
    traits = traits_def(Pure())

    @classmethod
    @folding
    def infer(cls, value, size_splits, split_dim, *, num_split):
        if num_split < 1:
            raise InvalidArgumentError(f"{cls.name}: num_split must be at least 1, got {num_split}", cls.name)
        _check_output_count(cls.name, num_split)
        check_index(cls.name, size_splits, "size_splits", rank=1)
        if size_splits.shape is not None and size_splits.shape[0] not in (None, num_split):
            raise InvalidArgumentError(
                f"{cls.name}: size_splits {fmt_shape(size_splits.shape)} must have num_split = {num_split} "
                f"elements", cls.name)
        a = scalar_axis(cls.name, split_dim, "split_dim", legacy="any")
        sizes = const_ints(size_splits)
        if value.shape is None or a is None:
            r = None if value.shape is None else len(value.shape)
            return [TensorSpec(None if r is None else (None,) * r, value.dtype) for _ in range(num_split)]
        a = _split_axis(cls.name, a, len(value.shape))
        parts = [None] * num_split if sizes is None else _split_sizes(cls.name, value.shape[a], sizes)
        return [TensorSpec(value.shape[:a] + (p,) + value.shape[a + 1:], value.dtype) for p in parts]

    @classmethod
    def compute(cls, xp, value, size_splits, split_dim, *, num_split):
        a = _split_axis(cls.name, as_int(split_dim), value.ndim)
        parts = _split_sizes(cls.name, value.shape[a], [int(s) for s in size_splits])
        cuts = np.cumsum(parts)[:-1].tolist()
        return tuple(xp.split(value, cuts, axis=a))

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U_i and ys = split_v(x): dx = concat(U, split_dim)
        from tinytf.ops.joining import concat  # joining imports this module

        dys = [zeros_like(y) if d is None else d for d, y in zip(dys, op.outputs)]
        return [concat(dys, op.inputs[2]), None, None]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``tt.split``: an int gives Split into equal parts, a list (or 1-D tensor) of sizes gives SplitV."""
    if is_python_value(value):
        value = constant(value)
    if isinstance(num_or_size_splits, int | np.integer):
        return list(Split.bind(index_operand(axis), value, num_split=int(num_or_size_splits)))
    if num is None:
        known = getattr(num_or_size_splits, "shape", None)
        if is_python_value(num_or_size_splits):
            num = len(num_or_size_splits)
        elif known is not None and len(known) == 1 and known[0] is not None:
            num = known[0]
        else:
            raise InvalidArgumentError(f"tt.split: cannot infer num from size_splits {num_or_size_splits!r}",
                                       SplitV.name)
    return list(SplitV.bind(value, index_operand(num_or_size_splits), index_operand(axis), num_split=num))


# The op functions (tinytf.runtime.namespaces puts them in tt.*; the rest are helpers).
__all__ = ["unstack", "split"]
__namespaces__ = {"unstack": ("top",), "split": ("top",)}  # tt.unstack, tt.split (as joining's tt.concat, tt.stack)
