"""``tt.random.stateless_*``: TensorFlow's stateless random functions (python/ops/stateless_random_ops.py).

    tt.random.stateless_normal([3], seed=[1, 2])                  # a function of shape, seed and dtype
    tt.random.stateless_uniform([4], seed=[1, 2], minval=0, maxval=10, dtype=tt.int32)
    tt.random.split([1, 2], num=3)                                # new seeds

As TensorFlow's: the seed becomes a key and counter (tf.StatelessRandomGetKeyCounter), a V2 op draws
(auto-select: Philox), and floats are scaled as ``rnd * stddev + mean`` or ``rnd * (maxval - minval) + minval``.
``stateless_uniform`` and the seed handling are in the op library (tinytf/ops/random_uniform.py).
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.ops.array import constant
from tinytf.ops.division import divide
from tinytf.ops.joining import stack
from tinytf.ops.math import add, maximum, multiply
from tinytf.ops.random import (
    ALG_AUTO_SELECT,
    FLOATS,
    INTS,
    StatelessMultinomial,
    StatelessRandomNormalV2,
    StatelessTruncatedNormalV2,
    check_dtype,
)
from tinytf.ops.random_uniform import algorithm_id, key_counter, seed_operand, shape_operand, stateless_uniform


def _scaled(cls, shape, seed, mean, stddev, dtype, alg):
    dtype = check_dtype(cls.name, dtype, FLOATS)
    alg_id = algorithm_id(alg)
    mean = mean if hasattr(mean, "dtype") else constant(mean, dtype)
    stddev = stddev if hasattr(stddev, "dtype") else constant(stddev, dtype)
    key, counter = key_counter(seed)
    rnd = cls.bind(shape_operand(shape), key, counter, np.int32(alg_id), dtype=dtype)
    return add(multiply(rnd, stddev), mean)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Normal values: ``mean + stddev * N(0, 1)``.  tt.random.stateless_normal([3], seed=[1, 2])"""
    return _scaled(StatelessRandomNormalV2, shape, seed, mean, stddev, dtype, alg)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Normal values redrawn beyond 2 standard deviations.  tt.random.stateless_truncated_normal([3], [1, 2])"""
    return _scaled(StatelessTruncatedNormalV2, shape, seed, mean, stddev, dtype, alg)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """Class indices drawn from softmax(logits) per row.  tt.random.stateless_categorical([[0.0, 1.0]], 5, [1, 2])"""
    dtype = check_dtype("stateless_categorical", dtype, INTS)
    if not hasattr(logits, "dtype"):
        logits = constant(logits, dtypes.float32)
    return StatelessMultinomial.bind(logits, np.int32(num_samples) if isinstance(num_samples, int) else num_samples,
                                     seed_operand(seed), output_dtype=dtype)


def stateless_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None):
    """Gamma(alpha, beta) samples (beta the rate), ``shape`` ending with the broadcast shape of alpha and beta:
    tf.StatelessRandomGammaV3 divided by beta, kept at least the dtype's tiny.
    tt.random.stateless_gamma([10, 2], seed=[1, 2], alpha=[0.5, 1.5])"""
    from tinytf.ops.random_gamma import GAMMA_DTYPES, StatelessRandomGammaV3
    from tinytf.ops.shape import broadcast_to

    dtype = check_dtype("stateless_gamma", dtype, GAMMA_DTYPES)
    alpha = alpha if hasattr(alpha, "dtype") else constant(alpha, dtype)
    beta = beta if hasattr(beta, "dtype") else constant(1 if beta is None else beta, dtype)
    target = np.broadcast_shapes(tuple(alpha.shape), tuple(beta.shape))
    key, counter = key_counter(seed)
    rnd = StatelessRandomGammaV3.bind(shape_operand(shape), key, counter, np.int32(ALG_AUTO_SELECT),
                                      broadcast_to(alpha, list(target)))
    return maximum(constant(np.finfo(dtype.np).tiny, dtype), divide(rnd, beta))


def stateless_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """Poisson(lam) samples, ``shape`` ending with lam's shape (tf.StatelessRandomPoisson).
    tt.random.stateless_poisson([10, 2], seed=[1, 2], lam=[0.5, 15.0])"""
    from tinytf.ops.random_poisson import OUT_DTYPES, StatelessRandomPoisson

    dtype = check_dtype("stateless_poisson", dtype, OUT_DTYPES)
    lam = lam if hasattr(lam, "dtype") else constant(lam)   # Python ints int32, floats float32, as TensorFlow
    return StatelessRandomPoisson.bind(shape_operand(shape), seed_operand(seed), lam, dtype=dtype)


def stateless_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32, name=None):
    """Binomial(counts, probs) samples, ``shape`` ending with the broadcast shape of counts and probs
    (tf.StatelessRandomBinomial).  tt.random.stateless_binomial([10, 2], [1, 2], counts=[5, 40], probs=0.3)"""
    from tinytf.ops.random_binomial import OUT_DTYPES, StatelessRandomBinomial

    dtype = check_dtype("stateless_binomial", output_dtype, OUT_DTYPES)
    probs = probs if hasattr(probs, "dtype") else constant(probs, dtypes.float32 if np.asarray(probs).dtype.kind in
                                                                   "fiu" else None)
    counts = counts if hasattr(counts, "dtype") else constant(counts, probs.dtype)
    return StatelessRandomBinomial.bind(shape_operand(shape), seed_operand(seed), counts, probs, dtype=dtype)


def stateless_split(seed, num=2, alg="auto_select"):
    """``num`` new seeds [num, 2] from one (of the seed's dtype).  tt.random.experimental.stateless_split([1, 2], 3)"""
    seed = seed_operand(seed)
    return stateless_uniform([num, 2], seed, minval=None, maxval=None, dtype=seed.dtype, alg=alg)


def stateless_fold_in(seed, data, alg="auto_select"):
    """A new seed from a seed and an int.  tt.random.experimental.stateless_fold_in([1, 2], 3)"""
    data = data if hasattr(data, "dtype") else constant(data)
    first = stateless_uniform([], seed, minval=None, maxval=None, dtype=data.dtype, alg=alg)
    return stack([first, data])
