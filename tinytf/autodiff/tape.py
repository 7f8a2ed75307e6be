"""``GradientTape``: a context that wraps the one below it and records what runs through it.

    with tt.GradientTape() as tape:
        tape.watch(x)
        y = x * x                     # AddV2, Mul, ... go through tape.execute, then the eager
    dx = tape.gradient(y, x)          # (or tracing) context below; the tape keeps (op, ins, outs)

The tape is TensorFlow's ``TapeContext``: on ``__enter__`` it pushes itself on the thread's
context stack, forwards every ``execute`` to the context that was on top before it, and records
the op when one of its inputs is watched or was computed from a watched tensor. ``gradient``
walks the record backwards and calls each op class's ``grad(op, *dys)`` rule. The rules are
written with public ops and run through whatever context is on top at that moment, so:

- eagerly they run now; inside ``tt.function`` they are traced into the graph;
- under an outer tape they are recorded by it (higher-order gradients: nest two tapes).

Tensors are identified by ``id``; the tape holds a reference to every tensor it records, so an
id cannot be reused while the tape lives. Variables are watched through their handle: reading a
variable is an execution of ``tf.ReadVariableOp`` whose input is the variable's handle tensor.
"""
from __future__ import annotations

import numpy as np

from tinytf.autodiff.grad_rules import as_tensors, complete_attrs, grad_rule
from tinytf.autodiff.gradient_arithmetic import add_all, constant, ones_like, reduce_to, zeros_like
from tinytf.autodiff.structures import as_tuple, flatten, pack_as
from tinytf.autodiff.tensor_protocol import (
    as_variable,
    handle_of,
    is_differentiable,
    is_tensor,
    read_variable_op,
    static_shape,
)
from tinytf.errors import UnimplementedError
from tinytf.framework import context
from tinytf.framework.op import NotDifferentiable, Op, ResourceOp, has_trait
from tinytf.framework.variables import Variable
from tinytf.ops.op_functions import ops

_UNCONNECTED = ("none", "zero")


class _RecordedOp:
    """What a ``grad`` rule sees as ``op``: the op's class, inputs, outputs and completed attrs.

    ``skip_input_indices``: as TensorFlow's ``op.skip_input_indices``, the indices of the inputs whose
    gradient nobody asked for in this ``gradient`` call (not computed from a source); a rule may
    return None for them instead of computing a gradient that would be thrown away.
    """

    __slots__ = ("op_cls", "raw_inputs", "outputs", "raw_attrs", "_inputs", "_attrs", "skip_input_indices")

    def __init__(self, op_cls, inputs, outputs, attrs):
        self.op_cls = op_cls
        self.raw_inputs = inputs
        self.outputs = outputs
        self.raw_attrs = attrs
        self._inputs = None
        self._attrs = None
        self.skip_input_indices = ()

    @property
    def type(self) -> str:
        return self.op_cls.name

    @property
    def name(self) -> str:
        return self.op_cls.name

    @property
    def inputs(self):
        # Python scalars given to an op (``x * 2.0``) become tensors of their neighbour's dtype
        # only when a rule looks at them.
        if self._inputs is None:
            self._inputs = as_tensors(self.op_cls, self.raw_inputs)
        return self._inputs

    @property
    def attrs(self) -> dict:
        if self._attrs is None:
            self._attrs = complete_attrs(self.op_cls, self.raw_attrs)
        return self._attrs

    def __repr__(self) -> str:
        return f"<recorded {self.op_cls.name}>"


