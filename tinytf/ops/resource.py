"""Resource variables in the IR: VarHandleOp, ReadVariableOp, AssignVariableOp, AssignAdd/SubVariableOp.

    %v = "tf.VarHandleOp"() <{container = "", shared_name = "w"}> : () -> tensor<!tf_type.resource<tensor<2xf32>>>
    %x = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
    "tf.AssignVariableOp"(%v, %x) <{validate_shape = false}> : (tensor<...>, tensor<2xf32>) -> ()
    "tf.AssignSubVariableOp"(%v, %d) : (tensor<*x!tf_type.resource>, tensor<2xf32>) -> ()

A resource operand's value at run time is a variable (``tinytf.framework.variables.AbstractVariable``:
a ``Variable`` eagerly and in graphs, the XLA lowering's stand-in under XLA). Reading is
``ReadVariableOp.compute``; the assigns are ``VariableUpdate`` ops (tinytf/ops/variable_updates.py),
whose ``update`` rule every engine applies.
"""
from __future__ import annotations

import operator
from typing import ClassVar

from xdsl.irdl import operand_def, result_def, traits_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, ResourceOp, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import AbstractVariable, Variable
from tinytf.ops import variable_updates
from tinytf.ops import verifiers as v
from tinytf.ops.variable_updates import VariableUpdate


def _resource_spec(type_):
    sub = tf_types.resource_subtype(type_)
    return TensorSpec.from_type(sub) if sub is not None else TensorSpec(None, dtypes.float32)


def _variable(ctx, i: int = 0) -> Variable:
    var = ctx.input(i)
    if not isinstance(var, Variable):
        raise InvalidArgumentError(
            f"{ctx.op_name}: operand {i} must be a resource (a variable), got {type(var).__name__}", ctx.op_name)
    return var


def _check_resource(name: str, resource: TensorSpec) -> None:
    if resource.dtype is not dtypes.resource:
        raise InvalidArgumentError(f"{name}: expected a resource operand, got {resource.dtype.name}", name)


@register
class VarHandleOp(Op):
    """Creates (or finds) the variable ``shared_name`` and returns a handle to it."""

    name = "tf.VarHandleOp"
    resource = result_def()
    container = attr("")
    shared_name = attr("")
    allowed_devices = attr((), kind="strs")
    dtype = derived("type", lambda op: _resource_spec(op.results[0].type).dtype)
    shape = derived("shape", lambda op: _resource_spec(op.results[0].type).shape)
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    def verify_ir(self):  # (the handle's dtype and shape come from its one subtype)
        subtypes = getattr(v.element(self.resource), "subtypes", None)
        if subtypes is None or len(subtypes.data) != 1:
            v.fail("must have exactly one subtype in the result resource type")

    @staticmethod
    def infer(*, dtype, shape, **_):
        return TensorSpec((), dtypes.resource)

    @staticmethod
    def kernel(ctx, *, container, shared_name, dtype, shape, **_):
        key = (container, shared_name)
        var = ctx.resources.get(key)
        if var is None:  # TensorFlow creates the variable uninitialised; the first assign fills it
            var = ctx.resources[key] = Variable(None, name=shared_name or None, dtype=dtype, shape=shape)
        elif var.dtype is not dtypes.as_dtype(dtype):
            raise InvalidArgumentError(
                f"tf.VarHandleOp: variable '{shared_name}' has dtype {var.dtype.name}, handle asks for "
                f"{dtypes.as_dtype(dtype).name}", "tf.VarHandleOp")
        ctx.set_output(0, var)

    @staticmethod
    def lower(**_):
        raise UnimplementedError("tf.VarHandleOp: a variable created inside an XLA-compiled function is not "
                                 "supported; pass it as a resource argument", "tf.VarHandleOp")


