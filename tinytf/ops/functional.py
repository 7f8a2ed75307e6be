"""Calls of other functions in the module: PartitionedCall, StatefulPartitionedCall and LegacyCall.

    %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @fn}>
           : (tensor<2xf32>) -> tensor<2xf32>

The engines run the callee (the ``CallsFunctions`` trait); the output dtypes (``Tout``) come from the result types.
"""
from __future__ import annotations

from xdsl.irdl import traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from tinytf.framework import tf_types
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import CallsFunctions, NoConstantFold, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import verifiers as v


class _Call(Op):
    args = var_operand_def()
    output = var_result_def()
    f = attr(kind="func")
    config = attr("")
    config_proto = attr("")
    executor_type = attr("")
    Tout = derived("types", lambda op: tuple(tf_types.dtype_of(r.type) for r in op.results))

    def verify_ir(self):
        v.check_call(self, self.f, self.args)

    @staticmethod
    def infer(*args, f, Tout, **_):
        return [TensorSpec(None, dtype) for dtype in Tout]


@register
class PartitionedCall(_Call):
    """Calls ``f`` with ``args``; the callee has no side effects."""

    name = "tf.PartitionedCall"
    traits = traits_def(Pure(), CallsFunctions("call", ("f",)))


@register
class StatefulPartitionedCall(_Call):
    """Calls ``f`` with ``args``; the callee may read or write variables."""

    name = "tf.StatefulPartitionedCall"
    traits = traits_def(NoConstantFold(), CallsFunctions("call", ("f",)))


@register
class LegacyCall(Op):
    """Calls ``f`` with ``args``: a GraphDef node whose op is a library function, as TensorFlow's
    GraphDef importer writes it (the callee may have side effects).

        %0 = "tf.LegacyCall"(%x) <{_disable_call_shape_inference = false, f = @fn0}> : (tensor<2xf32>) -> tensor<*xf32>
    """

    name = "tf.LegacyCall"
    args = var_operand_def()
    output = var_result_def()
    f = attr(kind="func")
    _disable_call_shape_inference = attr(False)
    Tout = derived("types", lambda op: tuple(tf_types.dtype_of(r.type) for r in op.results))
    traits = traits_def(NoConstantFold(), CallsFunctions("call", ("f",)))

    def verify_ir(self):
        v.check_call(self, self.f, self.args, legacy=True)

    @staticmethod
    def infer(*args, f, Tout, **_):
        return [TensorSpec(None, dtype) for dtype in Tout]
