"""TensorList ops on one element: GetItem, SetItem, PushBack, PopBack.

    %m = "tf.TensorListSetItem"(%l, %i, %x) : (tensor<!tf_type.variant<tensor<2x4xf32>>>, tensor<i32>,
                                               tensor<2x4xf32>) -> tensor<!tf_type.variant<tensor<2x4xf32>>>
    %x = "tf.TensorListGetItem"(%m, %i, %shape) : (tensor<!tf_type.variant<tensor<2x4xf32>>>, tensor<i32>,
                                                   tensor<2xi32>) -> tensor<2x4xf32>

A list is never written in place: SetItem and PushBack return a new list sharing the other elements.
Gradients are TensorFlow's: GetItem's is a SetItem into a list of zeros, SetItem's a GetItem, PushBack's
a PopBack and PopBack's a PushBack (TensorFlow's while-loop gradients accumulate with these two).
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr, derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import check_index, index_operand
from tinytf.ops.tensor_list import TensorListElementShape, TensorListLength, TensorListResize, item_or_zeros
from tinytf.ops.tensor_list_buffer import check_static_index, initialized, jnp_module, row, set_row, xla_list
from tinytf.ops.tensor_list_creation import (
    EmptyTensorList,
    ListOp,
    TensorListReserve,
    build_element_shape,
    operand_dtype,
    result_dtype,
    scalar_int,
)
from tinytf.ops.tensor_list_static import get_item_kernel, set_item_kernel
from tinytf.ops.tensor_list_values import (
    ListSpec,
    check_dtype,
    compatible,
    list_operand,
    merge,
    shape_from_spec,
    the_list,
)

__all__: list[str] = []  # tt.raw_ops only, as in TensorFlow (and the functions below)


@register
class TensorListGetItem(ListOp):
    """Element ``index`` (zeros of the element shape when it was never set)."""

    name = "tf.TensorListGetItem"
    input_handle = operand_def()
    index = operand_def()
    element_shape = operand_def()
    item = result_def()
    element_dtype = derived("type", result_dtype(0), default=None)
    VALUES_CHECKED_BY_KERNEL: ClassVar[tuple] = ("index",)  # the shape rule reads its type only

    @classmethod
    def infer(cls, input_handle, index, element_shape, *, element_dtype):
        shape, dtype = list_operand(cls.name, input_handle)
        check_index(cls.name, index, "index", rank=0)
        check_dtype(cls.name, element_dtype, dtype)
        return TensorSpec(merge(cls.name, shape_from_spec(cls.name, element_shape), shape), element_dtype or dtype)

    @classmethod
    def compute(cls, xp, input_handle, index, element_shape, *, element_dtype):
        lst = the_list(cls.name, input_handle)
        check_dtype(cls.name, element_dtype, lst.element_dtype)
        i = scalar_int(index)
        if not 0 <= i < len(lst):
            raise InvalidArgumentError(f"{cls.name}: Trying to access element {i} in a list with {len(lst)} "
                                       "elements.", cls.name)
        return item_or_zeros(cls.name, lst, i, element_shape, element_dtype)

    @classmethod
    def kernel_for(cls, operands, constants, **attrs):  # (static plans: tensor_list_static.py)
        return get_item_kernel(cls, attrs)

    @classmethod
    def lower(cls, input_handle, index, element_shape, *, element_dtype):
        lst = initialized(cls.name, xla_list(cls.name, input_handle), shape_operand=element_shape)
        check_static_index(cls.name, index, lst.capacity)
        return row(lst.buffer, index)

    @staticmethod
    def grad(op, ditem):  # Given upstream grad U and y = l[i]: dl = zeros-list with U at i
        lst, index, _ = op.inputs
        zeros = TensorListReserve.bind(TensorListElementShape.bind(lst, shape_type=dtypes.int32),
                                       TensorListLength.bind(lst), element_dtype=ditem.dtype)
        return [TensorListSetItem.bind(zeros, index, ditem), None, None]


@register
class TensorListSetItem(ListOp):
    """The list with element ``index`` replaced by ``item`` (the input list is unchanged)."""

    name = "tf.TensorListSetItem"
    input_handle = operand_def()
    index = operand_def()
    item = operand_def()
    output_handle = result_def()
    resize_if_index_out_of_bounds = attr(False)
    element_dtype = derived("type", operand_dtype(2), default=None)
    VALUES_CHECKED_BY_KERNEL: ClassVar[tuple] = ("index",)  # the shape rule reads its type only

    @classmethod
    def infer(cls, input_handle, index, item, **_):
        shape, dtype = list_operand(cls.name, input_handle)
        check_index(cls.name, index, "index", rank=0)
        _check_item(cls.name, shape, dtype, item.shape, item.dtype, "set")
        return ListSpec(shape, dtype or item.dtype)

    @classmethod
    def compute(cls, xp, input_handle, index, item, *, resize_if_index_out_of_bounds, **_):
        lst = the_list(cls.name, input_handle)
        _check_item(cls.name, lst.element_shape, lst.element_dtype, item.shape, item.dtype, "set")
        i = scalar_int(index)
        items = lst.items
        if i < 0 or (i >= len(items) and not resize_if_index_out_of_bounds):
            raise InvalidArgumentError(f"{cls.name}: Trying to modify element {i} in a list with {len(items)} "
                                       "elements.", cls.name)
        if i >= len(items):
            check_allocation(cls.name, (i + 1,), dtypes.int64)
            items = items + (None,) * (i + 1 - len(items))
        return lst.with_items(items[:i] + (item,) + items[i + 1:])

    @classmethod
    def kernel_for(cls, operands, constants, **attrs):  # (static plans: tensor_list_static.py)
        return set_item_kernel(cls, attrs)

    @classmethod
    def lower(cls, input_handle, index, item, *, resize_if_index_out_of_bounds, **_):
        lst = initialized(cls.name, xla_list(cls.name, input_handle), tuple(item.shape))
        if resize_if_index_out_of_bounds:
            i = scalar_int(index)  # the list's size must stay known at compile time
            if i >= lst.capacity:
                jnp = jnp_module()
                grown = jnp.concatenate([jnp.asarray(lst.buffer), jnp.zeros((i + 1 - lst.capacity, *lst.buffer.shape[1:]),
                                                                           lst.buffer.dtype)])
                lst = lst.replace(buffer=grown, size=np.int32(i + 1))
        else:
            check_static_index(cls.name, index, lst.capacity)
        return lst.replace(buffer=set_row(lst.buffer, index, item))

    @staticmethod
    def grad(op, dlist):  # Given upstream grad U and l' = set(l, i, x): dl = set(U, i, 0), dx = U[i]
        lst, index, item = op.inputs
        from tinytf.ops.op_functions import ops, shape_tensor

        list_grad = TensorListSetItem.bind(dlist, index, ops.zeros_like(item))
        element_grad = TensorListGetItem.bind(dlist, index, shape_tensor(item), element_dtype=item.dtype)
        if op.attrs.get("resize_if_index_out_of_bounds"):
            list_grad = TensorListResize.bind(list_grad, TensorListLength.bind(lst))
        return [list_grad, None, element_grad]


def _check_item(op_name: str, list_shape, list_dtype, shape, dtype, verb: str) -> None:
    check_dtype(op_name, dtype, list_dtype)
    if not compatible(list_shape, shape):
        raise InvalidArgumentError(f"{op_name}: Tried to {verb} a tensor with incompatible shape to a list. Item "
                                   f"element shape: {fmt_shape(shape)} list shape: {fmt_shape(list_shape)}", op_name)


@register
class TensorListPushBack(ListOp):
    """The list with ``tensor`` appended."""

    name = "tf.TensorListPushBack"
    input_handle = operand_def()
    tensor = operand_def()
    output_handle = result_def()
    element_dtype = derived("type", operand_dtype(1), default=None)

    @classmethod
    def infer(cls, input_handle, tensor, **_):
        shape, dtype = list_operand(cls.name, input_handle)
        _check_item(cls.name, shape, dtype, tensor.shape, tensor.dtype, "append")
        return ListSpec(shape, dtype or tensor.dtype)

    @classmethod
    def compute(cls, xp, input_handle, tensor, **_):
        lst = the_list(cls.name, input_handle)
        _check_item(cls.name, lst.element_shape, lst.element_dtype, tensor.shape, tensor.dtype, "append")
        if lst.max_num_elements != -1 and len(lst) >= lst.max_num_elements:
            raise InvalidArgumentError(f"{cls.name}: Tried to push item into a full list list size: {len(lst)} "
                                       f"max_num_elements: {lst.max_num_elements}", cls.name)
        return lst.with_items(lst.items + (tensor,))

    @classmethod
    def lower(cls, input_handle, tensor, **_):
        lst = initialized(cls.name, xla_list(cls.name, input_handle), tuple(tensor.shape))
        if isinstance(lst.size, np.ndarray | np.generic) and int(lst.size) >= lst.capacity:
            raise InvalidArgumentError(f"{cls.name}: Tried to push item into a full list list size: "
                                       f"{int(lst.size)} max_num_elements: {lst.capacity}", cls.name)
        return lst.replace(buffer=set_row(lst.buffer, lst.size, tensor), size=lst.size + np.int32(1))

    @staticmethod
    def grad(op, dlist):  # Given upstream grad U and l' = push(l, x): (dl, dx) = pop(U)
        from tinytf.ops.op_functions import shape_tensor

        x = op.inputs[1]
        return list(TensorListPopBack.bind(dlist, shape_tensor(x), element_dtype=x.dtype))


@register
class TensorListPopBack(ListOp):
    """(the list without its last element, that element); an error on an empty list."""

    name = "tf.TensorListPopBack"
    input_handle = operand_def()
    element_shape = operand_def()
    output_handle = result_def()
    tensor = result_def()
    element_dtype = derived("type", result_dtype(1), default=None)

    @classmethod
    def infer(cls, input_handle, element_shape, *, element_dtype):
        shape, dtype = list_operand(cls.name, input_handle)
        check_dtype(cls.name, element_dtype, dtype)
        dtype = element_dtype or dtype
        return [ListSpec(shape, dtype), TensorSpec(merge(cls.name, shape_from_spec(cls.name, element_shape), shape),
                                                   dtype)]

    @classmethod
    def compute(cls, xp, input_handle, element_shape, *, element_dtype):
        lst = the_list(cls.name, input_handle)
        check_dtype(cls.name, element_dtype, lst.element_dtype)
        if not len(lst):
            raise InvalidArgumentError(f"{cls.name}: Trying to pop from an empty list.", cls.name)
        return lst.with_items(lst.items[:-1]), item_or_zeros(cls.name, lst, len(lst) - 1, element_shape,
                                                               element_dtype)

    @classmethod
    def lower(cls, input_handle, element_shape, *, element_dtype):
        lst = initialized(cls.name, xla_list(cls.name, input_handle), shape_operand=element_shape)
        if isinstance(lst.size, np.ndarray | np.generic) and int(lst.size) <= 0:
            raise InvalidArgumentError(f"{cls.name}: Trying to pop from an empty list.", cls.name)
        last = lst.size - np.int32(1)
        return lst.replace(size=last), row(lst.buffer, last)

    @staticmethod
    def grad(op, dlist, delement):  # Given upstream grads (U, V) and (l', x) = pop(l): dl = push(U, V)
        from tinytf.ops.op_functions import ops

        if dlist is None:
            dlist = EmptyTensorList.bind(TensorListElementShape.bind(op.outputs[0], shape_type=dtypes.int32),
                                         np.int32(-1), element_dtype=op.outputs[1].dtype)
        if delement is None:
            delement = ops.zeros_like(op.outputs[1])
        return [TensorListPushBack.bind(dlist, delement), None]



# --- functions, as tensorflow/python/ops/list_ops.py ---------------------------------------------

def tensor_list_get_item(input_handle, index, element_dtype, element_shape=None, name=None):
    return TensorListGetItem.bind(input_handle, index_operand(index, dtypes.int32), build_element_shape(element_shape),
                                  element_dtype=dtypes.as_dtype(element_dtype))


def tensor_list_set_item(input_handle, index, item, resize_if_index_out_of_bounds=False, name=None):
    return TensorListSetItem.bind(input_handle, index_operand(index, dtypes.int32), item,
                                  resize_if_index_out_of_bounds=resize_if_index_out_of_bounds)


def tensor_list_push_back(input_handle, tensor, name=None):
    return TensorListPushBack.bind(input_handle, tensor)


def tensor_list_pop_back(input_handle, element_dtype, name=None):
    return TensorListPopBack.bind(input_handle, np.asarray(-1, np.int32), element_dtype=dtypes.as_dtype(element_dtype))
