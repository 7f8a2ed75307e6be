"""Stateless random ops, bit for bit TensorFlow's (Philox4x32-10; tinytf/ops/random_philox.py).

    %key, %counter = "tf.StatelessRandomGetKeyCounter"(%seed) : (tensor<2xi32>) -> (tensor<1xui64>, tensor<2xui64>)
    %x = "tf.StatelessRandomNormalV2"(%shape, %key, %counter, %alg)
           : (tensor<2xi32>, tensor<1xui64>, tensor<2xui64>, tensor<i32>) -> tensor<3x4xf32>

The values are a function of shape, seed (or key and counter) and dtype alone: the same in eager,
graph and XLA runs. TensorFlow registers no gradients for them (NotDifferentiable), and neither
does tinytf. The public functions are ``tt.random.stateless_*`` (tinytf/random/).

    tt.random.stateless_normal([3], seed=[1, 2])       # [0.5441101, 0.20738031, 0.07356432], TensorFlow's bits
"""
from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.attributes import derived
from tinytf.framework.kernel import check_allocation
from tinytf.framework.op import NoConstantFold, NotDifferentiable, Op, register
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import random_philox as philox
from tinytf.ops.base import fmt_shape
from tinytf.ops.operands import guard_allocation, shape_from_operand

__all__: list[str] = []  # tt.random holds the public functions (tinytf/random/__init__.py)

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int32", "int64")
FULL_INTS = ("int32", "int64", "uint32", "uint64")
ALG_PHILOX, ALG_THREEFRY, ALG_AUTO_SELECT = 1, 2, 3


def _result_dtype(op):
    return tf_types.dtype_of(op.results[0].type)


def check_dtype(op_name: str, dtype, allowed, what: str = "dtype"):
    dtype = dtypes.as_dtype(dtype)
    if dtype.name not in allowed:
        raise InvalidArgumentError(f"{op_name}: {what} {dtype.name} is not supported (allowed: {', '.join(allowed)})",
                                   op_name)
    return dtype


def check_operand(op_name: str, spec: TensorSpec, what: str, dtypes_: tuple, shape=None, min_dim0=None):
    """An operand of one of ``dtypes_`` and of ``shape`` (a tuple; () a scalar) or a vector of at least
    ``min_dim0`` elements; InvalidArgumentError naming the op otherwise."""
    if spec.dtype.name not in dtypes_:
        raise InvalidArgumentError(f"{op_name}: {what} must be {' or '.join(dtypes_)}, got {spec.dtype.name}", op_name)
    if spec.shape is None:
        return
    if shape is not None and (len(spec.shape) != len(shape) or any(
            d is not None and d != w for d, w in zip(spec.shape, shape))):
        want = "a scalar" if shape == () else f"shape {fmt_shape(shape)}"
        raise InvalidArgumentError(f"{op_name}: {what} must have {want}, not {fmt_shape(spec.shape)}", op_name)
    if min_dim0 is not None and (len(spec.shape) != 1 or (spec.shape[0] is not None and spec.shape[0] < min_dim0)):
        raise InvalidArgumentError(f"{op_name}: {what} must be a vector of at least {min_dim0} elements, not "
                                   f"{fmt_shape(spec.shape)}", op_name)


def output_spec(op_name: str, shape: TensorSpec, dtype) -> TensorSpec:
    dims = shape_from_operand(op_name, shape, "shape")
    guard_allocation(op_name, dims, dtype)
    return TensorSpec(dims, dtype)


def static_dims(op_name: str, shape, dtype=None) -> tuple:
    """The output dims from a shape operand's value (under XLA it must be a compile-time constant), checked
    against the allocation limit for ``dtype`` (a traced function's shape rule may not have known them)."""
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))  # a traced shape raises: XLA needs it constant
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(f"{op_name}: shape {list(dims)} has a negative dimension", op_name)
    if dtype is not None:
        check_allocation(op_name, dims, dtype)
    return dims


def check_alg(op_name: str, alg) -> None:
    """The V2 ops run Philox (auto-select picks it on CPU and GPU); ThreeFry is XLA-only in TensorFlow."""
    alg_id = int(np.asarray(alg))  # a traced algorithm raises: XLA needs it constant, as TensorFlow's bridge
    if alg_id not in (ALG_PHILOX, ALG_AUTO_SELECT):
        raise InvalidArgumentError(f"{op_name}: unsupported algorithm id {alg_id} (1: Philox, 3: auto-select)",
                                   op_name)


