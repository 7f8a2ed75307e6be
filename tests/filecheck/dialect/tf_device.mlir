// tf_device ops in both forms: what TensorFlow's tf-opt writes in custom syntax (return, replicate,
// remote_run, send, receive) reads and prints in it; the region and call ops print in generic form,
// as tf-opt prints them; and every op reads back from its generic form.
// RUN: tinytf-opt %s | tinytf-opt | filecheck %s
// RUN: tinytf-opt %s --print-op-generic | tinytf-opt | filecheck %s
// RUN: tinytf-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @cluster_and_launch
// CHECK:         %[[C:.*]] = "tf_device.cluster"() <{policy = "by_device"}> ({
// CHECK-NEXT:      %[[S:.*]] = "tf.AddV2"(%arg0, %arg1)
// CHECK-NEXT:      tf_device.return %[[S]] : tensor<f32>
// CHECK-NEXT:    }) {_xla_compile_device_type = "CPU"} : () -> tensor<f32>
// CHECK-NEXT:    %[[L:.*]] = "tf_device.launch"() <{device = "/device:CPU:0"}> ({
// CHECK-NEXT:      tf_device.return %[[C]] : tensor<f32>
// CHECK-NEXT:    }) : () -> tensor<f32>
// CHECK-NEXT:    "tf_device.launch"() <{device = "/device:CPU:1"}> ({
// CHECK-NEXT:      tf_device.return
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    return %[[L]] : tensor<f32>
// GENERIC-LABEL: "func.func"() <{function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "cluster_and_launch"}>
// GENERIC:         "tf_device.return"(%{{.*}}) : (tensor<f32>) -> ()
// GENERIC:         "tf_device.return"() : () -> ()
func.func @cluster_and_launch(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = "tf_device.cluster"() ({
    %1 = "tf.AddV2"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "tf_device.return"(%1) : (tensor<f32>) -> ()
  }) {_xla_compile_device_type = "CPU", policy = "by_device"} : () -> tensor<f32>
  // `device` is the launch's own attribute: given in the attribute dictionary (older text), it
  // prints among the properties, as tf-opt prints it
  %2 = "tf_device.launch"() ({
    tf_device.return %0 : tensor<f32>
  }) {device = "/device:CPU:0"} : () -> tensor<f32>
  "tf_device.launch"() <{device = "/device:CPU:1"}> ({
    tf_device.return
  }) : () -> ()
  func.return %2 : tensor<f32>
}

// -----

// Replicated inputs ([n operands] as one block argument) come first, packed ones (one operand for
// every replica) after, whatever order the text gives them in; each returned value is n results.
// The attribute dictionary is sorted, `operandSegmentSizes` is left out (the operands say it).

// CHECK-LABEL: func.func @replicate
// CHECK:         %[[R:[^:]+]]:4 = tf_device.replicate([%arg0, %arg1] as %[[RI:[^:]+]]: tensor<*xf32>, %arg2 as %[[PI:[^:]+]]: tensor<i32>) {devices = {CORE_0 = ["/DEVICE:0", "/DEVICE:1"]}, n = 2 : i32} {
// CHECK-NEXT:      %[[N:.*]] = "tf.Neg"(%[[RI]])
// CHECK-NEXT:      tf_device.return %[[N]], %[[PI]] : tensor<*xf32>, tensor<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    tf_device.replicate {n = 3 : i32} {
// CHECK-NEXT:      tf_device.return
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]#1, %[[R]]#3 : tensor<*xf32>, tensor<i32>
// GENERIC-LABEL: sym_name = "replicate"
// GENERIC:         %{{[^:]+}}:4 = "tf_device.replicate"(%arg0, %arg1, %arg2) <{devices = {CORE_0 = ["/DEVICE:0", "/DEVICE:1"]}, n = 2 : i32, operandSegmentSizes = array<i32: 2, 1>}> ({
// GENERIC-NEXT:    ^bb0(%{{.*}}: tensor<*xf32>, %{{.*}}: tensor<i32>):
// GENERIC:         }) : (tensor<*xf32>, tensor<*xf32>, tensor<i32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<i32>, tensor<i32>)
// GENERIC:         "tf_device.replicate"() <{n = 3 : i32, operandSegmentSizes = array<i32: 0, 0>}> ({
// GENERIC-NEXT:      "tf_device.return"() : () -> ()
func.func @replicate(%a: tensor<*xf32>, %b: tensor<*xf32>, %c: tensor<i32>) -> (tensor<*xf32>, tensor<i32>) {
  %r:4 = tf_device.replicate(%c as %pi: tensor<i32>, [%a, %b] as %ri: tensor<*xf32>) {n = 2 : i32, devices = {CORE_0 = ["/DEVICE:0", "/DEVICE:1"]}} {
    %0 = "tf.Neg"(%ri) : (tensor<*xf32>) -> tensor<*xf32>
    tf_device.return %0, %pi : tensor<*xf32>, tensor<i32>
  }
  // an empty body gets its tf_device.return, as TensorFlow's parser adds it
  tf_device.replicate {n = 3 : i32} {
  }
  func.return %r#1, %r#3 : tensor<*xf32>, tensor<i32>
}

