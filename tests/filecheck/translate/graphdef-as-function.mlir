// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-as-function.pbtxt -tf-graph-as-function -tf-control-output-arrays=bump > %t.mlir
// RUN: filecheck %s --input-file %t.mlir
// RUN: tinytf-opt %t.mlir -o %t.again.mlir
// RUN: diff %t.mlir %t.again.mlir
// RUN: tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-as-function.pbtxt -tf-graph-as-function -tf-xla-compile-device-type=GPU -tf-enable-soft-placement-on-import=true | filecheck %s --check-prefix=PLACED
// RUN: not tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-as-function.pbtxt -tf-graph-as-function -tf-control-output-arrays=bump,bump 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not tinytf-translate --graphdef-to-mlir %S/Inputs/graphdef-as-function.pbtxt -tf-graph-as-function -tf-control-output-arrays=nope 2>&1 | filecheck %s --check-prefix=MISSING

// -tf-graph-as-function: the graph is a function body. Its _Arg nodes, by index, are @main's
// arguments (typed by T and _output_shapes; a resource by _handle_dtypes / _handle_shapes) and its
// _Retval nodes, by index, its results (fetching their inputs); tf.entry_function names the nodes.
// Their _-prefixed attributes (not the shape records) become tf.-prefixed argument and result
// attributes, their devices tf.device; allow_soft_placement is false. The text reprints unchanged.

// CHECK:      func.func @main(%arg0: tensor<2xf32> {tf._user_note = "first"}, %arg1: tensor<*x!tf_type.resource<tensor<f32>>> {tf.device = "/CPU:0"})
// CHECK-SAME: -> (tensor<*xf32>, tensor<*x!tf_type.resource<tensor<f32>>> {tf.device = "/CPU:1"})
// CHECK-SAME: attributes {allow_soft_placement = false, tf.entry_function = {control_outputs = "bump", inputs = "x,v", outputs = "out_y,out_v"}}
// CHECK:      %[[Y:.*]], %{{.*}} = tf_executor.island wraps "tf.Mul"(%arg0,
// CHECK-NEXT: %[[BUMP:.*]] = tf_executor.island wraps "tf.AssignAddVariableOp"(%arg1,
// CHECK-NEXT: tf_executor.fetch %[[Y]], %arg1, %[[BUMP]] : tensor<*xf32>, tensor<*x!tf_type.resource<tensor<f32>>>, !tf_executor.control
// CHECK-NOT:  _Arg
// CHECK-NOT:  _Retval

// -tf-xla-compile-device-type and -tf-enable-soft-placement-on-import=true mark @main.
// PLACED: attributes {_xla_compile_device_type = "GPU", allow_soft_placement = true, tf.entry_function = {control_outputs = "", inputs = "x,v", outputs = "out_y,out_v"}}

// TWICE: tinytf-translate: error: Control outputs must be unique
// MISSING: tinytf-translate: error: Control output 'nope' is missing
