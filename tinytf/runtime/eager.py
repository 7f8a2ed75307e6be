"""``EagerContext``: runs each op now, on numpy, and returns ``Tensor``s.

    x = tt.constant([[1.0, 2.0]])
    y = x + x          # AddV2.bind -> EagerContext.execute -> np.add -> Tensor

The path is measured (bench/eager_dispatch.py): a 2x2 float32 add must cost at most 1 µs. An
elementwise op whose operands are tensors of one dtype already checked by its shape rule goes
straight to ``compute``; everything else takes the checked path (convert operands, shape rule,
kernel, dtype conformance).
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, OpError
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.runtime import dispatch
from tinytf.runtime.tensor import Tensor, TensorOps, wrap

_INFO = dispatch._INFO
_op_info = dispatch.op_info
_new = Tensor.__new__

_FLOATS = {np.dtype(np.float32), np.dtype(np.float64)}  # Python numbers convert to these exactly enough

# Variables created by eager tf.VarHandleOp, by (container, shared_name).
EAGER_RESOURCES: dict = {}


class EagerContext:
    """The context at the bottom of every thread's stack."""

    is_eager = True

    def execute(self, op_cls, inputs, attrs, _Tensor=Tensor):
        info = _INFO.get(op_cls) or _op_info(op_cls)
        compute = info.fast
        if compute is not None and not attrs:
            # Fast path: eager tensors (only they have ``_value``) of one dtype that this op's shape
            # rule has accepted before, or one such float tensor and a Python number. Anything else
            # raises AttributeError or fails a check, and takes the checked path.
            try:
                if len(inputs) == 2:
                    a, b = inputs
                    ta, tb = type(a), type(b)
                    if ta is _Tensor and tb is _Tensor:
                        x = a._value
                        y = b._value
                    elif ta is float or ta is int:  # ``0.5 * x``: a Python number takes a float tensor's dtype
                        y = b._value
                        x = y.dtype.type(a) if y.dtype in _FLOATS and -3e38 < a < 3e38 else None
                    elif tb is float or tb is int:
                        x = a._value
                        y = x.dtype.type(b) if x.dtype in _FLOATS and -3e38 < b < 3e38 else None
                    else:
                        x = a._value
                        y = b._value
                    dt = x.dtype
                    if dt is y.dtype and dt in info.ok_dtypes:
                        out = compute(x, y)
                        t = _new(_Tensor)
                        t._value = out
                        return t
                elif len(inputs) == 1:
                    x = inputs[0]._value
                    if x.dtype in info.ok_dtypes:
                        out = compute(x)
                        t = _new(_Tensor)
                        t._value = out
                        return t
            except Exception:  # not tensors, or the kernel failed: the checked path says why
                pass
        return self.slow(op_cls, info, inputs, attrs)

    def slow(self, op_cls, info, inputs, attrs):
        """The checked path: operands converted, attrs completed, shape rule, kernel, dtypes conformed."""
        attrs_key, attrs = info.complete_keyed(attrs)
        arrays = convert_inputs(info, inputs)
        if attrs_key is None:
            specs = dispatch.infer(info, arrays, attrs)
        else:
            specs = dispatch.cached_infer(info, arrays, attrs, info.infer_cache, attrs_key)
        outs = dispatch.conform(dispatch.compute(info, arrays, attrs, EAGER_RESOURCES), specs)
        if info.elementwise and not info.has_attrs and len(outs) == 1 and arrays:
            dt = arrays[0].dtype
            if all(a.dtype == dt for a in arrays) and isinstance(specs, TensorSpec) and \
                    _plain_result(info, arrays, specs):
                info.ok_dtypes.add(dt)
        return wrap_outputs(info, outs, specs)


def _plain_result(info, arrays, spec) -> bool:
    """Does the fast path's kernel give this op's promised dtype without conformance? Then it is exact."""
    if info.fast_floats_only and arrays[0].dtype.kind != "f":
        return False
    try:
        out = info.fast(*arrays)
    except Exception:
        return False
    return getattr(out, "dtype", None) == spec.dtype.np


def wrap_outputs(info, outs, specs):
    if isinstance(specs, list):
        return [_wrap_one(o) for o in outs]
    if specs is None and not info.single:
        return [_wrap_one(o) for o in outs] if outs else None
    if not outs:
        return None
    return _wrap_one(outs[0])


