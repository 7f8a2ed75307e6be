// RUN: tinytf-opt %s --split-input-file -p tf-device-cluster-function-body | filecheck %s

// A training step: weight reads go before the cluster, the computation inside, the weight
// assigns after it, fed by the cluster's results. AssignSubVariableOp is decomposed into
// read (the earlier read is reused), tf.Sub and AssignVariableOp.

// CHECK-LABEL: func.func @train_step
// CHECK-NEXT:    %[[W:.*]] = "tf.ReadVariableOp"(%arg1)
// CHECK-NEXT:    %[[B:.*]] = "tf.ReadVariableOp"(%arg2)
// CHECK-NEXT:    %[[C:[^:]+]]:3 = "tf_device.cluster"() ({
// CHECK-NEXT:      "tf.Const"
// CHECK-NEXT:      "tf.MatMul"(%arg0, %[[W]])
// CHECK:           %[[DB:.*]] = "tf.Mul"(%[[B]], %{{.*}})
// CHECK-NEXT:      %[[SUB:.*]] = "tf.Sub"(%[[B]], %[[DB]]) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:      tf_device.return %{{.*}}, %{{.*}}, %[[SUB]] :
// CHECK-NEXT:    }) : () -> (tensor<4x2xf32>, tensor<3x2xf32>, tensor<2xf32>)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg1, %[[C]]#1)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg2, %[[C]]#2) <{validate_shape = false}>
// CHECK-NEXT:    return %[[C]]#0 : tensor<4x2xf32>
// CHECK-NOT:     tf.AssignSubVariableOp
func.func @train_step(%x: tensor<4x3xf32>, %w: tensor<*x!tf_type.resource<tensor<3x2xf32>>>, %b: tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<4x2xf32> {
  %lr = "tf.Const"() <{value = dense<1.000000e-01> : tensor<f32>}> : () -> tensor<f32>
  %0 = "tf.ReadVariableOp"(%w) : (tensor<*x!tf_type.resource<tensor<3x2xf32>>>) -> tensor<3x2xf32>
  %1 = "tf.ReadVariableOp"(%b) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %2 = "tf.MatMul"(%x, %0) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %3 = "tf.BiasAdd"(%2, %1) <{data_format = "NHWC"}> : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %4 = "tf.Relu"(%3) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %5 = "tf.MatMul"(%x, %4) <{grad_a = false, grad_b = true, transpose_a = true, transpose_b = false}> : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %6 = "tf.Mul"(%5, %lr) : (tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %7 = "tf.Sub"(%0, %6) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  "tf.AssignVariableOp"(%w, %7) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<3x2xf32>>>, tensor<3x2xf32>) -> ()
  %8 = "tf.Mul"(%1, %lr) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  "tf.AssignSubVariableOp"(%b, %8) : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return %4 : tensor<4x2xf32>
}

// -----

// A read after a write to the same variable stays in the cluster, and so does that write (the read
// must see it); the last write, with nothing after it, goes out.

// CHECK-LABEL: func.func @read_after_write
// CHECK-NEXT:    %[[R0:.*]] = "tf.ReadVariableOp"(%arg0)
// CHECK-NEXT:    %[[C:.*]] = "tf_device.cluster"() ({
// CHECK-NEXT:      %[[A:.*]] = "tf.AddV2"(%[[R0]], %[[R0]])
// CHECK-NEXT:      "tf.AssignVariableOp"(%arg0, %[[A]])
// CHECK-NEXT:      %[[R1:.*]] = "tf.ReadVariableOp"(%arg0)
// CHECK-NEXT:      %[[M:.*]] = "tf.Mul"(%[[R1]], %[[R1]])
// CHECK-NEXT:      tf_device.return %[[M]] :
// CHECK-NEXT:    })
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg0, %[[C]])
// CHECK-NEXT:    return
func.func @read_after_write(%v: tensor<*x!tf_type.resource<tensor<2xf32>>>) {
  %0 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %1 = "tf.AddV2"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "tf.AssignVariableOp"(%v, %1) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  %2 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %3 = "tf.Mul"(%2, %2) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "tf.AssignVariableOp"(%v, %3) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return
}

// -----

// Left alone: private functions, functions that already have a cluster, and functions with
// nothing to compute.

// CHECK-LABEL: func.func private @helper
// CHECK-NOT:     tf_device.cluster
// CHECK-LABEL: func.func @already_clustered
// CHECK-COUNT-1: "tf_device.cluster"
// CHECK-NOT:     "tf_device.cluster"
// CHECK-LABEL: func.func @only_reads_and_writes
// CHECK-NOT:     tf_device.cluster
func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func @already_clustered(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf_device.cluster"() ({
    %1 = "tf.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    "tf_device.return"(%1) : (tensor<2xf32>) -> ()
  }) : () -> tensor<2xf32>
  %2 = "tf.Relu"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %2 : tensor<2xf32>
}
func.func @only_reads_and_writes(%v: tensor<*x!tf_type.resource<tensor<2xf32>>>, %u: tensor<*x!tf_type.resource<tensor<2xf32>>>) {
  %0 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  "tf.AssignVariableOp"(%u, %0) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return
}
