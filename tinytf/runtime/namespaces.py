"""The public namespaces built from the op library: ``tt.math``, ``tt.nn``, ``tt.linalg`` and
``tt.raw_ops``, discovered from the op modules and the registry, so a new op appears in them
without editing ``tinytf/__init__.py``.

    tt.math.reduce_sum(x, axis=0); tt.nn.relu(x); tt.linalg.matmul(a, b)
    tt.raw_ops.MatMul(a=a, b=b, transpose_a=False, transpose_b=True)

An op module's public op functions are the names in its ``__all__``, and only those: the other
functions of an op module (parsers, shape helpers, checks) are its own, and a module without
``__all__`` has none (its ops are reached through ``tt.raw_ops``). A module may steer its functions
with ``__namespaces__ = {"fn_name": ("math", "nn")}``, and export one under another name with
``__export_as__ = {"fn_name": "public_name"}`` (where the public name is another op function's).
Classes of names (``tt.image.ResizeMethod``) join a namespace through ``__namespace_classes__``.
"""
from __future__ import annotations

import importlib
import types

from xdsl.irdl import VarOperandDef

from tinytf.errors import InvalidArgumentError
from tinytf.framework.op import REGISTRY, tf_name

# Op module -> the namespaces its public functions go to ("top" = tt.<name>). A module not listed
# is arithmetic (the math family keeps splitting into new files) and goes to tt.math and the top.
DEFAULT_NAMESPACES = ("math", "top")
MODULE_NAMESPACES = {
    "math": ("math", "top"),
    "elementwise": ("math", "top"),
    "reduction": ("math", "top"),
    "comparison": ("math", "top"),
    "linalg": ("linalg", "top"),
    "linalg_decompositions": ("linalg",),
    "linalg_structure": ("linalg",),
    "array": ("top",),
    "sequences": ("top",),
    "shape": ("top",),
    "transpose": ("top",),
    "slicing": ("top",),
    "gather": ("top",),
    "scatter": ("top",),
    "masking": ("top",),
    "joining": ("top",),
    "padding": ("top",),
    "control_flow": ("top",),
    "nn": ("nn",),
    "conv": ("nn",),
    "pooling": ("nn",),
    "softmax": ("nn",),
    "nn_activations": ("nn",),
    "nn_losses": ("nn",),
    "nn_normalization": ("nn",),
}
# Namespaces that are packages of their own (classes and seed state beside the op functions): tt.<name>.
PACKAGES = ("random",)
# The namespaces tinytf/__init__.py makes itself; any other that an op module names (``__namespaces__``,
# MODULE_NAMESPACES) becomes tt.<name> here.
BUILT_IN_INIT = ("math", "nn", "linalg", "top")
# Modules of the ops package that hold no public op functions.
NOT_OP_MODULES = {"base", "type_lists", "resource", "functional", "tf_device", "op_functions", "activation_grads",
                  "operands", "strided_slice_plan"}


def op_modules() -> list:
    """Every module of ``tinytf.ops`` that holds public op functions, imported."""
    import pkgutil

    import tinytf.ops

    out = []
    for info in pkgutil.iter_modules(tinytf.ops.__path__):
        if info.name in NOT_OP_MODULES or info.name.startswith("_") or info.name.endswith("_kernels"):
            continue
        try:
            out.append(importlib.import_module(f"tinytf.ops.{info.name}"))
        except ImportError:
            continue
    return out

# TensorFlow's tf.linalg names (tf.linalg.matmul, tf.linalg.einsum, ...), wherever the op lives: only
# names tinytf has (tests/unit/test_api_coverage.py checks each one exists).
LINALG = {"matmul", "matvec", "einsum", "tensordot", "trace", "diag", "diag_part", "cholesky", "qr", "svd",
          "band_part", "adjoint", "cross", "matrix_transpose", "lu"}
# TensorFlow's tf.math names that live in non-math op modules here (tf.math.softmax, ...).
TF_MATH = {"softmax", "log_softmax", "softplus", "sigmoid", "tanh", "invert_permutation", "top_k", "in_top_k",
           "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min", "segment_sum", "where", "add_n",
           "cumsum", "cumprod", "erf", "erfc"}
# tf.nn also re-exports some tf.math functions.
NN_ALSO = {"sigmoid", "tanh", "softplus", "relu", "bias_add", "softmax", "log_softmax"}
# tf.<name> top-level aliases of tf.nn functions that TensorFlow also exports at the top.
TOP_FROM_NN = {"sigmoid", "tanh"}


