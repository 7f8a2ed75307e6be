"""TF1 ref variables: tf.VariableV2 and tf.Assign, tf.AssignAdd, tf.AssignSub.

    %v = "tf.VariableV2"() <{container = "", shape = #tf_type.shape<2>, shared_name = "v"}> : () -> tensor<2x!tf_type.f32ref>
    %a = "tf.Assign"(%v, %x) <{use_locking = true, validate_shape = true}> : (tensor<2x!tf_type.f32ref>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>
    %b = "tf.AssignAdd"(%a, %d) <{use_locking = false}> : (tensor<2x!tf_type.f32ref>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>

A ref value at run time is a ``RefVariable`` (the variable itself); each update op forwards its ref
input to its ref output (``forward_ref_input_to_ref_output``), so ops chained on the result update
the same variable. Updates lock the variable (exclusively with ``use_locking``) through the kernel
API and write with copy-on-write, so readers never see a half-written value.
"""
from __future__ import annotations

from xdsl.irdl import operand_def, result_def, traits_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, ResourceOp, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import RefVariable, Variable
from tinytf.ops import variable_updates
from tinytf.ops.variable_updates import VariableUpdate

# tf.raw_ops only: TensorFlow 2 has no tf.assign (tf.compat.v1.assign is a Python wrapper)
__all__ = []


class RefSpec(TensorSpec):
    """The spec of a ref value: the referred tensor's shape and ``ref_dtype``; its type is
    ``tensor<2x!tf_type.f32ref>``. Its ``dtype`` is ``resource``: the run-time value is a variable,
    which dispatch must not convert to an array."""

    __slots__ = ("ref_dtype",)

    def __init__(self, shape, ref_dtype):
        super().__init__(shape, dtypes.resource)
        self.ref_dtype = dtypes.as_dtype(ref_dtype)

    def to_type(self):
        return tf_types.tensor_type(self.shape, tf_types.REF_TYPES[self.ref_dtype]())

    def __repr__(self) -> str:
        return f"RefSpec(shape={self.shape}, ref_dtype={self.ref_dtype!r})"


def ref_operand(op_name: str, spec: TensorSpec, what: str = "ref") -> RefSpec:
    """The RefSpec of a ref operand: traced (a RefSpec) or at run time (the RefVariable itself, which
    dispatch describes as a resource spec carrying the variable). InvalidArgumentError otherwise."""
    if isinstance(spec, RefSpec):
        return spec
    var = spec.value
    if isinstance(var, Variable) and var.is_ref:
        return RefSpec(var.shape, var.dtype)
    got = "a resource variable" if isinstance(var, Variable) else f"a {spec.dtype.name} tensor"
    raise InvalidArgumentError(f"{op_name}: operand '{what}' must be a ref variable (tf.VariableV2), got {got}",
                               op_name)


def check_same(op_name: str, ref: RefSpec, value: TensorSpec, what: str = "value") -> None:
    """``value`` has the ref's dtype and (where both are known) its shape."""
    if value.dtype is not ref.ref_dtype:
        raise InvalidArgumentError(f"{op_name}: {what} has dtype {value.dtype.name}, the variable has "
                                   f"{ref.ref_dtype.name}", op_name)
    if ref.shape is not None and value.shape is not None and (
            len(ref.shape) != len(value.shape)
            or any(a is not None and b is not None and a != b for a, b in zip(ref.shape, value.shape))):
        raise InvalidArgumentError(f"{op_name}: the variable has shape {list(ref.shape)}, {what} has shape "
                                   f"{list(value.shape)}", op_name)


def _ref_input(ctx, i: int = 0) -> Variable:
    var = ctx.input_variable(i)
    if not var.is_ref:
        raise ctx.error(f"operand {i} must be a ref variable (tf.VariableV2), got resource variable {var.name}")
    return var


