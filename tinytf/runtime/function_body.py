"""``BodyContext``: traces a function nested in the one being traced (a ``tt.cond`` branch, a
``tt.while_loop`` body or condition) into a private function of the same module.

    body = BodyContext("cond_true_1", [], parent=ctx)
    with context.pushed(body):
        y = x * w                       # x: a tensor of the parent, w: a tt.Variable
    body.finish_body([y])               # func.func private @cond_true_1(%arg0: tensor<3xf32>,
                                        #     %arg1: tensor<!tf_type.resource<tensor<3xf32>>>) -> ...
    body.externals                      # [x, w]: what the caller passes for the trailing arguments

The helpers below are what ``tt.cond`` / ``tt.while_loop`` and their gradients share: specs of what
an argument stands for, joining the specs of two branches, which values are differentiable, and
``replay`` / ``pullback``, which run a library function's ops again under a tape (a gradient).
"""
from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr
from xdsl.ir import Region

import tinytf.dtypes as dtypes
from tinytf.autodiff.gradient_arithmetic import zeros_like
from tinytf.autodiff.tape import GradientTape
from tinytf.autodiff.tensor_protocol import is_differentiable, variable_of
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework import context
from tinytf.framework.op import ResourceOp, calls_functions, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.framework.variables import Variable
from tinytf.ops.array import Identity
from tinytf.ops.resource import ReadVariableOp
from tinytf.ops.variable_updates import VariableUpdate
from tinytf.runtime import dispatch
from tinytf.runtime.tracing import SymbolicTensor, TracingContext


class BodyContext(TracingContext):
    """Traces a nested function: the enclosing function's tensors and the variables it uses become
    trailing arguments, and ``externals`` says what each one stands for.

    A variable the body only reads is read once by the enclosing function, before the call, and the
    value is passed in: the body sees the value it would read (nothing writes it meanwhile), the tapes
    see the read, and a gradient replaying the body later uses the value of the forward pass. A
    variable the body assigns (``writes``) is passed as its resource; reads after a write go through
    it (``reads_written``)."""

    def __init__(self, name: str, arg_specs, parent: TracingContext, shared=(), writes=()):
        super().__init__(name, arg_specs, library=parent.library, for_xla=parent.for_xla)
        self.parent = parent
        self.outer = context.current()  # where the parent's ops go, through its tapes
        self.externals: list = []       # per trailing argument: a value of the parent, or a Variable
        self.external_args: list[SymbolicTensor] = []
        self._lifted: dict[int, SymbolicTensor] = {}
        self.writes: set[int] = set(writes)     # ids of the variables the body assigns
        self.snapshots: set[int] = set()        # ids of the variables read before the call
        self.reads_written = False
        for outer in shared:  # another body's captures first, so both take the same arguments
            self.external(outer)

    def execute(self, op_cls, inputs, attrs, result_specs=None):
        handles = [variable_of(x) for x in inputs]
        if op_cls is ReadVariableOp and handles and handles[0] is not None:
            if id(handles[0]) in self.writes:
                self.reads_written = True
            elif isinstance(inputs[0], Variable):
                self.snapshots.add(id(handles[0]))
                return self.lift(self.outer.execute(op_cls, inputs, attrs), op_cls.name, 0)
        else:  # an update or optimizer step, or a resource handed on (to a nested If / While): a write
            resource_op = has_trait(op_cls, ResourceOp)
            self.writes.update(id(v) for v, x in zip(handles, inputs)
                               if v is not None and (resource_op or not isinstance(x, Variable)))
        return super().execute(op_cls, inputs, attrs, result_specs)

    def external(self, outer) -> SymbolicTensor:
        """The argument standing for ``outer`` (a parent value or a Variable), added on first use."""
        key = id(outer) if isinstance(outer, Variable) else id(outer.value)
        found = self._lifted.get(key)
        if found is None:
            if isinstance(outer, Variable):
                found = super().capture(outer)
            else:
                arg = self.block.insert_arg(outer.spec.to_type(), len(self.block.args))
                arg.name_hint = f"arg{len(self.block.args) - 1}"
                found = SymbolicTensor(arg, outer.spec, self)
            self._lifted[key] = found
            self.externals.append(outer)
            self.external_args.append(found)
        return found

    def capture(self, var: Variable) -> SymbolicTensor:
        return self.external(var)

    def lift(self, value: SymbolicTensor, op_name: str, i: int) -> SymbolicTensor:
        return self.external(value if value.graph is self.parent else self.parent.lift(value, op_name, i))

    def finish_body(self, outputs: list) -> list[SymbolicTensor]:
        """Return ``outputs`` and add the private function to the library; the returned values."""
        with context.pushed(self):  # a variable among the outputs is read here
            values = [symbolic(self, out) for out in outputs]
        self.block.add_op(func.ReturnOp(*[v.value for v in values]))
        types = ([a.type for a in self.block.args], [v.value.type for v in values])
        self.library[self.name] = func.FuncOp(self.name, types, Region(self.block), "private")
        return values


