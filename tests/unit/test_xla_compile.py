"""tt.xla.compile and XlaFunction: compile results in TensorFlow's format, resources, donation,
64-bit types, control flow, compile-time constant arguments, errors, and tinytf-translate."""
from __future__ import annotations

import subprocess
import sys

import jax
import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir, xla
from tinytf.errors import InvalidArgumentError, NotFoundError, UnimplementedError

RES = "tensor<*x!tf_type.resource>"

ADD = """func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = "tf.AddV2"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}"""


def module(text):
    m = mlir.parse(text)
    mlir.verify(m)
    return m


# --- the compile result ---------------------------------------------------------------------

def test_add_scalars_compile_result():
    r = xla.compile(module(ADD), [(), ()])
    assert str(r) == ("// InputMapping {0, 1}\n// XlaInputShape f32[]\n// XlaInputShape f32[]\n"
                      "// XlaOutputShape (f32[])\n// XlaOutputDescription type=float shape=()\n")
    assert r.input_mapping == [0, 1] and [str(s) for s in r.xla_input_shapes] == ["f32[]", "f32[]"]
    assert str(r.xla_output_shape) == "(f32[])" and len(r.xla_output_shape) == 1
    assert r.outputs[0].dtype is tt.float32 and r.outputs[0].shape == () and r.resource_updates == []
    assert r.text().startswith("HloModule ") and r.text().endswith(str(r))
    assert "ROOT" in r.hlo_module_text and "add(" in r.hlo_module_text
    np.testing.assert_allclose(r.compiled(np.float32(1.5), np.float32(2.0)), 3.5)


def test_return_tuple_and_tuple_args_shape_the_entry_computation():
    m = module(ADD)
    plain = xla.compile(m, [(), ()], return_tuple=False).hlo_module_text
    assert "->f32[]}" in plain and "tuple(" not in plain
    tupled = xla.compile(m, [(), ()], use_tuple_args=True, return_tuple=True)
    assert "entry_computation_layout={((f32[], f32[]))->(f32[])}" in tupled.hlo_module_text
    assert "get-tuple-element(" in tupled.hlo_module_text
    assert [str(s) for s in tupled.xla_input_shapes] == ["(f32[], f32[])"]
    assert str(tupled).splitlines()[1] == "// XlaInputShape (f32[], f32[])"


def test_output_descriptions_dims_input_index_and_constant():
    m = module("""func.func @main(%x: tensor<*xf32>, %w: tensor<3x2xf32>) -> (tensor<*xf32>, tensor<3x2xf32>, tensor<i32>) {
  %0 = "tf.MatMul"(%x, %w) <{transpose_a = false, transpose_b = false}> : (tensor<*xf32>, tensor<3x2xf32>) -> tensor<*xf32>
  %1 = "tf.Identity"(%w) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %c = "tf.Const"() <{value = dense<7> : tensor<i32>}> : () -> tensor<i32>
  func.return %0, %1, %c : tensor<*xf32>, tensor<3x2xf32>, tensor<i32>
}""")
    r = xla.compile(m, ["4,3", None])
    assert str(r).splitlines()[3:] == [
        "// XlaOutputShape (f32[4,2], f32[3,2], s32[])",
        "// XlaOutputDescription type=float shape=(4, 2)",
        "// XlaOutputDescription type=float shape=(3, 2) input_index=1",
        "// XlaOutputDescription type=int32 shape=() constant"]


ASSIGN = f"""func.func @main(%a: tensor<2xf32>, %v: {RES}) {{
  "tf.AssignVariableOp"(%v, %a) <{{validate_shape = false}}> : ({RES}, tensor<2xf32>) -> ()
  func.return
}}"""


def test_resource_assign_is_a_donated_resource_update():
    r = xla.compile(module(ASSIGN), "2:2", ["parameter", "resource"], input_dtypes=["DT_FLOAT", "DT_FLOAT"])
    assert str(r).splitlines() == ["// InputMapping {0, 1}", "// XlaInputShape f32[2]", "// XlaInputShape f32[2]",
                                   "// XlaOutputShape (f32[2])",
                                   "// ResourceUpdate input_index=1 type=float shape=(2) modified"]
    assert r.donated == [1]
    assert "input_output_alias={ {0}: (1, {}, may-alias) }" in r.hlo_module_text
    assert r.memory_analysis().alias_size_in_bytes == 8


