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

Over several devices: ``in_shardings`` (one per argument: an HLO sharding string, a JAX sharding or
None) and the IR's own (``mhlo.sharding`` argument attributes, ``tf.XlaSharding`` ops on the
arguments, ``tf_device.replicate``) place the parameters; XLA's SPMD partitioner does the rest
(tinytf/xla/spmd.py). The result then reports each parameter's sharding, the collectives of the
partitioned program and the per-device memory:

    result = tt.xla.compile(module, in_shardings=["{devices=[8,1]<=[8]}", None])
    result.argument_shardings    # ['{devices=[8,1]<=[8]}', '{replicated}']
    result.collectives()         # [Collective(kind='all-reduce', bytes=64, ...)]
    result.memory()              # {'argument': ..., 'temp': ..., ...} per device
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops import hlo_sharding
from tinytf.ops.tf_device import ReplicateOp
from tinytf.ops.xla_spmd import XlaSharding
from tinytf.xla import hlo_text, spmd
from tinytf.xla.arguments import Argument, aliasing_outputs, arguments, resolve, written_resources
from tinytf.xla.lowering import Lowering, needs_x64
from tinytf.xla.result import CompilationResult, OutputDescription, ResourceUpdate, XlaShape, XlaTupleShape
from tinytf.xla.values import Resource, is_concrete

# --- compiling -------------------------------------------------------------------------------

