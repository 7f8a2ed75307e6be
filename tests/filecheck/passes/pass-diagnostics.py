# RUN: %python %s | filecheck %s
"""Malformed input to tinytf's passes: tinytf-opt prints one located line on stderr and exits 1
(never a Python traceback)."""
import os
import subprocess
import tempfile

RES = "tensor<*x!tf_type.resource<tensor<f32>>>"
CASES = {
    # TensorFlow's verifier (VerifyPartitionedCall) rejects a missing callee as the file is read, before any pass.
    # CHECK-LABEL: missing_partitioned_callee tf-inline
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/missing_partitioned_callee.mlir:2:3: 'tf.PartitionedCall' op 'f' attribute refers to an undefined function: @missing
    "missing_partitioned_callee": ("tf-inline", """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @missing}> : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}"""),
    # A composite resource op with the wrong operand count is refused by name, not half decomposed.
    # CHECK-LABEL: decompose_wrong_arity tf-device-decompose-resource-ops
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/decompose_wrong_arity.mlir:2:3: 'tf.ResourceApplyRMSProp' op expects 8 operands, got 2
    "decompose_wrong_arity": ("tf-device-decompose-resource-ops", f"""func.func @main(%v: {RES}, %a: tensor<f32>) {{
  "tf.ResourceApplyRMSProp"(%v, %a) : ({RES}, tensor<f32>) -> ()
  func.return
}}"""),
    # CHECK-LABEL: missing_call_in_shape_inference tf-shape-inference
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/missing_call_in_shape_inference.mlir:2:3: 'tf.StatefulPartitionedCall' op 'f' attribute refers to an undefined function: @gone
    "missing_call_in_shape_inference": ("tf-shape-inference", """func.func @main(%x: tensor<f32>) -> tensor<*xf32> {
  %0 = "tf.StatefulPartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @gone}> : (tensor<f32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}"""),
    # CHECK-LABEL: missing_cluster_func_callee tf-device-mark-input-output-aliases
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/missing_cluster_func_callee.mlir:3:3: 'tf_device.cluster_func' op 'func' attribute refers to an undefined function: device
    "missing_cluster_func_callee": ("tf-device-mark-input-output-aliases", f"""func.func @main(%v: {RES}) {{
  %0 = "tf.ReadVariableOp"(%v) : ({RES}) -> tensor<f32>
  %1 = "tf_device.cluster_func"(%0) <{{func = @device}}> : (tensor<f32>) -> tensor<f32>
  "tf.AssignVariableOp"(%v, %1) <{{validate_shape = false}}> : ({RES}, tensor<f32>) -> ()
  func.return
}}"""),
    # CHECK-LABEL: cluster_func_arity tf-device-mark-input-output-aliases
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/cluster_func_arity.mlir:2:3: 'tf_device.cluster_func' op passes 1 operands to @device, which takes 2
    "cluster_func_arity": ("tf-device-mark-input-output-aliases", """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf_device.cluster_func"(%x) <{func = @device}> : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}
func.func private @device(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  func.return %a : tensor<f32>
}"""),
    # CHECK-LABEL: callee_attribute_not_a_symbol tf-inline
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/callee_attribute_not_a_symbol.mlir:2:3: 'tf.PartitionedCall' op {{.*}}'f': expected a func attribute, got "callee"
    "callee_attribute_not_a_symbol": ("tf-inline", """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = "callee"}> : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}"""),
    # CHECK-LABEL: const_value_not_a_tensor tf-constant-fold
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/const_value_not_a_tensor.mlir:2:3: 'tf.Const' op {{.*}}'value': expected a tensor attribute, got 1 : i32
    "const_value_not_a_tensor": ("tf-constant-fold", """func.func @main() -> tensor<i32> {
  %0 = "tf.Const"() <{value = 1 : i32}> : () -> tensor<i32>
  func.return %0 : tensor<i32>
}"""),
    # CHECK-LABEL: cluster_return_types tf-device-cluster-outlining
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/cluster_return_types.mlir:2:3: 'tf_device.cluster' op tf_device.return types do not match the cluster's result types
    "cluster_return_types": ("tf-device-cluster-outlining", """func.func @main(%x: tensor<f32>) -> tensor<2xf32> {
  %0 = "tf_device.cluster"() ({
    "tf_device.return"(%x) : (tensor<f32>) -> ()
  }) : () -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}"""),
    # CHECK-LABEL: input_shapes_count tf-shape-inference{input-shapes="2:3"}
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/input_shapes_count.mlir:1:1: 'func.func' op input-shapes gives 2 shapes for @main, which has 1 arguments
    "input_shapes_count": ('tf-shape-inference{input-shapes="2:3"}', """func.func @main(%x: tensor<*xf32>) -> tensor<*xf32> {
  func.return %x : tensor<*xf32>
}"""),
    # CHECK-LABEL: input_shapes_conflict tf-shape-inference{input-shapes="3"}
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  DIR/input_shapes_conflict.mlir:1:1: 'func.func' op input-shapes: argument 0 of type tensor<2xf32> cannot have shape 3
    "input_shapes_conflict": ('tf-shape-inference{input-shapes="3"}', """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  func.return %x : tensor<2xf32>
}"""),
    # CHECK-LABEL: input_shapes_syntax tf-shape-inference{input-shapes="2,x"}
    # CHECK-NEXT:  rc=1 lines=1
    # CHECK-NEXT:  tinytf-opt: error: tf-shape-inference: bad dim 'x' in input-shapes '2,x'
    "input_shapes_syntax": ('tf-shape-inference{input-shapes="2,x"}', """func.func @main(%x: tensor<*xf32>) -> tensor<*xf32> {
  func.return %x : tensor<*xf32>
}"""),
}

with tempfile.TemporaryDirectory() as tmp:
    for name, (pipeline, text) in CASES.items():
        path = os.path.join(tmp, f"{name}.mlir")
        with open(path, "w") as f:
            f.write(text + "\n")
        proc = subprocess.run(["tinytf-opt", path, "-p", pipeline], capture_output=True, text=True)
        lines = proc.stderr.strip().splitlines()
        print(f"{name} {pipeline}")
        print(f"rc={proc.returncode} lines={len(lines)}")
        print(proc.stderr.strip().replace(tmp, "DIR"))
