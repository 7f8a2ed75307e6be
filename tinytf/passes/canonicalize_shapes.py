"""TensorFlow's canonicalization patterns for shape and data-movement ops: reshapes, packs, concats
(hoisting elementwise ops out of them), unpacks, tiles before broadcasting ops, gathers, batch
matmuls of known shapes, ShapeN of static inputs, ToBool of ranked tensors.

    %0 = "tf.Log1p"(%a)
    %1 = "tf.Log1p"(%b)
    %2 = "tf.ConcatV2"(%0, %1, %axis)      // -> %c = "tf.ConcatV2"(%a, %b, %axis); "tf.Log1p"(%c)
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType

import tinytf.dtypes as dtypes
from tinytf.framework import tf_types
from tinytf.framework.attributes import numpy_to_dense
from tinytf.passes import tf_op_traits as traits
from tinytf.passes import tf_rewrite as tfr
from tinytf.passes.fold_rules import statically_broadcastable
from tinytf.passes.tf_canonicalization import pattern


def _ranked(value_or_type) -> bool:
    return tfr.shape(value_or_type) is not None


def _tensor(shape, element):
    return tf_types.tensor_type(tuple(shape), element)


# --- reshape, pack -----------------------------------------------------------------------------------

@pattern("tf.Reshape")
def redundant_reshape(op, rewriter):
    """Reshape(Reshape(x, s0), s1) -> Reshape(x, s1); Reshape(x, Shape(x)) -> x."""
    x, shape = op.operands
    inner = tfr.defining(x, "tf.Reshape")
    if inner is not None:
        tfr.replace_with(rewriter, op, "tf.Reshape", [inner.operands[0], shape])
        return True
    shape_op = tfr.defining(shape, "tf.Shape")
    if shape_op is not None and shape_op.operands[0] is x and x.type == op.results[0].type:
        rewriter.replace(op, [], [x])
        return True
    return False


@pattern("tf.Pack")
def pack_one_to_reshape(op, rewriter):
    """Pack of one static tensor -> Reshape to the result's shape (int32 dims when they fit)."""
    if len(op.operands) != 1 or not tfr.is_static_type(op.operands[0].type) or not tfr.is_static_type(op.results[0].type):
        return False
    dims = tfr.shape(op.results[0])
    dtype = np.int32 if all(-2**31 <= d < 2**31 for d in dims) else np.int64
    shape = tfr.const(np.asarray(dims, dtype).reshape(len(dims)))
    tfr.replace_with(rewriter, op, "tf.Reshape", [op.operands[0], shape.results[0]], before=[shape])
    return True


# --- concat ------------------------------------------------------------------------------------------

@pattern("tf.Concat")
def concat_to_concat_v2(op, rewriter):
    axis, *values = op.operands
    tfr.replace_with(rewriter, op, "tf.ConcatV2", [*values, axis])
    return True


@pattern("tf.ConcatV2")
def hoist_unary_out_of_concat(op, rewriter):
    """Concat(f(a), f(b), axis) -> f(Concat(a, b, axis)) for an elementwise unary f."""
    *values, axis = op.operands
    owners = [tfr.defining(v) for v in values]
    first = owners[0] if owners else None
    if first is None or tfr.tf_name(first) not in traits.CWISE_UNARY:
        return False
    if any(o is None or tfr.op_name(o) != tfr.op_name(first) for o in owners):
        return False
    concat = tfr.build("tf.ConcatV2", [o.operands[0] for o in owners] + [axis], [op.results[0].type],
                       attributes=tfr.carried(op))
    tfr.replace_with(rewriter, op, tfr.op_name(first), [concat.results[0]], before=[concat])
    return True


_SYNTHESIZED_IDENTITY = {"tf.Add": 0, "tf.Sub": 0, "tf.Mul": 1, "tf.Div": 1, "tf.RealDiv": 1}


