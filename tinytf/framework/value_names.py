"""The names MLIR's printer gives values and blocks (``SSANameState`` in MLIR's AsmPrinter.cpp), so that
tinytf prints what ``mlir-opt`` and ``tf-opt`` print. Names in the source text are not kept: MLIR's parser
drops them.

- Entry-block arguments print ``%arg0``, ``%arg1``, ...; other values ``%0``, ``%1``, ... in op order; other
  blocks' arguments take numbers too; blocks print ``^bb0``, ``^bb1`` by their place in their region.
- A region is numbered after the whole region around it, starting from the counters the enclosing region
  ended with; sibling regions start from the same counters and see only their ancestors' names.
- Ops that implement ``OpAsmOpInterface`` name their results: ``tf.Const`` ``%cst``, ``arith.constant``
  ``%cst`` / ``%c42_i32`` / ``%true``, ``tensor.cast`` ``%cast``; and ODS names the first result of each
  result group of an op declaring two or more results: ``%outputs:2, %control = tf_executor.island``,
  ``%y, %idx = "tf.Unique"``. A name taken gets MLIR's suffix, from one counter per scope:
  ``%cst``, ``%cst_0``, ``%outputs_1``.
- An op's results print in groups (``%0:2``), a result of a group of two or more as ``%0#1``.
- In generic form (``--print-op-generic``) no op names its results, as in MLIR.
"""
from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, Signedness, UnregisteredOp
from xdsl.ir import Block, Operation, SSAValue

