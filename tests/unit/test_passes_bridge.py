"""Cluster formation, outlining, alias marking and inlining, driven from Python; and the pass list."""
import os
import re
from pathlib import Path

import pytest

import tinytf.passes
from tinytf import mlir
from tinytf.cli.opt import TinyTFOptMain
from tinytf.errors import InvalidArgumentError, NotFoundError
from tinytf.passes.cluster_function_body import ClusterFunctionBody
from tinytf.passes.cluster_outlining import ClusterOutlining
from tinytf.passes.inline import Inline
from tinytf.passes.mark_input_output_aliases import MarkInputOutputAliases, alias_pairs

FILECHECK = Path(__file__).parents[1] / "filecheck" / "passes"
RES = "tensor<*x!tf_type.resource<tensor<2xf32>>>"

TRAIN = f"""
func.func @step(%x: tensor<2xf32>, %a: {RES}, %b: {RES}) -> tensor<2xf32> {{
  %0 = "tf.ReadVariableOp"(%a) : ({RES}) -> tensor<2xf32>
  %1 = "tf.ReadVariableOp"(%b) : ({RES}) -> tensor<2xf32>
  %2 = "tf.Mul"(%0, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %3 = "tf.AddV2"(%1, %2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "tf.AssignSubVariableOp"(%a, %2) : ({RES}, tensor<2xf32>) -> ()
  "tf.AssignVariableOp"(%b, %3) <{{validate_shape = false}}> : ({RES}, tensor<2xf32>) -> ()
  %4 = "tf.Relu"(%2) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %4 : tensor<2xf32>
}}"""


def apply(module, *passes):
    for p in passes:
        p.apply(mlir.context(), module)
    mlir.verify(module)
    return module


def arg_aliases(fn):
    if fn.arg_attrs is None:
        return [None] * len(fn.function_type.inputs.data)
    return [(d.data.get("tf.aliasing_output").value.data if "tf.aliasing_output" in d.data else None)
            for d in fn.arg_attrs.data]


def test_bridge_pipeline_marks_both_weights():
    module = apply(mlir.parse(TRAIN), ClusterFunctionBody(), ClusterOutlining(), MarkInputOutputAliases())
    step, device = list(module.ops)
    call = next(op for op in step.walk() if op.name == "tf_device.cluster_func")
    assert device.sym_name.data == "_func" and device.sym_visibility.data == "private"
    reads = [op.operands[0] for op in step.walk() if op.name == "tf.ReadVariableOp"]
    assert reads == list(step.body.block.args[1:])            # one read per weight, both hoisted
    # operand i of the call is argument i of the callee: pair each weight's read with its assign
    assigns = {op.operands[0]: op.operands[1] for op in step.walk() if op.name == "tf.AssignVariableOp"}
    expected = []
    for operand in call.operands:
        owner = operand.owner
        if getattr(owner, "name", "") == "tf.ReadVariableOp":
            expected.append(assigns[owner.operands[0]].index)
        else:
            expected.append(None)
    assert arg_aliases(device) == expected
    aliased = [a for a in expected if a is not None]
    returned = step.body.block.last_op.operands[0].index
    assert len(set(aliased)) == 2 and returned not in aliased  # both weights, each its own output


def test_alias_pairs_needs_single_use_and_single_assign():
    module = mlir.parse(f"""
func.func @f(%a: {RES}) {{
  %0 = "tf.ReadVariableOp"(%a) : ({RES}) -> tensor<2xf32>
  %1:2 = "tf_device.cluster_func"(%0) <{{func = @d}}> : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  "tf.AssignVariableOp"(%a, %1#1) <{{validate_shape = false}}> : ({RES}, tensor<2xf32>) -> ()
  func.return
}}
func.func private @d(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {{
  func.return %x, %x : tensor<2xf32>, tensor<2xf32>
}}""")
    call = next(op for op in module.walk() if op.name == "tf_device.cluster_func")
    assert alias_pairs(call) == {0: 1}


def test_existing_conflicting_alias_is_an_error():
    module = mlir.parse(f"""
func.func @f(%a: {RES}) {{
  %0 = "tf.ReadVariableOp"(%a) : ({RES}) -> tensor<2xf32>
  %1 = "tf_device.cluster_func"(%0) <{{func = @d}}> : (tensor<2xf32>) -> tensor<2xf32>
  "tf.AssignVariableOp"(%a, %1) <{{validate_shape = false}}> : ({RES}, tensor<2xf32>) -> ()
  func.return
}}
func.func private @d(%x: tensor<2xf32> {{tf.aliasing_output = 3 : i64}}) -> tensor<2xf32> {{
  func.return %x : tensor<2xf32>
}}""", name="conflict.mlir")
    with pytest.raises(InvalidArgumentError, match=r"^conflict.mlir:4:3: 'tf_device.cluster_func' op argument 0"):
        apply(module, MarkInputOutputAliases())


def test_missing_callee_is_located():
    module = mlir.parse("""
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @nope}> : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}""", name="m.mlir")
    with pytest.raises(NotFoundError, match=r"^m.mlir:3:3: 'tf.PartitionedCall' op callee @nope"):
        apply(module, Inline())


def test_inline_then_outline_round_trip_keeps_computation():
    module = apply(mlir.parse("""
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @sq}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @sq(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Mul"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}"""), Inline(), ClusterFunctionBody(), ClusterOutlining())
    names = [(op.name, getattr(op, "sym_name", None)) for op in module.ops]
    assert [n for n, _ in names] == ["func.func", "func.func"]
    device = list(module.ops)[1]
    body = [op.name for op in device.body.block.ops]
    assert body == ["tf.Mul", "func.return"]


def test_every_pass_is_registered_and_has_its_filecheck_file():
    names = [p.name for p in tinytf.passes.ALL_PASSES]
    assert len(set(names)) == len(names)
    available = TinyTFOptMain(args=[]).available_passes
    for name in names + ["canonicalize", "cse", "dce"]:
        assert name in available
        text = (FILECHECK / f"{name}.mlir").read_text()
        assert re.search(rf"RUN: tinytf-opt %s .*-p '?{re.escape(name)}", text), name
    assert os.path.exists(FILECHECK / "pass-diagnostics.py")