def test_resource_update_dims_are_space_separated_and_updates_follow_outputs():
    m = module(f"""func.func @main(%x: tensor<2x3xf32>, %v: {RES}, %u: {RES}) -> tensor<2x3xf32> {{
  %r = "tf.ReadVariableOp"(%v) : ({RES}) -> tensor<2x3xf32>
  %s = "tf.AddV2"(%r, %x) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "tf.AssignAddVariableOp"(%v, %x) : ({RES}, tensor<2x3xf32>) -> ()
  %q = "tf.ReadVariableOp"(%u) : ({RES}) -> tensor<i32>
  func.return %s : tensor<2x3xf32>
}}""")
    r = xla.compile(m, [(2, 3), (2, 3), ()])
    assert str(r).splitlines()[4:] == ["// XlaOutputShape (f32[2,3], f32[2,3])",
                                       "// XlaOutputDescription type=float shape=(2, 3)",
                                       "// ResourceUpdate input_index=1 type=float shape=(2 3) modified"]
    v, u = tt.Variable(np.ones((2, 3), np.float32)), tt.Variable(np.int32(4))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (s,) = xla.run_module(m, "main", [x, v, u])
    np.testing.assert_array_equal(s, 1 + x)
    np.testing.assert_array_equal(v.numpy(), 1 + x)   # AssignAdd happened after the read
    assert u.numpy() == 4


ALIASED = """func.func @main(%w: tensor<4xf32> {tf.aliasing_output = 0 : i64}, %g: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tf.Sub"(%w, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}"""


def test_aliasing_output_argument_is_donated():
    m = module(ALIASED)
    r = xla.compile(m, [(4,), (4,)])
    assert r.donated == [0] and "input_output_alias={ {0}: (0, {}, may-alias) }" in r.hlo_module_text
    untupled = xla.compile(m, [(4,), (4,)], return_tuple=False).hlo_module_text
    assert "input_output_alias={ {}: (0, {}, may-alias) }" in untupled
    assert str(r).splitlines()[-1] == "// XlaOutputDescription type=float shape=(4) input_index=0"
    as_update = xla.compile(m, [(4,), (4,)], use_resource_updates_for_aliases=True)
    assert as_update.outputs == [] and str(as_update).splitlines()[-1] == \
        "// ResourceUpdate input_index=0 type=float shape=(4) modified"


def test_using_a_donated_buffer_raises():
    f = xla.XlaFunction(module(ALIASED))
    w, g = jax.numpy.ones(4), np.full(4, 0.5, np.float32)
    (out,) = f(w, g)
    np.testing.assert_array_equal(out, [0.5] * 4)
    assert w.is_deleted()
    with pytest.raises(InvalidArgumentError, match="donated"):
        f(w, g)
    # numpy arguments are copied to the device: the caller's array stays valid
    w_np = np.ones(4, np.float32)
    f(w_np, g)
    f(w_np, g)
    np.testing.assert_array_equal(w_np, 1.0)


def sgd_step(n: int, batch: int = 8) -> str:
    """loss = sum((x @ w - y)^2); w -= 0.01 * dloss/dw, the gradient written out by hand."""
    x, w, y = f"tensor<{batch}x{n}xf32>", f"tensor<{n}x{n}xf32>", f"tensor<{batch}x{n}xf32>"
    return f"""func.func @step(%x: {x}, %y: {y}, %w: {RES}) -> tensor<f32> {{
  %wv = "tf.ReadVariableOp"(%w) : ({RES}) -> {w}
  %p = "tf.MatMul"(%x, %wv) <{{transpose_a = false, transpose_b = false}}> : ({x}, {w}) -> {y}
  %d = "tf.Sub"(%p, %y) : ({y}, {y}) -> {y}
  %sq = "tf.Square"(%d) : ({y}) -> {y}
  %axes = "tf.Const"() <{{value = dense<[0, 1]> : tensor<2xi32>}}> : () -> tensor<2xi32>
  %loss = "tf.Sum"(%sq, %axes) <{{keep_dims = false}}> : ({y}, tensor<2xi32>) -> tensor<f32>
  %g = "tf.MatMul"(%x, %d) <{{transpose_a = true, transpose_b = false}}> : ({x}, {y}) -> {w}
  %lr = "tf.Const"() <{{value = dense<2.000000e-02> : tensor<f32>}}> : () -> tensor<f32>
  %u = "tf.Mul"(%g, %lr) : ({w}, tensor<f32>) -> {w}
  "tf.AssignSubVariableOp"(%w, %u) : ({RES}, {w}) -> ()
  func.return %loss : tensor<f32>
}}"""


