"""TensorList ops on chosen elements: Gather, ScatterIntoExistingList, ScatterV2 (and TF1's Scatter).

    %g = "tf.TensorListGather"(%l, %idx, %shape) : (tensor<!tf_type.variant>, tensor<2xi32>, tensor<1xi32>)
         -> tensor<2x3xf32>

Scattering past a list's end grows it; under XLA it grows only when the indices are known at compile
time. Gather's gradient scatters into a list of zeros, Scatter's gathers.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import check_index, index_operand
from tinytf.ops.tensor_list import TensorListElementShape, TensorListLength
from tinytf.ops.tensor_list_buffer import ListBuffer, initialized, jnp_module, xla_list
from tinytf.ops.tensor_list_creation import (
    ListOp,
    TensorListReserve,
    build_element_shape,
    element_shape_of,
    operand_dtype,
    result_dtype,
    rows_fit,
    rows_shape,
    scalar_int,
)
from tinytf.ops.tensor_list_values import (
    ListSpec,
    TensorList,
    check_dtype,
    fully_defined,
    list_operand,
    merge,
    shape_from_array,
    shape_from_spec,
    the_list,
)

__all__: list[str] = []  # tt.raw_ops only, as in TensorFlow (and the functions below)


def _indices(op_name: str, indices, size: int | None = None) -> list[int]:
    out = [int(i) for i in np.asarray(indices).reshape(-1)]
    if any(i < 0 for i in out) or (size is not None and any(i >= size for i in out)):
        bad = next(i for i in out if i < 0 or (size is not None and i >= size))
        raise InvalidArgumentError(f"{op_name}: Trying to access element {bad} in a list with {size} elements.",
                                   op_name)
    return out



@register
class TensorListGather(ListOp):
    """The elements at ``indices``, stacked (unset ones as zeros)."""

    name = "tf.TensorListGather"
    input_handle = operand_def()
    indices = operand_def()
    element_shape = operand_def()
    values = result_def()
    element_dtype = derived("type", result_dtype(0), default=None)

    @classmethod
    def infer(cls, input_handle, indices, element_shape, *, element_dtype):
        shape, dtype = list_operand(cls.name, input_handle)
        check_index(cls.name, indices, "indices")
        check_dtype(cls.name, element_dtype, dtype)
        shape = merge(cls.name, shape_from_spec(cls.name, element_shape), shape)
        count = None if indices.shape is None or None in indices.shape else int(np.prod(indices.shape))
        return TensorSpec(None if shape is None else (count, *shape), element_dtype or dtype)

    @classmethod
    def compute(cls, xp, input_handle, indices, element_shape, *, element_dtype):
        lst = the_list(cls.name, input_handle)
        check_dtype(cls.name, element_dtype, lst.element_dtype)
        picked = _indices(cls.name, indices, len(lst))
        shape = merge(cls.name, shape_from_array(cls.name, element_shape), lst.element_shape)
        if not fully_defined(shape) and not picked:
            raise InvalidArgumentError(f"{cls.name}: Tried to gather 0-elements from a list with non-fully-defined "
                                       f"shape: {fmt_shape(shape)}", cls.name)
        if not fully_defined(lst.element_shape):
            for i in picked:
                if lst.items[i] is not None:
                    shape = merge(cls.name, shape, lst.items[i].shape)
        if not fully_defined(shape):
            raise InvalidArgumentError(f"{cls.name}: Tried to gather uninitialized tensors from a list with "
                                       f"non-fully-defined element_shape: {fmt_shape(shape)}", cls.name)
        dtype = dtypes.as_dtype(element_dtype or lst.element_dtype).np
        check_allocation(cls.name, (len(picked), *shape), dtype)
        out = np.zeros((len(picked), *shape), dtype)
        for k, i in enumerate(picked):
            if lst.items[i] is not None:
                out[k] = lst.items[i]
        return out

    @classmethod
    def lower(cls, input_handle, indices, element_shape, **_):
        lst = initialized(cls.name, xla_list(cls.name, input_handle), shape_operand=element_shape)
        if isinstance(indices, np.ndarray | np.generic):
            _indices(cls.name, indices, lst.capacity)
        return jnp_module().take(lst.buffer, indices.reshape(-1), axis=0)

    @staticmethod
    def grad(op, dtensor):  # Given upstream grad U and y = gather(l, i): dl = scatter U at i into zeros
        lst, indices, _ = op.inputs
        zeros = TensorListReserve.bind(TensorListElementShape.bind(lst, shape_type=dtypes.int32),
                                       TensorListLength.bind(lst), element_dtype=dtensor.dtype)
        return [TensorListScatterIntoExistingList.bind(zeros, dtensor, indices), None, None]


def _scatter_checks(op_name: str, tensor, indices) -> list[int]:
    if tensor.ndim == 0:
        raise InvalidArgumentError(f"{op_name}: Tensor must be at least a vector, but saw shape: []", op_name)
    indices = np.asarray(indices)
    if indices.ndim != 1:
        raise InvalidArgumentError(f"{op_name}: Expected indices to be a vector, but received shape: "
                                   f"{fmt_shape(indices.shape)}", op_name)
    if indices.size != tensor.shape[0]:
        raise InvalidArgumentError(f"{op_name}: Expected len(indices) == tensor.shape[0], but saw: {indices.size} vs. "
                                   f"{tensor.shape[0]}", op_name)
    out = [int(i) for i in indices]
    if any(i < 0 for i in out):
        raise InvalidArgumentError(f"{op_name}: Indices in TensorListScatter must all be non-negative.", op_name)
    if out:
        check_allocation(op_name, (max(out) + 1,), dtypes.int64)
    return out


def _scattered(items: list, tensor, indices: list[int]) -> tuple:
    for k, i in enumerate(indices):
        items[i] = tensor[k]
    return tuple(items)


def _scatter_buffer(op_name: str, lst: ListBuffer, tensor, indices) -> ListBuffer:
    jnp = jnp_module()
    lst = initialized(op_name, lst, tuple(tensor.shape[1:]))
    buffer, size = jnp.asarray(lst.buffer), lst.size
    if isinstance(indices, np.ndarray | np.generic) and indices.size:
        top = int(np.max(indices)) + 1
        if top > lst.capacity:  # grows, as TensorFlow's list does, when the indices are known
            buffer = jnp.concatenate([buffer, jnp.zeros((top - lst.capacity, *buffer.shape[1:]), buffer.dtype)])
        size = np.maximum(np.asarray(size), np.int32(top)) if isinstance(size, np.ndarray | np.generic) else \
            jnp.maximum(size, np.int32(top))
    elif not isinstance(indices, np.ndarray | np.generic):
        size = jnp.maximum(size, jnp.max(indices).astype(np.int32) + 1)
    return lst.replace(buffer=buffer.at[indices].set(jnp.asarray(tensor, buffer.dtype)), size=size)


@register
class TensorListScatterIntoExistingList(ListOp):
    """The list with row k of ``tensor`` at element ``indices[k]`` (grown to fit the largest index)."""

    name = "tf.TensorListScatterIntoExistingList"
    input_handle = operand_def()
    tensor = operand_def()
    indices = operand_def()
    output_handle = result_def()
    element_dtype = derived("type", operand_dtype(1), default=None)

    @classmethod
    def infer(cls, input_handle, tensor, indices, **_):
        shape, dtype = list_operand(cls.name, input_handle)
        check_index(cls.name, indices, "indices", rank=1)
        rows_shape(cls.name, tensor.shape)
        check_dtype(cls.name, tensor.dtype, dtype)
        return ListSpec(shape, dtype or tensor.dtype)

    @classmethod
    def compute(cls, xp, input_handle, tensor, indices, **_):
        lst = the_list(cls.name, input_handle)
        if lst.element_dtype is not None and dtypes.as_dtype(tensor.dtype) is not lst.element_dtype:
            raise InvalidArgumentError(f"{cls.name}: Invalid data types; input tensor type: "
                                       f"{dtypes.as_dtype(tensor.dtype).name} list element_type: "
                                       f"{lst.element_dtype.name}", cls.name)
        picked = _scatter_checks(cls.name, tensor, indices)
        items = list(lst.items) + [None] * max(0, max(picked, default=-1) + 1 - len(lst))
        return lst.with_items(_scattered(items, tensor, picked))

    @classmethod
    def lower(cls, input_handle, tensor, indices, **_):
        return _scatter_buffer(cls.name, xla_list(cls.name, input_handle), tensor, indices)

    @staticmethod
    def grad(op, dlist):  # Given U and l' = scatter(l, t, i): dt = gather(U, i), dl = U with zeros at i
        from tinytf.ops.op_functions import ops

        _, tensor, indices = op.inputs
        dtensor = TensorListGather.bind(dlist, indices, element_shape_of(tensor), element_dtype=tensor.dtype)
        return [TensorListScatterIntoExistingList.bind(dlist, ops.zeros_like(tensor), indices), dtensor, None]


class _Scatter(ListOp):
    """A new list of ``num_elements`` elements (or as many as the largest index needs), ``tensor``'s
    rows at ``indices``."""

    @classmethod
    def infer(cls, tensor, indices, element_shape, *rest, **_):
        check_index(cls.name, indices, "indices", rank=1)
        if rest:
            check_index(cls.name, rest[0], "num_elements", rank=0)
        shape = shape_from_spec(cls.name, element_shape)
        return ListSpec(rows_fit(cls.name, shape, rows_shape(cls.name, tensor.shape)), tensor.dtype)

    @classmethod
    def compute(cls, xp, tensor, indices, element_shape, num_elements=-1, **_):
        shape = shape_from_array(cls.name, element_shape)
        n = scalar_int(num_elements)
        if n < -1:
            raise InvalidArgumentError(f"{cls.name}: TensorListScatter expects num_elements >= -1, found: {n}", cls.name)
        rows_fit(cls.name, shape, rows_shape(cls.name, tensor.shape))
        if np.size(indices) != tensor.shape[0]:
            raise InvalidArgumentError(f"{cls.name}: Invalid number of rows in input tensor. Expected: "
                                       f"{np.size(indices)} Actual: {tensor.shape[0]}", cls.name)
        picked = _scatter_checks(cls.name, tensor, indices)
        if n != -1 and any(i >= n for i in picked):
            bad = next(i for i in picked if i >= n)
            raise InvalidArgumentError(f"{cls.name}: TensorListScatter: Trying to scatter at index {bad} in list "
                                       f"with size {n}", cls.name)
        items = [None] * max(max(picked, default=-1) + 1, n)
        return TensorList(_scattered(items, tensor, picked), shape, dtypes.as_dtype(tensor.dtype))

    @classmethod
    def lower(cls, tensor, indices, element_shape, num_elements=-1, **_):
        n = scalar_int(num_elements)
        if n == -1:  # as many as the indices need: they must be known at compile time
            n = int(np.max(np.asarray(indices))) + 1 if np.size(indices) else 0
        rows = tuple(tensor.shape[1:])
        empty = ListBuffer(np.zeros((n, *rows), tensor.dtype), np.int32(0), n, rows, dtypes.as_dtype(tensor.dtype))
        return _scatter_buffer(cls.name, empty, tensor, indices).replace(size=np.int32(n))

    @staticmethod
    def grad(op, dlist):  # Given upstream grad U and l = scatter(t, i): dt = gather(U, i)
        tensor, indices = op.inputs[:2]
        dtensor = TensorListGather.bind(dlist, indices, element_shape_of(tensor), element_dtype=tensor.dtype)
        return [dtensor] + [None] * (len(op.inputs) - 1)


@register
class TensorListScatterV2(_Scatter):
    """A list of ``num_elements`` elements (-1: as many as the indices need) with ``tensor``'s rows at ``indices``."""

    name = "tf.TensorListScatterV2"
    tensor = operand_def()
    indices = operand_def()
    element_shape = operand_def()
    num_elements = operand_def()
    output_handle = result_def()
    element_dtype = derived("type", operand_dtype(0), default=None)


@register
class TensorListScatter(_Scatter):
    """TF1's ScatterV2, without ``num_elements``: as many elements as the largest index needs."""

    name = "tf.TensorListScatter"
    tensor = operand_def()
    indices = operand_def()
    element_shape = operand_def()
    output_handle = result_def()
    element_dtype = derived("type", operand_dtype(0), default=None)



# --- functions, as tensorflow/python/ops/list_ops.py ---------------------------------------------

def tensor_list_gather(input_handle, indices, element_dtype, element_shape=None, name=None):
    return TensorListGather.bind(input_handle, index_operand(indices, dtypes.int32), build_element_shape(element_shape),
                                 element_dtype=dtypes.as_dtype(element_dtype))


def tensor_list_scatter(tensor, indices, element_shape=None, input_handle=None, name=None):
    if input_handle is not None:
        return TensorListScatterIntoExistingList.bind(input_handle, tensor, index_operand(indices, dtypes.int32))
    return TensorListScatterV2.bind(tensor, index_operand(indices, dtypes.int32), build_element_shape(element_shape),
                                    np.asarray(-1, np.int32))
