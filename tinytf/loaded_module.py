"""``tt.load_mlir``: MLIR text (TensorFlow's export, or tinytf's own) as a runnable module.

    m = tt.load_mlir("model.mlir")
    logits, = m.run(x, w1, b1)            # a resource argument's array is the variable's value
    m.run(x, entry="predict", backend="graph")

The entry function is the only public ``func.func``, else ``@main``, else the one carrying
``tf.entry_function``. Pass a ``tt.Variable`` for a resource argument to see its updates.

A function in TensorFlow's executor form (``tf_executor.graph`` of islands, as the GraphDef
importer writes it) runs as its functional form (tf-executor-to-functional-conversion): the graph's
order is a topological order of its data and control edges, so the side effects keep their order.
Region control flow (tf.IfRegion, tf.WhileRegion, tf.CaseRegion) runs as tf.If, tf.While and tf.Case of
outlined functions (``tinytf.passes.region_outlining``, TensorFlow's tf-region-control-flow-to-functional).
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import tinytf.mlir as mlir
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.variables import Variable
from tinytf.passes.executor_to_functional import functional_form
from tinytf.passes.fold_batch_norm import folded
from tinytf.passes.fuse_bias_activation import fused
from tinytf.passes.region_outlining import outlined
from tinytf.runtime.executor import Program, check_argument
from tinytf.runtime.module import find_entry


class LoadedModule:
    """A parsed and verified module; ``run`` executes a function of it."""

    def __init__(self, module: ModuleOp, name: str = "<string>"):
        self.module = module
        self.name = name
        self._unrunnable = None  # TF1 control flow: an error for run(), not for loading
        try:
            self._runnable = functional_form(module)  # (the module itself unless it has tf_executor graphs)
        except UnimplementedError as err:
            self._runnable, self._unrunnable = module, err
        self._runnable = outlined(self._runnable)  # IfRegion / WhileRegion / CaseRegion run as If / While / Case
        self._program = Program(fused(folded(self._runnable)))  # (graph mode runs TF's graph rewrites first)
        self._entries: dict = {}  # entry argument -> (function name, argument types)

    @property
    def functions(self) -> list[str]:
        return list(self._program.functions)

    def entry(self, entry: str | None = None) -> func.FuncOp:
        return find_entry(self.module, entry)

    def run(self, *arrays, entry: str | None = None, backend: str = "graph") -> list[np.ndarray]:
        """Run the entry function on ``arrays`` (arg0, arg1, ...); a list of numpy outputs."""
        found = self._entries.get(entry)
        if found is None:  # (the module is compiled once, like its plans: its entries are looked up once)
            fn = self.entry(entry)
            types = list(fn.function_type.inputs.data)
            found = self._entries[entry] = (fn.sym_name.data, types, [tf_types.is_resource(t) for t in types])
        if self._unrunnable is not None:
            raise self._unrunnable
        fn_name, arg_types, resources = found
        if len(arrays) != len(arg_types):
            raise InvalidArgumentError(f"@{fn_name} takes {len(arg_types)} arguments, got {len(arrays)}")
        # (a Variable for a resource argument is taken as it is: a model's weights, hundreds of them)
        args = [a if r and a.__class__ is Variable else check_argument(a, t, i, fn_name)
                for i, (a, t, r) in enumerate(zip(arrays, arg_types, resources))]
        if backend == "graph":
            outs = self._program.run(fn_name, args)
        elif backend == "xla":
            import tinytf.xla as xla  # JAX loads on first use

            outs = xla.run_module(self._runnable, fn_name, args)
        else:
            raise InvalidArgumentError(f"unknown backend '{backend}' (graph or xla)")
        return [np.asarray(o) for o in outs]

    def __str__(self) -> str:
        return mlir.print(self.module)


def load_mlir(path_or_text) -> LoadedModule:
    """Parse (a file or text) and verify; ParseError / InvalidArgumentError with file:line:col."""
    text, name = mlir.read_text(path_or_text)  # errors are named after the file, or "<string>"
    module = mlir.parse_text(text, name)
    mlir.verify(module)
    return LoadedModule(module, name)
