"""Ops that tinytf knows only as IR so far, with TensorFlow's verifiers: BatchFunction (batches concurrent
calls of a function; TensorFlow Serving's batching).

    %0 = "tf.BatchFunction"(%x) <{batch_timeout_micros = 10 : i64, f = @serve, max_batch_size = 8 : i64,
           num_batch_threads = 2 : i64, operandSegmentSizes = array<i32: 1, 0>}> : (tensor<?xf32>) -> tensor<?xf32>

They parse, verify and print as TensorFlow's tools do (``op.IR_ONLY``); running one raises
UnimplementedError naming it. An op moves to its family's module when it gets its rules.
"""
from __future__ import annotations

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.irdl import AttrSizedOperandSegments, var_operand_def, var_result_def

from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register_ir_only
from tinytf.ops import verifiers as v

__all__: list[str] = []  # IR-only ops: no op functions


@register_ir_only
class BatchFunction(Op):
    """Batches concurrent calls of ``f`` (``in_tensors`` batched along dim 0, ``captured_tensors`` shared)."""

    name = "tf.BatchFunction"
    in_tensors = var_operand_def()
    captured_tensors = var_operand_def()
    out_tensors = var_result_def()
    f = attr(kind="func")
    num_batch_threads = attr(kind="int")
    max_batch_size = attr(kind="int")
    batch_timeout_micros = attr(kind="int")
    max_enqueued_batches = attr(10)
    allowed_batch_sizes = attr((), kind="ints")
    container = attr("")
    shared_name = attr("")
    batching_queue = attr("")
    low_priority_max_batch_size = attr(0)
    low_priority_batch_timeout_micros = attr(0)
    low_priority_allowed_batch_sizes = attr((), kind="ints")
    low_priority_max_enqueued_batches = attr(0)
    mixed_priority_policy = attr("low_priority_padding_with_max_batch_size")
    batch_padding_policy = attr("PAD_UP")
    enable_large_batch_splitting = attr(False)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_ir(self):
        f = self.f
        if isinstance(f, SymbolRefAttr) and v.lookup_function(self, f) is None:
            v.fail(f"'f' attribute refers to an undefined function: {f.root_reference.data}")