def check_range(op_name: str, lo, hi) -> None:
    if isinstance(lo, np.ndarray | np.generic) and isinstance(hi, np.ndarray | np.generic) and not lo < hi:
        raise InvalidArgumentError(f"{op_name}: need minval < maxval, got {lo} >= {hi}", op_name)


class _Stateless(Op):
    """Base: ``KIND`` of random_philox.sample, dtypes ``DTYPES``; subclasses say where key and counter come from."""

    KIND: ClassVar[str] = "uniform"
    DTYPES: ClassVar[tuple] = FLOATS
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def fill(cls, xp, dims, key, counter, dtype, lo=None, hi=None):
        dtype = lo.dtype if dtype is None else dtype
        n = math.prod(dims)
        if cls.KIND == "int" and n:
            check_range(cls.name, lo, hi)
        return philox.sample(xp, cls.KIND, n, key, counter, dtypes.as_dtype(dtype).np, lo, hi).reshape(dims)


class _V1(_Stateless):
    """(shape, seed) -> values: the seed scrambled into a key and counter (TensorFlow's GenerateKey)."""

    shape = operand_def()
    seed = operand_def()
    output = result_def()
    dtype = derived("type", _result_dtype, default=dtypes.float32)

    @classmethod
    def infer(cls, shape, seed, *bounds, dtype):
        dtype = check_dtype(cls.name, bounds[0].dtype if dtype is None and bounds else dtype, cls.DTYPES)
        check_operand(cls.name, seed, "seed", INTS, shape=(2,))
        for what, spec in zip(("minval", "maxval"), bounds):
            check_operand(cls.name, spec, what, (dtype.name,), shape=())
        return output_spec(cls.name, shape, dtype)

    @classmethod
    def compute(cls, xp, shape, seed, *bounds, dtype):
        dims = static_dims(cls.name, shape, bounds[0].dtype if dtype is None else dtype)
        with philox.wide(xp):
            key, counter = philox.scramble_seed(xp, seed)
            return cls.fill(xp, dims, key, counter, dtype, *bounds)


@register
class StatelessRandomUniform(_V1):
    """Uniform floats in [0, 1).  %x = "tf.StatelessRandomUniform"(%shape, %seed) : (tensor<1xi32>, tensor<2xi64>) -> tensor<5xf32>"""

    name = "tf.StatelessRandomUniform"


@register
class StatelessRandomNormal(_V1):
    """Standard normal floats.  %x = "tf.StatelessRandomNormal"(%shape, %seed) : (tensor<1xi32>, tensor<2xi64>) -> tensor<5xf32>"""

    name = "tf.StatelessRandomNormal"
    KIND: ClassVar[str] = "normal"


@register
class StatelessTruncatedNormal(_V1):
    """Standard normals within 2 standard deviations.  "tf.StatelessTruncatedNormal"(%shape, %seed) : ..."""

    name = "tf.StatelessTruncatedNormal"
    KIND: ClassVar[str] = "truncated"


@register
class StatelessRandomUniformInt(_V1):
    """Ints in [minval, maxval).  "tf.StatelessRandomUniformInt"(%shape, %seed, %lo, %hi) : (..., tensor<i32>, tensor<i32>) -> tensor<5xi32>"""

    name = "tf.StatelessRandomUniformInt"
    shape = operand_def()  # (all four again: IRDL orders a subclass's own fields first)
    seed = operand_def()
    minval = operand_def()
    maxval = operand_def()
    dtype = derived("type", _result_dtype, default=None)  # the bounds' dtype
    KIND: ClassVar[str] = "int"
    DTYPES: ClassVar[tuple] = INTS


@register
class StatelessRandomUniformFullInt(_V1):
    """Ints over the dtype's whole range.  "tf.StatelessRandomUniformFullInt"(%shape, %seed) : ... -> tensor<5xui64>"""

    name = "tf.StatelessRandomUniformFullInt"
    dtype = derived("type", _result_dtype, default=dtypes.uint64)
    KIND: ClassVar[str] = "full_int"
    DTYPES: ClassVar[tuple] = FULL_INTS


