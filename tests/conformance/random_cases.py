"""The tt.random cases pinned to TensorFlow 2.21, written once for both libraries.

Each case is ``fn(m, compile) -> list of arrays`` where ``m`` is ``tensorflow`` or ``tinytf`` (their
random APIs share names) and ``compile(py_fn)`` runs ``py_fn`` eagerly, as a graph function or under XLA.
tests/conformance/export_random_fixtures.py records TensorFlow's results (eagerly for the stateless and
the eager cases, with tf.function for the function cases) in tests/fixtures/random/tf_random.npz;
tests/unit/test_random.py checks tinytf's bit for bit in every mode the case's kind allows:

- "stateless": eager, graph and XLA (a function of shape, seed and dtype);
- "eager": eagerly only (stateful ops and their seed rules, call after call);
- "function": graph and XLA (a traced function's stateful ops, run twice).
"""
from __future__ import annotations

import numpy as np

CASES: dict = {}


def case(kind: str):
    def add(fn):
        CASES[fn.__name__] = (kind, fn)
        return fn
    return add


def _np(values):
    return [np.asarray(v.numpy() if hasattr(v, "numpy") else v) for v in values]


# --- stateless: (shape, seed, dtype, distribution) -----------------------------------------------------

@case("stateless")
def uniform_f32(m, compile):
    f = compile(lambda seed: m.random.stateless_uniform([3, 4], seed=seed))
    return _np([f(m.constant([1, 2]))])


@case("stateless")
def uniform_f64_zero_seed(m, compile):
    f = compile(lambda seed: m.random.stateless_uniform([5], seed=seed, dtype=m.float64))
    return _np([f(m.constant([0, 0]))])


@case("stateless")
def uniform_f16_extreme_seed(m, compile):
    f = compile(lambda seed: m.random.stateless_uniform([7], seed=seed, dtype=m.float16))
    return _np([f(m.constant([-1, 2**31 - 1]))])


@case("stateless")
def uniform_bf16(m, compile):
    f = compile(lambda seed: m.random.stateless_uniform([2, 3], seed=seed, dtype=m.bfloat16))
    return _np([f(m.constant([3, 4]))])


@case("stateless")
def uniform_range_f32(m, compile):
    f = compile(lambda seed: m.random.stateless_uniform([6], seed=seed, minval=-2.0, maxval=3.0))
    return _np([f(m.constant([5, 6]))])


@case("stateless")
def uniform_int32(m, compile):
    f = compile(lambda seed: m.random.stateless_uniform([10], seed=seed, minval=-5, maxval=7, dtype=m.int32))
    return _np([f(m.constant([5, 6]))])


@case("stateless")
def uniform_int64_wide(m, compile):
    f = compile(lambda seed: m.random.stateless_uniform([9], seed=seed, minval=-2**40, maxval=2**40 + 3,
                                                        dtype=m.int64))
    return _np([f(m.constant([7, 8], m.int64))])


@case("stateless")
def uniform_full_ints(m, compile):
    fs = [compile(lambda seed, d=d: m.random.stateless_uniform([5], seed=seed, minval=None, maxval=None, dtype=d))
          for d in (m.int32, m.uint32, m.int64, m.uint64)]
    return _np([f(m.constant([1, 2])) for f in fs])


@case("stateless")
def normal_f32_1000(m, compile):
    f = compile(lambda seed: m.random.stateless_normal([1000], seed=seed))
    return _np([f(m.constant([1, 2]))])


@case("stateless")
def normal_f64(m, compile):
    f = compile(lambda seed: m.random.stateless_normal([3, 5], seed=seed, dtype=m.float64))
    return _np([f(m.constant([7, -8]))])


@case("stateless")
def normal_f64_odd_1001(m, compile):
    f = compile(lambda seed: m.random.stateless_normal([1001], seed=seed, dtype=m.float64))
    return _np([f(m.constant([2**40, 3], m.int64))])


