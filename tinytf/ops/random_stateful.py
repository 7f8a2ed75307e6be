"""Stateful random ops: each kernel owns a Philox stream seeded by its ``seed`` and ``seed2`` attributes.

    %x = "tf.RandomStandardNormal"(%shape) <{seed = 87654321 : i64, seed2 = 1 : i64}> : (tensor<2xi32>) -> tensor<2x3xf32>
    %state = "tf.RngReadAndSkip"(%var, %alg, %delta) : (tensor<!tf_type.resource<tensor<3xi64>>>, tensor<i32>, tensor<ui64>) -> tensor<3xi64>

As in TensorFlow (random_op.cc, GuardedPhiloxRandom), a kernel's stream starts at key ``seed`` and
counter ``(0, seed2)`` (random ones when both are 0) and each run reserves 256 Philox blocks per output
value, so the same op gives new values on every run, bit for bit TensorFlow's. Where the stream lives:

- eagerly, one per op name and attributes, as TensorFlow's eager kernel cache keeps one kernel per op
  and attributes; ``tt.random.set_seed`` starts them afresh (``reset_eager_streams``);
- in a graph (``tt.function``), one per op name and attributes in the function's program: two ops of
  one function with equal attributes share it (TensorFlow gives each node its own);
- under XLA, one per compiled op, read and advanced by a host callback.

``tf.RngReadAndSkip`` is the step of ``tt.random.Generator``: it returns a state variable's value
([counter low, counter high, key], int64) and advances the counter by 256·delta.
"""
from __future__ import annotations

import math
import secrets
import threading
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.attributes import attr, derived
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, ResourceOp, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import AbstractVariable
from tinytf.ops import random_philox as philox
from tinytf.ops.random import (
    FLOATS,
    INTS,
    _result_dtype,
    check_alg,
    check_dtype,
    check_operand,
    check_range,
    draw_multinomial,
    multinomial_count,
    multinomial_spec,
    output_spec,
    static_dims,
)

__all__: list[str] = []  # tt.random holds the public functions (tinytf/random/)

_STREAM = "tinytf.random/stream"  # first item of a stream's key in a resources dict
_MASK64 = (1 << 64) - 1


class PhiloxStream:
    """A kernel's generator (TensorFlow's GuardedPhiloxRandom): key ``seed``, counter ``(0, seed2)``."""

    __slots__ = ("key", "counter", "lock")

    def __init__(self, seed: int, seed2: int):
        if seed == 0 and seed2 == 0:  # no seed at all: random ones
            seed, seed2 = secrets.randbits(64), secrets.randbits(64)
        self.key = seed & _MASK64
        self.counter = (seed2 & _MASK64) << 64
        self.lock = threading.Lock()

    def reserve(self, blocks: int):
        """(key words, counter words) for ``blocks`` Philox blocks, and the counter advanced past them."""
        with self.lock:
            key, counter = self.key, self.counter
            self.counter = (counter + blocks) & ((1 << 128) - 1)
        return words(key, 2), words(counter, 4)


def words(value: int, count: int) -> np.ndarray:
    return np.array([(value >> (32 * i)) & 0xFFFFFFFF for i in range(count)], np.uint32)


def _stream(ctx, cls, attrs: dict) -> PhiloxStream:
    key = (_STREAM, cls.name, tuple(sorted(attrs.items())))
    found = ctx.resources.get(key)
    if found is None:
        found = ctx.resources.setdefault(key, PhiloxStream(int(attrs["seed"]), int(attrs["seed2"])))
    return found


def reset_eager_streams(resources: dict) -> None:
    """Forget every stream in ``resources``: the eager kernels start from their seeds again."""
    for key in [k for k in resources if isinstance(k, tuple) and k and k[0] == _STREAM]:
        del resources[key]


