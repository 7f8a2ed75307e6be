"""Layer 7: IR -> IR rewrites of TF-dialect modules, one pass per file (xDSL ``ModulePass``es).

``ALL_PASSES`` is what ``tinytf-opt`` registers, by each pass's ``name``:

    tinytf-opt train.mlir -p tf-device-cluster-formation,tf-device-cluster-outlining,tf-device-mark-input-output-aliases

Importing this package also hooks constant folding into xDSL's ``canonicalize`` for tf ops.
"""
from tinytf.passes.cluster_formation import ClusterFormation
from tinytf.passes.cluster_outlining import ClusterOutlining
from tinytf.passes.constant_fold import ConstantFold
from tinytf.passes.inline import Inline
from tinytf.passes.mark_input_output_aliases import MarkInputOutputAliases
from tinytf.passes.merge_variable_reads import MergeVariableReads
from tinytf.passes.shape_inference import ShapeInference

ALL_PASSES = [
    ClusterFormation,
    ClusterOutlining,
    ConstantFold,
    Inline,
    MarkInputOutputAliases,
    MergeVariableReads,
    ShapeInference,
]

__all__ = ["ALL_PASSES", "ClusterFormation", "ClusterOutlining", "ConstantFold", "Inline", "MarkInputOutputAliases",
           "MergeVariableReads", "ShapeInference"]
