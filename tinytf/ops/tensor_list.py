"""TensorList ops, one element at a time: Reserve, EmptyTensorList, FromTensor, GetItem, SetItem,
PushBack, PopBack, Length, ElementShape, Stack, Resize (Concat, Split, Gather, Scatter are in
tensor_list_bulk.py; the values in tensor_list_values.py).

    %l = "tf.TensorListReserve"(%shape, %n) : (tensor<2xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<2x4xf32>>>
    %m = "tf.TensorListSetItem"(%l, %i, %x) : (tensor<!tf_type.variant<tensor<2x4xf32>>>, tensor<i32>,
                                               tensor<2x4xf32>) -> tensor<!tf_type.variant<tensor<2x4xf32>>>
    %y = "tf.TensorListStack"(%m, %shape) <{num_elements = 5 : i64}> : (...) -> tensor<5x2x4xf32>

Keras RNNs export as a ``tf.While`` carrying lists like these. Each op checks what TensorFlow's
kernel checks, at run time (an element never set reads as zeros when its shape is known). Under
XLA a list is a fixed-size buffer (``ListBuffer``): creating one needs its size at compile time,
as TensorFlow's XLA bridge does; ``compute`` is the numpy semantics and ``lower`` the buffer's.
Gradients are TensorFlow's (tensorflow/python/ops/list_ops.py): Stack's is FromTensor, GetItem's
a SetItem into a list of zeros, and so on.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import check_index, index_operand
from tinytf.ops.tensor_list_values import (
    ListBuffer,
    ListSpec,
    TensorList,
    check_dtype,
    compatible,
    element_dtype_of,
    fully_defined,
    list_operand,
    merge,
    shape_array,
    shape_from_array,
    shape_from_spec,
    the_list,
)

__all__: list[str] = []  # as in TensorFlow, the list ops are tt.raw_ops only (and the functions below)


def _result_list_dtype(op):
    return element_dtype_of(op.results[0].type)


def _operand_dtype(i):
    return lambda op: tf_types.dtype_of(op.operands[i].type)


def _result_dtype(i):
    return lambda op: tf_types.dtype_of(op.results[i].type)


class ListOp(Op):
    """A TensorList op: a list is no constant (under XLA ``lower`` builds its buffer, never numpy)."""

    traits = traits_def(Pure(), NoConstantFold())


def _int(value) -> int:
    return int(np.asarray(value).reshape(-1)[0]) if np.size(value) == 1 else int(value)  # (a tracer: XLA's NeedsConstant)


def _zeros(op_name: str, shape, dtype, what: str):
    if not fully_defined(shape):
        raise InvalidArgumentError(f"{op_name}: Trying to read an uninitialized tensor but element_shape is not "
                                   f"fully defined: {fmt_shape(shape)} and no list element is set ({what})", op_name)
    check_allocation(op_name, shape, dtype)
    return np.zeros(shape, dtypes.as_dtype(dtype).np)


def _known_shape(op_name: str, lst: TensorList, shape):
    """``shape`` merged with the shapes of the elements set, when the list's own is partial."""
    if not fully_defined(lst.element_shape):
        for item in lst.items:
            if item is not None:
                shape = merge(op_name, shape, item.shape)
    return shape


def _item_or_zeros(op_name: str, lst: TensorList, i: int, element_shape, dtype):
    item = lst.items[i]
    if item is not None:
        return item
    shape = _known_shape(op_name, lst, merge(op_name, shape_from_array(op_name, element_shape), lst.element_shape))
    return _zeros(op_name, shape, dtype or lst.element_dtype, f"element {i}")


# --- under XLA: the list as one buffer ----------------------------------------------------------

def _jnp():
    import jax.numpy as jnp

    return jnp


def _xla_list(op_name: str, value) -> ListBuffer:
    return the_list(op_name, value, ListBuffer)


def _new_buffer(op_name: str, capacity: int, element_shape, dtype, size) -> ListBuffer:
    """A list of ``capacity`` elements: zeros when the element shape is known, else uninitialized."""
    if capacity < 0:
        raise InvalidArgumentError(f"{op_name}: XLA compilation requires a fixed tensor list size; set the number "
                                   "of elements (a TensorArray in a while loop needs maximum_iterations)", op_name)
    dtype = dtypes.as_dtype(dtype)
    buffer = None
    if fully_defined(element_shape):
        check_allocation(op_name, (capacity, *element_shape), dtype)
        buffer = np.zeros((capacity, *element_shape), dtype.np)
    return ListBuffer(buffer, np.int32(size), capacity, element_shape, dtype)