def peak(stats) -> int:
    return stats.argument_size_in_bytes + stats.output_size_in_bytes - stats.alias_size_in_bytes + \
        stats.temp_size_in_bytes


def test_donation_lowers_peak_memory_of_an_in_place_update():
    m = module(sgd_step(1024, batch=1))  # a rank-1 gradient: XLA updates the weight in place
    shapes = [(1, 1024), (1, 1024), (1024, 1024)]
    donating = xla.compile(m, shapes, input_dtypes=[None, None, "float32"]).memory_analysis()
    plain = xla.compile(m, shapes, input_dtypes=[None, None, "float32"], donate=False).memory_analysis()
    weight = 1024 * 1024 * 4
    assert donating.alias_size_in_bytes == weight and plain.alias_size_in_bytes == 0
    assert peak(donating) <= peak(plain) - weight + weight // 16


def test_donating_training_step_aliases_its_weight():
    m = module(sgd_step(256))
    donating = xla.compile(m, [(8, 256), (8, 256), (256, 256)], input_dtypes=[None, None, "float32"])
    plain = xla.compile(m, [(8, 256), (8, 256), (256, 256)], input_dtypes=[None, None, "float32"], donate=False)
    weight = 256 * 256 * 4
    assert donating.memory_analysis().alias_size_in_bytes == weight
    assert plain.memory_analysis().alias_size_in_bytes == 0
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 256), np.float32), rng.standard_normal((8, 256), np.float32)
    w0 = rng.standard_normal((256, 256), np.float32) * 0.05
    v_graph, v_xla = tt.Variable(w0), tt.Variable(w0)
    want = tt.load_mlir(sgd_step(256)).run(x, y, v_graph)
    got = xla.run_module(m, "step", [x, y, v_xla])
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    np.testing.assert_allclose(v_xla.numpy(), v_graph.numpy(), rtol=1e-5, atol=1e-6)
    # device arrays in, device arrays out: the weight's buffer is reused
    f = xla.XlaFunction(m)
    w = jax.numpy.asarray(w0)
    _, updates = f.call_raw(x, y, w)
    assert w.is_deleted() and set(updates) == {2}
    with pytest.raises(InvalidArgumentError, match="donated"):
        f.call_raw(x, y, w)


# --- types and control flow -----------------------------------------------------------------

def test_float64_and_int64_without_changing_jax_config():
    m = module("""func.func @main(%x: tensor<3xf64>, %i: tensor<3xi64>) -> (tensor<3xf64>, tensor<i64>) {
  %c = "tf.Const"() <{value = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = "tf.Mul"(%x, %x) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %1 = "tf.Sum"(%i, %c) <{keep_dims = false}> : (tensor<3xi64>, tensor<1xi32>) -> tensor<i64>
  func.return %0, %1 : tensor<3xf64>, tensor<i64>
}""")
    before = jax.config.jax_enable_x64
    x = np.array([1e-200, 2.0, 3.0])
    i = np.array([2**40, 1, 2], np.int64)
    out = xla.run_module(m, "main", [x, i])
    assert out[0].dtype == np.float64 and out[0][0] == 1e-200 ** 2 == 0.0 or out[0][1] == 4.0
    np.testing.assert_array_equal(out[0], x * x)
    assert out[1].dtype == np.int64 and out[1] == 2**40 + 3
    assert jax.config.jax_enable_x64 == before


