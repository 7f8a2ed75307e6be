"""Convolutions lower to what XLA:CPU runs fast, and give the numpy kernel's values: a filter window
that outgrows the input (a 3x3 filter over VGG16's or ResNet50's last 2x2 or 1x1 maps) and depthwise
convolutions (shifted multiply-adds, not XLA's grouped convolution, 20-40x slower on the CPU).

XLA's conv-operand-swapper turns such a convolution into one of the filter by the input, in a
layout XLA:CPU runs as plain loops (a 2x2x512 by 3x3x512x512 one: about 200 ms instead of 1 ms);
``jax_conv`` pads the input first, behind a barrier (as it does an input a tf.Pad padded). The compiled HLO must hold no swapped convolution (its mark is a
reversed window, ``rhs_reversal``), and the values must stay the numpy kernel's.
"""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import xla
from tinytf.ops.conv import Conv2D, DepthwiseConv2dNative
from tinytf.ops.conv_kernels import jax_conv, np_conv

jax = pytest.importorskip("jax")

# (input, filter, strides, padding, explicit paddings, dilations, data format, depthwise)
CASES = {
    "vgg16 last block": ((2, 2, 2, 8), (3, 3, 8, 16), 1, "SAME", [], 1, "NHWC", False),
    "resnet50 last block": ((2, 1, 1, 8), (3, 3, 8, 8), 1, "SAME", [], 1, "NHWC", False),
    "strided": ((1, 2, 3, 4), (3, 3, 4, 5), 2, "SAME", [], 1, "NHWC", False),
    "dilated": ((1, 3, 3, 4), (2, 2, 4, 5), 1, "SAME", [], 2, "NHWC", False),
    "explicit": ((1, 2, 2, 4), (3, 3, 4, 5), 1, "EXPLICIT", [0, 0, 2, 0, 1, 1, 0, 0], 1, "NHWC", False),
    "NCHW": ((2, 8, 2, 2), (3, 3, 8, 4), 1, "SAME", [], 1, "NCHW", False),
    "depthwise": ((2, 2, 2, 8), (3, 3, 8, 2), 1, "SAME", [], 1, "NHWC", True),
    "depthwise 5x5": ((2, 7, 7, 6), (5, 5, 6, 1), 1, "SAME", [], 1, "NHWC", True),
    "depthwise strided": ((2, 9, 8, 6), (3, 3, 6, 1), 2, "SAME", [], 1, "NHWC", True),
    "depthwise dilated NCHW": ((1, 4, 7, 7), (3, 3, 4, 3), 1, "VALID", [], 2, "NCHW", True),
    "depthwise explicit": ((1, 5, 5, 3), (3, 3, 3, 2), 1, "EXPLICIT", [0, 0, 1, 2, 0, 1, 0, 0], 1, "NHWC", True),
    "large input": ((1, 8, 8, 4), (3, 3, 4, 4), 1, "SAME", [], 1, "NHWC", False),
}


def four(value, data_format):
    return [1, 1, value, value] if data_format == "NCHW" else [1, value, value, 1]


def conv_case(name):
    x_shape, w_shape, stride, padding, explicit, dilation, fmt, depthwise = CASES[name]
    explicit = ([explicit[0], explicit[1], explicit[6], explicit[7], explicit[2], explicit[3], explicit[4],
                 explicit[5]] if fmt == "NCHW" and explicit else explicit)
    attrs = {"data_format": fmt, "strides": four(stride, fmt), "dilations": four(dilation, fmt),
             "padding": padding, "explicit_paddings": explicit}
    op = DepthwiseConv2dNative if depthwise else Conv2D
    rng = np.random.default_rng(len(name))
    x = rng.uniform(-1, 1, x_shape).astype(np.float32)
    w = rng.uniform(-1, 1, w_shape).astype(np.float32)
    return op.window(x_shape, w_shape, attrs), x, w, fmt, depthwise


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_convolution_keeps_its_operands_and_its_values(name):
    win, x, w, fmt, depthwise = conv_case(name)
    jitted = jax.jit(lambda x, w: jax_conv(x, w, win, fmt, depthwise))
    compiled = jitted.lower(x, w).compile().as_text()
    if depthwise:  # shifted multiply-adds, no grouped convolution
        assert "convolution(" not in compiled
    else:
        assert "convolution(" in compiled
        assert "rhs_reversal" not in compiled
    want = np_conv(x, w, win, fmt, depthwise)
    got = np.asarray(jitted(x, w))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_without_the_padding_xla_would_swap_the_operands():
    """The case the fix is for: the same convolution given to XLA with its padding inside it."""
    from jax import lax

    win, x, w, fmt, _ = conv_case("vgg16 last block")
    plain = jax.jit(lambda x, w: lax.conv_general_dilated(x, w, win.strides, list(win.pads),
                                                          dimension_numbers=(fmt, "HWIO", fmt)))
    assert "rhs_reversal" in plain.lower(x, w).compile().as_text()