class Compilation:
    """One function with fixed argument shapes: traced, lowered and compiled once; callable."""

    def __init__(self, module: ModuleOp, fn: func.FuncOp, args: list[Argument], use_tuple_args: bool = False,
                 return_tuple: bool = True, use_resource_updates_for_aliases: bool = False, donate: bool = True,
                 *, in_shardings=None, out_shardings=None, value_shardings=None):
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
        self.plan = _sharding_plan(module, fn, self.params, in_shardings, out_shardings, value_shardings)

        def entry(*params):
            return self._body(lowering, params)

        entry.__name__ = _identifier(self.name)
        placed = {} if self.plan is None else {"in_shardings": tuple(self.plan.in_shardings)}
        self.jitted = jax.jit(entry, donate_argnums=self.donate_argnums, keep_unused=True, **placed)
        shardings = self.plan.in_shardings if self.plan is not None else [None] * len(self.params)
        avals = [jax.ShapeDtypeStruct(a.shape, a.dtype.np, sharding=s) for a, s in zip(self.params, shardings)]
        with self.enabled(), warnings.catch_warnings(), self.placement():
            warnings.filterwarnings("ignore", message="Some donated buffers were not usable")
            self.lowered = self.jitted.lower(*avals)
            self.compiled = compile_lowered(self.lowered)
        self.n_outputs = len(self.meta["outputs"]) + len(self.meta["updates"])
        self.n_function_outputs = len(self.fn.function_type.outputs.data)
        self.update_indices = [u.input_index for u in self.meta["updates"][self.n_function_outputs -
                                                                            len(self.meta["outputs"]):]]
        self.param_indices = [a.index for a in self.params]
        self.single = self.n_outputs == 1 and not return_tuple
        self._result = None
        self.call_plan = None  # XlaFunction's: what each call does with the Variables and constants

    def enabled(self):
        """A context with 64-bit types on when this computation needs them (the user's setting stays)."""
        import contextlib

        import jax

        return jax.enable_x64(True) if self.x64 else contextlib.nullcontext()

    def placement(self):
        """While lowering: the devices the computation spans (tf.XlaSharding's constraints use them)."""
        import contextlib

        return hlo_sharding.base_devices(self.plan.devices) if self.plan is not None else contextlib.nullcontext()

    def _place_outputs(self, results: list) -> list:
        """Sharding constraints on the outputs: a variable's new value keeps its parameter's placement
        (so the buffer can be reused), an output the IR or the caller places goes there, and across
        processes the others are replicated (each process reads them)."""
        import jax

        plan = self.plan
        position = {a.index: p for p, a in enumerate(self.params)}
        n = len(self.meta["outputs"])
        wanted = [plan.out_shardings[k] if k < len(plan.out_shardings) else None for k in range(n)]
        if plan.multi_process:
            wanted = [plan.replicated() if w is None else w for w in wanted]
        wanted += [plan.in_shardings[position[u.input_index]] for u in self.meta["updates"]]
        out = []
        for value, target in zip(results, wanted):
            out.append(value if target is None else jax.lax.with_sharding_constraint(jax.numpy.asarray(value), target))
        return out

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
            if np.dtype(out.dtype).kind in "OSU":  # a string op folded from constants while compiling
                raise UnimplementedError(f"@{self.name} returns a string tensor (output {k}); XLA has no string type")
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
        if self.plan is not None and not self.use_resource_updates_for_aliases:
            results = self._place_outputs(results)
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
            argument_shardings=self._argument_shardings(),
            output_shardings=self._output_shardings(),
            num_devices=len(self.plan.devices) if self.plan is not None else 1,
        )

    def _argument_shardings(self) -> list[str] | None:
        """Each parameter's sharding as the compiled program has it (HLO text); None on one device."""
        if self.plan is None:
            return None
        found = self.compiled.input_shardings[0]
        return [spmd.describe(s, len(a.shape)) for s, a in zip(found, self.params)]

    def _output_shardings(self) -> list[str] | None:
        if self.plan is None:
            return None
        found = self.compiled.output_shardings
        found = found if isinstance(found, list | tuple) else [found]
        return [spmd.describe(s, len(shape.dims)) for s, shape in zip(found, self.meta["shapes"])]

    def check_live(self, params) -> None:
        """InvalidArgumentError for a parameter whose buffer an earlier call consumed (donated): passing
        one to XLA can crash the process when it spans several devices."""
        for k, p in enumerate(params):
            deleted = getattr(p, "is_deleted", None)
            if deleted is not None and deleted():
                raise InvalidArgumentError(
                    f"@{self.name} argument {self.param_indices[k]}: the buffer was donated to an earlier XLA "
                    "call (an output reused it) and cannot be used again")

    def conform(self, params: list) -> list:
        """The parameters placed as the computation expects (numpy and JAX arrays alike): sharded
        over its devices, or, on one device, a multi-device array brought back to the host."""
        if self.plan is None:
            for k, p in enumerate(params):
                if getattr(getattr(p, "sharding", None), "num_devices", 1) > 1:
                    params[k] = np.asarray(p)
            return params
        return [spmd.place(p, s) for p, s in zip(params, self.plan.in_shardings)]

    def __call__(self, *params):
        """Run on the parameters (numpy or JAX arrays, in parameter order); JAX arrays out: the
        function's outputs, then the written resources' new values."""
        if self.plan is not None:
            self.check_live(params)
            params = self.conform(list(params))
        else:
            one_device = _one_device()
            for p in params:  # a multi-device value (a mirrored variable's) for a one-device computation
                if p.__class__ is not np.ndarray:
                    sharding = getattr(p, "sharding", None)
                    if sharding.__class__ is not one_device and getattr(sharding, "num_devices", 1) > 1:
                        params = self.conform(list(params))
                        break
        if self.x64:
            with self.enabled():
                out = self.compiled(*params)
        else:  # the hot path: no context to enter
            out = self.compiled(*params)
        return [out] if self.single else list(out)


# XLA:CPU (jaxlib 0.10) hands runs of convolutions, pooling and matmuls to YNNPACK as one library
# subgraph by default; on VGG16 that takes 4.5x the CPU time of one library call per convolution and
# per matmul (121 vs 27 ms), and no model measured gains from the larger subgraphs (bench/real_models.py).
CPU_COMPILER_OPTIONS = {"xla_cpu_experimental_ynn_fusion_type":
                        "LIBRARY_FUSION_TYPE_INDIVIDUAL_CONVOLUTION,LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT"}


@functools.cache
def _one_device():
    """JAX's sharding class of a value on one device (imported on first use: tinytf loads JAX late)."""
    from jax.sharding import SingleDeviceSharding

    return SingleDeviceSharding