# The ODS result names of TensorFlow's ops that declare two or more results (tf_*ops*.td; ``*``: variadic).
# MLIR's op generator gives these ops ``getAsmResultNames``: each non-empty group's first value takes its name.
ODS_RESULT_NAMES: dict[str, str] = {
    "tf.AnonymousIteratorV2": "handle deleter",
    "tf.AnonymousMemoryCache": "handle deleter",
    "tf.AnonymousMultiDeviceIterator": "handle deleter",
    "tf.AnonymousRandomSeedGenerator": "handle deleter",
    "tf.AnonymousSeedGenerator": "handle deleter",
    "tf.ApproxTopK": "values indices",
    "tf.BroadcastGradientArgs": "r0 r1",
    "tf.CollectiveAssignGroupV2": "group_size group_key",
    "tf.ConvertToCooTensor": "row_ids col_ids gains",
    "tf.ConvertToListOfSparseCoreCooTensors": "row_ids_list* col_ids_list* gains_list*",
    "tf.ConvertToSparseCoreCsrWrappedCooTensorOp":
        "row_pointers sorted_sample_ids sorted_token_ids sorted_gains row_pointers_unpadded_size "
        "ids_unpadded_size num_minibatches_per_sc",
    "tf.DeserializeSparse": "sparse_indices sparse_values sparse_shape",
    "tf.FakeQuantWithMinMaxVarsGradient": "backprops_wrt_input backprop_wrt_max",
    "tf.FakeQuantWithMinMaxVarsPerChannelGradient": "backprops_wrt_input backprop_wrt_max",
    "tf.FusedBatchNorm": "y batch_mean batch_variance reserve_space_1 reserve_space_2",
    "tf.FusedBatchNormGrad": "x_backprop scale_backprop offset_backprop reserve_space_3 reserve_space_4",
    "tf.FusedBatchNormGradV2": "x_backprop scale_backprop offset_backprop reserve_space_3 reserve_space_4",
    "tf.FusedBatchNormGradV3": "x_backprop scale_backprop offset_backprop reserve_space_4 reserve_space_5",
    "tf.FusedBatchNormV2": "y batch_mean batch_variance reserve_space_1 reserve_space_2",
    "tf.FusedBatchNormV3": "y batch_mean batch_variance reserve_space_1 reserve_space_2 reserve_space_3",
    "tf.GetMinibatchSplitsWithPhysicalReplica":
        "sorted_row_ids sorted_col_ids sorted_gains splits id_counts max_ids max_uniques",
    "tf.GetMinibatchesInCsrWithPhysicalReplica":
        "row_pointers sorted_sample_ids sorted_token_ids sorted_gains row_pointers_unpadded_size "
        "ids_unpadded_size num_minibatches_per_physical_sparse_core",
    "tf.GetStatsFromListOfSparseCoreCooTensors": "max_ids_per_sparse_core max_unique_ids_per_sparse_core",
    "tf.ListDiff": "out idx",
    "tf.LookupTableExportV2": "keys values",
    "tf.ParseExample": "sparse_indices* sparse_values* sparse_shapes* dense_values*",
    "tf.ParseExampleV2":
        "sparse_indices* sparse_values* sparse_shapes* dense_values* ragged_values* ragged_row_splits*",
    "tf.Qr": "q r",
    "tf.QuantizeV2": "output output_min output_max",
    "tf.RaggedGather": "output_nested_splits* output_dense_values",
    "tf.RaggedRange": "rt_nested_splits rt_dense_values",
    "tf.RetrieveTPUEmbeddingADAMParameters": "parameters momenta velocities",
    "tf.RetrieveTPUEmbeddingADAMParametersGradAccumDebug": "parameters momenta velocities gradient_accumulators",
    "tf.RetrieveTPUEmbeddingAdadeltaParameters": "parameters accumulators updates",
    "tf.RetrieveTPUEmbeddingAdadeltaParametersGradAccumDebug":
        "parameters accumulators updates gradient_accumulators",
    "tf.RetrieveTPUEmbeddingAdagradParameters": "parameters accumulators",
    "tf.RetrieveTPUEmbeddingAdagradParametersGradAccumDebug": "parameters accumulators gradient_accumulators",
    "tf.RetrieveTPUEmbeddingCenteredRMSPropParameters": "parameters ms mom mg",
    "tf.RetrieveTPUEmbeddingFTRLParameters": "parameters accumulators linears",
    "tf.RetrieveTPUEmbeddingFTRLParametersGradAccumDebug": "parameters accumulators linears gradient_accumulators",
    "tf.RetrieveTPUEmbeddingMDLAdagradLightParameters": "parameters accumulators weights benefits",
    "tf.RetrieveTPUEmbeddingMomentumParameters": "parameters momenta",
    "tf.RetrieveTPUEmbeddingMomentumParametersGradAccumDebug": "parameters momenta gradient_accumulators",
    "tf.RetrieveTPUEmbeddingProximalAdagradParameters": "parameters accumulators",
    "tf.RetrieveTPUEmbeddingProximalAdagradParametersGradAccumDebug": "parameters accumulators gradient_accumulators",
    "tf.RetrieveTPUEmbeddingProximalYogiParameters": "parameters v m",
    "tf.RetrieveTPUEmbeddingProximalYogiParametersGradAccumDebug": "parameters v m gradient_accumulators",
    "tf.RetrieveTPUEmbeddingRMSPropParameters": "parameters ms mom",
    "tf.RetrieveTPUEmbeddingRMSPropParametersGradAccumDebug": "parameters ms mom gradient_accumulators",
    "tf.RetrieveTPUEmbeddingStochasticGradientDescentParametersGradAccumDebug": "parameters gradient_accumulators",
    "tf.SelfAdjointEigV2": "e v",
    "tf.SoftmaxCrossEntropyWithLogits": "loss backprop",
    "tf.SortListOfSparseCoreCooTensors": "sorted_row_ids sorted_col_ids sorted_gains id_counts",
    "tf.SparseAdd": "sum_indices sum_values sum_shape",
    "tf.SparseFillEmptyRows": "output_indices output_values empty_row_indicator reverse_index_map",
    "tf.SparseReshape": "output_indices output_shape",
    "tf.SparseSoftmaxCrossEntropyWithLogits": "loss backprop",
    "tf.StatelessRandomGetKeyCounter": "key counter",
    "tf.StatelessRandomGetKeyCounterAlg": "key counter alg",
    "tf.Svd": "s u v",
    "tf.TPUCompileMlirAndExecute": "rendezvous_key_base results*",
    "tf.TensorArrayConcatV3": "value lengths",
    "tf.TensorArrayGradV3": "grad_handle flow_out",
    "tf.TensorArrayV3": "handle flow",
    "tf.TensorListConcatV2": "tensor lengths",
    "tf.TensorListPopBack": "output_handle tensor",
    "tf.TopKUnique": "topk topk_indices",
    "tf.TopKV2": "values indices",
    "tf.TopKWithUnique": "topk topk_indices",
    "tf.Unique": "y idx",
    "tf.UniqueV2": "y idx",
    "tf.XlaBroadcastHelper": "lhs_output rhs_output",
    "tf.XlaKeyValueSort": "sorted_keys sorted_values",
    "tf.XlaRngBitGenerator": "output_key output",
    "tf.XlaSelfAdjointEig": "w v",
    "tf.XlaSparseCoreAdagrad": "updated_embedding_table updated_accumulator",
    "tf.XlaSparseCoreAdagradMomentum": "updated_embedding_table updated_accumulator updated_momentum",
    "tf.XlaSparseCoreAdam": "updated_embedding_table updated_velocity updated_momentum",
    "tf.XlaSparseCoreFtrl": "updated_embedding_table updated_accumulator updated_linear",
    "tf.XlaSparseDenseMatmulCustomCombinerOnTcGradWithAdagradAndCsrInput":
        "updated_embedding_table updated_accumulator updated_weights",
    "tf.XlaSparseDenseMatmulCustomCombinerOnTcGradWithAdagradMomentumAndCsrInput":
        "updated_embedding_table updated_accumulator updated_momenta updated_weights",
    "tf.XlaSparseDenseMatmulCustomCombinerOnTcGradWithAdamAndCsrInput":
        "updated_embedding_table updated_momenta updated_velocity updated_weights",
    "tf.XlaSparseDenseMatmulCustomCombinerOnTcGradWithCsrInput": "updated_tables* updated_weights",
    "tf.XlaSparseDenseMatmulCustomCombinerOnTcGradWithFtrlAndCsrInput":
        "updated_embedding_table updated_accumulator updated_linear updated_weights",
    "tf.XlaSparseDenseMatmulCustomCombinerOnTcGradWithSgdAndCsrInput": "updated_embedding_table updated_weights",
    "tf.XlaSparseDenseMatmulCustomCombinerOnTcWithCsrInput": "activations preserved_valencies preserved_vectors",
    "tf.XlaSparseDenseMatmulGradWithAdagradAndCsrInput": "updated_embedding_table updated_accumulator",
    "tf.XlaSparseDenseMatmulGradWithAdagradAndStaticBufferSize": "updated_embedding_table updated_accumulator",
    "tf.XlaSparseDenseMatmulGradWithAdagradMomentumAndCsrInput":
        "updated_embedding_table updated_accumulator updated_momenta",
    "tf.XlaSparseDenseMatmulGradWithAdagradMomentumAndStaticBufferSize":
        "updated_embedding_table updated_accumulator updated_momenta",
    "tf.XlaSparseDenseMatmulGradWithAdamAndCsrInput": "updated_embedding_table updated_momenta updated_velocity",
    "tf.XlaSparseDenseMatmulGradWithAdamAndStaticBufferSize":
        "updated_embedding_table updated_momenta updated_velocity",
    "tf.XlaSparseDenseMatmulGradWithFtrlAndCsrInput": "updated_embedding_table updated_accumulator updated_linear",
    "tf.XlaSparseDenseMatmulGradWithFtrlAndStaticBufferSize":
        "updated_embedding_table updated_accumulator updated_linear",
    "tf.XlaSvd": "s u v",
    "tf._FusedBatchNormEx": "y batch_mean batch_variance reserve_space_1 reserve_space_2 reserve_space_3",
    "tf._TPUCompileMlir": "compilation_status program*",
    "tf._XlaCompile": "key compilation_successful",
    "tf_executor.Enter": "output control",
    "tf_executor.Exit": "output control",
    "tf_executor.LoopCond": "output control",
    "tf_executor.Merge": "output value_index control",
    "tf_executor.NextIteration.Source": "output token control",
    "tf_executor.Switch": "falseOutput trueOutput control",
    "tf_executor._SwitchN": "outputs* control",
    "tf_executor.island": "outputs* control",
}
_ODS_GROUPS = {name: [(n.rstrip("*"), n.endswith("*")) for n in names.split()] for name, names in ODS_RESULT_NAMES.items()}

