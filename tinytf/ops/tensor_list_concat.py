"""TensorList ops that join and cut along the elements' first dim: ConcatV2 (and TF1's Concat), Split.

    %t, %n = "tf.TensorListConcatV2"(%l, %shape, %dims) : (tensor<!tf_type.variant<tensor<?x3xf32>>>,
             tensor<2xi32>, tensor<0xi64>) -> (tensor<?x3xf32>, tensor<?xi64>)

Elements may differ in their first dim; Split is Concat's inverse (and its gradient). Under XLA the
list is one buffer, so Split needs equal lengths known at compile time and Concat joins the whole
buffer, as TensorFlow's XLA bridge does.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.attributes import attr, derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import check_index, index_operand
from tinytf.ops.tensor_list import TensorListElementShape
from tinytf.ops.tensor_list_buffer import ListBuffer, initialized, xla_list
from tinytf.ops.tensor_list_creation import (
    ListOp,
    build_element_shape,
    element_shape_of,
    operand_dtype,
    result_dtype,
    rows_fit,
    rows_shape,
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


def _concat(op_name: str, lst: TensorList, element_shape, leading_dims, dtype):
    """TensorFlow's TensorListConcat kernel: (the elements joined on dim 0, each one's length)."""
    check_dtype(op_name, dtype, lst.element_dtype)
    if element_shape is not None and len(element_shape) == 0:
        raise InvalidArgumentError(f"{op_name}: Concat requires elements to be at least vectors, found scalars "
                                   "instead.", op_name)
    first = None if element_shape is None else element_shape[0]
    rest = None if element_shape is None else tuple(element_shape[1:])
    if not len(lst) and not fully_defined(rest):
        raise InvalidArgumentError(f"{op_name}: All except the first dimension must be fully defined when concating "
                                   f"an empty tensor list. element_shape: {fmt_shape(rest)}", op_name)
    if not fully_defined(lst.element_shape):
        inferred, check = first, first is None
        for i, item in enumerate(lst.items):
            if item is None:
                continue
            if item.ndim == 0:
                raise InvalidArgumentError(f"{op_name}: Concat saw a scalar shape at index {i} but requires at least "
                                           "vectors.", op_name)
            rest = merge(op_name, rest, item.shape[1:])
            if first is not None and first != item.shape[0]:
                raise InvalidArgumentError(f"{op_name}: First entry of element_shape input does not match the first "
                                           f"dim of list element at index: {i} Expected: {first} Actual: "
                                           f"{item.shape[0]}", op_name)
            if check:
                if inferred is None:
                    inferred = item.shape[0]
                elif inferred != item.shape[0]:
                    inferred, check = None, False
        first = inferred
    if not fully_defined(rest):
        raise InvalidArgumentError(f"{op_name}: Trying to concat list with only uninitialized tensors but "
                                   f"element_shape_except_first_dim is not fully defined: {fmt_shape(rest)}", op_name)
    lengths = []
    for i, item in enumerate(lst.items):
        if item is not None:
            lengths.append(item.shape[0])
        elif (leading_dims is None or i >= leading_dims.size) and first is not None:
            lengths.append(first)
        elif leading_dims is None:
            raise InvalidArgumentError(f"{op_name}: Concating lists with uninitialized tensors is not supported in "
                                       "this version of TensorListConcat. Consider updating your GraphDef to run the "
                                       "newer version.", op_name)
        elif i >= leading_dims.size:
            raise InvalidArgumentError(f"{op_name}: List contains uninitialized tensor at index {i} but leading_dims "
                                       f"has only {leading_dims.size} elements.", op_name)
        else:
            lengths.append(int(leading_dims.reshape(-1)[i]))
    np_dtype = dtypes.as_dtype(dtype or lst.element_dtype).np
    check_allocation(op_name, (sum(lengths), *rest), np_dtype)
    parts = [item if item is not None else np.zeros((n, *rest), np_dtype) for item, n in zip(lst.items, lengths)]
    tensor = np.concatenate(parts, axis=0).astype(np_dtype, copy=False) if parts else np.zeros((0, *rest), np_dtype)
    return tensor, np.asarray(lengths, np.int64)


def _concat_spec(op_name, input_handle, element_shape, dtype):
    shape, list_dtype = list_operand(op_name, input_handle)
    check_dtype(op_name, dtype, list_dtype)
    shape = merge(op_name, element_shape, shape)
    rest = None if shape is None or not shape else (None, *shape[1:])
    return [TensorSpec(rest, dtype or list_dtype), TensorSpec((None,), dtypes.int64)]


def _concat_buffer(op_name: str, value):
    lst = initialized(op_name, xla_list(op_name, value))
    buffer = lst.buffer
    if buffer.ndim < 2:
        raise InvalidArgumentError(f"{op_name}: Concat requires elements to be at least vectors, found scalars "
                                   "instead.", op_name)
    lengths = np.full((lst.capacity,), buffer.shape[1], np.int64)
    return buffer.reshape((lst.capacity * buffer.shape[1], *buffer.shape[2:])), lengths


@register
class TensorListConcatV2(ListOp):
    """(the elements joined along dim 0, their lengths); unset elements take ``leading_dims``' lengths."""

    name = "tf.TensorListConcatV2"
    input_handle = operand_def()
    element_shape = operand_def()
    leading_dims = operand_def()
    tensor = result_def()
    lengths = result_def()
    element_dtype = derived("type", result_dtype(0), default=None)

    @classmethod
    def infer(cls, input_handle, element_shape, leading_dims, *, element_dtype):
        check_index(cls.name, leading_dims, "leading_dims", rank=1)
        return _concat_spec(cls.name, input_handle, shape_from_spec(cls.name, element_shape), element_dtype)

    @classmethod
    def compute(cls, xp, input_handle, element_shape, leading_dims, *, element_dtype):
        lst = the_list(cls.name, input_handle)
        shape = merge(cls.name, shape_from_array(cls.name, element_shape), lst.element_shape)
        return _concat(cls.name, lst, shape, np.asarray(leading_dims), element_dtype)

    @classmethod
    def lower(cls, input_handle, element_shape, leading_dims, **_):
        return _concat_buffer(cls.name, input_handle)

    @staticmethod
    def grad(op, dtensor, dlengths):  # Given upstream grad U and (t, n) = concat(l): dl = split(U, n)
        return [_split_grad(op, dtensor), None, None]