@case("stateless")
def normal_f16_bf16(m, compile):
    f = compile(lambda seed: [m.random.stateless_normal([9], seed=seed, dtype=m.float16),
                              m.random.stateless_normal([9], seed=seed, dtype=m.bfloat16)])
    return _np(f(m.constant([11, 12])))


@case("stateless")
def normal_mean_stddev(m, compile):
    f = compile(lambda seed: m.random.stateless_normal([4, 2], seed=seed, mean=2.0, stddev=3.0))
    return _np([f(m.constant([3, 1]))])


@case("stateless")
def truncated_f32_1000(m, compile):
    f = compile(lambda seed: m.random.stateless_truncated_normal([1000], seed=seed))
    return _np([f(m.constant([11, 12]))])


@case("stateless")
def truncated_f64_501(m, compile):
    f = compile(lambda seed: m.random.stateless_truncated_normal([501], seed=seed, dtype=m.float64))
    return _np([f(m.constant([13, 14]))])


@case("stateless")
def truncated_f16_scaled(m, compile):
    f = compile(lambda seed: m.random.stateless_truncated_normal([7], seed=seed, mean=1.0, stddev=0.5,
                                                                 dtype=m.float16))
    return _np([f(m.constant([15, 16]))])


@case("stateless")
def categorical(m, compile):
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [1.0, 1.0, 1.0, 1.0], [-np.inf, 0.5, -np.inf, 0.0]], np.float32)
    f = compile(lambda seed: [m.random.stateless_categorical(m.constant(logits), 20, seed=seed),
                              m.random.stateless_categorical(m.constant(logits.astype(np.float64)), 7, seed=seed,
                                                             dtype=m.int32)])
    return _np(f(m.constant([1, 2])))


@case("stateless")
def categorical_sharded(m, compile):
    # big enough for TensorFlow's kernel to split the rows over its threads (the fixture's meta says how many)
    logits = np.random.default_rng(40).standard_normal((40, 500)).astype(np.float32)
    f = compile(lambda seed: m.random.stateless_categorical(m.constant(logits), 20, seed=seed, dtype=m.int32))
    return _np([f(m.constant([3, 4]))])


@case("stateless")
def split_fold_in(m, compile):
    f = compile(lambda seed: [m.random.experimental.stateless_split(seed, num=3),
                              m.random.experimental.stateless_fold_in(seed, 3)])
    return _np(f(m.constant([1, 2])))


@case("stateless")
def key_counter(m, compile):
    f = compile(lambda a, b: list(m.raw_ops.StatelessRandomGetKeyCounter(seed=a))
                + list(m.raw_ops.StatelessRandomGetKeyCounterAlg(seed=b)))
    return _np(f(m.constant([1, 2]), m.constant([2**40, -3], m.int64)))


@case("stateless")
def raw_v1_ops(m, compile):
    def fn(seed):
        shape = m.constant([2, 3])
        return [m.raw_ops.StatelessRandomUniform(shape=shape, seed=seed, dtype=m.float32),
                m.raw_ops.StatelessRandomNormal(shape=shape, seed=seed, dtype=m.float64),
                m.raw_ops.StatelessTruncatedNormal(shape=shape, seed=seed, dtype=m.float32),
                m.raw_ops.StatelessRandomUniformInt(shape=shape, seed=seed, minval=m.constant(-3, m.int64),
                                                    maxval=m.constant(100, m.int64)),
                m.raw_ops.StatelessRandomUniformFullInt(shape=shape, seed=seed, dtype=m.uint64),
                m.raw_ops.StatelessMultinomial(logits=m.constant([[0.5, 0.1, 0.0]]), num_samples=m.constant(6),
                                               seed=seed)]
    f = compile(fn)
    return _np(f(m.constant([21, 22], m.int64)))