# Ops with OpAsmOpInterface: the name of their one result.
_ONE_RESULT_NAMES = {"tf.Const": "cst", "tensor.cast": "cast", "tensor.extract": "extracted"}


def op_name(op: Operation) -> str:
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def _arith_constant_name(op: Operation) -> str:
    """``arith::ConstantOp::getAsmResultNames``: ``%true`` / ``%false`` for i1, ``%c42_i32`` for an integer,
    ``%c3`` for an index, ``%cst`` for anything else."""
    value = op.properties.get("value") or op.attributes.get("value")
    if not isinstance(value, IntegerAttr):
        return "cst"
    number, type_ = value.value.data, value.type
    if not isinstance(type_, IntegerType):
        return f"c{number}"
    width = type_.width.data
    if width == 1:
        return "true" if number else "false"
    number &= (1 << width) - 1  # (an APInt, printed signed)
    if number >= 1 << (width - 1):
        number -= 1 << width
    prefix = {Signedness.SIGNED: "si", Signedness.UNSIGNED: "ui"}.get(type_.signedness.data, "i")
    return f"c{number}_{prefix}{width}"


def _segment_sizes(op: Operation, groups, count: int) -> list[int] | None:
    variadic = sum(1 for _, is_variadic in groups if is_variadic)
    fixed = len(groups) - variadic
    if variadic == 0:
        return [1] * len(groups) if count == len(groups) else None
    if variadic == 1:
        rest = count - fixed
        return [rest if is_variadic else 1 for _, is_variadic in groups] if rest >= 0 else None
    attr = op.properties.get("resultSegmentSizes") or op.attributes.get("result_segment_sizes") \
        or op.attributes.get("resultSegmentSizes")
    if attr is not None and hasattr(attr, "get_values"):
        sizes = list(attr.get_values())
        return sizes if len(sizes) == len(groups) and sum(sizes) == count else None
    if (count - fixed) % variadic:  # SameVariadicResultSize
        return None
    share = (count - fixed) // variadic
    return [share if is_variadic else 1 for _, is_variadic in groups]


