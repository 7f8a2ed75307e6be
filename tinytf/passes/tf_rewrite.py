"""What TensorFlow-op rewrites need, whether or not tinytf has a class for the op: build an op by
name, read an inherent attribute (property or attribute), read a constant operand, copy the
attributes TensorFlow carries over (``device`` and ``_``-prefixed ones), and ask TensorFlow's traits.

    value = constant_of(op.operands[1])                       # np.ndarray, or None if not constant
    new = build("tf.AddV2", [x, y], [op.results[0].type], attributes=carried(op))
    rewriter.replace(op, [new])

A constant is a ``tf.Const`` or an ``arith.constant`` (MLIR's ``m_Constant`` matches both).
"""
from __future__ import annotations

import functools

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    UnregisteredOp,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.traits import ConstantLike, Pure

from tinytf.errors import ResourceExhaustedError
from tinytf.framework import op as op_module
from tinytf.framework import tf_types
from tinytf.framework.attributes import dense_to_numpy, numpy_to_dense
from tinytf.passes import tf_op_traits as traits
from tinytf.passes.symbols import op_name


def tf_name(op: Operation) -> str:
    """``"AddV2"`` for a ``tf.AddV2`` op (registered or not); ``""`` for ops of other dialects."""
    name = op_name(op)
    return name[3:] if name.startswith("tf.") else ""


def has_tf_trait(op: Operation, names: frozenset[str]) -> bool:
    return tf_name(op) in names


def is_constant(op: Operation | None) -> bool:
    return op is not None and not isinstance(op, UnregisteredOp) and op.has_trait(ConstantLike)


def constant_attr(value: SSAValue) -> Attribute | None:
    """The ``value`` attribute of the constant op defining ``value``, or None."""
    owner = value.owner
    if not isinstance(owner, Operation) or not is_constant(owner):
        return None
    return attr(owner, "value")  # (not `or`: an empty dense<> is falsy)


def constant_of(value: SSAValue) -> np.ndarray | None:
    """The array a constant operand holds (a splat is a broadcast view), or None."""
    attr_ = constant_attr(value)
    if attr_ is None:
        return None
    try:
        return dense_to_numpy(attr_)
    except (TypeError, ResourceExhaustedError, Exception):  # an opaque or too large constant: not usable here
        return None


def is_splat_of(value: SSAValue, number) -> bool:
    """Whether ``value`` is a constant with every element equal to ``number``."""
    array = constant_of(value)
    if array is None or array.dtype.kind not in "biufc":
        return False
    if array.size == 0:
        return False
    first = array.reshape(-1)[0]
    return bool(first == number) and bool(np.all(array == first))


def attr(op: Operation, key: str, default=None) -> Attribute | None:
    """An inherent attribute, wherever the text put it (``<{...}>`` or the attribute dictionary)."""
    value = op.properties.get(key)
    if value is None:
        value = op.attributes.get(key)
    return default if value is None else value


def int_attr(op: Operation, key: str, default: int = 0) -> int:
    value = attr(op, key)
    return value.value.data if isinstance(value, IntegerAttr) else default


def bool_attr(op: Operation, key: str, default: bool = False) -> bool:
    value = attr(op, key)
    return bool(value.value.data) if isinstance(value, IntegerAttr) else default


def carried(op: Operation) -> dict[str, Attribute]:
    """The attributes TensorFlow copies onto an op's replacement: ``device`` and ``_``-prefixed ones."""
    return dict(sorted((k, v) for k, v in op.attributes.items()  # MLIR keeps attribute dictionaries sorted
                       if (k == "device" or k.startswith("_")) and k != "op_name__" and k not in op.properties))


def inherent(op: Operation) -> dict[str, Attribute]:
    """Every attribute of an op but the carried ones: what becomes the replacement's properties."""
    out = dict(op.properties)
    out.update({k: v for k, v in op.attributes.items()
                if k != "device" and not k.startswith("_") and k != "op_name__"})
    return out


@functools.cache
def _unregistered(name: str) -> type[Operation]:
    return UnregisteredOp.with_name(name)


def build(name: str, operands, result_types, properties: dict | None = None,
          attributes: dict | None = None, regions=()) -> Operation:
    """A ``tf.*`` op by name: tinytf's class when it has one, else an unregistered op, which prints
    the same generic form (properties in ``<{...}>``, sorted as TensorFlow prints them)."""
    cls = op_module.lookup(name) or _unregistered(name)
    props = dict(sorted((properties or {}).items()))
    return cls.create(operands=list(operands), result_types=list(result_types), properties=props,
                      attributes=dict(attributes or {}), regions=[r if isinstance(r, Region) else Region(r)
                                                                  for r in regions])


