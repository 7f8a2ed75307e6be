// tf_executor in custom syntax, as tf-opt prints it: a counting tf.while_loop as the GraphDef
// importer writes it, the island forms, the long (functional-type) forms, and the generic form.
// RUN: tinytf-opt %s | tinytf-opt | filecheck %s
// RUN: tinytf-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: tinytf-opt %s -p cse | filecheck %s --check-prefix=CSE

// CHECK-LABEL: func.func @count_to_ten(
// CHECK-NEXT:    = tf_executor.graph {
// CHECK-NEXT:      = tf_executor.island wraps "tf.Const"() <{value = dense<10> : tensor<i32>}> : () -> tensor<i32>
// CHECK-NEXT:      = tf_executor.island wraps "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
// CHECK-NEXT:      = tf_executor.Enter %{{.*}} frame "while/count" parallel_iterations 4 : tensor<i32>
// CHECK-NEXT:      = tf_executor.NextIteration.Source : tensor<i32>
// CHECK-NEXT:      = tf_executor.Merge %{{.*}}, %{{.*}} : tensor<i32>
// CHECK-NEXT:      = tf_executor.Enter %{{.*}} frame "while/count" constant  : tensor<i32>
// CHECK-NEXT:      = tf_executor.island wraps "tf.Less"(%{{.*}}, %{{.*}}) : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK-NEXT:      = tf_executor.LoopCond %{{.*}} : tensor<i1>
// CHECK-NEXT:      = tf_executor.Switch %{{.*}}, %{{.*}} : tensor<i32>
// CHECK-NEXT:      = tf_executor.Exit %{{.*}} : tensor<i32>
// CHECK-NEXT:      = tf_executor.Enter %{{.*}} frame "while/count" constant  : tensor<i32>
// CHECK-NEXT:      = tf_executor.island wraps "tf.AddV2"(%{{.*}}, %{{.*}}) : (tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK-NEXT:      tf_executor.NextIteration.Sink[%{{.*}}] %{{.*}} : tensor<i32>
// CHECK-NEXT:      tf_executor.fetch %{{.*}} : tensor<i32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %{{.*}} : tensor<i32>

// GENERIC-LABEL: sym_name = "count_to_ten"
// GENERIC:       "tf_executor.graph"() ({
// GENERIC-NEXT:    "tf_executor.island"() ({
// GENERIC-NEXT:      "tf.Const"() <{value = dense<10> : tensor<i32>}> : () -> tensor<i32>
// GENERIC-NEXT:      "tf_executor.yield"(%{{.*}}) : (tensor<i32>) -> ()
// GENERIC-NEXT:    }) : () -> (tensor<i32>, !tf_executor.control)
// GENERIC:         "tf_executor.Enter"(%{{.*}}) <{frame_name = "while/count", is_constant = false, parallel_iterations = 4 : i64}> : (tensor<i32>) -> (tensor<i32>, !tf_executor.control)
// GENERIC-NEXT:    "tf_executor.NextIteration.Source"() : () -> (tensor<i32>, !tf_executor.token, !tf_executor.control)
// GENERIC:         "tf_executor.Enter"(%{{.*}}) <{frame_name = "while/count", is_constant = true, parallel_iterations = 10 : i64}>
// GENERIC:         "tf_executor.NextIteration.Sink"(%{{.*}}, %{{.*}}) : (!tf_executor.token, tensor<i32>) -> ()
// GENERIC-NEXT:    "tf_executor.fetch"(%{{.*}}) : (tensor<i32>) -> ()
// GENERIC-NEXT:  }) : () -> tensor<i32>

