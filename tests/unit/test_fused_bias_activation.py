"""The remapper's fused ops (tf._FusedConv2D, _FusedDepthwiseConv2dNative, _FusedMatMul) equal the unfused
chain (layer, BiasAdd, activation) on random inputs, eagerly (numpy, in place) and under XLA, and the
graph executor runs a loaded model through them."""
import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import InvalidArgumentError
from tinytf.ops.conv import Conv2D, DepthwiseConv2dNative
from tinytf.ops.math import MatMul
from tinytf.ops.nn import BiasAdd, Elu, LeakyRelu, Relu, Relu6
from tinytf.ops.nn_fused import FusedConv2D, FusedDepthwiseConv2dNative, FusedMatMul
from tinytf.passes.fuse_bias_activation import fused

CHAINS = [[], ["Relu"], ["Relu6"], ["Elu"], ["LeakyRelu"]]
CONV = dict(strides=[1, 2, 2, 1], padding="SAME", data_format="NHWC", dilations=[1, 1, 1, 1])


def _reference(y, bias, activation, alpha=0.2):
    """numpy's bias add and activation, written from TensorFlow's definitions."""
    y = y + bias
    if activation == "Relu":
        return np.maximum(y, 0)
    if activation == "Relu6":
        return np.minimum(np.maximum(y, 0), 6)
    if activation == "Elu":
        return np.where(y < 0, np.expm1(np.minimum(y, 0)), y)
    if activation == "LeakyRelu":
        return np.where(y > 0, y, y * np.float32(alpha))
    return y


def _unfused(layer, x, w, b, activation, alpha, **attrs):
    y = BiasAdd.bind(layer.bind(x, w, **attrs), b)
    ops = {"Relu": Relu, "Relu6": Relu6, "Elu": Elu}
    if activation == "LeakyRelu":
        return LeakyRelu.bind(y, alpha=alpha)
    return ops[activation].bind(y) if activation else y


def _inputs(rng, layer):
    if layer is MatMul:
        return rng.standard_normal((5, 7)).astype(np.float32) * 3, rng.standard_normal((7, 6)).astype(np.float32)
    x = rng.standard_normal((2, 9, 9, 4)).astype(np.float32) * 3
    w = rng.standard_normal((3, 3, 4, 6 if layer is Conv2D else 2)).astype(np.float32)
    return x, w


CASES = [(FusedConv2D, Conv2D, CONV), (FusedDepthwiseConv2dNative, DepthwiseConv2dNative, CONV),
         (FusedMatMul, MatMul, {}), (FusedMatMul, MatMul, {"transpose_b": True})]


@pytest.mark.parametrize("activation", CHAINS, ids=lambda c: "+".join(["BiasAdd"] + c))
@pytest.mark.parametrize("fused_cls,layer,attrs", CASES, ids=["conv", "depthwise", "matmul", "matmul_tb"])
def test_fused_equals_chain_eager_and_xla(fused_cls, layer, attrs, activation):
    rng = np.random.default_rng(17)
    x, w = _inputs(rng, layer)
    if attrs.get("transpose_b"):
        w = np.ascontiguousarray(w.T)
    channels = w.shape[0] if attrs.get("transpose_b") else w.shape[-1] * (w.shape[-2] if layer is
                                                                            DepthwiseConv2dNative else 1)
    b = rng.standard_normal(channels).astype(np.float32)
    act = activation[0] if activation else None
    alpha = 0.3
    fused_ops = ["BiasAdd"] + activation
    product = layer.bind(x, w, **attrs).numpy()
    want = _reference(product, b, act, alpha)
    eager = fused_cls.bind(x, w, b, fused_ops=fused_ops, leakyrelu_alpha=alpha, **attrs)
    chain = _unfused(layer, x, w, b, act, alpha, **attrs).numpy()
    np.testing.assert_array_equal(eager.numpy(), chain)  # bit for bit the unfused ops
    np.testing.assert_allclose(eager.numpy(), want, rtol=1e-6, atol=1e-6)

    @tt.function(jit_compile=True)
    def xla(x, w, b):
        return fused_cls.bind(x, w, b, fused_ops=fused_ops, leakyrelu_alpha=alpha, **attrs)

    np.testing.assert_allclose(xla(x, w, b).numpy(), want, rtol=1e-5, atol=1e-5)