@pytest.mark.parametrize("name", ["vgg16 last block", "depthwise", "depthwise strided", "depthwise dilated NCHW"])
def test_gradients_through_the_rewritten_convolutions_match_numpy(name):
    """The gradient ops lower through jax_conv's vjp: through the barrier and the shifted multiply-adds."""
    from tinytf.ops.conv_kernels import (
        jax_conv_backprop_filter,
        jax_conv_backprop_input,
        np_conv_backprop_filter,
        np_conv_backprop_input,
    )

    win, x, w, fmt, dw_ = conv_case(name)
    dy = np.random.default_rng(3).uniform(-1, 1, np_conv(x, w, win, fmt, dw_).shape).astype(np.float32)
    dx = jax.jit(lambda w, dy: jax_conv_backprop_input(x.shape, w, dy, win, fmt, dw_))(w, dy)
    dw = jax.jit(lambda x, dy: jax_conv_backprop_filter(x, w.shape, dy, win, fmt, dw_))(x, dy)
    np.testing.assert_allclose(np.asarray(dx), np_conv_backprop_input(w, dy, win, fmt, dw_), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(dw), np_conv_backprop_filter(x, dy, win, fmt, dw_), rtol=1e-5, atol=1e-5)


def test_a_half_precision_depthwise_convolution_accumulates_in_float32():
    win, x, w, fmt, _ = conv_case("depthwise 5x5")
    got = jax.jit(lambda x, w: jax_conv(x, w, win, fmt, True))(x.astype(np.float16), w.astype(np.float16))
    assert got.dtype == np.float16
    want = np_conv(x.astype(np.float16).astype(np.float32), w.astype(np.float16).astype(np.float32), win, fmt, True)
    np.testing.assert_allclose(np.asarray(got, np.float32), want, rtol=1e-3, atol=1e-3)


def test_a_tf_conv2d_module_runs_the_same_on_both_backends():
    text = """
func.func @main(%x: tensor<2x2x2x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<2x2x2x16xf32> {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [],
        padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}>
        : (tensor<2x2x2x8xf32>, tensor<3x3x8x16xf32>) -> tensor<2x2x2x16xf32>
  %1 = "tf.Relu"(%0) : (tensor<2x2x2x16xf32>) -> tensor<2x2x2x16xf32>
  func.return %1 : tensor<2x2x2x16xf32>
}
"""
    _, x, _, _, _ = conv_case("vgg16 last block")
    w = np.random.default_rng(5).uniform(-1, 1, (3, 3, 8, 16)).astype(np.float32)
    module = tt.load_mlir(text)
    graph, = module.run(x, w, backend="graph")
    compiled, = module.run(x, w, backend="xla")
    assert graph.max() > 0
    np.testing.assert_allclose(compiled, graph, rtol=1e-5, atol=1e-5)


