"""Which function of a module runs: the only public ``func.func``, else ``@main``, else the one
carrying ``tf.entry_function`` (TensorFlow's exports name theirs ``@__inference_f_42``).

    fn = find_entry(module)              # or find_entry(module, "predict")
"""
from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tinytf.errors import InvalidArgumentError, NotFoundError


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
