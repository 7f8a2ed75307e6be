"""What the tape needs to know about tensors, variables and structures, in one place.

The tape is written against an interface, not a class: a tensor has ``shape`` (tuple, ``None``
dims unknown, or ``None`` for unknown rank) and ``dtype`` (a tinytf DType); a ``tt.Variable`` is
its own handle: ``tf.ReadVariableOp`` takes the Variable as its operand, and an op given a
Variable directly (``tt.matmul(x, v)``) reads it in the kernel, so the tape treats that as a read.
Gradient arithmetic uses the public ops, so it runs through whatever context is on top.
"""
from __future__ import annotations

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.framework import op as op_module
from tinytf.framework.variables import Variable

# --- tensors and variables --------------------------------------------------------------------


def is_tensor(x) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, np.ndarray) \
        and isinstance(getattr(x, "dtype", None), dtypes.DType)


def is_differentiable(x) -> bool:
    dtype = getattr(x, "dtype", None)
    return isinstance(dtype, dtypes.DType) and dtype.is_differentiable


def as_variable(x):
    """``x`` when it is a ``tt.Variable``, else None."""
    return x if isinstance(x, Variable) else None


def handle_of(variable):
    """What stands for a variable on the tape: eagerly and when traced, ReadVariableOp's operand is
    the Variable itself (the tracing context turns it into a captured resource argument)."""
    return getattr(variable, "handle", variable)


def variable_of(x):
    """The variable ``x`` is, or stands for (a traced resource value whose spec knows it); else None."""
    if isinstance(x, Variable):
        return x
    spec = getattr(x, "spec", None)
    value = getattr(spec, "value", None)
    return value if isinstance(value, Variable) and spec.dtype is dtypes.resource else None


_READ_VARIABLE = []


def read_variable_op():
    if not _READ_VARIABLE:
        _READ_VARIABLE.append(op_module.REGISTRY.get("tf.ReadVariableOp"))
    return _READ_VARIABLE[0]


def static_shape(x):
    shape = getattr(x, "shape", None)
    if shape is None:
        return None
    try:
        return tuple(None if d is None else int(d) for d in shape)
    except TypeError:
        return None


# --- nested structures ------------------------------------------------------------------------


def flatten(structure) -> list:
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def pack_as(structure, flat: list, skip_none: bool = False):
    """``structure`` with its leaves replaced by ``flat``, in ``flatten`` order (``None`` leaves kept
    when ``skip_none``); lists, tuples, namedtuples and dicts keep their types."""
    it = iter(flat)

    def build(s):
        if isinstance(s, (list, tuple)):
            items = [build(x) for x in s]
            return type(s)(*items) if hasattr(s, "_fields") else type(s)(items)
        if isinstance(s, dict):
            return {k: build(s[k]) for k in sorted(s)}
        return None if skip_none and s is None else next(it)

    return build(structure)


def as_tuple(outputs) -> tuple:
    if outputs is None:
        return ()
    if isinstance(outputs, (list, tuple)):
        return tuple(outputs)
    return (outputs,)


# --- ops, by public name (looked up when first used: the op library loads after this module) --

_FUNCS: dict = {}


def fn(name: str):
    """The public op function ``name`` from whichever module of ``tinytf.ops`` defines it."""
    found = _FUNCS.get(name)
    if found is None:
        import importlib
        import pkgutil

        import tinytf.ops as ops

        for info in pkgutil.iter_modules(ops.__path__):
            module = importlib.import_module(f"tinytf.ops.{info.name}")
            candidate = getattr(module, name, None)
            if callable(candidate) and getattr(candidate, "__module__", None) == module.__name__:
                found = candidate
                break
        if found is None:
            raise NotImplementedError(f"the tape needs the op function '{name}', which tinytf.ops lacks")
        _FUNCS[name] = found
    return found


def constant(value, dtype):
    return fn("constant")(np.asarray(value, dtype=dtypes.as_dtype(dtype).np), dtype=dtype)


