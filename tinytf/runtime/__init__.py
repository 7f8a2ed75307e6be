"""Layer 5: tensors and the contexts that run ops.

- ``Tensor`` (eager values) and ``SymbolicTensor`` (values of a function being traced) share
  Python operators through ``TensorOps``.
- ``EagerContext`` runs ops now; ``TracingContext`` appends them to a ``func.func``.
- ``executor`` runs a ``func.func`` (traced or parsed) as a flat plan; ``module`` loads MLIR text.

Importing this package makes ``EagerContext`` the bottom of every thread's context stack.
"""
from tinytf.framework import context as _context
from tinytf.runtime.eager import EagerContext
from tinytf.runtime.tensor import Tensor, TensorOps

_context.set_default_context_factory(EagerContext)

__all__ = ["EagerContext", "Tensor", "TensorOps"]