// -----

// CHECK-LABEL: func.func @parallel_execute
// CHECK:         %[[P:[^:]+]]:3 = "tf_device.parallel_execute"() ({
// CHECK-NEXT:      tf_device.return %arg0, %arg0 : tensor<f32>, tensor<f32>
// CHECK-NEXT:    }, {
// CHECK-NEXT:      %[[F:.*]] = "tf_device.cluster_func"(%arg0) <{func = @device_func}> : (tensor<f32>) -> tensor<2xi32>
// CHECK-NEXT:      tf_device.return %[[F]] : tensor<2xi32>
// CHECK-NEXT:    }) : () -> (tensor<f32>, tensor<f32>, tensor<2xi32>)
// CHECK-NEXT:    %[[LF:.*]] = "tf_device.launch_func"(%[[P]]#2) <{device = "/device:TPU:0", func = @launch_func}> : (tensor<2xi32>) -> tensor<2xi32>
func.func @parallel_execute(%a: tensor<f32>) -> tensor<2xi32> {
  %0:3 = "tf_device.parallel_execute"() ({
    tf_device.return %a, %a : tensor<f32>, tensor<f32>
  }, {
    %1 = "tf_device.cluster_func"(%a) {func = @device_func} : (tensor<f32>) -> tensor<2xi32>
    tf_device.return %1 : tensor<2xi32>
  }) : () -> (tensor<f32>, tensor<f32>, tensor<2xi32>)
  %2 = "tf_device.launch_func"(%0#2) {func = @launch_func, device = "/device:TPU:0"} : (tensor<2xi32>) -> tensor<2xi32>
  func.return %2 : tensor<2xi32>
}
func.func private @device_func(%x: tensor<f32>) -> tensor<2xi32> {
  %0 = "tf.Const"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  func.return %0 : tensor<2xi32>
}
func.func private @launch_func(%x: tensor<2xi32>) -> tensor<2xi32> {
  func.return %x : tensor<2xi32>
}

// -----

// Host-to-host transfer and a function run on another host.

// CHECK-LABEL: func.func @remote
// CHECK:         tf_device.send %arg0 "key-0" "/job:worker/replica:0/task:1/device:CPU:0" {device = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<i32>
// CHECK-NEXT:    %[[V:.*]] = tf_device.receive "key-0" "/job:localhost/replica:0/task:0/device:CPU:0" {device = "/job:worker/replica:0/task:1/device:CPU:0"} : tensor<i32>
// CHECK-NEXT:    %[[O:.*]] = tf_device.remote_run "/job:worker/replica:0/task:1" @remote_body(%[[V]]) : (tensor<i32>) -> tensor<i32>
// CHECK-NEXT:    tf_device.remote_run "/job:worker/replica:0/task:2" @remote_body_2() : () -> ()
// GENERIC-LABEL: sym_name = "remote"
// GENERIC:         "tf_device.send"(%arg0) <{dst_host = "/job:worker/replica:0/task:1/device:CPU:0", key = "key-0"}> {device = "/job:localhost/replica:0/task:0/device:CPU:0"} : (tensor<i32>) -> ()
// GENERIC-NEXT:    "tf_device.receive"() <{key = "key-0", src_host = "/job:localhost/replica:0/task:0/device:CPU:0"}> {device = "/job:worker/replica:0/task:1/device:CPU:0"} : () -> tensor<i32>
// GENERIC-NEXT:    "tf_device.remote_run"(%{{.*}}) <{callee = @remote_body, host = "/job:worker/replica:0/task:1"}> : (tensor<i32>) -> tensor<i32>
func.func @remote(%x: tensor<i32>) -> tensor<i32> {
  tf_device.send %x "key-0" "/job:worker/replica:0/task:1/device:CPU:0" {device = "/job:localhost/replica:0/task:0/device:CPU:0"} : tensor<i32>
  %0 = tf_device.receive "key-0" "/job:localhost/replica:0/task:0/device:CPU:0" {device="/job:worker/replica:0/task:1/device:CPU:0"} : tensor<i32>
  %1 = tf_device.remote_run "/job:worker/replica:0/task:1" @remote_body(%0) : (tensor<i32>) -> tensor<i32>
  tf_device.remote_run "/job:worker/replica:0/task:2" @remote_body_2() : () -> ()
  func.return %1 : tensor<i32>
}
func.func private @remote_body(%x: tensor<i32>) -> tensor<i32> {
  func.return %x : tensor<i32>
}
func.func private @remote_body_2() {
  func.return
}
