"""Running a function through XLA: compiled once per shape signature, cached, donating aliased buffers.

    f = XlaFunction(module, "train_step")
    loss, = f(x, y, w_var, b_var)          # numpy outputs; the Variables get their new values (kept
                                           # on the device until read on the host)
    outs, updates = f.call_raw(x, y, w, b) # JAX arrays in and out: {argument index: new value}

    run_module(module, "main", [x, w_var])  # what tt.load_mlir(...).run(backend="xla") and
                                            # tt.function(jit_compile=True) call

A resource argument takes a ``tt.Variable`` (or an array: its value); every other argument an
array. Arguments that alias outputs (``tf.aliasing_output``) and written resources are donated:
a JAX array passed there is consumed by the call, and passing it again raises
InvalidArgumentError. (numpy arguments are copied to the device first, so they stay valid.) A
read-only numpy array that owns its buffer (a ``tt.constant``'s) is copied once more, the second
time it comes, and that device copy is kept while the array lives, as TensorFlow keeps an eager
tensor on its device: a one-device computation's argument that is neither donated nor a resource
then passes it.

``in_shardings`` (which win over the IR's), the IR's own shardings and arguments that come placed
over several devices (a JAX array with a multi-device sharding, a DVariable with its layout: used
where the other two say nothing) make it a sharded computation (tinytf/xla/spmd.py): each call then places its arguments so (numpy arrays are split
over the devices; every process passes the whole value) and checks first that no argument's
buffer was donated before (a multi-device one can crash the process).
"""
from __future__ import annotations

import contextlib
import functools
import re
import weakref

import numpy as np
from xdsl.dialects.builtin import ModuleOp

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.variables import Variable
from tinytf.xla import spmd
from tinytf.xla.arguments import arguments, resolve
from tinytf.xla.compile import Compilation
from tinytf.xla.values import NeedsConstant

_CACHE_LIMIT = 32


def _signature(value) -> tuple:
    if isinstance(value, Variable):
        return (tuple(value.shape), value.dtype.np, spmd.value_sharding(value))
    return (tuple(np.shape(value)), np.dtype(value.dtype) if hasattr(value, "dtype") else None,
            spmd.value_sharding(value))


def _value_key(value) -> tuple:
    array = np.asarray(value.read() if isinstance(value, Variable) else value)
    return (array.dtype.str, array.shape, array.tobytes())


