"""A TF-dialect function as JAX operations: what ``jax.jit`` traces to build the XLA computation.

    lowering = Lowering(module)
    def body(x, w):                          # traced by jax.jit: x, w are tracers
        return lowering.call("main", [x, w])

Values are numpy arrays when known at compile time (constants and what is computed from them
alone, folded with the op's numpy ``compute``) and JAX values otherwise (``cls.lower`` if the op
has one, else ``cls.compute(jax.numpy, ...)``). Keeping compile-time values in numpy gives ops
such as Reshape, Sum or Pad the static shapes and axes XLA needs. Every op's shape rule runs
first: it checks the operands (TensorFlow's error messages) and names the result dtypes, which
the JAX result is cast to (``compute`` written for numpy may promote).

- Ops that call functions of the module (their ``CallsFunctions`` trait) by kind: calls
  (``tf.PartitionedCall``, ``tf_device.cluster_func``, ...) are inlined by lowering the callee;
  ``tf.If`` / ``tf.Case`` become ``jax.lax.cond`` / ``switch`` (or pick the branch when the
  predicate is known), ``tf.While`` becomes ``jax.lax.while_loop``. ``tf_device.cluster`` / ``launch``
  regions are lowered in place.
- A resource (variable) is a ``Resource`` holding its current value: ``tf.ReadVariableOp``'s compute
  reads it like any variable; a ``VariableUpdate`` op (assigns, optimizer steps) has its ``update``
  rule applied and the resource marked modified. Ops on TF1 reference variables are refused, as by
  TensorFlow's XLA bridge.
- An op that needs a run-time value at compile time (Range's limit) raises ``NeedsConstant``;
  ``XlaFunction`` then compiles the arguments it comes from as constants, as TensorFlow does.
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.traits import IsTerminator

import tinytf.dtypes as dtypes
from tinytf.errors import InternalError, InvalidArgumentError, NotFoundError, OpError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.op import NoConstantFold, Op, ResourceOp, calls_functions, has_trait
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.ops.variable_updates import VariableUpdate, VariableValues
from tinytf.runtime import dispatch
from tinytf.xla.control_flow import ControlFlowLowering
from tinytf.xla.values import WIDE, NeedsConstant, Resource, functions, is_concrete, located, where
from tinytf.xla.values import op_name as op_name

_MAX_CALL_DEPTH = 64

# Region ops (not tf.* op classes) that lower by a rule of their own, by op class:
# rule(lowering, op, values) -> results. tinytf/xla/spmd.py adds tf_device.replicate's.
REGION_RULES: dict = {}


def needs_x64(module: ModuleOp, extra=()) -> bool:
    """Whether any value of the module (or an ``extra`` dtype) is 64 bits wide."""
    if any(dtypes.as_dtype(d) in WIDE for d in extra):
        return True
    for op in module.walk():
        types = [r.type for r in op.results]
        if isinstance(op, func.FuncOp):
            types += list(op.function_type.inputs.data)
        for t in types:
            try:
                if tf_types.dtype_of(t) in WIDE:
                    return True
            except OpError:
                continue
    return False


class Lowering(ControlFlowLowering):
    """Lowers the functions of ``module`` on values (numpy arrays, JAX values, ``Resource``s)."""

    def __init__(self, module: ModuleOp):
        import jax
        import jax.numpy as jnp

        self.jax, self.jnp = jax, jnp
        self.module = module
        self.table = functions(module)
        self.depth = 0
        self.scopes: list[dict] = []  # the values of the blocks being lowered, innermost last (``lookup``)

    # --- functions and blocks -------------------------------------------------------------------

    def function(self, name: str) -> func.FuncOp:
        fn = self.table.get(name)
        if fn is None:
            raise NotFoundError(f"function @{name} is not defined in the module")
        if not fn.body.blocks:
            raise InvalidArgumentError(f"function @{name} has no body")
        return fn

    def call(self, name: str, args: list) -> list:
        fn = self.function(name)
        block = fn.body.blocks[0]
        if len(args) != len(block.args):
            raise InvalidArgumentError(f"@{name} takes {len(block.args)} arguments, got {len(args)}")
        self.depth += 1
        try:
            if self.depth > _MAX_CALL_DEPTH:
                raise UnimplementedError(f"@{name}: calls nested deeper than {_MAX_CALL_DEPTH} (recursion?) "
                                         "cannot be inlined for XLA")
            return self.run_block(block, args)
        finally:
            self.depth -= 1

    def run_block(self, block: Block, args: list, outer: dict | None = None) -> list:
        """``block``'s ops on ``args`` (its arguments) and ``outer`` (values it uses from enclosing
        regions); the values its terminator returns."""
        env = dict(outer) if outer else {}
        env.update(zip(block.args, args))
        self.scopes.append(env)
        try:
            return self._run_ops(block, env)
        finally:
            self.scopes.pop()

    def lookup(self, value):
        """The lowered value of an SSA value of a block being lowered (KeyError when not yet known)."""
        for env in reversed(self.scopes):
            if value in env:
                return env[value]
        raise KeyError(value)

    def _run_ops(self, block: Block, env: dict) -> list:
        for op in block.ops:
            name = op_name(op)
            if has_trait(op, IsTerminator):
                return [env[v] for v in op.operands]
            try:
                values = [env[v] for v in op.operands]
            except KeyError:
                raise InvalidArgumentError(f"{where(op)}'{name}' op uses a value defined after it or in "
                                           "another region", name) from None
            outs = self.lower_op(op, name, values)
            if len(outs) != len(op.results):
                raise InvalidArgumentError(f"{where(op)}{name}: lowering gave {len(outs)} results, the IR "
                                           f"declares {len(op.results)}", name)
            env.update(zip(op.results, outs))
        raise InvalidArgumentError("a block without a return cannot be lowered")

    # --- one op ---------------------------------------------------------------------------------

    def lower_op(self, op: Operation, name: str, values: list) -> list:
        rule = REGION_RULES.get(type(op))
        if rule is not None:
            return rule(self, op, values)
        trait = calls_functions(op)
        if trait is not None:
            return self.lower_call(op, trait, values)
        if not isinstance(op, Op):
            if len(op.regions) == 1 and not op.operands:  # tf_device.cluster / launch: the region in place
                return self.run_block(op.regions[0].blocks[0], [])
            raise UnimplementedError(f"{where(op)}'{name}' op is not implemented (unknown op)", name)
        if any(tf_types.is_ref(v.type) for v in (*op.operands, *op.results)):
            raise UnimplementedError(f"{where(op)}{name}: reference variables (TF1) cannot be compiled for XLA, "
                                     "as in TensorFlow; use resource variables", name)
        try:
            if isinstance(op, VariableUpdate):
                self.apply_update(type(op), values, op.attr_values())
                return []
            return self.lower_plain(type(op), values, op.attr_values())
        except NeedsConstant as err:
            found = located(err, where(op))
            found.ssa_values = [op.operands[i] for i in err.operand_indices]
            raise found from None
        except OpError as err:
            raise located(err, where(op)) from err.__cause__

    def lower_call(self, op: Operation, trait, values: list) -> list:
        """An op that calls functions of the module, by its kind: calls are inlined, If / Case become
        conditionals, While a loop."""
        if trait.kind in ("call", "cluster"):
            return self.call(trait.callees(op)[0], values)
        if trait.kind == "if":
            return self.lower_if(op, trait.callees(op), values)
        if trait.kind == "case":
            return self.lower_case(op, trait.callees(op), values)
        return self.lower_while(op, trait.callees(op), values)

    def lower_plain(self, cls, values: list, attrs: dict) -> list:
        """One op on values: folded with numpy when every operand is known (and the op may be folded),
        else lowered to JAX."""
        info = dispatch.op_info(cls)
        foldable = not has_trait(cls, NoConstantFold) and not has_trait(cls, ResourceOp)
        if foldable and all(is_concrete(v) for v in values):
            values = [np.asarray(v) for v in values]
            if info.compute is not None:
                return dispatch.run_kernel(info, values, attrs)
        specs = [_spec(v) for v in values]
        inferred = info.infer(*specs, **attrs) if info.infer is not None else None
        # An operand's own spec handed back is not a fold: its value is that operand's, not the result's.
        fresh = not any(inferred is spec for spec in specs)
        if foldable and isinstance(inferred, TensorSpec) and inferred.value is not None and fresh:
            return [np.asarray(inferred.value, inferred.dtype.np)]  # known from shapes (tf.Shape): a constant
        lower = getattr(cls, "lower", None)
        try:
            if lower is not None:
                out = lower(*values, **attrs)
            elif info.compute is not None:
                out = info.compute(self.jnp, *values, **attrs)
            else:
                raise UnimplementedError(f"{cls.name} has neither a compute nor a lower rule: it cannot run "
                                         "under XLA", cls.name)
        except OpError:
            raise
        except Exception as err:  # JAX rejected what the shape rule accepted: say which op
            errors = self.jax.errors
            if isinstance(err, errors.ConcretizationTypeError | errors.TracerArrayConversionError |
                          errors.TracerIntegerConversionError | errors.TracerBoolConversionError):
                dynamic = [i for i, v in enumerate(values) if not is_concrete(v)]
                raise NeedsConstant(f"{cls.name}: operands {dynamic} must be compile-time constants under XLA "
                                    "(the result's shape depends on their values)", cls.name, dynamic) from None
            raise InternalError(f"{cls.name}: the XLA lowering failed on operands "
                                f"{[_shape(v) for v in values]}: {type(err).__name__}: "
                                f"{str(err).splitlines()[0]}", cls.name) from err
        outs = list(out) if isinstance(out, tuple | list) else [out]
        if inferred is not None:
            specs_out = [inferred] if isinstance(inferred, TensorSpec) else list(inferred)
            for i, spec in enumerate(specs_out[:len(outs)]):
                if spec is not None and spec.dtype.kind != "o" and outs[i].dtype != spec.dtype.np:
                    outs[i] = self.cast(outs[i], spec.dtype.np)
        return outs

    def apply_update(self, cls, values: list, attrs: dict) -> None:
        """A VariableUpdate op: its ``update`` rule on the variables' traced values, which become the
        variables' new values (written back as the computation's resource updates)."""
        n = cls.VARIABLE_OPERANDS
        resources, tensors = values[:n], values[n:]
        for i, r in enumerate(resources):
            if not isinstance(r, Resource):
                raise InvalidArgumentError(f"{cls.name}: operand {i} must be a resource (a variable)", cls.name)
            if r.value is None and cls.USES_CURRENT_VALUE:
                raise InvalidArgumentError(f"{cls.name}: attempting to use uninitialized variable {r.name}",
                                           cls.name)
        info = dispatch.op_info(cls)
        if info.infer is not None:
            info.infer(*[_spec(v) for v in values], **attrs)  # the op's checks of dtypes and shapes
        xp = np if all(is_concrete(v) for v in [r.value for r in resources] + tensors) else self.jnp

        def write(resource: Resource, value) -> None:
            if resource.shape is not None and tuple(value.shape) != resource.shape:
                raise InvalidArgumentError(f"{cls.name}: resource {resource.name} has shape {list(resource.shape)}, "
                                           "the XLA computation's update must keep it; the value has shape "
                                           f"{list(value.shape)}", cls.name)
            resource.value = self.cast(value, resource.dtype.np) if value.dtype != resource.dtype.np else value
            resource.shape = tuple(resource.value.shape)
            resource.modified = True

        cls.update(xp, VariableValues(resources, Resource.read, write), *tensors, **attrs)


def _spec(value) -> TensorSpec:
    """What a shape rule sees of a lowered value: a resource carries the Resource, a known array its value."""
    if isinstance(value, Resource):
        return TensorSpec((), dtypes.resource, value=value)
    return TensorSpec(value.shape, dtypes.as_dtype(value.dtype), value=np.asarray(value) if is_concrete(value) else None)


def _shape(value) -> list | str:
    return "resource" if isinstance(value, Resource) else list(np.shape(value))
