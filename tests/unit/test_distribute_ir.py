"""The IR of many devices: XLA shardings in both string forms, tf.XlaSharding / tf.XlaAllReduce /
tf.XlaSplitND / tf.XlaConcatND, the sharding analysis of a compiled function, tf_device.replicate and
sharded IR run over 8 CPU devices (a subprocess) and with `tinytf run --devices 8`."""
import os
import subprocess
import sys

import numpy as np
import pytest
from multi_device import ROOT, run_on_devices  # tests/unit, beside this file

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.ops import hlo_sharding as hs

# --- shardings: HLO text and serialized OpSharding --------------------------------------------------

@pytest.mark.parametrize("text, dims, devices, rank", [
    ("{devices=[4,1]<=[4]}", (4, 1), (0, 1, 2, 3), 2),
    ("{devices=[2,1]1,0}", (2, 1), (1, 0), 2),
    ("{devices=[2,2]<=[2,2]T(1,0)}", (2, 2), (0, 2, 1, 3), 2),
    ("{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}", (2, 1, 2), (0, 1, 2, 3), 2),
    ("{devices=[1,1,2]<=[2] last_tile_dims={replicated}}", (1, 1, 2), (0, 1), 2),
])
def test_tiled_shardings_parse_print_and_serialize(text, dims, devices, rank):
    s = hs.parse(text)
    assert (s.kind, s.tile_dims, s.devices, s.rank) == ("tiled", dims, devices, rank)
    assert hs.parse(str(s)) == s and hs.parse(s.serialize()) == s
    assert hs.parse(s.serialize().decode("latin-1")) == s  # the proto held in an MLIR string attribute


def test_other_shardings_and_tensorflows_serialized_strings():
    assert hs.parse("") is hs.REPLICATED and str(hs.parse("{replicated}")) == "{replicated}"
    assert str(hs.parse("{maximal device=3}")) == "{maximal device=3}"
    assert str(hs.parse(b"\x08\x01\x1a\x01\x01\x22\x01\x00")) == "{maximal device=0}"   # TF's logical core 0
    assert hs.maximal(0).serialize() == b"\x08\x01\x1a\x01\x01\x22\x01\x00"
    partial = hs.parse(b"\x08\x03\x1a\x05\x04\x01\x01\x01\x02\x22\x08\x00\x01\x02\x03\x04\x05\x06\x070\x01")
    assert str(partial) == "{devices=[4,1,1,1,2]<=[8] last_tile_dim_replicate}" and partial.rank == 4
    pair = hs.parse("{{replicated}, {maximal device=0}}")
    assert pair.kind == "tuple" and hs.parse(pair.serialize()) == pair
    assert hs.parse("{devices=[2,1]0,1}").equivalent(hs.parse("{devices=[2,1]<=[2]}"))
    assert not hs.parse("{devices=[2,1]1,0}").equivalent(hs.parse("{devices=[2,1]<=[2]}"))
    assert hs.try_parse("\x01\x02\x03") is None  # opaque (TensorFlow's tests use such strings)


