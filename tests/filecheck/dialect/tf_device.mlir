// tf_device ops: cluster, cluster_func, parallel_execute, launch, return.
// RUN: tinytf-opt %s | tinytf-opt | filecheck %s

func.func @device(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = "tf_device.cluster"() ({
    %1 = "tf.AddV2"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "tf_device.return"(%1) : (tensor<f32>) -> ()
  }) {_xla_compile_device_type = "CPU"} : () -> tensor<f32>
  %2 = "tf_device.cluster_func"(%a, %0) {func = @_func} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %3:2 = "tf_device.parallel_execute"() ({
    %4 = "tf_device.launch"() ({
      "tf_device.return"(%a) : (tensor<f32>) -> ()
    }) {device = "/device:CPU:0"} : () -> tensor<f32>
    "tf_device.return"(%4) : (tensor<f32>) -> ()
  }, {
    "tf_device.return"(%b) : (tensor<f32>) -> ()
  }) : () -> (tensor<f32>, tensor<f32>)
  func.return %2, %3#1 : tensor<f32>, tensor<f32>
}
func.func private @_func(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  func.return %x : tensor<f32>
}

// CHECK: "tf_device.cluster"() ({
// CHECK:   "tf.AddV2"
// CHECK:   "tf_device.return"(%{{.*}}) : (tensor<f32>) -> ()
// CHECK: }) {_xla_compile_device_type = "CPU"} : () -> tensor<f32>
// CHECK: "tf_device.cluster_func"(%{{.*}}, %{{.*}}) <{func = @_func}> : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: "tf_device.parallel_execute"() ({
// CHECK:   "tf_device.launch"() ({
// CHECK:   }) {device = "/device:CPU:0"} : () -> tensor<f32>
// CHECK: }, {
// CHECK: }) : () -> (tensor<f32>, tensor<f32>)
