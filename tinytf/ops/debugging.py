"""tt.debugging: tf.Assert and tf.CheckNumerics, and the assert_* functions written with them.

    "tf.Assert"(%cond, %message, %x) <{summarize = 3 : i64}> : (tensor<i1>, tensor<!tf_type.string>, tensor<2xf32>) -> ()
    %y = "tf.CheckNumerics"(%x) <{message = "x"}> : (tensor<2xf32>) -> tensor<2xf32>

As in TensorFlow 2: eagerly, and while tracing when the values are known (constants), a failed assertion
raises InvalidArgumentError at once; otherwise a tf.Assert op checks it when the graph runs (the executor
runs every op of a function, so an Assert whose result nobody reads still runs). Static facts (rank,
dtype) raise ValueError / TypeError while tracing. Under XLA, tf.Assert is a no-op and tf.CheckNumerics
the identity, as TensorFlow's XLA kernels make them.
"""
from __future__ import annotations

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.op_functions import op_function, ops
from tinytf.ops.operands import static_value
from tinytf.ops.tensor_inputs import as_tensor, static_dims
from tinytf.ops.type_lists import FLOAT, check_types

__all__ = ["Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater",
           "assert_greater_equal", "assert_near", "assert_negative", "assert_positive", "assert_non_negative",
           "assert_non_positive", "assert_rank", "assert_rank_at_least", "assert_rank_in", "assert_scalar",
           "assert_type", "assert_integer", "assert_same_float_dtype", "assert_proper_iterable", "assert_all_finite",
           "check_numerics", "is_numeric_tensor"]
# tf.debugging.*; TensorFlow also has tf.Assert, tf.assert_equal, tf.assert_greater, tf.assert_less, tf.assert_rank
__namespaces__ = {n: ("debugging",) for n in __all__} | {
    n: ("debugging", "top") for n in ("Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank")}


def _summary(value, summarize: int) -> str:
    """One datum as TensorFlow's Assert prints it: a string as it is, else its first ``summarize`` values."""
    value = np.asarray(value)
    if value.dtype.kind in "OSU":
        flat = [v.decode() if isinstance(v, bytes) else str(v) for v in value.reshape(-1)]
        return " ".join(flat)
    flat = value.reshape(-1)
    shown = " ".join(str(v) for v in flat[:summarize]) + ("..." if flat.size > summarize else "")
    return shown if value.ndim == 0 else f"[{shown}]"