def tracing_context() -> TracingContext | None:
    """The function being traced now (below any tapes), or None when running eagerly."""
    for ctx in reversed(context.stack()):
        if hasattr(ctx, "is_eager"):
            return None if ctx.is_eager else ctx
    return None


def symbolic(ctx: TracingContext, value) -> SymbolicTensor:
    """``value`` (a tensor of this or an enclosing function, a Python number, an eager tensor) in ``ctx``."""
    return ctx._operand(dispatch.op_info(Identity), value, 0, None, None)


def local(ctx: TracingContext, x, op_name: str = "tf.While"):
    """What stands for ``x`` in ``ctx``: a variable's resource argument, an enclosing tensor's argument."""
    if isinstance(x, Variable):
        return ctx.capture(x)
    return x if x.graph is ctx else ctx.lift(x, op_name, 0)


def argument_spec(x) -> TensorSpec:
    """The spec of an argument standing for ``x``: a resource knowing its variable, or the tensor's."""
    return TensorSpec((), dtypes.resource, value=x) if isinstance(x, Variable) else x.spec


def variable_spec(x) -> TensorSpec | None:
    """The value spec of the variable ``x`` is or stands for (None for other tensors)."""
    var = variable_of(x)
    return None if var is None else TensorSpec(var.shape, var.dtype)


def zeros_for(x):
    """Zeros shaped like ``x``'s value: a tensor, or the variable a resource stands for."""
    return zeros_like(variable_spec(x) or x)


def differentiable(x) -> bool:
    """A float tensor, or a trainable float variable (or a resource standing for one)."""
    variable = variable_of(x)
    if variable is not None:
        return variable.trainable and variable.dtype.is_differentiable
    return is_differentiable(x)


def join_specs(a: TensorSpec, b: TensorSpec) -> TensorSpec:
    """The most specific spec both fit (dims that differ become unknown)."""
    if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
        return TensorSpec(None, a.dtype)
    return TensorSpec([x if x == y else None for x, y in zip(a.shape, b.shape)], a.dtype)


def structure_of(value):
    """A nested structure with its leaves dropped: two branches must return the same one."""
    if isinstance(value, (list, tuple)):  # a list and a tuple are the same structure (as for tf.nest)
        return "sequence", [structure_of(x) for x in value]
    if isinstance(value, dict):
        return "dict", sorted((k, structure_of(v)) for k, v in value.items())
    return None


def is_stateless(*bodies: BodyContext) -> bool:
    """No op of these bodies touches a variable (TensorFlow's ``is_stateless``; a variable only read
    comes in as a value)."""
    return not any(body.writes or body.reads_written or any(has_trait(op, ResourceOp) for op in body.block.walk())
                   for body in bodies)


# CallsFunctions kind -> rule(ctx, operands, attrs, result specs) -> results, or None for a plain op: how
# replay appends a control-flow op so that its gradient is known (tinytf/runtime/control_flow.py, while_loop.py)
REPLAY_RULES: dict = {}


def is_update(op) -> bool:
    """A variable update (assign, optimizer step; TF1 ref forms too): replaying a body skips it."""
    return isinstance(op, VariableUpdate)