@case("stateless")
def raw_v2_key_counter(m, compile):
    def fn(key, counter):
        shape, alg = m.constant([6]), m.constant(1)
        return [m.raw_ops.StatelessRandomNormalV2(shape=shape, key=key, counter=counter, alg=alg),
                m.raw_ops.StatelessRandomUniformV2(shape=shape, key=key, counter=counter, alg=m.constant(3),
                                                   dtype=m.float64),
                m.raw_ops.StatelessTruncatedNormalV2(shape=shape, key=key, counter=counter, alg=alg),
                m.raw_ops.StatelessRandomUniformIntV2(shape=shape, key=key, counter=counter, alg=alg,
                                                      minval=m.constant(0), maxval=m.constant(10)),
                m.raw_ops.StatelessRandomUniformFullIntV2(shape=shape, key=key, counter=counter, alg=alg,
                                                          dtype=m.uint32)]
    f = compile(fn)
    return _np(f(m.constant([12345], m.uint64), m.constant([7, 2**63 + 99], m.uint64)))


@case("stateless")
def gamma_f32_alphas(m, compile):
    # alpha < 1 (boosted), = 1 (exponential), > 1 (Marsaglia-Tsang)
    f = compile(lambda seed: m.random.stateless_gamma([50, 3], seed=seed, alpha=[0.3, 1.0, 4.5]))
    return _np([f(m.constant([1, 2]))])


@case("stateless")
def gamma_f64_beta_broadcast(m, compile):
    f = compile(lambda seed: m.random.stateless_gamma([20, 2, 2], seed=seed, alpha=np.array([[0.9], [2.5]]),
                                                      beta=np.array([1.5, 0.5]), dtype=m.float64))
    return _np([f(m.constant([7, -3]))])


@case("stateless")
def gamma_f16_small_alpha(m, compile):
    f = compile(lambda seed: m.random.stateless_gamma([9], seed=seed, alpha=0.05, dtype=m.float16))
    return _np([f(m.constant([11, 12]))])


@case("stateless")
def poisson_int32_rates(m, compile):
    # rates below 10 (products of uniforms), above (PTRS rejection, with lgamma), int32 and int64 out
    f = compile(lambda seed: [m.random.stateless_poisson([40, 4], seed=seed, lam=[0.3, 4.0, 25.0, 1500.0]),
                              m.random.stateless_poisson([6], seed=seed, lam=m.constant(12, m.int64),
                                                         dtype=m.int64)])
    return _np(f(m.constant([1, 2])))


@case("stateless")
def poisson_f64_matrix_rates(m, compile):
    f = compile(lambda seed: m.random.stateless_poisson([3, 2, 2], seed=seed, lam=np.array([[2.5, 9.9], [10.0, 77.7]]),
                                                        dtype=m.float64))
    return _np([f(m.constant([-5, 8]))])


@case("stateless")
def binomial_btrs_and_inversion(m, compile):
    # count · p below 10 (inversion, 42 blocks per output) and above (BTRS, 256), p above 1/2 (failures counted)
    f = compile(lambda seed: m.random.stateless_binomial([6, 4], seed=seed, counts=[5.0, 40.0, 100.0, 1000.0],
                                                         probs=[0.3, 0.2, 0.7, 0.95]))
    return _np([f(m.constant([1, 2]))])


@case("stateless")
def binomial_f64_broadcast(m, compile):
    f = compile(lambda seed: m.random.stateless_binomial([3, 2, 2], seed=seed,
                                                         counts=m.constant([[10.0], [80.0]], m.float64),
                                                         probs=m.constant([0.5, 0.9], m.float64),
                                                         output_dtype=m.float64))
    return _np([f(m.constant([3, 4]))])


# --- eager: stateful ops and TensorFlow's seed rules ------------------------------------------------

@case("eager")
def global_seed_sequence(m, compile):
    m.random.set_seed(1234)
    return _np([m.random.normal([3]), m.random.normal([3]), m.random.uniform([4]), m.random.truncated_normal([5]),
                m.random.uniform([3], minval=-1.0, maxval=2.0), m.random.uniform([2, 2], maxval=5.0),
                m.random.uniform([6], minval=0, maxval=10, dtype=m.int32),
                m.random.uniform([3], minval=-7, maxval=2**35, dtype=m.int64)])