@pattern("tf.ConcatV2")
def hoist_binary_out_of_concat(op, rewriter):
    """Concat(a0 * s0, a1 * s1, axis) -> Concat(a0, a1, axis) * Pack(s0, s1) for tensors whose axis dim
    is the innermost and of size 1 and scalars s (either side); fewer than half of the inputs may be
    other values, given ``x * 1`` (or ``+ 0``) in their place for float scalars."""
    *values, axis_value = op.operands
    axis_array = tfr.constant_of(axis_value)
    if axis_array is None or axis_array.size != 1:
        return False
    axis = int(axis_array.reshape(-1)[0])
    first = tfr.defining(values[0]) if values else None
    if axis < 0 or first is None or tfr.tf_name(first) not in traits.CWISE_BINARY:
        return False
    kind = tfr.op_name(first)
    exceptions = [i for i, v in enumerate(values) if tfr.op_name(tfr.defining(v) or op) != kind
                  or tfr.defining(v) is None]
    if len(values) * 0.5 <= len(exceptions):
        return False
    result_shape = tfr.shape(op.results[0])
    if result_shape is None:
        return False
    element = tf_types.element_type_of(op.results[0].type)

    def operand(i, side):
        return values[i] if i in exceptions else tfr.defining(values[i]).operands[side]

    def all_tensors(side):
        for i in range(len(values)):
            s = tfr.shape(operand(i, side))
            if s is None or len(s) != axis + 1 or s[axis] != 1:
                return False
        return True

    def all_scalars(side):
        return all(i in exceptions or tfr.shape(operand(i, side)) == () for i in range(len(values)))

    if all_tensors(0) and all_scalars(1):
        scalar_side = 1
    elif all_tensors(1) and all_scalars(0):
        scalar_side = 0
    else:
        return False
    before = []
    lhs = [None if i in exceptions else operand(i, 0) for i in range(len(values))]
    rhs = [None if i in exceptions else operand(i, 1) for i in range(len(values))]
    if exceptions:
        identity = _SYNTHESIZED_IDENTITY.get(kind)
        scalar_type = first.operands[scalar_side].type
        dtype = tf_types.dtype_of(scalar_type)
        if identity is None or dtype.kind != "f":
            return False
        const = tfr.const(np.full(tfr.shape(scalar_type), identity, dtype.np), scalar_type)
        before.append(const)
        for i in exceptions:
            if scalar_side == 1:
                lhs[i], rhs[i] = values[i], const.results[0]
            else:
                lhs[i], rhs[i] = const.results[0], values[i]

    def pack_or_concat(is_scalar, args, result_type):
        if is_scalar:
            pack = tfr.build("tf.Pack", args, [result_type], {"axis": tfr.i64_value(0)}, tfr.carried(op))
            before.append(pack)
            return pack.results[0]
        axis_const = tfr.const(np.asarray(axis, tf_types.dtype_of(axis_value.type).np).reshape(()))
        concat = tfr.build("tf.ConcatV2", [*args, axis_const.results[0]], [result_type], attributes=tfr.carried(op))
        before.extend([axis_const, concat])
        return concat.results[0]

    vector = _tensor([len(values)], element)
    lhs_value = pack_or_concat(scalar_side == 0, lhs, vector if scalar_side == 0 else op.results[0].type)
    rhs_value = pack_or_concat(scalar_side == 1, rhs, vector if scalar_side == 1 else op.results[0].type)
    tfr.replace_with(rewriter, op, kind, [lhs_value, rhs_value], before=before)
    return True


# --- unpack ------------------------------------------------------------------------------------------

