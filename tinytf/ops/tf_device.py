"""The ``tf_device`` dialect: regions and calls that run on a device (the TF-to-XLA bridge).

    %0 = "tf_device.cluster"() ({
      %1 = "tf.AddV2"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "tf_device.return"(%1) : (tensor<f32>) -> ()
    }) : () -> tensor<f32>
    %2 = "tf_device.cluster_func"(%a, %b) <{func = @_func}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
"""
from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_attr_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.traits import IsTerminator

from tinytf.framework.op import CallsFunctions


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends a tf_device region, yielding its values as the enclosing op's results."""

    name = "tf_device.return"
    results_ = var_operand_def()
    traits = traits_def(IsTerminator())


@irdl_op_definition
class ClusterOp(IRDLOperation):
    """A region to compile as one unit (for XLA); its results are what its ``return`` yields."""

    name = "tf_device.cluster"
    body = region_def("single_block")
    output = var_result_def()


@irdl_op_definition
class ClusterFuncOp(IRDLOperation):
    """Runs the function ``func`` as a compiled cluster (an outlined ``tf_device.cluster``)."""

    name = "tf_device.cluster_func"
    args = var_operand_def()
    output = var_result_def()
    func = prop_def(SymbolRefAttr)
    traits = traits_def(CallsFunctions("cluster", ("func",)))

    @property
    def callee(self) -> str:
        return self.func.root_reference.data


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """A region that runs on ``device``."""

    name = "tf_device.launch"
    body = region_def("single_block")
    output = var_result_def()
    device = opt_attr_def(StringAttr)


@irdl_op_definition
class ParallelExecuteOp(IRDLOperation):
    """Regions that run concurrently; results are the regions' returns, concatenated in order."""

    name = "tf_device.parallel_execute"
    execute = var_region_def("single_block")
    execute_outputs = var_result_def()


TFDevice = Dialect("tf_device", [ReturnOp, ClusterOp, ClusterFuncOp, LaunchOp, ParallelExecuteOp], [])
