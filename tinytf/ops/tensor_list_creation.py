"""TensorList ops that make a list: Reserve, EmptyTensorList, FromTensor, and ``ListOp``, the base of
every list op (the whole list's Length, ElementShape, Stack, Resize: tensor_list.py; elements:
tensor_list_items.py; Concat and Split: tensor_list_concat.py; Gather and Scatter:
tensor_list_scatter.py; the run-time values: tensor_list_values.py, tensor_list_buffer.py).

    %l = "tf.TensorListReserve"(%shape, %n) : (tensor<2xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<2x4xf32>>>
    %l = "tf.TensorListFromTensor"(%t, %shape) : (tensor<5x2x4xf32>, tensor<2xi32>) -> tensor<!tf_type.variant<...>>

Under XLA a list is a fixed-size buffer (``ListBuffer``): creating one needs its size at compile
time, as TensorFlow's XLA bridge does; ``compute`` is the numpy semantics and ``lower`` the buffer's.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import check_index, index_operand
from tinytf.ops.tensor_list_buffer import ListBuffer, new_buffer
from tinytf.ops.tensor_list_static import from_tensor_kernel, reserve_kernel
from tinytf.ops.tensor_list_values import (
    ListSpec,
    TensorList,
    compatible,
    element_dtype_of,
    merge,
    shape_from_array,
    shape_from_spec,
)

__all__: list[str] = []  # as in TensorFlow, the list ops are tt.raw_ops only (and the functions below)


def _result_list_dtype(op):
    return element_dtype_of(op.results[0].type)


def operand_dtype(i):
    return lambda op: tf_types.dtype_of(op.operands[i].type)


def result_dtype(i):
    return lambda op: tf_types.dtype_of(op.results[i].type)


class ListOp(Op):
    """A TensorList op: a list is no constant (under XLA ``lower`` builds its buffer, never numpy)."""

    traits = traits_def(Pure(), NoConstantFold())


def scalar_int(value) -> int:
    return int(np.asarray(value).reshape(-1)[0]) if np.size(value) == 1 else int(value)  # (a tracer: XLA's NeedsConstant)


def _new_list_spec(op_name: str, element_shape, count, what: str, element_dtype) -> ListSpec:
    check_index(op_name, count, what, rank=0)
    if element_dtype is None:
        raise InvalidArgumentError(f"{op_name}: element_dtype is not known", op_name)
    return ListSpec(shape_from_spec(op_name, element_shape), dtypes.as_dtype(element_dtype))


@register
class TensorListReserve(ListOp):
    """A list of ``num_elements`` elements, none set yet (each reads as zeros of ``element_shape``)."""

    name = "tf.TensorListReserve"
    element_shape = operand_def()
    num_elements = operand_def()
    handle = result_def()
    element_dtype = derived("type", _result_list_dtype, default=None)
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, element_shape, num_elements, *, element_dtype):
        return _new_list_spec(cls.name, element_shape, num_elements, "num_elements", element_dtype)

    @classmethod
    def compute(cls, xp, element_shape, num_elements, *, element_dtype):
        n = scalar_int(num_elements)
        if n < 0:
            raise InvalidArgumentError(f"{cls.name}: The num_elements to reserve must be a non negative number, "
                                       f"but got {n}", cls.name)
        check_allocation(cls.name, (n,), dtypes.int64)
        return TensorList((None,) * n, shape_from_array(cls.name, element_shape), dtypes.as_dtype(element_dtype))

    @classmethod
    def kernel_for(cls, operands, constants, *, element_dtype, **_):  # (static plans: tensor_list_static.py)
        return reserve_kernel(cls, constants, element_dtype)

    @classmethod
    def lower(cls, element_shape, num_elements, *, element_dtype):
        n = scalar_int(num_elements)
        return new_buffer(cls.name, n, shape_from_array(cls.name, element_shape), element_dtype, n)


@register
class EmptyTensorList(ListOp):
    """An empty list that PushBack grows (to at most ``max_num_elements``, unless that is -1)."""

    name = "tf.EmptyTensorList"
    element_shape = operand_def()
    max_num_elements = operand_def()
    handle = result_def()
    element_dtype = derived("type", _result_list_dtype, default=None)
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, element_shape, max_num_elements, *, element_dtype):
        return _new_list_spec(cls.name, element_shape, max_num_elements, "max_num_elements", element_dtype)

    @classmethod
    def compute(cls, xp, element_shape, max_num_elements, *, element_dtype):
        return TensorList((), shape_from_array(cls.name, element_shape), dtypes.as_dtype(element_dtype),
                          scalar_int(max_num_elements))

    @classmethod
    def lower(cls, element_shape, max_num_elements, *, element_dtype):
        return new_buffer(cls.name, scalar_int(max_num_elements), shape_from_array(cls.name, element_shape),
                           element_dtype, 0)


@register
class TensorListFromTensor(ListOp):
    """The rows of ``tensor`` as a list: stacking it gives ``tensor`` back."""

    name = "tf.TensorListFromTensor"
    tensor = operand_def()
    element_shape = operand_def()
    output_handle = result_def()
    element_dtype = derived("type", operand_dtype(0), default=None)

    @classmethod
    def infer(cls, tensor, element_shape, **_):
        rows = rows_shape(cls.name, tensor.shape)
        shape = shape_from_spec(cls.name, element_shape)
        return ListSpec(rows_fit(cls.name, shape, rows), tensor.dtype)

    @classmethod
    def compute(cls, xp, tensor, element_shape, **_):
        shape = shape_from_array(cls.name, element_shape)
        rows_fit(cls.name, shape, rows_shape(cls.name, tensor.shape))
        return TensorList(tuple(tensor[i] for i in range(tensor.shape[0])), shape, dtypes.as_dtype(tensor.dtype))

    @classmethod
    def kernel_for(cls, operands, constants, **_):  # (static plans: tensor_list_static.py)
        return from_tensor_kernel(cls, operands, constants)

    @classmethod
    def lower(cls, tensor, element_shape, **_):
        rows = rows_shape(cls.name, tuple(tensor.shape))
        if isinstance(element_shape, np.ndarray | np.generic):
            rows_fit(cls.name, shape_from_array(cls.name, element_shape), rows)
        return ListBuffer(tensor, np.int32(tensor.shape[0]), int(tensor.shape[0]), rows, dtypes.as_dtype(tensor.dtype))

    @staticmethod
    def grad(op, dlist):  # Given upstream grad U (a list) and l = from_tensor(t): dt = stack(U)
        from tinytf.ops.tensor_list import TensorListStack  # (tensor_list.py builds on this module)

        t = op.inputs[0]
        rows = None if t.shape is None or t.shape[0] is None else t.shape[0]
        return [TensorListStack.bind(dlist, element_shape_of(t), element_dtype=t.dtype,
                                     num_elements=-1 if rows is None else rows), None]


def rows_fit(op_name: str, shape, rows):
    """The element shape of a list made of rows of shape ``rows``: ``shape`` and theirs merged."""
    if not compatible(shape, rows):
        raise InvalidArgumentError(f"{op_name}: Specified a list with shape {fmt_shape(shape)} from a tensor "
                                   f"with shape {fmt_shape(rows)}", op_name)
    return merge(op_name, shape, rows)


def rows_shape(op_name: str, shape):
    if shape is not None and len(shape) == 0:
        raise InvalidArgumentError(f"{op_name}: Tensor must be at least a vector, but saw shape: []", op_name)
    return None if shape is None else tuple(shape[1:])


def element_shape_of(t):
    """``shape(t)[1:]``: the element shape of the list whose stack is ``t``."""
    from tinytf.ops.op_functions import ops, shape_tensor

    if t.shape is not None and all(d is not None for d in t.shape):
        return np.asarray(tuple(t.shape)[1:], np.int32)
    return ops.slice(shape_tensor(t), [1], [-1])



# --- functions, as tensorflow/python/ops/list_ops.py ---------------------------------------------

def build_element_shape(shape):
    """An element-shape operand: -1 for an unknown shape, -1 for each unknown dim, or a tensor as it is."""
    if shape is None or (hasattr(shape, "rank") and shape.rank is None and not hasattr(shape, "graph")):
        return np.asarray(-1, np.int32)
    if isinstance(shape, list | tuple):
        return index_operand([-1 if d is None else d for d in shape], dtypes.int32) if shape else \
            np.zeros((0,), np.int32)
    return index_operand(shape)


def tensor_list_reserve(element_shape, num_elements, element_dtype, name=None):
    return TensorListReserve.bind(build_element_shape(element_shape), index_operand(num_elements, dtypes.int32),
                                  element_dtype=dtypes.as_dtype(element_dtype))


def empty_tensor_list(element_shape, element_dtype, max_num_elements=None, name=None):
    return EmptyTensorList.bind(build_element_shape(element_shape),
                                index_operand(-1 if max_num_elements is None else max_num_elements, dtypes.int32),
                                element_dtype=dtypes.as_dtype(element_dtype))


def tensor_list_from_tensor(tensor, element_shape, name=None):
    return TensorListFromTensor.bind(tensor, build_element_shape(element_shape))