@pytest.mark.parametrize("bad, message", [
    ("{devices=[2,2]0,1}", "need 4 devices, got 2"),
    ("{devices=[2]<=[2]T(0,0)}", "bad iota transpose"),
    ("{tiles=[2]}", "unknown kind 'tiles'"),
    (b"\x08\x03\x1a\x02", "truncated"),
    (b"\x08\x09", "type 9"),
])
def test_bad_shardings_are_clear_errors(bad, message):
    with pytest.raises(InvalidArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        hs.parse(bad)


# --- the ops ---------------------------------------------------------------------------------------

def test_split_and_concat_nd_eagerly_in_graphs_and_under_xla():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    raw = tt.raw_ops
    for run in (lambda f, *a: f(*a), lambda f, *a: tt.function(f)(*a), lambda f, *a: tt.function(f, jit_compile=True)(*a)):
        parts = run(lambda t: raw.XlaSplitND(input=t, num_splits=[2, 3], N=6), tt.constant(x))
        assert [p.shape for p in parts] == [(2, 2)] * 6
        np.testing.assert_array_equal(parts[4].numpy(), x[2:4, 2:4])
        back = run(lambda *ps: raw.XlaConcatND(inputs=list(ps), num_concats=[2, 3]), *parts)
        np.testing.assert_array_equal(back.numpy(), x)
    padded = raw.XlaSplitND(input=tt.constant(x[:3]), num_splits=[2, 1], paddings=[1, 0], N=2)
    np.testing.assert_array_equal(padded[1].numpy(), np.concatenate([x[2:3], np.zeros((1, 6), np.float32)]))
    np.testing.assert_array_equal(raw.XlaConcatND(inputs=padded, num_concats=[2, 1], paddings=[1, 0]).numpy(), x[:3])
    with pytest.raises(InvalidArgumentError, match="does not divide into 5 pieces"):
        raw.XlaSplitND(input=tt.constant(x), num_splits=[5, 1], N=5)


def test_split_concat_and_sharding_gradients():
    check = tt.gradcheck.compare_numerical_and_autodiff_gradients
    x = np.random.default_rng(0).normal(size=(4, 2)).astype(np.float32)

    def split_model(t):
        a, b = tt.raw_ops.XlaSplitND(input=t, num_splits=[2, 1], N=2)
        return tt.math.reduce_sum(a * a) + 3.0 * tt.math.reduce_sum(b)

    def sharded_model(t):
        return tt.math.reduce_sum(tt.square(tt.raw_ops.XlaSharding(input=t, sharding="{devices=[2,1]0,1}")))

    for use_function in (False, True):
        check(split_model, [x], use_function=use_function, abs_error=1e-2)
        check(sharded_model, [x], use_function=use_function, abs_error=1e-2)


def test_xla_sharding_is_an_identity_on_one_device_and_checks_rank():
    x = tt.constant([[1.0, 2.0], [3.0, 4.0]])
    for run in (lambda f: f(x), lambda f: tt.function(f, jit_compile=True)(x)):
        y = run(lambda t: tt.raw_ops.XlaSharding(input=t, sharding="", _XlaSharding=None))
        np.testing.assert_array_equal(y.numpy(), x.numpy())
    with pytest.raises(InvalidArgumentError, match="tiles 3 dims, the input has rank 2"):
        tt.raw_ops.XlaSharding(input=x, sharding="{devices=[2,1,1]0,1}")


def test_xla_all_reduce_outside_a_replicated_computation():
    x = tt.constant([1.0, 2.0])
    single = tt.raw_ops.XlaAllReduce(input=x, group_assignment=np.array([[0]], np.int32), reduce_op="Add")
    np.testing.assert_array_equal(single.numpy(), [1.0, 2.0])  # one replica per group: nothing to reduce
    with pytest.raises(UnimplementedError, match="runs only inside a replicated XLA computation"):
        tt.raw_ops.XlaAllReduce(input=x, group_assignment=np.array([[0, 1]], np.int32), reduce_op="Add")
    with pytest.raises(InvalidArgumentError, match="reduce_op must be one of"):
        tt.raw_ops.XlaAllReduce(input=x, group_assignment=np.array([[0]], np.int32), reduce_op="Sum")


SHARDED_IR = """
func.func @main(%x: tensor<64x16xf32>, %w: tensor<16x4xf32> {mhlo.sharding = "{replicated}"},
                %v: tensor<!tf_type.resource<tensor<16x4xf32>>>) -> tensor<f32> {
  %0 = "tf.XlaSharding"(%x) <{_XlaSharding = "\\08\\03\\1A\\02\\08\\01\\22\\08\\00\\01\\02\\03\\04\\05\\06\\07", sharding = ""}> : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %1 = "tf.MatMul"(%0, %w) <{transpose_a = false, transpose_b = false}> : (tensor<64x16xf32>, tensor<16x4xf32>) -> tensor<64x4xf32>
  %2 = "tf.MatMul"(%0, %1) <{transpose_a = true, transpose_b = false}> : (tensor<64x16xf32>, tensor<64x4xf32>) -> tensor<16x4xf32>
  "tf.AssignSubVariableOp"(%v, %2) : (tensor<!tf_type.resource<tensor<16x4xf32>>>, tensor<16x4xf32>) -> ()
  %c = "tf.Const"() <{value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %3 = "tf.Sum"(%1, %c) <{keep_dims = false}> : (tensor<64x4xf32>, tensor<2xi32>) -> tensor<f32>
  func.return %3 : tensor<f32>
}
"""


def test_the_compiled_functions_sharding_analysis():
    from tinytf.passes.sharding_identification import function_shardings

    module = mlir.parse(SHARDED_IR)
    fn = next(op for op in module.ops if op.sym_name.data == "main")
    ins, outs = function_shardings(fn, module)
    assert hs.parse(ins[0]) == hs.tiled((8, 1)) and ins[1] == "{replicated}" and ins[2] is None and outs == [None]


def test_one_device_needs_more_devices_for_a_tiled_sharding():
    module = tt.load_mlir(SHARDED_IR)
    with pytest.raises(InvalidArgumentError, match="names device 1, but JAX has 1 device"):
        module.run(np.zeros((64, 16), np.float32), np.zeros((16, 4), np.float32),
                   tt.Variable(np.zeros((16, 4), np.float32)), backend="xla")
    plain = tt.xla.compile(lambda_free_module(), [(2,)])
    assert plain.argument_shardings is None and "XlaInputSharding" not in str(plain) and plain.num_devices == 1


def lambda_free_module():
    return mlir.parse('func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n'
                      '  %0 = "tf.Neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  func.return %0 : tensor<2xf32>\n}')


REPLICATE_IR = """
func.func @main(%x: tensor<8x4xf32>, %w: tensor<!tf_type.resource<tensor<4xf32>>>) -> (tensor<f32>, tensor<f32>) {
  %xs = "tf.XlaSharding"(%x) <{_XlaSharding = "{devices=[2,1]0,1}", sharding = "{devices=[2,1]0,1}"}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %parts:2 = "tf.XlaSplitND"(%xs) <{num_splits = [2, 1]}> : (tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %scale = "tf.Const"() <{value = dense<2.0> : tensor<f32>}> : () -> tensor<f32>
  %r:2 = tf_device.replicate([%parts#0, %parts#1] as %xi: tensor<4x4xf32>, %w as %wi: tensor<!tf_type.resource<tensor<4xf32>>>) {n = 2 : i32} {
    %v = "tf.ReadVariableOp"(%wi) : (tensor<!tf_type.resource<tensor<4xf32>>>) -> tensor<4xf32>
    %y = "tf.Mul"(%xi, %v) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    %c0 = "tf.Const"() <{value = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %g = "tf.Sum"(%y, %c0) <{keep_dims = false}> : (tensor<4x4xf32>, tensor<1xi32>) -> tensor<4xf32>
    %grp = "tf.Const"() <{value = dense<[[0, 1]]> : tensor<1x2xi32>}> : () -> tensor<1x2xi32>
    %gs = "tf.XlaAllReduce"(%g, %grp) <{mode = "CrossReplica", reduce_op = "Add"}> : (tensor<4xf32>, tensor<1x2xi32>) -> tensor<4xf32>
    "tf.AssignSubVariableOp"(%wi, %gs) : (tensor<!tf_type.resource<tensor<4xf32>>>, tensor<4xf32>) -> ()
    %c01 = "tf.Const"() <{value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %l = "tf.Sum"(%y, %c01) <{keep_dims = false}> : (tensor<4x4xf32>, tensor<2xi32>) -> tensor<f32>
    %ls = "tf.Mul"(%l, %scale) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    tf_device.return %ls : tensor<f32>
  }
  func.return %r#0, %r#1 : tensor<f32>, tensor<f32>
}
"""


@pytest.fixture(scope="module")
def ir_on_devices():
    return run_on_devices(f"""
import json
import jax
import numpy as np
import tinytf as tt
from tinytf.ops import hlo_sharding as hs

R = {{}}
sharded = tt.load_mlir({SHARDED_IR!r})
x = np.random.default_rng(0).normal(size=(64, 16)).astype(np.float32)
w = np.random.default_rng(1).normal(size=(16, 4)).astype(np.float32)
v = tt.Variable(np.zeros((16, 4), np.float32))
loss, = sharded.run(x, w, v, backend="xla")
R["sharded"] = [abs(float(loss) - float((x @ w).sum())), float(np.abs(v.numpy() + x.T @ (x @ w)).max())]
result = tt.xla.compile(sharded.module, entry="main")
R["sharded_lines"] = str(result).splitlines()
R["sharded_collectives"] = [[c.kind, c.bytes, c.group_size] for c in result.collectives()]
R["sharded_memory"] = result.memory()
explicit = tt.xla.compile(sharded.module, entry="main", in_shardings=[None, "{{devices=[8,1]<=[8]}}", None])
R["explicit"] = [l for l in str(explicit).splitlines() if "Sharding" in l]
try:  # w is 16x4: its 4 columns cannot go to 8 devices
    tt.xla.compile(sharded.module, entry="main", in_shardings=[None, "{{devices=[1,8]<=[8]}}", None])
    R["indivisible"] = None
except tt.errors.InvalidArgumentError as err:
    R["indivisible"] = str(err)

rep = tt.load_mlir({REPLICATE_IR!r})
xs = np.arange(32, dtype=np.float32).reshape(8, 4)
w0 = np.array([1.0, -1.0, 0.5, 2.0], np.float32)
wv = tt.Variable(w0)
outs = rep.run(xs, wv, backend="xla")
y = xs * w0
R["replicate"] = [[float(o) for o in outs], [float(2 * y[:4].sum()), float(2 * y[4:].sum())],
                  float(np.abs(wv.numpy() - (w0 - y.sum(0))).max())]
R["replicate_lines"] = [l for l in str(tt.xla.compile(rep.module, entry="main")).splitlines() if "Sharding" in l]

conversions = {{}}
for text, rank in (("{{devices=[4,2]<=[8]}}", 2), ("{{devices=[2,4]<=[4,2]T(1,0)}}", 2),
                   ("{{devices=[2,2,2]<=[2,4]T(1,0)}}", 3), ("{{devices=[4,1,2]<=[8] last_tile_dim_replicate}}", 2)):
    named = hs.to_jax(text, rank)
    conversions[text] = [str(named.spec), hs.parse(text).equivalent(hs.from_jax(named, rank))]
R["conversions"] = conversions

# a donated buffer spread over 8 devices, passed again: an error, not a crash
donating = tt.load_mlir('''func.func @main(%arg0: tensor<8xf32> {{tf.aliasing_output = 0 : i64, mhlo.sharding = "{{devices=[8]<=[8]}}"}}) -> tensor<8xf32> {{
  %0 = "tf.AddV2"(%arg0, %arg0) : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}}''')
f = tt.xla.XlaFunction(donating.module, "main")
comp = f.compilation([np.zeros(8, np.float32)])
arr = jax.device_put(np.arange(8, dtype=np.float32), comp.plan.in_shardings[0])
first, _ = f.call_raw(arr)
R["donated_first"] = [np.asarray(first[0]).tolist(), arr.is_deleted(), len(arr.sharding.device_set)]
errors = []
for call in (lambda: f.call_raw(arr), lambda: comp(arr)):
    try:
        call()
        errors.append(None)
    except tt.errors.InvalidArgumentError as err:
        errors.append(str(err))
R["donated_again"] = errors
print(json.dumps(R))
""")


def test_sharded_ir_runs_over_8_devices_and_reports_its_shardings(ir_on_devices):
    r = ir_on_devices
    assert r["sharded"][0] < 1e-3 and r["sharded"][1] < 1e-3
    assert "// XlaInputSharding index=0 {devices=[8,1]<=[8]}" in r["sharded_lines"]      # the proto form
    assert "// XlaInputSharding index=1 {replicated}" in r["sharded_lines"]              # mhlo.sharding
    assert "// XlaInputSharding index=2 {replicated}" in r["sharded_lines"]              # unannotated: replicated
    # the batch contraction (x^T (x w)) is summed over the 8 devices; each holds 1/8 of x
    assert any(c[0] == "all-reduce" and c[1] >= 16 * 4 * 4 and c[2] == 8 for c in r["sharded_collectives"])
    assert r["sharded_memory"]["argument"] == 64 * 16 * 4 // 8 + 2 * 16 * 4 * 4
    assert "// XlaInputSharding index=1 {devices=[8,1]<=[8]}" in r["explicit"]          # given wins over the IR
    assert "argument 1 of shape [16, 4]" in r["indivisible"] and "dim 1 is split 8 ways" in r["indivisible"]


def test_replicate_runs_as_an_spmd_program(ir_on_devices):
    got, want, update = ir_on_devices["replicate"]
    assert got == pytest.approx(want) and update < 1e-5
    assert "// XlaInputSharding index=0 {devices=[2,1]<=[2]}" in ir_on_devices["replicate_lines"]


def test_shardings_become_meshes_over_the_same_devices(ir_on_devices):
    for text, (spec, same) in ir_on_devices["conversions"].items():
        assert same, (text, spec)


def test_a_donated_sharded_buffer_used_again_is_an_error_not_a_crash(ir_on_devices):
    first, deleted, devices = ir_on_devices["donated_first"]
    assert first == [2.0 * i for i in range(8)] and deleted and devices == 8
    for message in ir_on_devices["donated_again"]:
        assert message is not None and "was donated to an earlier XLA call" in message


def test_tinytf_run_with_devices(tmp_path):
    path = tmp_path / "replicate.mlir"
    path.write_text(REPLICATE_IR)
    xs = np.arange(32, dtype=np.float32).reshape(8, 4)
    w0 = np.array([1.0, -1.0, 0.5, 2.0], np.float32)
    np.savez(tmp_path / "in.npz", arg0=xs, arg1=w0)
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    cli = [sys.executable, "-m", "tinytf.cli.main", "run", str(path), "-i", str(tmp_path / "in.npz")]
    done = subprocess.run(cli + ["--devices", "8", "-o", str(tmp_path / "out.npz")], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "out.npz") as out:
        y = xs * w0
        assert float(out["out0"]) == pytest.approx(2 * y[:4].sum()) and float(out["out1"]) == pytest.approx(2 * y[4:].sum())
    one = subprocess.run(cli + ["--backend", "xla"], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert one.returncode == 1 and "names device 1, but JAX has 1 device" in one.stderr and "Traceback" not in one.stderr
    bad = subprocess.run(cli + ["--devices", "8", "--backend", "graph"], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode != 0 and "--devices runs on XLA" in bad.stderr
