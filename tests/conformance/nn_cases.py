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
    ("batch_to_space", "batch_to_space", [_n(12, 2, 3, 2)], {"block_shape": [2, 3], "crops": [[1, 0], [0, 2]]}),
]