def initialized(op_name: str, lst: ListBuffer, element_shape=None) -> ListBuffer:
    """``lst`` with a buffer: an uninitialized list takes ``element_shape`` (an item's) or fails."""
    if lst.buffer is not None:
        return lst
    shape = merge(op_name, element_shape, lst.element_shape)
    if not fully_defined(shape):
        raise InvalidArgumentError(f"{op_name}: TensorList is not initialized: its element shape "
                                   f"{fmt_shape(shape)} is not known at compile time", op_name)
    return lst.replace(buffer=np.zeros((lst.capacity, *shape), lst.element_dtype.np))


def _set_row(buffer, index, item):
    from jax import lax

    jnp = _jnp()
    return lax.dynamic_update_index_in_dim(jnp.asarray(buffer), jnp.asarray(item, buffer.dtype), index, 0)


def _row(buffer, index):
    from jax import lax

    return lax.dynamic_index_in_dim(_jnp().asarray(buffer), index, 0, keepdims=False)


def _check_static_index(op_name: str, index, capacity: int) -> None:
    if isinstance(index, np.ndarray | np.generic) and not 0 <= int(index) < capacity:
        raise InvalidArgumentError(f"{op_name}: Trying to access element {int(index)} in a list with {capacity} "
                                   "elements", op_name)


# --- creating lists -----------------------------------------------------------------------------

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
        check_index(cls.name, num_elements, "num_elements", rank=0)
        if element_dtype is None:
            raise InvalidArgumentError(f"{cls.name}: element_dtype is not known", cls.name)
        return ListSpec(shape_from_spec(cls.name, element_shape), dtypes.as_dtype(element_dtype))

    @classmethod
    def compute(cls, xp, element_shape, num_elements, *, element_dtype):
        n = _int(num_elements)
        if n < 0:
            raise InvalidArgumentError(f"{cls.name}: The num_elements to reserve must be a non negative number, "
                                       f"but got {n}", cls.name)
        check_allocation(cls.name, (n,), dtypes.int64)
        return TensorList((None,) * n, shape_from_array(cls.name, element_shape), dtypes.as_dtype(element_dtype))

    @classmethod
    def lower(cls, element_shape, num_elements, *, element_dtype):
        n = _int(num_elements)
        return _new_buffer(cls.name, n, shape_from_array(cls.name, element_shape), element_dtype, n)


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
        return TensorListReserve.infer.__func__(cls, element_shape, max_num_elements, element_dtype=element_dtype)

    @classmethod
    def compute(cls, xp, element_shape, max_num_elements, *, element_dtype):
        return TensorList((), shape_from_array(cls.name, element_shape), dtypes.as_dtype(element_dtype),
                          _int(max_num_elements))

    @classmethod
    def lower(cls, element_shape, max_num_elements, *, element_dtype):
        return _new_buffer(cls.name, _int(max_num_elements), shape_from_array(cls.name, element_shape),
                           element_dtype, 0)


@register
class TensorListFromTensor(ListOp):
    """The rows of ``tensor`` as a list: stacking it gives ``tensor`` back."""

    name = "tf.TensorListFromTensor"
    tensor = operand_def()
    element_shape = operand_def()
    output_handle = result_def()
    element_dtype = derived("type", _operand_dtype(0), default=None)

    @classmethod
    def infer(cls, tensor, element_shape, **_):
        rows = _rows_shape(cls.name, tensor.shape)
        shape = shape_from_spec(cls.name, element_shape)
        return ListSpec(_rows_fit(cls.name, shape, rows), tensor.dtype)

    @classmethod
    def compute(cls, xp, tensor, element_shape, **_):
        shape = shape_from_array(cls.name, element_shape)
        _rows_fit(cls.name, shape, _rows_shape(cls.name, tensor.shape))
        return TensorList(tuple(tensor[i] for i in range(tensor.shape[0])), shape, dtypes.as_dtype(tensor.dtype))

    @classmethod
    def lower(cls, tensor, element_shape, **_):
        return ListBuffer(tensor, np.int32(tensor.shape[0]), int(tensor.shape[0]), tuple(tensor.shape[1:]),
                          dtypes.as_dtype(tensor.dtype))

    @staticmethod
    def grad(op, dlist):  # Given upstream grad U (a list) and l = from_tensor(t): dt = stack(U)
        t = op.inputs[0]
        rows = None if t.shape is None or t.shape[0] is None else t.shape[0]
        return [TensorListStack.bind(dlist, _element_shape_of(t), element_dtype=t.dtype,
                                     num_elements=-1 if rows is None else rows), None]


