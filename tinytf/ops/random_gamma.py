"""tf.StatelessRandomGammaV3 and tf.RandomGamma: Gamma(alpha) samples, bit for bit TensorFlow's CPU kernels
(core/kernels/stateless_random_gamma_op.cc, random_op.cc), which tt.random.stateless_gamma and
tt.random.gamma draw with.

    %x = "tf.StatelessRandomGammaV3"(%shape, %key, %counter, %alg, %alpha) : (tensor<2xi32>, tensor<1xui64>, tensor<2xui64>, tensor<i32>, tensor<3xf32>) -> tensor<4x3xf32>

Output i (alpha-major: i = alpha_index · samples_per_alpha + sample_index, stored at
sample_index · num_alphas + alpha_index) draws from its own Philox stream, the counter advanced by
256 · i: alpha = 1 is an exponential, -log1p(-u); otherwise Marsaglia and Tsang's transformation-rejection
in double precision from two sample buffers (standard normals by Box-Muller, two per Philox block, and
uniform doubles, two per block; each buffer hands out its last value first), with alpha < 1 boosted by
u^(1/alpha). The C library's log, log1p and pow (Python's math module calls the same functions).
Eagerly and in graphs a Python loop over the outputs; under XLA the same loop in a JAX host callback.

The gradient in alpha is TensorFlow's implicit reparameterisation: d sample / d alpha =
-(d igamma(alpha, x) / d alpha) / (d igamma(alpha, x) / d x), summed over the sample dims.
"""
from __future__ import annotations

import math

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.op import NoConstantFold, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import random_philox as philox
from tinytf.ops.base import fmt_shape
from tinytf.ops.op_functions import ops
from tinytf.ops.random import _result_dtype, check_alg, check_dtype, check_operand, output_spec, static_dims
from tinytf.ops.random_stateful import PhiloxStream, _callback_words, _Stateful, _stream
from tinytf.ops.type_lists import is_numpy

__all__: list[str] = []  # tt.random.stateless_gamma is the public function (tinytf/random/stateless.py)

GAMMA_DTYPES = ("float16", "float32", "float64")


class _Stream:
    """One output's Philox stream with TensorFlow's two RandomSampleBuffers (normal and uniform doubles)."""

    def __init__(self, key, counter, start):
        self.key, self.counter, self.position = key, counter, start
        self.normals, self.uniforms = [], []

    def block(self):
        words = philox.blocks(np, self.key, self.counter, self.position, 1)[0]
        self.position += 1
        return [words[i:i + 1] for i in range(4)]

    def uniform_pair(self):
        w = self.block()
        return [float(philox.uniform_double(np, w[0], w[1])[0]), float(philox.uniform_double(np, w[2], w[3])[0])]

    def normal(self):
        if not self.normals:
            d0, d1 = philox.box_muller_double(np, *self.block())
            self.normals = [float(d0[0]), float(d1[0])]
        return self.normals.pop()   # the buffer hands out its last value first

    def uniform(self):
        if not self.uniforms:
            self.uniforms = self.uniform_pair()
        return self.uniforms.pop()


def _gamma_sample(alpha, key, counter, index):
    stream = _Stream(key, counter, philox.RESERVED_PER_OUTPUT * index)
    if alpha == 1.0:
        return -math.log1p(-stream.uniform_pair()[1])
    boost = alpha < 1.0
    d = alpha + (2.0 / 3 if boost else -1.0 / 3)
    c = 1.0 / 3 / math.sqrt(d)
    while True:
        x = stream.normal()
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u = stream.uniform()
        if u < 1 - 0.0331 * (x * x) * (x * x) or math.log(u) < 0.5 * x * x + d * (1 - v + math.log(v)):
            result = d * v
            if boost:
                result *= math.pow(stream.uniform(), 1 / alpha)
            return result


def gamma_samples(dims, key_words, counter_words, alpha):
    """The kernel's output of shape ``dims`` for the flat ``alpha`` values (float64 results)."""
    alpha = np.asarray(alpha).reshape(-1)
    if not (alpha.astype(np.float64) > 0).all():   # TensorFlow's rejection loop never ends on alpha <= 0 or NaN
        raise InvalidArgumentError(f"tf.RandomGamma: alpha must be positive, got {alpha[~(alpha > 0)][:3].tolist()}",
                                   "tf.StatelessRandomGammaV3")
    total, num_alphas = math.prod(dims), alpha.size
    per_alpha = total // num_alphas if num_alphas else 0
    out = np.empty(total, np.float64)
    with np.errstate(all="ignore"):
        for index in range(total):
            a, s = divmod(index, per_alpha)
            out[s * num_alphas + a] = _gamma_sample(float(alpha[a]), key_words, counter_words, index)
    return out.reshape(dims)


