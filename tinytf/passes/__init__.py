"""Layer 7: IR -> IR rewrites of TF-dialect modules, one pass per file (xDSL ``ModulePass``es).

``ALL_PASSES`` is what ``tinytf-opt`` registers, by each pass's ``name``:

    tinytf-opt train.mlir -p tf-device-cluster-function-body,tf-device-cluster-outlining,tf-device-mark-input-output-aliases

Importing this package also hooks constant folding into xDSL's ``canonicalize`` for tf ops (what
``tt.function`` runs on a traced graph); ``tinytf-opt``'s ``canonicalize`` is ``Canonicalize``:
TensorFlow's folders and canonicalization patterns for every tf op, and MLIR's constant uniquing.
"""
from tinytf.passes.canonicalize import Canonicalize
from tinytf.passes.cluster_formation import ClusterFormation
from tinytf.passes.cluster_function_body import ClusterFunctionBody
from tinytf.passes.cluster_outlining import ClusterOutlining
from tinytf.passes.constant_fold import ConstantFold
from tinytf.passes.decompose_resource_ops import DecomposeResourceOps, DecomposeResourceOpsInCluster
from tinytf.passes.device_canonicalize import DeviceCanonicalization  # hooks tf_device patterns into canonicalize
from tinytf.passes.executor_canonicalize import ExecutorCanonicalization  # hooks tf_executor patterns into canonicalize
from tinytf.passes.executor_graph_pruning import ExecutorGraphPruning
from tinytf.passes.executor_island_coarsening import ExecutorIslandCoarsening
from tinytf.passes.executor_to_functional import ExecutorToFunctional
from tinytf.passes.fold_batch_norm import FoldBatchNorm
from tinytf.passes.functional_to_executor import FunctionalToExecutor
from tinytf.passes.fuse_bias_activation import FuseBiasActivation
from tinytf.passes.inline import Inline
from tinytf.passes.mark_input_output_aliases import MarkInputOutputAliases
from tinytf.passes.merge_variable_reads import MergeVariableReads
from tinytf.passes.shape_inference import ShapeInference
from tinytf.passes.sharding_identification import ShardingIdentification

ALL_PASSES = [
    Canonicalize,
    ClusterFormation,
    ClusterFunctionBody,
    ClusterOutlining,
    ConstantFold,
    DecomposeResourceOps,
    DecomposeResourceOpsInCluster,
    ExecutorGraphPruning,
    ExecutorIslandCoarsening,
    ExecutorToFunctional,
    FoldBatchNorm,
    FunctionalToExecutor,
    FuseBiasActivation,
    Inline,
    MarkInputOutputAliases,
    MergeVariableReads,
    ShapeInference,
    ShardingIdentification,
]

__all__ = ["ALL_PASSES", "Canonicalize", "ClusterFormation", "ClusterFunctionBody", "ClusterOutlining", "ConstantFold",
           "DecomposeResourceOps", "DecomposeResourceOpsInCluster", "FoldBatchNorm", "FuseBiasActivation", "Inline", "MarkInputOutputAliases",
           "MergeVariableReads", "ShapeInference", "ShardingIdentification"]
__all__ += ["DeviceCanonicalization", "ExecutorCanonicalization", "ExecutorGraphPruning", "ExecutorIslandCoarsening", "ExecutorToFunctional",
            "FunctionalToExecutor"]
