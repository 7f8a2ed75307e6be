"""``tt.xla.compile``: a TF-dialect function compiled by XLA (through ``jax.jit``), with TensorFlow's
compile result.

    result = tt.xla.compile(module, [(2,), (2,)], ["parameter", "resource"], entry="main")
    print(result)             // InputMapping {0, 1} ... // ResourceUpdate input_index=1 type=float shape=(2) modified
    result.compiled.memory_analysis().alias_size_in_bytes

Arguments are XLA parameters; a ``"resource"`` argument's parameter holds its variable's value,
and a variable the function writes becomes an extra output (a resource update, after the
function's own outputs) aliased to that parameter; a ``"constant"`` argument (its value given in
``constants``) is folded in and is not a parameter (so it is missing from InputMapping).
Arguments carrying ``tf.aliasing_output`` and written resources are donated: XLA may write the
output into the argument's buffer (``input_output_alias`` in the HLO header).
"""
from __future__ import annotations

import warnings

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import tinytf.dtypes as dtypes
from tinytf.errors import UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.xla import hlo_text
from tinytf.xla.arguments import Argument, aliasing_outputs, arguments, resolve, written_resources
from tinytf.xla.lowering import Lowering, needs_x64
from tinytf.xla.result import CompilationResult, OutputDescription, ResourceUpdate, XlaShape, XlaTupleShape
from tinytf.xla.values import Resource, is_concrete

# --- compiling -------------------------------------------------------------------------------

