"""``tt.random``: TensorFlow's random numbers, bit for bit (Philox4x32-10, TensorFlow's seeds and transforms).

    tt.random.stateless_normal([2, 3], seed=[1, 2])      # a function of shape, seed and dtype
    tt.random.set_seed(1234); tt.random.uniform([4])      # stateful: new values per call, TensorFlow's
    g = tt.random.Generator.from_seed(7); g.normal([3])   # state in a variable (works under XLA)

The same bits eagerly, in ``tt.function`` graphs and under XLA. The ops are in tinytf/ops/random*.py.
"""
from tinytf.random import experimental  # noqa: F401
from tinytf.random.generator import (  # noqa: F401
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)
from tinytf.random.seed import get_seed, set_seed  # noqa: F401
from tinytf.random.stateful import (  # noqa: F401
    categorical,
    gamma,
    normal,
    poisson,
    shuffle,
    truncated_normal,
    uniform,
)
from tinytf.random.stateless import (  # noqa: F401
    stateless_binomial,
    stateless_categorical,
    stateless_gamma,
    stateless_normal,
    stateless_poisson,
    stateless_truncated_normal,
    stateless_uniform,
)
from tinytf.random.stateless import stateless_fold_in as fold_in  # noqa: F401
from tinytf.random.stateless import stateless_split as split  # noqa: F401

__all__ = ["Algorithm", "Generator", "categorical", "create_rng_state", "experimental", "fold_in", "gamma",
           "get_global_generator", "get_seed", "normal", "poisson", "set_global_generator", "set_seed", "shuffle", "split",
           "stateless_binomial", "stateless_categorical", "stateless_gamma", "stateless_normal", "stateless_poisson",
           "stateless_truncated_normal", "stateless_uniform",
           "truncated_normal", "uniform"]
