"""tf.nn.dropout and tf.nn.experimental.stateless_dropout, and tf.nn.embedding_lookup and tf.clip_by_norm,
as TensorFlow's Python writes them (tensorflow/python/ops/nn_ops.py, embedding_ops.py, clip_ops.py).

    y = tt.nn.dropout(x, rate=0.5, seed=1)        # TensorFlow's bits: a RandomUniform with its seeds
    y = tt.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2])   # StatelessRandomUniformV2, every mode alike

Dropout keeps x / (1 - rate) where a uniform draw in [0, 1) of ``noise_shape`` (x's shape by default,
broadcast against it) is >= rate, and puts 0 elsewhere; the draws are tt.random's, bit-exact with
TensorFlow's.
"""
from __future__ import annotations

import numbers

import numpy as np

from tinytf.errors import InvalidArgumentError
from tinytf.ops.op_functions import ops as _ops
from tinytf.ops.op_functions import shape_tensor
from tinytf.ops.operands import static_value
from tinytf.ops.random_seed import get_seed
from tinytf.ops.random_uniform import stateless_uniform, uniform
from tinytf.ops.tensor_inputs import as_tensor, static_dims

__all__ = ["dropout", "stateless_dropout", "general_dropout", "embedding_lookup", "clip_by_norm"]
__namespaces__ = {"dropout": ("nn",), "stateless_dropout": ("nn.experimental",), "general_dropout": ("nn.experimental",),
                  "embedding_lookup": ("nn",), "clip_by_norm": ("top",)}


def _noise_shape(x, noise_shape):
    """x's shape, or ``noise_shape`` with its None dims taken from x's (TensorFlow's _get_noise_shape)."""
    dims = static_dims(x)
    if noise_shape is None:
        return list(dims) if dims is not None and None not in dims else shape_tensor(x)
    given = static_value(noise_shape) if not isinstance(noise_shape, list | tuple) else None
    if given is not None:
        return [int(d) for d in np.asarray(given).reshape(-1)]
    if isinstance(noise_shape, list | tuple):
        if dims is not None and len(noise_shape) == len(dims):
            return [dims[i] if d is None else int(d) for i, d in enumerate(noise_shape)]
        return [int(d) for d in noise_shape]
    return noise_shape


def _dropout(fn, x, rate, noise_shape, sample, skip):
    m = _ops
    x = as_tensor(x)
    if not x.dtype.is_floating:
        raise InvalidArgumentError(f"{fn}: x has to be a floating point tensor since it's going to be scaled, got "
                                   f"a {x.dtype.name} tensor instead", fn)
    if isinstance(rate, numbers.Real):
        if not 0 <= rate < 1:
            raise InvalidArgumentError(f"{fn}: rate must be a scalar tensor or a float in the range [0, 1), got "
                                       f"{rate}", fn)
        if rate == 0:
            skip()  # TensorFlow still takes an op seed, so the draws after it are the same
            return x
        scaled = m.multiply(x, m.cast(1 / (1 - rate), x.dtype))
    else:
        rate = m.cast(rate, x.dtype)
        if static_dims(rate) not in (None, ()):
            raise InvalidArgumentError(f"{fn}: rate must be a scalar, got shape {list(static_dims(rate))}", fn)
        scaled = m.realdiv(x, m.subtract(m.cast(1, x.dtype), rate))
    keep = m.greater_equal(sample(_noise_shape(x, noise_shape), x.dtype), m.cast(rate, x.dtype))
    return m.where(keep, scaled, as_tensor(0, like=x))


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Stateful dropout (tf.RandomUniform with TensorFlow's global and op seeds)."""
    return _dropout("dropout", x, rate, noise_shape, lambda shape, dtype: uniform(shape, dtype=dtype, seed=seed),
                    lambda: get_seed(seed))


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """Dropout with a stateless draw from ``seed`` (two ints): tf.nn.experimental.stateless_dropout."""
    alg = "auto_select" if rng_alg is None else rng_alg
    return _dropout("stateless_dropout", x, rate, noise_shape,
                    lambda shape, dtype: stateless_uniform(shape, seed, dtype=dtype, alg=alg), lambda: None)


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """Dropout with the caller's sampler: ``uniform_sampler(shape=..., dtype=...)`` draws in [0, 1)."""
    return _dropout("general_dropout", x, rate, noise_shape,
                    lambda shape, dtype: uniform_sampler(shape=shape, dtype=dtype), lambda: None)


# --- embeddings --------------------------------------------------------------------------------

def clip_by_norm(t, clip_norm, axes=None, name=None):
    """t * clip_norm / max(l2 norm of t over ``axes``, clip_norm): values whose norm exceeds clip_norm shrink."""
    m = _ops
    t = as_tensor(t)
    if axes is None:
        axes = list(range(len(static_dims(t))))
    l2sum = m.reduce_sum(m.multiply(t, t), axes, keepdims=True)
    positive = m.greater(l2sum, m.cast(0, t.dtype))
    safe = m.where(positive, l2sum, m.ones_like(l2sum))  # no NaN gradient through sqrt(0)
    l2norm = m.where(positive, m.sqrt(safe), l2sum)
    clip = m.cast(clip_norm, t.dtype)
    return m.realdiv(m.multiply(t, clip), m.maximum(l2norm, clip))


def _check_div_shards(params):
    """TensorFlow's "div" strategy: shard p holds ids [p * n + min(p, extras), ...), so the shards in order
    are the table itself when the first ``extras`` shards have one row more."""
    sizes = [static_dims(p) and static_dims(p)[0] for p in params]
    if any(s is None for s in sizes):
        raise InvalidArgumentError("embedding_lookup: sharded params need static first dims", "embedding_lookup")
    total, count = sum(sizes), len(sizes)
    want = [total // count + (1 if p < total % count else 0) for p in range(count)]
    if sizes != want:
        raise InvalidArgumentError(f"embedding_lookup: shards of {sizes} rows are not a 'div' partition of {total} "
                                   f"ids over {count} shards ({want})", "embedding_lookup")


def embedding_lookup(params, ids, max_norm=None, name=None):
    """params[ids] (rows of a table, or of a table sharded by TensorFlow's "div" strategy), each row clipped
    to ``max_norm`` when it is given."""
    m = _ops
    if isinstance(params, list | tuple):
        if not params:
            raise InvalidArgumentError("embedding_lookup: need at least one param", "embedding_lookup")
        params = [as_tensor(p) for p in params]
        if len(params) > 1:
            _check_div_shards(params)
            table = m.concat(params, 0)
        else:
            table = params[0]
    else:
        table = as_tensor(params)
    ids = as_tensor(ids)
    rows = m.gather(table, ids)
    if max_norm is None:
        return rows
    ids_rank, rows_rank = len(static_dims(ids)), len(static_dims(rows))
    return clip_by_norm(rows, max_norm, axes=list(range(ids_rank, rows_rank)))