@register
class TensorListConcat(ListOp):
    """TF1's ConcatV2: the element shape is an attribute, and no element may be unset."""

    name = "tf.TensorListConcat"
    input_handle = operand_def()
    tensor = result_def()
    lengths = result_def()
    element_dtype = attr(kind="type")
    element_shape = attr(None, kind="shape")

    @classmethod
    def infer(cls, input_handle, *, element_dtype, element_shape):
        return _concat_spec(cls.name, input_handle, element_shape, element_dtype)

    @classmethod
    def compute(cls, xp, input_handle, *, element_dtype, element_shape):
        if element_shape is not None and not element_shape:
            raise InvalidArgumentError(f"{cls.name}: element_shape must not be empty", cls.name)
        rest = None if element_shape is None else (None, *element_shape[1:])
        return _concat(cls.name, the_list(cls.name, input_handle), rest, None, element_dtype)

    @classmethod
    def lower(cls, input_handle, **_):
        return _concat_buffer(cls.name, input_handle)

    @staticmethod
    def grad(op, dtensor, dlengths):
        return [_split_grad(op, dtensor)]


def _split_grad(op, dtensor):
    shape = TensorListElementShape.bind(op.inputs[0], shape_type=dtypes.int32)
    return TensorListSplit.bind(dtensor, shape, op.outputs[1])