def _rows_fit(op_name: str, shape, rows):
    """The element shape of a list made of rows of shape ``rows``: ``shape`` and theirs merged."""
    if not compatible(shape, rows):
        raise InvalidArgumentError(f"{op_name}: Specified a list with shape {fmt_shape(shape)} from a tensor "
                                   f"with shape {fmt_shape(rows)}", op_name)
    return merge(op_name, shape, rows)


def _rows_shape(op_name: str, shape):
    if shape is not None and len(shape) == 0:
        raise InvalidArgumentError(f"{op_name}: Tensor must be at least a vector, but saw shape: []", op_name)
    return None if shape is None else tuple(shape[1:])


def _element_shape_of(t):
    """``shape(t)[1:]``: the element shape of the list whose stack is ``t``."""
    from tinytf.ops.op_functions import ops, shape_tensor

    if t.shape is not None and all(d is not None for d in t.shape):
        return np.asarray(tuple(t.shape)[1:], np.int32)
    return ops.slice(shape_tensor(t), [1], [-1])


# --- one element --------------------------------------------------------------------------------

@register
class TensorListGetItem(ListOp):
    """Element ``index`` (zeros of the element shape when it was never set)."""

    name = "tf.TensorListGetItem"
    input_handle = operand_def()
    index = operand_def()
    element_shape = operand_def()
    item = result_def()
    element_dtype = derived("type", _result_dtype(0), default=None)

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
        i = _int(index)
        if not 0 <= i < len(lst):
            raise InvalidArgumentError(f"{cls.name}: Trying to access element {i} in a list with {len(lst)} "
                                       "elements.", cls.name)
        return _item_or_zeros(cls.name, lst, i, element_shape, element_dtype)

    @classmethod
    def lower(cls, input_handle, index, element_shape, *, element_dtype):
        lst = initialized(cls.name, _xla_list(cls.name, input_handle), shape_from_array(cls.name, element_shape))
        _check_static_index(cls.name, index, lst.capacity)
        return _row(lst.buffer, index)

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
    element_dtype = derived("type", _operand_dtype(2), default=None)

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
        i = _int(index)
        items = lst.items
        if i < 0 or (i >= len(items) and not resize_if_index_out_of_bounds):
            raise InvalidArgumentError(f"{cls.name}: Trying to modify element {i} in a list with {len(items)} "
                                       "elements.", cls.name)
        if i >= len(items):
            check_allocation(cls.name, (i + 1,), dtypes.int64)
            items = items + (None,) * (i + 1 - len(items))
        return lst.with_items(items[:i] + (item,) + items[i + 1:])

    @classmethod
    def lower(cls, input_handle, index, item, *, resize_if_index_out_of_bounds, **_):
        lst = initialized(cls.name, _xla_list(cls.name, input_handle), tuple(item.shape))
        if resize_if_index_out_of_bounds:
            i = _int(index)  # the list's size must stay known at compile time
            if i >= lst.capacity:
                jnp = _jnp()
                grown = jnp.concatenate([jnp.asarray(lst.buffer), jnp.zeros((i + 1 - lst.capacity, *lst.buffer.shape[1:]),
                                                                           lst.buffer.dtype)])
                lst = lst.replace(buffer=grown, size=np.int32(i + 1))
        else:
            _check_static_index(cls.name, index, lst.capacity)
        return lst.replace(buffer=_set_row(lst.buffer, index, item))

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
    element_dtype = derived("type", _operand_dtype(1), default=None)

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
        lst = initialized(cls.name, _xla_list(cls.name, input_handle), tuple(tensor.shape))
        if isinstance(lst.size, np.ndarray | np.generic) and int(lst.size) >= lst.capacity:
            raise InvalidArgumentError(f"{cls.name}: Tried to push item into a full list list size: "
                                       f"{int(lst.size)} max_num_elements: {lst.capacity}", cls.name)
        return lst.replace(buffer=_set_row(lst.buffer, lst.size, tensor), size=lst.size + np.int32(1))

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
    element_dtype = derived("type", _result_dtype(1), default=None)

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
        return lst.with_items(lst.items[:-1]), _item_or_zeros(cls.name, lst, len(lst) - 1, element_shape,
                                                               element_dtype)

    @classmethod
    def lower(cls, input_handle, element_shape, *, element_dtype):
        lst = initialized(cls.name, _xla_list(cls.name, input_handle), shape_from_array(cls.name, element_shape))
        if isinstance(lst.size, np.ndarray | np.generic) and int(lst.size) <= 0:
            raise InvalidArgumentError(f"{cls.name}: Trying to pop from an empty list.", cls.name)
        last = lst.size - np.int32(1)
        return lst.replace(size=last), _row(lst.buffer, last)

    @staticmethod
    def grad(op, dlist, delement):  # Given upstream grads (U, V) and (l', x) = pop(l): dl = push(U, V)
        from tinytf.ops.op_functions import ops

        if dlist is None:
            dlist = EmptyTensorList.bind(TensorListElementShape.bind(op.outputs[0], shape_type=dtypes.int32),
                                         np.int32(-1), element_dtype=op.outputs[1].dtype)
        if delement is None:
            delement = ops.zeros_like(op.outputs[1])
        return [TensorListPushBack.bind(dlist, delement), None]


