"""``tt.random.Generator``: a Philox state in a variable, advanced by ``tf.RngReadAndSkip``.

    g = tt.random.Generator.from_seed(1234)
    g.normal([2, 3])          # TensorFlow 2.21's values for Generator.from_seed(1234), call after call
    a, b = g.split(2)         # independent generators

As TensorFlow's (python/ops/stateful_random_ops.py): the state is int64 [counter low, counter high, key];
``from_seed(s)`` puts s in the counter's low half (no scrambling); each draw of n values reads the state
and advances the counter by 256·n, then runs the stateless V2 op on that key and counter. The state is a
``tt.Variable``, so draws work eagerly, in ``tt.function`` graphs and under XLA alike.
"""
from __future__ import annotations

import enum
import secrets

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework.variables import Variable
from tinytf.ops.array import cast, constant
from tinytf.ops.joining import stack
from tinytf.ops.math import add, multiply, subtract
from tinytf.ops.random import (
    FLOATS,
    FULL_INTS,
    INTS,
    StatelessRandomNormalV2,
    StatelessRandomUniformFullIntV2,
    StatelessRandomUniformIntV2,
    StatelessRandomUniformV2,
    StatelessTruncatedNormalV2,
    check_dtype,
)
from tinytf.ops.random_stateful import RngReadAndSkip
from tinytf.ops.random_uniform import algorithm_id, shape_operand
from tinytf.ops.reduction import reduce_prod
from tinytf.ops.slicing import slice as slice_

STATE_SIZE = 3  # Philox: a 128-bit counter and a 64-bit key, as int64
_SPAN = 1 << 64