CONTROL = f"""func.func @main(%p: tensor<i1>, %x: tensor<3xf32>, %n: tensor<i32>, %k: tensor<i32>, %v: {RES}) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {{
  %0 = "tf.If"(%p, %x, %v) <{{else_branch = @neg, is_stateless = false, then_branch = @twice}}> : (tensor<i1>, tensor<3xf32>, {RES}) -> tensor<3xf32>
  %zero = "tf.Const"() <{{value = dense<0> : tensor<i32>}}> : () -> tensor<i32>
  %1:3 = "tf.While"(%zero, %n, %x) <{{body = @body, cond = @cond, is_stateless = true, parallel_iterations = 10 : i64}}> : (tensor<i32>, tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<i32>, tensor<3xf32>)
  %2 = "tf.Case"(%k, %x) <{{branches = [@twice_pure, @neg_pure], is_stateless = true}}> : (tensor<i32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0, %1#2, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}}
func.func private @twice(%x: tensor<3xf32>, %v: {RES}) -> tensor<3xf32> {{
  %0 = "tf.AddV2"(%x, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  "tf.AssignVariableOp"(%v, %0) <{{validate_shape = false}}> : ({RES}, tensor<3xf32>) -> ()
  func.return %0 : tensor<3xf32>
}}
func.func private @neg(%x: tensor<3xf32>, %v: {RES}) -> tensor<3xf32> {{
  %0 = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}}
func.func private @twice_pure(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %0 = "tf.AddV2"(%x, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}}
func.func private @neg_pure(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %0 = "tf.PartitionedCall"(%x) <{{config = "", config_proto = "", executor_type = "", f = @neg_inner}}> : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}}
func.func private @neg_inner(%x: tensor<3xf32>) -> tensor<3xf32> {{
  %0 = "tf.Neg"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}}
func.func private @cond(%i: tensor<i32>, %n: tensor<i32>, %x: tensor<3xf32>) -> tensor<i1> {{
  %0 = "tf.Less"(%i, %n) : (tensor<i32>, tensor<i32>) -> tensor<i1>
  func.return %0 : tensor<i1>
}}
func.func private @body(%i: tensor<i32>, %n: tensor<i32>, %x: tensor<3xf32>) -> (tensor<i32>, tensor<i32>, tensor<3xf32>) {{
  %one = "tf.Const"() <{{value = dense<1> : tensor<i32>}}> : () -> tensor<i32>
  %0 = "tf.AddV2"(%i, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  %1 = "tf.Mul"(%x, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %0, %n, %1 : tensor<i32>, tensor<i32>, tensor<3xf32>
}}"""


@pytest.mark.parametrize("pred, n, k", [(True, 2, 0), (False, 0, 1), (True, 1, 7), (False, 3, -1)])
def test_control_flow_matches_graph_mode(pred, n, k):
    m = module(CONTROL)
    x = np.array([0.5, -1.0, 1.5], np.float32)
    v_graph, v_xla = tt.Variable(np.zeros(3, np.float32)), tt.Variable(np.zeros(3, np.float32))
    args = [np.bool_(pred), x, np.int32(n), np.int32(k)]
    want = tt.load_mlir(CONTROL).run(*args, v_graph)
    got = xla.run_module(m, "main", args + [v_xla])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    np.testing.assert_array_equal(v_xla.numpy(), v_graph.numpy())
    r = xla.compile(m, [(), (3,), (), (), (3,)])
    assert [u.input_index for u in r.resource_updates] == [4] and r.donated == [4]
    assert "conditional(" in r.hlo_module_text and "while(" in r.hlo_module_text


def test_compiled_once_per_signature():
    f = xla.function_for(module(ADD), "main")
    for value in (1.0, 2.0, 3.0):
        f(np.float32(value), np.float32(1.0))
    assert len(f.compilations) == 1
    with pytest.raises(InvalidArgumentError, match="cannot have shape"):
        f(np.ones(2, np.float32), np.float32(1.0))
    assert len(f.compilations) == 1


