// The tf_saved_model dialect's checks (TensorFlow's verifier, its messages): a module with
// tf_saved_model.semantics stands for a SavedModel. Every expectation must be reported on its line.
// RUN: tinytf-opt %s --split-input-file --verify-diagnostics | filecheck %s

// A well-formed module prints back; the dialect's ops keep their attributes as properties, as TF prints them.
// CHECK-LABEL: module attributes {tf_saved_model.semantics}
// CHECK: "tf_saved_model.global_tensor"() <{is_mutable, sym_name = "w", type = tensor<2xf32>, value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> ()
// CHECK: "tf_saved_model.asset"() <{filename = "vocab.txt", sym_name = "vocab"}> : () -> ()
// CHECK: func.func @serve
// CHECK: func.func private @helper
module attributes {tf_saved_model.semantics} {
  "tf_saved_model.global_tensor"() {is_mutable, sym_name = "w", type = tensor<2xf32>, value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> ()
  "tf_saved_model.asset"() {filename = "vocab.txt", sym_name = "vocab"} : () -> ()
  func.func @serve(%x: tensor<2xf32> {tf_saved_model.index_path = ["x"]},
                   %w: tensor<!tf_type.resource<tensor<2xf32>>> {tf_saved_model.bound_input = @w},
                   %file: tensor<!tf_type.string> {tf_saved_model.bound_input = @vocab})
      -> (tensor<2xf32> {tf_saved_model.index_path = ["y"]}) attributes {tf_saved_model.exported_names = ["serve"]} {
    %0 = "tf.PartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @helper}> : (tensor<2xf32>) -> tensor<2xf32>
    func.return %0 : tensor<2xf32>
  }
  func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
    func.return %x : tensor<2xf32>
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-note @+1 {{previously seen here}}
  func.func @a() attributes {tf_saved_model.exported_names = ["run"]} {
    func.return
  }
  // expected-error @+1 {{duplicate exported name 'run'}}
  func.func @b() attributes {tf_saved_model.exported_names = ["run"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  func.func @outer() attributes {tf_saved_model.exported_names = ["outer"]} {
    // expected-error @+1 {{exported function cannot be internally referenced}}
    "tf.StatefulPartitionedCall"() <{config = "", config_proto = "", executor_type = "", f = @inner}> : () -> ()
    func.return
  }
  // expected-note @+1 {{references this exported function}}
  func.func @inner() attributes {tf_saved_model.exported_names = ["inner"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{non-exported function @loose should be private}}
  func.func @loose() {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{exported function @hidden should be public}}
  func.func private @hidden() attributes {tf_saved_model.exported_names = ["hidden"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{all arguments should have 'tf_saved_model.index_path', 'tf_saved_model.bound_input' or 'tf.resource_name' attributes}}
  func.func @bare(%x: tensor<i32>) attributes {tf_saved_model.exported_names = ["bare"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  "tf_saved_model.global_tensor"() {is_mutable, sym_name = "v", type = tensor<3xi32>, value = dense<0> : tensor<3xi32>} : () -> ()
  // expected-error @+1 {{bound input with type 'tensor<3xi32>' expected to have type 'tensor<!tf_type.resource<tensor<3xi32>>>'}}
  func.func @read(%v: tensor<3xi32> {tf_saved_model.bound_input = @v}) attributes {tf_saved_model.exported_names = ["read"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{'tf_saved_model.index_path' elements should be strings or 64-bit integers}}
  func.func @f(%x: tensor<i32> {tf_saved_model.index_path = [2 : i32]}) attributes {tf_saved_model.exported_names = ["f"]} {
    func.return
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{'type' attribute for immutable 'tf_saved_model.global_tensor' should have a static shape}}
  "tf_saved_model.global_tensor"() {sym_name = "c", type = tensor<*xf32>, value = dense<1.0> : tensor<2xf32>} : () -> ()
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{'type' and 'value' attributes should have compatible tensor types}}
  "tf_saved_model.global_tensor"() {is_mutable, sym_name = "c", type = tensor<2xi32>, value = dense<1.0> : tensor<2xf32>} : () -> ()
}

// -----

module attributes {tf_saved_model.semantics} {
  // expected-error @+1 {{the initializer function should have no output}}
  "tf_saved_model.session_initializer"() {initializers = [@setup]} : () -> ()
  func.func @setup() -> (tensor<i1> {tf_saved_model.index_path = []}) attributes {tf_saved_model.exported_names = ["setup"]} {
    %t = "tf.Const"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    func.return %t : tensor<i1>
  }
}

// -----

module attributes {tf_saved_model.semantics} {
  "tf_saved_model.session_initializer"() {initializers = [@setup]} : () -> ()
  // expected-error @+1 {{tf_saved_model.initializer_type should be one of 'restore_op' or 'init_op'. Got: warm_up}}
  func.func @setup() attributes {tf_saved_model.exported_names = ["setup"], tf_saved_model.initializer_type = "warm_up"} {
    func.return
  }
}

// -----

// expected-error @+1 {{'tf_saved_model.semantics' must be on a module op}}
"test.op"() {tf_saved_model.semantics} : () -> ()

// -----

// expected-error @+1 {{unknown tf_saved_model dialect attribute 'tf_saved_model.signature'}}
"test.op"() {tf_saved_model.signature} : () -> ()
