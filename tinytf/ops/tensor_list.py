"""TensorList ops on the list as a whole: Reserve, EmptyTensorList, FromTensor, Stack, Length,
ElementShape, Resize (elements: tensor_list_items.py; Concat and Split: tensor_list_concat.py; Gather
and Scatter: tensor_list_scatter.py; the run-time values: tensor_list_values.py, tensor_list_buffer.py).

    %l = "tf.TensorListReserve"(%shape, %n) : (tensor<2xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<2x4xf32>>>
    %y = "tf.TensorListStack"(%l, %shape) <{num_elements = 5 : i64}> : (...) -> tensor<5x2x4xf32>

Keras RNNs export as a ``tf.While`` carrying lists like these. Each op checks what TensorFlow's
kernel checks, at run time (an element never set reads as zeros when its shape is known). Under
XLA a list is a fixed-size buffer (``ListBuffer``): creating one needs its size at compile time,
as TensorFlow's XLA bridge does; ``compute`` is the numpy semantics and ``lower`` the buffer's.
Gradients are TensorFlow's (tensorflow/python/ops/list_ops.py): Stack's is FromTensor, FromTensor's
is Stack, and so on.
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
from tinytf.ops.tensor_list_buffer import ListBuffer, initialized, jnp_module, new_buffer, xla_list
from tinytf.ops.tensor_list_static import from_tensor_kernel, reserve_kernel, stack_kernel
from tinytf.ops.tensor_list_values import (
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


def operand_dtype(i):
    return lambda op: tf_types.dtype_of(op.operands[i].type)


def result_dtype(i):
    return lambda op: tf_types.dtype_of(op.results[i].type)


class ListOp(Op):
    """A TensorList op: a list is no constant (under XLA ``lower`` builds its buffer, never numpy)."""

    traits = traits_def(Pure(), NoConstantFold())


def scalar_int(value) -> int:
    return int(np.asarray(value).reshape(-1)[0]) if np.size(value) == 1 else int(value)  # (a tracer: XLA's NeedsConstant)


def _zeros(op_name: str, shape, dtype, what: str):
    if not fully_defined(shape):
        raise InvalidArgumentError(f"{op_name}: Trying to read an uninitialized tensor but element_shape is not "
                                   f"fully defined: {fmt_shape(shape)} and no list element is set ({what})", op_name)
    check_allocation(op_name, shape, dtype)
    return np.zeros(shape, dtypes.as_dtype(dtype).np)


def known_shape(op_name: str, lst: TensorList, shape):
    """``shape`` merged with the shapes of the elements set, when the list's own is partial."""
    if not fully_defined(lst.element_shape):
        for item in lst.items:
            if item is not None:
                shape = merge(op_name, shape, item.shape)
    return shape


def item_or_zeros(op_name: str, lst: TensorList, i: int, element_shape, dtype):
    item = lst.items[i]
    if item is not None:
        return item
    shape = known_shape(op_name, lst, merge(op_name, shape_from_array(op_name, element_shape), lst.element_shape))
    return _zeros(op_name, shape, dtype or lst.element_dtype, f"element {i}")



# --- creating lists -----------------------------------------------------------------------------

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
        return xla_list(cls.name, input_handle).size


@register
class TensorListElementShape(ListOp):
    """The list's element shape as a tensor (-1 for an unknown dim; a scalar -1 for an unknown rank)."""

    name = "tf.TensorListElementShape"
    input_handle = operand_def()
    element_shape = result_def()
    shape_type = derived("type", result_dtype(0), default=dtypes.int32)
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
        return shape_array(xla_list(cls.name, input_handle).element_shape, shape_type)


@register
class TensorListStack(ListOp):
    """The elements stacked into one tensor (unset ones as zeros); ``num_elements`` if not -1 must match."""

    name = "tf.TensorListStack"
    input_handle = operand_def()
    element_shape = operand_def()
    tensor = result_def()
    num_elements = attr(-1)
    element_dtype = derived("type", result_dtype(0), default=None)

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
        shape = known_shape(cls.name, lst, shape)
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
    def kernel_for(cls, operands, constants, **attrs):  # (static plans: tensor_list_static.py)
        return stack_kernel(cls, operands, constants, attrs)

    @classmethod
    def lower(cls, input_handle, element_shape, *, num_elements, element_dtype):
        lst = initialized(cls.name, xla_list(cls.name, input_handle), shape_operand=element_shape)
        size = lst.size
        known = isinstance(size, np.ndarray | np.generic)
        if num_elements != -1 and known and int(size) != num_elements:
            raise InvalidArgumentError(f"{cls.name}: Operation expected a list with {num_elements} elements but "
                                       f"got a list with {int(size)} elements.", cls.name)
        # a size known at compile time cuts the buffer; else the whole buffer, as TensorFlow's XLA bridge
        return lst.buffer[:int(size)] if known and int(size) < lst.capacity else lst.buffer

    @staticmethod
    def grad(op, dtensor):  # Given upstream grad U and y = stack(l): dl = from_tensor(U)
        return [TensorListFromTensor.bind(dtensor, element_shape_of(dtensor)), None]


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
        n = scalar_int(size)
        if n < 0:
            raise InvalidArgumentError(f"{cls.name}: TensorListSlice expects size to be non-negative. Got: {n}",
                                       cls.name)
        check_allocation(cls.name, (n,), dtypes.int64)
        return lst.with_items(lst.items[:n] + (None,) * (n - len(lst)))

    @classmethod
    def lower(cls, input_handle, size):
        lst = xla_list(cls.name, input_handle)
        n = scalar_int(size)  # (a size known only at run time: XLA's NeedsConstant)
        if n < 0:
            raise InvalidArgumentError(f"{cls.name}: size must be non-negative, got {n}", cls.name)
        if lst.buffer is None:
            return ListBuffer(None, np.int32(n), n, lst.element_shape, lst.element_dtype)
        jnp = jnp_module()
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


def tensor_list_length(input_handle, name=None):
    return TensorListLength.bind(input_handle)


def tensor_list_element_shape(input_handle, shape_type, name=None):
    return TensorListElementShape.bind(input_handle, shape_type=dtypes.as_dtype(shape_type))


def tensor_list_stack(input_handle, element_dtype, num_elements=-1, element_shape=None, name=None):
    return TensorListStack.bind(input_handle, build_element_shape(element_shape), element_dtype=dtypes.as_dtype(
        element_dtype), num_elements=num_elements)


def tensor_list_resize(input_handle, size, name=None):
    return TensorListResize.bind(input_handle, index_operand(size, dtypes.int32))
