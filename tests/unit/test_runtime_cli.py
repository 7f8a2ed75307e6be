"""The ``tinytf`` command: run, demo, plugin dispatch, one-line errors."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tinytf.cli import main as cli

FIXTURES = Path(__file__).parents[1] / "conformance" / "fixtures"


def test_run_writes_outputs(tmp_path):
    data = np.load(FIXTURES / "keras_mlp.npz")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, **{k: data[k] for k in data.files if k.startswith("arg")})
    out = tmp_path / "out.npz"
    assert cli.main(["run", str(FIXTURES / "keras_mlp.mlir"), "--inputs", str(inputs), "-o", str(out)]) == 0
    with np.load(out) as got:
        assert got.files == ["out0"]
        np.testing.assert_allclose(got["out0"], data["out0"], rtol=1e-5, atol=1e-6)


def test_run_with_entry_and_printing(tmp_path, capsys):
    mlir_file = tmp_path / "m.mlir"
    mlir_file.write_text("""func.func @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "tf.AddV2"(%x, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @other(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}""")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.array([1.0, 2.0], np.float32))
    assert cli.main(["run", str(mlir_file), "--inputs", str(inputs), "--entry", "twice"]) == 0
    assert "[2. 4.]" in capsys.readouterr().out


@pytest.mark.parametrize("problem, message", [
    ("missing_file", "cannot read"),
    ("bad_text", "m.mlir:1:"),
    ("unknown_op", "tf.Mystery"),
    ("wrong_inputs", "takes 1 arguments"),
])
def test_errors_print_one_line_and_exit_1(tmp_path, capsys, problem, message):
    mlir_file = tmp_path / "m.mlir"
    body = '%0 = "tf.Mystery"(%x) : (tensor<2xf32>) -> tensor<2xf32>' if problem == "unknown_op" else \
        '%0 = "tf.Neg"(%x) : (tensor<2xf32>) -> tensor<2xf32>'
    text = f"func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {{\n  {body}\n  return %0 : tensor<2xf32>\n}}"
    mlir_file.write_text("func.func @main(" if problem == "bad_text" else text)
    inputs = tmp_path / "in.npz"
    arrays = {"arg0": np.ones(2, np.float32)}
    if problem == "wrong_inputs":
        arrays["arg1"] = np.ones(2, np.float32)
    np.savez(inputs, **arrays)
    path = tmp_path / "nope.mlir" if problem == "missing_file" else mlir_file
    assert cli.main(["run", str(path), "--inputs", str(inputs)]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert message in err


def test_demo_runs(capsys):
    assert cli.main(["demo", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "tf.MatMul" in out and "eager == graph: True" in out


def test_plugin_dispatch(monkeypatch):
    import sys
    import types

    calls = []
    fake = types.ModuleType("tinytf.cli.bench")
    fake.main = lambda argv: calls.append(argv) or 0
    monkeypatch.setitem(sys.modules, "tinytf.cli.bench", fake)
    assert cli.main(["bench", "--quick", "x"]) == 0
    assert calls == [["--quick", "x"]]


def test_no_command_prints_help(capsys):
    assert cli.main([]) == 2
    assert "run" in capsys.readouterr().out


@pytest.mark.parametrize("content, message", [
    (b"", ":1:1: empty input: expected a module or operations"),
    (b"   \n// nothing here\n", ":1:1: empty input: expected a module or operations"),
    (b'func.func @main() {\n  "tf.NoOp"() : () -> ()\x00\n  return\n}\n', ":2:25: NUL byte in the input"),
    (b"func.func @main() {\n  return\n}\n\xc3", ":4:1: invalid UTF-8 byte 0xC3"),
], ids=["empty", "blank", "nul", "utf8"])
def test_run_reports_empty_and_binary_files_in_one_line(tmp_path, capsys, content, message):
    mlir_file = tmp_path / "m.mlir"
    mlir_file.write_bytes(content)
    assert cli.main(["run", str(mlir_file)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"{mlir_file}{message}\n"


def test_run_refuses_an_absurd_splat_when_it_runs(tmp_path, capsys):
    t = "tensor<1024x1024x1024x1024xf32>"
    mlir_file = tmp_path / "m.mlir"
    mlir_file.write_text(f'func.func @main() -> {t} {{\n  %0 = "tf.Const"() <{{value = dense<0.0> : {t}}}> : () -> {t}\n'
                         f"  return %0 : {t}\n}}\n")
    assert cli.main(["run", str(mlir_file), "-o", str(tmp_path / "out.npz")]) == 1
    err = capsys.readouterr().err
    assert err == ("tinytf run: error: tf.Const: output of shape [1024, 1024, 1024, 1024] (4398046511104 bytes) "
                   "exceeds the allocation limit of 4294967296 bytes\n")
    assert not (tmp_path / "out.npz").exists()
