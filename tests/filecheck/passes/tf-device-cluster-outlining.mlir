// RUN: tinytf-opt %s --split-input-file -p tf-device-cluster-outlining | filecheck %s

// The cluster body moves into a private function; values from outside (an argument, a read)
// become its arguments, in order of first use; the cluster's attributes go to the cluster_func.

// CHECK-LABEL: func.func @single_cluster
// CHECK-NEXT:    %[[R:.*]] = "tf.ReadVariableOp"
// CHECK-NEXT:    %[[O:[^:]+]]:2 = "tf_device.cluster_func"(%arg0, %[[R]]) <{func = @_func}> {_xla_compile_device_type = "CPU"} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg1, %[[O]]#1)
// CHECK-NEXT:    return %[[O]]#0
// CHECK-LABEL: func.func private @_func
// CHECK-SAME:    (%[[A0:.*]]: tensor<2xf32>, %[[A1:.*]]: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    %[[M:.*]] = "tf.Mul"(%[[A0]], %[[A1]])
// CHECK-NEXT:    %[[N:.*]] = "tf.Relu"(%[[M]])
// CHECK-NEXT:    return %[[N]], %[[M]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NOT:     tf_device.cluster"
func.func @single_cluster(%x: tensor<2xf32>, %v: tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32> {
  %r = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %0:2 = "tf_device.cluster"() ({
    %1 = "tf.Mul"(%x, %r) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2 = "tf.Relu"(%1) : (tensor<2xf32>) -> tensor<2xf32>
    "tf_device.return"(%2, %1) : (tensor<2xf32>, tensor<2xf32>) -> ()
  }) {_xla_compile_device_type = "CPU"} : () -> (tensor<2xf32>, tensor<2xf32>)
  "tf.AssignVariableOp"(%v, %0#1) <{validate_shape = false}> : (tensor<*x!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  func.return %0#0 : tensor<2xf32>
}

// -----

// Two clusters get two functions with fresh names; a cluster using nothing from outside gets a
// function without arguments; the name _func is already taken.

// CHECK-LABEL: func.func @two_clusters
// CHECK:         "tf_device.cluster_func"() <{func = @[[F1:_func_[0-9]+]]}> : () -> tensor<f32>
// CHECK:         "tf_device.cluster_func"(%{{.*}}) <{func = @[[F2:_func_[0-9]+]]}> : (tensor<f32>) -> tensor<f32>
// CHECK-DAG:     func.func private @[[F1]]() -> tensor<f32>
// CHECK-DAG:     func.func private @[[F2]](%{{.*}}: tensor<f32>) -> tensor<f32>
// CHECK-DAG:     func.func private @_func(
func.func @two_clusters() -> tensor<f32> {
  %0 = "tf_device.cluster"() ({
    %c = "tf.Const"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
    "tf_device.return"(%c) : (tensor<f32>) -> ()
  }) : () -> tensor<f32>
  %1 = "tf_device.cluster"() ({
    %2 = "tf.Mul"(%0, %0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "tf_device.return"(%2) : (tensor<f32>) -> ()
  }) : () -> tensor<f32>
  func.return %1 : tensor<f32>
}
func.func private @_func(%a: tensor<f32>) -> tensor<f32> {
  func.return %a : tensor<f32>
}

// -----

// No cluster: nothing changes.

// CHECK-LABEL: func.func @no_cluster
// CHECK-NEXT:    "tf.Relu"
// CHECK-NEXT:    return
// CHECK-NOT:     func.func
func.func @no_cluster(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.Relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// A cluster may name its function (_cluster_outlined_function_name); a taken name gets a suffix.

// CHECK-LABEL: func.func @named_cluster
// CHECK-NEXT:    "tf_device.cluster_func"(%arg0) <{func = @step_0}> {_cluster_outlined_function_name = "step"}
// CHECK-LABEL: func.func private @step_0(%arg0: tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    "tf.Sqrt"(%arg0)
func.func @named_cluster(%x: tensor<f32>) -> tensor<f32> {
  %0 = "tf_device.cluster"() ({
    %1 = "tf.Sqrt"(%x) : (tensor<f32>) -> tensor<f32>
    tf_device.return %1 : tensor<f32>
  }) {_cluster_outlined_function_name = "step"} : () -> tensor<f32>
  func.return %0 : tensor<f32>
}
func.func private @step() -> ()

// -----

// A cluster that an island wraps: the island still wraps one op, now the cluster_func.

// CHECK-LABEL: func.func @wrapped_by_an_island
// CHECK:         %[[OUT:.*]], %{{.*}} = tf_executor.island wraps "tf_device.cluster_func"(%arg0) <{func = @_func}>
// CHECK-NEXT:    tf_executor.fetch %[[OUT]]
func.func @wrapped_by_an_island(%x: tensor<f32>) -> tensor<f32> {
  %0 = tf_executor.graph {
    %1:2 = tf_executor.island wraps "tf_device.cluster"() ({
      %2 = "tf.Exp"(%x) : (tensor<f32>) -> tensor<f32>
      tf_device.return %2 : tensor<f32>
    }) : () -> tensor<f32>
    tf_executor.fetch %1#0 : tensor<f32>
  }
  func.return %0 : tensor<f32>
}