@pattern("tf.Unpack")
def hoist_unary_out_of_unpack(op, rewriter):
    """f(Unpack(x)#0), f(Unpack(x)#1), ... -> Unpack(f(x)) for an elementwise unary f."""
    users = [use.operation for r in op.results for use in r.uses]
    if not users or tfr.tf_name(users[0]) not in traits.CWISE_UNARY:
        return False
    if any(tfr.op_name(u) != tfr.op_name(users[0]) for u in users):
        return False
    x = op.operands[0]
    unary = tfr.build(tfr.op_name(users[0]), [x], [x.type], attributes=tfr.carried(op))
    unpack = tfr.build("tf.Unpack", [unary.results[0]], [r.type for r in op.results], tfr.inherent(op),
                       tfr.carried(op))
    rewriter.insert_op([unary, unpack], _before(op))
    for old, new in zip(op.results, unpack.results):
        for use in list(old.uses):
            user = use.operation
            rewriter.replace(user, [], [new])
    rewriter.erase(op)
    return True


def _before(op):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


# --- tile into broadcasting ops --------------------------------------------------------------------


def broadcast_shape(a, b):
    """MLIR's getBroadcastedShape with TensorFlow's rule for unknown dims, or None if incompatible."""
    out = []
    for i in range(max(len(a), len(b))):
        x = a[len(a) - 1 - i] if i < len(a) else 1
        y = b[len(b) - 1 - i] if i < len(b) else 1
        if x is None or y is None:
            out.append(x if x is not None and x > 1 else y if y is not None and y > 1
                       else y if x == 1 else x if y == 1 else None)
        elif x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(reversed(out))


def _broadcast_all(shapes):
    out = shapes[0]
    for s in shapes[1:]:
        out = broadcast_shape(out, s)
        if out is None:
            return None
    return out


@pattern(*("tf." + name for name in traits.BROADCASTABLE))
def fuse_tile_into_broadcast(op, rewriter):
    """A Tile that only repeats size-1 dims, feeding a broadcasting op -> its input (the op broadcasts)."""
    if len(op.results) != 1 or not _ranked(op.results[0]):
        return False
    shapes = [tfr.shape(v) for v in op.operands]
    if any(s is None for s in shapes):
        return False
    out_shape = tfr.shape(op.results[0])
    matched = []
    for index, value in enumerate(op.operands):
        tile = tfr.defining(value, "tf.Tile")
        if tile is None:
            continue
        multiples = tfr.constant_of(tile.operands[1])
        source = tfr.shape(tile.operands[0])
        if multiples is None or source is None:
            continue
        multiples = [int(m) for m in multiples.reshape(-1)]
        if len(multiples) != len(source) or not all(m == 1 or d == 1 for m, d in zip(multiples, source)):
            continue
        trial = list(shapes)
        trial[index] = source
        if not statically_broadcastable(*trial) or _broadcast_all(trial) != out_shape:
            continue
        shapes = trial
        matched.append((index, tile.operands[0]))
    if not matched:
        return False
    operands = list(op.operands)
    for index, source in matched:
        operands[index] = source
    op.operands = operands
    rewriter.notify_op_modified(op)
    return True


# --- gathers, matmuls, shapes ----------------------------------------------------------------------

def _gather_v2(rewriter, op, params, indices) -> None:
    """Replace ``op`` by GatherV2(params, indices, axis 0) with batch_dims 0 (TensorFlow's GatherToV2)."""
    axis = tfr.const(np.asarray(0, np.int32))
    tfr.replace_with(rewriter, op, "tf.GatherV2", [params, indices, axis.results[0]],
                     properties={"batch_dims": tfr.i64_value(0)}, before=[axis])


@pattern("tf.Gather")
def gather_to_v2(op, rewriter):
    _gather_v2(rewriter, op, *op.operands[:2])
    return True


@pattern("tf.TensorListGetItem")
def tensor_list_get_item_to_gather(op, rewriter):
    """GetItem of a list made by TensorListFromTensor (and only read by GetItem) -> a gather.
    TensorFlow writes tf.Gather, which its GatherToV2 turns into tf.GatherV2 in the same run:
    tinytf writes the GatherV2 at once (tf.Gather has no kernel in tinytf)."""
    source = tfr.defining(op.operands[0], "tf.TensorListFromTensor")
    if source is None or any(tfr.op_name(u.operation) != "tf.TensorListGetItem" for u in source.results[0].uses):
        return False
    _gather_v2(rewriter, op, source.operands[0], op.operands[1])
    return True