func.func @count_to_ten(%start: tensor<i32>) -> tensor<i32> {
  %result = tf_executor.graph {
    %limit, %c0 = tf_executor.island wraps "tf.Const"() <{value = dense<10> : tensor<i32>}> : () -> tensor<i32>
    %one, %c1 = tf_executor.island wraps "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %entered, %c2 = tf_executor.Enter %start frame "while/count" parallel_iterations 4 : tensor<i32>
    %back, %token, %c3 = tf_executor.NextIteration.Source : tensor<i32>
    %i, %index, %c4 = tf_executor.Merge %entered, %back : tensor<i32>
    %lim_in, %c5 = tf_executor.Enter %limit frame "while/count" constant : tensor<i32>
    %less, %c6 = tf_executor.island wraps "tf.Less"(%i, %lim_in) : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %cond, %c7 = tf_executor.LoopCond %less : tensor<i1>
    %exit_v, %body_v, %c8 = tf_executor.Switch %i, %cond : tensor<i32>
    %done, %c9 = tf_executor.Exit %exit_v : tensor<i32>
    %one_in, %c10 = tf_executor.Enter %one frame "while/count" constant : tensor<i32>
    %next, %c11 = tf_executor.island wraps "tf.AddV2"(%body_v, %one_in) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tf_executor.NextIteration.Sink [%token] %next : tensor<i32>
    tf_executor.fetch %done : tensor<i32>
  }
  func.return %result : tensor<i32>
}

// Two loops' back edges look alike but are different values: cse keeps both pairs.
// CSE-LABEL: @two_back_edges
// CSE-COUNT-2: tf_executor.NextIteration.Source : tensor<2xf32>
// CSE-COUNT-2: tf_executor.NextIteration.Sink
// CSE-NEXT:    tf_executor.fetch
func.func @two_back_edges() -> (tensor<2xf32>, tensor<2xf32>) {
  %a, %b = tf_executor.graph {
    %v0, %t0, %c0 = tf_executor.NextIteration.Source : tensor<2xf32>
    %v1, %t1, %c1 = tf_executor.NextIteration.Source : tensor<2xf32>
    tf_executor.NextIteration.Sink [%t0] %v0 : tensor<2xf32>
    tf_executor.NextIteration.Sink [%t1] %v1 : tensor<2xf32>
    tf_executor.fetch %v0, %v1 : tensor<2xf32>, tensor<2xf32>
  }
  func.return %a, %b : tensor<2xf32>, tensor<2xf32>
}

// An island prints short ("wraps") only when it holds one op whose results it yields unchanged,
// and has no attributes; control inputs go in parentheses; an empty island still yields.
// CHECK-LABEL: func.func @island_forms
// CHECK:         %[[NOOP:[^ ]*]] = tf_executor.island wraps "tf.NoOp"() : () -> ()
// CHECK-NEXT:    = tf_executor.island(%[[NOOP]]) wraps "tf.Neg"(%{{.*}}) : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    = tf_executor.island {
// CHECK-NEXT:      "tf.Neg"
// CHECK-NEXT:      "tf.Abs"
// CHECK-NEXT:      tf_executor.yield %{{.*}} : tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    = tf_executor.island {
// CHECK-NEXT:      "tf.Neg"
// CHECK-NEXT:      tf_executor.yield %{{.*}} : tensor<f32>
// CHECK-NEXT:    } {_class = "loc:@neg"}
// CHECK-NEXT:    = tf_executor.island {
// CHECK:           %[[PAIR:[^ ]*]]:2 = "tf.Unpack"
// CHECK-NEXT:      tf_executor.yield %[[PAIR]]#1, %[[PAIR]]#0 : tensor<f32>, tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    = tf_executor.island {
// CHECK-NEXT:      tf_executor.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    tf_executor.fetch %{{.*}}, %[[NOOP]] : tensor<f32>, !tf_executor.control
func.func @island_forms(%x: tensor<f32>, %pair: tensor<2xf32>) -> tensor<f32> {
  %r = tf_executor.graph {
    %ctl = tf_executor.island wraps "tf.NoOp"() : () -> ()
    %neg, %ctl_neg = tf_executor.island(%ctl) wraps "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
    %two, %ctl_two = tf_executor.island {
      %0 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
      %1 = "tf.Abs"(%0) : (tensor<f32>) -> tensor<f32>
      tf_executor.yield %1 : tensor<f32>
    }
    %attr, %ctl_attr = tf_executor.island {
      %0 = "tf.Neg"(%x) : (tensor<f32>) -> tensor<f32>
      tf_executor.yield %0 : tensor<f32>
    } {_class = "loc:@neg"}
    %s:3 = tf_executor.island {
      %0:2 = "tf.Unpack"(%pair) <{axis = 0 : i64}> : (tensor<2xf32>) -> (tensor<f32>, tensor<f32>)
      tf_executor.yield %0#1, %0#0 : tensor<f32>, tensor<f32>
    }
    %empty = tf_executor.island {}
    tf_executor.fetch %neg, %ctl : tensor<f32>, !tf_executor.control
  }
  func.return %r : tensor<f32>
}

