"""The uniform samplers as op functions: ``tt.random.uniform`` (tf.RandomUniform with TensorFlow's seeds)
and ``tt.random.stateless_uniform`` (a V2 op on the key and counter of a seed), with the seed, shape and
algorithm operands that tt.random's other samplers share.

    uniform([4], seed=1)                            # a new draw on every call; set_seed starts the stream again
    stateless_uniform([2], seed=[1, 2])             # a function of shape, seed and dtype

They are in the op library, below tt.random (tinytf/random/, which re-exports them), because op functions
draw with them: dropout and tt.image's random flips, crops and adjustments.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.ops.array import constant
from tinytf.ops.math import add, multiply, subtract
from tinytf.ops.operands import index_operand
from tinytf.ops.random import (
    ALG_AUTO_SELECT,
    ALG_PHILOX,
    ALG_THREEFRY,
    FLOATS,
    FULL_INTS,
    INTS,
    StatelessRandomGetKeyCounter,
    StatelessRandomUniformFullIntV2,
    StatelessRandomUniformIntV2,
    StatelessRandomUniformV2,
    check_dtype,
)
from tinytf.ops.random_seed import get_seed
from tinytf.ops.random_stateful import RandomUniform, RandomUniformInt

__all__: list[str] = []  # tt.random holds the public functions (tinytf/random/__init__.py)


def seed_attrs(seed) -> dict:
    """A stateful op's ``seed`` and ``seed2`` attributes for op seed ``seed`` (TensorFlow's get_seed)."""
    seed1, seed2 = get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


def shape_operand(shape):
    return index_operand(shape.as_list() if hasattr(shape, "as_list") else shape)


def seed_operand(seed):
    return index_operand(seed) if not hasattr(seed, "dtype") else seed


def tensor_operand(value, dtype):
    return value if hasattr(value, "dtype") else constant(value, dtype)


def key_counter(seed):
    """(key, counter) of a seed: tf.StatelessRandomGetKeyCounter."""
    return StatelessRandomGetKeyCounter.bind(seed_operand(seed))


def algorithm_id(alg) -> int:
    """TensorFlow's algorithm number: 1 Philox, 2 ThreeFry, 3 auto-select (an int, a name or tt.random.Algorithm)."""
    if hasattr(alg, "value"):
        alg = alg.value
    if isinstance(alg, int | np.integer):
        return int(alg)
    name = str(alg).strip().lower().replace("-", "").replace("_", "")
    ids = {"philox": ALG_PHILOX, "threefry": ALG_THREEFRY, "autoselect": ALG_AUTO_SELECT}
    if name not in ids:
        raise InvalidArgumentError(f"unsupported RNG algorithm {alg!r} (philox, threefry or auto_select)")
    return ids[name]


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform values in [minval, maxval): floats (default [0, 1)) or ints (maxval required)."""
    dtype = check_dtype("tt.random.uniform", dtype, FLOATS + INTS)
    if maxval is None:
        if dtype.is_integer:
            raise InvalidArgumentError(f"tt.random.uniform: must specify maxval for integer dtype {dtype.name}")
        maxval = 1
    minval_is_zero = isinstance(minval, int) and minval == 0  # TensorFlow skips the arithmetic for [0, 1)
    maxval_is_one = isinstance(maxval, int) and maxval == 1
    shape = shape_operand(shape)
    if not minval_is_zero or not maxval_is_one or dtype.is_integer:
        minval, maxval = tensor_operand(minval, dtype), tensor_operand(maxval, dtype)
    seeds = seed_attrs(seed)
    if dtype.is_integer:
        return RandomUniformInt.bind(shape, minval, maxval, Tout=dtype, **seeds)
    rnd = RandomUniform.bind(shape, dtype=dtype, **seeds)
    if minval_is_zero:
        return rnd if maxval_is_one else multiply(rnd, maxval)
    return add(multiply(rnd, subtract(maxval, minval)), minval)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Uniform values in [minval, maxval): floats (default [0, 1)), or ints with both bounds given;
    full-range ints with ``minval=maxval=None``.  tt.random.stateless_uniform([2], seed=[1, 2])"""
    dtype = check_dtype("stateless_uniform", dtype, FLOATS + FULL_INTS)
    alg_id = algorithm_id(alg)
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise InvalidArgumentError(f"stateless_uniform: for integer dtype {dtype.name}, minval and maxval must be "
                                       f"both None or both given; got minval={minval}, maxval={maxval}")
        if minval is not None and dtype.kind == "u":
            raise InvalidArgumentError(f"stateless_uniform: dtype {dtype.name} needs minval=maxval=None")
    elif maxval is None:
        maxval = 1
    shape = shape_operand(shape)
    key, counter = key_counter(seed)
    if dtype.is_integer and minval is None:
        return StatelessRandomUniformFullIntV2.bind(shape, key, counter, np.int32(alg_id), dtype=dtype)
    lo = minval if hasattr(minval, "dtype") else constant(minval, dtype)
    hi = maxval if hasattr(maxval, "dtype") else constant(maxval, dtype)
    if dtype.is_integer:
        return StatelessRandomUniformIntV2.bind(shape, key, counter, np.int32(alg_id), lo, hi, dtype=dtype)
    rnd = StatelessRandomUniformV2.bind(shape, key, counter, np.int32(alg_id), dtype=dtype)
    return add(multiply(rnd, subtract(hi, lo)), lo)