def compile_lowered(lowered):
    """``lowered.compile()``, with ``CPU_COMPILER_OPTIONS`` on the CPU (where this jaxlib knows them)."""
    import jax

    if jax.default_backend() == "cpu":
        try:
            return lowered.compile(compiler_options=CPU_COMPILER_OPTIONS)
        except jax.errors.JaxRuntimeError as err:
            if not any(name in str(err) for name in CPU_COMPILER_OPTIONS):  # (an older or newer jaxlib)
                raise
    return lowered.compile()


def _sharding_plan(module: ModuleOp, fn: func.FuncOp, params: list[Argument], in_shardings, out_shardings,
                   value_shardings=None):
    """How the parameters are placed (tinytf/xla/spmd.py), or None for a one-device computation:
    ``in_shardings`` (explicit) win over the IR's, which win over ``value_shardings`` (the placements
    the arguments bring). The IR is asked only when it has something to say (a tf.XlaSharding, an
    mhlo.sharding, a replicate)."""
    annotated = any(isinstance(op, XlaSharding | ReplicateOp) for op in module.walk()) or \
        _has_sharding_attrs(fn)
    n_args = len(fn.function_type.inputs.data)
    given = list(in_shardings) if in_shardings is not None else None
    brought = list(value_shardings) if value_shardings is not None else None
    for what, listed in (("in_shardings", given), ("value shardings", brought)):
        if listed is not None and len(listed) != n_args:
            raise InvalidArgumentError(f"@{fn.sym_name.data} has {n_args} arguments, but {len(listed)} {what} "
                                       "were given")
    if not annotated and not any(s is not None for s in (*(given or ()), *(brought or ()), *(out_shardings or ()))):
        return None
    n_in, n_out = len(fn.function_type.inputs.data), len(fn.function_type.outputs.data)
    ir_in, ir_out = [None] * n_in, [None] * n_out
    if annotated:
        from tinytf.passes.sharding_identification import function_shardings

        ir_in, ir_out = function_shardings(fn, module)
    return spmd.ShardingPlan.build(module, fn, [(a.index, a.shape) for a in params], ir_in, ir_out, given,
                                   list(out_shardings) if out_shardings is not None else None, brought)


def _has_sharding_attrs(fn: func.FuncOp) -> bool:
    attrs = [*(fn.arg_attrs.data if fn.arg_attrs is not None else ()),
             *(fn.res_attrs.data if fn.res_attrs is not None else ())]
    return any("mhlo.sharding" in d.data for d in attrs)


def _identifier(name: str) -> str:
    text = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    return text if text and not text[0].isdigit() else f"f_{text}"


def compile(func, input_shapes=None, input_types=None, use_tuple_args: bool = False,  # noqa: A001
            return_tuple: bool = True, *, input_dtypes=None, entry: str | None = None,
            constants: dict | None = None, use_resource_updates_for_aliases: bool = False,
            donate: bool = True, in_shardings=None, out_shardings=None) -> CompilationResult:
    """Compile ``func`` for XLA with static ``input_shapes``; TensorFlow's compile result.

    ``func``: a func.func, a module (``entry`` picks the function; default as ``tt.load_mlir``),
    MLIR text, or a concrete function of ``tt.function``. ``input_shapes``: one entry per argument
    (a tuple of dims, a TensorSpec, an array, or TensorFlow's ``"2,3:4"`` text); ``None`` takes the
    declared static types. ``input_types``: ``"parameter"`` / ``"resource"`` / ``"constant"`` per
    argument. ``input_dtypes``: dtypes where the IR does not say (an untyped resource).
    ``in_shardings`` / ``out_shardings``: a sharding per argument / output (HLO text, OpSharding bytes,
    a JAX sharding, or None: what the IR says, else replicated); one given wins over the IR's.
    """
    module, fn = resolve(func, entry)
    if input_shapes is None and hasattr(func, "input_specs"):  # a concrete function: its traced specs
        specs = list(func.input_specs) + [TensorSpec(v.shape, v.dtype) for v in getattr(func, "captured_variables", [])]
        input_shapes = specs
    args = arguments(fn, input_shapes, input_types, input_dtypes, constants)
    compilation = Compilation(module, fn, args, use_tuple_args, return_tuple, use_resource_updates_for_aliases,
                              donate, in_shardings=in_shardings, out_shardings=out_shardings)
    return compilation.result(use_tuple_args)