def _callback_words(stream: PhiloxStream, blocks):
    """Under XLA: a host callback that reserves from this compiled op's ``stream`` on every run."""
    import jax
    from jax.experimental import io_callback

    def reserve():
        key, counter = stream.reserve(blocks() if callable(blocks) else blocks)
        return np.concatenate([key, counter])

    out = io_callback(reserve, jax.ShapeDtypeStruct((6,), np.uint32), ordered=True)
    return (out[0], out[1]), (out[2], out[3], out[4], out[5])


class _Stateful(Op):
    """Base: a kernel with a Philox stream; ``reserve(n)`` blocks per run of ``n`` output values."""

    seed = attr(0)
    seed2 = attr(0)
    traits = traits_def(NoConstantFold(), NotDifferentiable())

    @staticmethod
    def reserve(n: int) -> int:
        return n * philox.RESERVED_PER_OUTPUT


class _Fill(_Stateful):
    """(shape) -> values of distribution ``KIND`` (RandomUniform, RandomStandardNormal, TruncatedNormal)."""

    shape = operand_def()
    output = result_def()
    dtype = derived("type", _result_dtype, default=dtypes.float32)
    KIND: ClassVar[str] = "uniform"

    @classmethod
    def infer(cls, shape, *, seed, seed2, dtype):
        return output_spec(cls.name, shape, check_dtype(cls.name, dtype, FLOATS))

    @classmethod
    def kernel(cls, ctx, **attrs):
        dims = static_dims(cls.name, ctx.input(0), attrs["dtype"])
        n = math.prod(dims)
        key, counter = _stream(ctx, cls, attrs).reserve(cls.reserve(n))
        ctx.set_output(0, philox.sample(np, cls.KIND, n, key, counter, dtypes.as_dtype(attrs["dtype"]).np).reshape(dims))

    @classmethod
    def lower(cls, shape, *, seed, seed2, dtype):
        import jax.numpy as jnp

        dims = static_dims(cls.name, shape, dtype)
        n = math.prod(dims)
        with philox.wide(jnp):
            key, counter = _callback_words(PhiloxStream(seed, seed2), cls.reserve(n))
            return philox.sample(jnp, cls.KIND, n, key, counter, dtypes.as_dtype(dtype).np).reshape(dims)


@register
class RandomUniform(_Fill):
    """Uniform floats in [0, 1).  %x = "tf.RandomUniform"(%shape) <{seed = 1 : i64, seed2 = 2 : i64}> : (tensor<1xi32>) -> tensor<3xf32>"""

    name = "tf.RandomUniform"


@register
class RandomStandardNormal(_Fill):
    """Standard normal floats.  "tf.RandomStandardNormal"(%shape) <{seed = 1 : i64, seed2 = 2 : i64}> : ..."""

    name = "tf.RandomStandardNormal"
    KIND: ClassVar[str] = "normal"


@register
class TruncatedNormal(_Fill):
    """Standard normals within 2 standard deviations.  "tf.TruncatedNormal"(%shape) <{seed, seed2}> : ..."""

    name = "tf.TruncatedNormal"
    KIND: ClassVar[str] = "truncated"