class _V2(_Stateless):
    """(shape, key, counter, alg) -> values: the key and counter as StatelessRandomGetKeyCounter gives them."""

    shape = operand_def()
    key = operand_def()
    counter = operand_def()
    alg = operand_def()
    output = result_def()
    dtype = derived("type", _result_dtype, default=dtypes.float32)

    @classmethod
    def infer(cls, shape, key, counter, alg, *bounds, dtype):
        dtype = check_dtype(cls.name, bounds[0].dtype if dtype is None and bounds else dtype, cls.DTYPES)
        check_operand(cls.name, key, "key", ("uint64",), shape=(1,))
        check_operand(cls.name, counter, "counter", ("uint64",), min_dim0=1)
        check_operand(cls.name, alg, "alg", ("int32",), shape=())
        for what, spec in zip(("minval", "maxval"), bounds):
            check_operand(cls.name, spec, what, (dtype.name,), shape=())
        return output_spec(cls.name, shape, dtype)

    @classmethod
    def compute(cls, xp, shape, key, counter, alg, *bounds, dtype):
        dims = static_dims(cls.name, shape, bounds[0].dtype if dtype is None else dtype)
        check_alg(cls.name, alg)
        with philox.wide(xp):
            k, c = philox.key_counter_words(xp, key, counter)
            return cls.fill(xp, dims, k, c, dtype, *bounds)


@register
class StatelessRandomUniformV2(_V2):
    """Uniform floats in [0, 1).  "tf.StatelessRandomUniformV2"(%shape, %key, %counter, %alg) : ... -> tensor<3xf32>"""

    name = "tf.StatelessRandomUniformV2"


@register
class StatelessRandomNormalV2(_V2):
    """Standard normal floats.  "tf.StatelessRandomNormalV2"(%shape, %key, %counter, %alg) : ... -> tensor<3xf32>"""

    name = "tf.StatelessRandomNormalV2"
    KIND: ClassVar[str] = "normal"


@register
class StatelessTruncatedNormalV2(_V2):
    """Normals within 2 standard deviations.  "tf.StatelessTruncatedNormalV2"(%shape, %key, %counter, %alg) : ..."""

    name = "tf.StatelessTruncatedNormalV2"
    KIND: ClassVar[str] = "truncated"


@register
class StatelessRandomUniformIntV2(_V2):
    """Ints in [minval, maxval).  "tf.StatelessRandomUniformIntV2"(%shape, %key, %counter, %alg, %lo, %hi) : ..."""

    name = "tf.StatelessRandomUniformIntV2"
    shape = operand_def()  # (all six again: IRDL orders a subclass's own fields first)
    key = operand_def()
    counter = operand_def()
    alg = operand_def()
    minval = operand_def()
    maxval = operand_def()
    dtype = derived("type", _result_dtype, default=None)  # the bounds' dtype
    KIND: ClassVar[str] = "int"
    DTYPES: ClassVar[tuple] = INTS  # TensorFlow's op allows uint32/uint64 but registers no kernel for them


@register
class StatelessRandomUniformFullIntV2(_V2):
    """Ints over the dtype's whole range.  "tf.StatelessRandomUniformFullIntV2"(%shape, %key, %counter, %alg) : ..."""

    name = "tf.StatelessRandomUniformFullIntV2"
    dtype = derived("type", _result_dtype, default=dtypes.uint64)
    KIND: ClassVar[str] = "full_int"
    DTYPES: ClassVar[tuple] = FULL_INTS


@register
class StatelessRandomGetKeyCounter(Op):
    """The Philox key and counter of a seed (scrambled, as the V1 ops do internally).

    %key, %counter = "tf.StatelessRandomGetKeyCounter"(%seed) : (tensor<2xi32>) -> (tensor<1xui64>, tensor<2xui64>)
    """

    name = "tf.StatelessRandomGetKeyCounter"
    seed = operand_def()
    key = result_def()
    counter = result_def()
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, seed):
        check_operand(cls.name, seed, "seed", INTS, shape=(2,))
        return [TensorSpec((1,), dtypes.uint64), TensorSpec((2,), dtypes.uint64)]

    @staticmethod
    def compute(xp, seed):
        with philox.wide(xp):
            (k0, k1), (_, _, c2, c3) = philox.scramble_seed(xp, seed)
            join = lambda lo, hi: lo.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(32))  # noqa: E731
            return xp.reshape(join(k0, k1), (1,)), xp.stack([xp.zeros((), np.uint64), join(c2, c3)])