@register
class AssertOp(Op):
    """Raises InvalidArgumentError, its data summarized, when ``condition`` (a bool scalar) is false.
    (The class is AssertOp: the module's ``Assert`` is TensorFlow's function.)"""

    name = "tf.Assert"
    condition = operand_def()
    data = var_operand_def()
    summarize = attr(3)
    traits = traits_def(NotDifferentiable(), NoConstantFold())

    @classmethod
    def infer(cls, condition, *data, summarize=3):
        if condition.dtype is not dtypes.bool_:
            raise InvalidArgumentError(f"{cls.name}: condition must be a bool, got {condition.dtype.name}", cls.name)
        if condition.shape is not None and len(condition.shape) != 0:
            raise InvalidArgumentError(f"{cls.name}: In[0] expected to be a scalar, got shape "
                                       f"{list(condition.shape)}", cls.name)
        return []

    @staticmethod
    def compute(xp, condition, *data, summarize=3):
        if not bool(np.asarray(condition)):
            n = summarize if summarize >= 0 else 1 << 62
            raise InvalidArgumentError("assertion failed: " + " ".join(f"[{_summary(d, n)}]" for d in data),
                                       "tf.Assert")
        return ()

    @staticmethod
    def lower(condition, *data, summarize=3):  # TensorFlow's XLA kernel for Assert is a no-op
        return []


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 (TensorFlow's name)
    """``tt.debugging.Assert(condition, data)``: InvalidArgumentError with ``data`` when ``condition`` is false."""
    return _assert(as_tensor(condition), list(data), summarize)


def _raise(data, summarize):
    n = 3 if summarize is None else (summarize if summarize >= 0 else 1 << 62)
    raise InvalidArgumentError("\n".join(d if isinstance(d, str) else _summary(static_value(d), n) for d in data),
                               "tf.Assert")


def _assert(condition, data, summarize, known=None):
    """Raise now when the condition is known (``known``, or a static ``condition``); else a tf.Assert op
    that checks it when the graph runs."""
    known = static_value(condition) if known is None else known
    if known is not None:
        if not bool(np.all(known)):
            _raise(data, summarize)
        return None
    AssertOp.bind(condition, *[ops.constant(d) if isinstance(d, str) else d for d in data],
                  summarize=3 if summarize is None else int(summarize))
    return None


def _binary(x, y, compare, sign, message, summarize, data=None):
    x = as_tensor(x)
    y = as_tensor(y, like=x)
    if data is None:
        data = [f"Condition x {sign} y did not hold element-wise:", "x = ", x, "y = ", y]
    data = ([message] if message else []) + list(data)
    xv, yv = static_value(x), static_value(y)
    if xv is not None and yv is not None:  # eagerly, or constants while tracing: TensorFlow's static check
        return _assert(None, data, summarize, known=np.all(_NUMPY[compare](xv, yv)))
    return _assert(ops.reduce_all(op_function(compare)(x, y)), data, summarize)


_NUMPY = {"equal": np.equal, "not_equal": np.not_equal, "less": np.less, "less_equal": np.less_equal,
          "greater": np.greater, "greater_equal": np.greater_equal}


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary(x, y, "equal", "==", message, summarize, data)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary(x, y, "not_equal", "!=", message, summarize, data)


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    return _binary(x, y, "less", "<", message, summarize, data)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary(x, y, "less_equal", "<=", message, summarize, data)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    return _binary(x, y, "greater", ">", message, summarize, data)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    return _binary(x, y, "greater_equal", ">=", message, summarize, data)


def _sign_assert(x, compare, what, message, summarize, data):
    x = as_tensor(x)
    zero = ops.zeros_like(x)
    data = data if data is not None else [f"Condition x {what} did not hold element-wise:", "x = ", x]
    return _binary(x, zero, compare, what, message, summarize, data)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert(x, "less", "< 0", message, summarize, data)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert(x, "greater", "> 0", message, summarize, data)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert(x, "greater_equal", ">= 0", message, summarize, data)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    return _sign_assert(x, "less_equal", "<= 0", message, summarize, data)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """|x - y| <= atol + rtol |y| elementwise; rtol and atol default to 10 ε of the dtype, as TensorFlow."""
    x = as_tensor(x)
    y = as_tensor(y, like=x)
    eps = np.finfo(x.dtype.np).eps if x.dtype.is_floating else 0
    rtol = ops.constant(np.asarray(10 * eps if rtol is None else rtol, x.dtype.np))
    atol = ops.constant(np.asarray(10 * eps if atol is None else atol, x.dtype.np))
    data = data if data is not None else ["x and y not equal to tolerance rtol = ", rtol, ", atol = ", atol,
                                          "x = ", x, "y = ", y]
    data = ([message] if message else []) + list(data)
    xv, yv = static_value(x), static_value(y)
    if xv is not None and yv is not None:
        known = np.all(np.abs(xv - yv) <= static_value(atol) + static_value(rtol) * np.abs(yv))
        return _assert(None, data, summarize, known=known)
    tolerance = ops.add(atol, ops.multiply(rtol, ops.abs(y)))
    return _assert(ops.reduce_all(ops.less_equal(ops.abs(ops.subtract(x, y)), tolerance)), data, summarize)


# --- static checks: rank and dtype are known while tracing -----------------------------------------

def _rank(x, what):
    dims = static_dims(as_tensor(x))
    if dims is None:
        raise ValueError(f"tt.debugging.{what}: the rank of the tensor must be static")
    return len(dims), dims


def _fail(message, text, error=ValueError):
    raise error(f"{message + '. ' if message else ''}{text}")


def assert_rank(x, rank, message=None, name=None):
    have, dims = _rank(x, "assert_rank")
    if have != int(rank):
        _fail(message, f"Tensor must have rank {int(rank)}. Received rank {have}, shape {dims}")


def assert_rank_at_least(x, rank, message=None, name=None):
    have, dims = _rank(x, "assert_rank_at_least")
    if have < int(rank):
        _fail(message, f"Tensor must have rank at least {int(rank)}. Received rank {have}, shape {dims}")


def assert_rank_in(x, ranks, message=None, name=None):
    have, dims = _rank(x, "assert_rank_in")
    if have not in [int(r) for r in ranks]:
        _fail(message, f"Tensor must have rank in {tuple(int(r) for r in ranks)}. Received rank {have}, shape {dims}")


def assert_scalar(tensor, message=None, name=None):
    have, dims = _rank(tensor, "assert_scalar")
    if have != 0:
        _fail(message, f"Expected scalar shape, saw shape: {dims}.")


def assert_type(tensor, tf_type, message=None, name=None):
    dtype = dtypes.as_dtype(tf_type)
    if as_tensor(tensor).dtype is not dtype:
        _fail(message, f"tensor must be of type {dtype.name}; got {as_tensor(tensor).dtype.name}", TypeError)


def assert_integer(x, message=None, name=None):
    dtype = as_tensor(x).dtype
    if not dtype.is_integer:
        _fail(message, f"Expected integer type, got {dtype.name}", TypeError)


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (and ``dtype``); ValueError when they differ or are not float."""
    found = [as_tensor(t).dtype for t in tensors or ()] + ([dtypes.as_dtype(dtype)] if dtype is not None else [])
    if not found:
        return dtypes.float32
    if any(d is not found[0] for d in found):
        raise ValueError(f"Tensors must all have the same float type, got {[d.name for d in found]}")
    if not found[0].is_floating:
        raise ValueError(f"Expected floating point type, got {found[0].name}")
    return found[0]


def assert_proper_iterable(values):
    """TypeError unless ``values`` is an iterable that is not a tensor, an array or a string."""
    if isinstance(values, str | bytes | np.ndarray) or hasattr(values, "dtype") or not hasattr(values, "__iter__"):
        raise TypeError(f"Expected argument 'values' to be a \"proper\" iterable.  Found: {type(values)}")


def is_numeric_tensor(tensor):
    return hasattr(tensor, "dtype") and not isinstance(tensor, np.ndarray) and tensor.dtype.is_numeric


# --- CheckNumerics ---------------------------------------------------------------------------------

@register
class CheckNumerics(Op):
    """The tensor itself, after InvalidArgumentError if it holds a NaN or an infinity."""

    name = "tf.CheckNumerics"
    tensor = operand_def()
    output = result_def()
    message = attr("")
    traits = traits_def(NoConstantFold())

    @classmethod
    def infer(cls, tensor, message=""):
        check_types(cls.name, tensor, FLOAT)
        return TensorSpec(tensor.shape, tensor.dtype)

    @staticmethod
    def compute(xp, tensor, message=""):
        values = np.asarray(tensor)
        nan, inf = bool(np.isnan(values).any()), bool(np.isinf(values).any())
        if nan or inf:
            kind = "Inf and NaN" if nan and inf else ("NaN" if nan else "Inf")
            raise InvalidArgumentError(f"{message} : Tensor had {kind} values", "tf.CheckNumerics")
        return tensor

    @staticmethod
    def lower(tensor, message=""):  # XLA cannot raise: the identity, as TensorFlow's XLA kernel
        return tensor

    @staticmethod
    def grad(op, dy):  # Given upstream grad U: dx = check_numerics(U), TensorFlow's message
        return [CheckNumerics.bind(dy, message="Not a number (NaN) or infinity (Inf) values detected in gradient. "
                                   + op.attrs["message"])]


def check_numerics(tensor, message, name=None):
    """``tt.debugging.check_numerics(x, message)``: x, after InvalidArgumentError if it has NaN or Inf."""
    return CheckNumerics.bind(as_tensor(tensor), message=str(message))


def assert_all_finite(x, message, name=None):
    return check_numerics(x, message)
