"""``tt.function``: graph mode. Trace a Python function into a ``func.func`` once per input
signature, then run the traced function with the graph executor.

    @tt.function
    def f(x, y):
        return tt.nn.relu(x @ y)

    f(a, b)                                          # traced on the first call, then cached
    cf = f.get_concrete_function(tt.TensorSpec([2, 3]), tt.TensorSpec([3, 4]))
    print(cf.mlir())                                 # func.func @f(%arg0: tensor<2x3xf32> ...)

The cache key is the shapes and dtypes of tensor arguments (``input_signature`` fixes it, with
``None`` dims allowed) plus the values of the other Python arguments. Variables read or updated
inside become trailing resource arguments, bound to the Python variables at each call, as in
TensorFlow's exports. The traced module is optimized as grappler optimizes a tf.function graph
(``optimize``: canonicalize with constant folding, cse, dce); ``cf.mlir()`` prints the result,
which runs as a static plan (tinytf/runtime/static_plan.py). When a tracing context or a tape is
active, calling a ``tt.function`` runs the Python function inline, so its ops are traced or
recorded op by op.
"""
from __future__ import annotations

import functools
import inspect
import itertools
import weakref

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, ModuleOp, i32

import tinytf.dtypes as dtypes
from tinytf.autodiff.structures import flatten, pack_as
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import context
from tinytf.framework.name_scope import name_scope
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.runtime import executor
from tinytf.runtime.eager import EagerContext
from tinytf.runtime.executor import Program
from tinytf.runtime.tensor import DeviceTensor, Tensor, wrap
from tinytf.runtime.tracing import SymbolicTensor, TracingContext

_trace_ids = itertools.count(1)


def _run_cluster(module, callee: str, arrays: list) -> list:
    """Graph mode runs a tf_device.cluster_func's callee through XLA (JAX loads on first use)."""
    import tinytf.xla as xla

    return xla.run_cluster(module, callee, arrays)


executor.cluster_backend = _run_cluster


def _is_tensor_like(x) -> bool:
    return isinstance(x, Tensor | np.ndarray | SymbolicTensor)


def _spec_of(x) -> TensorSpec:
    if isinstance(x, Tensor):
        return TensorSpec(x.shape, x.dtype)
    return TensorSpec(x.shape, dtypes.as_dtype(x.dtype))


# --- concrete functions --------------------------------------------------------------------------

class ConcreteFunction:
    """One traced function: ``module`` (a ModuleOp holding ``function``), ``mlir()``, and a call."""

    def __init__(self, module: ModuleOp, name: str, input_specs, variables, output_structure,
                 jit_compile: bool = False):
        self.module = module
        self.name = name
        self.input_specs = list(input_specs)
        self.captured_variables: list[Variable] = list(variables)
        self.structured_outputs = output_structure
        self.jit_compile = jit_compile
        # The arguments are checked against input_specs before each call, and a resource variable keeps
        # the shape it was traced with unless it was declared with None dims: then the plan may rely on
        # the traced types (shape rules once, at compile time; see tinytf/runtime/static_plan.py). The
        # functions it calls (tt.cond's branches, tt.while_loop's bodies) get values of their declared types.
        self._fixed = all(_declared_static(v) for v in self.captured_variables)
        names = [op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)]
        self._program = Program(module, trusted=names if self._fixed else ())
        self._single_output = not isinstance(output_structure, list | tuple | dict) and output_structure is not None
        self._xla = None  # the XlaFunction that runs it when jit_compile (found on the first call)
        flat = isinstance(output_structure, list | tuple) and not hasattr(output_structure, "_fields") and all(
            o is not None and not isinstance(o, list | tuple | dict) for o in output_structure)
        self._flat_outputs = type(output_structure) if flat else None

    @property
    def function(self):
        return self._program.function(self.name)

    def mlir(self, generic: bool = False) -> str:
        import tinytf.mlir as mlir

        return mlir.print(self.module, generic=generic)

    def __str__(self) -> str:
        return self.mlir()

    def _arrays(self, tensors) -> list:
        if len(tensors) != len(self.input_specs):
            raise InvalidArgumentError(f"{self.name} takes {len(self.input_specs)} tensors, got {len(tensors)}")
        arrays = []
        for i, (t, spec) in enumerate(zip(tensors, self.input_specs)):
            a = t._value if isinstance(t, Tensor) else np.asarray(t, spec.dtype.np if not isinstance(
                t, np.ndarray) else None)
            if a.dtype != spec.dtype.np or not spec.is_compatible_with(a.shape):
                raise InvalidArgumentError(
                    f"{self.name}: argument {i} of shape {list(a.shape)} and dtype {dtypes.as_dtype(a.dtype).name} "
                    f"does not match {spec}")
            arrays.append(a)
        return arrays

    def call_flat(self, tensors) -> list:
        """Run on the flat tensor arguments; a flat list of output Tensors."""
        return self._outputs(self._arrays(tensors))

    def __call__(self, *tensors):
        return pack_as(self.structured_outputs, self.call_flat(flatten(list(tensors))), skip_none=True)

    def call_checked(self, arrays):
        """Run on arrays already known to match the input specs; outputs in their structure."""
        if self.jit_compile:
            tensors = self._outputs(arrays)
        else:
            outs = self._program.run(self.name, arrays + self.captured_variables)
            if self._single_output:
                return wrap(outs[0])
            tensors = [wrap(np.asarray(o)) for o in outs]
        return self._structured(tensors)

    def _structured(self, tensors: list):
        """The flat output Tensors in the outputs' structure."""
        if self._single_output:
            return tensors[0]
        if self._flat_outputs is not None:  # a list or tuple of tensors: no structure to walk
            return self._flat_outputs(tensors)
        return pack_as(self.structured_outputs, tensors, skip_none=True)

    def call_for(self, arrays):
        """``call_checked`` for later calls on arrays of exactly these shapes and dtypes (``tt.function``'s
        fast path keeps it): under XLA, bound to its computation where that is fixed (see
        ``XlaFunction.bind``)."""
        bound = self._xla_function().bind([*arrays, *self.captured_variables]) if (
            self.jit_compile and self._fixed) else None
        if bound is None:
            return self.call_checked
        structured = self._structured
        return lambda arrays: structured([DeviceTensor(o) for o in bound(arrays)])

    def _outputs(self, arrays) -> list:
        """The flat output Tensors of a run on ``arrays``: under XLA they stay on the device until used
        on the host (the call returns while XLA runs, as TensorFlow's and JAX's calls do)."""
        if not self.jit_compile:
            return [wrap(np.asarray(o)) for o in self._program.run(self.name, arrays + self.captured_variables)]
        return [DeviceTensor(o) for o in self._xla_function().call_device(*arrays, *self.captured_variables)]

    def _xla_function(self):
        run = self._xla
        if run is None:
            import tinytf.xla as xla

            run = self._xla = xla.function_for(self.module, self.name)
        return run