def const(array: np.ndarray, result_type: Attribute | None = None, dtype=None) -> Operation:
    """A ``tf.Const`` of ``array``; its result type is ``result_type`` when given (TensorFlow keeps an
    op's declared type when it folds: ``dense<[1, 2]> : tensor<2xi32>`` typed ``tensor<?xi32>``)."""
    if dtype is None and result_type is not None:
        dtype = tf_types.dtype_of(result_type)
    array = np.asarray(array)
    if dtype is not None and (dtype.is_numeric or dtype.is_bool):
        array = np.asarray(array, dtype.np)
    if array.size > 1 and array.dtype.kind in "biufc" and _all_equal(array):
        array = np.broadcast_to(array.reshape(-1)[0], array.shape)  # MLIR stores such a value as a splat
    value = numpy_to_dense(array, dtype)
    return build("tf.Const", [], [result_type or value.type], properties={"value": value})


def _all_equal(array: np.ndarray) -> bool:
    """Every element has the first one's bytes (so NaNs and -0.0 compare as MLIR compares them)."""
    if all(s == 0 for s, n in zip(array.strides, array.shape) if n > 1):
        return True  # a broadcast view of one value: never expanded here
    raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8).reshape(array.size, -1)
    return bool((raw == raw[0]).all())


def const_from_attr(value: Attribute, result_type: Attribute | None = None) -> Operation:
    return build("tf.Const", [], [result_type or value.type], properties={"value": value})


def shape(value_or_type) -> tuple | None:
    """A value's (or type's) shape: dims with None for unknown, None for unknown rank."""
    type_ = value_or_type.type if isinstance(value_or_type, SSAValue) else value_or_type
    if not isinstance(type_, TensorType | UnrankedTensorType):
        return None
    return tf_types.shape_of(type_)


def is_static_type(type_: Attribute) -> bool:
    return isinstance(type_, TensorType) and tf_types.is_static(tf_types.shape_of(type_))


def element_type(value_or_type) -> Attribute:
    type_ = value_or_type.type if isinstance(value_or_type, SSAValue) else value_or_type
    return tf_types.element_type_of(type_)


def is_pure(op: Operation) -> bool:
    """No side effects, as TensorFlow declares it (tinytf's class first, then TensorFlow's op table)."""
    if is_constant(op):
        return True
    if not isinstance(op, UnregisteredOp) and op.has_trait(Pure):
        return True
    return tf_name(op) in traits.PURE and not op.regions


def is_trivially_dead(op: Operation) -> bool:
    """Unused, and without effects beyond reading (MLIR's isOpTriviallyDead, with TensorFlow's traits)."""
    if any(r.uses for r in op.results) or not op.results:
        return False
    return is_pure(op) or tf_name(op) in traits.READ_ONLY


def defining(value: SSAValue, name: str | None = None) -> Operation | None:
    """The op that defines ``value`` (when it is a ``tf.<name>`` op, if ``name`` is given)."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return None
    if name is not None and op_name(owner) != name:
        return None
    return owner


def bool_value(flag: bool) -> IntegerAttr:
    return IntegerAttr(int(flag), i1)


def i64_value(number: int) -> IntegerAttr:
    return IntegerAttr(number, i64)


def str_value(text: str) -> StringAttr:
    return StringAttr(text)


def float_of(attribute: Attribute | None, default: float) -> float:
    return attribute.value.data if isinstance(attribute, FloatAttr) else default


def dense_is(value: Attribute) -> bool:
    return isinstance(value, DenseIntOrFPElementsAttr)


def replace_with(rewriter, op: Operation, name: str, operands, result_types=None, properties=None,
                 before=(), carry_from: Operation | None = None) -> Operation:
    """Replace ``op`` by a new ``name`` op (after the ops in ``before``), carrying ``device`` and the
    ``_`` attributes of ``carry_from`` (default: ``op``), as TensorFlow's patterns do."""
    new = build(name, operands, result_types if result_types is not None else [r.type for r in op.results],
                properties, carried(carry_from or op))
    rewriter.replace(op, [*before, new], list(new.results))
    return new


def device_type(op: Operation) -> str | None:
    """``"GPU"`` for ``device = "/job:localhost/replica:0/task:0/device:GPU:0"`` (None if unset)."""
    device = op.attributes.get("device")
    text = device.data if isinstance(device, StringAttr) else ""
    import re

    match = re.search(r"/device:([A-Za-z_]+):", text + ":") or re.search(r"/(cpu|gpu):", text.lower())
    return match.group(1).upper() if match else None
