"""``tt.load_mlir``: MLIR text (TensorFlow's export, or tinytf's own) as a runnable module.

    m = tt.load_mlir("model.mlir")
    logits, = m.run(x, w1, b1)            # a resource argument's array is the variable's value
    m.run(x, entry="predict", backend="graph")

The entry function is the only public ``func.func``, else ``@main``, else the one carrying
``tf.entry_function``. Pass a ``tt.Variable`` for a resource argument to see its updates.
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tinytf.errors import InvalidArgumentError, NotFoundError, UnimplementedError
from tinytf.runtime.executor import Program, check_argument


def _is_public(fn: func.FuncOp) -> bool:
    return fn.sym_visibility is None or fn.sym_visibility.data == "public"


def find_entry(module: ModuleOp, entry: str | None = None) -> func.FuncOp:
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    by_name = {f.sym_name.data: f for f in funcs}
    if entry is not None:
        if entry not in by_name:
            raise NotFoundError(f"no function @{entry} in the module (functions: {', '.join(by_name) or 'none'})")
        return by_name[entry]
    public = [f for f in funcs if _is_public(f)]
    if len(public) == 1:
        return public[0]
    if "main" in by_name:
        return by_name["main"]
    tagged = [f for f in funcs if "tf.entry_function" in f.attributes]
    if len(tagged) == 1:
        return tagged[0]
    if not funcs:
        raise NotFoundError("the module has no functions")
    raise InvalidArgumentError(
        f"cannot choose an entry function among {', '.join('@' + f.sym_name.data for f in public)}: pass entry=")


class LoadedModule:
    """A parsed and verified module; ``run`` executes a function of it."""

    def __init__(self, module: ModuleOp, name: str = "<string>"):
        self.module = module
        self.name = name
        self._program = Program(module)

    @property
    def functions(self) -> list[str]:
        return list(self._program.functions)

    def entry(self, entry: str | None = None) -> func.FuncOp:
        return find_entry(self.module, entry)

    def run(self, *arrays, entry: str | None = None, backend: str = "graph") -> list[np.ndarray]:
        """Run the entry function on ``arrays`` (arg0, arg1, ...); a list of numpy outputs."""
        fn = self.entry(entry)
        fn_name = fn.sym_name.data
        arg_types = list(fn.function_type.inputs.data)
        if len(arrays) != len(arg_types):
            raise InvalidArgumentError(f"@{fn_name} takes {len(arg_types)} arguments, got {len(arrays)}")
        args = [check_argument(a, t, i, fn_name) for i, (a, t) in enumerate(zip(arrays, arg_types))]
        if backend == "graph":
            outs = self._program.run(fn_name, args)
        elif backend == "xla":
            try:
                from tinytf import xla
            except ImportError:
                raise UnimplementedError("the XLA backend (tinytf.xla) is not available") from None
            if not hasattr(xla, "run_module"):
                raise UnimplementedError("the XLA backend does not run modules yet (tinytf.xla.run_module)")
            outs = xla.run_module(self.module, fn_name, args)
        else:
            raise InvalidArgumentError(f"unknown backend '{backend}' (graph or xla)")
        return [np.asarray(o) for o in outs]

    def __str__(self) -> str:
        from tinytf import mlir

        return mlir.print(self.module)


def load_mlir(path_or_text) -> LoadedModule:
    """Parse (a file or text) and verify; ParseError / InvalidArgumentError with file:line:col."""
    from tinytf import mlir

    module = mlir.parse(path_or_text)  # reads a path itself (and names errors after the file)
    mlir.verify(module)
    return LoadedModule(module, str(path_or_text) if "\n" not in str(path_or_text) else "<string>")
