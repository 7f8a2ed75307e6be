"""TensorFlow's folders (``tf_ops_a_m.cc`` / ``tf_ops_n_z.cc`` ``fold`` methods): an op's results from
its operand types and constant operands, without computing on tensors.

    %0 = "tf.Reshape"(%x, %s) : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>   // -> %x
    %1 = "tf.Shape"(%y) : (tensor<1x32xf32>) -> tensor<?xi32>     // -> tf.Const dense<[1, 32]> : tensor<2xi32>

Each folder returns the results (existing values of the same type, or arrays), or None.
"""
from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import TensorType

from tinytf.framework import tf_types
from tinytf.passes import tf_rewrite as tfr
from tinytf.passes.tf_canonicalization import folder

# --- helpers -------------------------------------------------------------------------------------


def statically_broadcastable(*shapes) -> bool:
    """MLIR's ``staticallyKnownBroadcastable``: broadcasting these shapes cannot fail at run time."""
    if any(s is None for s in shapes):
        return False
    for i in range(max((len(s) for s in shapes), default=0)):
        seen_dynamic, non_one = False, None
        for s in shapes:
            dim = s[len(s) - i - 1] if i < len(s) else 1
            if dim == 1:
                continue
            if dim is None:
                if seen_dynamic or non_one is not None:
                    return False
                seen_dynamic = True
            if non_one is not None and dim != non_one:
                return False
            non_one = dim
    return True


def splat_value(value):
    """The one value of a constant whose elements are all equal, or None."""
    array = tfr.constant_of(value)
    if array is None or array.size == 0:
        return None
    first = array.reshape(-1)[0]
    if array.dtype.kind == "f":
        same = np.all((array == first) | (np.isnan(array) & np.isnan(first)))
    else:
        same = np.all(array == first)
    return first if same else None


def _dtype(type_):
    try:
        return tf_types.dtype_of(type_)
    except Exception:
        return None


def _int_dims(array) -> list[int]:
    return [int(v) for v in np.asarray(array).reshape(-1)]


# --- arithmetic identities -------------------------------------------------------------------------

_IDENTITY = {"tf.AddV2": 0, "tf.Sub": 0, "tf.Mul": 1, "tf.Div": 1, "tf.RealDiv": 1}


@folder(*_IDENTITY)
def fold_identity_arithmetic(op):
    """x + 0, x - 0, x * 1, x / 1 -> x (and 0 + x, 1 * x), unless it would hide a broadcast."""
    x, y = op.operands
    result = op.results[0]
    commutative = op.name in ("tf.AddV2", "tf.Mul") or tfr.tf_name(op) in ("AddV2", "Mul")
    element = _dtype(x.type)
    if element is None or element.kind not in "iuf":  # MLIR's identity is an int or float attribute
        return None
    identity = _IDENTITY["tf." + tfr.tf_name(op)]

    def valid(operand, identity_value):
        identity_shape = tfr.shape(identity_value)
        if identity_shape is not None and len(identity_shape) == 0:
            return operand.type == result.type
        return (operand.type == result.type and tfr.is_static_type(identity_value.type)
                and tfr.is_static_type(result.type)
                and statically_broadcastable(tfr.shape(operand), identity_shape))

    for value, other in ((y, x), (x, y)) if commutative else ((y, x),):
        splat = splat_value(value)
        if splat is not None and _dtype(value.type) == element and splat == identity and valid(other, value):
            return [other]
    return None


@folder("tf.Cast")
def fold_same_type_cast(op):
    x = op.operands[0]
    return [x] if x.type == op.results[0].type else None


@folder("tf.Pow")
def fold_pow(op):
    x, y = op.operands
    splat = splat_value(y)
    if splat is None or tfr.constant_of(y).dtype.kind != "f":
        return None
    result = op.results[0]
    if splat == 0 and tfr.is_static_type(result.type):
        return [np.ones(tfr.shape(result), tf_types.dtype_of(result.type).np)]
    if splat == 1 and x.type == result.type:
        return [x]
    return None


