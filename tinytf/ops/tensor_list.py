"""TensorList ops on the list as a whole: Length, ElementShape, Stack, Resize (the ops that make a
list, Reserve, EmptyTensorList, FromTensor, and the base ``ListOp``: tensor_list_creation.py;
elements: tensor_list_items.py; Concat and Split: tensor_list_concat.py; Gather and Scatter:
tensor_list_scatter.py; the run-time values: tensor_list_values.py, tensor_list_buffer.py).

    %l = "tf.TensorListReserve"(%shape, %n) : (tensor<2xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<2x4xf32>>>
    %y = "tf.TensorListStack"(%l, %shape) <{num_elements = 5 : i64}> : (...) -> tensor<5x2x4xf32>

Keras RNNs export as a ``tf.While`` carrying lists like these. Each op checks what TensorFlow's
kernel checks, at run time (an element never set reads as zeros when its shape is known). Under
XLA a list is a fixed-size buffer (``ListBuffer``); ``compute`` is the numpy semantics and ``lower``
the buffer's. Gradients are TensorFlow's (tensorflow/python/ops/list_ops.py): Stack's is FromTensor,
FromTensor's is Stack, and so on.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr, derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NoConstantFold, NotDifferentiable, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import check_index, index_operand
from tinytf.ops.tensor_list_buffer import ListBuffer, initialized, jnp_module, xla_list
from tinytf.ops.tensor_list_creation import (
    ListOp,
    TensorListFromTensor,
    build_element_shape,
    element_shape_of,
    result_dtype,
    scalar_int,
)
from tinytf.ops.tensor_list_creation import (
    empty_tensor_list as empty_tensor_list,  # (re-exported: tinytf/runtime/while_loop.py imports it from here)
)
from tinytf.ops.tensor_list_static import stack_kernel
from tinytf.ops.tensor_list_values import (
    ListSpec,
    TensorList,
    check_dtype,
    fully_defined,
    list_operand,
    merge,
    shape_array,
    shape_from_array,
    shape_from_spec,
    the_list,
)

__all__: list[str] = []  # as in TensorFlow, the list ops are tt.raw_ops only (and the functions below)


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

def tensor_list_length(input_handle, name=None):
    return TensorListLength.bind(input_handle)


def tensor_list_element_shape(input_handle, shape_type, name=None):
    return TensorListElementShape.bind(input_handle, shape_type=dtypes.as_dtype(shape_type))


def tensor_list_stack(input_handle, element_dtype, num_elements=-1, element_shape=None, name=None):
    return TensorListStack.bind(input_handle, build_element_shape(element_shape), element_dtype=dtypes.as_dtype(
        element_dtype), num_elements=num_elements)


def tensor_list_resize(input_handle, size, name=None):
    return TensorListResize.bind(input_handle, index_operand(size, dtypes.int32))