@register
class RandomUniformInt(_Stateful):
    """Ints in [minval, maxval).  "tf.RandomUniformInt"(%shape, %lo, %hi) <{seed, seed2}> : (..., tensor<i32>, tensor<i32>) -> tensor<3xi32>"""

    name = "tf.RandomUniformInt"
    shape = operand_def()
    minval = operand_def()
    maxval = operand_def()
    output = result_def()
    Tout = derived("type", _result_dtype, default=None)

    @classmethod
    def infer(cls, shape, minval, maxval, *, seed, seed2, Tout):
        dtype = check_dtype(cls.name, Tout if Tout is not None else minval.dtype, INTS)
        check_operand(cls.name, minval, "minval", (dtype.name,), shape=())
        check_operand(cls.name, maxval, "maxval", (dtype.name,), shape=())
        return output_spec(cls.name, shape, dtype)

    @classmethod
    def kernel(cls, ctx, **attrs):
        lo, hi = np.asarray(ctx.input(1)), np.asarray(ctx.input(2))
        dims = static_dims(cls.name, ctx.input(0), lo.dtype)
        n = math.prod(dims)
        if n == 0:  # TensorFlow returns before it checks the range or reserves
            ctx.set_output(0, np.zeros(dims, lo.dtype))
            return
        check_range(cls.name, lo, hi)
        key, counter = _stream(ctx, cls, attrs).reserve(cls.reserve(n))
        ctx.set_output(0, philox.sample(np, "int", n, key, counter, lo.dtype, lo, hi).reshape(dims))

    @classmethod
    def lower(cls, shape, minval, maxval, *, seed, seed2, Tout):
        import jax.numpy as jnp

        dims = static_dims(cls.name, shape, minval.dtype)
        n = math.prod(dims)
        if n:
            check_range(cls.name, minval, maxval)
        with philox.wide(jnp):
            key, counter = _callback_words(PhiloxStream(seed, seed2), cls.reserve(n) if n else 0)
            return philox.sample(jnp, "int", n, key, counter, minval.dtype, minval, maxval).reshape(dims)


