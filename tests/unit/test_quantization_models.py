"""Int8 weight-only quantization of TensorFlow's exports: the conformance fixtures on every backend,
the `tinytf quantize` command, and int8 constants staying int8 in the compiled XLA program."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tinytf import mlir
from tinytf.cli import main as cli
from tinytf.loaded_module import LoadedModule
from tinytf.passes.constant_fold import constant_fold
from tinytf.quantization import constant_bytes, freeze_variables, quantize_weights
from tinytf.quantization.freeze_variables import load_npz
from tinytf.quantization.hlo_constants import constant_bytes as hlo_bytes
from tinytf.quantization.hlo_constants import hlo_constants

FIXTURES = Path(__file__).parents[1] / "conformance" / "fixtures"
BACKENDS = ["graph", "xla"]


def _fixture(name: str):
    data = np.load(FIXTURES / f"{name}.npz")
    return mlir.parse(FIXTURES / f"{name}.mlir"), data


def _frozen(name: str):
    module, data = _fixture(name)
    freeze_variables(module, load_npz(FIXTURES / f"{name}.npz"))
    constant_fold(module)
    return module, data


def _compiled_hlo(module) -> str:
    from tinytf import xla

    return xla.compile(module).compiled.as_text()


# --- TensorFlow's own dequantize pattern -----------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_tensorflow_dequantize_fixture_matches_tensorflow(backend):
    module, data = _fixture("dequantize_matmul")
    (out,) = LoadedModule(module).run(data["arg0"], backend=backend)
    np.testing.assert_allclose(out, data["out0"], rtol=1e-5, atol=1e-5)


def test_tensorflow_dequantize_fixture_keeps_int8_under_xla():
    """The int8 weight is an s8 constant of the compiled program, not a folded f32 one."""
    module, _ = _fixture("dequantize_matmul")
    constants = hlo_constants(_compiled_hlo(module))
    assert ("s8", (64, 32)) in constants
    assert ("f32", (64, 32)) not in constants


# --- the Keras fixtures, frozen and quantized per channel -----------------------------------

# (fixture, min-elements, per-channel symmetric weight bytes before -> after, measured). keras_mnist_mlp is
# TensorFlow's beginner-tutorial model (784-128-10) at the quantizer's default min-elements. The tiny
# 20-32-16-10 MLP has no weight of 1,024 elements; at min-elements 64 its 58 f32 output-channel scales
# and 58 f32 biases (not a weight of a quantizable op) keep it at 3.06x.
KERAS = [("keras_mnist_mlp", 1024, 407088, 102752), ("keras_cnn", 64, 8400, 2300), ("keras_mlp", 64, 5480, 1788)]
MIN_ELEMENTS = {name: min_elements for name, min_elements, *_ in KERAS}


@pytest.mark.parametrize("name, min_elements, before, after", KERAS)
def test_keras_fixtures_per_channel_int8(name, min_elements, before, after):
    module, data = _frozen(name)
    (reference,) = LoadedModule(module).run(data["arg0"])
    np.testing.assert_allclose(reference, data["out0"], rtol=1e-5, atol=1e-5)  # freezing changes nothing
    assert constant_bytes(module) == before
    sites = quantize_weights(module, per_channel=True, symmetric=True, min_elements=min_elements)
    assert sites and all(s.channel_axes == (len(s.shape) - 1,) for s in sites)
    assert constant_bytes(module) == after
    span = np.ptp(data["out0"])
    for backend in BACKENDS:
        (out,) = LoadedModule(module).run(data["arg0"], backend=backend)
        assert np.abs(out - data["out0"]).max() < 0.01 * span, backend
    # the weights of the quantized ops alone: at least 3.3x smaller (4x less the scales)
    assert sum(s.float_bytes for s in sites) >= 3.3 * sum(s.int8_bytes for s in sites)


@pytest.mark.parametrize("name", ["keras_mnist_mlp", "keras_cnn"])
@pytest.mark.parametrize("per_channel", [True, False])
def test_keras_weight_bytes_fall_at_least_3_5x(name, per_channel):
    module, _ = _frozen(name)
    before = constant_bytes(module)
    quantize_weights(module, per_channel=per_channel, min_elements=MIN_ELEMENTS[name])
    assert before >= 3.5 * constant_bytes(module)


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("per_channel", [True, False])
def test_keras_attention_quantizes_reshaped_kernels(per_channel, symmetric):
    """Its q/k/v/out kernels are read and Reshaped: constant folding after freezing makes them constants."""
    module, data = _frozen("keras_attention")
    sites = quantize_weights(module, per_channel=per_channel, symmetric=symmetric, min_elements=64)
    assert sorted(s.op for s in sites) == ["tf.BatchMatMulV2"] * 4 + ["tf.MatMul"] * 2  # q, k, v, out; dense x2
    (out,) = LoadedModule(module).run(data["arg0"])
    assert np.abs(out - data["out0"]).max() < 0.01 * np.ptp(data["out0"])


def test_quantized_module_under_xla_keeps_int8_constants():
    module, data = _frozen("keras_mlp")
    float_bytes = hlo_bytes(_compiled_hlo(module))
    quantize_weights(module, min_elements=64)
    int8_bytes = hlo_bytes(_compiled_hlo(module))
    assert int8_bytes.get("s8", 0) == 20 * 32 + 32 * 16 + 16 * 10
    assert sum(int8_bytes.values()) * 2.5 < sum(float_bytes.values())


@pytest.mark.parametrize("inline", [True, False])
def test_inline_and_function_forms_agree_on_both_backends(inline):
    module, data = _frozen("keras_cnn")
    quantize_weights(module, min_elements=64, inline=inline)
    outs = [LoadedModule(module).run(data["arg0"], backend=b)[0] for b in BACKENDS]
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-5)


# --- tinytf quantize -------------------------------------------------------------------------

def test_cli_quantize_reports_bytes_and_check(tmp_path, capsys):
    out = tmp_path / "mlp_int8.mlir"
    args = ["quantize", str(FIXTURES / "keras_mlp.mlir"), "--weights", str(FIXTURES / "keras_mlp.npz"),
            "-o", str(out), "--min-elements", "64", "--check", str(FIXTURES / "keras_mlp.npz")]
    assert cli.main(args) == 0
    printed = capsys.readouterr().out
    assert "froze 6 variables; quantized 3 weights to int8 (per channel, symmetric" in printed
    assert "weight bytes: 5480 -> 1788 (3.06x smaller)" in printed
    diff = float(printed.split("max |int8 - float| = ")[1].split()[0])
    assert 0 < diff < 0.01 * np.ptp(np.load(FIXTURES / "keras_mlp.npz")["out0"])
    data = np.load(FIXTURES / "keras_mlp.npz")
    saved = LoadedModule(mlir.parse(out))
    assert len(saved.entry().function_type.inputs.data) == 1
    assert "xi8>" in out.read_text() and "tf.ReadVariableOp" not in out.read_text()
    (got,) = saved.run(data["arg0"])
    assert abs(np.abs(got - data["out0"]).max() - diff) < 1e-4  # the saved model is the checked one


def test_cli_quantize_per_tensor_asymmetric_function(tmp_path, capsys):
    out = tmp_path / "cnn.mlir"
    args = ["quantize", str(FIXTURES / "keras_cnn.mlir"), "-w", str(FIXTURES / "keras_cnn.npz"), "-o", str(out),
            "--per-tensor", "--asymmetric", "--function", "--min-elements", "200"]
    assert cli.main(args) == 0
    printed = capsys.readouterr().out
    assert "quantized 3 weights to int8 (per tensor, asymmetric, at least 200 elements)" in printed
    text = out.read_text()
    assert text.count('f = @dequantize_i8}') == 3 and "func.func private @dequantize_i8(" in text


def _bad_weights(tmp_path, change):
    data = dict(np.load(FIXTURES / "keras_mlp.npz"))
    change(data)
    path = tmp_path / "w.npz"
    np.savez(path, **data)
    return str(path)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.pop("arg3"), "weights: no value for resource argument arg3 of @__inference_<lambda>_90"),
    (lambda d: d.update(arg1=d["arg1"].astype(np.int32)), "weights arg1 (argument 1 of @__inference_<lambda>_90) "
     "has dtype int32, but the model reads it as float32"),
    (lambda d: d.update(arg3=np.ones((33, 16), np.float32)), "keras_mlp.mlir:12:5: tf.MatMul: matrix "
     "size-incompatible: In[0]: [4,32], In[1]: [33,16]"),
    (lambda d: d.update(arg6=np.ones(3, np.float32)), "tf.BiasAdd: bias [3] does not match the channels"),
])
def test_cli_quantize_bad_weights_one_line_no_output(tmp_path, capsys, change, message):
    out = tmp_path / "out.mlir"
    weights = _bad_weights(tmp_path, change)
    assert cli.main(["quantize", str(FIXTURES / "keras_mlp.mlir"), "-w", weights, "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tinytf quantize: error: ") and message in err and err.count("\n") == 1
    assert not out.exists()


def test_cli_quantize_bad_check_inputs_and_files(tmp_path, capsys):
    out = tmp_path / "out.mlir"
    base = ["quantize", str(FIXTURES / "keras_mlp.mlir"), "-w", str(FIXTURES / "keras_mlp.npz"), "-o", str(out)]
    empty = tmp_path / "empty.npz"
    np.savez(empty, out0=np.zeros(1))
    assert cli.main([*base, "--check", str(empty)]) == 1
    assert "no arg0 (the quantized function takes 1 arguments)" in capsys.readouterr().err
    assert cli.main([*base[:3], str(tmp_path / "missing.npz"), *base[4:]]) == 1
    assert "cannot read" in capsys.readouterr().err
    assert not out.exists()