class Algorithm(enum.Enum):
    """TensorFlow's RNG algorithms (tf.random.Algorithm); tinytf runs Philox (auto-select picks it)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _alg(alg) -> int:
    alg_id = algorithm_id(Algorithm.PHILOX if alg is None else alg)
    if alg_id == Algorithm.THREEFRY.value:
        raise InvalidArgumentError("tt.random.Generator: the ThreeFry algorithm is not supported (TensorFlow runs it "
                                   "only under XLA); use Philox")
    if alg_id not in (1, 3):
        raise InvalidArgumentError(f"tt.random.Generator: unsupported algorithm {alg!r}")
    return alg_id


def _as_int64(value: int) -> int:
    value = int(value) % _SPAN
    return value - _SPAN if value >= 1 << 63 else value


def create_rng_state(seed, alg=None) -> np.ndarray:
    """The int64 state of a seed: an int is split into 64-bit words, lowest first; a shorter list is
    padded with zeros in front (TensorFlow's ``_make_1d_state``)."""
    _alg(alg)
    if isinstance(seed, int | np.integer):
        seed = int(seed)
        words = [(seed >> (64 * i)) % _SPAN for i in range(STATE_SIZE)]
    else:
        words = np.asarray(seed.numpy() if hasattr(seed, "numpy") else seed).reshape(-1).tolist()
    state = [_as_int64(w) for w in words][:STATE_SIZE]
    return np.array([0] * (STATE_SIZE - len(state)) + state, np.int64)


class Generator:
    """A random number generator whose state is a variable (TensorFlow's tf.random.Generator)."""

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            self._alg = copy_from.algorithm
            self._state_var = Variable(copy_from.state.numpy(), trainable=False, name="StateVar")
            return
        if state is None:
            raise InvalidArgumentError("tt.random.Generator: give copy_from or state (or use from_seed)")
        self._alg = _alg(alg)
        if isinstance(state, Variable):
            self._state_var = state
        else:
            self._state_var = Variable(create_rng_state(state, self._alg), trainable=False, name="StateVar")
        if self._state_var.dtype is not dtypes.int64 or tuple(self._state_var.shape) != (STATE_SIZE,):
            raise InvalidArgumentError(f"tt.random.Generator: the state must be int64 of shape [{STATE_SIZE}], got "
                                       f"{self._state_var.dtype.name} {list(self._state_var.shape)}")

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(state=[_as_int64(secrets.randbits(64)) for _ in range(STATE_SIZE)], alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        return cls(state=list(np.asarray(counter).reshape(-1)) + [int(np.asarray(key))], alg=alg)

    @property
    def state(self) -> Variable:
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self):
        return self._state_var.value()[-1]

    def reset(self, state) -> None:
        self._state_var.assign(create_rng_state(state, self._alg))

    def reset_from_seed(self, seed) -> None:
        self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter) -> None:
        self.reset(list(np.asarray(counter).reshape(-1)) + [int(np.asarray(key))])

    def skip(self, delta):
        """The state before, advancing the counter by 256·delta (tf.RngReadAndSkip)."""
        delta = np.uint64(delta) if isinstance(delta, int | np.integer) else cast(delta, dtypes.uint64)
        return RngReadAndSkip.bind(self._state_var, np.int32(self._alg), delta)

    def _key_counter(self, shape):
        dims = np.asarray(shape) if isinstance(shape, np.ndarray) else None
        delta = int(np.prod(dims)) if dims is not None else reduce_prod(shape)
        state = self.skip(delta)
        counter = cast(slice_(state, [0], [2]), dtypes.uint64)  # (TensorFlow bitcasts: the same bits)
        key = cast(slice_(state, [2], [1]), dtypes.uint64)
        return key, counter

    def _draw(self, cls, shape, dtype, *bounds):
        shape = shape_operand(shape)
        key, counter = self._key_counter(shape)
        return cls.bind(shape, key, counter, np.int32(self._alg), *bounds, dtype=dtype)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        dtype = check_dtype("Generator.normal", dtype, FLOATS)
        mean, stddev = _tensor(mean, dtype), _tensor(stddev, dtype)
        return add(multiply(self._draw(StatelessRandomNormalV2, shape, dtype), stddev), mean)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        dtype = check_dtype("Generator.truncated_normal", dtype, FLOATS)
        mean, stddev = _tensor(mean, dtype), _tensor(stddev, dtype)
        return add(multiply(self._draw(StatelessTruncatedNormalV2, shape, dtype), stddev), mean)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        dtype = check_dtype("Generator.uniform", dtype, FLOATS + INTS + ("uint32", "uint64"))
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise InvalidArgumentError(f"Generator.uniform: for integer dtype {dtype.name}, minval and maxval "
                                           f"must be both None or both given; got {minval}, {maxval}")
            if minval is None:
                return self.uniform_full_int(shape, dtype)
        elif maxval is None:
            maxval = 1
        lo, hi = _tensor(minval, dtype), _tensor(maxval, dtype)
        if dtype.is_integer:
            return self._draw(StatelessRandomUniformIntV2, shape, check_dtype("Generator.uniform", dtype, INTS), lo, hi)
        return add(multiply(self._draw(StatelessRandomUniformV2, shape, dtype), subtract(hi, lo)), lo)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        dtype = check_dtype("Generator.uniform_full_int", dtype, FULL_INTS)
        return self._draw(StatelessRandomUniformFullIntV2, shape, dtype)

    def make_seeds(self, count=1):
        """[2, count] int64 seeds for the stateless ops."""
        keys = self.uniform_full_int([count], dtypes.int64)
        from tinytf.ops.array import zeros_like

        return stack([keys, zeros_like(keys)])

    def split(self, count=1) -> list:
        """``count`` new generators, each keyed by a draw of this one."""
        keys = np.asarray(self.uniform_full_int([count], dtypes.int64).numpy())
        return [Generator(state=[0] * (STATE_SIZE - 1) + [int(k)], alg=self._alg) for k in keys]


def _tensor(value, dtype):
    return value if hasattr(value, "dtype") else constant(value, dtype)


_global_generator: list = [None]


def get_global_generator() -> Generator:
    """The global generator (created from a non-deterministic state on first use)."""
    if _global_generator[0] is None:
        _global_generator[0] = Generator.from_non_deterministic_state()
    return _global_generator[0]


def set_global_generator(generator: Generator) -> None:
    _global_generator[0] = generator