def asm_result_names(op: Operation) -> list[tuple[int, str]]:
    """(result number, name) for the results ``op`` names, as its ``getAsmResultNames`` does."""
    name = op_name(op)
    one = _ONE_RESULT_NAMES.get(name)
    if one is not None:
        return [(0, one)] if len(op.results) == 1 else []
    if name == "arith.constant":
        return [(0, _arith_constant_name(op))] if len(op.results) == 1 else []
    groups = _ODS_GROUPS.get(name)
    if groups is None:
        return []
    sizes = _segment_sizes(op, groups, len(op.results))
    if sizes is None:
        return []
    named, start = [], 0
    for (group_name, _), size in zip(groups, sizes):
        if size:
            named.append((start, group_name))
        start += size
    return named


class _Scope:
    """The names used in one region and, through ``parent``, in the regions around it."""

    __slots__ = ("names", "parent")

    def __init__(self, parent: _Scope | None):
        self.names: set[str] = set()
        self.parent = parent

    def __contains__(self, name: str) -> bool:
        scope = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.parent
        return False


class Names:
    """The names of every value, op result list and block under one op, numbered as MLIR numbers them.

    ``values[v]``: how a use of ``v`` prints, after ``%`` (``0``, ``0#1``, ``cst_0``, ``arg2``);
    ``results[op]``: how ``op``'s results print before `` = `` (``%outputs:2, %control``);
    ``blocks[b]``: ``bb0``, ``bb1``, ..."""

    def __init__(self, top: Operation, generic: bool = False):
        self.values: dict[SSAValue, str] = {}
        self.results: dict[Operation, str] = {}
        self.blocks: dict[Block, str] = {}
        self._generic = generic
        scope = _Scope(None)
        stack = [(region, 0, 0, 0, scope) for region in top.regions]
        self._counters = [0, 0, 0]  # next value number, next argument number, next conflict suffix
        self._number_op(top, scope)
        while stack:
            region, value_id, arg_id, conflict_id, parent = stack.pop()
            self._counters = [value_id, arg_id, conflict_id]
            scope = _Scope(parent)
            self._number_region(region, scope)
            value_id, arg_id, conflict_id = self._counters
            stack.extend((inner, value_id, arg_id, conflict_id, scope)
                         for block in region.blocks for op in block.ops for inner in op.regions)

    def _unique(self, name: str, scope: _Scope) -> str:
        if name in scope:
            counters = self._counters
            while True:
                probe = f"{name}_{counters[2]}"
                counters[2] += 1
                if probe not in scope:
                    name = probe
                    break
        scope.names.add(name)
        return name

    def _number(self) -> str:
        self._counters[0] += 1
        return str(self._counters[0] - 1)

    def _number_region(self, region, scope: _Scope) -> None:
        values, counters = self.values, self._counters
        for index, block in enumerate(region.blocks):
            self.blocks[block] = f"bb{index}"
            for arg in block.args:
                if index == 0:
                    values[arg] = self._unique(f"arg{counters[1]}", scope)
                    counters[1] += 1
                else:
                    values[arg] = self._number()
            for op in block.ops:
                if op.results:
                    self._number_op(op, scope)

    def _number_op(self, op: Operation, scope: _Scope) -> None:
        results = op.results
        if not results:
            return
        values = self.values
        starts = [0]
        if not self._generic:
            for index, name in asm_result_names(op):
                values[results[index]] = self._unique(name, scope) if name else self._number()
                if index:
                    starts.append(index)
        head = results[0]
        if head not in values:
            values[head] = self._number()
        count = len(results)
        if count == 1:
            self.results[op] = f"%{values[head]}"
            return
        starts.append(count)
        parts = []
        for start, end in zip(starts, starts[1:]):
            name = values[results[start]]
            if end - start == 1:
                parts.append(f"%{name}")
                continue
            parts.append(f"%{name}:{end - start}")
            for number in range(start, end):
                values[results[number]] = f"{name}#{number - start}"
        self.results[op] = ", ".join(parts)
