"""Ops of several families that tinytf knows only as IR so far, with TensorFlow's verifiers: DynamicStitch and
BatchFunction.

    %m = "tf.DynamicStitch"(%i0, %i1, %d0, %d1) : (tensor<2xi32>, tensor<i32>, tensor<2x3xf32>, tensor<3xf32>)
           -> tensor<3x3xf32>

They parse, verify and print as TensorFlow's tools do (``op.IR_ONLY``); running one raises
UnimplementedError naming it. An op moves to its family's module when it gets its rules.
"""
from __future__ import annotations

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.irdl import AttrSizedOperandSegments, result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from tinytf.framework.attributes import attr
from tinytf.framework.op import Op, register_ir_only
from tinytf.ops import verifiers as v

__all__: list[str] = []  # IR-only ops: no op functions


def _dims(s) -> str:
    return ", ".join("?" if d is None else str(d) for d in s)  # (as MLIR's diagnostics print a list)


@register_ir_only
class DynamicStitch(Op):
    """merged[indices[m][i, ...]] = data[m][i, ...]: N index tensors, then N data tensors.

    Operands are one list here (TensorFlow's SameVariadicOperandSize: the first half are the indices)."""

    name = "tf.DynamicStitch"
    indices_and_data = var_operand_def()
    merged = result_def()
    traits = traits_def(Pure())

    def verify_ir(self):
        n = len(self.operands) // 2
        if n < 1:
            v.fail("requires attribute N with value >= 1")
        out = v.shape(self.merged.type)
        if out is not None and not out:
            v.fail("requires non scalar output")
        seen, all_constant, largest, item = set(), True, -1, None
        for index, data in zip(self.operands[:n], self.operands[n:2 * n]):
            values = v.const_ints(index)
            if values is None:
                all_constant = False
            else:
                for x in values:
                    if x < 0:
                        v.fail(f"requires non-negative index values; found {x}")
                    largest = max(largest, x)
                    seen.add(x)
            index_shape, data_shape = v.shape(index), v.shape(data)
            if index_shape is None or data_shape is None:
                continue
            prefix = data_shape[:len(index_shape)]
            if len(prefix) != len(index_shape) or any(a is not None and b is not None and a != b
                                                      for a, b in zip(index_shape, prefix)):
                v.fail(f"requires shape of data with type '{v.type_of(data)}' to have prefix matching with shape of "
                       f"the corresponding index type '{v.type_of(index)}'")
            rest = list(data_shape[len(index_shape):])
            if item is None:
                item = rest
                continue
            if len(rest) != len(item) or any(a is not None and b is not None and a != b for a, b in zip(rest, item)):
                v.fail(f"has inconsistent shaped data and index pairs; inferred item shapes [{_dims(item)}] and "
                       f"[{_dims(rest)}] don't match")
            item = [d if d is not None else r for d, r in zip(item, rest)]
        if not all_constant:
            return
        for i in range(largest + 1):
            if i not in seen:
                v.fail(f"missing index {i}")
        if item is not None:
            expected = v.tensor_type((largest + 1, *item), v.element(self.merged))
            if not v.cast_compatible(self.merged.type, expected):
                v.fail(f"has invalid output type; should be compatible with inferred type '{expected}'")


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