@register
class VariableV2(Op):
    """A TF1 variable, uninitialised until assigned; returns a ref to it. Variables with a
    ``shared_name`` live in the run's resource manager and persist across runs."""

    name = "tf.VariableV2"
    ref = result_def()
    shape = attr(kind="shape")
    container = attr("")
    shared_name = attr("")
    dtype = derived("type", lambda op: tf_types.dtype_of(op.results[0].type))
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    @classmethod
    def infer(cls, *, shape, dtype, **_):
        if dtype is None:
            raise InvalidArgumentError(f"{cls.name}: missing attribute 'dtype'", cls.name)
        if shape is not None and any(d is not None and d < 0 for d in shape):
            raise InvalidArgumentError(f"{cls.name}: negative dimension in shape {list(shape)}", cls.name)
        return RefSpec(shape, dtype)

    @staticmethod
    def kernel(ctx, *, shape, container, shared_name, dtype):
        dtype = dtypes.as_dtype(dtype)
        if not shared_name:  # an anonymous variable: a new one per execution
            ctx.set_output(0, RefVariable(None, dtype=dtype, shape=shape))
            return
        key = ("ref", container, shared_name)
        var = ctx.resources.get(key)
        if var is None:
            var = ctx.resources[key] = RefVariable(None, name=shared_name, dtype=dtype, shape=shape)
        elif var.dtype is not dtype:
            raise ctx.error(f"variable '{shared_name}' has dtype {var.dtype.name}, requested {dtype.name}")
        ctx.set_output(0, var)


@register
class Assign(Op):
    """ref := value; returns the ref. With validate_shape the shapes must match, else the variable
    takes the value's shape."""

    name = "tf.Assign"
    ref = operand_def()
    value = operand_def()
    output_ref = result_def()
    validate_shape = attr(True)
    use_locking = attr(True)
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    @classmethod
    def infer(cls, ref, value, *, validate_shape, **_):
        ref = ref_operand(cls.name, ref)
        if not validate_shape:
            check_same(cls.name, RefSpec(None, ref.ref_dtype), value)
            return RefSpec(value.shape, ref.ref_dtype)
        check_same(cls.name, ref, value)
        return ref

    @staticmethod
    def kernel(ctx, *, validate_shape, use_locking):
        _ref_input(ctx)
        # the variable's lock is always taken: a store is cheap and a torn value is never worth it
        ctx.assign_variable(0, 1, validate_shape=validate_shape)
        ctx.forward_ref_input_to_ref_output(0, 0)


class _RefUpdate(VariableUpdate):
    ref = operand_def()
    value = operand_def()
    output_ref = result_def()
    use_locking = attr(False)
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    @classmethod
    def infer(cls, ref, value, **_):
        ref = ref_operand(cls.name, ref)
        if not value.dtype.is_numeric:
            raise InvalidArgumentError(f"{cls.name}: value of dtype {value.dtype.name} is not numeric", cls.name)
        check_same(cls.name, ref, value)
        return ref


@register
class AssignAdd(_RefUpdate):
    """ref += value; returns the ref.  "tf.AssignAdd"(%v, %d) : (tensor<2x!tf_type.f32ref>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>"""

    name = "tf.AssignAdd"
    update = staticmethod(variable_updates.add)


@register
class AssignSub(_RefUpdate):
    """ref -= value; returns the ref.  "tf.AssignSub"(%v, %d) : (tensor<2x!tf_type.f32ref>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>"""

    name = "tf.AssignSub"
    update = staticmethod(variable_updates.subtract)


def variable_v2(shape, dtype, container="", shared_name="", name=None):
    return VariableV2.bind(shape=tuple(shape) if shape is not None else None, dtype=dtypes.as_dtype(dtype),
                           container=container, shared_name=shared_name)


def assign(ref, value, validate_shape=True, use_locking=True, name=None):
    return Assign.bind(ref, value, validate_shape=validate_shape, use_locking=use_locking)


def assign_add(ref, value, use_locking=False, name=None):
    return AssignAdd.bind(ref, value, use_locking=use_locking)


def assign_sub(ref, value, use_locking=False, name=None):
    return AssignSub.bind(ref, value, use_locking=use_locking)
