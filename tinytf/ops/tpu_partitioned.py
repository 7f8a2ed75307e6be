"""TPU model parallelism's glue ops, known as IR only: TPUPartitionedInputV2 gathers the per-core pieces of
an operand split ``partition_dims`` ways (one packed input stands for all of them), TPUPartitionedOutputV2
splits a result into its pieces.

    %x = "tf.TPUPartitionedInputV2"(%a, %b) <{partition_dims = [2, 1]}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    %a, %b = "tf.TPUPartitionedOutputV2"(%x) <{partition_dims = [2, 1]}> : (tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)

They parse, verify (TensorFlow's piece counts) and print as TensorFlow's tools do (``op.IR_ONLY``);
running one raises UnimplementedError naming it: tinytf places work on devices through XLA's partitioner.
"""
from __future__ import annotations

import math
from typing import ClassVar

from xdsl.irdl import operand_def, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register_ir_only
from tinytf.ops import verifiers as v

__all__: list[str] = []  # IR-only ops: no op functions


@register_ir_only
class TPUPartitionedInputV2(Op):
    """One operand from its ``prod(partition_dims)`` pieces (or from one packed piece)."""

    name = "tf.TPUPartitionedInputV2"
    inputs = var_operand_def()
    output = result_def()
    partition_dims = attr(kind="ints")
    is_packed = attr(False)
    _XlaSharding = attr(None, kind="str")
    ATTR_CONSTRAINTS: ClassVar[dict] = {"partition_dims": v.i64_array()}
    traits = traits_def(Pure())

    def verify_ir(self):
        attrs = self.attr_values()
        expected = 1 if attrs["is_packed"] else math.prod(attrs["partition_dims"])
        if len(self.inputs) != expected:
            v.fail(f"expected {expected} inputs, got {len(self.inputs)}")


@register_ir_only
class TPUPartitionedOutputV2(Op):
    """An operand's ``prod(partition_dims)`` pieces."""

    name = "tf.TPUPartitionedOutputV2"
    tensor = operand_def()
    output = var_result_def()
    partition_dims = attr(kind="ints")
    _XlaSharding = attr(None, kind="str")
    ATTR_CONSTRAINTS: ClassVar[dict] = {"partition_dims": v.i64_array()}
    traits = traits_def(Pure())

    def verify_ir(self):
        expected = math.prod(self.attr_values()["partition_dims"])
        if len(self.output) != expected:
            v.fail(f"expected {expected} outputs, got {len(self.output)}")
