// RUN: tinytf-opt %s --split-input-file --verify-diagnostics -p tf-tpu-sharding-identification | filecheck %s

// Under SPMD an argument takes the sharding of the XlaSharding it reaches (through a read, an
// Identity and an elementwise op keeping the shape); what is not annotated is replicated ("").
// Both string forms pass through unchanged: HLO text and serialized OpSharding bytes. A returned
// value takes the sharding found going back through its operands, the last operand first.

// CHECK-LABEL: func.func @spmd_inputs_and_outputs
// CHECK:      "tf_device.cluster_func"
// CHECK-SAME: input_sharding_configuration = ["{devices=[2,1]0,1}", "\08\03\1A\02\01\02\22\02\00\01", ""]
// CHECK-SAME: num_cores_per_replica = 1 : i64
// CHECK-SAME: output_sharding_configuration = ["\08\03\1A\02\01\02\22\02\00\01", ""]
// CHECK-SAME: use_spmd_for_xla_partitioning = true
// CHECK-LABEL: func.func @device
// CHECK-SAME: %{{.*}}: tensor<4x8xf32> {mhlo.sharding = "{devices=[2,1]0,1}"}
// CHECK-SAME: %{{.*}}: tensor<*x!tf_type.resource<tensor<4x8xf32>>> {mhlo.sharding = "\08\03\1A\02\01\02\22\02\00\01"}
// CHECK-SAME: %{{.*}}: tensor<f32> {mhlo.sharding = ""}
// CHECK-SAME: -> (tensor<4x8xf32> {mhlo.sharding = "\08\03\1A\02\01\02\22\02\00\01"}, tensor<f32> {mhlo.sharding = ""})
func.func @spmd_inputs_and_outputs(%x: tensor<4x8xf32>, %v: tensor<*x!tf_type.resource<tensor<4x8xf32>>>, %s: tensor<f32>) {
  %0:2 = "tf_device.cluster_func"(%x, %v, %s) <{func = @device}> {num_cores_per_replica = 1 : i64, use_spmd_for_xla_partitioning = true} : (tensor<4x8xf32>, tensor<*x!tf_type.resource<tensor<4x8xf32>>>, tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>)
  func.return
}
func.func @device(%x: tensor<4x8xf32>, %v: tensor<*x!tf_type.resource<tensor<4x8xf32>>>, %s: tensor<f32>) -> (tensor<4x8xf32>, tensor<f32>) {
  %0 = "tf.Identity"(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = "tf.Tanh"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = "tf.XlaSharding"(%1) <{sharding = "{devices=[2,1]0,1}", _XlaSharding = "{devices=[2,1]0,1}"}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = "tf.ReadVariableOp"(%v) : (tensor<*x!tf_type.resource<tensor<4x8xf32>>>) -> tensor<4x8xf32>
  %4 = "tf.XlaSharding"(%3) <{_XlaSharding = "\08\03\1A\02\01\02\22\02\00\01"}> : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = "tf.AddV2"(%2, %4) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = "tf.Mul"(%s, %s) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %5, %6 : tensor<4x8xf32>, tensor<f32>
}

// -----

// Without SPMD the default is maximal sharding on logical core 0 (serialized). An elementwise op
// that changes the shape (broadcasting a scalar) stops the search for the argument's sharding.

// CHECK-LABEL: func.func @mpmd_defaults
// CHECK:      input_sharding_configuration = ["\08\01\1A\01\01\22\01\00"]
// CHECK-SAME: output_sharding_configuration = ["{devices=[4]0,1,2,3}"]
func.func @mpmd_defaults(%s: tensor<f32>) {
  %0 = "tf_device.cluster_func"(%s) <{func = @device}> {num_cores_per_replica = 1 : i64} : (tensor<f32>) -> tensor<4xf32>
  func.return
}
func.func @device(%s: tensor<f32>) -> tensor<4xf32> {
  %c = "tf.Const"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "tf.Mul"(%c, %s) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = "tf.XlaSharding"(%0) <{_XlaSharding = "{devices=[4]0,1,2,3}"}> : (tensor<4xf32>) -> tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// Into a call: the callee's XlaSharding on its argument; and an aliased argument gives its output
// its sharding.

// CHECK-LABEL: func.func @through_call_and_alias
// CHECK:      input_sharding_configuration = ["{devices=[1,2]0,1}"]
// CHECK-SAME: output_sharding_configuration = ["{devices=[1,2]0,1}"]
// CHECK-LABEL: func.func @device
// CHECK-SAME: {mhlo.sharding = "{devices=[1,2]0,1}", tf.aliasing_output = 0 : i64}
func.func @through_call_and_alias(%x: tensor<2x2xf32>) {
  %0 = "tf_device.cluster_func"(%x) <{func = @device}> {num_cores_per_replica = 1 : i64, use_spmd_for_xla_partitioning = true} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return
}
func.func @device(%x: tensor<2x2xf32> {tf.aliasing_output = 0 : i64}) -> tensor<2x2xf32> {
  %0 = "tf.StatefulPartitionedCall"(%x) <{config = "", config_proto = "", executor_type = "", f = @callee}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = "tf.Relu"(%0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %1 : tensor<2x2xf32>
}
func.func private @callee(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = "tf.XlaSharding"(%x) <{sharding = "{devices=[1,2]0,1}"}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

// A maximal sharding under SPMD falls back to MPMD: SPMD off, and only explicit partitioned inputs
// count (the XlaSharding inside is not used; the default is core 0).

// CHECK-LABEL: func.func @maximal_falls_back
// CHECK:      input_sharding_configuration = ["\08\01\1A\01\01\22\01\00", "\08\01\1A\01\01\22\01\00"]
// CHECK-SAME: use_spmd_for_xla_partitioning = false
func.func @maximal_falls_back(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  "tf_device.cluster_func"(%x, %y) <{func = @device}> {num_cores_per_replica = 1 : i64, use_spmd_for_xla_partitioning = true} : (tensor<4xf32>, tensor<4xf32>) -> ()
  func.return
}
func.func @device(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  %0 = "tf.XlaSharding"(%x) <{_XlaSharding = "{maximal device=0}"}> : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tf.XlaSharding"(%y) <{_XlaSharding = "{devices=[2]0,1}"}> : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// A sharding that tiles more dims than the value has also falls back (to core 0).

// CHECK-LABEL: func.func @too_many_tiled_dims
// CHECK:      input_sharding_configuration = ["\08\01\1A\01\01\22\01\00"]
// CHECK-SAME: use_spmd_for_xla_partitioning = false
// CHECK-LABEL: func.func @device
// CHECK-SAME: (%{{.*}}: tensor<4x4xf32> {mhlo.sharding = "\08\01\1A\01\01\22\01\00"})
func.func @too_many_tiled_dims(%x: tensor<4x4xf32>) {
  "tf_device.cluster_func"(%x) <{func = @device}> {num_cores_per_replica = 1 : i64} : (tensor<4x4xf32>) -> ()
  func.return
}
func.func @device(%x: tensor<4x4xf32>) {
  %0 = "tf.Identity"(%x) {_XlaSharding = "{devices=[2,1,1]0,1}"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "tf.Neg"(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = "tf.XlaSharding"(%1) <{_XlaSharding = "\08\03\1A\03\02\01\01\22\02\00\01"}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return
}

// -----

// Errors: the cluster must say how many cores a replica has; two spellings of one sharding must agree.

func.func @no_cores(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tf_device.cluster_func' op requires attribute 'num_cores_per_replica'}}
  "tf_device.cluster_func"(%x) <{func = @device}> : (tensor<2xf32>) -> ()
  func.return
}
func.func @device(%x: tensor<2xf32>) {
  func.return
}

// -----

func.func @disagreeing_spellings(%x: tensor<2xf32>) {
  // expected-error @+1 {{_XlaShardingV2 is not equivalent to _XlaSharding: {devices=[2]<=[2]} vs {devices=[2]1,0}}}
  "tf_device.cluster_func"(%x) <{func = @device}> {num_cores_per_replica = 1 : i64} : (tensor<2xf32>) -> ()
  func.return
}
func.func @device(%x: tensor<2xf32>) {
  %0 = "tf.XlaSharding"(%x) <{_XlaSharding = "{devices=[2]1,0}", _XlaShardingV2 = "{devices=[2]<=[2]}"}> : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}