@register
class StatelessRandomGammaV3(Op):
    """Gamma(alpha, 1) samples of ``shape`` (which ends with alpha's shape) from a Philox key and counter."""

    name = "tf.StatelessRandomGammaV3"
    shape = operand_def()
    key = operand_def()
    counter = operand_def()
    alg = operand_def()
    alpha = operand_def()
    output = result_def()
    dtype = derived("type", _result_dtype, default=None)
    traits = traits_def(Pure(), NoConstantFold())

    @classmethod
    def infer(cls, shape, key, counter, alg, alpha, dtype=None):
        dtype = check_dtype(cls.name, alpha.dtype, GAMMA_DTYPES)
        check_operand(cls.name, key, "key", ("uint64",), shape=(1,))
        check_operand(cls.name, counter, "counter", ("uint64",), min_dim0=1)
        check_operand(cls.name, alg, "alg", ("int32",), shape=())
        spec = output_spec(cls.name, shape, dtype)
        if spec.shape is not None and alpha.shape is not None and None not in alpha.shape:
            tail = tuple(spec.shape[len(spec.shape) - len(alpha.shape):]) if len(alpha.shape) else ()
            if len(alpha.shape) > len(spec.shape) or (None not in tail and tail != tuple(alpha.shape)):
                raise InvalidArgumentError(f"{cls.name}: Shape passed in must end with broadcasted shape: "
                                           f"{fmt_shape(spec.shape)} vs. alpha {fmt_shape(alpha.shape)}", cls.name)
            if math.prod(alpha.shape) == 0:
                raise InvalidArgumentError(f"{cls.name}: Input alpha should have non-zero element count, got: 0",
                                           cls.name)
        return spec

    @staticmethod
    def compute(xp, shape, key, counter, alg, alpha, dtype=None):
        dims = static_dims(StatelessRandomGammaV3.name, shape, alpha.dtype)
        check_alg(StatelessRandomGammaV3.name, alg)

        def host(key, counter, a):
            k, c = philox.key_counter_words(np, np.asarray(key), np.asarray(counter))
            return philox.from_double(gamma_samples(dims, k, c, np.asarray(a)), np.dtype(alpha.dtype))

        if is_numpy(xp):
            return host(key, counter, alpha)
        import jax

        # the seed's key and counter may be run-time values: they go to the host with alpha
        return jax.pure_callback(host, jax.ShapeDtypeStruct(dims, alpha.dtype), key, counter, alpha,
                                 vmap_method="sequential")

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and x ~ Gamma(alpha): d alpha = Σ_samples U · dx/d alpha
        return [None, None, None, None, _alpha_grad(op.inputs[4], op.outputs[0], dy)]


def _alpha_grad(alpha, x, dy):
    """Σ over the sample dims of U · dx/d alpha, dx/d alpha = -(d igamma / d alpha) / (d igamma / dx)."""
    from tinytf.ops.special_functions import IgammaGradA, lgamma

    a = ops.broadcast_to(alpha, ops.shape(x))
    # d igamma / dx is the Gamma(alpha) density: exp((alpha - 1) log x - x - lgamma(alpha))
    density = ops.exp(ops.subtract(ops.subtract(ops.multiply(ops.subtract(a, ops.ones_like(a)), ops.log(x)), x),
                                   lgamma(a)))
    partial = ops.negative(ops.divide(IgammaGradA.bind(a, x), density))
    rank_x, rank_a = len(x.shape), len(alpha.shape)
    total = ops.multiply(dy, partial)
    return ops.reduce_sum(total, axis=list(range(rank_x - rank_a))) if rank_x > rank_a else total


@register
class RandomGamma(_Stateful):
    """Gamma(alpha, 1) samples of shape ``shape + alpha.shape`` from the kernel's own Philox stream (seed, seed2),
    256 blocks reserved per output on every run, as TensorFlow's RandomGammaOp (the same sampler as
    StatelessRandomGammaV3).  %x = "tf.RandomGamma"(%shape, %alpha) <{seed = 1 : i64, seed2 = 2 : i64}> : ..."""

    name = "tf.RandomGamma"
    traits = traits_def(NoConstantFold())   # TensorFlow differentiates it in alpha
    shape = operand_def()
    alpha = operand_def()
    output = result_def()
    T = derived("type", _result_dtype, default=None)
    S = derived("type", lambda op: tf_types.dtype_of(op.operands[0].type), default=None)

    @classmethod
    def infer(cls, shape, alpha, *, seed, seed2, T=None, S=None):
        dtype = check_dtype(cls.name, alpha.dtype, GAMMA_DTYPES)
        spec = output_spec(cls.name, shape, dtype)
        if spec.shape is None or alpha.shape is None:
            return TensorSpec(None, dtype)
        return TensorSpec(tuple(spec.shape) + tuple(alpha.shape), dtype)

    @classmethod
    def kernel(cls, ctx, **attrs):
        alpha = np.asarray(ctx.input(1))
        dims = static_dims(cls.name, ctx.input(0), alpha.dtype) + alpha.shape
        n = math.prod(dims)
        if alpha.size == 0 and n:
            raise InvalidArgumentError(f"{cls.name}: Input alpha should have non-zero element count, got: 0", cls.name)
        if n == 0:   # TensorFlow returns before it reserves
            ctx.set_output(0, np.zeros(dims, alpha.dtype))
            return
        key, counter = _stream(ctx, cls, attrs).reserve(cls.reserve(n))
        ctx.set_output(0, philox.from_double(gamma_samples(dims, key, counter, alpha), alpha.dtype))

    @classmethod
    def lower(cls, shape, alpha, *, seed, seed2, T=None, S=None):
        import jax

        dims = static_dims(cls.name, shape, alpha.dtype) + tuple(alpha.shape)
        n = math.prod(dims)
        key, counter = _callback_words(PhiloxStream(seed, seed2), cls.reserve(n))

        def host(k, c, a):
            return philox.from_double(gamma_samples(dims, k, c, np.asarray(a)), np.dtype(alpha.dtype))

        return jax.pure_callback(host, jax.ShapeDtypeStruct(dims, alpha.dtype), jax.numpy.stack(key),
                                 jax.numpy.stack(counter), alpha, vmap_method="sequential")

    @staticmethod
    def grad(op, dy):  # Given upstream grad U and x ~ Gamma(alpha): d alpha = Σ_samples U · dx/d alpha
        return [None, _alpha_grad(op.inputs[1], op.outputs[0], dy)]
