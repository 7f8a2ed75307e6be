"""How TensorFlow types the arguments of the ops whose OpDef is not all ``T`` (``op_defs.py`` reads it).

    ARGS["ConcatV2"]        # "axis:Tidx": the op class's field ``axis`` is typed by the attribute Tidx
    SIGNATURES["Atan2"]     # "y:T x:T -> z:T": the whole argument list, for fields not named as TensorFlow's
    EXTRA["SaveV2"]         # the OpDef of an op the exporter writes that is no tinytf op

By default every argument of an op is typed by the attribute ``T`` (a variadic one ``N * T``). A new
op whose arguments differ needs its line here; ``make interop``'s first check compares every op with
TensorFlow's registry and names the ones that differ.
"""
from __future__ import annotations

# Arguments typed otherwise than by ``T``: ``name:TYPE`` with TYPE a dtype (``bool``, ``int32``,
# ``resource``, ...), a type attribute (``Tidx``), ``COUNT*TYPE`` (a count attribute) or ``TYPES[]``
# (a type-list attribute). Names are the op class's operand and result fields.
_REDUCTION = "reduction_indices:Tidx"
_COMPARISON = "z:bool"
_STATELESS_V1 = "shape:T seed:Tseed output:dtype"
_STATELESS_V2 = "shape:Tshape key:uint64 counter:uint64 alg:int32 output:dtype"
_UNSORTED_SEGMENT = "segment_ids:Tindices num_segments:Tnumsegments"
ARGS = {
    "All": "input:bool reduction_indices:Tidx output:bool",
    "Angle": "output:Tout", "Complex": "out:Tout", "Imag": "output:Tout", "Real": "output:Tout",
    "Any": "input:bool reduction_indices:Tidx output:bool",
    "ArgMax": "dimension:Tidx output:output_type",
    "ArgMin": "dimension:Tidx output:output_type",
    "AssignAddVariableOp": "resource:resource value:dtype",
    "AssignSubVariableOp": "resource:resource value:dtype",
    "AssignVariableOp": "resource:resource value:dtype",
    "Assert": "condition:bool data:T[]",
    "AvgPoolGrad": "orig_input_shape:int32",
    "BroadcastTo": "shape:Tidx",
    "Case": "branch_index:int32 input:Tin[] output:Tout[]",
    "Cast": "x:SrcT y:DstT",
    "ConcatOffset": "concat_dim:int32 shape:N*shape_type offset:N*shape_type",
    "ConcatV2": "axis:Tidx",
    "ConjugateTranspose": "perm:Tperm",
    "Const": "output:dtype",
    "Conv2DBackpropFilter": "filter_sizes:int32",
    "Conv2DBackpropInput": "input_sizes:int32",
    "Cumsum": "axis:Tidx", "Cumprod": "axis:Tidx", "CumulativeLogsumexp": "axis:Tidx",
    "DepthwiseConv2dNativeBackpropFilter": "filter_sizes:int32",
    "DepthwiseConv2dNativeBackpropInput": "input_sizes:int32",
    "Eig": "e:Tout v:Tout",
    **dict.fromkeys(("FFT", "FFT2D", "FFT3D", "IFFT", "IFFT2D", "IFFT3D"), "input:Tcomplex output:Tcomplex"),
    "EmptyTensorList": "element_shape:shape_type max_num_elements:int32 handle:variant",
    "Equal": _COMPARISON, "NotEqual": _COMPARISON, "Greater": _COMPARISON, "GreaterEqual": _COMPARISON,
    "Less": _COMPARISON, "LessEqual": _COMPARISON,
    "ExpandDims": "dim:Tdim",
    "Fill": "dims:index_type",
    "GatherV2": "params:Tparams indices:Tindices axis:Taxis output:Tparams",
    "IdentityN": "input:T[] output:T[]",
    "If": "cond:Tcond input:Tin[] output:Tout[]",
    "InTopKV2": "predictions:float32 precision:bool",
    "IsFinite": "y:bool", "IsNan": "y:bool", "IsInf": "y:bool",
    "LogicalAnd": "x:bool y:bool z:bool", "LogicalOr": "x:bool y:bool z:bool", "LogicalNot": "x:bool y:bool",
    "LowerBound": "output:out_type", "UpperBound": "output:out_type",
    "Lu": "p:output_idx_type",
    "MatrixBandPart": "num_lower:Tindex num_upper:Tindex",
    "MatrixDiagPartV3": "k:int32", "MatrixDiagV3": "k:int32 num_rows:int32 num_cols:int32", "MatrixSetDiagV3": "k:int32",
    "Max": _REDUCTION, "Mean": _REDUCTION, "Min": _REDUCTION, "Prod": _REDUCTION, "Sum": _REDUCTION,
    "MirrorPad": "paddings:Tpaddings", "MirrorPadGrad": "paddings:Tpaddings",
    "Multinomial": "num_samples:int32 output:output_dtype",
    "OneHot": "indices:TI depth:int32",
    "Pad": "paddings:Tpaddings", "PadV2": "paddings:Tpaddings",
    "PartitionedCall": "args:Tin[] output:Tout[]",
    "PlaceholderWithDefault": "input:dtype output:dtype",
    "PopulationCount": "y:uint8",
    "RandomStandardNormal": "output:dtype", "RandomUniform": "output:dtype", "TruncatedNormal": "output:dtype",
    "RandomUniformInt": "minval:Tout maxval:Tout output:Tout",
    "Range": "start:Tidx limit:Tidx delta:Tidx output:Tidx",
    "Rank": "output:int32",
    "ReadVariableOp": "resource:resource value:dtype",
    "Reshape": "shape:Tshape",
    "ResourceApplyAdam": "var:resource m:resource v:resource",
    "ResourceApplyGradientDescent": "var:resource",
    "ResourceApplyMomentum": "var:resource accum:resource",
    "ReverseV2": "axis:Tidx",
    "RngReadAndSkip": "resource:resource alg:int32 delta:uint64 value:int64",
    "Select": "condition:bool", "SelectV2": "condition:bool",
    "Shape": "output:out_type", "Size": "output:out_type", "ShapeN": "output:N*out_type",
    "Slice": "begin:Index size:Index",
    "SparseSoftmaxCrossEntropyWithLogits": "labels:Tlabels",
    "Split": "split_dim:int32 output:num_split*T",
    "SplitV": "size_splits:Tlen split_dim:int32 output:num_split*T",
    "StatefulPartitionedCall": "args:Tin[] output:Tout[]",
    "StatelessCase": "branch_index:int32 input:Tin[] output:Tout[]",
    "StatelessIf": "cond:Tcond input:Tin[] output:Tout[]",
    "StatelessMultinomial": "num_samples:int32 seed:Tseed output:output_dtype",
    "StatelessRandomGetKeyCounter": "seed:Tseed key:uint64 counter:uint64",
    "StatelessRandomGetKeyCounterAlg": "seed:Tseed key:uint64 counter:uint64 alg:int32",
    "StatelessRandomNormal": _STATELESS_V1, "StatelessRandomUniform": _STATELESS_V1,
    "StatelessRandomUniformFullInt": _STATELESS_V1, "StatelessTruncatedNormal": _STATELESS_V1,
    "StatelessRandomNormalV2": _STATELESS_V2, "StatelessRandomUniformV2": _STATELESS_V2,
    "StatelessRandomUniformFullIntV2": _STATELESS_V2, "StatelessTruncatedNormalV2": _STATELESS_V2,
    "StatelessRandomUniformInt": "shape:T seed:Tseed minval:dtype maxval:dtype output:dtype",
    "StatelessRandomUniformIntV2": _STATELESS_V2 + " minval:dtype maxval:dtype",
    "StatelessWhile": "input:T[] output:T[]", "While": "input:T[] output:T[]",
    "StridedSlice": "begin:Index end:Index strides:Index",
    "StridedSliceGrad": "shape:Index begin:Index end:Index strides:Index",
    "TensorListConcat": "input_handle:variant tensor:element_dtype lengths:int64",
    "TensorListConcatV2": "input_handle:variant element_shape:shape_type leading_dims:int64 tensor:element_dtype "
                          "lengths:int64",
    "TensorListElementShape": "input_handle:variant element_shape:shape_type",
    "TensorListFromTensor": "tensor:element_dtype element_shape:shape_type output_handle:variant",
    "TensorListGather": "input_handle:variant indices:int32 element_shape:int32 values:element_dtype",
    "TensorListGetItem": "input_handle:variant index:int32 element_shape:Tshape item:element_dtype",
    "TensorListLength": "input_handle:variant length:int32",
    "TensorListPopBack": "input_handle:variant element_shape:int32 output_handle:variant tensor:element_dtype",
    "TensorListPushBack": "input_handle:variant tensor:element_dtype output_handle:variant",
    "TensorListReserve": "element_shape:shape_type num_elements:int32 handle:variant",
    "TensorListResize": "input_handle:variant size:int32 output_handle:variant",
    "TensorListScatter": "tensor:element_dtype indices:int32 element_shape:shape_type output_handle:variant",
    "TensorListScatterIntoExistingList": "input_handle:variant tensor:element_dtype indices:int32 "
                                         "output_handle:variant",
    "TensorListScatterV2": "tensor:element_dtype indices:int32 element_shape:shape_type num_elements:int32 "
                           "output_handle:variant",
    "TensorListSetItem": "input_handle:variant index:int32 item:element_dtype output_handle:variant",
    "TensorListSplit": "tensor:element_dtype element_shape:shape_type lengths:int64 output_handle:variant",
    "TensorListStack": "input_handle:variant element_shape:int32 tensor:element_dtype",
    "TensorScatterUpdate": "indices:Tindices",
    "Tile": "multiples:Tmultiples",
    "TopKV2": "k:Tk indices:index_type",
    "Transpose": "perm:Tperm",
    "Unique": "idx:out_idx", "UniqueWithCounts": "idx:out_idx count:out_idx",
    "Unpack": "output:num*T",
    "UnsortedSegmentSum": _UNSORTED_SEGMENT, "UnsortedSegmentMax": _UNSORTED_SEGMENT,
    "UnsortedSegmentMin": _UNSORTED_SEGMENT, "UnsortedSegmentProd": _UNSORTED_SEGMENT,
    "SegmentSum": "segment_ids:Tindices", "SegmentMax": "segment_ids:Tindices", "SegmentMean": "segment_ids:Tindices",
    "SegmentMin": "segment_ids:Tindices", "SegmentProd": "segment_ids:Tindices",
    "VarHandleOp": "resource:resource",
    "VariableShape": "input:resource output:out_type",
    "VariableV2": "ref:dtype",
    "Where": "index:int64",
    "XlaAllReduce": "group_assignment:int32",
}