class GradientTape:
    """Records operations for automatic differentiation, as ``tf.GradientTape``.

    ``persistent``: ``gradient`` may be called more than once (else the record is dropped after
    the first call). ``watch_accessed_variables``: trainable variables read under the tape are
    watched automatically.
    """

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._below = None
        self._recording = False
        self._entered = False
        self._used = False
        self._entries: list[_RecordedOp] = []
        self._tracked: dict[int, object] = {}      # id -> tensor: watched or computed from watched
        self._variables: dict[int, object] = {}    # id(handle) -> variable, in watch order

    # --- the context protocol --------------------------------------------------------------

    def __enter__(self):
        if self._entered:
            raise ValueError("GradientTape: this tape is already entered")
        self._below = context.current()
        context.push(self)
        self._entered = True
        self._recording = True
        return self

    def __exit__(self, *exc):
        context.pop(self)
        self._entered = False
        self._recording = False
        self._below = None
        return False

    def execute(self, op_cls, inputs, attrs):
        outputs = self._below.execute(op_cls, inputs, attrs)
        if self._recording:
            tracked = self._tracked
            if self._watch_accessed_variables:
                for x in inputs:
                    if type(x) is Variable and x.trainable and _reads_variables(op_cls):
                        # a variable read: tf.ReadVariableOp(v), or an op given v itself (x @ v)
                        self._watch_variable(x, x)
            for x in inputs:
                if id(x) in tracked:
                    self._record(op_cls, inputs, outputs, attrs)
                    break
        return outputs

    def _record(self, op_cls, inputs, outputs, attrs):
        if _not_differentiable(op_cls):
            return
        outs = as_tuple(outputs)
        if any(o is x for o in outs for x in inputs):
            return  # an output that *is* an input (a forwarded buffer): the gradient passes through
        connected = False
        for o in outs:
            if is_differentiable(o):
                self._tracked[id(o)] = o
                connected = True
        if connected:
            entry = _RecordedOp(op_cls, tuple(inputs), outs, dict(attrs))
            if any(type(x) is Variable for x in inputs) and issubclass(op_cls, Op) \
                    and not has_trait(op_cls, ResourceOp):
                # a variable given to an op as a value: the rule must see this value, not a later one (a
                # read through the contexts: outer tapes see it, so higher orders reach the variable)
                entry._inputs = as_tensors(op_cls, tuple(
                    x.value() if type(x) is Variable else x for x in inputs))
            self._entries.append(entry)

    # --- watching --------------------------------------------------------------------------

    def watch(self, tensor) -> None:
        """Track ``tensor`` (a tensor, a variable, or a nested list of them)."""
        for t in flatten(tensor):
            variable = as_variable(t)
            if variable is not None:
                self._watch_variable(variable, handle_of(variable))
            else:
                if not is_tensor(t):
                    raise ValueError(f"GradientTape.watch: {type(t).__name__} is not a tensor or a variable")
                self._tracked[id(t)] = t

    def _watch_variable(self, variable, handle) -> None:
        self._tracked[id(handle)] = handle
        self._variables.setdefault(id(handle), variable)

    def watched_variables(self) -> tuple:
        return tuple(self._variables.values())

    def stop_recording(self):
        """A context in which operations are not recorded on this tape."""
        return _Paused([self])

    def reset(self) -> None:
        """Forget everything recorded so far (the tape stays entered)."""
        self._entries.clear()
        self._tracked.clear()
        self._variables.clear()
        self._used = False

    # --- gradients -------------------------------------------------------------------------

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """d(sum of ``target``)/d``sources``, in the structure of ``sources``.

        ``target``: a tensor or a list of tensors (their gradients add up). ``output_gradients``:
        the upstream gradient of each target (ones by default). ``unconnected_gradients``:
        ``"none"`` gives None for a source the targets do not depend on, ``"zero"`` gives zeros.
        """
        if unconnected_gradients not in _UNCONNECTED:
            raise ValueError(f"unconnected_gradients must be 'none' or 'zero', got {unconnected_gradients!r}")
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        if self._recording and not self._persistent:
            self._recording = False  # as TensorFlow: the first gradient call ends a non-persistent record
        self._used = True
        result = self._gradient(target, sources, output_gradients, unconnected_gradients)
        if not self._persistent:
            self._entries = []
            self._tracked = {}
        return result

    def _gradient(self, target, sources, output_gradients, unconnected_gradients):
        targets = flatten(target)
        if output_gradients is None:
            seeds = [None] * len(targets)
        else:
            seeds = flatten(output_gradients)
            if len(seeds) != len(targets):
                raise ValueError(f"GradientTape.gradient: {len(targets)} targets but {len(seeds)} output_gradients")
        flat_sources = flatten(sources)
        keys = []
        for s in flat_sources:
            variable = as_variable(s)
            keys.append(handle_of(variable) if variable is not None else s)
        # A persistent tape still recording records its own gradient ops (TensorFlow's way to a
        # second derivative with one tape); the record grows while we walk a snapshot of it.
        grads = backprop(list(self._entries), targets, seeds, keys, self._tracked)
        out = []
        for s, g in zip(flat_sources, grads):
            if g is None and unconnected_gradients == "zero":
                g = zeros_like(s)
            out.append(g)
        return pack_as(sources, out)

    def jacobian(self, target, sources, unconnected_gradients="none"):
        """d``target``/d``sources``: for each source, a tensor of shape target.shape + source.shape."""
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        if self._recording and not self._persistent:
            self._recording = False
        self._used = True
        result = self._jacobian(target, sources, unconnected_gradients)
        if not self._persistent:
            self._entries = []
            self._tracked = {}
        return result


    def _jacobian(self, target, sources, unconnected_gradients):
        """Row by row: one backward pass per element of ``target`` (TensorFlow's loop fallback)."""
        shape = static_shape(target)
        if shape is None or None in shape:
            raise UnimplementedError(f"GradientTape.jacobian needs a target of static shape, got {shape}")
        n = int(np.prod(shape, dtype=np.int64))
        flat_sources = flatten(sources)
        rows = [[] for _ in flat_sources]
        for i in range(n):
            seed = np.zeros(n)
            seed[i] = 1
            grads = self._gradient(target, flat_sources, [constant(seed.reshape(shape), target.dtype)],
                                   unconnected_gradients)
            for r, g in zip(rows, grads):
                r.append(g)
        out = []
        for s, r in zip(flat_sources, rows):
            if any(g is None for g in r):
                out.append(None)
                continue
            stacked = ops.stack(r, axis=0) if n else zeros_like(s)
            out.append(ops.reshape(stacked, list(shape) + list(static_shape(s))))
        return pack_as(sources, out)


