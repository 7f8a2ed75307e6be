"""``tt.experimental``: ``tt.experimental.dtensor`` (TensorFlow's DTensor API on XLA's SPMD partitioner).
Loaded on first use; importing it imports JAX only when a mesh is made."""
import importlib as _importlib


def __getattr__(name: str):
    if name == "dtensor":
        module = _importlib.import_module("tinytf.experimental.dtensor")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'tinytf.experimental' has no attribute '{name}'")


__all__ = ["dtensor"]
