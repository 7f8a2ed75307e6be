"""Layer 7: the XLA backend. TF-dialect functions lowered to JAX and compiled by XLA.

    result = tt.xla.compile(fn, [(), ()])        # TensorFlow's compile result; print(result)
    f = tt.xla.XlaFunction(module, "main"); f(x, w)   # compiled once per shape signature
    tt.xla.run_module(module, "main", [x, var])  # backend="xla" of tt.load_mlir / tt.function
    r = tt.xla.compile(fn, in_shardings=["{devices=[8,1]<=[8]}", None]); r.collectives(); r.memory()

Importing this package imports JAX (``import tinytf`` does not).
"""
from tinytf.xla.compile import Compilation, compile  # noqa: A004
from tinytf.xla.lowering import Lowering
from tinytf.xla.result import CompilationResult, OutputDescription, ResourceUpdate, XlaShape, XlaTupleShape
from tinytf.xla.spmd import Collective, collectives, memory
from tinytf.xla.values import NeedsConstant, Resource
from tinytf.xla.xla_function import XlaFunction, function_for, run_cluster, run_module

__all__ = ["Collective", "Compilation", "CompilationResult", "collectives", "memory", "Lowering", "NeedsConstant", "OutputDescription", "Resource",
           "ResourceUpdate", "XlaFunction", "XlaShape", "XlaTupleShape", "compile", "function_for", "run_cluster",
           "run_module"]
