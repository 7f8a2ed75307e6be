"""tf.StatelessRandomPoisson and tf.RandomPoissonV2: Poisson samples, bit for bit TensorFlow's CPU kernels
(core/kernels/random_poisson_op.cc), which tt.random.stateless_poisson and tt.random.poisson draw with.

    %x = "tf.StatelessRandomPoisson"(%shape, %seed, %lam) : (tensor<2xi32>, tensor<2xi32>, tensor<3xf32>) -> tensor<4x3xi32>

Output i (rate-major, as the gamma kernel's) draws from its own Philox stream, the counter advanced by
256 · i, uniform doubles two per block (the last first): a rate below 10 multiplies uniforms until the
product falls to exp(-rate) (Knuth); an infinite rate gives infinity; otherwise Hörmann's transformed
rejection with squeeze (PTRS) in double precision, with the C library's exp, log and lgamma. Not
differentiable (TensorFlow registers no gradient). Under XLA the same loop runs in a JAX host callback.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import random_philox as philox
from tinytf.ops.base import fmt_shape
from tinytf.ops.random import INTS, _result_dtype, check_dtype, check_operand, output_spec, static_dims
from tinytf.ops.random_gamma import _Stream
from tinytf.ops.random_stateful import PhiloxStream, _callback_words, _Stateful, _stream
from tinytf.ops.type_lists import is_numpy

__all__: list[str] = []  # tt.random.stateless_poisson is the public function (tinytf/random/stateless.py)

RATE_DTYPES = ("float16", "float32", "float64", "int32", "int64")
OUT_DTYPES = ("float16", "float32", "float64", "int32", "int64")
_LIBM = ctypes.CDLL(ctypes.util.find_library("m"))
_LIBM.lgamma.restype, _LIBM.lgamma.argtypes = ctypes.c_double, [ctypes.c_double]   # the C library's, as TF's


def _poisson_sample(rate, key, counter, index, highest):
    stream = _Stream(key, counter, philox.RESERVED_PER_OUTPUT * index)
    if rate < 10:
        exp_neg_rate, product, x = (math.exp(-rate) if rate > -700 else math.inf), 1.0, 0.0   # C's exp: inf
        while True:
            product *= stream.uniform()
            if product <= exp_neg_rate and x <= highest:
                return x
            x += 1
    if math.isinf(rate) and rate > 0:
        return math.inf
    log_rate = math.log(rate)
    b = 0.931 + 2.53 * math.sqrt(rate)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    while True:
        u = stream.uniform() - 0.5
        v = stream.uniform()
        u_shifted = 0.5 - abs(u)
        k = math.floor((2 * a / u_shifted + b) * u + rate + 0.43)
        if k > highest:
            continue
        if u_shifted >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2):
            return k
        if k < 0 or (u_shifted < 0.013 and v > u_shifted):
            continue
        s = math.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -rate + k * log_rate - _LIBM.lgamma(k + 1)
        if s <= t:
            return k


def poisson_samples(dims, key_words, counter_words, rates, out_dtype):
    """The kernel's output of shape ``dims`` for the flat rates, in ``out_dtype``."""
    rates = np.asarray(rates).reshape(-1)
    if np.isnan(rates.astype(np.float64)).any():   # TensorFlow's rejection loop never ends on a NaN rate
        raise InvalidArgumentError("tf.RandomPoisson: rates must not be NaN", "tf.StatelessRandomPoisson")
    total, num_rates = math.prod(dims), rates.size
    per_rate = total // num_rates if num_rates else 0
    highest = float(np.finfo(out_dtype).max if out_dtype.kind == "f" else np.iinfo(out_dtype).max)
    out = np.empty(total, np.float64)
    with np.errstate(all="ignore"):
        for index in range(total):
            r, s = divmod(index, per_rate)
            out[s * num_rates + r] = _poisson_sample(float(rates[r]), key_words, counter_words, index, highest)
    return philox.from_double(out.reshape(dims), out_dtype)