@case("eager")
def op_seed_counter(m, compile):
    m.random.set_seed(1234)
    a1, a2 = m.random.uniform([2], seed=1), m.random.uniform([2], seed=1)
    m.random.set_seed(1234)  # restarts the kernel's stream
    a3 = m.random.uniform([2], seed=1)
    return _np([a1, a2, a3])


@case("eager")
def op_seed_only(m, compile):
    m.random.set_seed(None)
    return _np([m.random.normal([4], seed=5, dtype=m.float64), m.random.normal([4], seed=5, dtype=m.float64)])


@case("eager")
def shuffle_and_categorical(m, compile):
    m.random.set_seed(99)
    return _np([m.random.shuffle(m.constant(np.arange(10, dtype=np.int32))),
                m.random.shuffle(m.constant(np.arange(12, dtype=np.float32).reshape(6, 2))),
                m.random.shuffle(m.constant([[1.0, 2.0]])),
                m.random.categorical(m.constant([[0.0, 1.0, 2.0], [2.0, 0.0, -1.0]]), 9),
                m.random.categorical(m.constant([[0.0, 0.5]]), 3, dtype=m.int32, seed=4)])


@case("eager")
def generator_sequence(m, compile):
    g = m.random.Generator.from_seed(1234)
    out = [g.normal([3]), g.normal([2, 2]), g.uniform([4]), g.uniform([3], minval=-3, maxval=9, dtype=m.int32),
           g.uniform([2], minval=None, maxval=None, dtype=m.uint64), g.truncated_normal([5], dtype=m.float64),
           g.uniform_full_int([2], dtype=m.int64), g.state.numpy()]
    a, b = g.split(2)
    return _np(out + [a.normal([2]), b.normal([2]), a.state.numpy(), m.random.Generator.from_seed(-5).normal([3])])


@case("eager")
def generator_from_state(m, compile):
    g = m.random.Generator.from_state([1, 2, 3], alg="philox")
    return _np([g.normal([3]), g.state.numpy(), g.make_seeds(2)])


@case("eager")
def gamma_global_and_op_seeds(m, compile):
    m.random.set_seed(1234)
    return _np([m.random.gamma([3], alpha=[0.5, 2.0]), m.random.gamma([2], alpha=1.5, seed=7),
                m.random.gamma([2], alpha=1.5, seed=7), m.random.gamma([4], alpha=1.0, beta=[2.0], dtype=m.float64)])


@case("eager")
def poisson_global_and_op_seeds(m, compile):
    m.random.set_seed(5)
    return _np([m.random.poisson([3], lam=[0.5, 20.0]), m.random.poisson([2], lam=4.0, seed=9, dtype=m.int64),
                m.random.poisson([2], lam=4.0, seed=9, dtype=m.int64)])


# --- function: stateful ops in a traced function, called twice -------------------------------------

@case("function")
def function_global_seed(m, compile):
    m.random.set_seed(1234)
    f = compile(lambda: [m.random.uniform([2]), m.random.uniform([2]), m.random.normal([3], seed=7)])
    return _np(f() + f())


@case("function")
def function_generator(m, compile):
    g = m.random.Generator.from_seed(77)
    f = compile(lambda: [g.normal([3]), g.uniform([2], dtype=m.float64)])
    return _np(f() + f() + [g.state.numpy()])


@case("function")
def function_gamma(m, compile):
    m.random.set_seed(4321)
    f = compile(lambda: [m.random.gamma([2], alpha=[1.0, 3.0], seed=3), m.random.gamma([3], alpha=0.2)])
    return _np(f() + f())


@case("function")
def function_poisson(m, compile):
    m.random.set_seed(6)
    f = compile(lambda: [m.random.poisson([2, 2], lam=[3.0, 250.0], seed=2, dtype=m.int32)])
    return _np(f() + f())