@folder("tf.AddN")
def fold_add_n(op):
    """AddN of one input is it; of zeros and one other input, that input (when no broadcast hides)."""
    inputs = list(op.operands)
    result = op.results[0]
    if len(inputs) == 1:
        return [inputs[0]] if inputs[0].type == result.type else None

    def known_zero(v):
        attr = tfr.constant_attr(v)
        if attr is None or not tfr.dense_is(attr):
            return False
        splat = splat_value(v)
        return splat is not None and _dtype(v.type) is not None and _dtype(v.type).kind in "iuf" and splat == 0
    non_zero = [i for i, v in enumerate(inputs) if not known_zero(v)]
    if len(non_zero) > 1 or not tfr.is_static_type(result.type):
        return None
    if not non_zero:
        return [np.zeros(tfr.shape(result), tf_types.dtype_of(result.type).np)]
    only = inputs[non_zero[0]]
    return [only] if only.type == result.type else None


@folder("tf.LogicalAnd")
def fold_logical_and(op):
    """x && false -> false, when the false constant has the result's type."""
    for value in op.operands:
        splat = splat_value(value)
        if splat is not None and value.type == op.results[0].type and not bool(splat):
            return [np.zeros(tfr.shape(value), np.bool_)]
    return None


@folder("tf.LeakyRelu")
def fold_leaky_relu(op):
    alpha = tfr.float_of(tfr.attr(op, "alpha"), 0.2)
    x = op.operands[0]
    if np.float32(alpha) == 1.0 and x.type == op.results[0].type:
        return [x]
    splat = splat_value(x)
    if splat is None or tfr.constant_of(x).dtype.kind != "f":
        return None
    value = np.asarray(splat * np.asarray(alpha, splat.dtype) if splat < 0 else splat, splat.dtype)
    return [np.broadcast_to(value, tfr.constant_of(x).shape)]


# --- shapes ------------------------------------------------------------------------------------------


def shape_constant(type_, element_type) -> np.ndarray | None:
    """The shape of a static tensor type as an int array of the width of ``element_type``."""
    shape = tfr.shape(type_)
    if not tf_types.is_static(shape):
        return None
    dtype = tf_types.dtype_of(element_type) if not isinstance(element_type, np.dtype) else element_type
    return np.asarray(shape, dtype.np if hasattr(dtype, "np") else dtype).reshape(len(shape))


@folder("tf.Shape")
def fold_shape(op):
    value = shape_constant(op.operands[0].type, op.results[0].type)
    return None if value is None else [value]


@folder("tf.Size")
def fold_size(op):
    result = op.results[0]
    if tfr.shape(result) is None or not tfr.is_static_type(op.operands[0].type):
        return None
    return [np.full(tfr.shape(result), math.prod(tfr.shape(op.operands[0])), tf_types.dtype_of(result.type).np)]


@folder("tf.Rank")
def fold_rank(op):
    rank = tfr.shape(op.operands[0])
    result = op.results[0]
    if rank is None or not tfr.is_static_type(result.type):
        return None
    return [np.full(tfr.shape(result), len(rank), tf_types.dtype_of(result.type).np)]


@folder("tf.VariableShape")
def fold_variable_shape(op):
    sub = tf_types.resource_subtype(op.operands[0].type)
    value = shape_constant(sub, op.results[0].type) if sub is not None else None
    return None if value is None else [value]


@folder("tf.TensorListElementShape")
def fold_tensor_list_element_shape(op):
    element = tf_types.element_type_of(op.operands[0].type)
    subtypes = getattr(element, "subtypes", None)
    if not subtypes or not subtypes.data:
        return None
    value = shape_constant(subtypes.data[0], op.results[0].type)
    return None if value is None else [value]


@folder("tf.Reshape")
def fold_no_op_reshape(op):
    x = op.operands[0]
    result = op.results[0]
    return [x] if tfr.is_static_type(result.type) and result.type == x.type else None


@folder("tf.BroadcastTo")
def fold_broadcast_to(op):
    x = op.operands[0]
    result = op.results[0]
    if not tfr.is_static_type(result.type):
        return None
    if result.type == x.type:
        return [x]
    splat = splat_value(x)
    if splat is None or tfr.constant_of(x).dtype.kind not in "iu":
        return None
    return [np.broadcast_to(np.asarray(splat), tfr.shape(result))]


