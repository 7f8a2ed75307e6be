"""Resource variables in the IR: VarHandleOp, ReadVariableOp, AssignVariableOp.

    %v = "tf.VarHandleOp"() <{container = "", shared_name = "w"}> : () -> tensor<!tf_type.resource<tensor<2xf32>>>
    %x = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
    "tf.AssignVariableOp"(%v, %x) <{validate_shape = false}> : (tensor<...>, tensor<2xf32>) -> ()

Their kernels need the runtime's variables; the kernel API (``framework.kernel``) supplies them.
"""
from __future__ import annotations

from xdsl.irdl import operand_def, result_def, traits_def

from tinytf import dtypes
from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, ResourceOp, register
from tinytf.framework.tensor_spec import TensorSpec


def _resource_spec(type_):
    sub = tf_types.resource_subtype(type_)
    return TensorSpec.from_type(sub) if sub is not None else TensorSpec(None, dtypes.float32)


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

    @staticmethod
    def infer(*, dtype, shape, **_):
        return TensorSpec((), dtypes.resource)


@register
class ReadVariableOp(Op):
    """The variable's current value (a snapshot: later assigns do not change it)."""

    name = "tf.ReadVariableOp"
    resource = operand_def()
    value = result_def()
    dtype = derived("type", lambda op: tf_types.dtype_of(op.results[0].type))
    traits = traits_def(NoConstantFold(), ResourceOp())

    @staticmethod
    def infer(resource, *, dtype):
        return TensorSpec(None, dtype)


@register
class AssignVariableOp(Op):
    """Stores ``value`` in the variable."""

    name = "tf.AssignVariableOp"
    resource = operand_def()
    value = operand_def()
    validate_shape = attr(False)
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    @staticmethod
    def infer(resource, value, **_):
        return []