class XlaFunction:
    """``module``'s function ``entry`` (default: as ``tt.load_mlir`` picks it), run through XLA."""

    def __init__(self, module: ModuleOp, entry: str | None = None, donate: bool = True, in_shardings=None):
        self.module, self.fn = resolve(module, entry)
        self.in_shardings = None if in_shardings is None else list(in_shardings)
        self.name = self.fn.sym_name.data
        self.donate = donate
        self.arg_types = list(self.fn.function_type.inputs.data)
        self.resource = [tf_types.is_resource(t) for t in self.arg_types]
        self.compilations: dict[tuple, Compilation] = {}
        self._fast: dict = {}  # (shape, dtype) per argument -> compilation
        self.constant_args: set[int] = set()  # arguments compiled as constants (their values are needed)

    def compilation(self, args) -> Compilation:
        """The compiled computation for these arguments' shapes and dtypes (compiled on first use).

        An argument some op needs the value of (Range's limit, computed from it) is compiled as a
        constant, as TensorFlow does: such computations are cached per value of those arguments."""
        if len(args) != len(self.arg_types):
            raise InvalidArgumentError(f"@{self.name} takes {len(self.arg_types)} arguments, got {len(args)}")
        key = tuple(_signature(a) for a in args)
        if self.constant_args:
            key += tuple(_value_key(args[i]) for i in sorted(self.constant_args))
        comp = self.compilations.get(key)
        if comp is None:
            comp = self._compile(args)
            if len(self.compilations) >= _CACHE_LIMIT:
                self.compilations.pop(next(iter(self.compilations)))
            if self.constant_args:  # the set may have grown while compiling
                key = tuple(_signature(a) for a in args) + tuple(_value_key(args[i]) for i in sorted(self.constant_args))
            self.compilations[key] = comp
        return comp

    def _compile(self, args) -> Compilation:
        shapes, types = [], []
        for i, a in enumerate(args):
            var = isinstance(a, Variable)
            dtype = a.dtype if var else dtypes.as_dtype(np.dtype(a.dtype))
            if not self.resource[i] and tf_types.dtype_of(self.arg_types[i]) is not dtype:
                raise InvalidArgumentError(f"@{self.name} argument {i}: expected "
                                           f"{tf_types.dtype_of(self.arg_types[i]).name}, got {dtype.name}")
            shapes.append(tuple(a.shape) if var else tuple(np.shape(a)))
            types.append(dtype)
        while True:
            kinds = ["resource" if self.resource[i] else "constant" if i in self.constant_args else "parameter"
                     for i in range(len(args))]
            constants = {i: np.asarray(args[i]) for i in self.constant_args}
            checked = arguments(self.fn, shapes, kinds, types, constants)
            found = [spmd.value_sharding(a) for a in args]  # where the IR and in_shardings say nothing
            brought = found if any(s is not None for s in found) else None
            try:
                return Compilation(self.module, self.fn, checked, donate=self.donate, in_shardings=self.in_shardings,
                                   value_shardings=brought)
            except NeedsConstant as err:
                needed = err.entry_arguments(self.fn)
                if needed is None or needed <= self.constant_args:
                    raise
                self.constant_args |= needed

    def _lookup(self, args) -> Compilation:
        """The compilation for ``args`` (arrays or Variables), through the per-signature fast cache."""
        try:  # the hot path: shapes and dtypes seen before, no constant arguments
            key = tuple([(a.shape, a.dtype) if a.__class__ is np.ndarray or a.__class__ is Variable else
                         (a.shape, a.dtype, getattr(a, "sharding", None)) for a in args])
            comp = self._fast.get(key)
        except (AttributeError, TypeError):
            key = comp = None
        if comp is None:
            comp = self.compilation(args)
            if key is not None and not self.constant_args and len(self._fast) < _CACHE_LIMIT:
                self._fast[key] = comp
        return comp

    def _run(self, comp: Compilation, params: list):
        """Run ``comp``: (outputs, {resource argument index: new value}), JAX arrays. (A computation over
        several devices checks first that no buffer was donated before; on one device XLA refuses it.)"""
        try:
            outs = comp(*params)
        except (ValueError, RuntimeError) as err:
            if "deleted or donated" in str(err) or "has been deleted" in str(err):
                comp.check_live(params)  # names the argument
                raise InvalidArgumentError(f"@{self.name}: an argument's buffer was donated to an earlier XLA "
                                           "call and cannot be used again") from None
            raise
        n = comp.n_function_outputs
        return outs[:n], dict(zip(comp.update_indices, outs[n:]))

    def call_raw(self, *args):
        """(outputs, {resource argument index: new value}); JAX arrays, nothing copied back. A
        Variable argument passes its current value (a copy: the variable keeps its own)."""
        comp = self._lookup(args)
        params = [args[i] for i in comp.param_indices]
        for k, p in enumerate(params):
            if isinstance(p, Variable):
                params[k] = p.read()
        return self._run(comp, params)

    def __call__(self, *args) -> list[np.ndarray]:
        """numpy outputs; Variables passed for resource arguments receive their new values (see
        ``call_device``)."""
        return [np.asarray(o) for o in self.call_device(*args)]

    def call_device(self, *args) -> list:
        """The outputs as device arrays (the call may still be running); Variables passed for resource
        arguments receive their new values.

        The variables stay on the device: each passes its device-resident value (donated where the
        function writes it) and takes the updated device array as its value, so nothing is copied
        back to the host until something reads the variable there (``Variable.read`` copies it
        then). When the function writes or donates a variable, the variables are locked exclusively,
        in creation order, for the whole call, so host readers wait for the new value and never see
        a donated buffer; a function that only reads them takes each value as a reader does. A
        read-only numpy argument (a ``tt.constant``'s) passed again passes its kept device copy."""
        comp = self._lookup(args)
        plan = comp.call_plan or _call_plan(comp, self.resource)
        params = [args[i] for i in comp.param_indices]
        if plan.exclusive:
            variables = {a.uid: a for a in args if isinstance(a, Variable)}
            if variables:
                return self._call_locked(comp, plan, args, params, [variables[k] for k in sorted(variables)])
        return self._run_with(comp, plan, params, locked=False)[0]

    def bind(self, args):
        """``call_device`` for later calls like this one, with less work per call, or None where the
        general call is needed. Its argument is the list of arrays that come before the Variables
        of ``args``; the caller makes sure they have the shapes and dtypes of ``args``' arrays (as
        ``tt.function``'s fast path does), and the same Variables follow, of unchanged shapes (as
        Variables declared with a static shape).

        Bound only when that fixes the computation: a one-device, 32-bit call that writes no
        variable, takes no argument as a constant, and whose Variables live on one device."""
        comp = self._lookup(args)
        plan = comp.call_plan or _call_plan(comp, self.resource)
        if self.constant_args or comp.plan is not None or comp.x64 or plan.exclusive:
            return None
        n_arrays = next((i for i, a in enumerate(args) if isinstance(a, Variable)), len(args))
        variables = args[n_arrays:]
        if not all(isinstance(v, Variable) and spmd.value_sharding(v) is None for v in variables):
            return None
        puts = {k: put for k, _, put in plan.variables}  # (none is donated: the call writes no variable)
        from_arrays, from_variables = [], []  # (parameter position, where its value comes from)
        for k, i in enumerate(comp.param_indices):
            if i < n_arrays:
                from_arrays.append((k, i, k in plan.kept))
            elif k in puts:
                from_variables.append((k, args[i], puts[k]))
            else:
                return None  # a Variable passed for an array
        compiled, single, n = comp.compiled, comp.single, comp.n_function_outputs
        n_params = len(comp.param_indices)

        def call(arrays) -> list:
            params = [None] * n_params
            for k, i, keep in from_arrays:
                params[k] = _kept_copy(arrays[i]) if keep else arrays[i]
            for k, var, put in from_variables:
                params[k] = var.device_snapshot(put)
            try:  # (what Compilation.__call__ checks first holds for every call bound here)
                outs = compiled(*params)
            except (ValueError, RuntimeError):
                return self._run(comp, params)[0]  # the general call says what went wrong
            return [outs] if single else outs[:n]

        return call

    def _run_with(self, comp: Compilation, plan, params: list, locked: bool):
        """``_run`` on ``params`` with their Variables' values (device-resident where they pass it:
        ``device_value`` under the caller's exclusive locks, else ``device_snapshot``) and the kept
        device copies of constants."""
        with comp.enabled() if comp.x64 else _NO_CONTEXT:  # (a 64-bit value stays 64-bit on the device)
            for k, on_device, put in plan.variables:
                var = params[k]
                if isinstance(var, Variable):
                    # a donated argument the function does not write gives up a copy, not the variable's value
                    if not on_device:
                        params[k] = var.read()
                    else:
                        params[k] = var.device_value(put) if locked else var.device_snapshot(put)
            for k in plan.kept:
                params[k] = _kept_copy(params[k])
            return self._run(comp, params)

    def _call_locked(self, comp: Compilation, plan, args, params: list, ordered: list) -> list:
        """A call that writes or donates variables: all of them locked exclusively meanwhile."""
        taken = []
        try:
            for var in ordered:  # ascending uid: the global order of the kernel API (no deadlock)
                var.lock.acquire(True)
                taken.append(var)
            outs, updates = self._run_with(comp, plan, params, locked=True)
            for index, value in updates.items():
                var = args[index]
                if isinstance(var, Variable):
                    var.set_device_value(value)
        finally:
            for var in reversed(taken):
                var.lock.release()
        return outs


