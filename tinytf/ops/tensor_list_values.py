"""What a TensorList is at run time, and the partial shapes its ops reason with.

    %l = "tf.TensorListReserve"(%shape, %n) : (tensor<2xi32>, tensor<i32>) -> tensor<!tf_type.variant<tensor<2x4xf32>>>

A TensorList is a scalar ``!tf_type.variant`` tensor. Eagerly and in graph mode its value is a
``TensorList``: an immutable tuple of elements (arrays, or None for an element never set), the
element shape (a partial shape: a tuple with None dims, or None for an unknown rank) and dtype. Ops
never write into a list: SetItem returns a new TensorList that shares the other elements.

Under XLA a list is a ``ListBuffer`` (tensor_list_buffer.py). A traced list's spec is a ``ListSpec``,
whose type names the element type: ``tensor<!tf_type.variant<tensor<2x4xf32>>>``.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import const_value

__all__: list[str] = []  # no public op functions


class TensorList:
    """A list of tensors (eager and graph mode); ``shape`` and ``dtype`` are those of its scalar variant."""

    __slots__ = ("items", "element_shape", "element_dtype", "max_num_elements")
    shape = ()
    dtype = dtypes.variant

    def __init__(self, items: tuple, element_shape, element_dtype, max_num_elements: int = -1):
        self.items = tuple(items)
        self.element_shape = element_shape
        self.element_dtype = element_dtype
        self.max_num_elements = max_num_elements

    def with_items(self, items) -> TensorList:
        return TensorList(items, self.element_shape, self.element_dtype, self.max_num_elements)

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        dtype = self.element_dtype.name if self.element_dtype else "?"
        return f"TensorList({len(self.items)} x {fmt_shape(self.element_shape)} {dtype})"


class ListSpec(TensorSpec):
    """The spec of a traced TensorList: a scalar variant whose type names its element type."""

    __slots__ = ("element_shape", "element_dtype")

    def __init__(self, element_shape, element_dtype):
        super().__init__((), dtypes.variant)
        self.element_shape = element_shape
        self.element_dtype = element_dtype

    def to_type(self):
        if self.element_dtype is None:
            return tf_types.tensor_type((), dtypes.variant)
        element = tf_types.tensor_type(self.element_shape, self.element_dtype)
        return tf_types.tensor_type((), tf_types.VariantType([element]))

    def __repr__(self) -> str:
        dtype = self.element_dtype.name if self.element_dtype else "?"
        return f"ListSpec(element_shape={fmt_shape(self.element_shape)}, element_dtype={dtype})"


def variant_element(type_):
    """The element type a ``tensor<!tf_type.variant<tensor<...>>>`` names, or None."""
    element = tf_types.element_type_of(type_)
    if isinstance(element, tf_types.VariantType) and element.subtypes.data:
        return element.subtypes.data[0]
    return None


def element_dtype_of(type_):
    """The element dtype of a list type (None when the type does not say)."""
    sub = variant_element(type_)
    return None if sub is None else tf_types.dtype_of(sub)


def list_operand(op_name: str, spec: TensorSpec, what: str = "input_handle"):
    """(element shape, element dtype) of a list operand as far as its spec knows: a ListSpec, or a
    run-time list's; (None, None) otherwise. InvalidArgumentError for an operand that is no list."""
    if spec.dtype is not dtypes.variant:
        raise InvalidArgumentError(f"{op_name}: {what} must be a TensorList (a variant), got a "
                                   f"{spec.dtype.name} tensor", op_name)
    if spec.shape is not None and tuple(spec.shape) != ():
        raise InvalidArgumentError(f"{op_name}: Input list must be a scalar saw: {fmt_shape(spec.shape)}", op_name)
    if isinstance(spec, ListSpec):
        return spec.element_shape, spec.element_dtype
    value = spec.value
    if hasattr(value, "element_shape") and value.dtype is dtypes.variant:  # a TensorList, or XLA's ListBuffer
        return value.element_shape, value.element_dtype
    return None, None


def the_list(op_name: str, value, kind=TensorList):
    """A run-time list operand; InvalidArgumentError for any other variant (or tensor)."""
    if not isinstance(value, kind):
        raise InvalidArgumentError(f"{op_name}: Input handle is not a list. Saw: '{type(value).__name__}'", op_name)
    return value


def check_dtype(op_name: str, want, got) -> None:
    if want is not None and got is not None and dtypes.as_dtype(want) is not dtypes.as_dtype(got):
        raise InvalidArgumentError(f"{op_name}: Invalid data types; op elements {dtypes.as_dtype(want).name} but "
                                   f"list elements {dtypes.as_dtype(got).name}", op_name)


# --- partial shapes -----------------------------------------------------------------------------

def shape_from_array(op_name: str, value, what: str = "element_shape"):
    """TensorFlow's TensorShapeFromTensor: a scalar -1 is an unknown rank, a vector's -1 dims unknown."""
    value = np.asarray(value)
    if value.dtype not in (np.int32, np.int64):
        raise InvalidArgumentError(f"{op_name}: Expected an int32 or int64 shape tensor; found "
                                   f"{dtypes.as_dtype(value.dtype).name}", op_name)
    if value.ndim == 0:
        if int(value) == -1:
            return None
        raise InvalidArgumentError(f"{op_name}: The only valid scalar shape tensor is the fully unknown shape "
                                   f"specified as -1 ({what})", op_name)
    if value.ndim != 1:
        raise InvalidArgumentError(f"{op_name}: Shape must be at most rank 1 but is rank {value.ndim} ({what})",
                                   op_name)
    dims = [int(d) for d in value]
    if any(d < -1 for d in dims):
        raise InvalidArgumentError(f"{op_name}: {what} {dims} has a dimension below -1", op_name)
    return tuple(None if d == -1 else d for d in dims)


def shape_from_spec(op_name: str, spec: TensorSpec, what: str = "element_shape"):
    """The partial shape a shape operand gives when traced: its value if known, else as much as its
    own shape says (a vector of n dims: n unknown dims; otherwise an unknown rank)."""
    if spec.dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"{op_name}: {what} must be int32 or int64, got {spec.dtype.name}", op_name)
    value = const_value(spec)
    if value is not None:
        return shape_from_array(op_name, value, what)
    if spec.shape is not None and len(spec.shape) > 1:
        raise InvalidArgumentError(f"{op_name}: Shape must be at most rank 1 but is rank {len(spec.shape)} ({what})",
                                   op_name)
    if spec.shape is not None and len(spec.shape) == 1 and spec.shape[0] is not None:
        return (None,) * spec.shape[0]
    return None


def merge(op_name: str, a, b, what: str = "element shapes"):
    """The most specific shape both partial shapes describe; InvalidArgumentError when they disagree."""
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b) or any(x is not None and y is not None and x != y for x, y in zip(a, b)):
        raise InvalidArgumentError(f"{op_name}: Incompatible {what}: {fmt_shape(a)} vs. {fmt_shape(b)}", op_name)
    return tuple(x if x is not None else y for x, y in zip(a, b))


def compatible(a, b) -> bool:
    return a is None or b is None or (len(a) == len(b) and all(
        x is None or y is None or x == y for x, y in zip(a, b)))


def fully_defined(shape) -> bool:
    return shape is not None and all(d is not None for d in shape)


def shape_array(shape, dtype) -> np.ndarray:
    """A partial shape as TensorFlow's shape tensor: -1 for an unknown rank or dim."""
    np_dtype = dtypes.as_dtype(dtype).np
    if shape is None:
        return np.asarray(-1, np_dtype)
    return np.asarray([-1 if d is None else d for d in shape], np_dtype)
