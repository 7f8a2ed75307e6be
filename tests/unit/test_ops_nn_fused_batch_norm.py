"""Fused batch normalisation beyond the recorded TensorFlow values (test_ops_nn_tf_values.py) and the
inference-mode gradient specs (test_gradients_spec.py): training-mode gradients through y (TensorFlow's
rule ignores the statistics outputs), second-order gradients through a nested tape, XLA equal to graph
mode, numpy references, and bad input."""
from __future__ import annotations

import numpy as np
import pytest

import tinytf as tt
from tinytf import gradcheck as gc
from tinytf.errors import InvalidArgumentError

RNG = np.random.default_rng(5)


def np_batch_norm_train(x, scale, offset, eps, axes):
    mean, var = x.mean(axes), x.var(axes)
    shape = [1] * x.ndim
    channel = [i for i in range(x.ndim) if i not in axes][0]
    shape[channel] = -1
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(shape) + offset.reshape(shape)
    n = x.size // x.shape[channel]
    return y, mean, var * n / (n - 1)


@pytest.mark.parametrize("data_format,shape,axes", [("NHWC", (3, 2, 4, 5), (0, 1, 2)), ("NCHW", (3, 5, 2, 4), (0, 2, 3)),
                                                    ("NCDHW", (2, 5, 2, 2, 3), (0, 2, 3, 4))])
def test_training_matches_numpy(data_format, shape, axes):
    x = RNG.standard_normal(shape)
    scale, offset = RNG.uniform(0.5, 2, 5), RNG.standard_normal(5)
    y, mean, var = tt.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3, data_format=data_format)
    eps = float(np.float32(1e-3))  # epsilon is an f32 attribute, as in TensorFlow
    want_y, want_mean, want_var = np_batch_norm_train(x, scale, offset, eps, axes)
    np.testing.assert_allclose(y.numpy(), want_y, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mean.numpy(), want_mean, rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), want_var, rtol=1e-12)


def _training_model(w):
    def model(x, scale, offset):
        y = tt.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=tt.zeros([0], x.dtype),
                                        variance=tt.zeros([0], x.dtype), epsilon=1e-3, is_training=True)[0]
        return tt.reduce_sum(y * w)
    return model


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
def test_training_gradients_through_y(use_function):
    x = RNG.standard_normal((3, 2, 2, 3))
    w = tt.constant(RNG.standard_normal(x.shape) / 6)
    inputs = [tt.constant(x), tt.constant(RNG.uniform(0.5, 1.5, 3)), tt.constant(RNG.standard_normal(3))]
    report = gc.compare_numerical_and_autodiff_gradients(_training_model(w), inputs, use_function=use_function,
                                                         abs_error=1e-6)
    assert all(r.checked for r in report.inputs)


@pytest.mark.parametrize("use_function", [False, True], ids=["eager", "graph"])
@pytest.mark.parametrize("is_training", [True, False])
def test_second_order_gradients(use_function, is_training):
    """d/d(x, scale) of <dL/dx, v> + <dL/dscale, u>: FusedBatchNormGradV3's own gradient rule."""
    shape = (3, 2, 2, 3)
    w = tt.constant(RNG.standard_normal(shape) / 6)
    v, u = tt.constant(RNG.standard_normal(shape) / 6), tt.constant(RNG.standard_normal(3))
    mean, var = tt.constant(RNG.standard_normal(3)), tt.constant(RNG.uniform(0.5, 2, 3))

    def model(x, scale, offset):
        with tt.GradientTape() as tape:
            tape.watch([x, scale, offset])
            y = tt.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=mean, variance=var, epsilon=1e-3,
                                            is_training=is_training)[0]
            loss = tt.reduce_sum(y * y * w)
        dx, dscale, doffset = tape.gradient(loss, [x, scale, offset])
        return tt.reduce_sum(dx * v) + tt.reduce_sum(dscale * u) + tt.reduce_sum(doffset * u)

    inputs = [tt.constant(RNG.standard_normal(shape)), tt.constant(RNG.uniform(0.5, 1.5, 3)),
              tt.constant(RNG.standard_normal(3))]
    report = gc.compare_numerical_and_autodiff_gradients(model, inputs, use_function=use_function, abs_error=1e-6)
    assert sum(r.checked for r in report.inputs) >= 2


