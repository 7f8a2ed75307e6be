"""``tt.optimizers``: SGD, Momentum and Adam on TensorFlow's training ops.

    opt = tt.optimizers.Adam(learning_rate=0.01)
    with tt.GradientTape() as tape:
        loss = tt.math.reduce_sum(tt.square(x @ w - y))
    opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))    # one tf.ResourceApplyAdam per variable

Each step is one training op per variable (``tf.ResourceApplyGradientDescent``,
``tf.ResourceApplyMomentum``, ``tf.ResourceApplyAdam``), so it runs eagerly and inside
``tt.function`` alike, where the variables and slots become captured resource arguments. Slots
(momentum accumulators, Adam's m and v) are created on a variable's first update; Adam keeps
``beta1_power`` and ``beta2_power`` per dtype as TensorFlow 1's AdamOptimizer does.

Optimizers are trackable, as TensorFlow's are: in a ``tt.train.Checkpoint`` an optimizer's
children are Adam's ``beta1_power`` / ``beta2_power`` (TensorFlow 1's names, sorted as it sorts
them; ``beta1_power_float64`` for another dtype) and ``iter`` (the ``iterations`` counter, Keras'
name), and its slots are slot variables, keyed ``<variable>/.OPTIMIZER_SLOT/<optimizer>/m/.ATTRIBUTES/VARIABLE_VALUE``.
Restoring creates the slots and powers the checkpoint holds, as TensorFlow's eager optimizers do.
"""
from __future__ import annotations

import re

import numpy as np

import tinytf.dtypes as dtypes
from tinytf.errors import InvalidArgumentError, UnimplementedError
from tinytf.framework.name_scope import name_scope
from tinytf.framework.variables import Variable
from tinytf.ops import training


class Optimizer:
    """Base: ``apply_gradients(grads_and_vars)``, ``minimize(loss, var_list)``, ``iterations``, slots."""

    def __init__(self, learning_rate, use_locking: bool = False, name: str = "Optimizer"):
        self.learning_rate = learning_rate
        self.use_locking = bool(use_locking)
        self.name = name
        self.iterations = Variable(np.zeros((), np.int64), trainable=False, name=f"{name}/iter")
        self._slots: dict = {}  # (id(var), slot name) -> (var, slot variable)

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        return self._slots[(id(var), slot_name)][1]

    def _slot(self, var: Variable, slot_name: str, initial=0.0) -> Variable:
        key = (id(var), slot_name)
        found = self._slots.get(key)
        if found is None:  # created once, eagerly (also while tracing: a Python object, captured on use)
            # named after the variable, whatever the scope the step runs in (TensorFlow 1's "dense/w/Adam:0")
            with name_scope(""):
                slot = Variable(np.full(var.shape, initial, var.dtype.np), trainable=False,
                                name=f"{var.shared_name}/{slot_name}")
            found = self._slots[key] = (var, slot)
        return found[1]

    # -- checkpointing: the trackable protocol of tinytf/train/trackable.py ---------------------

    def _trackable_children(self) -> dict:
        # TensorFlow 1's optimizers list their non-slot variables first, sorted by name
        non_slot = self._non_slot_variables()
        return {**{name: non_slot[name] for name in sorted(non_slot)}, "iter": self.iterations}

    def _non_slot_variables(self) -> dict:
        return {}

    def _slot_names(self) -> list[str]:
        return sorted({name for _, name in self._slots})

    def _checkpoint_slot(self, var, slot_name: str):
        """The slot variable, or None when ``var`` has no such slot (yet)."""
        found = self._slots.get((id(var), slot_name))
        return found[1] if found is not None and found[0] is var else None

    def _restore_slot_variable(self, var, slot_name: str) -> Variable:
        """The slot to restore a checkpointed value into, created now if it is missing."""
        return self._slot(var, slot_name)

    def _restore_missing_child(self, name: str, node: dict):
        return None

    def _lr(self):
        lr = self.learning_rate
        return lr() if callable(lr) else lr

    def apply_gradients(self, grads_and_vars, experimental_aggregate_gradients: bool = True):
        """One step for each (gradient, variable) pair; pairs whose gradient is None are skipped.

        In a replica of a ``tt.distribute`` strategy (inside ``strategy.run``) the gradients are first
        summed across the replicas, as TensorFlow's optimizers do (``experimental_aggregate_gradients
        =False``: the caller has summed them), and the step applies once to the mirrored variables."""
        pairs = []
        for grad, var in grads_and_vars:
            if grad is None:
                continue
            if not isinstance(var, Variable):
                raise InvalidArgumentError(f"{self.name}.apply_gradients: {var!r} is not a tt.Variable")
            if var.shape is None or any(d is None for d in var.shape):
                raise InvalidArgumentError(f"{self.name}.apply_gradients: variable {var.name} needs a known shape")
            pairs.append((grad, var))
        if not pairs:
            raise InvalidArgumentError(f"{self.name}.apply_gradients: no gradients provided for any variable")
        from tinytf.distribute.context import current_replica

        replica = current_replica()
        if replica is not None:  # the cross-replica sum: an all-reduce of the replicas' gradients
            return replica.apply_gradients(self, pairs, experimental_aggregate_gradients)
        return self._apply_pairs(pairs)

    def _apply_pairs(self, pairs):
        """The step on checked (gradient, variable) pairs."""
        self._prepare(pairs)
        for grad, var in pairs:
            self._apply(grad, var)
        self._finish(pairs)
        self.iterations.assign_add(1)
        return self.iterations

    def minimize(self, loss, var_list):
        """Gradients of ``loss`` (a callable returning a scalar) with respect to ``var_list``, applied."""
        from tinytf.autodiff import GradientTape

        with GradientTape() as tape:
            value = loss()
        grads = tape.gradient(value, list(var_list))
        return self.apply_gradients(zip(grads, var_list))

    def _prepare(self, pairs):
        pass

    def _finish(self, pairs):
        pass

    def _apply(self, grad, var):
        # reachable from the public API (``Optimizer(...).apply_gradients``): a tinytf error, not Python's
        raise UnimplementedError(f"{self.name}: {type(self).__name__} has no update rule: use SGD, Momentum or "
                                 "Adam, or subclass Optimizer and override _apply(grad, var)")


