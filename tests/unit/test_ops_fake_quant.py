"""The fake-quantization ops, Bitcast, BroadcastArgs and BroadcastGradientArgs: values and gradients equal to
TensorFlow 2.21's (tests/fixtures/quantization/tf_values.npz, recorded by
tests/conformance/export_quantization_fixtures.py) in eager, graph and XLA modes; bad input is a clear error."""
from __future__ import annotations

from pathlib import Path

import conformance_modules
import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError

TF = np.load(Path(__file__).resolve().parents[1] / "fixtures" / "quantization" / "tf_values.npz")
CASES = conformance_modules.load("export_quantization_fixtures")
raw = tt.raw_ops
MODES = ["eager", "graph", "xla"]


def run(fn, mode):
    return fn if mode == "eager" else tt.function(fn, jit_compile=mode == "xla")


def equal_to_tensorflow(got, name, ulps=0):
    want = TF[name]
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape, want.dtype, want.shape)
    if ulps == 0:
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:  # XLA may fuse the final multiply-add: one rounding less
        np.testing.assert_allclose(got, want, rtol=0, atol=ulps * np.spacing(np.float32(np.abs(want).max() + 1)),
                                   err_msg=name)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES.ARGS_CASES))
def test_fake_quant_with_min_max_args_is_tensorflows(name, mode):
    shape, seed, attrs = CASES.ARGS_CASES[name]
    full = {"min": -6.0, "max": 6.0, "num_bits": 8, "narrow_range": False, **attrs}

    def forward_and_grad(x):
        with tt.GradientTape() as tape:
            tape.watch(x)
            y = raw.FakeQuantWithMinMaxArgs(inputs=x, **full)
            loss = tt.reduce_sum(y * tt.constant(CASES.weights(shape)))
        return y, tape.gradient(loss, x)

    y, dx = run(forward_and_grad, mode)(tt.constant(CASES.quant_input(seed, *shape)))
    equal_to_tensorflow(y.numpy(), name)
    equal_to_tensorflow(dx.numpy(), name + "/dx")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES.VARS_CASES) + sorted(CASES.PER_CHANNEL_CASES))
def test_fake_quant_with_min_max_vars_is_tensorflows(name, mode):
    per_channel = name in CASES.PER_CHANNEL_CASES
    shape, seed, low, high, attrs = (CASES.PER_CHANNEL_CASES if per_channel else CASES.VARS_CASES)[name]
    op = raw.FakeQuantWithMinMaxVarsPerChannel if per_channel else raw.FakeQuantWithMinMaxVars
    full = {"num_bits": 8, "narrow_range": False, **attrs}

    def forward_and_grad(x, lo, hi):
        with tt.GradientTape() as tape:
            tape.watch([x, lo, hi])
            y = op(inputs=x, min=lo, max=hi, **full)
            loss = tt.reduce_sum(y * tt.constant(CASES.weights(shape)))
        return [y, *tape.gradient(loss, [x, lo, hi])]

    args = [tt.constant(CASES.quant_input(seed, *shape)), tt.constant(np.float32(low)), tt.constant(np.float32(high))]
    y, dx, dmin, dmax = run(forward_and_grad, mode)(*args)
    equal_to_tensorflow(y.numpy(), name)
    equal_to_tensorflow(dx.numpy(), name + "/dx")
    equal_to_tensorflow(dmin.numpy(), name + "/dmin")
    equal_to_tensorflow(dmax.numpy(), name + "/dmax")


def test_fake_quant_bad_input_names_the_op():
    x = tt.constant(np.zeros((2, 3), np.float32))
    with pytest.raises(InvalidArgumentError, match="FakeQuantWithMinMaxArgs: num_bits must be between 2 and 16"):
        raw.FakeQuantWithMinMaxArgs(inputs=x, num_bits=1)
    with pytest.raises(InvalidArgumentError, match="min has to be smaller than max, was: 2.0 >= 1.0"):
        raw.FakeQuantWithMinMaxArgs(inputs=x, min=2.0, max=1.0)
    with pytest.raises(InvalidArgumentError, match=r"FakeQuantWithMinMaxVarsPerChannel: min must have shape \[3\]"):
        raw.FakeQuantWithMinMaxVarsPerChannel(inputs=x, min=tt.constant([0.0, 1.0]), max=tt.constant([1.0, 2.0, 3.0]))
    with pytest.raises(InvalidArgumentError, match="FakeQuantWithMinMaxVars: expects float32 tensors, got int32"):
        raw.FakeQuantWithMinMaxVars(inputs=tt.constant([1, 2]), min=tt.constant(0.0), max=tt.constant(1.0))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(CASES.BITCAST_CASES))