class Compilation:
    """One function with fixed argument shapes: traced, lowered and compiled once; callable."""

    def __init__(self, module: ModuleOp, fn: func.FuncOp, args: list[Argument], use_tuple_args: bool = False,
                 return_tuple: bool = True, use_resource_updates_for_aliases: bool = False, donate: bool = True):
        import jax

        self.module, self.fn, self.args = module, fn, args
        self.name = fn.sym_name.data
        self.params = [a for a in args if a.kind != "constant"]
        self.aliases = aliasing_outputs(fn)
        self.written = written_resources(module, self.name)
        donated = [a.index for a in self.params if a.index in self.aliases or
                   (a.kind == "resource" and a.index in self.written)] if donate else []
        self.donated = donated
        positions = {a.index: p for p, a in enumerate(self.params)}
        self.donate_argnums = tuple(positions[i] for i in donated)
        self.x64 = needs_x64(module, [a.dtype for a in args])
        self.return_tuple = return_tuple
        self.use_resource_updates_for_aliases = use_resource_updates_for_aliases
        self.meta: dict = {}
        lowering = Lowering(module)

        def entry(*params):
            return self._body(lowering, params)

        entry.__name__ = _identifier(self.name)
        self.jitted = jax.jit(entry, donate_argnums=self.donate_argnums, keep_unused=True)
        avals = [jax.ShapeDtypeStruct(a.shape, a.dtype.np) for a in self.params]
        with self.enabled(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
            self.lowered = self.jitted.lower(*avals)
            self.compiled = self.lowered.compile()
        self.n_outputs = len(self.meta["outputs"]) + len(self.meta["updates"])
        self.n_function_outputs = len(self.fn.function_type.outputs.data)
        self.update_indices = [u.input_index for u in self.meta["updates"][self.n_function_outputs -
                                                                            len(self.meta["outputs"]):]]
        self.param_indices = [a.index for a in self.params]
        self.single = self.n_outputs == 1 and not return_tuple
        self._result = None
        self.variable_plan = None  # XlaFunction's: which parameters pass a Variable's device value

    def enabled(self):
        """A context with 64-bit types on when this computation needs them (the user's setting stays)."""
        import contextlib

        import jax

        return jax.enable_x64(True) if self.x64 else contextlib.nullcontext()

    def _body(self, lowering: Lowering, params) -> tuple:
        values, resources, param_of = [], {}, {}
        it = iter(params)
        for a in self.args:
            if a.kind == "constant":
                values.append(a.value)
                continue
            p = next(it)
            if a.kind == "resource":
                resources[a.index] = Resource(p, a.dtype, f"arg{a.index}")
                values.append(resources[a.index])
            else:
                param_of[id(p)] = a.index
                values.append(p)
        outs = lowering.call(self.name, values)
        declared = list(self.fn.function_type.outputs.data)
        results, descriptions, updates = [], [], []
        for k, out in enumerate(outs):
            if isinstance(out, Resource):
                raise UnimplementedError(f"@{self.name} returns a resource handle (output {k}); XLA computations "
                                         "return tensors")
            want = tf_types.dtype_of(declared[k]) if k < len(declared) else None
            if want is not None and want.kind != "o" and out.dtype != want.np:
                out = lowering.cast(out, want.np)
            dtype, shape = dtypes.as_dtype(out.dtype), tuple(int(d) for d in np.shape(out))
            aliased = [i for i, o in self.aliases.items() if o == k]
            if aliased and self.use_resource_updates_for_aliases:
                updates.append(ResourceUpdate(aliased[0], dtype, shape, True))
                descriptions.append(None)
            else:
                index = param_of.get(id(out), aliased[0] if aliased else -1)
                descriptions.append(OutputDescription(dtype, shape, index, is_concrete(out)))
            results.append(out)
        for index, r in resources.items():
            if r.modified or index in self.written:
                if r.value is None:
                    continue
                updates.append(ResourceUpdate(index, r.dtype, tuple(int(d) for d in r.value.shape), True))
                results.append(r.value)
        self.meta["outputs"] = [d for d in descriptions if d is not None]
        self.meta["updates"] = updates
        self.meta["shapes"] = [XlaShape(dtypes.as_dtype(v.dtype), tuple(int(d) for d in np.shape(v)))
                               for v in results]
        if len(results) == 1 and not self.return_tuple:
            return results[0]
        return tuple(results)

    def result(self, use_tuple_args: bool = False) -> CompilationResult:
        text = self.lowered.as_text(dialect="hlo")
        if self.return_tuple:
            text = hlo_text.tuple_result(text)
        if use_tuple_args:
            text = hlo_text.tuple_parameters(text)
        shapes = [a.xla_shape for a in self.params]
        return CompilationResult(
            hlo_module_text=text,
            input_mapping=[a.index for a in self.params],
            xla_input_shapes=[XlaTupleShape(tuple(shapes))] if use_tuple_args else shapes,
            xla_output_shape=XlaTupleShape(tuple(self.meta["shapes"])),
            outputs=list(self.meta["outputs"]),
            resource_updates=list(self.meta["updates"]),
            donated=list(self.donated),
            lowered=self.lowered,
            compiled=self.compiled,
            x64=self.x64,
        )

    def __call__(self, *params):
        """Run on the parameters (numpy or JAX arrays, in parameter order); JAX arrays out: the
        function's outputs, then the written resources' new values."""
        if self.x64:
            with self.enabled():
                out = self.compiled(*params)
        else:  # the hot path: no context to enter
            out = self.compiled(*params)
        return [out] if self.single else list(out)


def _identifier(name: str) -> str:
    text = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    return text if text and not text[0].isdigit() else f"f_{text}"


def compile(func, input_shapes=None, input_types=None, use_tuple_args: bool = False,  # noqa: A001
            return_tuple: bool = True, *, input_dtypes=None, entry: str | None = None,
            constants: dict | None = None, use_resource_updates_for_aliases: bool = False,
            donate: bool = True) -> CompilationResult:
    """Compile ``func`` for XLA with static ``input_shapes``; TensorFlow's compile result.

    ``func``: a func.func, a module (``entry`` picks the function; default as ``tt.load_mlir``),
    MLIR text, or a concrete function of ``tt.function``. ``input_shapes``: one entry per argument
    (a tuple of dims, a TensorSpec, an array, or TensorFlow's ``"2,3:4"`` text); ``None`` takes the
    declared static types. ``input_types``: ``"parameter"`` / ``"resource"`` / ``"constant"`` per
    argument. ``input_dtypes``: dtypes where the IR does not say (an untyped resource).
    """
    module, fn = resolve(func, entry)
    if input_shapes is None and hasattr(func, "input_specs"):  # a concrete function: its traced specs
        specs = list(func.input_specs) + [TensorSpec(v.shape, v.dtype) for v in getattr(func, "captured_variables", [])]
        input_shapes = specs
    args = arguments(fn, input_shapes, input_types, input_dtypes, constants)
    compilation = Compilation(module, fn, args, use_tuple_args, return_tuple, use_resource_updates_for_aliases,
                              donate)
    return compilation.result(use_tuple_args)
