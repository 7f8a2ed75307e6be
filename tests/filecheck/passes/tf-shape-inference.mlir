// RUN: tinytf-opt %s --split-input-file -p tf-shape-inference | filecheck %s
// RUN: sed -n '/^\/\/ BEGIN-MAIN/,/^\/\/ END-MAIN/p' %s | tinytf-opt -p 'tf-shape-inference{input-shapes="2,3:"}' | filecheck %s --check-prefix=SHAPES
// RUN: sed -n '/^\/\/ BEGIN-MAIN/,/^\/\/ END-MAIN/p' %s | tinytf-opt -p 'tf-shape-inference{input-arg-shapes="2,3:"}' | filecheck %s --check-prefix=SHAPES
// RUN: sed -n '/^\/\/ BEGIN-MAIN/,/^\/\/ END-MAIN/p' %s | not tinytf-opt -p 'tf-shape-inference{input-arg-shapes="*:"}' 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: sed -n '/^\/\/ BEGIN-CALLER/,/^\/\/ END-CALLER/p' %s | not tinytf-opt -p 'tf-shape-inference{input-arg-shapes=3}' 2>&1 | filecheck %s --check-prefix=NO-MAIN

// Unknown ranks and dims are refined from operand types; the signature follows the return.

// CHECK-LABEL: func.func @elementwise_and_matmul
// CHECK-SAME:    -> (tensor<2x3xf32>, tensor<2x5xf32>)
// CHECK:         "tf.AddV2"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:         "tf.Relu"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         "tf.MatMul"(%{{.*}}, %{{.*}}) {{.*}} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
// CHECK:         return %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x5xf32>
func.func @elementwise_and_matmul(%x: tensor<2x3xf32>, %s: tensor<f32>, %w: tensor<3x5xf32>) -> (tensor<*xf32>, tensor<?x?xf32>) {
  %0 = "tf.AddV2"(%x, %s) : (tensor<2x3xf32>, tensor<f32>) -> tensor<*xf32>
  %1 = "tf.Relu"(%0) : (tensor<*xf32>) -> tensor<*xf32>
  %2 = "tf.MatMul"(%1, %w) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<*xf32>, tensor<3x5xf32>) -> tensor<?x?xf32>
  func.return %1, %2 : tensor<*xf32>, tensor<?x?xf32>
}

// -----

// Constant operands reach the rule as values (Reshape's shape); a constant's own type is refined
// from its value; a typed resource gives ReadVariableOp its shape.

// CHECK-LABEL: func.func @constants_and_resources
// CHECK:         "tf.Const"() <{value = dense<[3, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
// CHECK:         "tf.Reshape"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
// CHECK:         "tf.ReadVariableOp"(%{{.*}}) : (tensor<*x!tf_type.resource<tensor<3x2xf32>>>) -> tensor<3x2xf32>
// CHECK:         "tf.Sub"(%{{.*}}, %{{.*}}) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
func.func @constants_and_resources(%x: tensor<2x3xf32>, %v: tensor<*x!tf_type.resource<tensor<3x2xf32>>>) -> tensor<*xf32> {
  %shape = "tf.Const"() <{value = dense<[3, 2]> : tensor<2xi32>}> : () -> tensor<*xi32>
  %0 = "tf.Reshape"(%x, %shape) : (tensor<2x3xf32>, tensor<*xi32>) -> tensor<*xf32>
  %1 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<3x2xf32>>>) -> tensor<*xf32>
  %2 = "tf.Sub"(%0, %1) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %2 : tensor<*xf32>
}

// -----

// Across calls: a private callee's arguments take the call operands' types, its body and signature
// are refined, and the call's results take the callee's result types.

