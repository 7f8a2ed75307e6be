// RUN: tinytf-opt %s --split-input-file -p tf-device-mark-input-output-aliases | filecheck %s

// Two resources; the results are assigned in swapped order, so arg 0 aliases output 1 and arg 1
// aliases output 0. The third read has no matching assign: no attribute.

// CHECK-LABEL: func.func @simple_input_output_pairs
// CHECK-LABEL: func.func private @device_func_0(
// CHECK-SAME: %{{.*}}: tensor<i32> {tf.aliasing_output = 1 : i64}, %{{.*}}: tensor<f32> {tf.aliasing_output = 0 : i64}, %{{.*}}: tensor<f32>)
// CHECK-NOT: tf.aliasing_output
func.func @simple_input_output_pairs(%arg0: tensor<*x!tf_type.resource<tensor<i32>>>, %arg1: tensor<*x!tf_type.resource<tensor<f32>>>, %arg2: tensor<*x!tf_type.resource<tensor<f32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<i32>>>) -> tensor<i32>
  %1 = "tf.ReadVariableOp"(%arg1) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %2 = "tf.ReadVariableOp"(%arg2) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %3:2 = "tf_device.cluster_func"(%0, %1, %2) <{func = @device_func_0}> {_tpu_replicate = "tpu"} : (tensor<i32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<i32>)
  "tf.AssignVariableOp"(%arg1, %3#0) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.AssignVariableOp"(%arg0, %3#1) : (tensor<*x!tf_type.resource<tensor<i32>>>, tensor<i32>) -> ()
  func.return
}
func.func private @device_func_0(%arg0: tensor<i32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> (tensor<f32>, tensor<i32>) {
  func.return %arg1, %arg0 : tensor<f32>, tensor<i32>
}

// -----

// An output with two uses is not marked.

// CHECK-LABEL: func.func @skip_outputs_with_multiple_use
// CHECK-NOT: tf.aliasing_output
func.func @skip_outputs_with_multiple_use(%arg0: tensor<*x!tf_type.resource<tensor<i32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<i32>>>) -> tensor<i32>
  %1 = "tf_device.cluster_func"(%0) <{func = @device_func_1}> : (tensor<i32>) -> tensor<i32>
  "tf.AssignVariableOp"(%arg0, %1) : (tensor<*x!tf_type.resource<tensor<i32>>>, tensor<i32>) -> ()
  "tf.SomeOp"(%1) : (tensor<i32>) -> ()
  func.return
}
func.func private @device_func_1(%arg0: tensor<i32>) -> tensor<i32> {
  func.return %arg0 : tensor<i32>
}

// -----

// A read with two uses is not marked.

// CHECK-LABEL: func.func @skip_inputs_with_multiple_use
// CHECK-NOT: tf.aliasing_output
func.func @skip_inputs_with_multiple_use(%arg0: tensor<*x!tf_type.resource<tensor<i32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<i32>>>) -> tensor<i32>
  %1 = "tf_device.cluster_func"(%0) <{func = @device_func_2}> : (tensor<i32>) -> tensor<i32>
  "tf.AssignVariableOp"(%arg0, %1) : (tensor<*x!tf_type.resource<tensor<i32>>>, tensor<i32>) -> ()
  "tf.SomeOp"(%0) : (tensor<i32>) -> ()
  func.return
}
func.func private @device_func_2(%arg0: tensor<i32>) -> tensor<i32> {
  func.return %arg0 : tensor<i32>
}

// -----

// Two assigns to one resource leave the whole cluster_func unmarked (arg1 would otherwise pair).

