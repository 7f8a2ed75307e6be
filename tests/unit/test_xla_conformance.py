"""TensorFlow 2.21's exports (tests/conformance/fixtures) run through XLA give TensorFlow's numbers,
and the runtime's entry points (tt.load_mlir(...).run(backend="xla"), tt.function(jit_compile=True))
reach the XLA backend. Tolerance as in tests/conformance/test_fixtures.py: rtol 1e-5, atol 1e-6."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tinytf as tt
from tinytf import xla

FIXTURES = Path(__file__).parents[1] / "conformance" / "fixtures"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.mlir"))
RTOL, ATOL = 1e-5, 1e-6


def load(name):
    data = np.load(FIXTURES / f"{name}.npz")
    args = [data[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in data.files))]
    outs = [data[f"out{i}"] for i in range(sum(k.startswith("out") for k in data.files))]
    return data, args, outs


def check_close(got, want, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("name", NAMES)
def test_fixture_under_xla_matches_tensorflow(name):
    _, args, outs = load(name)
    got = tt.load_mlir(FIXTURES / f"{name}.mlir").run(*args, backend="xla")
    assert len(got) == len(outs)
    for i, (g, w) in enumerate(zip(got, outs)):
        check_close(g, w, f"{name} out{i}")


def test_train_step_under_xla_updates_variables():
    data, args, outs = load("train_step")
    module = tt.load_mlir(FIXTURES / "train_step.mlir")
    w, b = tt.Variable(args[2]), tt.Variable(args[3])
    got = module.run(args[0], args[1], w, b, backend="xla")
    check_close(got[0], outs[0], "loss")
    check_close(w.numpy(), data["var0_after"], "var0_after")
    check_close(b.numpy(), data["var1_after"], "var1_after")
    assert not np.array_equal(args[2], data["var0_after"])  # the caller's arrays are untouched


def test_train_step_compile_result_reports_its_resource_updates():
    _, args, _ = load("train_step")
    module = tt.load_mlir(FIXTURES / "train_step.mlir")
    r = xla.compile(module.module, [a.shape for a in args], ["parameter", "parameter", "resource", "resource"],
                    input_dtypes=[a.dtype for a in args])
    assert str(r).splitlines() == [
        "// InputMapping {0, 1, 2, 3}", "// XlaInputShape f32[4,8]", "// XlaInputShape f32[4,3]",
        "// XlaInputShape f32[8,3]", "// XlaInputShape f32[3]", "// XlaOutputShape (f32[], f32[8,3], f32[3])",
        "// XlaOutputDescription type=float shape=()",
        "// ResourceUpdate input_index=2 type=float shape=(8 3) modified",
        "// ResourceUpdate input_index=3 type=float shape=(3) modified"]
    assert r.donated == [2, 3] and r.memory_analysis().alias_size_in_bytes == (8 * 3 + 3) * 4


def test_jit_compile_function_with_variables():
    w = tt.Variable(np.ones((3, 2), np.float32))

    def step(x):
        y = tt.matmul(x, w)
        w.assign_sub(0.5 * tt.ones_like(w))
        return tt.reduce_sum(y)

    fast, slow = tt.function(step, jit_compile=True), tt.function(step)
    x = tt.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert float(fast(x).numpy()) == 30.0
    np.testing.assert_array_equal(w.numpy(), 0.5)
    assert float(fast(x).numpy()) == 15.0 and float(slow(x).numpy()) == 0.0
    np.testing.assert_array_equal(w.numpy(), -0.5)


def test_tinytf_run_with_the_xla_backend(tmp_path):
    from tinytf.cli.main import main

    data, args, outs = load("keras_mlp")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{f"arg{i}": a for i, a in enumerate(args)})
    out = tmp_path / "out.npz"
    assert main(["run", str(FIXTURES / "keras_mlp.mlir"), "--inputs", str(inputs), "-o", str(out),
                 "--backend", "xla"]) == 0
    check_close(np.load(out)["out0"], outs[0], "keras_mlp via tinytf run --backend xla")


def test_bridge_pipeline_then_xla_train_step():
    """cluster formation -> outlining -> input/output aliases, then XLA: the whole function (the
    cluster_func callee inlined) and the callee alone (what graph mode runs per cluster_func)."""
    from tinytf import mlir
    from tinytf.passes import ClusterFunctionBody, ClusterOutlining, MarkInputOutputAliases

    data, args, outs = load("train_step")
    module = mlir.parse(FIXTURES / "train_step.mlir")
    ctx = mlir.context()
    for p in (ClusterFunctionBody(), ClusterOutlining(), MarkInputOutputAliases()):
        p.apply(ctx, module)
    entry = next(op.sym_name.data for op in module.ops if "tf.entry_function" in op.attributes)
    w, b = tt.Variable(args[2]), tt.Variable(args[3])
    got = xla.run_module(module, entry, [args[0], args[1], w, b])
    check_close(got[0], outs[0], "loss")
    check_close(w.numpy(), data["var0_after"], "var0_after")
    check_close(b.numpy(), data["var1_after"], "var1_after")
    # the outlined callee: (x, W, b, y) -> (W', b', loss); W and b alias outputs 0 and 1
    callee = xla.function_for(module, "_func")
    r = callee.compilation([args[0], args[2], args[3], args[1]]).result()
    assert r.donated == [1, 2]
    assert [o.input_index for o in r.outputs] == [1, 2, -1]
    assert r.memory_analysis().alias_size_in_bytes == (8 * 3 + 3) * 4
    new_w, new_b, loss = xla.run_cluster(module, "_func", [args[0], args[2], args[3], args[1]])
    check_close(new_w, data["var0_after"], "callee W'")
    check_close(new_b, data["var1_after"], "callee b'")
    check_close(loss, outs[0], "callee loss")
