// tf_executor diagnostics as TensorFlow reports them: both errors of the control-operand order check, an
// unknown !tf_executor type; arith's float ops on unranked tensors inside islands (TensorFlow's tests use them).
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @island_with_unranked_arith
// CHECK: arith.subf %{{.*}}, %{{.*}} : tensor<*xf32>
// CHECK: tf_executor.fetch
func.func @island_with_unranked_arith(%x: tensor<*xf32>) -> tensor<*xf32> {
  %out = tf_executor.graph {
    %diff, %ctl = tf_executor.island {
      %d = arith.subf %x, %x : tensor<*xf32>
      tf_executor.yield %d : tensor<*xf32>
    }
    tf_executor.fetch %diff : tensor<*xf32>
  }
  func.return %out : tensor<*xf32>
}

// -----

func.func @merge_with_data_after_control(%a: tensor<2xi32>, %b: tensor<2xi32>, %c: !tf_executor.control) -> tensor<2xi32> {
  %out = tf_executor.graph {
    // expected-error @+2 {{'tf_executor.Merge' op found non-control operand #2 after control operand}}
    // expected-error @+1 {{'tf_executor.Merge' op failed to verify that all control inputs must appear after any non-control input}}
    %v, %i, %ctl = "tf_executor.Merge"(%a, %c, %b) : (tensor<2xi32>, !tf_executor.control, tensor<2xi32>) -> (tensor<2xi32>, tensor<i32>, !tf_executor.control)
    tf_executor.fetch %v : tensor<2xi32>
  }
  func.return %out : tensor<2xi32>
}

// -----

// expected-error @+1 {{unknown tf_executor type: tensor_handle}}
func.func @unknown_executor_type(%x: !tf_executor.tensor_handle) {
  func.return
}