def test_unsupported_fusion_is_refused():
    x, w, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32), np.ones(4, np.float32)
    with pytest.raises(InvalidArgumentError, match="unsupported fusion"):
        FusedMatMul.bind(x, w, b, fused_ops=["BiasAdd", "Tanh"])
    with pytest.raises(InvalidArgumentError, match="num_args must be 1"):
        FusedMatMul.bind(x, w, b, b, fused_ops=["BiasAdd"])


MODULE = """
func.func @main(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %b: tensor<4xf32>, %m: tensor<4x5xf32>, %c: tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x8x8x4xf32>) {
  %0 = "tf.Conv2D"(%x, %w) <{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true}> : (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x8x4xf32>
  %1 = "tf.BiasAdd"(%0, %b) <{data_format = "NHWC"}> : (tensor<2x8x8x4xf32>, tensor<4xf32>) -> tensor<2x8x8x4xf32>
  %2 = "tf.Relu6"(%1) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
  %r = "tf.Const"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %3 = "tf.Mean"(%2, %r) <{keep_dims = false}> : (tensor<2x8x8x4xf32>, tensor<2xi32>) -> tensor<2x4xf32>
  %4 = "tf.MatMul"(%3, %m) <{transpose_a = false, transpose_b = false}> : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  %5 = "tf.BiasAdd"(%4, %c) <{data_format = "NHWC"}> : (tensor<2x5xf32>, tensor<5xf32>) -> tensor<2x5xf32>
  %6 = "tf.Elu"(%5) : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %6, %2 : tensor<2x5xf32>, tensor<2x8x8x4xf32>
}
"""


def test_loaded_module_runs_the_fused_ops_on_graph_and_xla():
    m = tt.load_mlir(MODULE)
    ops = [op.name for fn in fused(m.module).ops for op in fn.body.block.ops]
    assert "tf._FusedConv2D" in ops and "tf._FusedMatMul" in ops and "tf.BiasAdd" not in ops
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 8, 8, 3)).astype(np.float32) * 2
    w, b = rng.standard_normal((3, 3, 3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    mm, c = rng.standard_normal((4, 5)).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    conv = Conv2D.bind(x, w, **CONV | {"strides": [1, 1, 1, 1]}).numpy()
    hidden = _reference(conv, b, "Relu6")
    want = _reference(hidden.mean(axis=(1, 2)) @ mm, c, "Elu")
    for backend in ("graph", "xla"):
        out, h = m.run(x, w, b, mm, c, backend=backend)
        np.testing.assert_allclose(h, hidden, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


TF_TEXT = """
func.func @main(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x3xf32>, %b: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = "tf._FusedConv2D"(%x, %w, %b) {T = f32, data_format = "NHWC", device = "", dilations = [1, 1, 1, 1], epsilon = 0.000000e+00 : f32, explicit_paddings = [], fused_ops = ["BiasAdd", "LeakyRelu"], leakyrelu_alpha = 3.000000e-01 : f32, num_args = 1 : i64, padding = "SAME", strides = [1, 1, 1, 1], use_cudnn_on_gpu = true} : (tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}
"""


def test_tensorflow_text_of_a_fused_conv_runs_on_graph_and_xla():
    """The op as TensorFlow prints a grappler-optimised graph (T and num_args in the attribute dictionary)."""
    m = tt.load_mlir(TF_TEXT)
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((1, 4, 4, 2)).astype(np.float32), rng.standard_normal((3, 3, 2, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    want = _reference(Conv2D.bind(x, w, **CONV | {"strides": [1, 1, 1, 1]}).numpy(), b, "LeakyRelu", 0.3)
    for backend in ("graph", "xla"):
        np.testing.assert_allclose(m.run(x, w, b, backend=backend)[0], want, rtol=1e-5, atol=1e-5)