def replay(fn: func.FuncOp, args: list, values: dict | None = None) -> list:
    """Run ``fn``'s ops through the current context (traced into it, recorded by its tapes); its results.
    Variable updates are left out (``is_update``): they happened when the forward pass ran. ``values``,
    when given, is filled with what stands for each of ``fn``'s values."""
    values = {} if values is None else values
    values.update(zip(fn.body.block.args, args))
    ctx = tracing_context()
    for op in fn.body.block.ops:
        if isinstance(op, func.ReturnOp):
            return [values[v] for v in op.operands]
        if is_update(op):
            if op.results:
                values[op.results[0]] = values[op.operands[0]]
            continue
        ins = [values[v] for v in op.operands]
        attrs = op.attr_values()
        trait = calls_functions(op)
        rule = REPLAY_RULES.get(trait.kind) if trait is not None else None
        outs = rule(ctx, ins, attrs, [TensorSpec.from_type(r.type) for r in op.results]) if rule else None
        if outs is None:
            outs = type(op).bind(*ins, **attrs)
            outs = [] if outs is None else outs if isinstance(outs, list) else [outs]
        values.update(zip(op.results, outs))
    raise InvalidArgumentError(f"@{fn.sym_name.data} has no return", "func.func")


REPLAY_SUFFIX = "_replay"


def without_effects(library: dict, name: str) -> str:
    """The name of a copy of library function ``name`` without its variable updates, also in the
    functions it calls: what a gradient replays (the updates happened in the forward pass)."""
    if name.endswith(REPLAY_SUFFIX):
        return name
    copy_name = name + REPLAY_SUFFIX
    if copy_name not in library:
        fn = library[name].clone()
        fn.sym_name = StringAttr(copy_name)
        for op in list(fn.walk()):
            if is_update(op):
                if op.results:  # a TF1 ref update returns its ref: later uses take the ref itself
                    op.results[0].replace_all_uses_with(op.operands[0])
                op.detach()
                op.erase()
                continue
            for key in ("then_branch", "else_branch", "body", "cond", "branches"):
                ref = op.properties.get(key)
                if isinstance(ref, SymbolRefAttr):
                    op.properties[key] = SymbolRefAttr(without_effects(library, ref.root_reference.data))
                elif isinstance(ref, ArrayAttr):
                    op.properties[key] = ArrayAttr([SymbolRefAttr(without_effects(library, r.root_reference.data))
                                                    for r in ref.data])
        library[copy_name] = fn
    return copy_name


def pullback(fn: func.FuncOp, args: list, sources: list, outputs: list, upstream: list, stored=None) -> list:
    """The gradients of ``sources`` (some of ``args``) when ``fn(*args)``'s ``outputs`` get ``upstream``.

    ``stored`` (a ``loop_residuals.Stored``): values of ``fn`` the forward pass kept, which the gradient
    reads instead of recomputing them (and upstream gradients some of them get)."""
    block = tracing_context().block if stored is not None else None
    start = block.last_op if block is not None else None
    values: dict = {}
    with GradientTape(watch_accessed_variables=False) as tape:
        for s in sources:
            tape.watch(s)
        results = replay(fn, args, values)
    replayed = block.last_op if block is not None else None
    targets = [results[j] for j in outputs]
    extra = [] if stored is None else stored.seeds(values)
    grads = tape.gradient(targets + [t for t, _ in extra], sources, output_gradients=list(upstream) + [g for _, g in extra])
    grads = [g if g is not None else zeros_for(s) for g, s in zip(grads, sources)]
    if stored is not None:
        stored.read_instead(block, start, replayed, values, grads)
    return grads


def used(fn: func.FuncOp, index: int) -> bool:
    """Whether ``fn``'s argument ``index`` feeds an op or another result (not only its own passthrough)."""
    return any(not isinstance(use.operation, func.ReturnOp) or use.index != index
               for use in fn.body.block.args[index].uses)


def refuse_stale_reads(op, what: str) -> None:
    """A replayed read of a variable the body assigns would see its value now, not the forward pass's."""
    if op.raw_attrs.get("reads_written"):
        raise UnimplementedError(f"{what}: the gradient through a body that reads a variable it also assigns is "
                                 "not implemented (read it before the call, or compute eagerly)", op.name)