# Ops whose fields are not TensorFlow's argument list: the whole list, matched to the flat operands
# and results in order (``inputs -> outputs``). (Atan2 ... Zeta: tinytf's fields are x, y -> z.)
# ParseExample's one variadic operand is TensorFlow's sparse_keys, dense_keys and dense_defaults back to back; its results are the dense values (tinytf
# parses dense features only: the sparse and ragged output lists are empty).
SIGNATURES = {
    "Atan2": "y:T x:T -> z:T",
    "ComplexAbs": "x:T -> y:Tout",
    "Conj": "input:T -> output:T",
    "Igamma": "a:T x:T -> z:T", "IgammaGradA": "a:T x:T -> z:T", "Igammac": "a:T x:T -> z:T",
    "NextAfter": "x1:T x2:T -> output:T",
    "Polygamma": "a:T x:T -> z:T",
    "Zeta": "x:T q:T -> z:T",
    "DynamicStitch": "indices:N*int32 data:N*T -> merged:T",  # (one variadic operand: the indices, then the data)
    "ParseExample": "serialized:string names:string sparse_keys:Nsparse*string dense_keys:Ndense*string "
                    "dense_defaults:Tdense[] -> sparse_indices:Nsparse*int64 sparse_values:sparse_types[] "
                    "sparse_shapes:Nsparse*int64 dense_values:Tdense[]",
    "ParseExampleV2": "serialized:string names:string sparse_keys:string dense_keys:string ragged_keys:string "
                      "dense_defaults:Tdense[] -> sparse_indices:num_sparse*int64 sparse_values:sparse_types[] "
                      "sparse_shapes:num_sparse*int64 dense_values:Tdense[] ragged_values:ragged_value_types[] "
                      "ragged_row_splits:ragged_split_types[]",
}

# Ops the exporter writes that are not tinytf ops (a SavedModel's graph): their whole OpDef.
EXTRA = {
    "Placeholder": ("-> output:dtype", [("dtype", "type", None), ("shape", "shape", "unknown")], False),
    "NoOp": ("->", [], False),
    "RestoreV2": ("prefix:string tensor_names:string shape_and_slices:string -> tensors:dtypes[]",
                  [("dtypes", "list(type)", None)], True),
    "SaveV2": ("prefix:string tensor_names:string shape_and_slices:string tensors:dtypes[] ->",
               [("dtypes", "list(type)", None)], True),
}