# --- the whole list -----------------------------------------------------------------------------

@register
class TensorListLength(ListOp):
    """The number of elements.  %n = "tf.TensorListLength"(%l) : (tensor<!tf_type.variant>) -> tensor<i32>"""

    name = "tf.TensorListLength"
    input_handle = operand_def()
    length = result_def()
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, input_handle):
        list_operand(cls.name, input_handle)
        return TensorSpec((), dtypes.int32)

    @classmethod
    def compute(cls, xp, input_handle):
        return np.asarray(len(the_list(cls.name, input_handle)), np.int32)

    @classmethod
    def lower(cls, input_handle):
        return _xla_list(cls.name, input_handle).size


@register
class TensorListElementShape(ListOp):
    """The list's element shape as a tensor (-1 for an unknown dim; a scalar -1 for an unknown rank)."""

    name = "tf.TensorListElementShape"
    input_handle = operand_def()
    element_shape = result_def()
    shape_type = derived("type", _result_dtype(0), default=dtypes.int32)
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, input_handle, *, shape_type):
        shape, _ = list_operand(cls.name, input_handle)
        if shape_type not in (dtypes.int32, dtypes.int64):
            raise InvalidArgumentError(f"{cls.name}: shape_type must be int32 or int64, got {shape_type.name}",
                                       cls.name)
        return TensorSpec(None if shape is None else (len(shape),), shape_type)

    @classmethod
    def compute(cls, xp, input_handle, *, shape_type):
        return shape_array(the_list(cls.name, input_handle).element_shape, shape_type)

    @classmethod
    def lower(cls, input_handle, *, shape_type):
        return shape_array(_xla_list(cls.name, input_handle).element_shape, shape_type)


