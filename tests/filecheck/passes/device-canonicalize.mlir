// RUN: tinytf-opt %s --split-input-file -p canonicalize | filecheck %s

// A launch that only returns values from outside is those values; one returning nothing goes.

// CHECK-LABEL: func.func @launch_that_only_returns
// CHECK-NOT:     tf_device.launch
// CHECK:         return %arg1, %arg0 : tensor<2xf32>, tensor<i64>
func.func @launch_that_only_returns(%a: tensor<i64>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<i64>) {
  "tf_device.launch"() <{device = "/device:CPU:0"}> ({
    tf_device.return
  }) : () -> ()
  %0:2 = "tf_device.launch"() <{device = "/device:CPU:0"}> ({
    tf_device.return %b, %a : tensor<2xf32>, tensor<i64>
  }) : () -> (tensor<2xf32>, tensor<i64>)
  func.return %0#0, %0#1 : tensor<2xf32>, tensor<i64>
}

// -----

// A launch that computes something stays.

// CHECK-LABEL: func.func @launch_with_work
// CHECK:         "tf_device.launch"
// CHECK-NEXT:      "tf.Neg"
func.func @launch_with_work(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf_device.launch"() <{device = "/device:CPU:0"}> ({
    %1 = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
    tf_device.return %1 : tensor<2xf32>
  }) : () -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// A string from outside that a cluster only hands back leaves the cluster's results; a float
// passed through the same way stays, and so does a string a variable write takes.

// CHECK-LABEL: func.func @string_passes_through
// CHECK:         %[[C:.*]]:3 = "tf_device.cluster"() ({
// CHECK:           %[[N:.*]] = "tf.Neg"(%arg1)
// CHECK-NEXT:      tf_device.return %arg1, %[[N]], %arg2 : tensor<f32>, tensor<f32>, tensor<!tf_type.string>
// CHECK-NEXT:    }) {_xla_compile_device_type = "CPU"} : () -> (tensor<f32>, tensor<f32>, tensor<!tf_type.string>)
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg3, %[[C]]#2)
// CHECK-NEXT:    return %arg0, %[[C]]#0, %[[C]]#1
func.func @string_passes_through(%s: tensor<!tf_type.string>, %x: tensor<f32>, %t: tensor<!tf_type.string>,
                                 %v: tensor<!tf_type.resource<tensor<!tf_type.string>>>) -> (tensor<!tf_type.string>, tensor<f32>, tensor<f32>) {
  %0:4 = "tf_device.cluster"() ({
    %1 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    tf_device.return %s, %x, %1, %t : tensor<!tf_type.string>, tensor<f32>, tensor<f32>, tensor<!tf_type.string>
  }) {_xla_compile_device_type = "CPU"} : () -> (tensor<!tf_type.string>, tensor<f32>, tensor<f32>, tensor<!tf_type.string>)
  "tf.AssignVariableOp"(%v, %0#3) <{validate_shape = false}> : (tensor<!tf_type.resource<tensor<!tf_type.string>>>, tensor<!tf_type.string>) -> ()
  func.return %0#0, %0#1, %0#2 : tensor<!tf_type.string>, tensor<f32>, tensor<f32>
}

// -----

// A string computed inside the cluster is a real result: nothing changes.

// CHECK-LABEL: func.func @string_made_inside
// CHECK:         %[[C:.*]] = "tf_device.cluster"
// CHECK:         return %[[C]]
func.func @string_made_inside(%s: tensor<!tf_type.string>) -> tensor<!tf_type.string> {
  %0 = "tf_device.cluster"() ({
    %1 = "tf.Identity"(%s) : (tensor<!tf_type.string>) -> tensor<!tf_type.string>
    tf_device.return %1 : tensor<!tf_type.string>
  }) : () -> tensor<!tf_type.string>
  func.return %0 : tensor<!tf_type.string>
}