def backprop(entries, targets, seeds, sources, tracked):
    """Reverse-mode accumulation over ``entries``; one gradient (or None) per source. A source the tape
    does not track (a variable it did not watch) gets None, as in TensorFlow."""
    source_ids = {id(s) for s in sources if id(s) in tracked}
    # Only ops on a path from a source matter: a forward sweep marks what the sources reach.
    reach = set(source_ids)
    useful = []
    for entry in entries:
        if any(id(x) in reach for x in entry.raw_inputs):
            useful.append(entry)
            for o in entry.outputs:
                reach.add(id(o))
    pending: dict[int, list] = {}
    for t, seed in zip(targets, seeds):
        if id(t) not in reach:
            continue
        pending.setdefault(id(t), []).append(ones_like(t) if seed is None else seed)
    for entry in reversed(useful):
        if not any(id(o) in pending for o in entry.outputs):
            continue
        dys = []
        none_ok = getattr(entry.op_cls, "TAKES_MISSING_GRADIENTS_AS_NONE", False)
        for o in entry.outputs:
            parts = pending.pop(id(o), None) if id(o) not in source_ids else pending.get(id(o))
            if parts is None:
                dys.append(zeros_like(o) if is_differentiable(o) and not none_ok else None)
            else:
                dys.append(add_all(parts))
        rule = grad_rule(entry.op_cls)
        # inputs no source reaches need no gradient: the rule may skip them (set per call: a
        # persistent tape's entries serve gradient calls with different sources)
        entry.skip_input_indices = tuple(i for i, x in enumerate(entry.raw_inputs) if id(x) not in reach)
        dxs = rule(entry, *dys)
        if not isinstance(dxs, (list, tuple)):
            dxs = [dxs]
        if len(dxs) != len(entry.raw_inputs):
            raise ValueError(f"{entry.op_cls.name}: gradient rule returned {len(dxs)} gradients "
                             f"for {len(entry.raw_inputs)} inputs")
        for x, dx in zip(entry.raw_inputs, dxs):
            if dx is None or id(x) not in reach:
                continue
            pending.setdefault(id(x), []).append(reduce_to(dx, x))
    out = []
    for s in sources:
        parts = pending.get(id(s))
        out.append(None if not parts else add_all(parts))
    return out


_NOT_DIFFERENTIABLE: dict[type, bool] = {}


def _not_differentiable(op_cls) -> bool:
    found = _NOT_DIFFERENTIABLE.get(op_cls)
    if found is None:
        found = _NOT_DIFFERENTIABLE[op_cls] = has_trait(op_cls, NotDifferentiable)
    return found


_READS: dict[type, bool] = {}


def _reads_variables(op_cls) -> bool:
    """ReadVariableOp, or an op that reads a Variable operand in its kernel (not an assign)."""
    found = _READS.get(op_cls)
    if found is None:
        found = _READS[op_cls] = op_cls is read_variable_op() or not has_trait(op_cls, ResourceOp)
    return found


class _Paused:
    """Stops recording on the given tapes for a block (``tape.stop_recording()``)."""

    def __init__(self, tapes):
        self._tapes = tapes
        self._saved = None

    def __enter__(self):
        self._saved = [t._recording for t in self._tapes]
        for t in self._tapes:
            t._recording = False
        return self

    def __exit__(self, *exc):
        for t, was in zip(self._tapes, self._saved):
            t._recording = was
        return False


def recording_tapes() -> list[GradientTape]:
    """The tapes on this thread's context stack that are recording now."""
    return [c for c in context.stack() if isinstance(c, GradientTape) and c._recording]


def record_call(entry_cls, inputs: tuple, outputs: tuple, attrs: dict, accessed=()) -> None:
    """Put one call that no tape saw op by op (a custom gradient, a traced tf.If / tf.While) on every
    recording tape tracking one of its inputs; ``accessed``: the variables it reads, watched by tapes
    that watch accessed variables. ``entry_cls.grad(entry, *dys)`` differentiates it."""
    for tape in recording_tapes():
        if tape._watch_accessed_variables:
            for variable in accessed:
                tape._watch_variable(variable, variable)
        if any(id(x) in tape._tracked for x in inputs):
            tape._record(entry_cls, inputs, outputs, attrs)


def would_record(inputs: tuple, accessed=()) -> bool:
    """Whether ``record_call`` with these inputs and accessed variables would put the call on a tape
    (so a gradient may follow: a traced loop then stacks what its gradient needs as it runs)."""
    return any((tape._watch_accessed_variables and any(accessed)) or any(id(x) in tape._tracked for x in inputs)
               for tape in recording_tapes())


def pause_all():
    """A context in which no tape on this thread records (``custom_gradient``'s forward pass)."""
    return _Paused([c for c in context.stack() if isinstance(c, GradientTape)])
