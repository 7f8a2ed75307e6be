"""The tf.nn cases whose TensorFlow results are recorded (export_nn_fixtures.py) and checked
(tests/unit/test_ops_nn_tf_values.py): one line per case, written so the same text runs against
``tf`` and ``tt``.

A case is (name, function path under the module, positional inputs, keyword arguments): inputs are numpy
arrays (made here from a fixed seed, and stored beside TensorFlow's outputs), keyword arguments plain
Python values or arrays (which become tensors, stored as ``CASE/kw_<name>``). No TensorFlow and no tinytf is imported here.
"""
from __future__ import annotations

import numpy as np

_RNG = np.random.default_rng(20261207)


def _n(*shape, scale=1.0):
    return (_RNG.standard_normal(shape) * scale).astype(np.float32)


def _u(*shape, lo=0.0, hi=1.0):
    return _RNG.uniform(lo, hi, shape).astype(np.float32)


_X = _n(2, 3, 4, 5)
_LOGITS = _n(3, 4, scale=3.0)
_LABELS = _u(3, 4)

CASES = [
    ("softsign", "nn.softsign", [_n(3, 4, scale=4.0)], {}),
    ("crelu", "nn.crelu", [_n(2, 3)], {"axis": 0}),
    ("silu", "nn.silu", [_n(3, 4, scale=3.0)], {}),
    ("swish_beta", "nn.silu", [_n(3, 4, scale=3.0)], {"beta": 1.7}),
    ("l2_loss", "nn.l2_loss", [_n(4, 5)], {}),
    ("sigmoid_xent", "nn.sigmoid_cross_entropy_with_logits", [_LABELS, _LOGITS], {}),
    ("weighted_xent", "nn.weighted_cross_entropy_with_logits", [_LABELS, _LOGITS], {"pos_weight": 2.5}),
    ("log_poisson", "nn.log_poisson_loss", [_u(3, 4, lo=0.0, hi=4.0), _n(3, 4)], {}),
    ("log_poisson_full", "nn.log_poisson_loss", [_u(3, 4, lo=0.0, hi=4.0), _n(3, 4)], {"compute_full_loss": True}),
    ("lrn", "nn.local_response_normalization", [_X], {"depth_radius": 2, "bias": 1.5, "alpha": 0.3, "beta": 0.75}),
    ("lrn_default", "nn.lrn", [_X], {}),
    ("moments", "nn.moments", [_X], {"axes": [0, 1, 2]}),
    ("moments_keepdims", "nn.moments", [_X], {"axes": [1], "keepdims": True}),
    ("weighted_moments", "nn.weighted_moments", [_X], {"axes": [0, 2], "frequency_weights": _u(2, 3, 4, 1, lo=0.1, hi=2.0)}),
    ("batch_normalization", "nn.batch_normalization", [_X, _n(5), _u(5, lo=0.5, hi=2.0), _n(5), _n(5)],
     {"variance_epsilon": 1e-3}),
    ("l2_normalize", "nn.l2_normalize", [_n(3, 4)], {"axis": 1}),
    ("l2_normalize_all", "nn.l2_normalize", [_n(3, 4)], {}),
    ("zero_fraction", "nn.zero_fraction", [np.array([0.0, 1.0, 0.0, 2.0, 0.0], np.float32)], {}),
    ("space_to_depth", "nn.space_to_depth", [_n(2, 4, 6, 3)], {"block_size": 2}),
    ("depth_to_space", "nn.depth_to_space", [_n(2, 2, 3, 12)], {"block_size": 2}),
    ("space_to_batch_nd", "space_to_batch_nd", [_n(3, 5, 7, 2)], {"block_shape": [4, 3], "paddings": [[1, 2], [1, 1]]}),
    ("space_to_batch_1d", "nn.space_to_batch", [_n(2, 6, 3)], {"block_shape": [3], "paddings": [[0, 0]]}),
    ("required_space_to_batch_paddings", "required_space_to_batch_paddings", [],
     {"input_shape": [7, 5, 9], "block_shape": [2, 3, 4], "base_paddings": [[1, 1], [0, 2], [3, 0]]}),
    ("required_space_to_batch_paddings_default", "required_space_to_batch_paddings", [],
     {"input_shape": [6, 5], "block_shape": [4, 5]}),
    ("batch_to_space", "batch_to_space", [_n(12, 2, 3, 2)], {"block_shape": [2, 3], "crops": [[1, 0], [0, 2]]}),
    # convolutions and pools (nn_conv_composites.py, nn_conv3d.py, nn_pool3d.py)
    ("conv1d", "nn.conv1d", [_n(2, 9, 3), _n(3, 3, 4)], {"stride": 2, "padding": "SAME"}),
    ("conv1d_dilated", "nn.conv1d", [_n(2, 9, 3), _n(3, 3, 4)], {"stride": 1, "padding": "VALID", "dilations": 2}),
    ("conv1d_transpose", "nn.conv1d_transpose", [_n(2, 5, 4), _n(3, 3, 4)],
     {"output_shape": [2, 9, 3], "strides": 2, "padding": "SAME"}),
    ("atrous_conv2d", "nn.atrous_conv2d", [_n(1, 7, 7, 2), _n(3, 3, 2, 3)], {"rate": 2, "padding": "SAME"}),
    ("atrous_conv2d_valid", "nn.atrous_conv2d", [_n(1, 7, 7, 2), _n(3, 3, 2, 3)], {"rate": 2, "padding": "VALID"}),
    ("atrous_conv2d_transpose", "nn.atrous_conv2d_transpose", [_n(1, 7, 7, 3), _n(3, 3, 2, 3)],
     {"output_shape": [1, 7, 7, 2], "rate": 2, "padding": "SAME"}),
    ("atrous_conv2d_transpose_valid", "nn.atrous_conv2d_transpose", [_n(1, 3, 3, 3), _n(3, 3, 2, 3)],
     {"output_shape": [1, 7, 7, 2], "rate": 2, "padding": "VALID"}),
    ("separable_conv2d", "nn.separable_conv2d", [_n(1, 6, 6, 2), _n(3, 3, 2, 2), _n(1, 1, 4, 5)],
     {"strides": [1, 1, 1, 1], "padding": "SAME"}),
    ("depthwise_backprop_input", "nn.depthwise_conv2d_backprop_input", [],
     {"input_sizes": [1, 6, 6, 2], "filter": _n(3, 3, 2, 2), "out_backprop": _n(1, 3, 3, 4), "strides": [1, 2, 2, 1],
      "padding": "SAME"}),
    ("depthwise_backprop_filter", "nn.depthwise_conv2d_backprop_filter", [],
     {"input": _n(1, 6, 6, 2), "filter_sizes": [3, 3, 2, 2], "out_backprop": _n(1, 3, 3, 4), "strides": [1, 2, 2, 1],
      "padding": "SAME"}),
    ("convolution_1d", "nn.convolution", [_n(2, 9, 3), _n(3, 3, 4)], {"strides": 2, "padding": "VALID"}),
    ("convolution_3d", "nn.convolution", [_n(1, 4, 5, 6, 2), _n(2, 3, 2, 2, 3)], {"padding": "SAME", "dilations": 2}),
    ("conv3d", "nn.conv3d", [_n(2, 5, 6, 7, 3), _n(3, 2, 3, 3, 4)], {"strides": [1, 2, 1, 3, 1], "padding": "SAME"}),
    ("conv3d_valid_dilated", "nn.conv3d", [_n(1, 6, 6, 6, 2), _n(2, 2, 2, 2, 3)],
     {"strides": [1, 1, 1, 1, 1], "padding": "VALID", "dilations": [1, 2, 1, 2, 1]}),
    ("conv3d_transpose", "nn.conv3d_transpose", [_n(1, 3, 3, 4, 4), _n(3, 3, 3, 2, 4)],
     {"output_shape": [1, 5, 6, 7, 2], "strides": [1, 2, 2, 2, 1], "padding": "SAME"}),
    ("conv_transpose_3d", "nn.conv_transpose", [_n(1, 3, 3, 3, 4), _n(2, 2, 2, 2, 4)],
     {"output_shape": [1, 4, 4, 4, 2], "strides": 1, "padding": "VALID"}),
    ("max_pool1d", "nn.max_pool1d", [_n(2, 9, 3)], {"ksize": 3, "strides": 2, "padding": "SAME"}),
    ("avg_pool1d", "nn.avg_pool1d", [_n(2, 9, 3)], {"ksize": 2, "strides": 2, "padding": "VALID"}),
    ("pool_avg_2d", "nn.pool", [_n(1, 5, 5, 2)], {"window_shape": [3, 3], "pooling_type": "AVG", "padding": "SAME",
                                                   "strides": [2, 2]}),
    ("pool_max_3d", "nn.pool", [_n(1, 4, 5, 4, 2)], {"window_shape": [2, 2, 2], "pooling_type": "MAX",
                                                      "padding": "VALID", "strides": [2, 2, 2]}),
    ("max_pool_rank3", "nn.max_pool", [_n(2, 9, 3)], {"ksize": 3, "strides": 2, "padding": "VALID"}),
    ("avg_pool_rank5", "nn.avg_pool", [_n(1, 4, 5, 6, 2)], {"ksize": 2, "strides": [2, 1, 2], "padding": "SAME"}),
    ("max_pool_rank4_nchw", "nn.max_pool", [_n(1, 2, 5, 6)], {"ksize": 2, "strides": 2, "padding": "VALID",
                                                              "data_format": "NCHW"}),
    ("max_pool3d", "nn.max_pool3d", [_n(2, 5, 6, 7, 3)], {"ksize": [2, 3, 2], "strides": 2, "padding": "SAME"}),
    ("avg_pool3d", "nn.avg_pool3d", [_n(2, 5, 6, 7, 3)], {"ksize": 3, "strides": [1, 2, 1, 2, 1], "padding": "SAME"}),
    ("avg_pool3d_valid", "nn.avg_pool3d", [_n(1, 5, 6, 7, 2)], {"ksize": 2, "strides": 2, "padding": "VALID"}),
    # fused batch normalisation (nn_fused_batch_norm.py): TensorFlow's raw ops
    ("fbn_v3_train", "raw_ops.FusedBatchNormV3", [],
     {"x": _n(4, 3, 3, 5), "scale": _u(5, lo=0.5, hi=2.0), "offset": _n(5), "mean": _n(5), "variance": _u(5, hi=2.0),
      "epsilon": 1e-3, "exponential_avg_factor": 0.3, "is_training": True}),
    ("fbn_v3_train_fresh", "raw_ops.FusedBatchNormV3", [],
     {"x": _n(4, 3, 3, 5), "scale": _u(5, lo=0.5, hi=2.0), "offset": _n(5), "mean": np.zeros(0, np.float32),
      "variance": np.zeros(0, np.float32), "epsilon": 1e-3, "is_training": True}),
    ("fbn_v3_inference_nchw", "raw_ops.FusedBatchNormV3", [],
     {"x": _n(2, 5, 3, 4), "scale": _u(5, lo=0.5, hi=2.0), "offset": _n(5), "mean": _n(5), "variance": _u(5, hi=2.0),
      "epsilon": 1e-3, "is_training": False, "data_format": "NCHW"}),
    ("fbn_v3_train_ndhwc", "raw_ops.FusedBatchNormV3", [],
     {"x": _n(2, 3, 2, 3, 4), "scale": _u(4, lo=0.5, hi=2.0), "offset": _n(4), "mean": _n(4), "variance": _u(4, hi=2.0),
      "epsilon": 1e-3, "is_training": True, "data_format": "NDHWC"}),
    ("fbn_v2_half", "raw_ops.FusedBatchNormV2", [],
     {"x": _n(2, 3, 3, 4).astype(np.float16), "scale": _u(4, lo=0.5, hi=2.0), "offset": _n(4), "mean": _n(4),
      "variance": _u(4, hi=2.0), "epsilon": 1e-3, "is_training": True}),
    ("fbn_v1_inference", "raw_ops.FusedBatchNorm", [],
     {"x": _n(2, 3, 3, 4), "scale": _u(4, lo=0.5, hi=2.0), "offset": _n(4), "mean": _n(4), "variance": _u(4, hi=2.0),
      "epsilon": 1e-3, "is_training": False}),
    ("fbn_grad_v3_train", "raw_ops.FusedBatchNormGradV3", [],
     {"y_backprop": _n(4, 3, 3, 5), "x": _n(4, 3, 3, 5), "scale": _u(5, lo=0.5, hi=2.0), "reserve_space_1": _n(5),
      "reserve_space_2": _u(5, lo=0.5, hi=2.0), "reserve_space_3": np.zeros(0, np.float32), "epsilon": 1e-3,
      "is_training": True}),
    ("fbn_grad_v3_inference_nchw", "raw_ops.FusedBatchNormGradV3", [],
     {"y_backprop": _n(2, 5, 3, 4), "x": _n(2, 5, 3, 4), "scale": _u(5, lo=0.5, hi=2.0), "reserve_space_1": _n(5),
      "reserve_space_2": _u(5, lo=0.5, hi=2.0), "reserve_space_3": np.zeros(0, np.float32), "epsilon": 1e-3,
      "is_training": False, "data_format": "NCHW"}),
    # dropout and embeddings (nn_dropout.py)
    ("stateless_dropout", "nn.experimental.stateless_dropout", [_n(4, 5)], {"rate": 0.4, "seed": [1, 2]}),
    ("stateless_dropout_noise_shape", "nn.experimental.stateless_dropout", [_n(3, 2, 5)],
     {"rate": 0.25, "seed": [7, 3], "noise_shape": [3, 1, 5]}),
    ("stateless_dropout_half", "nn.experimental.stateless_dropout", [_n(6, 3).astype(np.float16)],
     {"rate": 0.5, "seed": [11, 12]}),
    ("stateless_dropout_rate_tensor", "nn.experimental.stateless_dropout", [_n(4, 5)],
     {"rate": np.asarray(0.3, np.float32), "seed": [5, 6]}),
    ("embedding_lookup", "nn.embedding_lookup", [_n(7, 3), np.array([[1, 0, 6], [2, 2, 5]], np.int32)], {}),
    ("embedding_lookup_max_norm", "nn.embedding_lookup", [_n(7, 3, scale=2.0), np.array([4, 0, 6, 4], np.int32)],
     {"max_norm": 1.5}),
    ("clip_by_norm", "clip_by_norm", [_n(3, 4, scale=2.0)], {"clip_norm": 1.0, "axes": [1]}),
    # morphology (nn_morphology.py)
    ("dilation2d", "nn.dilation2d", [_n(2, 6, 7, 3), _n(3, 2, 3)],
     {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC", "dilations": [1, 1, 1, 1]}),
    ("dilation2d_strided_rates", "nn.dilation2d", [_n(1, 9, 8, 2), _n(2, 3, 2)],
     {"strides": [1, 2, 1, 1], "padding": "VALID", "data_format": "NHWC", "dilations": [1, 2, 2, 1]}),
    ("erosion2d", "nn.erosion2d", [_n(2, 6, 7, 3), _n(3, 2, 3)],
     {"strides": [1, 2, 2, 1], "padding": "SAME", "data_format": "NHWC", "dilations": [1, 1, 1, 1]}),
    ("dilation2d_backprop_input", "raw_ops.Dilation2DBackpropInput", [],
     {"input": _n(1, 5, 6, 2), "filter": _n(3, 3, 2), "out_backprop": _n(1, 5, 6, 2), "strides": [1, 1, 1, 1],
      "rates": [1, 1, 1, 1], "padding": "SAME"}),
    ("dilation2d_backprop_filter", "raw_ops.Dilation2DBackpropFilter", [],
     {"input": _n(1, 7, 6, 2), "filter": _n(2, 3, 2), "out_backprop": _n(1, 3, 4, 2), "strides": [1, 2, 1, 1],
      "rates": [1, 1, 1, 1], "padding": "VALID"}),
    # CTC (nn_ctc.py): dense labels, blank 0 by default (labels never equal the blank)
    ("ctc_loss", "nn.ctc_loss", [np.array([[1, 2, 2], [3, 1, 1], [4, 4, 1]], np.int32), _n(6, 3, 5, scale=2.0),
                                 np.array([3, 1, 2], np.int32), np.array([6, 4, 5], np.int32)], {}),
    ("ctc_loss_batch_major_empty", "nn.ctc_loss", [np.array([[2, 1], [1, 1], [3, 3]], np.int32),
                                                   _n(3, 7, 4, scale=2.0), np.array([2, 0, 2], np.int32),
                                                   np.array([7, 3, 5], np.int32)], {"logits_time_major": False}),
    ("ctc_loss_blank_last", "nn.ctc_loss", [np.array([[0, 2, 2, 1], [3, 0, 3, 0]], np.int32), _n(9, 2, 5),
                                            np.array([4, 4], np.int32), np.array([9, 8], np.int32)],
     {"blank_index": -1}),
    ("collapse_repeated", "nn.collapse_repeated", [np.array([[1, 1, 2, 2, 3, 3], [4, 4, 4, 5, 5, 1], [2, 3, 3, 3, 2, 2]],
                                                            np.int32), np.array([6, 3, 5], np.int32)], {}),
    ("ctc_unique_labels", "nn.ctc_unique_labels", [np.array([[3, 4, 4, 3, 1], [1, 1, 2, 0, 0], [5, 5, 5, 5, 5]],
                                                            np.int32)], {}),
    # isotonic regression (nn_isotonic.py)
    ("isotonic_regression", "nn.isotonic_regression", [_n(4, 9)], {}),
    ("isotonic_regression_increasing_axis0", "nn.isotonic_regression", [_n(7, 3)], {"decreasing": False, "axis": 0}),
    ("isotonic_regression_ties", "raw_ops.IsotonicRegression", [],
     {"input": np.array([[5, 5, 1, 1, 2, 2], [1, 3, 2, 4, 3.5, 0], [2, 2, 2, 3, 1, 1]], np.float32)}),
    ("isotonic_regression_int", "nn.isotonic_regression", [np.array([[3, 1, 4, 1, 5, 9, 2, 6]], np.int32)], {}),
    # candidate sampling (nn_candidate_sampling.py)
    ("compute_accidental_hits", "nn.compute_accidental_hits",
     [np.array([[1, 4], [7, 2], [3, 3], [9, 0]], np.int64), np.array([4, 3, 8, 7, 4, 0], np.int64)], {"num_true": 2}),
    ("all_candidate_sampler", "nn.all_candidate_sampler", [np.array([[1, 4], [3, 2], [0, 0]], np.int64)],
     {"num_true": 2, "num_sampled": 6, "unique": True, "seed": 3}),
    # max pooling with argmax (nn_pool_argmax.py)
    ("max_pool_with_argmax", "nn.max_pool_with_argmax", [_n(2, 5, 6, 3)], {"ksize": 2, "strides": 2, "padding": "VALID"}),
    ("max_pool_with_argmax_same_batch", "nn.max_pool_with_argmax", [_n(2, 5, 6, 3)],
     {"ksize": [1, 3, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "include_batch_in_index": True}),
    ("max_pool_with_argmax_int32", "nn.max_pool_with_argmax", [_n(1, 4, 4, 2)],
     {"ksize": 3, "strides": 1, "padding": "SAME", "output_dtype": "int32"}),
    ("max_pool_grad_with_argmax", "raw_ops.MaxPoolGradWithArgmax", [],
     {"input": _n(2, 4, 4, 3), "grad": _n(2, 2, 2, 3), "argmax": (np.arange(24) * 4 % 48).reshape(2, 2, 2, 3),
      "ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}),
]

# Stateful cases: run in order after set_seed(STATEFUL_SEED), eagerly (each draw moves TensorFlow's seed streams).
STATEFUL_SEED = 7
STATEFUL = [
    ("dropout_op_seed", "nn.dropout", [np.ones((3, 4), np.float32)], {"rate": 0.5, "seed": 3}),
    ("dropout_global_seed", "nn.dropout", [_n(3, 4)], {"rate": 0.3}),
    ("dropout_noise_shape", "nn.dropout", [_n(2, 3, 4)], {"rate": 0.6, "noise_shape": [2, 1, 4]}),
    ("dropout_zero_rate", "nn.dropout", [_n(2, 2)], {"rate": 0.0}),
    ("dropout_after_zero_rate", "nn.dropout", [_n(2, 5)], {"rate": 0.2}),
]

# Gradient cases: d/d(inputs) of sum(output 0 * weights), weights standard normal from GRADIENT_WEIGHT_SEED
# in the output's shape (recorded with tf.GradientTape, eagerly: TensorFlow's own gradient rules).
GRADIENT_WEIGHT_SEED = 17
GRADIENT_CASES = [
    ("grad_lrn", "nn.local_response_normalization", [_n(1, 2, 3, 6)], {"depth_radius": 2, "bias": 1.0, "alpha": 0.4,
                                                                        "beta": 0.75}),
    ("grad_softsign", "nn.softsign", [_n(3, 4)], {}),
    ("grad_ctc_loss", "nn.ctc_loss", [np.array([[1, 2, 2], [3, 1, 1]], np.int32), _n(6, 2, 5, scale=2.0),
                                      np.array([3, 2], np.int32), np.array([6, 5], np.int32)], {}),
    ("grad_isotonic", "nn.isotonic_regression", [_n(3, 7)], {}),
    ("grad_dilation2d", "nn.dilation2d", [_n(1, 5, 5, 2), _n(2, 3, 2)],
     {"strides": [1, 1, 1, 1], "padding": "SAME", "data_format": "NHWC", "dilations": [1, 1, 1, 1]}),
    ("grad_max_pool_with_argmax", "nn.max_pool_with_argmax", [_n(2, 4, 5, 2)], {"ksize": 2, "strides": 2,
                                                                                  "padding": "SAME"}),
    ("grad_fused_batch_norm_train", "raw_ops.FusedBatchNormV3", [],
     {"x": _n(4, 2, 3, 3), "scale": _u(3, lo=0.5, hi=1.5), "offset": _n(3), "mean": np.zeros(0, np.float32),
      "variance": np.zeros(0, np.float32), "epsilon": 1e-3, "is_training": True}),
    ("grad_conv3d", "nn.conv3d", [_n(1, 4, 3, 4, 2), _n(2, 2, 2, 2, 3)], {"strides": [1, 2, 1, 1, 1], "padding": "SAME"}),
    ("grad_max_pool3d", "nn.max_pool3d", [_n(1, 4, 4, 4, 2)], {"ksize": 2, "strides": 2, "padding": "VALID"}),
    ("grad_avg_pool3d", "nn.avg_pool3d", [_n(1, 4, 5, 3, 2)], {"ksize": 3, "strides": 2, "padding": "SAME"}),
    ("grad_space_to_batch_nd", "space_to_batch_nd", [_n(2, 5, 4, 3)], {"block_shape": [2, 2], "paddings": [[1, 0], [0, 0]]}),
    ("grad_depth_to_space", "nn.depth_to_space", [_n(1, 2, 3, 8)], {"block_size": 2}),
]