_NO_CONTEXT = contextlib.nullcontext()


class _CallPlan:
    """Per compilation, what ``XlaFunction.call_device`` does with each parameter: ``variables`` lists
    (position, whether a Variable there passes its device-resident value, how to put it there) for
    the resource parameters, ``kept`` the positions that may pass a kept device copy (neither donated
    nor a resource, on one device), ``exclusive`` whether the call writes or donates a resource."""

    __slots__ = ("variables", "kept", "exclusive")

    def __init__(self, variables: list, kept: tuple, exclusive: bool):
        self.variables, self.kept, self.exclusive = variables, kept, exclusive


def _call_plan(comp: Compilation, resource: list) -> _CallPlan:
    donated, updated = set(comp.donated), set(comp.update_indices)
    variables, kept, exclusive = [], [], False
    for k, i in enumerate(comp.param_indices):
        if i < len(resource) and resource[i]:
            put = _device_put if comp.plan is None else _placer(comp.plan.in_shardings[k])
            variables.append((k, i not in donated or i in updated, put))
            exclusive = exclusive or i in donated or i in updated
        elif i not in donated and comp.plan is None:
            kept.append(k)
    comp.call_plan = _CallPlan(variables, tuple(kept), exclusive)
    return comp.call_plan


# id(read-only numpy array) -> [weak reference to it, its device copy or None until it comes again]
_KEPT: dict[int, list] = {}