@register
class TensorListSplit(ListOp):
    """``tensor`` cut along dim 0 into a list of pieces of ``lengths`` rows."""

    name = "tf.TensorListSplit"
    tensor = operand_def()
    element_shape = operand_def()
    lengths = operand_def()
    output_handle = result_def()
    element_dtype = derived("type", operand_dtype(0), default=None)

    @classmethod
    def infer(cls, tensor, element_shape, lengths, **_):
        check_index(cls.name, lengths, "lengths", rank=1)
        shape = shape_from_spec(cls.name, element_shape)
        return ListSpec(_split_shape(cls.name, shape, tensor.shape), tensor.dtype)

    @classmethod
    def compute(cls, xp, tensor, element_shape, lengths, **_):
        shape = shape_from_array(cls.name, element_shape)
        _split_shape(cls.name, shape, tensor.shape)
        lengths = np.asarray(lengths)
        if lengths.ndim != 1:
            raise InvalidArgumentError(f"{cls.name}: Expected lengths to be a vector, received shape: "
                                       f"{fmt_shape(lengths.shape)}", cls.name)
        items, start = [], 0
        for n in (int(v) for v in lengths):
            if n < 0:
                raise InvalidArgumentError(f"{cls.name}: Invalid value in lengths: {n}", cls.name)
            if start + n > tensor.shape[0]:
                raise InvalidArgumentError(f"{cls.name}: Attempting to slice [{start}, {start + n}] from tensor with "
                                           f"length {tensor.shape[0]}", cls.name)
            items.append(tensor[start:start + n])
            start += n
        if start != tensor.shape[0]:
            raise InvalidArgumentError(f"{cls.name}: Unused values in tensor. Length of tensor: {tensor.shape[0]} "
                                       f"Values used: {start}", cls.name)
        return TensorList(tuple(items), shape, dtypes.as_dtype(tensor.dtype))

    @classmethod
    def lower(cls, tensor, element_shape, lengths, **_):
        lengths = [int(v) for v in np.asarray(lengths).reshape(-1)]  # (run-time lengths: XLA's NeedsConstant)
        if len(set(lengths)) > 1 or sum(lengths) != tensor.shape[0]:
            raise UnimplementedError(f"{cls.name}: under XLA the lengths must be equal and add up to the tensor's "
                                     f"{tensor.shape[0]} rows, got {lengths}", cls.name)
        n, rows = len(lengths), (lengths[0] if lengths else 0)
        buffer = tensor.reshape((n, rows, *tensor.shape[1:]))
        return ListBuffer(buffer, np.int32(n), n, tuple(buffer.shape[1:]), dtypes.as_dtype(tensor.dtype))

    @staticmethod
    def grad(op, dlist):  # Given upstream grad U and l = split(t, n): dt = concat(U) with n's lengths
        from tinytf.ops.op_functions import ops

        tensor, _, lengths = op.inputs
        rows = element_shape_of(tensor)
        shape = np.concatenate([[-1], rows]).astype(np.int32) if isinstance(rows, np.ndarray) else \
            ops.concat([np.asarray([-1], np.int32), rows], 0)
        return [TensorListConcatV2.bind(dlist, shape, lengths, element_dtype=tensor.dtype)[0], None, None]


def _split_shape(op_name: str, shape, tensor_shape):
    if shape is not None and len(shape) == 0:
        raise InvalidArgumentError(f"{op_name}: TensorListSplit requires element_shape to be at least of rank 1, but "
                                   "saw: []", op_name)
    rows = rows_shape(op_name, tensor_shape)
    rest = None if shape is None else tuple(shape[1:])
    try:
        rest = rows_fit(op_name, rest, rows)
    except InvalidArgumentError:
        raise InvalidArgumentError(f"{op_name}: tensor shape {fmt_shape(tensor_shape)} is not compatible with "
                                   f"element_shape {fmt_shape(shape)}", op_name) from None
    return None if rest is None else (None if shape is None else shape[0], *rest)



# --- functions, as tensorflow/python/ops/list_ops.py ---------------------------------------------

def tensor_list_concat(input_handle, element_dtype, element_shape=None, name=None):
    return TensorListConcatV2.bind(input_handle, build_element_shape(element_shape), np.zeros((0,), np.int64),
                                   element_dtype=dtypes.as_dtype(element_dtype))[0]


def tensor_list_split(tensor, element_shape, lengths, name=None):
    return TensorListSplit.bind(tensor, build_element_shape(element_shape), index_operand(lengths, dtypes.int64))
