// tf_executor IR that TensorFlow's verifiers and parsers refuse: each case is reported at the
// offending op's line with TensorFlow's words, and the driver goes on to the next case.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s

func.func @graph_takes_no_operands(%x: tensor<f32>) {
  "tf_executor.graph"(%x) ({
    "tf_executor.fetch"() : () -> ()
  }) : (tensor<f32>) -> ()
  func.return
}
// CHECK: tf_executor_invalid.mlir:6:3: 'tf_executor.graph' op requires zero operands

// -----

// A TF op directly in a graph (not in an island) is reported at the op, not at the graph.
func.func @op_outside_island(%x: tensor<f32>) {
  tf_executor.graph {
    %0 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:18:5: 'tf.Neg' op unallowed inside a tf_executor.graph region

// -----

func.func @fetch_too_few(%x: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0:2 = "tf_executor.graph"() ({
    "tf_executor.fetch"(%x) : (tensor<f32>) -> ()
  }) : () -> (tensor<f32>, tensor<f32>)
  func.return %0#0, %0#1 : tensor<f32>, tensor<f32>
}
// CHECK: tf_executor_invalid.mlir:29:5: 'tf_executor.fetch' op does not have enough operands to cover the graph returned values

// -----

func.func @fetch_wrong_type(%x: tensor<2xf32>) -> tensor<3xf32> {
  %0 = "tf_executor.graph"() ({
    "tf_executor.fetch"(%x) : (tensor<2xf32>) -> ()
  }) : () -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}
// CHECK: tf_executor_invalid.mlir:39:5: 'tf_executor.fetch' op operand #0 type mismatch graph results (tensor<3xf32> != tensor<2xf32>)

// -----

func.func @fetch_data_after_control(%x: tensor<f32>, %c: !tf_executor.control) {
  tf_executor.graph {
    tf_executor.fetch %c, %x : !tf_executor.control, tensor<f32>
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:49:5: 'tf_executor.fetch' op found non-control operand #1 after control operand

// -----

func.func @island_data_operand(%x: tensor<f32>) {
  tf_executor.graph {
    %0 = "tf_executor.island"(%x) ({
      "tf_executor.yield"() : () -> ()
    }) : (tensor<f32>) -> !tf_executor.control
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:59:5: 'tf_executor.island' op operand #0 must be variadic of control, but got 'tensor<f32>'

// -----

// The island's results must be what its yield yields, then the control token.
func.func @island_yields_wrong_type(%x: tensor<f32>) {
  tf_executor.graph {
    %0:2 = "tf_executor.island"() ({
      "tf_executor.yield"(%x) : (tensor<f32>) -> ()
    }) : () -> (tensor<i32>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:74:7: 'tf_executor.yield' op operand #0 type mismatch island results

// -----

func.func @island_without_yield(%x: tensor<f32>) {
  tf_executor.graph {
    %0 = "tf_executor.island"() ({
      %1 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    }) : () -> !tf_executor.control
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:87:7: 'tf.Neg' op invalid tf_executor.island terminator, yield expected

// -----

func.func @graph_ends_without_fetch() {
  tf_executor.graph {
    func.return
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:98:21: custom op 'tf_executor.graph' expects a tf_executor.fetch terminator

// -----

func.func @switch_on_float(%x: tensor<f32>) {
  tf_executor.graph {
    %0:3 = "tf_executor.Switch"(%x, %x) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:109:5: 'tf_executor.Switch' op operand #1 must be tensor of 1-bit signless integer values, but got 'tensor<f32>'

// -----

func.func @switch_without_predicate(%x: tensor<f32>) {
  tf_executor.graph {
    %0:3 = tf_executor.Switch %x : tensor<f32>
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:120:31: custom op 'tf_executor.Switch'  expects a single data type and a predicate

// -----

func.func @switch_result_of_other_shape(%x: tensor<2xf32>, %p: tensor<i1>) {
  tf_executor.graph {
    %0:3 = "tf_executor.Switch"(%x, %p) : (tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<3xf32>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:131:5: 'tf_executor.Switch' op failed to verify that data operand must be broadcastable to false result

// -----

func.func @merge_of_controls_only(%c: !tf_executor.control) {
  tf_executor.graph {
    %0:3 = "tf_executor.Merge"(%c) : (!tf_executor.control) -> (tensor<f32>, tensor<i32>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:142:5: 'tf_executor.Merge' op expects a non-control input

// -----

func.func @merge_output_narrower(%a: tensor<2xf32>, %b: tensor<5xf32>) {
  tf_executor.graph {
    %0:3 = "tf_executor.Merge"(%a, %b) : (tensor<2xf32>, tensor<5xf32>) -> (tensor<2xf32>, tensor<i32>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:153:5: 'tf_executor.Merge' op expects all operands to be broadcastable with output type but got 'tensor<5xf32>' vs 'tensor<2xf32>'

// -----

func.func @switchn_count(%x: tensor<f32>, %i: tensor<i32>) {
  tf_executor.graph {
    %0:4 = "tf_executor._SwitchN"(%x, %i) {num_outs = 2 : i64} : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<f32>, tensor<f32>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:164:5: 'tf_executor._SwitchN' op expect `num_outs` (2) results but got 3

// -----

func.func @enter_outside_graph(%x: tensor<f32>) {
  %0:2 = tf_executor.Enter %x frame "loop" : tensor<f32>
  func.return
}
// CHECK: tf_executor_invalid.mlir:174:3: 'tf_executor.Enter' op expects parent op 'tf_executor.graph'

// -----

func.func @source_without_sink() {
  tf_executor.graph {
    %0:3 = tf_executor.NextIteration.Source : tensor<f32>
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:183:5: 'tf_executor.NextIteration.Source' op expects a single user for produced token

// -----

func.func @sink_of_other_type(%x: tensor<i32>) {
  tf_executor.graph {
    %0:3 = tf_executor.NextIteration.Source : tensor<f32>
    "tf_executor.NextIteration.Sink"(%0#1, %x) : (!tf_executor.token, tensor<i32>) -> ()
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:195:5: 'tf_executor.NextIteration.Sink' op input type 'tensor<i32>' mismatch the tf_executor.NextIteration.Source output type: 'tensor<f32>'

// -----

func.func @exit_changes_element_type(%x: tensor<f32>) {
  tf_executor.graph {
    %0:2 = "tf_executor.Exit"(%x) : (tensor<f32>) -> (tensor<f16>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:206:5: 'tf_executor.Exit' op failed to verify that data operand must be broadcastable to result

// -----

func.func @loop_cond_on_int(%x: tensor<i32>) {
  tf_executor.graph {
    %0:2 = tf_executor.LoopCond %x : tensor<i32>
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:217:5: 'tf_executor.LoopCond' op operand #0 must be tensor of 1-bit signless integer values, but got 'tensor<i32>'

// -----

func.func @trigger_on_data(%x: tensor<f32>) {
  tf_executor.graph {
    %0 = "tf_executor.ControlTrigger"(%x) : (tensor<f32>) -> !tf_executor.control
    tf_executor.fetch
  }
  func.return
}
// CHECK: tf_executor_invalid.mlir:228:5: 'tf_executor.ControlTrigger' op operand #0 must be variadic of control, but got 'tensor<f32>'