VGG_LIKE = """
func.func @main(%x: tensor<2x16x16x16xf32>, %w1: tensor<3x3x16x32xf32>, %w2: tensor<3x3x32x32xf32>, %m: tensor<2048x10xf32>)
    -> tensor<2x10xf32> {
  %0 = "tf.Conv2D"(%x, %w1) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [],
        padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}>
        : (tensor<2x16x16x16xf32>, tensor<3x3x16x32xf32>) -> tensor<2x16x16x32xf32>
  %1 = "tf.Relu"(%0) : (tensor<2x16x16x32xf32>) -> tensor<2x16x16x32xf32>
  %2 = "tf.Conv2D"(%1, %w2) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [],
        padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}>
        : (tensor<2x16x16x32xf32>, tensor<3x3x32x32xf32>) -> tensor<2x16x16x32xf32>
  %3 = "tf.Relu"(%2) : (tensor<2x16x16x32xf32>) -> tensor<2x16x16x32xf32>
  %4 = "tf.MaxPool"(%3) <{data_format = "NHWC", explicit_paddings = [], ksize = [1, 2, 2, 1], padding = "VALID",
        strides = [1, 2, 2, 1]}> : (tensor<2x16x16x32xf32>) -> tensor<2x8x8x32xf32>
  %5 = "tf.Const"() <{value = dense<[2, 2048]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %6 = "tf.Reshape"(%4, %5) : (tensor<2x8x8x32xf32>, tensor<2xi32>) -> tensor<2x2048xf32>
  %7 = "tf.MatMul"(%6, %m) <{transpose_a = false, transpose_b = false}>
        : (tensor<2x2048xf32>, tensor<2048x10xf32>) -> tensor<2x10xf32>
  func.return %7 : tensor<2x10xf32>
}
"""


def library_subgraphs(hlo: str) -> list[int]:
    """For each YNNPACK fusion of a compiled HLO module: how many convolutions and dots it holds."""
    import re

    bodies = dict(re.findall(r"^(%\S+) .*?\{\n(.*?)\n\}", hlo, re.M | re.S))
    called = re.findall(r"calls=(%[^,\s]+).*__ynn_fusion", hlo)
    return [len(re.findall(r" (?:convolution|dot)\(", bodies[name])) for name in called]


def test_xla_cpu_calls_the_convolution_library_once_per_convolution_or_matmul():
    """Not one library subgraph over the run (VGG16: 4.5x the CPU time): tinytf's CPU_COMPILER_OPTIONS.
    Left to its defaults, this XLA gathers the run into one subgraph: the case the options are for."""
    result = xla.compile(VGG_LIKE)
    counts = library_subgraphs(result.compiled.as_text())
    assert counts and all(n == 1 for n in counts), counts
    default = library_subgraphs(result.lowered.compile().as_text())
    assert max(default) > 1, default


def test_the_compiled_function_keeps_its_values():
    rng = np.random.default_rng(7)
    args = [rng.uniform(-1, 1, s).astype(np.float32) for s in ((2, 16, 16, 16), (3, 3, 16, 32), (3, 3, 32, 32), (2048, 10))]
    module = tt.load_mlir(VGG_LIKE)
    graph, = module.run(*args, backend="graph")
    compiled, = module.run(*args, backend="xla")
    assert np.abs(graph).max() > 0
    np.testing.assert_allclose(compiled, graph, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("stride", [1, 2])
def test_an_input_padded_before_an_unpadded_convolution_keeps_its_operands(stride):
    """ResNet50V2 pads with tf.Pad (ZeroPadding2D) and convolves without padding: XLA folds that pad
    into the convolution and would swap its operands."""
    import jax.numpy as jnp
    from jax import lax

    attrs = {"data_format": "NHWC", "strides": four(stride, "NHWC"), "dilations": [1, 1, 1, 1],
             "padding": "VALID", "explicit_paddings": []}
    win = Conv2D.window((2, 4, 4, 8), (3, 3, 8, 16), attrs)
    rng = np.random.default_rng(stride)
    x = rng.uniform(-1, 1, (2, 2, 2, 8)).astype(np.float32)
    w = rng.uniform(-1, 1, (3, 3, 8, 16)).astype(np.float32)

    def pad(x):
        return jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))

    plain = jax.jit(lambda x, w: lax.conv_general_dilated(pad(x), w, win.strides, "VALID",
                                                          dimension_numbers=("NHWC", "HWIO", "NHWC")))
    assert "rhs_reversal" in plain.lower(x, w).compile().as_text()  # what XLA does without the barrier
    jitted = jax.jit(lambda x, w: jax_conv(pad(x), w, win, "NHWC", False))
    assert "rhs_reversal" not in jitted.lower(x, w).compile().as_text()
    np.testing.assert_allclose(np.asarray(jitted(x, w)), np_conv(np.asarray(pad(x)), w, win, "NHWC", False),
                               rtol=1e-5, atol=1e-5)