@folder("tf.Tile")
def fold_unit_tile(op):
    x, multiples = op.operands
    splat = splat_value(multiples)
    return [x] if splat is not None and splat == 1 and x.type == op.results[0].type else None


@folder("tf.EnsureShape")
def fold_ensure_shape(op):
    """EnsureShape of a value whose type already satisfies the shape -> the value."""
    x = op.operands[0]
    shape = tfr.shape(x)
    wanted = getattr(tfr.attr(op, "shape"), "shape", None)
    if shape is None or wanted is None or x.type != op.results[0].type or len(wanted) != len(shape):
        return None
    return [x] if all(w is None or w == s for w, s in zip(wanted, shape)) else None


@folder("tf.Sum")
def fold_no_op_sum(op):
    x = op.operands[0]
    result = op.results[0]
    if not isinstance(x.type, TensorType) or not isinstance(result.type, TensorType):
        return None
    return [x] if not tfr.bool_attr(op, "keep_dims") and x.type == result.type else None


@folder("tf.Fill")
def fold_fill(op):
    dims, value = op.operands
    result = op.results[0]
    dtype = _dtype(result.type)
    array = tfr.constant_of(value)
    if dtype is None or dtype.kind not in "iufb" or array is None or array.size == 0:
        return None
    element = np.asarray(array.reshape(-1)[0], dtype.np)
    if tfr.is_static_type(result.type):
        return [np.broadcast_to(element, tfr.shape(result))]
    shape = tfr.constant_of(dims)
    if shape is None:
        return None
    return [np.broadcast_to(element, tuple(_int_dims(shape)))]


@folder("tf.Empty")
def fold_empty(op):
    """An uninitialised tensor of a constant shape: zeros, as TensorFlow's kernel gives when folding."""
    shape = tfr.constant_of(op.operands[0])
    dtype = _dtype(op.results[0].type)
    if shape is None or dtype is None or not (dtype.is_numeric or dtype.is_bool):
        return None
    dims = tuple(_int_dims(shape))
    declared = tfr.shape(op.results[0])
    if declared is not None and (len(declared) != len(dims) or any(d is not None and d != n for d, n in zip(declared, dims))):
        return None
    return [np.zeros(dims, dtype.np)]


@folder("tf.BroadcastGradientArgs")
def fold_broadcast_gradient_args(op):
    """The reduction indices of each input of a broadcast of constant shapes ``s0`` and ``s1``."""
    s0, s1 = (tfr.constant_of(v) for v in op.operands)
    if s0 is None or s1 is None:
        return None
    a, b = _int_dims(s0), _int_dims(s1)
    rank = max(len(a), len(b))
    a = [1] * (rank - len(a)) + a
    b = [1] * (rank - len(b)) + b
    r0, r1 = [], []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            return None  # incompatible shapes: run time reports it
        if x == 1 and y == 1:
            r0.append(i)
            r1.append(i)
        elif x == 1:
            r0.append(i)
        elif y == 1:
            r1.append(i)
    dtype = s0.dtype
    out = [np.asarray(r0, dtype), np.asarray(r1, dtype)]
    for value, result in zip(out, op.results):
        declared = tfr.shape(result)
        if declared is not None and (len(declared) != 1 or declared[0] not in (None, value.size)):
            return None
    return out


@folder("tf.Pack")
def fold_pack_of_shape(op):
    """Pack(StridedSlice(Shape(x), 0, 1, 1, shrink), d1, d2, ...) -> Shape(x) when x is ?xd1xd2x..."""
    values = list(op.operands)
    if len(values) < 2 or tfr.int_attr(op, "axis") != 0:
        return None
    slice_op = tfr.defining(values[0], "tf.StridedSlice")
    shape_op = tfr.defining(slice_op.operands[0], "tf.Shape") if slice_op is not None else None
    if shape_op is None:
        return None
    masks = [tfr.int_attr(slice_op, k) for k in ("begin_mask", "ellipsis_mask", "end_mask", "new_axis_mask")]
    if any(masks) or tfr.int_attr(slice_op, "shrink_axis_mask") != 1:
        return None

    def const_int(value, rank):
        owner = tfr.defining(value, "tf.Const")
        array = tfr.constant_of(value) if owner is not None else None
        if array is None or array.size != 1 or array.ndim != rank or array.dtype.kind not in "iu":
            return None
        return int(array.reshape(-1)[0])
    dims = [const_int(v, 0) for v in values[1:]]
    bounds = [const_int(v, 1) for v in slice_op.operands[1:]]
    if None in dims or bounds != [0, 1, 1]:
        return None
    x_shape = tfr.shape(shape_op.operands[0])
    if x_shape is None or len(x_shape) != len(values) or x_shape[0] is not None or None in x_shape[1:]:
        return None
    if list(x_shape[1:]) != dims:
        return None
    return [slice_op.operands[0]] if slice_op.operands[0].type == op.results[0].type else None