def test_argument_needed_as_a_constant_is_compiled_per_value():
    m = module("""func.func @main(%n: tensor<i32>, %x: tensor<f32>) -> tensor<?xf32> {
  %0 = "tf.Const"() <{value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %1 = "tf.Const"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
  %2 = "tf.Range"(%0, %n, %1) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<?xi32>
  %3 = "tf.Cast"(%2) <{Truncate = false}> : (tensor<?xi32>) -> tensor<?xf32>
  %4 = "tf.Mul"(%3, %x) : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  func.return %4 : tensor<?xf32>
}""")
    f = xla.XlaFunction(m)
    np.testing.assert_array_equal(f(np.int32(3), np.float32(2.0))[0], [0, 2, 4])
    np.testing.assert_array_equal(f(np.int32(2), np.float32(2.0))[0], [0, 2])
    assert f.constant_args == {0} and len(f.compilations) == 2
    r = xla.compile(m, [(), ()], ["constant", "parameter"], constants={0: 4})
    assert r.input_mapping == [1] and str(r.xla_output_shape) == "(f32[4])"
    with pytest.raises(InvalidArgumentError, match="compile-time constants"):
        xla.compile(m, [(), ()])


TRAIN = f"""func.func @main(%g: tensor<3xf32>, %w: {RES}, %acc: {RES}, %m: {RES}, %v: {RES}, %u: {RES}) {{
  %lr = "tf.Const"() <{{value = dense<1.000000e-01> : tensor<f32>}}> : () -> tensor<f32>
  %mom = "tf.Const"() <{{value = dense<9.000000e-01> : tensor<f32>}}> : () -> tensor<f32>
  %b1 = "tf.Const"() <{{value = dense<9.000000e-01> : tensor<f32>}}> : () -> tensor<f32>
  %b2 = "tf.Const"() <{{value = dense<9.990000e-01> : tensor<f32>}}> : () -> tensor<f32>
  %eps = "tf.Const"() <{{value = dense<1.000000e-07> : tensor<f32>}}> : () -> tensor<f32>
  "tf.ResourceApplyGradientDescent"(%w, %lr, %g) <{{use_locking = true}}> : ({RES}, tensor<f32>, tensor<3xf32>) -> ()
  "tf.ResourceApplyMomentum"(%w, %acc, %lr, %g, %mom) <{{use_locking = false, use_nesterov = NESTEROV}}> : ({RES}, {RES}, tensor<f32>, tensor<3xf32>, tensor<f32>) -> ()
  "tf.ResourceApplyAdam"(%u, %m, %v, %b1, %b2, %lr, %b1, %b2, %eps, %g) <{{use_locking = false, use_nesterov = NESTEROV}}> : ({RES}, {RES}, {RES}, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<3xf32>) -> ()
  func.return
}}"""


@pytest.mark.parametrize("nesterov", ["false", "true"])
def test_optimizer_steps_on_resources_match_graph_mode(nesterov):
    text = TRAIN.replace("NESTEROV", nesterov)
    rng = np.random.default_rng(1)
    g = rng.standard_normal(3).astype(np.float32)
    init = [rng.standard_normal(3).astype(np.float32) for _ in range(5)]
    init[3] = np.abs(init[3])  # Adam's second moment
    graph_vars = [tt.Variable(a) for a in init]
    xla_vars = [tt.Variable(a) for a in init]
    tt.load_mlir(text).run(g, *graph_vars)
    m = module(text)
    xla.run_module(m, "main", [g, *xla_vars])
    for k, (a, b) in enumerate(zip(xla_vars, graph_vars)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7, err_msg=f"variable {k}")
        assert not np.array_equal(a.numpy(), init[k])
    r = xla.compile(m, [(3,)] * 6)
    assert [u.input_index for u in r.resource_updates] == [1, 2, 3, 4, 5] and r.donated == [1, 2, 3, 4, 5]


def test_reference_variables_are_refused():
    m = module("""func.func @main(%r: tensor<2x!tf_type.f32ref>, %d: tensor<2xf32>) -> tensor<2x!tf_type.f32ref> {
  %0 = "tf.AssignAdd"(%r, %d) : (tensor<2x!tf_type.f32ref>, tensor<2xf32>) -> tensor<2x!tf_type.f32ref>
  func.return %0 : tensor<2x!tf_type.f32ref>
}""")
    with pytest.raises(UnimplementedError, match="reference variables"):
        xla.compile(m, [(2,), (2,)])


# --- errors ---------------------------------------------------------------------------------

