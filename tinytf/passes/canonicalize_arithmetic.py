"""TensorFlow's canonicalization patterns for arithmetic and comparisons (``canonicalize.td`` and the
``DivNoNan`` / ``MulNoNan`` patterns), each keeping the replaced op's ``device`` and ``_`` attributes.

    %0 = "tf.Neg"(%b)
    %1 = "tf.AddV2"(%a, %0) {device = "/device:GPU:0"}      // -> "tf.Sub"(%a, %b) {device = ...}
"""
from __future__ import annotations

import numpy as np

from tinytf.framework import tf_types
from tinytf.passes import tf_rewrite as tfr
from tinytf.passes.tf_canonicalization import pattern


def _dtype(value):
    try:
        return tf_types.dtype_of(value.type)
    except Exception:
        return None


def _is_number(value) -> bool:
    dtype = _dtype(value)
    return dtype is not None and dtype.is_numeric


@pattern("tf.Add")
def add_to_add_v2(op, rewriter):
    if not all(_is_number(v) for v in op.operands):
        return False  # tf.Add also concatenates strings; AddV2 does not
    tfr.replace_with(rewriter, op, "tf.AddV2", op.operands)
    return True


@pattern("tf.AddV2")
def add_of_neg(op, rewriter):
    """Neg(a) + b -> b - a;  a + Neg(b) -> a - b."""
    a, b = op.operands
    if (neg := tfr.defining(a, "tf.Neg")) is not None:
        tfr.replace_with(rewriter, op, "tf.Sub", [b, neg.operands[0]])
        return True
    if (neg := tfr.defining(b, "tf.Neg")) is not None:
        tfr.replace_with(rewriter, op, "tf.Sub", [a, neg.operands[0]])
        return True
    return False


@pattern("tf.Sub")
def sub_of_neg(op, rewriter):
    """a - Neg(b) -> a + b."""
    a, b = op.operands
    if (neg := tfr.defining(b, "tf.Neg")) is None:
        return False
    tfr.replace_with(rewriter, op, "tf.AddV2", [a, neg.operands[0]])
    return True


_SQUARED_DIFFERENCE_TYPES = {"bfloat16", "complex128", "complex64", "float16", "float32", "int32", "int64"}


@pattern("tf.Square")
def square_of_sub(op, rewriter):
    """Square(a - b) -> SquaredDifference(a, b)."""
    sub = tfr.defining(op.operands[0], "tf.Sub")
    if sub is None or any(getattr(_dtype(v), "name", None) not in _SQUARED_DIFFERENCE_TYPES for v in sub.operands):
        return False
    tfr.replace_with(rewriter, op, "tf.SquaredDifference", sub.operands)
    return True


def _over_sqrt(op, rewriter, multiply: str, reciprocal_first: bool) -> bool:
    a, b = op.operands
    sqrt = tfr.defining(b, "tf.Sqrt")
    if sqrt is None:
        return False
    x = sqrt.operands[0]
    rsqrt = tfr.build("tf.Rsqrt", [x], [x.type], attributes=tfr.carried(op))
    operands = [rsqrt.results[0], a] if reciprocal_first else [a, rsqrt.results[0]]
    tfr.replace_with(rewriter, op, multiply, operands, before=[rsqrt])
    return True


@pattern("tf.Div", "tf.RealDiv", "tf.TruncateDiv")
def div_by_sqrt(op, rewriter):
    """a / Sqrt(b) -> a * Rsqrt(b)."""
    return _over_sqrt(op, rewriter, "tf.Mul", reciprocal_first=False)


@pattern("tf.Xdivy")
def xdivy_by_sqrt(op, rewriter):
    """Xdivy(a, Sqrt(b)) -> MulNoNan(Rsqrt(b), a)."""
    return _over_sqrt(op, rewriter, "tf.MulNoNan", reciprocal_first=True)


@pattern("tf.RealDiv")
def real_div_by_constant(op, rewriter):
    """a / c -> a * Reciprocal(c) for a float32 tf.Const c (a multiply is ~10x cheaper)."""
    a, b = op.operands
    owner = tfr.defining(b, "tf.Const")
    value = tfr.attr(owner, "value") if owner is not None else None
    if value is None or not tfr.dense_is(value) or _dtype(b) is None or _dtype(b).name != "float32" \
            or tf_types.dtype_of(value.type).name != "float32":
        return False
    const = tfr.const_from_attr(value, value.type)
    reciprocal = tfr.build("tf.Reciprocal", [const.results[0]], [value.type], attributes=tfr.carried(op))
    tfr.replace_with(rewriter, op, "tf.Mul", [a, reciprocal.results[0]], before=[const, reciprocal])
    return True


@pattern("tf.Log")
def log_of_softmax(op, rewriter):
    softmax = tfr.defining(op.operands[0], "tf.Softmax")
    if softmax is None:
        return False
    tfr.replace_with(rewriter, op, "tf.LogSoftmax", softmax.operands)
    return True