@register
class StatelessRandomGetKeyCounterAlg(Op):
    """Key, counter and algorithm (Philox, 1) of a seed.  "tf.StatelessRandomGetKeyCounterAlg"(%seed) : ..."""

    name = "tf.StatelessRandomGetKeyCounterAlg"
    seed = operand_def()
    key = result_def()
    counter = result_def()
    alg = result_def()
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, seed):
        check_operand(cls.name, seed, "seed", INTS, shape=(2,))
        return [TensorSpec((1,), dtypes.uint64), TensorSpec((2,), dtypes.uint64), TensorSpec((), dtypes.int32)]

    @staticmethod
    def compute(xp, seed):
        key, counter = StatelessRandomGetKeyCounter.compute(xp, seed)
        return key, counter, np.asarray(ALG_PHILOX, np.int32)  # known at compile time under XLA too


@register
class StatelessMultinomial(Op):
    """``num_samples`` class indices per row of ``logits`` [batch, classes], drawn with probabilities
    softmax(logits).  "tf.StatelessMultinomial"(%logits, %n, %seed) : (tensor<2x5xf32>, tensor<i32>, tensor<2xi64>) -> tensor<2x10xi64>"""

    name = "tf.StatelessMultinomial"
    logits = operand_def()
    num_samples = operand_def()
    seed = operand_def()
    output = result_def()
    output_dtype = derived("type", _result_dtype, default=dtypes.int64)
    traits = traits_def(Pure(), NoConstantFold(), NotDifferentiable())

    @classmethod
    def infer(cls, logits, num_samples, seed, *, output_dtype):
        check_operand(cls.name, seed, "seed", INTS, shape=(2,))
        return multinomial_spec(cls.name, logits, num_samples, output_dtype)

    @classmethod
    def compute(cls, xp, logits, num_samples, seed, *, output_dtype):
        n = multinomial_count(cls.name, logits, num_samples)
        with philox.wide(xp):
            key, counter = philox.scramble_seed(xp, seed)
            return draw_multinomial(xp, logits, n, key, counter, output_dtype)


def multinomial_spec(op_name: str, logits: TensorSpec, num_samples: TensorSpec, output_dtype) -> TensorSpec:
    """[batch, num_samples] of ``output_dtype`` (int32 / int64); logits a float matrix, num_samples an int32 scalar."""
    out = check_dtype(op_name, output_dtype, INTS, "output_dtype")
    check_operand(op_name, logits, "logits", FLOATS)
    check_operand(op_name, num_samples, "num_samples", ("int32",), shape=())
    if logits.shape is not None and len(logits.shape) != 2:
        raise InvalidArgumentError(f"{op_name}: logits should be a matrix, got shape {fmt_shape(logits.shape)}", op_name)
    if logits.shape is not None and logits.shape[1] == 0:
        raise InvalidArgumentError(f"{op_name}: num_classes should be positive, got 0", op_name)
    count = None if num_samples.value is None else int(np.asarray(num_samples.value))
    if count is not None and count < 0:
        raise InvalidArgumentError(f"{op_name}: num_samples should be non-negative, got {count}", op_name)
    batch = None if logits.shape is None else logits.shape[0]
    classes = None if logits.shape is None else logits.shape[1]
    guard_allocation(op_name, [batch, count], out)
    guard_allocation(op_name, [batch, count, classes], dtypes.bool_)  # the comparison table the kernel builds
    return TensorSpec((batch, count), out)


def multinomial_count(op_name: str, logits, num_samples) -> int:
    count = int(np.asarray(num_samples))  # traced: XLA needs it constant (the result's shape)
    if count < 0:
        raise InvalidArgumentError(f"{op_name}: num_samples should be non-negative, got {count}", op_name)
    if logits.ndim != 2 or logits.shape[1] == 0:
        raise InvalidArgumentError(f"{op_name}: logits must be [batch, classes > 0], got {list(logits.shape)}", op_name)
    check_allocation(op_name, [logits.shape[0], count, logits.shape[1]], dtypes.bool_)
    return count


def draw_multinomial(xp, logits, count: int, key, counter, output_dtype):
    out = dtypes.as_dtype(output_dtype).np
    if count == 0 or logits.shape[0] == 0:
        return xp.zeros((logits.shape[0], count), out)
    return philox.multinomial(xp, logits, count, key, counter, out)
