"""TensorFlow's random numbers, bit for bit: Philox4x32-10, its seeds, and the distributions built on it.

    key, counter = scramble_seed(np, seed)               # StatelessRandomGetKeyCounter: 2 + 4 uint32 words
    x = sample(np, "normal", 6, key, counter, np.float32)     # what StatelessRandomNormalV2 fills

Written once against the array API (``xp`` is numpy, or jax.numpy under XLA, inside ``wide(xp)`` so
that JAX has 64-bit types), so eager, graph and XLA runs give the same bits. The algorithms are
TensorFlow's (tsl/lib/random/philox_random.h, random_distributions.h; core/kernels/random_op_cpu.h):

- Philox4x32-10 maps a 128-bit counter and a 64-bit key to four uint32 words; output group ``g``
  (4 floats, 2 doubles, 4 int32, 2 int64, 2 Box-Muller pairs ...) takes the words of counter + g;
- floats come from mantissa bits (``1.mantissa - 1``), doubles from two words, half and bfloat16 from
  the low 16 bits; normals by Box-Muller (``random_libm``: the C library's log and sincos);
- truncated normals reject |x| >= 2, group ``g`` drawing from counter + 256·g (128·g for doubles);
- ints are ``lo + bits % (hi - lo)`` in unsigned arithmetic (biased unless the range is a power of 2).
"""
from __future__ import annotations

import contextlib
import math
import os

import numpy as np

from tinytf.ops import random_libm as libm

__all__: list[str] = []  # no public op functions

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)  # the round's multipliers
_W0, _W1 = 0x9E3779B9, 0xBB67AE85  # the key schedule's increments (golden ratio, sqrt(3) - 1)
_MASK32 = 0xFFFFFFFF
SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)  # the key TensorFlow scrambles stateless seeds with
RESERVED_PER_OUTPUT = 256  # 128-bit samples a stateful kernel reserves per output element


def wide(xp):
    """A context in which ``xp`` has 64-bit types: JAX's x64 mode under XLA, nothing for numpy."""
    if xp is np:
        return contextlib.nullcontext()
    import jax

    return jax.enable_x64(True)


def _u32(x):
    return x.astype(np.uint32)


def philox(xp, counter, key):
    """Philox4x32-10: ``counter`` four uint32 arrays, ``key`` two uint32 scalars; four uint32 arrays."""
    c0, c1, c2, c3 = counter
    for k0, k1 in _round_keys(xp, key):
        p0 = c0.astype(np.uint64) * _M0
        p1 = c2.astype(np.uint64) * _M1
        c0, c1, c2, c3 = (_u32(p1 >> np.uint64(32)) ^ c1 ^ k0, _u32(p1),
                          _u32(p0 >> np.uint64(32)) ^ c3 ^ k1, _u32(p0))
    return c0, c1, c2, c3


def _round_keys(xp, key) -> list:
    """The ten rounds' keys: the key raised by (W0, W1) per round, mod 2^32."""
    if xp is np:  # known keys: Python arithmetic, much cheaper than ten rounds of 0-d arrays
        k0, k1 = (int(k) for k in key)
        return [(np.uint32((k0 + r * _W0) & _MASK32), np.uint32((k1 + r * _W1) & _MASK32)) for r in range(10)]
    k0, k1 = (xp.asarray(k).astype(np.uint64) for k in key)
    return [(_u32((k0 + np.uint64(r * _W0)) & np.uint64(_MASK32)), _u32((k1 + np.uint64(r * _W1)) & np.uint64(_MASK32)))
            for r in range(10)]


def add_counter(xp, counter, offset):
    """``counter`` (four uint32 words) + ``offset`` (uint64 scalar or array): 128-bit, as Philox's Skip."""
    c0, c1, c2, c3 = (xp.asarray(w).astype(np.uint64) for w in counter)
    low = c0 | (c1 << np.uint64(32))
    offset = xp.asarray(offset).astype(np.uint64)
    with np.errstate(over="ignore"):  # unsigned arithmetic wraps, as the counter does
        new_low = low + offset
        high = (c2 | (c3 << np.uint64(32))) + (new_low < offset).astype(np.uint64)
    return (_u32(new_low & np.uint64(_MASK32)), _u32(new_low >> np.uint64(32)),
            _u32(high & np.uint64(_MASK32)), _u32(high >> np.uint64(32)))