def _declared_static(variable) -> bool:
    declared = getattr(variable, "_shape", None)  # Variable(shape=[None, 3]) may change its shape
    return declared is not None and None not in declared


# --- tt.function ---------------------------------------------------------------------------------

class Function:
    """A Python function run in graph mode; see the module docstring."""

    def __init__(self, fn, input_signature=None, jit_compile: bool = False, name: str | None = None):
        self.python_function = fn
        self.input_signature = None if input_signature is None else [
            s if isinstance(s, TensorSpec) else TensorSpec(*s) for s in flatten(list(input_signature))]
        self.jit_compile = bool(jit_compile)
        self.name = name or getattr(fn, "__name__", "function")
        self._signature = inspect.signature(fn) if callable(fn) else None
        self._cache: dict = {}
        self._fast: dict = {}  # ((shape, numpy dtype), ...) of all-tensor calls -> the concrete function's call
        self._bound = weakref.WeakKeyDictionary()
        functools.update_wrapper(self, fn)
        if self.jit_compile:
            try:
                import tinytf.xla as xla
            except ImportError:
                xla = None
            if xla is None or not hasattr(xla, "run_module"):
                raise UnimplementedError("tt.function(jit_compile=True) needs the XLA backend (tinytf.xla), "
                                         "which is not available yet")

    def __get__(self, obj, objtype=None):  # methods: bind self, keep one cache per instance
        if obj is None:
            return self
        try:
            return self._bound[obj]
        except (KeyError, TypeError):
            pass
        bound = Function(self.python_function.__get__(obj, objtype), self.input_signature, False, self.name)
        bound.jit_compile = self.jit_compile
        try:
            self._bound[obj] = bound
        except TypeError:  # an unhashable or non-weakrefable instance: no cache across calls
            pass
        return bound

    def _bind(self, args, kwargs) -> tuple:
        if not kwargs:
            return args
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as err:
            raise InvalidArgumentError(f"{self.name}: {err}") from None
        bound.apply_defaults()
        return bound.args

    def __call__(self, *args, **kwargs):
        if not isinstance(context.current(), EagerContext):
            # Inside another trace, or under a tape: run op by op so the ops are traced / recorded.
            return self.python_function(*args, **kwargs)
        if not kwargs:
            # Fast path: only eager tensors, with shapes and dtypes seen before.
            try:
                key = tuple([(a._value.shape, a._value.dtype) for a in args])
            except AttributeError:
                key = None
            call = self._fast.get(key)
            if call is not None:
                return call([a._value for a in args])
        bound = self._bind(args, kwargs)
        leaves = flatten(list(bound))
        tensors = [x for x in leaves if _is_tensor_like(x)]
        cf = self._concrete_for(bound, leaves)
        out = cf(*tensors)
        if not kwargs and key is not None and len(tensors) == len(args) and len(self._fast) < 64:
            self._fast[key] = cf.call_for([a._value for a in args])  # these exact tensors passed the checks above
        return out

    def _key(self, leaves) -> tuple:
        key = []
        for x in leaves:
            if isinstance(x, TensorSpec) or _is_tensor_like(x):
                spec = x if isinstance(x, TensorSpec) else _spec_of(x)
                key.append(("T", spec.shape, spec.dtype.name))
            elif isinstance(x, Variable):
                key.append(("V", id(x)))
            else:
                try:
                    hash(x)
                    key.append(("P", type(x).__name__, x))
                except TypeError:
                    key.append(("P", type(x).__name__, repr(x)))
        return tuple(key)

    def _concrete_for(self, args, leaves) -> ConcreteFunction:
        if self.input_signature is not None:
            tensors = [x for x in leaves if _is_tensor_like(x)]
            if len(tensors) != len(self.input_signature):
                raise InvalidArgumentError(
                    f"{self.name}: expected {len(self.input_signature)} tensors for the input signature, "
                    f"got {len(tensors)}")
            for i, (t, spec) in enumerate(zip(tensors, self.input_signature)):
                got = _spec_of(t)
                if got.dtype is not spec.dtype or not spec.is_compatible_with(got.shape):
                    raise InvalidArgumentError(f"{self.name}: argument {i} {got} does not match the input "
                                               f"signature {spec}")
            specs = iter(self.input_signature)
            leaves = [next(specs) if _is_tensor_like(x) else x for x in leaves]
        key = self._key(leaves)
        cf = self._cache.get(key)
        if cf is None:
            cf = self._cache[key] = self._trace(args, leaves)
        return cf

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The traced function for these TensorSpecs (or example tensors); traced if needed."""
        if not args and not kwargs and self.input_signature is not None:
            args = tuple(self.input_signature)
        args = self._bind(args, kwargs)
        leaves = flatten(list(args))
        key = self._key(leaves)
        cf = self._cache.get(key)
        if cf is None:
            cf = self._cache[key] = self._trace(args, leaves)
        return cf

    def _trace(self, args, leaves) -> ConcreteFunction:
        specs, names = [], []
        params = list(self._signature.parameters) if self._signature is not None else []
        for x in leaves:
            if isinstance(x, TensorSpec) or _is_tensor_like(x):
                spec = x if isinstance(x, TensorSpec) else _spec_of(x)
                specs.append(spec)
                names.append(spec.name or (params[len(names)] if len(names) < len(params) else f"arg{len(names)}"))
        name = f"__inference_{self.name}_{next(_trace_ids)}"
        ctx = TracingContext(name, specs, names, for_xla=self.jit_compile)
        symbolic = iter(ctx.inputs)
        traced_leaves = [next(symbolic) if isinstance(x, TensorSpec) or _is_tensor_like(x) else x for x in leaves]
        traced_args = pack_as(list(args), traced_leaves)
        with context.pushed(ctx), name_scope(""):  # a trace starts at the top scope, as TensorFlow's FuncGraph does
            result = self.python_function(*traced_args)
            outputs = [o for o in flatten(result) if o is not None]
            fn = ctx.finish(outputs)
        structure = _output_structure(result)
        module = ModuleOp([fn, *ctx.library.values()], attributes={"tf.versions": DictionaryAttr({
            "bad_consumers": ArrayAttr([]), "min_consumer": IntegerAttr(0, i32), "producer": IntegerAttr(2474, i32)})})
        optimize(module)
        return ConcreteFunction(module, name, specs, ctx.captured_variables, structure, self.jit_compile)


_PASS_CONTEXT = []


def optimize(module: ModuleOp) -> None:
    """What grappler does to a ``tf.function`` graph, on the traced module in place: ``canonicalize``
    (with tinytf's constant folding, which never folds ``NoConstantFold`` ops such as ``tf.Identity``
    or resource ops), ``tf-merge-variable-reads`` (a tape keeps the value an op read: a second read),
    ``cse`` (a gradient often repeats a forward product) and ``dce`` (gradients of inputs nobody asked
    for). ``cf.mlir()`` shows the result."""
    from xdsl.transforms.canonicalize import CanonicalizePass
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    import tinytf.mlir as mlir
    import tinytf.passes  # noqa: F401  (hooks constant folding into canonicalize)
    from tinytf.passes.merge_variable_reads import MergeVariableReads

    if not _PASS_CONTEXT:
        _PASS_CONTEXT.append(mlir.context())
    for p in (CanonicalizePass(), MergeVariableReads(), CommonSubexpressionElimination(), DeadCodeElimination()):
        p.apply(_PASS_CONTEXT[0], module)


def _output_structure(result):
    """The result's structure with tensor leaves as placeholders (None leaves stay None)."""
    if isinstance(result, list | tuple):
        items = [_output_structure(x) for x in result]
        return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
    if isinstance(result, dict):
        return {k: _output_structure(v) for k, v in result.items()}
    return result


def function(fn=None, input_signature=None, jit_compile: bool = False, reduce_retracing: bool = False,
             name: str | None = None):
    """``tt.function(fn)`` or ``@tt.function(input_signature=[...])``: graph mode for ``fn``."""
    if fn is None:
        return lambda f: Function(f, input_signature, jit_compile, name)
    return Function(fn, input_signature, jit_compile, name)