@register
class RandomShuffle(_Stateful):
    """``value`` with its rows (dimension 0) shuffled.  "tf.RandomShuffle"(%x) <{seed, seed2}> : (tensor<5x2xf32>) -> tensor<5x2xf32>"""

    name = "tf.RandomShuffle"
    value = operand_def()
    output = result_def()

    @classmethod
    def infer(cls, value, *, seed, seed2):
        return TensorSpec(value.shape, value.dtype)

    @staticmethod
    def rows(value) -> int:
        """Rows to shuffle, or 0 when TensorFlow returns the input as it is (and reserves nothing)."""
        return value.shape[0] if value.ndim and value.size > 1 and value.shape[0] > 1 else 0

    @classmethod
    def kernel(cls, ctx, **attrs):
        value = np.asarray(ctx.input(0))
        rows = cls.rows(value)
        if not rows:
            ctx.set_output(0, value)
            return
        key, counter = _stream(ctx, cls, attrs).reserve(-(-(rows - 1) // 4))
        ctx.set_output(0, value[philox.shuffle_permutation(np, rows, key, counter)])

    @classmethod
    def lower(cls, value, *, seed, seed2):
        import jax.numpy as jnp

        rows = cls.rows(value)
        if not rows:
            return value
        with philox.wide(jnp):
            key, counter = _callback_words(PhiloxStream(seed, seed2), -(-(rows - 1) // 4))
            return value[philox.shuffle_permutation(jnp, rows, key, counter)]


@register
class Multinomial(_Stateful):
    """``num_samples`` class indices per row of ``logits``.  "tf.Multinomial"(%logits, %n) <{seed, seed2}> : (tensor<2x5xf32>, tensor<i32>) -> tensor<2x10xi64>"""

    name = "tf.Multinomial"
    logits = operand_def()
    num_samples = operand_def()
    output = result_def()
    output_dtype = derived("type", _result_dtype, default=dtypes.int64)

    @classmethod
    def infer(cls, logits, num_samples, *, seed, seed2, output_dtype):
        return multinomial_spec(cls.name, logits, num_samples, output_dtype)

    @staticmethod
    def blocks(batch: int, count: int) -> int:
        return batch * (-(-count // 4) * 4) * 2 * philox.RESERVED_PER_OUTPUT if batch * count else 0

    @classmethod
    def kernel(cls, ctx, **attrs):
        logits = np.asarray(ctx.input(0))
        count = multinomial_count(cls.name, logits, ctx.input(1))
        blocks = cls.blocks(logits.shape[0], count)
        key, counter = _stream(ctx, cls, attrs).reserve(blocks) if blocks else (None, None)
        ctx.set_output(0, draw_multinomial(np, logits, count, key, counter, attrs["output_dtype"]))

    @classmethod
    def lower(cls, logits, num_samples, *, seed, seed2, output_dtype):
        import jax.numpy as jnp

        count = multinomial_count(cls.name, logits, num_samples)
        blocks = cls.blocks(logits.shape[0], count)
        if not blocks:
            return jnp.zeros((logits.shape[0], count), dtypes.as_dtype(output_dtype).np)
        with philox.wide(jnp):
            key, counter = _callback_words(PhiloxStream(seed, seed2), blocks)
            return draw_multinomial(jnp, logits, count, key, counter, output_dtype)


@register
class RngReadAndSkip(Op):
    """A Generator's state ([counter low, counter high, key], int64) before advancing its counter by 256·delta."""

    name = "tf.RngReadAndSkip"
    resource = operand_def()
    alg = operand_def()
    delta = operand_def()
    value = result_def()
    traits = traits_def(NoConstantFold(), ResourceOp(), NotDifferentiable())

    @classmethod
    def infer(cls, resource, alg, delta):
        if resource.dtype is not dtypes.resource:
            raise InvalidArgumentError(f"{cls.name}: expected a resource operand, got {resource.dtype.name}", cls.name)
        check_operand(cls.name, alg, "alg", ("int32",), shape=())
        check_operand(cls.name, delta, "delta", ("uint64",), shape=())
        var = resource.value
        if isinstance(var, AbstractVariable):
            _check_state(var.dtype, var.shape)
        return TensorSpec((3,), dtypes.int64)

    @staticmethod
    def skipped(xp, state, delta):
        """The state with its 128-bit counter advanced by 256·delta (the key, state[2:], unchanged)."""
        u = state.astype(np.uint64)
        with np.errstate(over="ignore"):  # (uint64 wraps, as TensorFlow's does)
            step = xp.asarray(delta).astype(np.uint64) * np.uint64(256)
        c0, c1, c2, c3 = philox.add_counter(xp, philox.split64(xp, u[0]) + philox.split64(xp, u[1]), step)
        join = lambda lo, hi: lo.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(32))  # noqa: E731
        counter = xp.stack([join(c0, c1), join(c2, c3)]).astype(np.int64)
        return xp.concatenate([counter, state[2:]])

    @classmethod
    def kernel(cls, ctx):
        check_alg(cls.name, ctx.input(1))
        delta = np.asarray(ctx.input(2))
        var = ctx.input_variable(0)
        with ctx.lock_variable_inputs_in_order([0]) as locks:
            if not var.is_initialized:
                raise ctx.error(f"attempting to use uninitialized variable {var.name}")
            _check_state(var.dtype, var.shape)
            state = locks.buffer(0)
            old = state[:3].copy()
            state[...] = cls.skipped(np, state, delta)
        ctx.set_output(0, old)

    @classmethod
    def lower(cls, resource, alg, delta):
        import jax.numpy as jnp

        check_alg(cls.name, alg)
        _check_state(resource.dtype, resource.shape)
        state = resource.read()
        xp = np if isinstance(state, np.ndarray) and isinstance(delta, np.ndarray) else jnp
        with philox.wide(jnp):
            new = cls.skipped(xp, state, delta)
        # the XLA lowering's resource: its new value is written back as the computation's resource update
        resource.value, resource.modified = new, True
        return state[:3]


def _check_state(dtype, shape) -> None:
    if dtypes.as_dtype(dtype) is not dtypes.int64:
        raise InvalidArgumentError(f"tf.RngReadAndSkip: dtype of RNG state variable must be int64, not "
                                   f"{dtypes.as_dtype(dtype).name}", "tf.RngReadAndSkip")
    if shape is not None and (len(shape) != 1 or (shape[0] is not None and shape[0] < 3)):
        raise InvalidArgumentError(f"tf.RngReadAndSkip: for the Philox algorithm the RNG state must be a vector of "
                                   f"at least 3 elements, not shape {list(shape)}", "tf.RngReadAndSkip")