// CHECK-LABEL: func.func @skip_multiple_assigns_to_resource
// CHECK-NOT: tf.aliasing_output
func.func @skip_multiple_assigns_to_resource(%arg0: tensor<*x!tf_type.resource<tensor<f32>>>, %arg1: tensor<*x!tf_type.resource<tensor<f32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %1 = "tf.ReadVariableOp"(%arg1) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %2:3 = "tf_device.cluster_func"(%0, %1) <{func = @device_func_3}> : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  "tf.AssignVariableOp"(%arg0, %2#0) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.AssignVariableOp"(%arg0, %2#1) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.AssignVariableOp"(%arg1, %2#2) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  func.return
}
func.func private @device_func_3(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  func.return %arg1, %arg0, %arg1 : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// Two reads of one (assigned) resource leave the whole cluster_func unmarked.

// CHECK-LABEL: func.func @skip_multiple_reads_of_resource
// CHECK-NOT: tf.aliasing_output
func.func @skip_multiple_reads_of_resource(%arg0: tensor<*x!tf_type.resource<tensor<f32>>>, %arg1: tensor<*x!tf_type.resource<tensor<f32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %1 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %2 = "tf.ReadVariableOp"(%arg1) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %3:2 = "tf_device.cluster_func"(%0, %1, %2) <{func = @device_func_4}> : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  "tf.AssignVariableOp"(%arg0, %3#0) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.AssignVariableOp"(%arg1, %3#1) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  func.return
}
func.func private @device_func_4(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  func.return %arg1, %arg2 : tensor<f32>, tensor<f32>
}

// -----

// Two reads of a resource that is never assigned do not matter (TensorFlow only counts reads of
// assigned resources); arg 2 still aliases output 0.

// CHECK-LABEL: func.func @multiple_reads_of_unassigned_resource
// CHECK-LABEL: func.func private @device_func_7(
// CHECK-SAME: %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32> {tf.aliasing_output = 0 : i64})
func.func @multiple_reads_of_unassigned_resource(%arg0: tensor<*x!tf_type.resource<tensor<f32>>>, %arg1: tensor<*x!tf_type.resource<tensor<f32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %1 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %2 = "tf.ReadVariableOp"(%arg1) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %3 = "tf_device.cluster_func"(%0, %1, %2) <{func = @device_func_7}> : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
  "tf.AssignVariableOp"(%arg1, %3) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  func.return
}
func.func private @device_func_7(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<f32> {
  func.return %arg2 : tensor<f32>
}

// -----

// cluster_funcs inside tf_device.parallel_execute: results are followed through the regions'
// tf_device.return to the parallel_execute's results (region 1's outputs start at result 2).

// CHECK-LABEL: func.func @parallel_execute
// CHECK-LABEL: func.func private @device_func_5(
// CHECK-SAME: %{{.*}}: tensor<f32> {tf.aliasing_output = 1 : i64}, %{{.*}}: tensor<f32> {tf.aliasing_output = 0 : i64})
// CHECK-LABEL: func.func private @device_func_6(
// CHECK-SAME: %{{.*}}: tensor<f32> {tf.aliasing_output = 1 : i64}, %{{.*}}: tensor<f32> {tf.aliasing_output = 0 : i64})
func.func @parallel_execute(%arg0: tensor<*x!tf_type.resource<tensor<f32>>>, %arg1: tensor<*x!tf_type.resource<tensor<f32>>>, %arg2: tensor<*x!tf_type.resource<tensor<f32>>>, %arg3: tensor<*x!tf_type.resource<tensor<f32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %1 = "tf.ReadVariableOp"(%arg1) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %2 = "tf.ReadVariableOp"(%arg2) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %3 = "tf.ReadVariableOp"(%arg3) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %4:4 = "tf_device.parallel_execute"() ({
    %5:2 = "tf_device.cluster_func"(%0, %2) <{func = @device_func_5}> : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
    "tf_device.return"(%5#0, %5#1) : (tensor<f32>, tensor<f32>) -> ()
  }, {
    %6:2 = "tf_device.cluster_func"(%1, %3) <{func = @device_func_6}> : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
    "tf_device.return"(%6#0, %6#1) : (tensor<f32>, tensor<f32>) -> ()
  }) : () -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
  "tf.AssignVariableOp"(%arg2, %4#0) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.AssignVariableOp"(%arg0, %4#1) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.AssignVariableOp"(%arg3, %4#2) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.AssignVariableOp"(%arg1, %4#3) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  func.return
}
func.func private @device_func_5(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  func.return %arg1, %arg0 : tensor<f32>, tensor<f32>
}
func.func private @device_func_6(%arg0: tensor<f32>, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  func.return %arg1, %arg0 : tensor<f32>, tensor<f32>
}

// -----

// A parallel_execute result with two uses is not followed.

// CHECK-LABEL: func.func @parallel_execute_result_with_two_uses
// CHECK-NOT: tf.aliasing_output
func.func @parallel_execute_result_with_two_uses(%arg0: tensor<*x!tf_type.resource<tensor<f32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %1 = "tf_device.parallel_execute"() ({
    %2 = "tf_device.cluster_func"(%0) <{func = @device_func_8}> : (tensor<f32>) -> tensor<f32>
    "tf_device.return"(%2) : (tensor<f32>) -> ()
  }) : () -> tensor<f32>
  "tf.AssignVariableOp"(%arg0, %1) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.SomeOp"(%1) : (tensor<f32>) -> ()
  func.return
}
func.func private @device_func_8(%arg0: tensor<f32>) -> tensor<f32> {
  func.return %arg0 : tensor<f32>
}

// -----

// Running the pass twice (or on a callee already marked the same way) changes nothing; a resource
// that is only read or only written gets no attribute.

// CHECK-LABEL: func.func @already_marked
// CHECK-LABEL: func.func private @device_func_9
// CHECK-SAME:    %{{.*}}: tensor<f32> {tf.aliasing_output = 0 : i64}, %{{.*}}: tensor<f32>) -> (tensor<f32>, tensor<f32>)
// CHECK-NOT:     tf.aliasing_output
func.func @already_marked(%arg0: tensor<*x!tf_type.resource<tensor<f32>>>, %arg1: tensor<*x!tf_type.resource<tensor<f32>>>, %arg2: tensor<*x!tf_type.resource<tensor<f32>>>) {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %1 = "tf.ReadVariableOp"(%arg1) : (tensor<*x!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  %2:2 = "tf_device.cluster_func"(%0, %1) <{func = @device_func_9}> : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  "tf.AssignVariableOp"(%arg0, %2#0) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  "tf.AssignVariableOp"(%arg2, %2#1) : (tensor<*x!tf_type.resource<tensor<f32>>>, tensor<f32>) -> ()
  func.return
}
func.func private @device_func_9(%arg0: tensor<f32> {tf.aliasing_output = 0 : i64}, %arg1: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  func.return %arg0, %arg1 : tensor<f32>, tensor<f32>
}
