"""What TensorFlow 2.21's op definitions (``tf_generated_ops.td``, ``tf_ops.td``) declare about each op,
for the ops tinytf has no class for: which have no side effects, which are commutative, and the traits
TensorFlow's folders and canonicalization patterns key on. Names are without the ``tf.`` prefix.

    "Bitcast" in PURE        # True: an unused tf.Bitcast is dead code
    "Neg" in INVOLUTION      # Neg(Neg(x)) == x

Extracted from the op definitions' trait lists; a tinytf op class's own traits are asked first.
"""
from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Pure: no side effects (dead when unused; foldable).
PURE = _names("""
    Abs Acos Acosh Add AddN AddV2 AdjustContrastv2 AdjustHue AdjustSaturation All AllToAll Angle Any
    ApproxTopK ApproximateEqual ArgMax ArgMin AsString Asin Asinh Atan Atan2 Atanh AvgPool AvgPool3D
    AvgPool3DGrad AvgPoolGrad BatchDatasetV2 BatchFunction BatchMatMul BatchMatMulV2 BatchMatMulV3
    BatchNormWithGlobalNormalization BatchToSpace BatchToSpaceND BesselI0e BesselI1e Betainc BiasAdd
    BiasAddGrad BiasAddV1 Bincount Bitcast BitwiseAnd BitwiseOr BitwiseXor BoostedTreesBucketize
    BroadcastArgs BroadcastGradientArgs BroadcastTo Bucketize Cast Ceil Cholesky ClipByValue
    CollectiveAssignGroupV2 Complex ComplexAbs Concat ConcatOffset ConcatV2 Conj ConjugateTranspose
    Const Conv Conv2D Conv2DBackpropFilter Conv2DBackpropFilterV2 Conv2DBackpropInput
    Conv2DBackpropInputV2 Conv3D Conv3DBackpropFilter Conv3DBackpropFilterV2 Conv3DBackpropInput
    Conv3DBackpropInputV2 ConvertToCooTensor ConvertToListOfSparseCoreCooTensors
    ConvertToSparseCoreCsrWrappedCooTensorOp Cos Cosh Cross CrossReplicaSum Cumprod Cumsum
    CumulativeLogsumexp DataFormatDimMap DataFormatVecPermute DecodeAndCropJpeg DecodeGif DecodeJpeg
    DecodePaddedRaw DecodePng DepthToSpace DepthwiseConv2dNative DepthwiseConv2dNativeBackpropFilter
    DepthwiseConv2dNativeBackpropInput Dequantize DeserializeSparse DeviceIndex Diag DiagPart
    Digamma Div DivNoNan DynamicPartition DynamicStitch Einsum Elu EluGrad EncodePng EnsureShape
    Equal Erf Erfc Erfinv Exp ExpandDims Expm1 ExtractImagePatches FFT FFT2D FFT3D FakeParam
    FakeQuantWithMinMaxArgs FakeQuantWithMinMaxArgsGradient FakeQuantWithMinMaxVars
    FakeQuantWithMinMaxVarsGradient FakeQuantWithMinMaxVarsPerChannel
    FakeQuantWithMinMaxVarsPerChannelGradient Fill FinalizeDataset FlatMapDataset Floor FloorDiv
    FloorMod FusedBatchNorm FusedBatchNormGrad FusedBatchNormGradV2 FusedBatchNormGradV3
    FusedBatchNormV2 FusedBatchNormV3 FusedConv2DBiasActivation Gather GatherNd GatherV2
    GetMinibatchSplitsWithPhysicalReplica GetMinibatchesInCsrWithPhysicalReplica
    GetStatsFromListOfSparseCoreCooTensors Greater GreaterEqual HSVToRGB IFFT IFFT2D IFFT3D IRFFT
    IRFFT2D IRFFT3D Identity IdentityN Igamma IgammaGradA Igammac Imag InTopKV2 InplaceAdd
    InplaceUpdate Inv Invert InvertPermutation IsFinite IsInf IsNan KthOrderStatistic L2Loss LRN
    LRNGrad LeakyRelu LeakyReluGrad LeftShift LegacyCall Less LessEqual Lgamma LinSpace ListDiff Log
    Log1p LogSoftmax LogicalAnd LogicalNot LogicalOr LowerBound MakeUnique MapAndBatchDataset
    MapDataset MatMul MatrixBandPart MatrixDiag MatrixDiagPartV3 MatrixDiagV2 MatrixDiagV3
    MatrixInverse MatrixSetDiag MatrixSetDiagV2 MatrixSetDiagV3 MatrixSolve MatrixTriangularSolve
    Max MaxPool MaxPool3D MaxPool3DGrad MaxPool3DGradGrad MaxPoolGrad MaxPoolGradGrad
    MaxPoolGradGradV2 MaxPoolGradV2 MaxPoolV2 Maximum Mean MergeSummary Min Minimum MirrorPad
    MirrorPadGrad MlirPassthroughOp Mod ModelDataset Mul MulNoNan Ndtri Neg NextAfter NoOp
    NonMaxSuppressionV3 NonMaxSuppressionV4 NonMaxSuppressionV5 NotEqual OneHot OnesLike
    OptimizeDatasetV2 OptionalFromValue OptionalGetValue OptionalHasValue OptionalNone Pack Pad
    PadV2 ParallelDynamicStitch ParallelMapDataset ParallelMapDatasetV2 ParseExample ParseExampleV2
    PartitionedCall Placeholder PlaceholderWithDefault Polygamma PopulationCount Pow PrefetchDataset
    PreventGradient Prod Qr QuantizeAndDequantize QuantizeAndDequantizeV2 QuantizeAndDequantizeV3
    QuantizeAndDequantizeV4 QuantizeV2 RFFT RFFT2D RFFT3D RGBToHSV RaggedGather RaggedRange
    RandomGammaGrad Range RangeDataset Rank ReadFile Real RealDiv Reciprocal ReciprocalGrad
    ReduceJoin Relu Relu6 Relu6Grad ReluGrad RepeatDataset Reshape ResizeBilinear ResizeBilinearGrad
    ResizeNearestNeighbor ResizeNearestNeighborGrad Reverse ReverseSequence ReverseV2 RightShift
    Rint RiscAdd RiscDot Roll Round Rsqrt RsqrtGrad ScatterNd SegmentMax SegmentMaxV2 SegmentMean
    SegmentMin SegmentMinV2 SegmentProd SegmentProdV2 SegmentSum SegmentSumV2 Select SelectV2
    SelfAdjointEigV2 Selu SeluGrad SerializeSparse Shape ShapeN ShardedFilename Sigmoid SigmoidGrad
    Sign Sin Sinh Size Slice Snapshot Softmax SoftmaxCrossEntropyWithLogits Softplus SoftplusGrad
    Softsign SoftsignGrad SortListOfSparseCoreCooTensors SpaceToBatch SpaceToBatchND SpaceToDepth
    SparseAdd SparseFillEmptyRows SparseMatMul SparseReduceSum SparseReshape SparseSegmentMean
    SparseSegmentMeanGrad SparseSegmentMeanWithNumSegments SparseSegmentSqrtN SparseSegmentSqrtNGrad
    SparseSegmentSqrtNWithNumSegments SparseSegmentSum SparseSoftmaxCrossEntropyWithLogits
    SparseTensorDenseMatMul SparseToDense Split SplitV Sqrt SqrtGrad Square SquaredDifference
    Squeeze StatelessMultinomial StatelessParameterizedTruncatedNormal StatelessRandomBinomial
    StatelessRandomGammaV2 StatelessRandomGetKeyCounter StatelessRandomGetKeyCounterAlg
    StatelessRandomNormal StatelessRandomNormalV2 StatelessRandomPoisson StatelessRandomUniform
    StatelessRandomUniformFullInt StatelessRandomUniformFullIntV2 StatelessRandomUniformInt
    StatelessRandomUniformIntV2 StatelessRandomUniformV2 StatelessTruncatedNormal
    StatelessTruncatedNormalV2 StaticRegexFullMatch StopGradient StoreMinibatchStatisticsInFdo
    StridedSlice StridedSliceGrad StringFormat StringJoin StringStrip StringToHashBucketFast Sub Sum
    Svd SymbolicGradient TPUAnnotateTensorsWithDynamicShape TPUCopyWithDynamicShape
    TPUCopyWithLayout TPUDummyInput TPUEmbeddingActivations TPUGetLayoutOp TPUPartitionedInput
    TPUPartitionedInputV2 TPUPartitionedOutput TPUPartitionedOutputV2 TPUReplicatedInput
    TPUReplicatedOutput TakeDataset TakeWhileDataset Tan Tanh TanhGrad TensorListConcatV2
    TensorListElementShape TensorListFromTensor TensorListGather TensorListGetItem TensorListLength
    TensorListPopBack TensorListPushBack TensorListResize TensorListScatterIntoExistingList
    TensorListSetItem TensorListStack TensorScatterAdd TensorScatterMax TensorScatterMin
    TensorScatterSub TensorScatterUpdate TensorSliceDataset TensorStridedSliceUpdate Tile ToBool
    TopKUnique TopKV2 TopKWithUnique Transpose TridiagonalMatMul TridiagonalSolve TruncateDiv
    TruncateMod UncompressElement UniformDequantize UniformQuantize UniformQuantizedAdd
    UniformQuantizedClipByValue UniformQuantizedConvolution UniformQuantizedConvolutionHybrid
    UniformQuantizedDot UniformQuantizedDotHybrid UniformRequantize Unique UniqueV2 Unpack
    UnsortedSegmentMax UnsortedSegmentMin UnsortedSegmentProd UnsortedSegmentSum UpperBound Where
    Xdivy XlaAllReduce XlaBroadcastHelper XlaClusterOutput XlaConcatND XlaConv XlaConvV2
    XlaCustomCallV2 XlaDot XlaDotV2 XlaDynamicSlice XlaDynamicUpdateSlice XlaEinsum XlaGather
    XlaKeyValueSort XlaLaunchV2 XlaLocalSparseDenseMatmul XlaOptimizationBarrier XlaPad XlaReduce
    XlaReducePrecision XlaReduceScatter XlaReduceWindow XlaRemoveDynamicDimensionSize XlaReplicaId
    XlaRngBitGenerator XlaScatter XlaSelectAndScatter XlaSelfAdjointEig XlaSetBound
    XlaSetDynamicDimensionSize XlaSharding XlaSort XlaSparseActivationsUnstack
    XlaSparseDenseMatmulCustomCombinerOnTcGradWithAdagradAndCsrInput
    XlaSparseDenseMatmulCustomCombinerOnTcGradWithAdagradMomentumAndCsrInput
    XlaSparseDenseMatmulCustomCombinerOnTcGradWithAdamAndCsrInput
    XlaSparseDenseMatmulCustomCombinerOnTcGradWithCsrInput
    XlaSparseDenseMatmulCustomCombinerOnTcGradWithFtrlAndCsrInput
    XlaSparseDenseMatmulCustomCombinerOnTcGradWithSgdAndCsrInput
    XlaSparseDenseMatmulCustomCombinerOnTcWithCsrInput XlaSparseDenseMatmulGradWithCsrInput
    XlaSparseDenseMatmulGradWithSgdAndCsrInput XlaSparseDenseMatmulGradWithSgdAndStaticBufferSize
    XlaSparseDenseMatmulWithCsrInput XlaSparseDenseMatmulWithStaticBufferSize
    XlaSparseGradientsStack XlaSplitND XlaSpmdFullToShardShape XlaSpmdShardToFullShape XlaSvd
    XlaVariadicReduce XlaVariadicReduceV2 XlaVariadicSort Xlog1py Xlogy Yield ZerosLike Zeta
    _ArrayToList _EagerConst _FusedBatchNormEx _FusedConv2D _FusedMatMul _ListToArray
    _TPUDeviceOrdinalPlaceholder _UnaryOpsComposition
""")


