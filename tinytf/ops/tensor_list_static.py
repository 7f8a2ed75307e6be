"""TensorList kernels for static plans: a list op whose operand types the shape rule has checked, in a
loop body run once per time step (tinytf/runtime/static_plan.py's ``kernel_for``).

    x = get(lst, i, shape)          # the item set at i, without the checks the shape rule made
    lst2 = set_item(lst, i, x)      # a new list with element i replaced

Each kernel takes the common case (an index in range, every element set, constant shapes) and leaves
everything else, errors among them, to the op's compute: values are the compute's, bit for bit.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import OpError
from tinytf.ops.tensor_list_values import TensorList, fully_defined, merge, shape_from_array


def get_item_kernel(op_class, attrs: dict):
    """TensorListGetItem: the item set at an index in range."""
    compute = op_class.compute

    def get(input_handle, index, element_shape):
        items = input_handle.items
        i = int(index)  # (a scalar: the shape rule checked its rank)
        item = items[i] if 0 <= i < len(items) else None
        return item if item is not None else compute(np, input_handle, index, element_shape, **attrs)

    return get, 0


def set_item_kernel(op_class, attrs: dict):
    """TensorListSetItem: the list with the element at an index in range replaced (an item whose type the shape
    rule checked)."""
    compute = op_class.compute

    def set_item(input_handle, index, item):
        items = input_handle.items
        i = int(index)  # (a scalar: the shape rule checked its rank)
        if not 0 <= i < len(items):
            return compute(np, input_handle, index, item, **attrs)
        return input_handle.with_items(items[:i] + (item,) + items[i + 1:])

    return set_item, 0


def reserve_kernel(op_class, constants: dict, element_dtype):
    """TensorListReserve of a constant size and element shape: that list, none of its elements set (a list is
    never written in place: one serves every call); its bytes are the compute's allocation check's."""
    if 0 not in constants or 1 not in constants or np.size(constants[1]) != 1:
        return None
    try:
        made = op_class.compute(np, constants[0], constants[1], element_dtype=element_dtype)
    except OpError:  # (the general runner raises it at run time)
        return None
    return (lambda element_shape, num_elements: made), len(made) * 8


def from_tensor_kernel(op_class, operands: list, constants: dict):
    """TensorListFromTensor with a constant element shape: the rows of the tensor, as views."""
    if 1 not in constants:
        return None
    shape, dtype = shape_from_array(op_class.name, constants[1]), dtypes.as_dtype(operands[0][1])

    def from_tensor(tensor, element_shape):
        return TensorList(tuple(tensor), shape, dtype)

    return from_tensor, 0


def stack_kernel(op_class, operands: list, constants: dict, attrs: dict):
    """TensorListStack with a constant element shape: ``np.stack`` of the elements when every one is set with
    that shape and the list's dtype (the compute's zeros, each row assigned, hold the same values)."""
    if 1 not in constants:
        return None
    shape = merge(op_class.name, shape_from_array(op_class.name, constants[1]), operands[0].element_shape)
    if not fully_defined(shape):
        return None
    dtype, count, compute, stack = operands[0].element_dtype.np, attrs["num_elements"], op_class.compute, np.stack

    def stack_items(input_handle, element_shape):
        items = input_handle.items
        if not items or (count != -1 and len(items) != count) or not all(
                item is not None and item.shape == shape and item.dtype == dtype for item in items):
            return compute(np, input_handle, element_shape, **attrs)
        return stack(items)

    return stack_items, 0