def blocks(xp, key, counter, start, count: int, stride: int = 1):
    """The words of Philox at counters ``counter + start + stride·i``, i < count: a (count, 4) uint32 array."""
    offsets = xp.asarray(start).astype(np.uint64) + xp.arange(count, dtype=np.uint64) * np.uint64(stride)
    return xp.stack(philox(xp, add_counter(xp, counter, offsets), key), axis=-1)


def scramble_seed(xp, seed):
    """TensorFlow's key and counter for a stateless op's seed (``GenerateKey``): the seed's two int64 halves
    (int32 ones sign-extended) are a counter, scrambled by one Philox block under a fixed key."""
    s = xp.asarray(seed).astype(np.int64).astype(np.uint64)
    words = [_u32(s[0] & np.uint64(_MASK32)), _u32(s[0] >> np.uint64(32)),
             _u32(s[1] & np.uint64(_MASK32)), _u32(s[1] >> np.uint64(32))]
    mix = philox(xp, words, [np.uint32(k) for k in SCRAMBLE_KEY])
    zero = xp.zeros((), np.uint32)
    return (mix[0], mix[1]), (zero, zero, mix[2], mix[3])


def split64(xp, value):
    """A uint64 array's (low, high) uint32 words."""
    value = xp.asarray(value).astype(np.uint64)
    return _u32(value & np.uint64(_MASK32)), _u32(value >> np.uint64(32))


def key_counter_words(xp, key, counter):
    """V2 ops' ``key`` (uint64[1]) and ``counter`` (uint64[>=1]) as 2 + 4 uint32 words."""
    k = split64(xp, key[0])
    c_low = split64(xp, counter[0])
    c_high = split64(xp, counter[1]) if counter.shape[0] > 1 else (xp.zeros((), np.uint32),) * 2
    return k, c_low + c_high


# --- distributions: n values from the words of consecutive counters ----------------------------------