# Commutative: canonicalize moves constant operands last.
COMMUTATIVE = _names("""
    AddN AddV2 ApproximateEqual BitwiseAnd BitwiseOr BitwiseXor Equal LogicalAnd LogicalOr Mul
    NotEqual RiscAdd SquaredDifference
""")


# TF_Involution: f(f(x)) == x.
INVOLUTION = _names("""
    Conj Invert LogicalNot Neg Reciprocal
""")


# TF_Idempotent: f(f(x)) == f(x).
IDEMPOTENT = _names("""
    Abs Ceil Floor OnesLike Relu Relu6 Rint Round Sign ZerosLike
""")


# TF_CwiseUnary: hoisted out of ConcatV2 / Unpack.
CWISE_UNARY = _names("""
    Log1p Neg
""")


# TF_CwiseBinary: hoisted out of ConcatV2.
CWISE_BINARY = _names("""
    AddV2 Mul RealDiv Sub
""")


# ResultsBroadcastableShape: a unit-dim Tile before them may be dropped.
BROADCASTABLE = _names("""
    Add AddV2 Atan2 BitwiseAnd BitwiseOr BitwiseXor Complex Div DivNoNan FloorDiv FloorMod Greater
    GreaterEqual Igamma IgammaGradA Igammac LeftShift Less LessEqual LogicalAnd LogicalOr Maximum
    Minimum Mod Mul MulNoNan NextAfter Polygamma Pow RandomGammaGrad RealDiv RightShift SelectV2
    SquaredDifference Sub TruncateDiv TruncateMod Xdivy Xlogy Zeta
""")


