"""tinytf: a small, readable TensorFlow. The curated public API.

    import tinytf as tt
    x = tt.constant([[1.0, 2.0]]); w = tt.Variable(tt.ones([2, 3]))
    y = tt.nn.relu(x @ w); tt.math.reduce_sum(y)
    f = tt.function(lambda x: tt.nn.relu(x @ w)); f(x); print(f.get_concrete_function(x).mlir())
    tt.load_mlir("model.mlir").run(*arrays)

``tt.math``, ``tt.nn``, ``tt.linalg``, the top-level op aliases and ``tt.raw_ops`` are built from
the op library, so new ops appear here without editing this file. ``import tinytf`` never imports
JAX: ``tt.xla`` is loaded on first use.
"""
import importlib as _importlib

from tinytf import dtypes, errors, optimizers  # noqa: F401
from tinytf import ops as _ops  # noqa: F401  (registers every op)
from tinytf import runtime as _runtime  # noqa: F401  (installs the eager context)
from tinytf.dtypes import (  # noqa: F401
    DType,
    as_dtype,
    bfloat16,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from tinytf.dtypes import bool_ as bool  # noqa: A001, F401  (tt.bool, as tf.bool)
from tinytf.formats import tensor_proto as _tensor_proto  # noqa: F401  (installs the tensor-proto decoder)
from tinytf.framework.custom_op import register_op  # noqa: F401
from tinytf.framework.kernel import check_allocation, set_allocation_limit  # noqa: F401
from tinytf.framework.name_scope import name_scope  # noqa: F401
from tinytf.framework.tensor_shape import TensorShape  # noqa: F401
from tinytf.framework.tensor_spec import TensorSpec  # noqa: F401
from tinytf.framework.variables import Variable  # noqa: F401
from tinytf.function import ConcreteFunction, Function, function  # noqa: F401
from tinytf.loaded_module import LoadedModule, load_mlir  # noqa: F401
from tinytf.runtime import namespaces as _namespaces
from tinytf.runtime.constructors import constant, convert_to_tensor  # noqa: F401
from tinytf.runtime.control_flow import cond, switch_case  # noqa: F401
from tinytf.runtime.tensor import Tensor  # noqa: F401
from tinytf.runtime.tracing import SymbolicTensor  # noqa: F401
from tinytf.runtime.while_loop import while_loop  # noqa: F401

_spaces = _namespaces.build_namespaces()
math = _namespaces.make_namespace("math", _spaces["math"])
nn = _namespaces.make_namespace("nn", _spaces["nn"])
linalg = _namespaces.make_namespace("linalg", _spaces["linalg"])
raw_ops = _namespaces.RawOps()

_CURATED = set(globals())
for _name, _fn in _spaces["top"].items():
    if _name not in _CURATED:  # the curated names above win over op-module functions
        globals()[_name] = _fn

# Loaded on first use: tt.xla imports JAX; the others come from later layers of the project.
_LAZY = {
    "xla": ("tinytf.xla", None),
    "mlir": ("tinytf.mlir", None),
    "gradcheck": ("tinytf.gradcheck", None),
    "passes": ("tinytf.passes", None),
    "train": ("tinytf.train", None),
    "summary": ("tinytf.summary", None),
    "Module": ("tinytf.module", "Module"),
    "saved_model": ("tinytf.saved_model", None),
    "distribute": ("tinytf.distribute", None),
    "experimental": ("tinytf.experimental", None),
    "GradientTape": ("tinytf.autodiff", "GradientTape"),
    "custom_gradient": ("tinytf.autodiff", "custom_gradient"),
}


def _nn_getattr(name: str):  # tt.nn's functions that live above the op library (strategies' loss scaling)
    if name in ("compute_average_loss", "scale_regularization_loss"):
        value = getattr(_importlib.import_module("tinytf.distribute.losses"), name)
        setattr(nn, name, value)
        return value
    raise AttributeError(f"module 'tinytf.nn' has no attribute '{name}'")


nn.__getattr__ = _nn_getattr


def __getattr__(name: str):
    if name in _LAZY:
        module_name, attr = _LAZY[name]
        module = _importlib.import_module(module_name)
        value = module if attr is None else getattr(module, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tinytf' has no attribute '{name}'")


__all__ = sorted(k for k, v in globals().items() if not k.startswith("_") and type(v).__name__ != "module"
                 or k in ("math", "nn", "linalg", "raw_ops", "dtypes", "errors", "optimizers"))