def sample(xp, kind: str, n: int, key, counter, dtype, lo=None, hi=None):
    """``n`` values of distribution ``kind`` ("uniform", "normal", "truncated", "int", "full_int") and
    ``dtype``, filled as TensorFlow's ``FillPhiloxRandom`` does from Philox ``key`` and ``counter``."""
    dtype = np.dtype(dtype)
    if n == 0:
        return xp.zeros((0,), dtype)
    if kind == "truncated":
        return _truncated(xp, n, key, counter, dtype)
    per = 2 if dtype.itemsize == 8 else 4  # values one Philox block gives
    w = blocks(xp, key, counter, 0, -(-n // per))
    if kind == "uniform":
        out = uniform_bits(xp, w, dtype)
    elif kind == "normal":
        out = _normal(xp, w, dtype)
    elif kind == "int":
        out = _ints(xp, w, dtype, lo, hi)
    elif kind == "full_int":
        out = bits_as(xp, w, dtype)
    else:
        raise ValueError(f"unknown distribution {kind!r}")
    return out[:n]


def bits_as(xp, w, dtype):
    """Words as integers of ``dtype``: one word each, or (low, high) pairs for 64-bit types."""
    w = w.reshape(-1)
    if np.dtype(dtype).itemsize == 8:
        pairs = w.reshape(-1, 2).astype(np.uint64)
        return (pairs[:, 0] | (pairs[:, 1] << np.uint64(32))).astype(dtype)
    return w.astype(dtype)


def uniform_bits(xp, w, dtype):
    """Uniform floats in [0, 1) from words: mantissa bits under the exponent of 1.0, minus 1."""
    dtype = np.dtype(dtype)
    w = w.reshape(-1)
    if dtype == np.float32:
        return libm.bitcast(xp, (w & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000), np.float32) - np.float32(1)
    if dtype == np.float64:
        pairs = w.reshape(-1, 2)
        return uniform_double(xp, pairs[:, 0], pairs[:, 1])
    low = (w & np.uint32(0xFFFF)).astype(np.uint16)
    if dtype == np.float16:
        one = libm.bitcast(xp, (low & np.uint16(0x3FF)) | np.uint16(0x3C00), np.float16)
    else:  # bfloat16
        one = libm.bitcast(xp, (low & np.uint16(0x7F)) | np.uint16(0x3F80), dtype)
    return one - xp.ones((), dtype)


def from_double(values, dtype):
    """Samples computed in double as ``dtype``, as TensorFlow's host samplers cast them: a half through float
    (static_cast<Eigen::half>(double) goes through float)."""
    return values.astype(np.float32).astype(dtype) if dtype == np.float16 else values.astype(dtype)


def uniform_double(xp, x0, x1):
    """TensorFlow's Uint64ToDouble: 20 mantissa bits from ``x0``, 32 from ``x1``."""
    high = (x0 & np.uint32(0xFFFFF)) | np.uint32(0x3FF00000)
    bits = x1.astype(np.uint64) | (high.astype(np.uint64) << np.uint64(32))
    return libm.bitcast(xp, bits, np.float64) - 1.0


def box_muller_float(xp, x0, x1):
    """Two standard normal float32 arrays from two word arrays (TensorFlow's BoxMullerFloat)."""
    u1 = xp.maximum(uniform_bits(xp, x0, np.float32), np.float32(1e-7))  # keep log away from 0
    u2 = uniform_bits(xp, x1, np.float32)
    v1 = (np.float64(2 * np.pi) * u2.astype(np.float64)).astype(np.float32)  # (2.0f * M_PI) is a double
    radius = xp.sqrt(np.float32(-2) * libm.logf(xp, u1))
    s, c = libm.sincosf(xp, v1)
    return s * radius, c * radius


def box_muller_double(xp, x0, x1, x2, x3):
    """Two standard normal float64 arrays from four word arrays (BoxMullerDouble)."""
    u1 = xp.maximum(uniform_double(xp, x0, x1), 1e-7)
    v1 = 2 * np.pi * uniform_double(xp, x2, x3)
    radius = xp.sqrt(-2.0 * libm.log(xp, u1))
    return libm.sin(xp, v1) * radius, libm.cos(xp, v1) * radius


def _normal(xp, w, dtype):
    if dtype == np.float64:
        d0, d1 = box_muller_double(xp, w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        return xp.stack([d0, d1], axis=-1).reshape(-1)
    pairs = w.reshape(-1, 2)
    f0, f1 = box_muller_float(xp, pairs[:, 0], pairs[:, 1])
    return xp.stack([f0, f1], axis=-1).reshape(-1).astype(dtype)  # half, bfloat16: rounded from float


def _ints(xp, w, dtype, lo, hi):
    """``lo + bits % (hi - lo)`` in the unsigned type of ``dtype`` (TensorFlow's SignedAdd wraps the same)."""
    unsigned = np.uint64 if np.dtype(dtype).itemsize == 8 else np.uint32
    bits = bits_as(xp, w, unsigned)
    lo_u = xp.asarray(lo).astype(unsigned)
    span = xp.asarray(hi).astype(unsigned) - lo_u
    return (lo_u + bits % span).astype(dtype)


def while_loop(xp, cond, body, state):
    """``state = body(state)`` while ``cond(state)``: a Python loop on numpy, ``lax.while_loop`` under XLA."""
    if xp is np:
        while cond(state):
            state = body(state)
        return state
    import jax

    return jax.lax.while_loop(cond, body, state)


def _truncated(xp, n: int, key, counter, dtype):
    """Truncated normals: group g (4 values; 2 for doubles) takes the first normals with |x| < 2 of the
    Box-Muller stream of counters counter + stride·g, counter + stride·g + 1, ..."""
    double = dtype == np.float64
    per = 2 if double else 4
    stride = RESERVED_PER_OUTPUT * per // 4
    groups = -(-n // per)
    work = np.float64 if double else np.float32

    def body(state):
        j, filled, outs = state
        w = blocks(xp, key, counter, j, groups, stride)
        if double:
            candidates = box_muller_double(xp, w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        else:
            a0, a1 = box_muller_float(xp, w[:, 0], w[:, 1])
            b0, b1 = box_muller_float(xp, w[:, 2], w[:, 3])
            candidates = (a0, a1, b0, b1)
        outs = list(outs)
        for x in candidates:
            take = (xp.abs(x) < work(2)) & (filled < per)
            outs = [xp.where(take & (filled == k), x, o) for k, o in enumerate(outs)]
            filled = filled + take.astype(np.int32)
        return j + 1, filled, tuple(outs)

    state = (xp.zeros((), np.int64), xp.zeros((groups,), np.int32), tuple(xp.zeros((groups,), work) for _ in range(per)))
    _, _, outs = while_loop(xp, lambda s: xp.any(s[1] < per), body, state)
    return xp.stack(outs, axis=-1).reshape(-1)[:n].astype(dtype)


def stream(xp, key, counter, count: int):
    """The first ``count`` uint32 words of Philox's stream from ``counter`` (TensorFlow's SingleSampleAdapter)."""
    return blocks(xp, key, counter, 0, -(-count // 4)).reshape(-1)[:count]


def multinomial(xp, logits, num_samples: int, key, counter, out_dtype, threads: int | None = None):
    """Class indices of ``num_samples`` draws per row of ``logits``, as TensorFlow's CPU kernel: a double per
    draw from the word stream, found in the row's running sum of exp(logit - max) over the finite logits.
    The kernel splits the rows into shards over ``threads`` (TensorFlow's intra-op threads; default: this
    machine's), each shard's stream starting at block ``start_row * (num_samples + 3) / 4``."""
    batch, classes = logits.shape
    finite = xp.isfinite(logits)
    top = xp.max(xp.where(finite, logits, xp.asarray(-np.inf, logits.dtype)), axis=1, keepdims=True)
    top = top.astype(np.float64)  # the largest finite logit (-inf in a row without one: all its terms are 0)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = xp.where(finite, xp.exp(logits.astype(np.float64) - top), 0.0)
    cdf = xp.cumsum(terms, axis=1)
    offsets = np.zeros(batch, np.int64)  # each row's first word: its shard's skip, then the rows before it
    for start, limit in shards(batch, multinomial_cost(num_samples, classes), threads or cpu_threads()):
        rows = np.arange(start, limit)
        offsets[start:limit] = 4 * (start * (num_samples + 3) // 4) + 2 * num_samples * (rows - start)
    index = offsets[:, None] + np.arange(2 * num_samples)[None, :]
    words = stream(xp, key, counter, int(index.max()) + 1)[index].reshape(batch, num_samples, 2)
    u = uniform_double(xp, words[..., 0], words[..., 1]) * cdf[:, -1:]
    return xp.sum((cdf[:, None, :] <= u[:, :, None]).astype(np.int64), axis=-1).astype(out_dtype)


def multinomial_cost(num_samples: int, classes: int) -> int:
    """TensorFlow's cost estimate of one row (multinomial_op.cc), in its integer truncation."""
    return int(50 * (num_samples * math.log(classes) / math.log(2) + classes))


def cpu_threads() -> int:
    """TensorFlow's default intra-op thread count: TF_NUM_INTRAOP_THREADS, else the schedulable CPUs."""
    try:
        configured = int(os.environ.get("TF_NUM_INTRAOP_THREADS", "0"))
    except ValueError:
        configured = 0
    if configured > 0:
        return configured
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def shards(n: int, cost: int, threads: int) -> list[tuple[int, int]]:
    """The [start, limit) ranges Eigen's ThreadPoolDevice::parallelFor gives ``n`` units of ``cost`` cycles
    over ``threads`` threads (TensorFlow's Shard): one range when the work is too small to split."""
    startup, per_thread, task = 100000, 100000, 40000  # Eigen's TensorCostModel, in cycles
    wanted = int(min((n * cost - startup) / per_thread + 0.9, 2**31 - 1))
    if n <= 1 or threads == 1 or min(threads, max(1, wanted)) == 1:
        return [(0, n)]
    block = min(n, max(-(-n // (4 * threads)), int(task / cost)))
    max_block = min(n, 2 * block)
    count = -(-n // block)
    best = count / (-(-count // threads) * threads)
    previous = count
    while best < 1.0 and previous > 1:  # coarser blocks while the threads' efficiency does not drop
        coarser = -(-n // (previous - 1))
        if coarser > max_block:
            break
        coarser_count = -(-n // coarser)
        previous = coarser_count
        efficiency = coarser_count / (-(-coarser_count // threads) * threads)
        if efficiency + 0.01 >= best:
            block, count, best = coarser, coarser_count, max(best, efficiency)
    return [(start, min(start + block, n)) for start in range(0, n, block)]


def shuffle_permutation(xp, size: int, key, counter):
    """TensorFlow's RandomShuffle order of ``size`` rows: Fisher-Yates from the front, row i swapped with
    i + word_i % (size - i)."""
    words = stream(xp, key, counter, size - 1)
    targets = xp.arange(size - 1, dtype=np.int64) + (words % xp.arange(size, 1, -1, dtype=np.uint32)).astype(np.int64)
    perm = xp.arange(size, dtype=np.int64)
    if xp is np:
        for i, t in enumerate(targets.tolist()):
            perm[i], perm[t] = perm[t], perm[i]
        return perm
    import jax

    def swap(i, p):
        t = targets[i]
        a, b = p[i], p[t]
        return p.at[i].set(b).at[t].set(a)

    return jax.lax.fori_loop(0, size - 1, swap, perm)
