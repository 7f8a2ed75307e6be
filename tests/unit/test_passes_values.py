"""The passes keep what a program computes: TensorFlow's train_step export, run by the graph
executor before and after them, against the values TensorFlow computed (fixture .npz)."""
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.transforms.canonicalize import CanonicalizePass

import tinytf as tt
import tinytf.passes  # noqa: F401  (hooks tf constant folding into canonicalize)
from tinytf import mlir
from tinytf.loaded_module import LoadedModule
from tinytf.ops.functional import StatefulPartitionedCall
from tinytf.ops.tf_device import ClusterFuncOp
from tinytf.passes import ClusterFunctionBody, ClusterOutlining, Inline, MarkInputOutputAliases, ShapeInference

FIXTURES = Path(__file__).parents[1] / "conformance" / "fixtures"


def cluster_funcs_as_calls(module):
    """Run each outlined cluster as a plain call of its function (the executor has no devices)."""
    for op in [op for op in module.walk() if isinstance(op, ClusterFuncOp)]:
        props = StatefulPartitionedCall.attrs_to_properties({"config": "", "config_proto": "", "executor_type": ""})
        call = StatefulPartitionedCall.build(operands=[list(op.operands)], result_types=[[r.type for r in op.results]],
                                             properties={**props, "f": SymbolRefAttr(op.callee)})
        op.parent_block().insert_op_before(call, op)
        for old, new in zip(op.results, call.results):
            old.replace_all_uses_with(new)
        op.detach()
        op.erase()


PIPELINES = {
    "canonicalize,tf-shape-inference,tf-inline": [CanonicalizePass(), ShapeInference(), Inline()],
    "bridge": [ClusterFunctionBody(), ClusterOutlining(), MarkInputOutputAliases(), CanonicalizePass(), ShapeInference()],
}


@pytest.mark.parametrize("pipeline", list(PIPELINES))
def test_train_step_values_survive(pipeline):
    ref = np.load(FIXTURES / "train_step.npz")
    module = mlir.parse(FIXTURES / "train_step.mlir")
    for p in PIPELINES[pipeline]:
        p.apply(mlir.context(), module)
    mlir.verify(module)
    if pipeline == "bridge":
        assert any(isinstance(op, ClusterFuncOp) for op in module.walk())
        cluster_funcs_as_calls(module)
    w, b = tt.Variable(ref["arg2"].copy()), tt.Variable(ref["arg3"].copy())
    (loss,) = LoadedModule(module).run(ref["arg0"], ref["arg1"], w, b)
    np.testing.assert_allclose(loss, ref["out0"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.numpy(), ref["var0_after"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), ref["var1_after"], rtol=1e-5, atol=1e-6)


def test_dequantize_matmul_values_and_int8_weight_survive_folding():
    ref = np.load(FIXTURES / "dequantize_matmul.npz")
    module = mlir.parse(FIXTURES / "dequantize_matmul.mlir")
    for p in [CanonicalizePass(), ShapeInference(), tinytf.passes.ConstantFold()]:
        p.apply(mlir.context(), module)
    consts = [op for op in module.walk() if op.name == "tf.Const"]
    assert any(c.attr_values()["value"].dtype == np.int8 for c in consts)  # the weight stays int8
    (out,) = LoadedModule(module).run(ref["arg0"])
    np.testing.assert_allclose(out, ref["out0"], rtol=1e-5, atol=1e-5)
