"""``tt.custom_gradient``: a function whose gradient is given, not derived, as ``tf.custom_gradient``.

    @tt.custom_gradient
    def log1pexp(x):
        e = tt.exp(x)
        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tt.math.log(1 + e), grad

The forward pass runs with every tape paused; each recording tape then gets one entry whose
``grad`` calls the user's function, so ``grad`` itself is recorded by outer tapes (higher-order
gradients) and traced inside ``tt.function``. Variables read in the forward pass are passed to
``grad(*upstream, variables=[...])``, which then returns ``(input_grads, variable_grads)``.
"""
from __future__ import annotations

import functools

from tinytf.autodiff.structures import flatten, pack_as
from tinytf.autodiff.tape import _reads_variables, pause_all, record_call, recording_tapes
from tinytf.autodiff.tensor_protocol import is_tensor
from tinytf.framework import context
from tinytf.framework.variables import Variable
from tinytf.ops.op_functions import ops


class CustomGradientCall:
    """The tape entry of one call: not an IR op, only a carrier of the user's ``grad``."""

    name = "tt.CustomGradient"
    traits = ()

    @staticmethod
    def grad(op, *dys):  # Given upstream grads U and y = f(x): dx = grad_fn(U)
        grad_fn, n_inputs, variables = op.raw_attrs["grad_fn"], op.raw_attrs["n_inputs"], op.raw_attrs["variables"]
        if variables:
            input_grads, variable_grads = grad_fn(*dys, variables=list(variables))
            return _as_list(input_grads, n_inputs) + _as_list(variable_grads, len(variables))
        return _as_list(grad_fn(*dys), n_inputs)


def _as_list(grads, n: int) -> list:
    out = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(out) != n:
        raise ValueError(f"custom_gradient: the gradient function returned {len(out)} gradients for {n} inputs")
    return out


class _VariableReads:
    """A context that forwards everything and notes the variables read (for ``variables=``)."""

    def __init__(self):
        self.below = context.current()
        self.found: dict[int, Variable] = {}

    def execute(self, op_cls, inputs, attrs):
        for x in inputs:
            if type(x) is Variable and x.trainable and _reads_variables(op_cls):
                self.found.setdefault(id(x), x)
        return self.below.execute(op_cls, inputs, attrs)


def custom_gradient(f):
    """Decorate ``f(*x) -> (y, grad_fn)``; calling the result returns ``y``."""

    @functools.wraps(f)
    def call(*args, **kwargs):
        tapes = recording_tapes()
        if not tapes:
            y, _ = f(*args, **kwargs)
            return y
        reads = _VariableReads()
        with pause_all(), context.pushed(reads):
            y, grad_fn = f(*args, **kwargs)
            # Fresh output tensors, so an output that is an input cannot make a cycle on the tape.
            flat_y = [ops.identity(t) if is_tensor(t) else t for t in flatten(y)]
        inputs = [a for a in flatten(list(args)) if is_tensor(a)]
        variables = list(reads.found.values())
        attrs = {"grad_fn": grad_fn, "n_inputs": len(inputs), "variables": variables}
        record_call(CustomGradientCall, tuple(inputs + variables), tuple(flat_y), attrs, accessed=variables)
        return pack_as(y, flat_y)

    return call