# TF_NoConstantFold: the constant-folding hook leaves them alone.
NO_CONSTANT_FOLD = _names("""
    AllToAll CheckNumerics CollectiveAssignGroupV2 CrossReplicaSum DeviceIndex FakeParam Identity
    RangeDataset ReadFile StatelessMultinomial StatelessParameterizedTruncatedNormal
    StatelessRandomBinomial StatelessRandomGammaV2 StatelessRandomGetKeyCounter
    StatelessRandomGetKeyCounterAlg StatelessRandomNormal StatelessRandomPoisson
    StatelessRandomUniform StatelessRandomUniformFullInt StatelessRandomUniformInt
    StatelessTruncatedNormal TPUDummyInput TensorSliceDataset XlaAllReduce XlaBroadcastHelper
    XlaClusterOutput XlaConv XlaConvV2 XlaDot XlaDotV2 XlaDynamicSlice XlaDynamicUpdateSlice
    XlaEinsum XlaGather XlaKeyValueSort XlaPad XlaReplicaId XlaSetDynamicDimensionSize XlaSharding
""")


# TF_SameOperandsAndResultTypeResolveRef: the result type is the operand type.
SAME_OPERANDS_AND_RESULT_TYPE = _names("""
    Abs Acos Acosh Asin Asinh Atan Atanh BesselI0e BesselI1e Ceil CheckNumerics CollectiveReduce
    Conj Cos Cosh Cross DataFormatDimMap DataFormatVecPermute Digamma Elu EluGrad Erf Erfc Exp Expm1
    FakeQuantWithMinMaxArgs FakeQuantWithMinMaxArgsGradient Floor Inv Invert LeakyRelu LeakyReluGrad
    Lgamma Log Log1p LogSoftmax LogicalNot MergeSummary NcclAllReduce Neg OnesLike PreventGradient
    QuantizeAndDequantize RandomShuffle Reciprocal ReciprocalGrad Relu Relu6 Relu6Grad ReluGrad Rint
    Round Rsqrt RsqrtGrad Selu SeluGrad Sigmoid SigmoidGrad Sign Sin Sinh Snapshot Softmax Softplus
    SoftplusGrad Softsign SoftsignGrad Sqrt SqrtGrad Square StringStrip Tan Tanh TanhGrad ZerosLike
    _UnaryOpsComposition
""")


# Ops whose only effects are reading a resource or allocating their own result: dead when unused,
# as MLIR's isOpTriviallyDead says.
READ_ONLY = frozenset({"ReadVariableOp", "VarIsInitializedOp", "VariableShape", "LookupTableSizeV2", "LookupTableFindV2",
                       "VarHandleOp", "HashTable", "HashTableV2"})
