"""An op's gradient rule, and what the rule is handed: the op's inputs as tensors, its attributes
completed with their defaults.

    rule = grad_rule(type(op))               # the class's ``grad``, or ReadVariableOp's identity
    dxs = rule(recorded_op, *dys)            # Given upstream grads dys: one gradient per input

An op is recorded with its raw inputs (Python numbers and arrays included) and the attributes its
caller gave; the rule sees them converted as the contexts convert them, so ``x * 2.0`` recorded
eagerly and traced gives the rule the same float32 constant.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.autodiff.tensor_protocol import is_tensor, read_variable_op
from tinytf.framework import op as op_module
from tinytf.framework.variables import Variable
from tinytf.ops.op_functions import ops


def grad_rule(op_cls):
    rule = getattr(op_cls, "grad", None)
    if rule is not None:
        return rule
    if op_cls is read_variable_op():
        return _read_variable_grad
    raise LookupError(f"No gradient defined for operation '{op_cls.name}'")


def _read_variable_grad(op, dy):  # Given upstream grad dy and y = read(v): dv = dy
    return [dy]


def as_tensors(op_cls, raw_inputs) -> tuple:
    """Inputs as tensors, converted as the contexts convert them: arrays keep their dtype; a Python
    value takes the first tensor's dtype for an elementwise op, else a float takes the first
    float tensor's dtype and an int stays int32."""
    if all(is_tensor(x) or type(x) is Variable for x in raw_inputs):
        return tuple(raw_inputs)
    dtypes_seen = [x.dtype for x in raw_inputs if is_tensor(x)]
    hint = dtypes_seen[0] if dtypes_seen else None
    float_hint = next((d for d in dtypes_seen if d.is_floating or d.is_complex), None)
    elementwise = op_module.has_trait(op_cls, op_module.Elementwise)
    out = []
    for x in raw_inputs:
        if is_tensor(x) or type(x) is Variable:
            out.append(x)
        elif isinstance(x, np.ndarray | np.generic):
            out.append(ops.constant(np.asarray(x), dtype=dtypes.as_dtype(np.asarray(x).dtype)))
        else:
            natural = dtypes.result_type_of_python(x)
            if elementwise and hint is not None:
                dtype = hint
            elif natural.is_floating and float_hint is not None:
                dtype = float_hint
            else:
                dtype = natural
            out.append(ops.constant(x, dtype=dtype))
    return tuple(out)


def complete_attrs(op_cls, attrs: dict) -> dict:
    try:
        return op_cls.complete_attrs(attrs)
    except Exception:  # a derived attribute the caller left to the context: keep what we have
        specs = getattr(op_cls, "__tf_attrs__", {})
        out = {k: s.default for k, s in specs.items() if s.default is not op_module.REQUIRED}
        out.update(attrs)
        return out