def _matmul_flags(op):
    return {k: tfr.bool_value(tfr.bool_attr(op, k)) for k in ("adj_x", "adj_y", "grad_x", "grad_y")}


@pattern("tf.BatchMatMul")
def batch_matmul_to_v2(op, rewriter):
    """Static shapes of a valid BatchMatMul have equal batch dims: BatchMatMulV2 computes the same."""
    x, y = op.operands
    if not (tfr.is_static_type(x.type) and tfr.is_static_type(y.type)):
        return False
    tfr.replace_with(rewriter, op, "tf.BatchMatMulV2", [x, y], properties=_matmul_flags(op))
    return True


@pattern("tf.BatchMatMulV2")
def batch_matmul_v2_to_matmul(op, rewriter):
    x, y = op.operands
    if tfr.shape(x) is None or tfr.shape(y) is None or len(tfr.shape(x)) != 2 or len(tfr.shape(y)) != 2:
        return False
    flags = _matmul_flags(op)
    tfr.replace_with(rewriter, op, "tf.MatMul", [x, y], properties={
        "transpose_a": flags["adj_x"], "transpose_b": flags["adj_y"], "grad_a": flags["grad_x"],
        "grad_b": flags["grad_y"]})
    return True


@pattern("tf.ShapeN")
def shape_n(op, rewriter):
    """ShapeN of one input -> Shape; the static inputs' shapes -> constants."""
    if len(op.operands) == 1:
        shape = tfr.build("tf.Shape", [op.operands[0]], [op.results[0].type])
        rewriter.replace(op, [shape], list(shape.results))
        return True
    if not op.operands:
        rewriter.erase(op)
        return True
    from tinytf.passes.fold_rules import shape_constant

    new_ops, values, dynamic = [], [None] * len(op.operands), []
    for i, value in enumerate(op.operands):
        array = shape_constant(value.type, op.results[0].type)
        if array is not None:
            const = tfr.const(array)
            new_ops.append(const)
            values[i] = const.results[0]
        else:
            dynamic.append(i)
    if len(dynamic) == len(op.operands):
        return False
    if dynamic:
        rest = tfr.build("tf.ShapeN", [op.operands[i] for i in dynamic], [op.results[i].type for i in dynamic])
        new_ops.append(rest)
        for i, r in zip(dynamic, rest.results):
            values[i] = r
    rewriter.replace(op, new_ops, values)
    return True


@pattern("tf.ToBool")
def to_bool_of_ranked(op, rewriter):
    """ToBool(x: tensor<i1>) -> x; of a scalar -> x != 0 (or != ""); of a ranked tensor -> whether it has elements."""
    x = op.operands[0]
    shape = tfr.shape(x)
    result = op.results[0]
    if shape is None:
        return False
    if x.type == result.type:
        rewriter.replace(op, [], [x])
        return True
    if len(shape) == 0:
        dtype = tf_types.dtype_of(x.type)
        if dtype is dtypes.string:
            zero = tfr.const_from_attr(numpy_to_dense(np.asarray(b"", dtype=object), dtypes.string), x.type)
        elif dtype.kind in "iuf":
            zero = tfr.const(np.zeros((), dtype.np), x.type)
        else:
            return False
        tfr.replace_with(rewriter, op, "tf.NotEqual", [x, zero.results[0]],
                         properties={"incompatible_shape_error": tfr.bool_value(False)}, before=[zero])
        return True
    if not isinstance(result.type, TensorType):
        return False
    const = tfr.const(np.asarray(0 not in shape), result.type)
    rewriter.replace(op, [const], list(const.results))
    return True
