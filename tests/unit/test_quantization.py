"""Int8 weight quantization: the numpy scheme, tf-freeze-variables and tf-quantize-weights on small
modules, checked against numpy references run through the graph executor."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import mlir
from tinytf.errors import InvalidArgumentError, NotFoundError
from tinytf.loaded_module import LoadedModule
from tinytf.quantization import constant_bytes, freeze_variables, quantize, quantize_weights
from tinytf.quantization.int8 import scale_shape

RNG = np.random.default_rng(7)


# --- the numpy scheme ------------------------------------------------------------------------

def test_symmetric_per_channel_matches_reference():
    w = RNG.standard_normal((16, 5)).astype(np.float32) * np.array([1, 2, 4, 8, 0.5], np.float32)
    q = quantize(w, (1,), symmetric=True)
    scale = (np.abs(w).max(axis=0) / 127).astype(np.float32)
    np.testing.assert_array_equal(q.scale, scale)
    np.testing.assert_array_equal(q.values, np.clip(np.rint(w / scale), -127, 127).astype(np.int8))
    assert q.zero_point.shape == () and q.zero_point == 0
    assert q.values.dtype == np.int8 and q.scale.shape == (5,)
    assert np.all(np.abs(q.dequantize() - w) <= scale / 2 + 1e-7)
    # the largest magnitude of each column is exactly representable
    np.testing.assert_array_equal(np.abs(q.values).max(axis=0), [127] * 5)


def test_symmetric_per_tensor_is_odd():
    w = RNG.standard_normal((8, 8)).astype(np.float32)
    q, neg = quantize(w), quantize(-w)
    np.testing.assert_array_equal(q.values, -neg.values)
    assert q.scale.shape == () and q.scale == np.float32(np.abs(w).max() / 127)


def test_asymmetric_uses_the_whole_range_and_keeps_zero_exact():
    w = np.concatenate([RNG.uniform(0.0, 3.0, (10, 1)), RNG.uniform(-1.0, 0.2, (10, 1))], axis=1).astype(np.float32)
    w[0] = 0.0
    q = quantize(w, (1,), symmetric=False)
    assert q.zero_point.shape == (2,) and q.zero_point.dtype == np.int32
    assert q.values.min() >= -128 and q.values.max() <= 127
    np.testing.assert_array_equal(q.dequantize()[0], [0.0, 0.0])  # zero stays exactly zero
    lo, hi = np.minimum(w.min(axis=0), 0), np.maximum(w.max(axis=0), 0)
    np.testing.assert_allclose(q.scale, (hi - lo) / 255, rtol=1e-6)
    assert np.all(np.abs(q.dequantize() - w) <= q.scale / 2 + 1e-6)


def test_asymmetric_beats_symmetric_on_one_sided_weights():
    w = RNG.uniform(0.0, 1.0, (64, 4)).astype(np.float32)
    sym = np.abs(quantize(w, (1,)).dequantize() - w).max()
    asym = np.abs(quantize(w, (1,), symmetric=False).dequantize() - w).max()
    assert asym < 0.6 * sym


def test_zero_weight_and_scale_shapes():
    q = quantize(np.zeros((3, 4), np.float32), (1,))
    np.testing.assert_array_equal(q.values, 0)
    np.testing.assert_array_equal(q.scale, 1.0)
    assert scale_shape((3, 3, 4, 2), (2, 3)) == (4, 2)
    assert scale_shape((7, 5), (0,)) == (7, 1)
    assert scale_shape((7, 5), ()) == ()
    assert quantize(RNG.standard_normal((3, 3, 4, 2)).astype(np.float32), (2, 3)).scale.shape == (4, 2)


@pytest.mark.parametrize("bad", [np.arange(6, dtype=np.int32), np.array([1.0, np.nan], np.float32),
                                 np.zeros((0, 3), np.float32)])
def test_bad_weights_are_refused(bad):
    with pytest.raises(InvalidArgumentError):
        quantize(bad)


# --- tf-quantize-weights on small modules, run by the graph executor --------------------------

def _dense(data) -> str:
    return "dense<" + np.array2string(np.asarray(data), separator=", ", threshold=10**6,
                                      floatmode="unique").replace("\n", "") + ">"


def _run(module, *args):
    mlir.verify(module)
    return LoadedModule(mlir.parse(mlir.print(module))).run(*args)


def _quantized(text: str, **options):
    module = mlir.parse(text)
    sites = quantize_weights(module, min_elements=options.pop("min_elements", 1), **options)
    return module, sites


MATMUL = """func.func @main(%x: tensor<3x16xf32>) -> tensor<3x6xf32> {{
  %w = "tf.Const"() <{{value = {w} : tensor<16x6xf32>}}> : () -> tensor<16x6xf32>
  %y = "tf.MatMul"(%x, %w) <{{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}}> : (tensor<3x16xf32>, tensor<16x6xf32>) -> tensor<3x6xf32>
  func.return %y : tensor<3x6xf32>
}}"""


@pytest.mark.parametrize("per_channel", [True, False])
@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("inline", [True, False])
def test_matmul_runs_with_the_dequantized_weight(per_channel, symmetric, inline):
    w = RNG.standard_normal((16, 6)).astype(np.float32)
    x = RNG.standard_normal((3, 16)).astype(np.float32)
    module, sites = _quantized(MATMUL.format(w=_dense(w)), per_channel=per_channel, symmetric=symmetric, inline=inline)
    assert [(s.op, s.shape, s.channel_axes) for s in sites] == [("tf.MatMul", (16, 6), (1,) if per_channel else ())]
    expected = x @ quantize(w, (1,) if per_channel else (), symmetric).dequantize()
    (got,) = _run(module, x)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert np.abs(got - x @ w).max() < 0.02 * np.ptp(x @ w)
    ops = [op.name for op in module.walk()]
    assert ("tf.PartitionedCall" in ops) != inline
    assert ops.count("tf.Identity") == 1 and "tf.Const" in ops


def test_min_elements_is_inclusive():
    w = RNG.standard_normal((16, 6)).astype(np.float32)
    assert len(_quantized(MATMUL.format(w=_dense(w)), min_elements=96)[1]) == 1
    module, sites = _quantized(MATMUL.format(w=_dense(w)), min_elements=97)
    assert sites == [] and "tf.Identity" not in [op.name for op in module.walk()]


def test_gather_depthwise_einsum_batch_matmul_against_numpy():
    table = RNG.standard_normal((10, 4)).astype(np.float32)
    dw = RNG.standard_normal((3, 3, 2, 3)).astype(np.float32)
    ew = RNG.standard_normal((4, 5)).astype(np.float32)
    bw = RNG.standard_normal((5, 4)).astype(np.float32)
    text = f"""func.func @main(%ids: tensor<6xi32>, %img: tensor<1x5x5x2xf32>, %h: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<1x3x3x6xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>) {{
  %t = "tf.Const"() <{{value = {_dense(table)} : tensor<10x4xf32>}}> : () -> tensor<10x4xf32>
  %axis = "tf.Const"() <{{value = dense<0> : tensor<i32>}}> : () -> tensor<i32>
  %e = "tf.GatherV2"(%t, %ids, %axis) <{{batch_dims = 0 : i64}}> : (tensor<10x4xf32>, tensor<6xi32>, tensor<i32>) -> tensor<6x4xf32>
  %dw = "tf.Const"() <{{value = {_dense(dw)} : tensor<3x3x2x3xf32>}}> : () -> tensor<3x3x2x3xf32>
  %c = "tf.DepthwiseConv2dNative"(%img, %dw) <{{data_format = "NHWC", dilations = [1, 1, 1, 1], explicit_paddings = [], padding = "VALID", strides = [1, 1, 1, 1]}}> : (tensor<1x5x5x2xf32>, tensor<3x3x2x3xf32>) -> tensor<1x3x3x6xf32>
  %ew = "tf.Const"() <{{value = {_dense(ew)} : tensor<4x5xf32>}}> : () -> tensor<4x5xf32>
  %s = "tf.Einsum"(%h, %ew) <{{equation = "btk,kn->btn"}}> : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %bw = "tf.Const"() <{{value = {_dense(bw)} : tensor<5x4xf32>}}> : () -> tensor<5x4xf32>
  %b = "tf.BatchMatMulV2"(%h, %bw) <{{adj_x = false, adj_y = true, grad_x = false, grad_y = false}}> : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  func.return %e, %c, %s, %b : tensor<6x4xf32>, tensor<1x3x3x6xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>
}}"""
    ids = np.array([0, 9, 3, 3, 5, 1], np.int32)
    img = RNG.standard_normal((1, 5, 5, 2)).astype(np.float32)
    h = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    float_outs = LoadedModule(mlir.parse(text)).run(ids, img, h)
    module, sites = _quantized(text)
    assert [(s.op, s.channel_axes) for s in sites] == [
        ("tf.GatherV2", (0,)), ("tf.DepthwiseConv2dNative", (2, 3)), ("tf.Einsum", (1,)), ("tf.BatchMatMulV2", (0,))]
    got = _run(module, ids, img, h)
    np.testing.assert_allclose(got[0], quantize(table, (0,)).dequantize()[ids], rtol=1e-6)
    np.testing.assert_allclose(got[2], h @ quantize(ew, (1,)).dequantize(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[3], h @ quantize(bw, (0,)).dequantize().T, rtol=1e-5, atol=1e-5)
    for g, f in zip(got, float_outs):
        assert np.abs(g - f).max() < 0.01 * np.ptp(f)
    # the depthwise filter's [C, M] scale: each output channel c*M + m is exact to its own scale
    q = quantize(dw, (2, 3))
    assert q.scale.shape == (2, 3)
    reference = LoadedModule(mlir.parse(text.replace(_dense(dw), _dense(q.dequantize())))).run(ids, img, h)[1]
    np.testing.assert_allclose(got[1], reference, rtol=1e-5, atol=1e-6)


def test_quantizing_twice_changes_nothing():
    w = RNG.standard_normal((16, 6)).astype(np.float32)
    module, _ = _quantized(MATMUL.format(w=_dense(w)))
    text = mlir.print(module)
    assert quantize_weights(module, min_elements=1) == []
    assert mlir.print(module) == text


# --- tf-freeze-variables --------------------------------------------------------------------

DENSE = """func.func @dense(%arg0: tensor<4x3xf32> {tf._user_specified_name = "x"}, %arg1: tensor<*x!tf_type.resource> {tf._user_specified_name = "resource"}, %arg2: tensor<*x!tf_type.resource> {tf._user_specified_name = "resource"}) -> tensor<4x?xf32> attributes {tf.entry_function = {control_outputs = "r1,r2", inputs = "x,w,b", outputs = "y"}} {
  %0 = "tf.ReadVariableOp"(%arg1) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %1 = "tf.ReadVariableOp"(%arg2) : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
  %2 = "tf.MatMul"(%arg0, %0) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> : (tensor<4x3xf32>, tensor<*xf32>) -> tensor<4x?xf32>
  %3 = "tf.BiasAdd"(%2, %1) <{data_format = "NHWC"}> : (tensor<4x?xf32>, tensor<*xf32>) -> tensor<4x?xf32>
  return %3 : tensor<4x?xf32>
}"""


@pytest.mark.parametrize("form", ["dict", "names", "all_args", "resources_only"])
def test_freeze_variables_accepts_dicts_and_lists(form):
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 2)).astype(np.float32)
    b = np.array([1.0, -1.0], np.float32)
    values = {"dict": {1: w, 2: b}, "names": {"arg1": w, "arg2": b, "arg0": x},
              "all_args": [None, w, b], "resources_only": [w, b]}[form]
    module = mlir.parse(DENSE)
    assert freeze_variables(module, values) == [1, 2]
    fn = module.body.block.first_op
    assert len(fn.function_type.inputs.data) == 1 and len(fn.arg_attrs.data) == 1
    info = fn.attributes["tf.entry_function"]
    assert info.data["inputs"].data == "x" and info.data["control_outputs"].data == ""
    assert "tf.ReadVariableOp" not in [op.name for op in module.walk()]
    assert constant_bytes(module) == w.nbytes + b.nbytes
    (got,) = _run(module, x)
    np.testing.assert_allclose(got, x @ w + b, rtol=1e-6)


@pytest.mark.parametrize("values, error, message", [
    ({1: np.ones((3, 2), np.float32)}, NotFoundError, "no value for resource argument arg2"),
    ({1: np.ones((3, 2), np.int32), 2: np.ones(2, np.float32)}, InvalidArgumentError, "has dtype int32"),
    ({1: np.ones((3, 2), np.float64), 2: np.ones(2, np.float32)}, InvalidArgumentError, "has dtype float64"),
    ({1: np.ones((5, 2), np.float32), 2: np.ones(2, np.float32)}, InvalidArgumentError, "matrix size-incompatible"),
    ({1: np.ones((3, 2), np.float32), 2: np.ones(3, np.float32)}, InvalidArgumentError, "bias [3] does not match"),
    ({1: np.array(["a"] * 6).reshape(3, 2), 2: np.ones(2, np.float32)}, InvalidArgumentError, "unsupported array dtype"),
    ([np.ones(2)], InvalidArgumentError, "got a list of 1 arrays"),
])
def test_freeze_variables_refuses_bad_values_and_leaves_the_module(values, error, message):
    module = mlir.parse(DENSE)
    before = mlir.print(module)
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        freeze_variables(module, values)
    assert mlir.print(module) == before


def test_freeze_then_quantize_a_variable_model():
    """Variables as the runtime holds them (tt.Variable) give the same outputs as the frozen model."""
    w = RNG.standard_normal((3, 40)).astype(np.float32)
    b = RNG.standard_normal(40).astype(np.float32)
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    module = mlir.parse(DENSE)
    (reference,) = LoadedModule(mlir.parse(DENSE)).run(x, tt.Variable(w), tt.Variable(b))
    freeze_variables(module, [w, b])
    sites = quantize_weights(module, min_elements=100)
    assert [s.shape for s in sites] == [(3, 40)]  # the bias has 40 elements: under min-elements
    (got,) = _run(module, x)
    np.testing.assert_allclose(got, x @ quantize(w, (1,)).dequantize() + b, rtol=1e-5, atol=1e-5)
    assert np.abs(got - reference).max() < 0.01 * np.ptp(reference)


def test_a_traced_tt_function_freezes_and_quantizes():
    """tinytf's own export (typed resources, tt.function's captured variables) goes the same way."""
    w = tt.Variable(RNG.standard_normal((32, 64)).astype(np.float32))
    b = tt.Variable(RNG.standard_normal(64).astype(np.float32))
    f = tt.function(lambda x: tt.nn.relu(tt.matmul(x, w) + b))
    concrete = f.get_concrete_function(tt.TensorSpec([4, 32]))
    module = mlir.parse(concrete.mlir())
    assert freeze_variables(module, [v.numpy() for v in concrete.captured_variables]) == [1, 2]
    assert [s.shape for s in quantize_weights(module, min_elements=64)] == [(32, 64)]
    x = RNG.standard_normal((4, 32)).astype(np.float32)
    (got,) = _run(module, x)
    np.testing.assert_allclose(got, np.maximum(x @ quantize(w.numpy(), (1,)).dequantize() + b.numpy(), 0),
                               rtol=1e-5, atol=1e-5)
    with pytest.raises(InvalidArgumentError, match=r"has shape \[64, 32\], but the model reads it as tensor<32x64xf32>"):
        freeze_variables(mlir.parse(concrete.mlir()), [w.numpy().T, b.numpy()])
