"""Training ops: one optimizer step on a variable, in place, under the variables' locks.

    "tf.ResourceApplyGradientDescent"(%var, %alpha, %delta) <{use_locking = true}> : (tensor<!tf_type.resource<tensor<3xf32>>>, tensor<f32>, tensor<3xf32>) -> ()
    %out = "tf.ApplyGradientDescent"(%ref, %alpha, %delta) <{use_locking = true}> : (tensor<3x!tf_type.f32ref>, tensor<f32>, tensor<3xf32>) -> tensor<3x!tf_type.f32ref>

Resource forms (TF2) take variables as resource operands and return nothing; ref forms (TF1) take
ref variables and return the ``var`` ref forwarded. Each is a ``VariableUpdate`` (variable_updates.py):
its ``update`` rule, written once for numpy and jax.numpy, is what the kernel (variables locked in the
global order, copy-on-write) and the XLA lowering both apply.

    var -= alpha * delta                                      GradientDescent
    accum = accum * momentum + grad; var -= lr * accum        Momentum (use_nesterov:
                                     var -= grad * lr + accum * momentum * lr)
    lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)     Adam
    m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2)
    var -= m * lr_t / (sqrt(v) + epsilon)                     (use_nesterov: (grad * (1 - beta1) + beta1 * m) * lr_t / ...)
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import context
from tinytf.framework.attributes import attr
from tinytf.framework.op import NoConstantFold, NotDifferentiable, ResourceOp, register
from tinytf.framework.variables import AbstractVariable, Variable
from tinytf.ops.ref_variables import RefSpec, ref_operand
from tinytf.ops.variable_updates import VariableUpdate

# tf.raw_ops only (TensorFlow exports these as tf.raw_ops.* too): no tt.* op functions
__all__ = []


# --- shared rules ----------------------------------------------------------------------------------

def _infer(op_name, specs, num_vars, scalars, ref):
    """Check a training op's operands: ``num_vars`` variables, then tensors, ``scalars`` naming the
    indices (into ``specs``) that must be scalars; the rest share the variable's shape. Every
    operand has the variable's dtype. Returns the ref output's spec (ref forms) or []."""
    if ref:
        first = ref_operand(op_name, specs[0], "var")
        shape, dtype = first.shape, first.ref_dtype
        for i in range(1, num_vars):
            ref_operand(op_name, specs[i], f"operand {i}")
    else:
        for i in range(num_vars):
            if specs[i].dtype is not dtypes.resource:
                raise InvalidArgumentError(f"{op_name}: operand {i} must be a resource (a variable), got a "
                                           f"{specs[i].dtype.name} tensor", op_name)
        var = specs[0].value
        shape, dtype = (var.shape, var.dtype) if isinstance(var, AbstractVariable) else (None, None)
    for i in range(num_vars, len(specs)):
        spec = specs[i]
        if dtype is not None and spec.dtype is not dtype:
            raise InvalidArgumentError(f"{op_name}: operand {i} has dtype {spec.dtype.name}, the variable has "
                                       f"{dtype.name}", op_name)
        if spec.dtype.kind not in "fc":
            raise InvalidArgumentError(f"{op_name}: operand {i} has dtype {spec.dtype.name}, expected a float",
                                       op_name)
        if i in scalars:
            if spec.shape is not None and len(spec.shape) != 0:
                raise InvalidArgumentError(f"{op_name}: operand {i} is not a scalar: shape {list(spec.shape)}",
                                           op_name)
        elif shape is not None and spec.shape is not None and (
                len(shape) != len(spec.shape)
                or any(a is not None and b is not None and a != b for a, b in zip(shape, spec.shape))):
            raise InvalidArgumentError(f"{op_name}: var and operand {i} do not have the same shape: "
                                       f"{list(shape)} vs {list(spec.shape)}", op_name)
    return RefSpec(shape, first.ref_dtype) if ref else []


# --- the update rules, for numpy and jax.numpy -----------------------------------------------------

def _gradient_descent(xp, var, alpha, delta, **_):
    var[0] -= alpha * delta


def _momentum(xp, var, lr, grad, momentum, *, use_nesterov, **_):  # var[1] is accum
    var[1] *= momentum
    var[1] += grad
    if use_nesterov:
        var[0] -= grad * lr + var[1] * momentum * lr
    else:
        var[0] -= lr * var[1]


def _adam(xp, var, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, *, use_nesterov, **_):  # var[1:] m, v
    one = xp.ones((), var[0].dtype)
    lr_t = lr * xp.sqrt(one - beta2_power) / (one - beta1_power)
    var[1] += (grad - var[1]) * (one - beta1)
    var[2] += (grad * grad - var[2]) * (one - beta2)
    step = (grad * (one - beta1) + beta1 * var[1]) if use_nesterov else var[1]
    var[0] -= step * lr_t / (xp.sqrt(var[2]) + epsilon)


# --- the ops: one definition per algorithm, a resource form and a ref form of each ---------------

class _Training(VariableUpdate):
    """Shared rules: ``VARIABLE_OPERANDS`` variables, then tensors (``SCALAR_OPERANDS`` are scalars);
    ``update`` is the step; the ref forms also have a result (the forwarded ref)."""

    use_locking = attr(False)
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    @classmethod
    def infer(cls, *specs, **_):
        return _infer(cls.name, list(specs), cls.VARIABLE_OPERANDS, set(cls.SCALAR_OPERANDS), ref=cls.is_ref())


class _GradientDescent(_Training):
    var = operand_def()
    alpha = operand_def()
    delta = operand_def()
    SCALAR_OPERANDS: ClassVar[tuple] = (1,)
    update = staticmethod(_gradient_descent)


class _Momentum(_Training):
    var = operand_def()
    accum = operand_def()
    lr = operand_def()
    grad_ = operand_def()  # TensorFlow's operand 'grad' (the rule name grad is the gradient)
    momentum = operand_def()
    use_nesterov = attr(False)
    VARIABLE_OPERANDS: ClassVar[int] = 2
    SCALAR_OPERANDS: ClassVar[tuple] = (2, 4)
    update = staticmethod(_momentum)


class _Adam(_Training):
    var = operand_def()
    m = operand_def()
    v = operand_def()
    beta1_power = operand_def()
    beta2_power = operand_def()
    lr = operand_def()
    beta1 = operand_def()
    beta2 = operand_def()
    epsilon = operand_def()
    grad_ = operand_def()  # TensorFlow's operand 'grad' (the rule name grad is the gradient)
    use_nesterov = attr(False)
    VARIABLE_OPERANDS: ClassVar[int] = 3
    SCALAR_OPERANDS: ClassVar[tuple] = (3, 4, 5, 6, 7, 8)
    update = staticmethod(_adam)


@register
class ResourceApplyGradientDescent(_GradientDescent):
    """var -= alpha * delta.  "tf.ResourceApplyGradientDescent"(%var, %alpha, %delta) <{use_locking = true}>"""

    name = "tf.ResourceApplyGradientDescent"


@register
class ResourceApplyMomentum(_Momentum):
    """accum = accum * momentum + grad; var -= lr * accum (Nesterov: var -= grad * lr + accum * momentum * lr)."""

    name = "tf.ResourceApplyMomentum"


@register
class ResourceApplyAdam(_Adam):
    """One Adam step on var, m and v (see the module docstring)."""

    name = "tf.ResourceApplyAdam"


@register
class ApplyGradientDescent(_GradientDescent):
    """var -= alpha * delta on a ref variable; returns the ref."""

    name = "tf.ApplyGradientDescent"
    out = result_def()


@register
class ApplyMomentum(_Momentum):
    """Momentum on ref variables var and accum; returns the var ref."""

    name = "tf.ApplyMomentum"
    out = result_def()


@register
class ApplyAdam(_Adam):
    """Adam on ref variables var, m and v; returns the var ref."""

    name = "tf.ApplyAdam"
    out = result_def()


# --- public functions ------------------------------------------------------------------------------

def _operands(variables, tensors):
    """Variables as handles and Python numbers in the variable's dtype. Inside a tt.function the
    variables are captured here: the tracer captures only a resource op's first operand."""
    ctx = context.current()
    while ctx is not None and not hasattr(ctx, "capture"):
        ctx = getattr(ctx, "_below", None)  # a tape wraps the context it records
    first = variables[0]
    np_dtype = first.dtype.np if isinstance(first, Variable) else None
    handles = [ctx.capture(v) if ctx is not None and isinstance(v, Variable) else v for v in variables]
    values = [np.asarray(t, np_dtype) if np_dtype is not None and isinstance(t, int | float) else t
              for t in tensors]
    return handles + values


def resource_apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    ResourceApplyGradientDescent.bind(*_operands([var], [alpha, delta]), use_locking=use_locking)


def resource_apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False, name=None):
    ResourceApplyMomentum.bind(*_operands([var, accum], [lr, grad, momentum]), use_locking=use_locking,
                               use_nesterov=use_nesterov)


def resource_apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking=False,
                        use_nesterov=False, name=None):
    ResourceApplyAdam.bind(*_operands([var, m, v], [beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad]),
                           use_locking=use_locking, use_nesterov=use_nesterov)


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    return ApplyGradientDescent.bind(*_operands([var], [alpha, delta]), use_locking=use_locking)


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False, name=None):
    return ApplyMomentum.bind(*_operands([var, accum], [lr, grad, momentum]), use_locking=use_locking,
                              use_nesterov=use_nesterov)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking=False,
               use_nesterov=False, name=None):
    return ApplyAdam.bind(*_operands([var, m, v], [beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad]),
                          use_locking=use_locking, use_nesterov=use_nesterov)