// An island written in region form around one op whose three ops share a location prints short;
// different locations keep the region form (the short form has room for one). Ops parsed without
// `loc(...)` are located where they are written, as in MLIR, so they never share one.
// CHECK-LABEL: func.func @short_form_needs_one_location
// CHECK-NEXT:    tf_executor.graph {
// CHECK-NEXT:      = tf_executor.island wraps "tf.Sqrt"
// CHECK-NEXT:      = tf_executor.island {
// CHECK-NEXT:        "tf.Sqrt"
func.func @short_form_needs_one_location(%x: tensor<f32>) {
  tf_executor.graph {
    %a, %ca = tf_executor.island {
      %0 = "tf.Sqrt"(%x) : (tensor<f32>) -> tensor<f32> loc("sqrt")
      tf_executor.yield %0 : tensor<f32> loc("sqrt")
    } loc("sqrt")
    %b, %cb = tf_executor.island {
      %0 = "tf.Sqrt"(%x) : (tensor<f32>) -> tensor<f32> loc("sqrt")
      tf_executor.yield %0 : tensor<f32> loc("yield")
    } loc("sqrt")
    tf_executor.fetch
  }
  func.return
}

// Types that differ between operands and results print the functional type.
// CHECK-LABEL: func.func @long_forms
// CHECK:         tf_executor.Switch %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<i1>) -> (tensor<?xf32>, tensor<3xf32>, !tf_executor.control)
// CHECK-NEXT:    tf_executor.Switch %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<*xi1>) -> (tensor<3xf32>, tensor<3xf32>, !tf_executor.control)
// CHECK-NEXT:    tf_executor.Merge %{{[^,]*}} : (tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>, !tf_executor.control)
// CHECK-NEXT:    tf_executor.Merge %{{.*}}, %{{.*}}, %{{.*}} : tensor<3xf32>
// CHECK-NEXT:    tf_executor.Enter %{{.*}} frame "a\22quote\\back" : (tensor<3xf32>) -> (tensor<*xf32>, !tf_executor.control)
// CHECK-NEXT:    tf_executor.LoopCond %{{.*}}, %{{.*}} : (tensor<i1>, !tf_executor.control) -> (tensor<*xi1>, !tf_executor.control)
// CHECK-NEXT:    tf_executor._SwitchN %{{.*}}, %{{.*}} of 3 (%{{.*}}) : tensor<3xf32>
// CHECK-NEXT:    tf_executor.ControlTrigger %{{.*}}, %{{.*}} {_tpu_replicate = "c"}
// CHECK-NEXT:    tf_executor.ControlTrigger {}
// CHECK-NEXT:    tf_executor.Exit %{{.*}}, %{{.*}} : tensor<3xf32>
func.func @long_forms(%x: tensor<3xf32>, %p: tensor<i1>, %up: tensor<*xi1>, %i: tensor<i32>) -> tensor<3xf32> {
  %r = tf_executor.graph {
    %s:3 = tf_executor.Switch %x, %p : (tensor<3xf32>, tensor<i1>) -> (tensor<?xf32>, tensor<3xf32>, !tf_executor.control)
    %u:3 = "tf_executor.Switch"(%x, %up) : (tensor<3xf32>, tensor<*xi1>) -> (tensor<3xf32>, tensor<3xf32>, !tf_executor.control)
    %m1:3 = tf_executor.Merge %x : (tensor<3xf32>) -> (tensor<3xf32>, tensor<i32>, !tf_executor.control)
    %m2:3 = tf_executor.Merge %x, %x, %s#2 : tensor<3xf32>
    %e:2 = tf_executor.Enter %x frame "a\"quote\\back" : (tensor<3xf32>) -> (tensor<*xf32>, !tf_executor.control)
    %l:2 = tf_executor.LoopCond %p, %e#1 : (tensor<i1>, !tf_executor.control) -> (tensor<*xi1>, !tf_executor.control)
    %n:4 = tf_executor._SwitchN %x, %i of 3 (%m1#2) : tensor<3xf32>
    %t = tf_executor.ControlTrigger %m1#2, %n#3 {_tpu_replicate = "c"}
    %t0 = tf_executor.ControlTrigger {}
    %out:2 = tf_executor.Exit %u#1, %t : tensor<3xf32>
    tf_executor.fetch %out#0 : tensor<3xf32>
  }
  func.return %r : tensor<3xf32>
}

// Subtypes count: a variant without subtypes is not the output's variant type, so the long form.
// CHECK-LABEL: func.func @merge_variants
// CHECK:         tf_executor.Merge %{{.*}}, %{{.*}} : (tensor<!tf_type.variant>, tensor<!tf_type.variant<tensor<4xi32>>>) -> (tensor<!tf_type.variant<tensor<4xi32>>>, tensor<i32>, !tf_executor.control)
func.func @merge_variants(%a: tensor<!tf_type.variant>, %b: tensor<!tf_type.variant<tensor<4xi32>>>) {
  tf_executor.graph {
    %m:3 = "tf_executor.Merge"(%a, %b) : (tensor<!tf_type.variant>, tensor<!tf_type.variant<tensor<4xi32>>>) -> (tensor<!tf_type.variant<tensor<4xi32>>>, tensor<i32>, !tf_executor.control)
    tf_executor.fetch
  }
  func.return
}

// The generic form parses; properties written in the attribute dictionary (older text) are read
// as properties; the empty graph gets its fetch.
// CHECK-LABEL: func.func private @types(!tf_executor.control, !tf_executor.token) -> !tf_executor.control
// CHECK-LABEL: func.func @generic_input
// CHECK-NEXT:    = tf_executor.graph {
// CHECK-NEXT:      %outputs, %control = tf_executor.island {
// CHECK-NEXT:        "tf.Identity"
// CHECK-NEXT:        tf_executor.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      %output, %control_0 = tf_executor.Enter %outputs frame "f" parallel_iterations 3 : tensor<f32>
// CHECK-NEXT:      %outputs_1:2, %control_2 = tf_executor._SwitchN %arg0, %arg1 of 2 : tensor<f32> {_some = 1 : i64}
// CHECK-NEXT:      tf_executor.fetch %outputs : tensor<f32>
// CHECK-NEXT:    } {_graph = "g"}
// CHECK-NEXT:    tf_executor.graph {
// CHECK-NEXT:      tf_executor.fetch
// CHECK-NEXT:    }
func.func private @types(!tf_executor.control, !tf_executor.token) -> !tf_executor.control

func.func @generic_input(%x: tensor<f32>, %i: tensor<i32>) -> tensor<f32> {
  %r = "tf_executor.graph"() ({
    %0:2 = "tf_executor.island"() ({
      %1 = "tf.Identity"(%x) : (tensor<f32>) -> tensor<f32>
      "tf_executor.yield"(%1) : (tensor<f32>) -> ()
    }) : () -> (tensor<f32>, !tf_executor.control)
    %2:2 = "tf_executor.Enter"(%0#0) {frame_name = "f", is_constant = false, parallel_iterations = 3 : i64} : (tensor<f32>) -> (tensor<f32>, !tf_executor.control)
    %3:3 = "tf_executor._SwitchN"(%x, %i) {num_outs = 2 : i64, _some = 1 : i64} : (tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<f32>, !tf_executor.control)
    "tf_executor.fetch"(%0#0) : (tensor<f32>) -> ()
  }) {_graph = "g"} : () -> tensor<f32>
  tf_executor.graph {}
  func.return %r : tensor<f32>
}