def _kept_copy(value):
    """A numpy argument that can never change (read-only and owning its buffer, as a ``tt.constant``'s)
    as a device array: put on the device the second time it is passed and kept while it lives, as
    TensorFlow keeps an eager tensor on its device. Anything else as it is (the call copies it)."""
    if value.__class__ is not np.ndarray or value.flags.writeable or value.base is not None:
        return value
    key = id(value)
    entry = _KEPT.get(key)
    if entry is None or entry[0]() is not value:  # first seen: a tensor passed once is not copied twice
        _KEPT[key] = [weakref.ref(value, functools.partial(_forget, key)), None]
        return value
    if entry[1] is None:
        import jax

        # from a writable copy: JAX may keep a read-only array's own buffer (even with may_alias=False),
        # and the device copy would then keep the array, and so this entry, alive for ever
        entry[1] = jax.device_put(value.copy())
    return entry[1]


def _forget(key: int, ref) -> None:
    """A kept array died: drop its entry (unless a newer array of the same id took it)."""
    entry = _KEPT.get(key)
    if entry is not None and entry[0] is ref:
        del _KEPT[key]


def _device_put(array):
    import jax

    return jax.device_put(array)


def _placer(sharding):
    return lambda array: spmd.place(array, sharding)


_MODULE_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BY_ID: dict = {}
_BY_TEXT: dict = {}  # canonical module text -> XlaFunction, the oldest dropped past _CACHE_LIMIT


def function_for(module: ModuleOp, name: str) -> XlaFunction:
    """The cached XlaFunction of ``module``'s ``@name``."""
    try:
        per_module = _MODULE_CACHE.setdefault(module, {})
    except TypeError:  # not weak-referenceable: cache by identity, kept alive with the module
        per_module = _BY_ID.setdefault(id(module), (module, {}))[1]
    fn = per_module.get(name)
    if fn is None:
        fn = per_module[name] = XlaFunction(module, name)
        # a module printed the same (a function retraced for other variables) shares the compilations
        key = _canonical_text(module, name)
        twin = _BY_TEXT.get(key)
        if twin is None:
            if len(_BY_TEXT) >= _CACHE_LIMIT:
                _BY_TEXT.pop(next(iter(_BY_TEXT)))
            _BY_TEXT[key] = fn
        else:
            fn.compilations, fn._fast = twin.compilations, twin._fast
            fn.constant_args = twin.constant_args
    return fn


def _canonical_text(module: ModuleOp, name: str) -> str:
    """The module's text with the names a retrace renumbers (the function's, the argument names of
    ``tf.entry_function``) made uniform: equal texts compile to the same computation."""
    text = re.sub(rf"@{re.escape(name)}\b", "@__entry__", str(module))
    return re.sub(r'\binputs = "[^"]*"', 'inputs = ""', text)


def run_module(module: ModuleOp, name: str, args: list) -> list[np.ndarray]:
    """Run ``@name`` of ``module`` through XLA on arrays (Variables for resource arguments);
    numpy outputs, Variables updated. Compiled once per shape signature."""
    return function_for(module, name)(*args)


def run_cluster(module: ModuleOp, callee: str, arrays: list) -> list[np.ndarray]:
    """A ``tf_device.cluster_func`` in graph mode: its callee through XLA (aliased args donated)."""
    return function_for(module, callee)(*arrays)