def test_xla_gradients_equal_graph():
    x = RNG.standard_normal((4, 3, 3, 2)).astype(np.float32)
    scale, offset = RNG.uniform(0.5, 1.5, 2).astype(np.float32), RNG.standard_normal(2).astype(np.float32)

    def step(x, scale, offset):
        with tt.GradientTape() as tape:
            tape.watch([x, scale, offset])
            y, mean, var = tt.nn.fused_batch_norm(x, scale, offset, epsilon=1e-3)
            loss = tt.reduce_sum(tt.square(y) * tt.range(2, dtype=tt.float32)) + tt.reduce_sum(mean)
        return [y, mean, var] + tape.gradient(loss, [x, scale, offset])

    args = [tt.constant(a) for a in (x, scale, offset)]
    graph = tt.function(step)(*args)
    xla = tt.function(step, jit_compile=True)(*args)
    for g, j in zip(graph, xla, strict=True):
        np.testing.assert_allclose(j.numpy(), g.numpy(), rtol=2e-5, atol=2e-5)
    # the loss's gradient through batch_mean is ignored, as TensorFlow's rule does
    eager = step(*args)
    np.testing.assert_allclose(eager[4].numpy(), graph[4].numpy(), rtol=1e-6, atol=1e-6)


def test_inference_needs_mean_and_variance():
    x = tt.constant(RNG.standard_normal((1, 2, 2, 3)).astype(np.float32))
    with pytest.raises(InvalidArgumentError, match="mean and variance"):
        tt.nn.fused_batch_norm(x, np.ones(3, np.float32), np.zeros(3, np.float32), is_training=False)


@pytest.mark.parametrize("kwargs,message", [
    ({"x": np.zeros((2, 3), np.float32)}, r"x must be 4-dimensional for NHWC, got \[2,3\]"),
    ({"scale": np.ones(4, np.float32)}, r"scale must have the same number of elements as the channels of x, got 4 and 3"),
    ({"scale": np.ones(3, np.float64)}, r"offset must be float64 like scale, got float32"),
    ({"data_format": "HWNC"}, "data_format must be one of"),
])
def test_bad_input_names_the_op_and_shapes(kwargs, message):
    args = {"x": np.zeros((2, 2, 2, 3), np.float32), "scale": np.ones(3, np.float32),
            "offset": np.zeros(3, np.float32), "mean": np.zeros(3, np.float32), "variance": np.ones(3, np.float32),
            "is_training": False, **kwargs}
    with pytest.raises(InvalidArgumentError, match="tf.FusedBatchNormV3: " + message):
        tt.raw_ops.FusedBatchNormV3(**args)


def test_mlir_round_trip_and_run():
    text = """
func.func @main(%x: tensor<2x2x2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>)
    -> tensor<2x2x2x3xf32> {
  %y:6 = "tf.FusedBatchNormV3"(%x, %s, %o, %m, %v) <{data_format = "NHWC", epsilon = 1.000000e-03 : f32,
      exponential_avg_factor = 1.000000e+00 : f32, is_training = false}> : (tensor<2x2x2x3xf32>, tensor<3xf32>,
      tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x2x2x3xf32>, tensor<3xf32>, tensor<3xf32>,
      tensor<3xf32>, tensor<3xf32>, tensor<0xf32>)
  func.return %y#0 : tensor<2x2x2x3xf32>
}
"""
    m = tt.load_mlir(text)
    x = RNG.standard_normal((2, 2, 2, 3)).astype(np.float32)
    s, o = np.full(3, 2.0, np.float32), np.full(3, 0.5, np.float32)
    mean, var = np.asarray([0.1, 0.2, 0.3], np.float32), np.asarray([1.0, 4.0, 9.0], np.float32)
    want = (x - mean) / np.sqrt(var + np.float32(1e-3)) * s + o
    for backend in ("graph", "xla"):
        got = m.run(x, s, o, mean, var, backend=backend)
        got = got[0] if isinstance(got, list | tuple) else got
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