def as_tensors(op_cls, raw_inputs) -> tuple:
    """Inputs as tensors, converted as the contexts convert them: arrays keep their dtype; a Python
    value takes the first tensor's dtype for an elementwise op, else a float takes the first
    float tensor's dtype and an int stays int32."""
    if all(is_tensor(x) or type(x) is Variable for x in raw_inputs):
        return tuple(raw_inputs)
    dtypes_seen = [x.dtype for x in raw_inputs if is_tensor(x)]
    hint = dtypes_seen[0] if dtypes_seen else None
    float_hint = next((d for d in dtypes_seen if d.is_floating or d.is_complex), None)
    elementwise = op_module.has_trait(op_cls, op_module.Elementwise)
    out = []
    for x in raw_inputs:
        if is_tensor(x) or type(x) is Variable:
            out.append(x)
        elif isinstance(x, np.ndarray | np.generic):
            out.append(fn("constant")(np.asarray(x), dtype=dtypes.as_dtype(np.asarray(x).dtype)))
        else:
            natural = dtypes.result_type_of_python(x)
            if elementwise and hint is not None:
                dtype = hint
            elif natural.is_floating and float_hint is not None:
                dtype = float_hint
            else:
                dtype = natural
            out.append(fn("constant")(x, dtype=dtype))
    return tuple(out)


def complete_attrs(op_cls, attrs: dict) -> dict:
    try:
        return op_cls.complete_attrs(attrs)
    except Exception:  # a derived attribute the caller left to the context: keep what we have
        specs = getattr(op_cls, "__tf_attrs__", {})
        out = {k: s.default for k, s in specs.items() if s.default is not op_module.REQUIRED}
        out.update(attrs)
        return out


def ones_like(x):
    shape = static_shape(x)
    if shape is not None and None not in shape:
        return constant(np.ones(shape), x.dtype)
    return fn("ones_like")(x)


def zeros_like(x):
    shape = static_shape(x)
    if shape is not None and None not in shape:
        return constant(np.zeros(shape), x.dtype)
    return fn("zeros_like")(x)


def zeros_for(source):
    """Zeros shaped like a source (a tensor or a variable): ``unconnected_gradients="zero"``."""
    shape = static_shape(source)
    if shape is not None and None not in shape:
        return constant(np.zeros(shape), source.dtype)
    return fn("zeros_like")(source)


def add_all(parts: list):
    total = parts[0]
    for p in parts[1:]:
        total = fn("add")(total, p)
    return total


def grad_rule(op_cls):
    rule = getattr(op_cls, "grad", None)
    if rule is not None:
        return rule
    if op_cls is read_variable_op():
        return _read_variable_grad
    raise LookupError(f"No gradient defined for operation '{op_cls.name}'")


def _read_variable_grad(op, dy):  # Given upstream grad dy and y = read(v): dv = dy
    return [dy]


def reduce_to(dx, x):
    """``dx`` summed over the axes along which ``x`` was broadcast, in ``x``'s shape.

    Static shapes decide (tinytf traces with concrete shapes unless an input signature has None
    dims): the leading axes ``x`` lacks, and the axes where ``x`` has size 1. An axis where x's
    size is unknown is taken as not broadcast; the final reshape then reads x's shape at run time.
    """
    if getattr(x, "dtype", None) is dtypes.resource:
        return dx  # a resource handle: ReadVariableOp's rule gives the value-shaped gradient
    xs, gs = static_shape(x), static_shape(dx)
    if xs == gs and (xs is None or None not in xs):
        return dx
    if xs is None or gs is None:
        return dx  # unknown rank: nothing to go on (the rules return x-shaped gradients then)
    if len(gs) < len(xs):  # a rule returned a broadcastable gradient: widen it to x's shape
        return fn("add")(dx, zeros_like(x))
    lead = len(gs) - len(xs)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(xs) if d == 1 and gs[lead + i] != 1]
    if axes:
        dx = fn("reduce_sum")(dx, axis=axes)
    if static_shape(dx) != xs:
        dx = fn("reshape")(dx, list(xs) if None not in xs else fn("shape")(x))
    return dx


def jacobian(tape, target, sources, unconnected_gradients):
    """Row by row: one backward pass per element of ``target`` (TensorFlow's loop fallback)."""
    shape = static_shape(target)
    if shape is None or None in shape:
        raise NotImplementedError("GradientTape.jacobian needs a target of static shape")
    n = int(np.prod(shape, dtype=np.int64))
    flat_sources = flatten(sources)
    rows = [[] for _ in flat_sources]
    for i in range(n):
        seed = np.zeros(n)
        seed[i] = 1
        grads = tape._gradient(target, flat_sources, [constant(seed.reshape(shape), target.dtype)],
                               unconnected_gradients)
        for r, g in zip(rows, grads):
            r.append(g)
    out = []
    for s, r in zip(flat_sources, rows):
        if any(g is None for g in r):
            out.append(None)
            continue
        sshape = static_shape(s)
        stacked = fn("stack")(r, axis=0) if n else zeros_for(s)
        out.append(fn("reshape")(stacked, list(shape) + list(sshape)))
    return pack_as(sources, out)
