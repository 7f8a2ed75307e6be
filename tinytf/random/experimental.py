"""``tt.random.experimental``: TensorFlow's tf.random.experimental names that tinytf has."""
from __future__ import annotations

from tinytf.random.generator import (  # noqa: F401
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
)
from tinytf.random.stateless import stateless_fold_in, stateless_split  # noqa: F401

__all__ = ["Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator",
           "stateless_fold_in", "stateless_split"]