@register
class ReadVariableOp(Op):
    """The variable's current value (a snapshot: later assigns do not change it)."""

    name = "tf.ReadVariableOp"
    resource = operand_def()
    value = result_def()
    dtype = derived("type", lambda op: tf_types.dtype_of(op.results[0].type))
    traits = traits_def(NoConstantFold(), ResourceOp())
    # its result is the variable's buffer itself, which no update writes while a reader holds it (copy on
    # write): the same buffer read again means the same value (an engine may reuse what it computed from it)
    READS_SNAPSHOT: ClassVar[bool] = True

    @classmethod
    def infer(cls, resource, *, dtype):
        _check_resource(cls.name, resource)
        var = resource.value  # the variable itself when the handle is known (eager, tracing, XLA)
        if isinstance(var, AbstractVariable):
            _check_dtype(var, dtype)
            return TensorSpec(var.shape, dtype)
        return TensorSpec(None, dtype)

    @staticmethod
    def compute(xp, resource, *, dtype):
        if not isinstance(resource, AbstractVariable):
            raise InvalidArgumentError(f"tf.ReadVariableOp: operand 0 must be a resource (a variable), got "
                                       f"{type(resource).__name__}", "tf.ReadVariableOp")
        _check_dtype(resource, dtype)
        return resource.read()

    @staticmethod
    def compute_for(**_):  # for a caller that checked the variable's dtype
        return operator.methodcaller("read")

    @staticmethod
    def grad(op, dy):  # Given upstream grad dy and y = read(v): dv = dy
        return [dy]


def _check_dtype(var, dtype):
    if var.dtype is not dtypes.as_dtype(dtype):
        raise InvalidArgumentError(f"tf.ReadVariableOp: variable {var.name} has dtype {var.dtype.name}, read as "
                                   f"{dtypes.as_dtype(dtype).name}", "tf.ReadVariableOp")


def _check_update(name, resource, value, exact):
    var = resource.value
    if not isinstance(var, AbstractVariable):
        return
    if var.dtype is not value.dtype:
        raise InvalidArgumentError(
            f"{name}: variable {var.name} has dtype {var.dtype.name}, value has {value.dtype.name}", name)
    if var.shape is not None and value.shape is not None and (
            len(var.shape) != len(value.shape)
            or any(a is not None and b is not None and a != b for a, b in zip(var.shape, value.shape))):
        raise InvalidArgumentError(
            f"{name}: variable {var.name} has shape {list(var.shape)}, value has shape {list(value.shape)}", name)


@register
class AssignVariableOp(VariableUpdate):
    """Stores ``value`` in the variable."""

    name = "tf.AssignVariableOp"
    resource = operand_def()
    value = operand_def()
    validate_shape = attr(False)
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())
    USES_CURRENT_VALUE: ClassVar[bool] = False

    @classmethod
    def infer(cls, resource, value, **_):
        _check_resource(cls.name, resource)
        _check_update(cls.name, resource, value, exact=False)
        return []

    @staticmethod
    def update(xp, var, value, **_):  # var := value
        var[0] = value

    @staticmethod
    def kernel(ctx, *, validate_shape):  # the kernel API's store: adopts a dying value's buffer
        _variable(ctx).store(ctx.input(1), ctx.op_name, validate_shape=validate_shape)


class _AssignUpdate(VariableUpdate):
    resource = operand_def()
    value = operand_def()
    dtype = derived("type", lambda op: tf_types.dtype_of(op.operands[1].type), default=None)
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    @classmethod
    def infer(cls, resource, value, **_):
        _check_resource(cls.name, resource)
        if not value.dtype.is_numeric:
            raise InvalidArgumentError(f"{cls.name}: value of dtype {value.dtype.name} is not numeric", cls.name)
        _check_update(cls.name, resource, value, exact=True)
        return []


@register
class AssignAddVariableOp(_AssignUpdate):
    """variable += value.  "tf.AssignAddVariableOp"(%v, %d) : (tensor<*x!tf_type.resource>, tensor<3xf32>) -> ()"""

    name = "tf.AssignAddVariableOp"
    update = staticmethod(variable_updates.add)


@register
class AssignSubVariableOp(_AssignUpdate):
    """variable -= value.  "tf.AssignSubVariableOp"(%v, %d) : (tensor<*x!tf_type.resource>, tensor<3xf32>) -> ()"""

    name = "tf.AssignSubVariableOp"
    update = staticmethod(variable_updates.subtract)
