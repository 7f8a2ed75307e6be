"""tf.StatelessRandomBinomial: Binomial(counts, probs) samples, bit for bit TensorFlow's CPU kernel
(core/kernels/random_binomial_op.cc), which tt.random.stateless_binomial draws with.

    %x = "tf.StatelessRandomBinomial"(%shape, %seed, %counts, %probs) : (tensor<2xi32>, tensor<2xi32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3xi32>

counts and probs broadcast together; ``shape`` ends with their broadcast shape (the batch), its leading
dims are samples. Output i (batch-major) draws uniform doubles (two per Philox block, the last first)
from its own stream: with count · p >= 10 (p = min(prob, 1 - prob), in the parameters' dtype) Hörmann's
BTRS rejection from 256 · i blocks on, else the geometric-sum inversion from 42 · i blocks on; a
probability above 1/2 counts failures. The C library's log and log1p. Not differentiable. Under XLA
the same loop runs in a JAX host callback.
"""
from __future__ import annotations

import math

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import random_philox as philox
from tinytf.ops.base import broadcast_shapes, fmt_shape
from tinytf.ops.random import INTS, _result_dtype, check_dtype, check_operand, output_spec, static_dims
from tinytf.ops.random_gamma import _Stream
from tinytf.ops.type_lists import is_numpy

__all__: list[str] = []  # tt.random.stateless_binomial is the public function (tinytf/random/stateless.py)

PARAM_DTYPES = ("float16", "float32", "float64", "int32", "int64")
OUT_DTYPES = ("float16", "float32", "float64", "int32", "int64")
_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509, 0.0166446911898211,
         0.0138761288230707, 0.0118967099458917, 0.0104112652619720, 0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    """log k! minus Stirling's approximation of it: a table to 9, the series beyond."""
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _inversion(count, prob, stream):
    """Successes as the number of geometric waiting times that fit in ``count`` trials."""
    total, successes = 0.0, 0
    log_q = math.log1p(-prob)
    while True:
        total += math.ceil(math.log(stream.uniform()) / log_q)
        if total > count:
            return float(successes)
        successes += 1


def _btrs(count, prob, stream):
    """Hörmann's transformed rejection with squeeze for Binomial(count, prob), count · prob >= 10."""
    stddev = math.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1) * prob)
    while True:
        u = stream.uniform() - 0.5
        v = stream.uniform()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c)
        if us >= 0.07 and v <= v_r:
            return float(k)
        if k < 0 or k > count:
            continue
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + (count + 1) * math.log((count - m + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m) - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upper:
            return float(k)


def _binomial_sample(count, prob, key, counter, index):
    """One output: count and prob are scalars of the parameters' dtype (its arithmetic decides the method)."""
    t = count.dtype.type
    dcount = float(count)
    if dcount <= 0.0 or prob <= t(0):
        return 0.0
    if prob >= t(1):
        return dcount
    if not prob <= t(0.5) and not prob > t(0.5):   # NaN
        return math.nan
    flip = prob > t(0.5)
    p = t(t(1) - prob) if flip else prob
    with np.errstate(over="ignore"):
        large = t(count * p) >= t(10)
    stream = _Stream(key, counter, (philox.RESERVED_PER_OUTPUT if large else 42) * index)
    draw = (_btrs if large else _inversion)(dcount, float(p), stream)
    return dcount - draw if flip else draw


def binomial_samples(dims, batch, key_words, counter_words, counts, probs, out_dtype):
    counts = np.broadcast_to(counts, batch).reshape(-1)
    probs = np.broadcast_to(probs, batch).reshape(-1)
    if not np.isfinite(counts.astype(np.float64)).all():   # TensorFlow's rejection loop never ends on them
        raise InvalidArgumentError("tf.StatelessRandomBinomial: counts must be finite", "tf.StatelessRandomBinomial")
    total, num_batches = math.prod(dims), max(1, math.prod(batch))
    per_batch = total // num_batches
    out = np.empty(total, np.float64)
    with np.errstate(all="ignore"):
        for index in range(total):
            b, s = divmod(index, per_batch)
            out[s * num_batches + b] = _binomial_sample(counts[b], probs[b], key_words, counter_words, index)
    return philox.from_double(out.reshape(dims), out_dtype)


@register
class StatelessRandomBinomial(Op):
    """Binomial(counts, probs) samples of ``shape`` (ending with the broadcast shape of counts and probs)."""

    name = "tf.StatelessRandomBinomial"
    shape = operand_def()
    seed = operand_def()
    counts = operand_def()
    probs = operand_def()
    output = result_def()
    dtype = derived("type", _result_dtype, default=None)
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, shape, seed, counts, probs, dtype=None):
        dtype = check_dtype(cls.name, dtype, OUT_DTYPES)
        check_dtype(cls.name, counts.dtype, PARAM_DTYPES, "T")
        if counts.dtype != probs.dtype:
            raise InvalidArgumentError(f"{cls.name}: counts and probs must share a dtype, got {counts.dtype.name} "
                                       f"and {probs.dtype.name}", cls.name)
        check_operand(cls.name, seed, "seed", INTS, shape=(2,))
        batch = broadcast_shapes(cls.name, counts.shape, probs.shape)
        spec = output_spec(cls.name, shape, dtype)
        if spec.shape is not None and batch is not None and None not in batch:
            tail = tuple(spec.shape[len(spec.shape) - len(batch):]) if len(batch) else ()
            if len(batch) > len(spec.shape) or (None not in tail and tail != tuple(batch)):
                raise InvalidArgumentError(f"{cls.name}: Shape passed in must end with broadcasted shape: "
                                           f"{fmt_shape(spec.shape)} vs. {fmt_shape(batch)}", cls.name)
        return TensorSpec(spec.shape, dtype)

    @staticmethod
    def compute(xp, shape, seed, counts, probs, dtype=None):
        out_dtype = np.dtype(check_dtype(StatelessRandomBinomial.name, dtype, OUT_DTYPES).np)
        dims = static_dims(StatelessRandomBinomial.name, shape, out_dtype)
        batch = np.broadcast_shapes(np.shape(counts), np.shape(probs))

        def host(s, c, p):
            key, counter = philox.scramble_seed(np, np.asarray(s))
            return binomial_samples(dims, batch, key, counter, np.asarray(c), np.asarray(p), out_dtype)

        if is_numpy(xp):
            return host(seed, counts, probs)
        import jax

        return jax.pure_callback(host, jax.ShapeDtypeStruct(dims, out_dtype), seed, counts, probs,
                                 vmap_method="sequential")
