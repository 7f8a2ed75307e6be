"""tt.print (tf.StringFormat + tf.PrintV2): the text TensorFlow 2.21's tf.print wrote for each case of
tests/conformance/print_cases.py (tests/fixtures/print/tf_print.json), eagerly, from a tt.function and
under XLA; values printed when a function runs, not when it is traced; the output streams; the errors."""
from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import conformance_modules
import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError

TESTS = Path(__file__).resolve().parents[1]
TF = json.loads((TESTS / "fixtures" / "print" / "tf_print.json").read_text())
CASES = conformance_modules.load("print_cases")


def to_tinytf(value):
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "tensor":
        return tt.constant(value[1])
    if isinstance(value, dict):
        return {k: to_tinytf(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_tinytf(v) for v in value]
    return value


@pytest.mark.parametrize("mode", ["eager", "function", "xla"])
@pytest.mark.parametrize("name", sorted(CASES.CASES))
def test_text_is_tensorflows(name, mode, capsys):
    inputs, kwargs = CASES.CASES[name]

    def run():
        tt.print(*[to_tinytf(v) for v in inputs], **kwargs)

    {"eager": run, "function": tt.function(run), "xla": tt.function(run, jit_compile=True)}[mode]()
    want = TF["eager" if mode == "eager" else "function"][name]
    assert capsys.readouterr().err == want


@pytest.mark.parametrize("jit_compile", [False, True], ids=["graph", "xla"])
def test_a_function_prints_its_run_time_values_each_call(jit_compile, capsys):
    def step(x, n):
        tt.print("x =", x * 2.0, "n", n, {"first": x[:2]}, summarize=2)
        return x + 1.0

    f = tt.function(step, jit_compile=jit_compile)
    for k in range(2):
        x = np.arange(6, dtype=np.float32) * 0.5 + k
        np.testing.assert_array_equal(f(tt.constant(x), tt.constant(k)).numpy(), x + 1.0)
    text = capsys.readouterr().err
    assert text == ("x = [0 1 ... 4 5] n 0 {'first': [0 0.5]}\n"
                    "x = [2 3 ... 6 7] n 1 {'first': [1 1.5]}\n")


def test_graph_holds_tensorflows_ops():
    f = tt.function(lambda x: tt.print("x:", x))
    text = f.get_concrete_function(tt.TensorSpec([3], tt.float32)).mlir()
    assert '"tf.StringFormat"(%arg0)' in text and 'template = "x: {}"' in text and 'placeholder = "{}"' in text
    assert '"tf.PrintV2"' in text and 'output_stream = "stderr"' in text


def test_tensorflows_print_ops_parse_and_run(capsys):
    text = '''
func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  %0 = "tf.StringFormat"(%arg0) {placeholder = "{}", summarize = 3 : i64, template = "v = {}"} : (tensor<2xi32>) -> tensor<!tf_type.string>
  "tf.PrintV2"(%0) {device = "", end = "\\0A", output_stream = "stdout"} : (tensor<!tf_type.string>) -> ()
  return %arg0 : tensor<2xi32>
}'''
    module = tt.load_mlir(text)
    for backend in ("graph", "xla"):
        (out,) = module.run(np.array([4, 5], np.int32), backend=backend)
        np.testing.assert_array_equal(out, [4, 5])
    assert capsys.readouterr().out == "v = [4 5]\nv = [4 5]\n"
    assert "tf.PrintV2" in mlir.print(mlir.parse(text))


def test_output_streams(capsys, tmp_path, caplog):
    tt.print("to stdout", tt.constant(1), output_stream=sys.stdout)
    assert capsys.readouterr().out == "to stdout 1\n"
    path = tmp_path / "log.txt"
    tt.function(lambda: tt.print(tt.constant([1.5, 2.0]), output_stream=f"file://{path}"))()
    tt.print("again", output_stream=f"file://{path}", end="")
    assert path.read_text() == "[1.5 2]\nagain"
    with caplog.at_level(logging.INFO, logger="tinytf"):
        tt.print("logged", tt.constant(2), output_stream=logging.info)
    assert "logged 2" in caplog.text


def test_errors():
    with pytest.raises(InvalidArgumentError, match="num placeholders in template and num inputs must match: 2 vs. 1"):
        tt.raw_ops.StringFormat(inputs=[tt.constant(1)], template="{} {}", placeholder="{}")
    with pytest.raises(InvalidArgumentError, match="unsupported output_stream"):
        tt.print("x", output_stream=object())
    with pytest.raises(InvalidArgumentError, match="unknown output_stream"):
        tt.print("x", output_stream="elsewhere")
    with pytest.raises(InvalidArgumentError, match="string scalar"):
        tt.raw_ops.PrintV2(input=tt.constant([1, 2]))