@register
class TensorListStack(ListOp):
    """The elements stacked into one tensor (unset ones as zeros); ``num_elements`` if not -1 must match."""

    name = "tf.TensorListStack"
    input_handle = operand_def()
    element_shape = operand_def()
    tensor = result_def()
    num_elements = attr(-1)
    element_dtype = derived("type", _result_dtype(0), default=None)

    @classmethod
    def infer(cls, input_handle, element_shape, *, num_elements, element_dtype):
        shape, dtype = list_operand(cls.name, input_handle)
        check_dtype(cls.name, element_dtype, dtype)
        shape = merge(cls.name, shape_from_spec(cls.name, element_shape), shape)
        rows = None if num_elements < 0 else num_elements
        return TensorSpec(None if shape is None else (rows, *shape), element_dtype or dtype)

    @classmethod
    def compute(cls, xp, input_handle, element_shape, *, num_elements, element_dtype):
        lst = the_list(cls.name, input_handle)
        check_dtype(cls.name, element_dtype, lst.element_dtype)
        if num_elements != -1 and len(lst) != num_elements:
            raise InvalidArgumentError(f"{cls.name}: Operation expected a list with {num_elements} elements but "
                                       f"got a list with {len(lst)} elements.", cls.name)
        shape = merge(cls.name, shape_from_array(cls.name, element_shape), lst.element_shape)
        if not fully_defined(shape) and not len(lst):
            raise InvalidArgumentError(f"{cls.name}: Tried to stack elements of an empty list with "
                                       f"non-fully-defined element_shape: {fmt_shape(shape)}", cls.name)
        shape = _known_shape(cls.name, lst, shape)
        if not fully_defined(shape):
            raise InvalidArgumentError(f"{cls.name}: Tried to stack list which only contains uninitialized tensors "
                                       f"and has a non-fully-defined element_shape: {fmt_shape(shape)}", cls.name)
        dtype = dtypes.as_dtype(element_dtype or lst.element_dtype).np
        check_allocation(cls.name, (len(lst), *shape), dtype)
        out = np.zeros((len(lst), *shape), dtype)
        for i, item in enumerate(lst.items):
            if item is not None:
                out[i] = item
        return out

    @classmethod
    def lower(cls, input_handle, element_shape, *, num_elements, element_dtype):
        lst = initialized(cls.name, _xla_list(cls.name, input_handle), shape_from_array(cls.name, element_shape))
        size = lst.size
        known = isinstance(size, np.ndarray | np.generic)
        if num_elements != -1 and known and int(size) != num_elements:
            raise InvalidArgumentError(f"{cls.name}: Operation expected a list with {num_elements} elements but "
                                       f"got a list with {int(size)} elements.", cls.name)
        # a size known at compile time cuts the buffer; else the whole buffer, as TensorFlow's XLA bridge
        return lst.buffer[:int(size)] if known and int(size) < lst.capacity else lst.buffer

    @staticmethod
    def grad(op, dtensor):  # Given upstream grad U and y = stack(l): dl = from_tensor(U)
        return [TensorListFromTensor.bind(dtensor, _element_shape_of(dtensor)), None]


@register
class TensorListResize(ListOp):
    """The list cut to ``size`` elements, or grown with unset ones."""

    name = "tf.TensorListResize"
    input_handle = operand_def()
    size = operand_def()
    output_handle = result_def()

    @classmethod
    def infer(cls, input_handle, size):
        shape, dtype = list_operand(cls.name, input_handle)
        check_index(cls.name, size, "size", rank=0)
        return ListSpec(shape, dtype)

    @classmethod
    def compute(cls, xp, input_handle, size):
        lst = the_list(cls.name, input_handle)
        n = _int(size)
        if n < 0:
            raise InvalidArgumentError(f"{cls.name}: TensorListSlice expects size to be non-negative. Got: {n}",
                                       cls.name)
        check_allocation(cls.name, (n,), dtypes.int64)
        return lst.with_items(lst.items[:n] + (None,) * (n - len(lst)))

    @classmethod
    def lower(cls, input_handle, size):
        lst = _xla_list(cls.name, input_handle)
        n = _int(size)  # (a size known only at run time: XLA's NeedsConstant)
        if n < 0:
            raise InvalidArgumentError(f"{cls.name}: size must be non-negative, got {n}", cls.name)
        if lst.buffer is None:
            return ListBuffer(None, np.int32(n), n, lst.element_shape, lst.element_dtype)
        jnp = _jnp()
        buffer = jnp.asarray(lst.buffer)[:n]
        if n > lst.capacity:
            buffer = jnp.concatenate([buffer, jnp.zeros((n - lst.capacity, *buffer.shape[1:]), buffer.dtype)])
        return lst.replace(buffer=buffer, size=np.int32(n))

    @staticmethod
    def grad(op, dlist):  # Given upstream grad U and l' = resize(l, n): dl = resize(U, len(l))
        return [TensorListResize.bind(dlist, TensorListLength.bind(op.inputs[0])), None]


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


def tensor_list_length(input_handle, name=None):
    return TensorListLength.bind(input_handle)


def tensor_list_element_shape(input_handle, shape_type, name=None):
    return TensorListElementShape.bind(input_handle, shape_type=dtypes.as_dtype(shape_type))


def tensor_list_stack(input_handle, element_dtype, num_elements=-1, element_shape=None, name=None):
    return TensorListStack.bind(input_handle, build_element_shape(element_shape), element_dtype=dtypes.as_dtype(
        element_dtype), num_elements=num_elements)


def tensor_list_resize(input_handle, size, name=None):
    return TensorListResize.bind(input_handle, index_operand(size, dtypes.int32))