def test_errors_name_the_problem():
    m = module(ADD)
    with pytest.raises(InvalidArgumentError, match="2 arguments, but 1 input shapes"):
        xla.compile(m, [()])
    with pytest.raises(InvalidArgumentError, match="argument 0 of type tensor<f32> cannot have shape"):
        xla.compile(m, [(2,), ()])
    with pytest.raises(InvalidArgumentError, match="unsupported XLA argument kind"):
        xla.compile(m, [(), ()], ["parameter", "variable"])
    with pytest.raises(InvalidArgumentError, match="resource argument but has type"):
        xla.compile(m, [(), ()], ["parameter", "resource"])
    with pytest.raises(NotFoundError, match="no function @nope"):
        xla.compile(m, [(), ()], entry="nope")
    bad = module("""func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<*xf32> {
  %0 = "tf.AddV2"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<*xf32>
  func.return %0 : tensor<*xf32>
}""")
    with pytest.raises(InvalidArgumentError, match=r"<string>:2:3: tf.AddV2: incompatible shapes \[2\] and \[3\]"):
        xla.compile(bad)
    unknown = module("""func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.NoSuchOp"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}""")
    with pytest.raises(UnimplementedError, match="'tf.NoSuchOp' op is not implemented"):
        xla.compile(unknown)
    handle = module("""func.func @main() -> tensor<f32> {
  %v = "tf.VarHandleOp"() <{container = "", shared_name = "w"}> : () -> tensor<!tf_type.resource<tensor<f32>>>
  %0 = "tf.ReadVariableOp"(%v) : (tensor<!tf_type.resource<tensor<f32>>>) -> tensor<f32>
  func.return %0 : tensor<f32>
}""")
    with pytest.raises(UnimplementedError, match="VarHandleOp"):
        xla.compile(handle)
    with pytest.raises(InvalidArgumentError, match="expected float32, got int32"):
        xla.run_module(m, "main", [np.int32(1), np.float32(1)])


def test_import_tinytf_does_not_import_jax():
    code = "import sys, tinytf; tinytf.constant(1.0); assert 'jax' not in sys.modules; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


# --- tinytf-translate -----------------------------------------------------------------------

def translate(*argv, stdin=None):
    from tinytf.cli import translate as cli

    return subprocess.run([sys.executable, "-c", "import sys; from tinytf.cli.translate import main; "
                           "sys.exit(main())", *argv], input=stdin, capture_output=True, text=True), cli


def test_translate_prints_hlo_then_compile_result(tmp_path):
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    out, _ = translate("--mlir-tf-to-hlo-text", str(path), "-tf-input-shapes=:", "-tf-xla-emit-return-tuple")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("HloModule ")
    assert out.stdout.endswith(str(xla.compile(module(ADD), [(), ()])))


@pytest.mark.parametrize("flags, message", [
    (["-tf-input-shapes=2:2:2"], "3 input shapes"),
    (["-tf-input-shapes=:", "-tf-input-data-types=DT_FLOAT,DT_BOGUS"], "Invalid dtype at index 1: DT_BOGUS"),
    (["-tf-input-shapes=:", "-tf-input-data-types=DT_FLOAT,DT_RESOURCE"], "Unsupported dtype at index 1"),
    (["-tf-input-shapes=:", "-tf-xla-input-types=parameter,weird"], "Unsupported TF/XLA argument kind at index 1"),
    (["-tf-input-shapes=:", "-tf-xla-input-types=parameter"], "must be of the same length"),
    (["-tf-input-shapes=?:"], "static shapes"),
    ([], "choose a translation"),
])
def test_translate_errors_are_one_line(tmp_path, flags, message):
    path = tmp_path / "add.mlir"
    path.write_text(ADD)
    argv = (["--mlir-tf-to-hlo-text"] if flags else []) + [str(path), *flags]
    out, _ = translate(*argv)
    assert out.returncode == 1 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and message in out.stderr, out.stderr


def test_translate_parse_error_has_location(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = \"tf.AddV2\"(%a, %b : oops\n}\n")
    out, _ = translate("--mlir-tf-to-hlo-text", str(path))
    assert out.returncode == 1 and out.stderr.startswith(f"{path}:2:")