class SGD(Optimizer):
    """Gradient descent, with (Nesterov) momentum when ``momentum > 0`` — Keras' SGD: with a constant
    learning rate, TensorFlow's momentum op (accum = m * accum + g; var -= lr * accum) is the same step."""

    def __init__(self, learning_rate=0.01, momentum: float = 0.0, nesterov: bool = False, use_locking: bool = False,
                 name: str = "SGD"):
        super().__init__(learning_rate, use_locking, name)
        if momentum < 0 or momentum > 1:
            raise InvalidArgumentError(f"{name}: momentum must be in [0, 1], got {momentum}")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)

    def _apply(self, grad, var):
        if self.momentum == 0.0 and not self.nesterov:
            training.resource_apply_gradient_descent(var, self._lr(), grad, use_locking=self.use_locking)
        else:
            training.resource_apply_momentum(var, self._slot(var, "momentum"), self._lr(), grad, self.momentum,
                                             use_locking=self.use_locking, use_nesterov=self.nesterov)


class Momentum(Optimizer):
    """TensorFlow's MomentumOptimizer: accum = momentum * accum + grad; var -= lr * accum."""

    def __init__(self, learning_rate, momentum: float, use_nesterov: bool = False, use_locking: bool = False,
                 name: str = "Momentum"):
        super().__init__(learning_rate, use_locking, name)
        self.momentum = float(momentum)
        self.use_nesterov = bool(use_nesterov)

    def _apply(self, grad, var):
        training.resource_apply_momentum(var, self._slot(var, "momentum"), self._lr(), grad, self.momentum,
                                         use_locking=self.use_locking, use_nesterov=self.use_nesterov)


_BETA_POWER = re.compile(r"beta([12])_power(?:_(\w+))?")


class Adam(Optimizer):
    """Adam (Kingma and Ba): m and v slots per variable; step t uses beta1^t and beta2^t."""

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7,
                 use_nesterov: bool = False, use_locking: bool = False, name: str = "Adam"):
        super().__init__(learning_rate, use_locking, name)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        self.use_nesterov = bool(use_nesterov)
        self._powers: dict = {}  # dtype -> (beta1_power, beta2_power) variables

    def _beta_powers(self, dtype):
        found = self._powers.get(dtype)
        if found is None:
            found = self._powers[dtype] = (
                Variable(np.asarray(self.beta_1, dtype.np), trainable=False, name=f"{self.name}/beta1_power"),
                Variable(np.asarray(self.beta_2, dtype.np), trainable=False, name=f"{self.name}/beta2_power"))
        return found

    def _non_slot_variables(self) -> dict:
        out = {}
        for dtype, powers in self._powers.items():
            suffix = "" if dtype is dtypes.float32 else f"_{dtype.name}"
            out[f"beta1_power{suffix}"], out[f"beta2_power{suffix}"] = powers
        return out

    def _restore_missing_child(self, name: str, node: dict):
        match = _BETA_POWER.fullmatch(name)
        if match is None:
            return None
        try:
            dtype = dtypes.as_dtype(match.group(2) or "float32")
        except InvalidArgumentError:
            return None
        return self._beta_powers(dtype)[int(match.group(1)) - 1]

    def _prepare(self, pairs):
        # read the step's powers once, before any update: every variable uses the same step t
        self._step_powers = {var.dtype: tuple(p.value() for p in self._beta_powers(var.dtype)) for _, var in pairs}

    def _apply(self, grad, var):
        beta1_power, beta2_power = self._step_powers[var.dtype]
        training.resource_apply_adam(var, self._slot(var, "m"), self._slot(var, "v"), beta1_power, beta2_power,
                                     self._lr(), self.beta_1, self.beta_2, self.epsilon, grad,
                                     use_locking=self.use_locking, use_nesterov=self.use_nesterov)

    def _finish(self, pairs):
        for dtype in self._step_powers:
            beta1_power, beta2_power = self._beta_powers(dtype)
            beta1_power.assign(beta1_power * np.asarray(self.beta_1, dtype.np))
            beta2_power.assign(beta2_power * np.asarray(self.beta_2, dtype.np))
        self._step_powers = {}


__all__ = ["SGD", "Adam", "Momentum", "Optimizer"]