// CHECK-LABEL: func.func @caller
// CHECK:         "tf.PartitionedCall"(%{{.*}}) {{.*}} : (tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK:         return %{{.*}} : tensor<4x2xf32>
// CHECK-LABEL: func.func private @callee
// CHECK-SAME:    (%{{.*}}: tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK:         "tf.Mul"(%{{.*}}, %{{.*}}) : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
// A module without @main cannot take input-arg-shapes:
// NO-MAIN: Input shapes provided but no `main` function found.
// BEGIN-CALLER
func.func @caller(%x: tensor<4x2xf32>) -> tensor<*xf32> {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @callee}> : (tensor<4x2xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func private @callee(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Mul"(%a, %a) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
// END-CALLER

// -----

// A callee called with two different shapes gets the dims they agree on.

// CHECK-LABEL: func.func private @two_callers_callee
// CHECK-SAME:    (%{{.*}}: tensor<?x2xf32>) -> tensor<?x2xf32>
func.func @two_callers(%x: tensor<4x2xf32>, %y: tensor<3x2xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @two_callers_callee}> : (tensor<4x2xf32>) -> tensor<*xf32>
  %1 = "tf.PartitionedCall"(%y) <{config = "", config_proto = "", executor_type = "", f = @two_callers_callee}> : (tensor<3x2xf32>) -> tensor<*xf32>
  func.return %0, %1 : tensor<*xf32>, tensor<*xf32>
}
func.func private @two_callers_callee(%a: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Relu"(%a) : (tensor<*xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// Left alone: a rule that raises (mismatched matmul), an unknown op (and what uses it), a known dim
// that the rule contradicts, and a public callee (callers outside the module may pass other shapes).

// CHECK-LABEL: func.func @left_alone
// CHECK:         "tf.MatMul"{{.*}} -> tensor<*xf32>
// CHECK:         "tf.SomeUnknownOp"{{.*}} -> tensor<*xf32>
// CHECK:         "tf.Relu"{{.*}} -> tensor<*xf32>
// CHECK:         "tf.AddV2"{{.*}} -> tensor<5x?xf32>
// CHECK-LABEL: func.func @public_callee
// CHECK-SAME:    (%{{.*}}: tensor<*xf32>) -> tensor<*xf32>
func.func @left_alone(%x: tensor<2x3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<5x?xf32>, tensor<*xf32>) {
  %0 = "tf.MatMul"(%x, %x) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<*xf32>
  %1 = "tf.SomeUnknownOp"(%x) : (tensor<2x3xf32>) -> tensor<*xf32>
  %2 = "tf.Relu"(%1) : (tensor<*xf32>) -> tensor<*xf32>
  %3 = "tf.AddV2"(%x, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<5x?xf32>
  %4 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @public_callee}> : (tensor<2x3xf32>) -> tensor<*xf32>
  func.return %0, %2, %3, %4 : tensor<*xf32>, tensor<*xf32>, tensor<5x?xf32>, tensor<*xf32>
}
func.func @public_callee(%a: tensor<*xf32>) -> tensor<*xf32> {
  func.return %a : tensor<*xf32>
}

// -----

// input-shapes: the entry's arguments get the given shapes (":" between arguments, "" a scalar);
// input-arg-shapes (TensorFlow's option) does the same for @main, and needs a shape for each argument.
// MISSING: Missing input argument shapes

// SHAPES-LABEL: func.func @main
// SHAPES-SAME:    (%{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<f32>) -> tensor<2x3xf32>
// SHAPES:         "tf.Mul"(%{{.*}}, %{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%{{.*}}: tensor<*xf32>, %{{.*}}: tensor<*xf32>) -> tensor<*xf32>
// BEGIN-MAIN
func.func @main(%x: tensor<*xf32>, %y: tensor<*xf32>) -> tensor<*xf32> {
  %0 = "tf.Mul"(%x, %y) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
// END-MAIN

// -----

// tf_device.cluster results follow the region's tf_device.return.

// CHECK-LABEL: func.func @cluster
// CHECK:         "tf.Relu"{{.*}} -> tensor<3xf32>
// CHECK:         }) : () -> tensor<3xf32>
// CHECK:         return %{{.*}} : tensor<3xf32>
func.func @cluster(%x: tensor<3xf32>) -> tensor<*xf32> {
  %0 = "tf_device.cluster"() ({
    %1 = "tf.Relu"(%x) : (tensor<3xf32>) -> tensor<*xf32>
    "tf_device.return"(%1) : (tensor<*xf32>) -> ()
  }) : () -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}

// -----

// Inside a tf_executor.graph: the island's result and the graph's follow what they yield and fetch.

// CHECK-LABEL: func.func @island
// CHECK:         %[[G:.*]] = tf_executor.graph {
// CHECK:           "tf.Neg"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK:           tf_executor.fetch %{{.*}} : tensor<3xf32>
// CHECK:         }
// CHECK-NEXT:    return %[[G]] : tensor<3xf32>
func.func @island(%x: tensor<3xf32>) -> tensor<*xf32> {
  %0 = tf_executor.graph {
    %1:2 = tf_executor.island {
      %2 = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<*xf32>
      tf_executor.yield %2 : tensor<*xf32>
    }
    tf_executor.fetch %1#0 : tensor<*xf32>
  }
  func.return %0 : tensor<*xf32>
}

// -----

// A function of several blocks is left as it is (its returns and branch arguments keep their types).

// CHECK-LABEL: func.func @branches
// CHECK:         "tf.Neg"(%arg0) : (tensor<3xf32>) -> tensor<*xf32>
// CHECK:         return %{{.*}} : tensor<*xf32>
func.func @branches(%x: tensor<3xf32>) -> tensor<*xf32> {
  %0 = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<*xf32>
  cf.br ^next(%0 : tensor<*xf32>)
^next(%1: tensor<*xf32>):
  func.return %1 : tensor<*xf32>
}

// -----

// The uniform quantization ops keep their input's shape (tinytf knows them as IR only).

// CHECK-LABEL: func.func @quantize
// CHECK-SAME:    -> tensor<2x3xf32>
// CHECK:         "tf.UniformQuantize"{{.*}} -> tensor<2x3x!tf_type.qint8>
// CHECK:         "tf.UniformDequantize"{{.*}} -> tensor<2x3xf32>
func.func @quantize(%x: tensor<2x3xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<*xf32> {
  %0 = "tf.UniformQuantize"(%x, %s, %z) <{quantization_axis = -1 : i64, quantization_max_val = 127 : i64, quantization_min_val = -128 : i64}> : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<*x!tf_type.qint8>
  %1 = "tf.UniformDequantize"(%0, %s, %z) <{quantization_axis = -1 : i64, quantization_max_val = 127 : i64, quantization_min_val = -128 : i64}> : (tensor<*x!tf_type.qint8>, tensor<f32>, tensor<i32>) -> tensor<*xf32>
  func.return %1 : tensor<*xf32>
}
