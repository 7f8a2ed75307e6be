"""TensorFlow 2.21's exports (tests/conformance/fixtures) run by tinytf give TensorFlow's numbers.

Each fixture is NAME.mlir (TensorFlow's text, unchanged) and NAME.npz (arg0, arg1, ... in argument
order, resources as their variables' values; out0, out1, ... TensorFlow's outputs). Tolerance:
rtol 1e-5 and atol 1e-6 (float32 results of matmuls, reductions and transcendental functions may
differ from TensorFlow's in the last bits; integer and bool outputs must be equal).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir

FIXTURES = Path(__file__).parent / "fixtures"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.mlir"))
RTOL, ATOL = 1e-5, 1e-6


def load(name):
    data = np.load(FIXTURES / f"{name}.npz")
    n_args = sum(1 for k in data.files if k.startswith("arg"))
    n_outs = sum(1 for k in data.files if k.startswith("out"))
    return data, [data[f"arg{i}"] for i in range(n_args)], [data[f"out{i}"] for i in range(n_outs)]


def check_close(got, want, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def test_fixtures_present():
    """Every fixture export_fixtures.py writes is here (the script imports TensorFlow only when run)."""
    spec = importlib.util.spec_from_file_location("export_fixtures", Path(__file__).parent / "export_fixtures.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert NAMES == sorted(script.FIXTURES)


@pytest.mark.parametrize("name", NAMES)
def test_fixture_matches_tensorflow(name):
    data, args, outs = load(name)
    module = tt.load_mlir(FIXTURES / f"{name}.mlir")
    got = module.run(*args)
    assert len(got) == len(outs)
    for i, (g, w) in enumerate(zip(got, outs)):
        check_close(g, w, f"{name} out{i}")


def test_train_step_updates_variables():
    data, args, outs = load("train_step")
    module = tt.load_mlir(FIXTURES / "train_step.mlir")
    w, b = tt.Variable(args[2]), tt.Variable(args[3])
    got = module.run(args[0], args[1], w, b)
    check_close(got[0], outs[0], "train_step loss")
    check_close(w.numpy(), data["var0_after"], "var0_after")
    check_close(b.numpy(), data["var1_after"], "var1_after")
    # the inputs the caller passed were not written to
    assert not np.array_equal(args[2], data["var0_after"])


def test_train_step_from_plain_arrays_leaves_them_unchanged():
    data, args, outs = load("train_step")
    before = [a.copy() for a in args]
    tt.load_mlir(FIXTURES / "train_step.mlir").run(*args)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", NAMES)
def test_print_parse_is_a_fixed_point(name):
    first = mlir.print(mlir.parse(FIXTURES / f"{name}.mlir"))
    second = mlir.print(mlir.parse(first))
    assert first == second


@pytest.mark.parametrize("name", NAMES)
def test_reprinted_fixture_still_runs(name):
    _, args, outs = load(name)
    text = mlir.print(mlir.parse(FIXTURES / f"{name}.mlir"))
    got = tt.load_mlir(text).run(*args)
    for i, (g, w) in enumerate(zip(got, outs)):
        check_close(g, w, f"{name} (reprinted) out{i}")