def public_functions(module) -> dict:
    """The op functions the module lists in ``__all__`` (none without one)."""
    out = {}
    for name in getattr(module, "__all__", ()):
        value = getattr(module, name)  # an AttributeError here is a wrong __all__: let it surface
        if not callable(value) or isinstance(value, type):
            raise TypeError(f"{module.__name__}.__all__ lists {name!r}, which is not an op function")
        out[name] = value
    return out


def build_namespaces() -> dict[str, dict]:
    """{"math": {...}, "nn": {...}, "linalg": {...}, "top": {...}} of public op functions."""
    spaces = {"math": {}, "nn": {}, "linalg": {}, "top": {}}
    for module in op_modules():
        defaults = MODULE_NAMESPACES.get(module.__name__.rsplit(".", 1)[1], DEFAULT_NAMESPACES)
        overrides = getattr(module, "__namespaces__", {})
        renamed = getattr(module, "__export_as__", {})  # a public name an op function may not take (tt.image.transpose)
        for name, fn in public_functions(module).items():
            targets = set(overrides.get(name, defaults))
            name = renamed.get(name, name)
            if name in LINALG:
                targets.add("linalg")
            if name in TF_MATH:
                targets.add("math")
            if name in NN_ALSO:
                targets.add("nn")
            if name in TOP_FROM_NN:
                targets.add("top")
            for target in targets:
                spaces.setdefault(target, {}).setdefault(name, fn)
        for name, targets in getattr(module, "__namespace_classes__", {}).items():  # tt.image.ResizeMethod
            for target in targets:
                spaces.setdefault(target, {}).setdefault(name, getattr(module, name))
    for name in PACKAGES:
        spaces["top"][name] = importlib.import_module(f"tinytf.{name}")
    for name in sorted(k for k in spaces if "." in k):  # tt.nn.experimental, ...: a namespace inside its parent
        parent, child = name.split(".", 1)
        spaces.setdefault(parent, {}).setdefault(child, make_namespace(name, spaces[name]))
    for name in sorted(set(spaces) - set(BUILT_IN_INIT)):  # tt.image, tt.bitwise, ...: named by the op modules
        if "." not in name:
            spaces["top"].setdefault(name, make_namespace(name, spaces[name]))
    return spaces


def make_namespace(name: str, functions: dict) -> types.ModuleType:
    module = types.ModuleType(f"tinytf.{name}", f"tt.{name}: TensorFlow's tf.{name} functions in tinytf.")
    for key, fn in sorted(functions.items()):
        setattr(module, key, fn)
    module.__all__ = sorted(functions)
    return module


# --- tt.raw_ops ------------------------------------------------------------------------------------

def raw_op(cls):
    """``tt.raw_ops.<Name>(**kwargs)``: operands (TensorFlow's names) then attributes, as keywords."""
    operands = [(tf_name(k), d) for k, d in cls.get_irdl_definition().operands]
    attr_names = list(cls.__tf_attrs__)
    op_name = cls.name.removeprefix("tf.")

    def call(**kwargs):
        kwargs.pop("name", None)
        inputs = []
        for key, definition in operands:
            if key not in kwargs:
                raise InvalidArgumentError(f"raw_ops.{op_name}: missing operand '{key}'", cls.name)
            value = kwargs.pop(key)
            if isinstance(definition, VarOperandDef):
                inputs.extend(value)
            else:
                inputs.append(value)
        unknown = [k for k in kwargs if k not in attr_names]
        if unknown:
            raise InvalidArgumentError(f"raw_ops.{op_name}: unknown argument(s) {', '.join(unknown)}", cls.name)
        return cls.bind(*inputs, **kwargs)

    call.__name__ = op_name
    call.__qualname__ = f"raw_ops.{op_name}"
    call.__doc__ = (f"tf.raw_ops.{op_name}({', '.join([k for k, _ in operands] + attr_names + ['name'])})\n\n"
                    + (cls.__doc__ or ""))
    return call


class RawOps(types.ModuleType):
    """Every registered ``tf.*`` op, generated from the registry on access."""

    def __init__(self):
        super().__init__("tinytf.raw_ops", "tt.raw_ops: every registered op, with TensorFlow's argument names.")
        self._cache = {}

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        cls = REGISTRY.get(f"tf.{name}")
        if cls is None:
            raise AttributeError(f"tt.raw_ops has no op '{name}' (no tf.{name} is registered)")
        fn = self._cache.get(name)
        if fn is None:
            fn = self._cache[name] = raw_op(cls)
        return fn

    def __dir__(self):
        return sorted(k.removeprefix("tf.") for k in REGISTRY if k.startswith("tf."))
