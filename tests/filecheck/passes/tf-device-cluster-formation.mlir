// RUN: tinytf-opt %s --split-input-file -p tf-device-cluster-formation | filecheck %s

// Two ops placed on the same GPU become one launch on that GPU; they lose their own device
// attribute, and the op without a device reads the launch's result.

// CHECK-LABEL: func.func @same_device
// CHECK-NEXT:    %[[L:.*]] = "tf_device.launch"() <{device = "/device:GPU:0"}> ({
// CHECK-NEXT:      %[[N:.*]] = "tf.Neg"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:      %[[M:.*]] = "tf.Mul"(%[[N]], %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:      tf_device.return %[[M]] : tensor<3xf32>
// CHECK-NEXT:    }) : () -> tensor<3xf32>
// CHECK-NEXT:    %[[E:.*]] = "tf.Exp"(%[[L]]) : (tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    return %[[E]]
func.func @same_device(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tf.Neg"(%x) {device = "/device:GPU:0"} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tf.Mul"(%0, %x) {device = "/device:GPU:0"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = "tf.Exp"(%1) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}

// -----

// Nothing has a device (or the device is empty): nothing changes.

// CHECK-LABEL: func.func @no_device
// CHECK-NOT:     tf_device.launch
// CHECK:         "tf.Neg"(%arg0) {device = ""}
// CHECK-NEXT:    "tf.Exp"
func.func @no_device(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tf.Neg"(%x) {device = ""} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tf.Exp"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}

// -----

// A variable write between two ops of the same device, both of which have effects of their own,
// must stay between them: two launches on the same device, the write in between.

// CHECK-LABEL: func.func @write_splits_the_group
// CHECK-NEXT:    %[[L0:.*]] = "tf_device.launch"() <{device = "/device:CPU:0"}> ({
// CHECK-NEXT:      "tf.ReadVariableOp"(%arg0)
// CHECK-NEXT:      tf_device.return
// CHECK-NEXT:    })
// CHECK-NEXT:    "tf.AssignVariableOp"(%arg0, %arg1)
// CHECK-NEXT:    %[[L1:.*]] = "tf_device.launch"() <{device = "/device:CPU:0"}> ({
// CHECK-NEXT:      "tf.ReadVariableOp"(%arg0)
// CHECK-NEXT:      tf_device.return
// CHECK-NEXT:    })
// CHECK-NEXT:    "tf.Sub"(%[[L1]], %[[L0]])
func.func @write_splits_the_group(%v: tensor<!tf_type.resource<tensor<2xf32>>>, %new: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.ReadVariableOp"(%v) {device = "/device:CPU:0"} : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  "tf.AssignVariableOp"(%v, %new) <{validate_shape = false}> : (tensor<!tf_type.resource<tensor<2xf32>>>, tensor<2xf32>) -> ()
  %1 = "tf.ReadVariableOp"(%v) {device = "/device:CPU:0"} : (tensor<!tf_type.resource<tensor<2xf32>>>) -> tensor<2xf32>
  %2 = "tf.Sub"(%1, %0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %2 : tensor<2xf32>
}

// -----

// A pure op without a device between the two members does not split the group, and since it
// reads nothing of the group it stays before the launch.

// CHECK-LABEL: func.func @pure_op_in_between
// CHECK-NEXT:    %[[A:.*]] = "tf.Abs"(%arg0)
// CHECK-NEXT:    %[[L:.*]] = "tf_device.launch"() <{device = "/device:GPU:0"}> ({
// CHECK-NEXT:      "tf.Neg"(%arg0)
// CHECK-NEXT:      "tf.Exp"
// CHECK-NEXT:      tf_device.return
// CHECK-NEXT:    })
// CHECK-NEXT:    "tf.AddV2"(%[[A]], %[[L]])
func.func @pure_op_in_between(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tf.Neg"(%x) {device = "/device:GPU:0"} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tf.Abs"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "tf.Exp"(%0) {device = "/device:GPU:0"} : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "tf.AddV2"(%1, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %3 : tensor<3xf32>
}

// -----

// A member that needs a value computed inside the group's span by an op of another placement
// cannot join (the launch would come after it): the group closes and a second one starts.

// CHECK-LABEL: func.func @operand_from_the_middle
// CHECK-NEXT:    %[[L0:.*]] = "tf_device.launch"() <{device = "/device:GPU:0"}> ({
// CHECK-NEXT:      "tf.Neg"(%arg0)
// CHECK-NEXT:      tf_device.return
// CHECK-NEXT:    })
// CHECK-NEXT:    %[[A:.*]] = "tf.Abs"(%arg0)
// CHECK-NEXT:    %[[L1:.*]] = "tf_device.launch"() <{device = "/device:GPU:0"}> ({
// CHECK-NEXT:      "tf.Mul"(%[[L0]], %[[A]])
// CHECK-NEXT:      tf_device.return
// CHECK-NEXT:    })
// CHECK-NEXT:    return %[[L1]]
func.func @operand_from_the_middle(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tf.Neg"(%x) {device = "/device:GPU:0"} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tf.Abs"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "tf.Mul"(%0, %1) {device = "/device:GPU:0"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}

// -----

// Two devices interleaved make two launches, each right after its last member; an op reading the
// first member's result that sat between the members moves after the launch that now defines it.

// CHECK-LABEL: func.func @two_devices_and_a_moved_user
// CHECK-NEXT:    %[[C:.*]] = "tf_device.launch"() <{device = "cpu"}> ({
// CHECK-NEXT:      "tf.Exp"(%arg0)
// CHECK-NEXT:      tf_device.return
// CHECK-NEXT:    })
// CHECK-NEXT:    %[[G:.*]]:2 = "tf_device.launch"() <{device = "gpu"}> ({
// CHECK-NEXT:      %[[N:.*]] = "tf.Neg"(%arg0)
// CHECK-NEXT:      %[[M:.*]] = "tf.Mul"(%[[N]], %[[N]])
// CHECK-NEXT:      tf_device.return %[[N]], %[[M]] :
// CHECK-NEXT:    })
// CHECK-NEXT:    %[[S:.*]] = "tf.Sqrt"(%[[G]]#0)
// CHECK-NEXT:    "tf.AddN"(%[[S]], %[[G]]#1, %[[C]])
func.func @two_devices_and_a_moved_user(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tf.Neg"(%x) {device = "gpu"} : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tf.Sqrt"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "tf.Exp"(%x) {device = "cpu"} : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "tf.Mul"(%0, %0) {device = "gpu"} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %4 = "tf.AddN"(%1, %3, %2) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %4 : tensor<3xf32>
}

// -----

// Inside a tf_executor.island the island's body is grouped the same way; the island yields the
// launch's result.

// CHECK-LABEL: func.func @in_an_island
// CHECK:         tf_executor.island {
// CHECK-NEXT:      %[[L:.*]] = "tf_device.launch"() <{device = "tpu"}> ({
// CHECK-NEXT:        "tf.Neg"(%arg0)
// CHECK-NEXT:        tf_device.return
// CHECK-NEXT:      })
// CHECK-NEXT:      tf_executor.yield %[[L]] : tensor<3xf32>
func.func @in_an_island(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tf_executor.graph {
    %1:2 = tf_executor.island {
      %2 = "tf.Neg"(%x) {device = "tpu"} : (tensor<3xf32>) -> tensor<3xf32>
      tf_executor.yield %2 : tensor<3xf32>
    }
    tf_executor.fetch %1#0 : tensor<3xf32>
  }
  func.return %0 : tensor<3xf32>
}