def test_bitcast_is_tensorflows(name, mode):
    x, dtype = CASES.BITCAST_CASES[name]
    got = run(lambda t: raw.Bitcast(input=t, type=getattr(tt, dtype)), mode)(tt.constant(x))
    equal_to_tensorflow(got.numpy(), name)


def test_bitcast_bad_input_names_the_op():
    with pytest.raises(InvalidArgumentError, match=r"tf.Bitcast: cannot bitcast a tensor of shape \[3,3\] with "
                                                   "2-byte elements to 4-byte elements: the last dim must be 2"):
        raw.Bitcast(input=tt.constant(np.zeros((3, 3), np.int16)), type=tt.int32)
    with pytest.raises(InvalidArgumentError, match="cannot bitcast bool to int8"):
        raw.Bitcast(input=tt.constant([True]), type=tt.int8)


@pytest.mark.parametrize("mode", MODES[:2])
@pytest.mark.parametrize("name", sorted(CASES.BROADCAST_CASES))
def test_broadcast_args_and_gradient_args_are_tensorflows(name, mode):
    s0, s1 = (tt.constant(np.asarray(s, np.int32)) for s in CASES.BROADCAST_CASES[name])
    r0, r1 = run(lambda a, b: raw.BroadcastGradientArgs(s0=a, s1=b), mode)(s0, s1)
    equal_to_tensorflow(r0.numpy(), name + "/r0")
    equal_to_tensorflow(r1.numpy(), name + "/r1")
    equal_to_tensorflow(run(lambda a, b: raw.BroadcastArgs(s0=a, s1=b), mode)(s0, s1).numpy(), name + "/shape")


def test_broadcast_gradient_args_of_incompatible_shapes_is_an_error():
    with pytest.raises(InvalidArgumentError, match=r"BroadcastGradientArgs: Incompatible shapes: \[4,1\] vs. \[2,4\]"):
        raw.BroadcastGradientArgs(s0=tt.constant([4, 1]), s1=tt.constant([2, 4]))


def test_parsed_ops_verify_print_and_run_on_both_backends():
    text = """func.func @main(%x: tensor<2x3xf32>, %s: tensor<2x2xi16>) -> (tensor<2x3xf32>, tensor<2xi32>, tensor<2xi32>) {
  %q = "tf.FakeQuantWithMinMaxArgs"(%x) <{max = 1.000000e+00 : f32, min = -1.000000e+00 : f32, num_bits = 4 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = "tf.Bitcast"(%s) : (tensor<2x2xi16>) -> tensor<2xi32>
  %a = "tf.Const"() <{value = dense<[2, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %c = "tf.Const"() <{value = dense<[1]> : tensor<1xi32>}> : () -> tensor<1xi32>
  %r0, %r1 = "tf.BroadcastGradientArgs"(%a, %c) : (tensor<2xi32>, tensor<1xi32>) -> (tensor<1xi32>, tensor<2xi32>)
  return %q, %b, %r1 : tensor<2x3xf32>, tensor<2xi32>, tensor<2xi32>
}
"""
    module = mlir.parse(text)
    mlir.verify(module)
    assert mlir.print(mlir.parse(mlir.print(module))) == mlir.print(module)
    x = np.array([[-2.0, -0.4, 0.0], [0.3, 0.9, 5.0]], np.float32)
    s = np.array([[1, 0], [-1, -1]], np.int16)
    for backend in ("graph", "xla"):
        q, b, r1 = tt.load_mlir(text).run(x, s, backend=backend)
        # 4 bits over [-1, 1]: scale 2/15 and, in float32, a zero point of 7.4999995 that rounds to 7: the grid
        # is (k - 7) * 2/15, from -0.9333 to 1.0667 (the eager kernel is checked against TensorFlow above)
        want = raw.FakeQuantWithMinMaxArgs(inputs=tt.constant(x), min=-1.0, max=1.0, num_bits=4).numpy()
        np.testing.assert_array_equal(np.asarray(q), want)
        assert want.min() == np.float32(-7 * np.float32(2 / 15)) and want.max() == np.float32(8 * np.float32(2 / 15))
        np.testing.assert_array_equal(np.asarray(b), s.view(np.int32).reshape(2))
        np.testing.assert_array_equal(np.asarray(r1), [0, 1])  # [1] pads to [1, 1]: both axes sum