def _wrap_one(value):
    if isinstance(value, Variable):
        return value  # a resource handle is the variable itself
    if isinstance(value, np.ndarray | np.generic) or isinstance(getattr(value, "dtype", None), dtypes.DType):
        return wrap(value)  # an array, or a run-time value of its own kind (a TensorList's variant)
    return wrap(np.asarray(value))


def _is_python(value) -> bool:
    return isinstance(value, bool | int | float | complex | list | tuple)


def convert_inputs(info, inputs) -> list:
    """Eager operands as arrays (Variables stay Variables for resource ops).

    Python values adopt the dtype of the op's tensor operands as TensorFlow does: for an
    elementwise op, the first tensor's dtype; otherwise a Python float takes the first float
    tensor's dtype and ints keep int32 (a shape list beside a float tensor stays int32).
    """
    arrays = [None] * len(inputs)
    pending = []
    hint = None
    float_hint = None
    for i, value in enumerate(inputs):
        if type(value) is Tensor:
            arrays[i] = value._value
        elif isinstance(value, np.ndarray):
            arrays[i] = value
        elif isinstance(value, Variable):
            arrays[i] = value if info.resource else value.read()
        elif isinstance(value, np.generic):
            arrays[i] = np.asarray(value)
        elif isinstance(value, Tensor):
            arrays[i] = value._value
        elif isinstance(value, TensorOps):
            raise InvalidArgumentError(
                f"{info.name}: a symbolic tensor of a tt.function was used outside it (eagerly)", info.name)
        elif value is None:
            raise InvalidArgumentError(f"{info.name}: operand {i} is None", info.name)
        else:
            pending.append(i)
            continue
        if isinstance(arrays[i], np.ndarray | np.generic):
            dt = arrays[i].dtype
            if hint is None:
                hint = dt
            if float_hint is None and dt.kind in "fc":
                float_hint = dt
    for i in pending:
        value = inputs[i]
        if info.elementwise and hint is not None:
            arrays[i] = adopt(info.name, value, hint)
        else:
            natural = dtypes.result_type_of_python(value)
            target = float_hint if natural.kind == "f" and float_hint is not None else natural.np
            arrays[i] = adopt(info.name, value, target)
    return arrays


def adopt(op_name: str, value, np_dtype) -> np.ndarray:
    """A Python value as an array of ``np_dtype``; InvalidArgumentError where TensorFlow refuses."""
    np_dtype = np.dtype(np_dtype)
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError) as err:
        raise InvalidArgumentError(f"{op_name}: cannot convert {value!r} to a tensor: {err}", op_name) from None
    if raw.dtype.kind == "O" or raw.dtype.kind in "US":
        raise InvalidArgumentError(f"{op_name}: cannot convert {value!r} to a tensor", op_name)
    order = "biufc"
    if raw.size and raw.dtype.kind in order and np_dtype.kind in order and \
            order.index(raw.dtype.kind) > order.index(np_dtype.kind) and not (raw.dtype.kind == "f" and np_dtype.kind == "c"):
        if raw.dtype.kind == "f" and np_dtype.kind in "iu" and np.all(np.mod(raw, 1) == 0):
            pass  # 2.0 into an int tensor is exact
        else:
            raise InvalidArgumentError(
                f"{op_name}: cannot convert {value!r} to a tensor of dtype {dtypes.as_dtype(np_dtype).name}", op_name)
    if raw.size and raw.dtype.kind in "iu" and np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        if raw.min() < info.min or raw.max() > info.max:
            raise InvalidArgumentError(
                f"{op_name}: {value!r} is out of range for {dtypes.as_dtype(np_dtype).name}", op_name)
    try:
        with np.errstate(over="raise", invalid="raise"):
            return np.asarray(raw, np_dtype)
    except (OverflowError, FloatingPointError, ValueError) as err:
        raise InvalidArgumentError(
            f"{op_name}: cannot convert {value!r} to {dtypes.as_dtype(np_dtype).name}: {err}", op_name) from None


__all__ = ["EAGER_RESOURCES", "EagerContext", "OpError", "adopt", "convert_inputs", "wrap_outputs"]