@pattern("tf.Log")
def log_of_one_plus(op, rewriter):
    """Log(x + 1.0) -> Log1p(x), for a scalar float32 constant 1.0 (safely broadcast)."""
    add = tfr.defining(op.operands[0], "tf.AddV2")
    if add is None:
        return False
    owner = tfr.defining(add.operands[1], "tf.Const")
    value = tfr.attr(owner, "value") if owner is not None else None
    if value is None or not tfr.dense_is(value) or tf_types.shape_of(value.type) != () \
            or tf_types.dtype_of(value.type).name != "float32":
        return False
    if float(tfr.constant_of(add.operands[1]).reshape(-1)[0]) != 1.0:
        return False
    tfr.replace_with(rewriter, op, "tf.Log1p", [add.operands[0]])
    return True


_NEGATED = {"tf.Greater": "tf.LessEqual", "tf.GreaterEqual": "tf.Less", "tf.Less": "tf.GreaterEqual",
            "tf.LessEqual": "tf.Greater"}
_NEGATED_EQUALITY = {"tf.Equal": "tf.NotEqual", "tf.NotEqual": "tf.Equal"}


@pattern("tf.LogicalNot")
def logical_not_of_comparison(op, rewriter):
    inner = op.operands[0].owner
    name = tfr.op_name(inner) if hasattr(inner, "results") else ""
    if name in _NEGATED:
        tfr.replace_with(rewriter, op, _NEGATED[name], inner.operands)
        return True
    if name in _NEGATED_EQUALITY:
        flag = tfr.bool_attr(inner, "incompatible_shape_error", True)
        tfr.replace_with(rewriter, op, _NEGATED_EQUALITY[name], inner.operands,
                         properties={"incompatible_shape_error": tfr.bool_value(flag)})
        return True
    return False


@pattern("tf.Equal", "tf.NotEqual")
def known_compatible_shapes(op, rewriter):
    """incompatible_shape_error = false -> true when the shapes are known to broadcast."""
    if tfr.bool_attr(op, "incompatible_shape_error", True):
        return False
    result = tfr.shape(op.results[0])
    if result is None:
        return False
    x, y = (tfr.shape(v) for v in op.operands)
    if len(result) == 0 and (x is None or len(x) != 0 or y is None or len(y) != 0):
        return False  # a scalar result of non-scalars: the comparison always fails
    tfr.replace_with(rewriter, op, tfr.op_name(op), op.operands,
                     properties={**tfr.inherent(op), "incompatible_shape_error": tfr.bool_value(True)})
    return True


def _constant_value_of(value, number) -> bool:
    """TensorFlow's IsConstantValueOf: a splat int or float constant equal to ``number``."""
    array = tfr.constant_of(value)
    if array is None or array.size == 0 or array.dtype.kind not in "iuf":
        return False
    first = array.reshape(-1)[0]
    return bool(np.all(array == first)) and first == number


@pattern("tf.Maximum")
def maximum_of_zero(op, rewriter):
    """Maximum(x, 0) -> Relu(x) (not for int32 on GPU, which has no such Relu kernel)."""
    x, y = op.operands
    if not _constant_value_of(y, 0):
        return False
    if tfr.device_type(op) == "GPU" and getattr(_dtype(op.results[0]), "name", "") == "int32":
        return False
    tfr.replace_with(rewriter, op, "tf.Relu", [x])
    return True


@pattern("tf.Relu")
def relu_of_minimum_six(op, rewriter):
    minimum = tfr.defining(op.operands[0], "tf.Minimum")
    if minimum is None or not _constant_value_of(minimum.operands[1], 6):
        return False
    tfr.replace_with(rewriter, op, "tf.Relu6", [minimum.operands[0]])
    return True


@pattern("tf.DivNoNan", "tf.MulNoNan")
def no_nan_with_constant(op, rewriter):
    """DivNoNan / MulNoNan by a tf.Const y: all zeros -> y; none zero -> Div / Mul."""
    y = op.operands[1]
    if tfr.defining(y, "tf.Const") is None:
        return False
    array = tfr.constant_of(y)
    if array is None or array.dtype.kind not in "fc":
        return False
    zero = array == 0
    if zero.size and bool(np.all(zero)):
        if y.type != op.results[0].type:
            return False
        rewriter.replace(op, [], [y])
        return True
    if bool(np.any(zero)):
        return False
    tfr.replace_with(rewriter, op, "tf.Div" if tfr.op_name(op) == "tf.DivNoNan" else "tf.Mul", op.operands)
    return True


@pattern("tf.Bitcast")
def bitcast(op, rewriter):
    """Bitcast to its own type -> its input; Bitcast(Bitcast(x)) -> Bitcast(x)."""
    x = op.operands[0]
    if x.type == op.results[0].type:
        rewriter.replace(op, [], [x])
        return True
    inner = tfr.defining(x, "tf.Bitcast")
    if inner is None:
        return False
    tfr.replace_with(rewriter, op, "tf.Bitcast", inner.operands, properties=tfr.inherent(op))
    return True
