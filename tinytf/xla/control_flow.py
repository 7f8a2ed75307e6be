"""Functional control flow under XLA: ``tf.If`` / ``tf.Case`` as ``jax.lax.switch`` (or the branch
itself when the predicate is known at compile time), ``tf.While`` as ``jax.lax.while_loop``.

    %0 = "tf.If"(%p, %x) <{else_branch = @neg, then_branch = @twice, is_stateless = true}> ...
    // lax.switch(p ? 0 : 1, [twice, neg], x)

Operands known at compile time stay numpy (closed over by the branches, so shape operands stay
static); variables passed in are carried as values and written back after the conditional or loop.
A value that is a JAX pytree of arrays (a TensorList's ``ListBuffer``: its buffer and size) is carried
as its arrays, which must keep their shapes from one iteration to the next.
"""
from __future__ import annotations

import numpy as np
from xdsl.ir import Operation

from tinytf.errors import InvalidArgumentError, OpError, UnimplementedError
from tinytf.framework import tf_types
from tinytf.ops.tensor_list_buffer import ListBuffer, initialized
from tinytf.xla.values import Resource, is_array, is_concrete, op_name, where


class ControlFlowLowering:
    """The control-flow half of ``Lowering`` (which provides ``call``, ``cast``, ``jax``, ``jnp``)."""

    def truth(self, pred):
        """TensorFlow's predicate rule: a scalar's value; a non-scalar is true when non-empty."""
        if is_concrete(pred):
            pred = np.asarray(pred)
            return bool(pred) if pred.ndim == 0 else pred.size > 0
        if pred.ndim == 0:
            return pred.astype(bool) if pred.dtype != bool else pred
        return pred.size > 0

    def lower_if(self, op: Operation, branches: list, values: list) -> list:
        pred = self.truth(values[0])
        if isinstance(pred, bool):
            return self.cast_results(op, self.call(branches[0 if pred else 1], values[1:]))
        index = self.jnp.where(pred, 0, 1).astype(np.int32)
        return self.switch(op, index, branches, values[1:])

    def lower_case(self, op: Operation, branches: list, values: list) -> list:
        from tinytf.ops.control_flow import Case

        index = values[0]
        if is_concrete(index):
            i = int(np.asarray(index).reshape(-1)[0]) if np.size(index) == 1 else -1
            return self.cast_results(op, self.call(branches[Case.branch_for(i, len(branches))], values[1:]))
        n = len(branches)
        index = self.jnp.reshape(index, ()).astype(np.int32)
        index = self.jnp.where((index < 0) | (index >= n), n - 1, index)  # out of range: the last branch
        return self.switch(op, index, branches, values[1:])

    def cast_results(self, op: Operation, outs: list) -> list:
        return [self.cast(v, tf_types.dtype_of(r.type).np) if is_array(v) and
                v.dtype != tf_types.dtype_of(r.type).np else v for v, r in zip(outs, op.results)]

    def switch(self, op: Operation, index, branches: list, operands: list) -> list:
        """``jax.lax.switch`` over branch functions; known operands stay numpy (closed over)."""
        jax = self.jax
        resources = _unique([v for v in operands if isinstance(v, Resource)])
        dynamic = [i for i, v in enumerate(operands) if not isinstance(v, Resource) and not is_concrete(v)]
        written = [False] * len(resources)

        def make(name):
            def branch(dyn, res_values):
                args, fresh = self.rebind(operands, dynamic, dyn, resources, res_values)
                outs = self.cast_results(op, self.call(name, args))
                for k, r in enumerate(fresh):
                    written[k] = written[k] or r.modified
                return [jax.tree_util.tree_map(self.jnp.asarray, o) for o in outs], [r.value for r in fresh]
            return branch

        try:
            outs, res_values = jax.lax.switch(index, [make(b) for b in branches], [operands[i] for i in dynamic],
                                              [r.value for r in resources])
        except OpError:
            raise
        except Exception as err:  # branches whose results differ in shape or dtype
            raise InvalidArgumentError(f"{where(op)}{op_name(op)}: branches {', '.join('@' + b for b in branches)} "
                                       f"cannot be lowered to one XLA conditional: {err}", op_name(op)) from None
        for r, v, w in zip(resources, res_values, written):
            r.value, r.modified = v, r.modified or w
        return list(outs)

    def rebind(self, operands, dynamic, dyn_values, resources, res_values):
        """Operands for a traced region: dynamic ones replaced, resources by fresh copies."""
        args = list(operands)
        for i, v in zip(dynamic, dyn_values):
            args[i] = v
        fresh = [Resource(v, r.dtype, r.name) for r, v in zip(resources, res_values)]
        mapping = {id(r): f for r, f in zip(resources, fresh)}
        args = [mapping[id(a)] if isinstance(a, Resource) else a for a in args]
        return args, fresh

    def initialize_lists(self, op: Operation, body: str, values: list, carried: list, resources: list) -> list:
        """A carried TensorList whose element shape is known only once the body sets an item (Keras' RNNs
        reserve [-1, units] when the batch is unknown) gets a zero buffer of the shape the body gives it, as
        TensorFlow's XLA bridge does: the body is traced once more on the initial values (XLA drops that
        copy); unset elements read as zeros either way."""
        if not any(_uninitialized_list(values[i]) for i in carried):
            return values
        args, _ = self.rebind(values, carried, [values[i] for i in carried], resources, [r.value for r in resources])
        outs = self.call(body, args)
        values = list(values)
        for i in carried:
            after = outs[i] if i < len(outs) else None
            if _uninitialized_list(values[i]) and isinstance(after, ListBuffer) and after.buffer is not None:
                values[i] = initialized(op_name(op), values[i], element_shape=after.element_shape)
        return values

    def lower_while(self, op: Operation, functions: list, values: list) -> list:
        jax, jnp = self.jax, self.jnp
        cond, body = functions
        name = op_name(op)
        resources = _unique([v for v in values if isinstance(v, Resource)])
        carried = [i for i, v in enumerate(values) if not isinstance(v, Resource)]
        if any(r.value is None for r in resources):
            raise InvalidArgumentError(f"{where(op)}{name}: an uninitialized resource cannot be carried", name)
        values = self.initialize_lists(op, body, values, carried, resources)
        # A carried value may be a pytree of arrays (a TensorList's buffer and size): its leaves are carried.
        leaves, tree = jax.tree_util.tree_flatten([values[i] for i in carried])
        kinds = [(jnp.asarray(v).dtype, tuple(np.shape(v))) for v in leaves]
        res_kinds = [(r.value.dtype, tuple(r.value.shape)) for r in resources]
        written = [False] * len(resources)

        def flat(vals):
            found, structure = jax.tree_util.tree_flatten(vals)
            if structure != tree:
                raise InvalidArgumentError(f"{where(op)}{name}: a loop variable changes its structure from {tree} to "
                                           f"{structure}; XLA loops need fixed shapes", name)
            return found

        def fix(vals, wanted, what):
            out = []
            for v, (dtype, shape) in zip(vals, wanted):
                v = jax.lax.convert_element_type(jnp.asarray(v), dtype)
                if tuple(v.shape) != shape:
                    raise InvalidArgumentError(
                        f"{where(op)}{name}: {what} changes shape from {list(shape)} to {list(v.shape)}; XLA "
                        "loops need fixed shapes", name)
                out.append(v)
            return out

        def cond_fn(state):
            vals, res_values = state
            args, fresh = self.rebind(values, carried, tree.unflatten(vals), resources, res_values)
            result = self.call(cond, args)[0]
            if any(r.modified for r in fresh):  # an XLA loop's condition cannot carry state out
                raise UnimplementedError(f"{where(op)}{name}: the condition @{cond} assigns a variable, which an "
                                         "XLA loop cannot do; assign it in the body", name)
            pred = self.truth(result)
            return jnp.asarray(pred, bool)

        def body_fn(state):
            vals, res_values = state
            args, fresh = self.rebind(values, carried, tree.unflatten(vals), resources, res_values)
            outs = self.call(body, args)
            if len(outs) != len(values):
                raise InvalidArgumentError(f"{where(op)}{name}: body @{body} returned {len(outs)} values for "
                                           f"{len(values)} loop variables", name)
            for k, r in enumerate(fresh):
                written[k] = written[k] or r.modified
            return (fix(flat([outs[i] for i in carried]), kinds, "a loop variable"),
                    fix([r.value for r in fresh], res_kinds, "a resource"))

        init = (fix(leaves, kinds, "a loop variable"), [r.value for r in resources])
        try:
            final, res_values = jax.lax.while_loop(cond_fn, body_fn, init)
        except OpError:
            raise
        except Exception as err:
            raise InvalidArgumentError(f"{where(op)}{name}: cannot be lowered to an XLA loop: {err}",
                                       name) from None
        for r, v, w in zip(resources, res_values, written):
            r.value, r.modified = v, r.modified or w
        outs = list(values)
        for i, v in zip(carried, tree.unflatten(final)):
            outs[i] = v
        return self.cast_results(op, outs)


def _uninitialized_list(value) -> bool:
    return isinstance(value, ListBuffer) and value.buffer is None


def _unique(items: list) -> list:
    seen, out = set(), []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out
