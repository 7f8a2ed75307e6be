// RUN: %python -c "import numpy as np; np.savez('%t.npz', arg0=np.zeros((4, 3), np.float32), arg1=np.array([[1, 2], [3, 4], [5, 6]], np.float32), arg2=np.array([0.5, -0.5], np.float32), arg3=np.float32(7))"
// RUN: tinytf-opt %s --split-input-file -p 'tf-freeze-variables{weights="%t.npz"}' | filecheck %s
// RUN: %python -c "import numpy as np; np.savez('%t.missing.npz', arg1=np.ones((3, 2), np.float32))"
// RUN: not tinytf-opt %s -p 'tf-freeze-variables{weights="%t.missing.npz" entry="dense"}' 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: %python -c "import numpy as np; np.savez('%t.int.npz', arg1=np.ones((3, 2), np.int32), arg2=np.ones(2, np.float32))"
// RUN: not tinytf-opt %s -p 'tf-freeze-variables{weights="%t.int.npz" entry="dense"}' 2>&1 | filecheck %s --check-prefix=DTYPE
// RUN: %python -c "import numpy as np; np.savez('%t.shape.npz', arg1=np.ones((3, 2), np.float32), arg2=np.ones(3, np.float32))"
// RUN: not tinytf-opt %s -p 'tf-freeze-variables{weights="%t.shape.npz" entry="dense"}' 2>&1 | filecheck %s --check-prefix=SHAPE

// A Keras Dense layer as TensorFlow exports it: both resources are only read, so both become
// constants (of the npz values' exact types, at the top), and the function loses the arguments,
// their arg attributes and their names in tf.entry_function; control_outputs (the reads) empties.

// CHECK-LABEL: func.func @dense(%arg0: tensor<4x3xf32> {tf._user_specified_name = "x"}) -> tensor<4x?xf32>
// CHECK-SAME:    tf.entry_function = {control_outputs = "", inputs = "x", outputs = "identity_RetVal"}
// CHECK-NEXT:    %[[W:.*]] = "tf.Const"() <{value = dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>}> : () -> tensor<3x2xf32>
// CHECK-NEXT:    %[[B:.*]] = "tf.Const"() <{value = dense<[5.000000e-01, -5.000000e-01]> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = "tf.MatMul"(%arg0, %[[W]]) {{.*}} : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x?xf32>
// CHECK-NEXT:    "tf.BiasAdd"(%[[M]], %[[B]]) {{.*}} : (tensor<4x?xf32>, tensor<2xf32>) -> tensor<4x?xf32>
// CHECK-NOT:     tf.ReadVariableOp
// CHECK:         return

// MISSING: error: weights: no value for resource argument arg2 of @dense
// DTYPE: error: weights arg1 (argument 1 of @dense) has dtype int32, but the model reads it as float32
// SHAPE: error: weights do not fit @dense: {{.*}}tf-freeze-variables.mlir:{{[0-9]+}}:3: tf.BiasAdd: bias [3] does not match the channels of value [4,2] (NHWC)
func.func @dense(%arg0: tensor<4x3xf32> {tf._user_specified_name = "x"}, %arg1: tensor<*x!tf_type.resource> {tf._user_specified_name = "resource"}, %arg2: tensor<*x!tf_type.resource> {tf._user_specified_name = "resource"}) -> tensor<4x?xf32> attributes {allow_soft_placement = false, tf.entry_function = {control_outputs = "dense/MatMul/ReadVariableOp,dense/BiasAdd/ReadVariableOp", inputs = "x,dense_matmul_readvariableop_resource,dense_biasadd_readvariableop_resource", outputs = "identity_RetVal"}} {
  %0 = "tf.ReadVariableOp"(%arg1) {device = ""} : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %1 = "tf.ReadVariableOp"(%arg2) {device = ""} : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %2 = "tf.MatMul"(%arg0, %0) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> {device = ""} : (tensor<4x3xf32>, tensor<*xf32>) -> tensor<4x?xf32>
  %3 = "tf.BiasAdd"(%2, %1) <{data_format = "NHWC"}> {device = ""} : (tensor<4x?xf32>, tensor<*xf32>) -> tensor<4x?xf32>
  %4 = "tf.Identity"(%3) {device = ""} : (tensor<4x?xf32>) -> tensor<4x?xf32>
  return %4 : tensor<4x?xf32>
}

// -----

// A train step: W (arg2) is assigned, so it stays a resource argument with its reads; b (arg3,
// read twice) is frozen to one constant; a read returned directly keeps its declared type.

// CHECK-LABEL: func.func @train_step(%arg0: tensor<4x3xf32>, %arg1: tensor<*xf32>, %arg2: tensor<*x!tf_type.resource>) -> (tensor<*xf32>, tensor<*xf32>)
// CHECK-SAME:    inputs = "x,y,w"
// CHECK-NEXT:    %[[B:.*]] = "tf.Const"() <{value = dense<7.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// CHECK-NEXT:    %[[BR:.*]] = "tf.Const"() <{value = dense<7.000000e+00> : tensor<f32>}> : () -> tensor<*xf32>
// CHECK-NEXT:    %[[W:.*]] = "tf.ReadVariableOp"(%arg2)
// CHECK-NEXT:    "tf.AddV2"(%[[W]], %[[B]])
// CHECK-NEXT:    "tf.AssignSubVariableOp"(%arg2
// CHECK-NEXT:    return %{{.*}}, %[[BR]] : tensor<*xf32>, tensor<*xf32>
func.func @train_step(%arg0: tensor<4x3xf32>, %arg1: tensor<*xf32>, %arg2: tensor<*x!tf_type.resource>, %arg3: tensor<*x!tf_type.resource>) -> (tensor<*xf32>, tensor<*xf32>) attributes {tf.entry_function = {control_outputs = "AssignSub", inputs = "x,y,w,b", outputs = "a,b"}} {
  %0 = "tf.ReadVariableOp"(%arg2) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %1 = "tf.ReadVariableOp"(%arg3) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %2 = "tf.AddV2"(%0, %1) : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  "tf.AssignSubVariableOp"(%arg2, %2) : (tensor<*x!tf_type.resource>, tensor<*xf32>) -> ()
  %3 = "tf.ReadVariableOp"(%arg3) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  func.return %2, %3 : tensor<*xf32>, tensor<*xf32>
}

// -----

// A resource passed on to a call stays a variable (the callee might assign it); with nothing to
// freeze, the function is unchanged.

// CHECK-LABEL: func.func @passed_on(%arg0: tensor<*x!tf_type.resource>) -> tensor<*xf32>
// CHECK-SAME:    inputs = "v"
// CHECK-NEXT:    "tf.StatefulPartitionedCall"(%arg0)
func.func @passed_on(%arg0: tensor<*x!tf_type.resource>) -> tensor<*xf32> attributes {tf.entry_function = {control_outputs = "", inputs = "v", outputs = "out"}} {
  %0 = "tf.StatefulPartitionedCall"(%arg0) <{config = "", config_proto = "", executor_type = "", f = @read}> : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
func.func private @read(%arg0: tensor<*x!tf_type.resource>) -> tensor<*xf32> {
  %0 = "tf.ReadVariableOp"(%arg0) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}