@register
class StatelessRandomPoisson(Op):
    """Poisson(lam) samples of ``shape`` (which ends with lam's shape) from a seed."""

    name = "tf.StatelessRandomPoisson"
    shape = operand_def()
    seed = operand_def()
    lam = operand_def()
    output = result_def()
    dtype = derived("type", _result_dtype, default=None)
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, shape, seed, lam, dtype=None):
        dtype = check_dtype(cls.name, dtype, OUT_DTYPES)
        check_dtype(cls.name, lam.dtype, RATE_DTYPES, "Rtype")
        check_operand(cls.name, seed, "seed", INTS, shape=(2,))
        spec = output_spec(cls.name, shape, dtype)
        if spec.shape is not None and lam.shape is not None and None not in lam.shape:
            tail = tuple(spec.shape[len(spec.shape) - len(lam.shape):]) if len(lam.shape) else ()
            if len(lam.shape) > len(spec.shape) or (None not in tail and tail != tuple(lam.shape)):
                raise InvalidArgumentError(f"{cls.name}: Shape passed in must end with broadcasted shape: "
                                           f"{fmt_shape(spec.shape)} vs. lam {fmt_shape(lam.shape)}", cls.name)
        return spec

    @staticmethod
    def compute(xp, shape, seed, lam, dtype=None):
        out_dtype = np.dtype(check_dtype(StatelessRandomPoisson.name, dtype, OUT_DTYPES).np)
        dims = static_dims(StatelessRandomPoisson.name, shape, out_dtype)

        def host(s, rates):
            key, counter = philox.scramble_seed(np, np.asarray(s))
            return poisson_samples(dims, key, counter, np.asarray(rates), out_dtype)

        if is_numpy(xp):
            return host(seed, lam)
        import jax

        return jax.pure_callback(host, jax.ShapeDtypeStruct(dims, out_dtype), seed, lam, vmap_method="sequential")


@register
class RandomPoissonV2(_Stateful):
    """Poisson(rate) samples of shape ``shape + rate.shape`` from the kernel's own Philox stream (seed, seed2),
    256 blocks reserved per output on every run, as TensorFlow's RandomPoissonOp (the same sampler as
    StatelessRandomPoisson).  %x = "tf.RandomPoissonV2"(%shape, %rate) <{seed = 1 : i64, seed2 = 2 : i64}> : ..."""

    name = "tf.RandomPoissonV2"
    shape = operand_def()
    rate = operand_def()
    output = result_def()
    dtype = derived("type", _result_dtype, default=None)
    R = derived("type", lambda op: tf_types.dtype_of(op.operands[1].type), default=None)
    S = derived("type", lambda op: tf_types.dtype_of(op.operands[0].type), default=None)

    @classmethod
    def infer(cls, shape, rate, *, seed, seed2, dtype=None, R=None, S=None):
        dtype = check_dtype(cls.name, dtype, OUT_DTYPES)
        check_dtype(cls.name, rate.dtype, RATE_DTYPES, "R")
        spec = output_spec(cls.name, shape, dtype)
        if spec.shape is None or rate.shape is None:
            return TensorSpec(None, dtype)
        return TensorSpec(tuple(spec.shape) + tuple(rate.shape), dtype)

    @classmethod
    def kernel(cls, ctx, **attrs):
        rate = np.asarray(ctx.input(1))
        out_dtype = np.dtype(check_dtype(cls.name, attrs["dtype"], OUT_DTYPES).np)
        dims = static_dims(cls.name, ctx.input(0), out_dtype) + rate.shape
        n = math.prod(dims)
        if n == 0:   # TensorFlow returns before it reserves
            ctx.set_output(0, np.zeros(dims, out_dtype))
            return
        key, counter = _stream(ctx, cls, attrs).reserve(cls.reserve(n))
        ctx.set_output(0, poisson_samples(dims, key, counter, rate, out_dtype))

    @classmethod
    def lower(cls, shape, rate, *, seed, seed2, dtype=None, R=None, S=None):
        import jax

        out_dtype = np.dtype(check_dtype(cls.name, dtype, OUT_DTYPES).np)
        dims = static_dims(cls.name, shape, out_dtype) + tuple(rate.shape)
        key, counter = _callback_words(PhiloxStream(seed, seed2), cls.reserve(math.prod(dims)))

        def host(k, c, r):
            return poisson_samples(dims, k, c, np.asarray(r), out_dtype)

        return jax.pure_callback(host, jax.ShapeDtypeStruct(dims, out_dtype), jax.numpy.stack(key),
                                 jax.numpy.stack(counter), rate, vmap_method="sequential")