@folder("tf.StridedSlice")
def fold_strided_slice_of_shape(op):
    """A slice of Shape(x) over dims of x that are known -> a constant."""
    shape_op = tfr.defining(op.operands[0], "tf.Shape")
    if shape_op is None:
        return None
    bounds = [tfr.constant_of(v) for v in op.operands[1:]]
    if any(b is None or b.size != 1 for b in bounds) or tfr.int_attr(op, "new_axis_mask"):
        return None
    x_shape = tfr.shape(shape_op.operands[0])
    if x_shape is None:
        return None
    rank = len(x_shape)
    begin, end, stride = (int(b.reshape(-1)[0]) for b in bounds)
    if begin < 0:
        begin += rank
    if end < 0:
        end += rank
    shrink = tfr.int_attr(op, "shrink_axis_mask") == 1
    if shrink:
        end = begin + 1
    if tfr.int_attr(op, "begin_mask") == 1:
        begin = 0 if stride > 0 else rank - 1
    if tfr.int_attr(op, "end_mask") == 1:
        end = rank if stride > 0 else -1
    if tfr.int_attr(op, "ellipsis_mask") == 1:
        begin, end = 0, rank
    if stride > 0:
        begin, end = min(begin, rank), min(end, rank)
    else:
        begin, end = min(begin, rank - 1), min(end, rank - 1)
    if stride == 0:
        return None
    sub = []
    if (end > begin and stride > 0) or (end < begin and stride < 0):
        for i in range(begin, end, stride):
            if x_shape[i] is None:
                return None
            sub.append(x_shape[i])
    result = op.results[0]
    dtype = _dtype(result.type)
    if dtype is None or dtype.kind not in "iu":
        return None
    value = np.asarray(sub, dtype.np)
    if shrink:
        if len(sub) != 1:
            return None
        value = value.reshape(())
    declared = tfr.shape(result)
    if declared is not None and tf_types.is_static(declared) and tuple(declared) != value.shape:
        return None
    return [value]


# --- transposes ----------------------------------------------------------------------------------


def _perm(value):
    array = tfr.constant_of(value)
    return None if array is None or array.dtype.kind not in "iu" else _int_dims(array)


@folder("tf.Transpose")
def fold_transpose(op):
    x, perm = op.operands
    result = op.results[0]
    p = _perm(perm)
    if p is not None and p == list(range(len(p))) and result.type == x.type:
        return [x]
    inner = tfr.defining(x, "tf.Transpose")
    if inner is None or inner.parent_block() is not op.parent_block() or p is None:
        return None  # across blocks (devices) TensorFlow keeps both for every dtype tinytf has
    q = _perm(inner.operands[1])
    if q is None or len(q) != len(p) or any(not 0 <= i < len(q) for i in p) or \
            any(q[p[i]] != i for i in range(len(p))):
        return None
    original = inner.operands[0]
    return [original] if original.type == result.type else None


@folder("tf.Complex")
def fold_complex(op):
    """Complex(re, im) of constants (TensorFlow's kernel does it through the folding hook)."""
    re, im = (tfr.constant_of(v) for v in op.operands)
    dtype = _dtype(op.results[0].type)
    if re is None or im is None or dtype is None or dtype.kind != "c":
        return None
    try:
        value = (re + 1j * im).astype(dtype.np)
    except ValueError:
        return None
    declared = tfr.shape(op.results[0])
    if declared is not None and (len(declared) != value.ndim or any(d is not None and d != n
                                                                     for d, n in zip(declared, value.shape))):
        return None
    return [value]
