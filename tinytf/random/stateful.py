"""``tt.random.normal``, ``uniform``, ``truncated_normal``, ``shuffle``, ``categorical``: stateful ops with
TensorFlow's seeds (tinytf/ops/random_seed.py), so the values are TensorFlow's, call after call.

    tt.random.set_seed(1234)
    tt.random.normal([2, 3])          # TensorFlow 2.21's values after tf.random.set_seed(1234)
    tt.random.uniform([4], seed=1)    # a new draw on every call; set_seed starts the stream again
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.ops.array import constant
from tinytf.ops.division import divide
from tinytf.ops.math import add, maximum, multiply
from tinytf.ops.random import FLOATS, INTS, check_dtype
from tinytf.ops.random_stateful import Multinomial, RandomShuffle, RandomStandardNormal, TruncatedNormal
from tinytf.ops.random_uniform import seed_attrs as _seeds
from tinytf.ops.random_uniform import shape_operand, uniform  # noqa: F401  (uniform: in the op library for dropout)
from tinytf.ops.random_uniform import tensor_operand as _tensor


def gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples (beta the rate) of shape ``shape + broadcast(alpha, beta).shape``
    (tf.RandomGamma divided by beta, kept at least the dtype's tiny)."""
    from tinytf.ops.random_gamma import GAMMA_DTYPES, RandomGamma
    from tinytf.ops.shape import broadcast_to

    dtype = check_dtype("tt.random.gamma", dtype, GAMMA_DTYPES)
    alpha, beta = _tensor(alpha, dtype), _tensor(1 if beta is None else beta, dtype)
    target = np.broadcast_shapes(tuple(alpha.shape), tuple(beta.shape))
    rnd = RandomGamma.bind(shape_operand(shape), broadcast_to(alpha, list(target)), **_seeds(seed))
    return maximum(constant(np.finfo(dtype.np).tiny, dtype), divide(rnd, beta))


def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None):
    """Poisson(lam) samples of shape ``shape + lam.shape`` (tf.RandomPoissonV2)."""
    from tinytf.ops.random_poisson import OUT_DTYPES, RandomPoissonV2

    dtype = check_dtype("tt.random.poisson", dtype, OUT_DTYPES)
    lam = lam if hasattr(lam, "dtype") else constant(lam, dtypes.float32)   # TensorFlow's lam is float32
    return RandomPoissonV2.bind(shape_operand(shape), lam, dtype=dtype, **_seeds(seed))


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values ``mean + stddev * N(0, 1)`` (tf.RandomStandardNormal)."""
    dtype = check_dtype("tt.random.normal", dtype, FLOATS)
    mean, stddev = _tensor(mean, dtype), _tensor(stddev, dtype)
    rnd = RandomStandardNormal.bind(shape_operand(shape), dtype=dtype, **_seeds(seed))
    return add(multiply(rnd, stddev), mean)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal values redrawn beyond 2 standard deviations (tf.TruncatedNormal)."""
    dtype = check_dtype("tt.random.truncated_normal", dtype, FLOATS)
    mean, stddev = _tensor(mean, dtype), _tensor(stddev, dtype)
    rnd = TruncatedNormal.bind(shape_operand(shape), dtype=dtype, **_seeds(seed))
    return add(multiply(rnd, stddev), mean)


def shuffle(value, seed=None, name=None):
    """``value`` with its first dimension shuffled (tf.RandomShuffle)."""
    value = value if hasattr(value, "dtype") else constant(value)
    return RandomShuffle.bind(value, **_seeds(seed))


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """Class indices drawn from softmax(logits) per row (tf.Multinomial)."""
    dtype = check_dtype("tt.random.categorical", dtype or dtypes.int64, INTS)
    logits = logits if hasattr(logits, "dtype") else constant(logits, dtypes.float32)
    num = np.int32(num_samples) if isinstance(num_samples, int) else num_samples
    return Multinomial.bind(logits, num, output_dtype=dtype, **_seeds(seed))
