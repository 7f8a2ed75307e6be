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

- ``tf.Identity`` passes its value through; calls (``tf.PartitionedCall``,
  ``tf.StatefulPartitionedCall``, ``tf_device.cluster_func``) are inlined by lowering the callee;
  ``tf_device.cluster`` / ``launch`` regions are lowered in place.
- ``tf.If`` / ``tf.Case`` become ``jax.lax.cond`` / ``switch`` (or pick the branch when the
  predicate is known), ``tf.While`` becomes ``jax.lax.while_loop``.
- A resource (variable) is a ``Resource`` holding its current value: ``tf.ReadVariableOp`` reads
  it, ``tf.AssignVariableOp`` / ``AssignAdd`` / ``AssignSub`` and the optimizer steps
  (``tf.ResourceApply{GradientDescent,Momentum,Adam}``) replace it and mark it modified. TF1
  reference-variable ops are refused, as by TensorFlow's XLA bridge.
- An op that needs a run-time value at compile time (Range's limit) raises ``NeedsConstant``;
  ``XlaFunction`` then compiles the arguments it comes from as constants, as TensorFlow does.
"""
from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation

import tinytf.dtypes as dtypes
from tinytf.errors import InternalError, InvalidArgumentError, NotFoundError, OpError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.framework.op import Op
from tinytf.framework.tensor_spec import TensorSpec
from tinytf.runtime import dispatch
from tinytf.xla.control_flow import ControlFlowLowering
from tinytf.xla.values import (
    ASSIGNS,
    CALLS,
    CASES,
    IFS,
    REF_OPS,
    REGIONS,
    RETURNS,
    TRAINING,
    WHILES,
    WIDE,
    NeedsConstant,
    Resource,
    functions,
    is_concrete,
    located,
    symbol,
    where,
)
from tinytf.xla.values import op_name as op_name

_MAX_CALL_DEPTH = 64


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

    def run_block(self, block: Block, args: list) -> list:
        env = dict(zip(block.args, args))
        for op in block.ops:
            name = op_name(op)
            if name in RETURNS:
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
        if name == "tf.Const" and isinstance(op, Op):
            return [np.asarray(op.attr_values()["value"])]
        if name == "tf.Identity":
            # An int8 weight behind tf.Identity (TensorFlow's dequantize pattern) stays an int8 value of
            # the program: folding the chain here, or letting XLA fold it, would store it as float.
            return [self.jax.lax.optimization_barrier(self.jnp.asarray(v))
                    if is_concrete(v) and np.asarray(v).dtype in (np.int8, np.uint8) else v for v in values]
        if name in CALLS:
            return self.call(symbol(op, "func" if name == "tf_device.cluster_func" else "f"), values)
        if name in REGIONS:
            return self.run_block(op.regions[0].blocks[0], [])
        if name in IFS:
            return self.lower_if(op, values)
        if name in CASES:
            return self.lower_case(op, values)
        if name in WHILES:
            return self.lower_while(op, values)
        if name == "tf.ReadVariableOp":
            return [self.read(op, values[0])]
        if name in ASSIGNS:
            self.assign(op, name, values[0], values[1])
            return []
        if name in TRAINING:
            self.apply_training(op, name, values, TRAINING[name])
            return []
        if name in REF_OPS:
            raise UnimplementedError(f"{where(op)}{name}: reference variables (TF1) cannot be compiled for XLA, "
                                     "as in TensorFlow; use resource variables", name)
        if name == "tf.VarHandleOp":
            raise UnimplementedError(f"{where(op)}tf.VarHandleOp: a variable created inside an XLA-compiled "
                                     "function is not supported; pass it as a resource argument", name)
        if not isinstance(op, Op):
            raise UnimplementedError(f"{where(op)}'{name}' op is not implemented (unknown op)", name)
        if any(isinstance(v, Resource) for v in values):
            raise UnimplementedError(f"{where(op)}{name}: resource operands are not supported under XLA", name)
        try:
            return self.lower_plain(type(op), values, op.attr_values())
        except NeedsConstant as err:
            found = located(err, where(op))
            found.ssa_values = [op.operands[i] for i in err.operand_indices]
            raise found from None
        except OpError as err:
            raise located(err, where(op)) from err.__cause__

    def lower_plain(self, cls, values: list, attrs: dict) -> list:
        """One op on values: folded with numpy when every operand is known, else lowered to JAX."""
        info = dispatch.op_info(cls)
        if all(is_concrete(v) for v in values):
            values = [np.asarray(v) for v in values]
            if info.compute is not None:
                return dispatch.run_kernel(info, values, attrs)
        specs = [TensorSpec(v.shape, dtypes.as_dtype(v.dtype), value=np.asarray(v) if is_concrete(v) else None)
                 for v in values]
        inferred = info.infer(*specs, **attrs) if info.infer is not None else None
        if isinstance(inferred, TensorSpec) and inferred.value is not None:
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
                                f"{[list(np.shape(v)) for v in values]}: {type(err).__name__}: "
                                f"{str(err).splitlines()[0]}", cls.name) from err
        outs = list(out) if isinstance(out, tuple | list) else [out]
        if inferred is not None:
            specs_out = [inferred] if isinstance(inferred, TensorSpec) else list(inferred)
            for i, spec in enumerate(specs_out[:len(outs)]):
                if spec is not None and spec.dtype.kind != "o" and outs[i].dtype != spec.dtype.np:
                    outs[i] = self.cast(outs[i], spec.dtype.np)
        return outs

    def cast(self, value, dtype):
        if is_concrete(value):
            return np.asarray(value, dtype)
        return self.jax.lax.convert_element_type(value, dtype)

    # --- resources ------------------------------------------------------------------------------

    def read(self, op: Operation, resource) -> object:
        if not isinstance(resource, Resource):
            raise InvalidArgumentError(f"{where(op)}tf.ReadVariableOp: operand 0 must be a resource",
                                       "tf.ReadVariableOp")
        if resource.value is None:
            raise InvalidArgumentError(f"{where(op)}tf.ReadVariableOp: resource {resource.name} is uninitialized",
                                       "tf.ReadVariableOp")
        want = tf_types.dtype_of(op.results[0].type)
        if want is not resource.dtype:
            raise InvalidArgumentError(f"{where(op)}tf.ReadVariableOp: resource {resource.name} has dtype "
                                       f"{resource.dtype.name}, read as {want.name}", "tf.ReadVariableOp")
        return resource.value

    def assign(self, op: Operation, name: str, resource, value) -> None:
        if not isinstance(resource, Resource):
            raise InvalidArgumentError(f"{where(op)}{name}: operand 0 must be a resource", name)
        got = dtypes.as_dtype(value.dtype)
        if got is not resource.dtype:
            raise InvalidArgumentError(f"{where(op)}{name}: resource {resource.name} has dtype "
                                       f"{resource.dtype.name}, value has {got.name}", name)
        if name != "tf.AssignVariableOp":
            if resource.value is None:
                raise InvalidArgumentError(f"{where(op)}{name}: resource {resource.name} is uninitialized", name)
            if tuple(value.shape) != tuple(resource.value.shape):
                raise InvalidArgumentError(
                    f"{where(op)}{name}: cannot update resource {resource.name} of shape "
                    f"{list(resource.value.shape)} with a value of shape {list(value.shape)}", name)
            xp = np if is_concrete(resource.value) and is_concrete(value) else self.jnp
            value = (xp.add if name == "tf.AssignAddVariableOp" else xp.subtract)(resource.value, value)
        elif resource.shape is not None and tuple(value.shape) != resource.shape:
            raise InvalidArgumentError(
                f"{where(op)}{name}: resource {resource.name} has shape {list(resource.shape)}, the XLA "
                f"computation's update must keep it; the value has shape {list(value.shape)}", name)
        resource.value = value
        resource.shape = tuple(value.shape)
        resource.modified = True

    def apply_training(self, op: Operation, name: str, values: list, num_vars: int) -> None:
        """One optimizer step (the formulas of tinytf/ops/training.py) as new values of its variables."""
        resources, tensors = values[:num_vars], values[num_vars:]
        for i, r in enumerate(resources):
            if not isinstance(r, Resource):
                raise InvalidArgumentError(f"{where(op)}{name}: operand {i} must be a resource (a variable)", name)
            if r.value is None:
                raise InvalidArgumentError(f"{where(op)}{name}: attempting to use uninitialized variable {r.name}",
                                           name)
        var = resources[0]
        for i, t in enumerate(tensors, num_vars):
            if dtypes.as_dtype(t.dtype) is not var.dtype:
                raise InvalidArgumentError(f"{where(op)}{name}: operand {i} has dtype {dtypes.as_dtype(t.dtype).name}, "
                                           f"the variable has {var.dtype.name}", name)
            if np.ndim(t) and tuple(np.shape(t)) != tuple(var.value.shape):
                raise InvalidArgumentError(f"{where(op)}{name}: var and operand {i} do not have the same shape: "
                                           f"{list(var.value.shape)} vs {list(np.shape(t))}", name)
        current = [r.value for r in resources]
        xp = np if all(is_concrete(v) for v in current + tensors) else self.jnp
        attrs = op.attr_values() if isinstance(op, Op) else {}
        nesterov = attrs.get("use_nesterov", False)
        if name == "tf.ResourceApplyGradientDescent":
            (w,), (alpha, delta) = current, tensors
            new = [w - alpha * delta]
        elif name == "tf.ResourceApplyMomentum":
            (w, accum), (lr, grad, momentum) = current, tensors
            accum = accum * momentum + grad
            w = w - (grad * lr + accum * momentum * lr) if nesterov else w - lr * accum
            new = [w, accum]
        else:
            (w, m, v), (beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad) = current, tensors
            one = np.ones((), var.dtype.np)
            lr_t = lr * xp.sqrt(one - beta2_power) / (one - beta1_power)
            m = m + (grad - m) * (one - beta1)
            v = v + (grad * grad - v) * (one - beta2)
            step = (grad * (one - beta1) + beta1 * m) if nesterov else m
            new = [w - step * lr_t / (xp.sqrt(v) + epsilon), m, v]
        for r, value in zip(resources, new):
            r.value = self.cast(value, r.dtype.np) if value.dtype != r.dtype.np else value
            r.shape = tuple(r.value.shape)
            r.modified = True
