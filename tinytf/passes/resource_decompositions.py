"""TensorFlow's decompositions of composite resource ops into reads, plain tf math and assigns (the
rules of ``tf-device-decompose-resource-ops``), so that XLA sees ordinary tensors.

    "tf.ResourceApplyGradientDescent"(%v, %alpha, %delta) ...
    // becomes:
    %0 = "tf.ReadVariableOp"(%v) ...      %1 = "tf.Mul"(%delta, %alpha) ...
    %2 = "tf.Sub"(%0, %1) ...             "tf.AssignVariableOp"(%v, %2) <{validate_shape = false}> ...

``RULES[name](op, emit)`` builds the replacement with ``emit`` (which inserts before ``op``) and returns
the values that replace ``op``'s results, or None to leave ``op`` alone. Ops are emitted in
TensorFlow's order and with its result types (binary ops broadcast their operand types, a read gives
the resource's subtype or else an unranked tensor of the update's element type).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, Signedness, StringAttr, TensorType, UnrankedTensorType, i1
from xdsl.ir import Attribute, Operation, SSAValue

from tinytf.framework import tf_types
from tinytf.passes.tf_rewrite import attr, bool_attr, bool_value, build, const, constant_of, element_type

COMPARISONS = frozenset({"tf.Greater", "tf.Less"})


class Emitter:
    """Builds tf ops before ``anchor``; each call returns the new op's first result."""

    def __init__(self, anchor: Operation):
        self.anchor = anchor

    def op(self, name: str, *operands: SSAValue, type_: Attribute | None = None, properties=None,
           attributes=None) -> SSAValue | None:
        if type_ is None:
            type_ = _result_type(name, operands)
        new = build(name, operands, [] if type_ == () else [type_], properties=properties, attributes=attributes)
        self.anchor.parent_block().insert_op_before(new, self.anchor)
        return new.results[0] if new.results else None

    def constant(self, array: np.ndarray, dtype=None) -> SSAValue:
        new = const(array, dtype=dtype)
        self.anchor.parent_block().insert_op_before(new, self.anchor)
        return new.results[0]

    def scalar(self, number, like: SSAValue) -> SSAValue:
        """A scalar constant of ``like``'s element type."""
        dtype = tf_types.dtype_of(like.type)
        return self.constant(np.asarray(number, dtype.np), dtype)

    def read(self, resource: SSAValue, like: SSAValue) -> SSAValue:
        sub = tf_types.resource_subtype(resource.type)
        return self.op("tf.ReadVariableOp", resource, type_=sub or UnrankedTensorType(element_type(like)))

    def assign(self, resource: SSAValue, value: SSAValue) -> None:
        self.op("tf.AssignVariableOp", resource, value, type_=(), properties={"validate_shape": bool_value(False)})


def _broadcast(a: Attribute, b: Attribute):
    sa, sb = tf_types.shape_of(a), tf_types.shape_of(b)
    if sa is None or sb is None:
        return None
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    return tuple(y if x == 1 else x if y == 1 else x if x == y else (x if y is None else y) for x, y in zip(sa, sb))


def _result_type(name: str, operands) -> Attribute:
    shape = tf_types.shape_of(operands[0].type)
    for other in operands[1:]:
        shape = _broadcast(tf_types.tensor_type(shape, element_type(operands[0])), other.type)
    element = i1 if name in COMPARISONS else element_type(operands[-1])
    return tf_types.tensor_type(shape, element)


# --- the rules ------------------------------------------------------------------------------------

def assign_update(combine: str):
    def rule(op, e: Emitter):
        resource, delta = op.operands
        e.assign(resource, e.op(combine, e.read(resource, delta), delta))
        return []
    return rule


def gradient_descent(op, e: Emitter):
    var, alpha, delta = op.operands
    old = e.read(var, delta)
    e.assign(var, e.op("tf.Sub", old, e.op("tf.Mul", delta, alpha)))
    return []


def momentum(op, e: Emitter):
    var, accum, lr, grad, mom = op.operands
    accum_new = e.op("tf.AddV2", e.op("tf.Mul", e.read(accum, grad), mom), grad)
    e.assign(accum, accum_new)
    if bool_attr(op, "use_nesterov"):
        step = e.op("tf.AddV2", e.op("tf.Mul", grad, lr), e.op("tf.Mul", accum_new, e.op("tf.Mul", mom, lr)))
    else:
        step = e.op("tf.Mul", accum_new, lr)
    e.assign(var, e.op("tf.Sub", e.read(var, grad), step))
    return []


def keras_momentum(op, e: Emitter):
    var, accum, lr, grad, mom = op.operands
    accum_mom = e.op("tf.Mul", e.read(accum, grad), mom)
    grad_lr = e.op("tf.Mul", grad, lr)
    accum_new = e.op("tf.Sub", accum_mom, grad_lr)
    e.assign(accum, accum_new)
    step = e.op("tf.Sub", e.op("tf.Mul", accum_new, mom), grad_lr) if bool_attr(op, "use_nesterov") else accum_new
    e.assign(var, e.op("tf.AddV2", e.read(var, grad), step))
    return []


def adagrad(op, e: Emitter, with_epsilon: bool):
    if not bool_attr(op, "update_slots", True):
        return None  # (TensorFlow decomposes only the form that updates the accumulator)
    var, accum, lr, *rest = op.operands
    epsilon, grad = rest if with_epsilon else (None, rest[0])
    accum_new = e.op("tf.AddV2", e.read(accum, grad), e.op("tf.Mul", grad, grad))
    scaled = e.op("tf.Mul", lr, grad)
    divisor = e.op("tf.Sqrt", accum_new)
    if with_epsilon:
        divisor = e.op("tf.AddV2", divisor, epsilon)
    step = e.op("tf.Div", scaled, divisor)
    e.assign(var, e.op("tf.Sub", e.read(var, grad), step))
    e.assign(accum, accum_new)
    return []


def adam(op, e: Emitter):
    var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad = op.operands
    one = e.scalar(1, grad)
    alpha = e.op("tf.Mul", lr, e.op("tf.Div", e.op("tf.Sqrt", e.op("tf.Sub", one, beta2_power)),
                                    e.op("tf.Sub", one, beta1_power)))
    m_new = e.op("tf.AddV2", e.op("tf.Mul", beta1, e.read(m, grad)), e.op("tf.Mul", e.op("tf.Sub", one, beta1), grad))
    v_new = e.op("tf.AddV2", e.op("tf.Mul", beta2, e.read(v, grad)),
                 e.op("tf.Mul", e.op("tf.Sub", one, beta2), e.op("tf.Square", grad)))
    if bool_attr(op, "use_nesterov"):
        m_used = e.op("tf.AddV2", e.op("tf.Mul", m_new, beta1), e.op("tf.Mul", e.op("tf.Sub", one, beta1), grad))
    else:
        m_used = m_new
    step = e.op("tf.Div", e.op("tf.Mul", alpha, m_used), e.op("tf.AddV2", e.op("tf.Sqrt", v_new), epsilon))
    e.assign(var, e.op("tf.Sub", e.read(var, grad), step))
    e.assign(m, m_new)
    e.assign(v, v_new)
    return []


def rms_prop(op, e: Emitter):
    var, ms, mom, lr, rho, momentum_, epsilon, grad = op.operands
    one = e.scalar(1, grad)
    ms_new = e.op("tf.AddV2", e.op("tf.Mul", e.read(ms, grad), rho),
                  e.op("tf.Mul", e.op("tf.Square", grad), e.op("tf.Sub", one, rho)))
    e.assign(ms, ms_new)
    mom_old = e.op("tf.Mul", momentum_, e.read(mom, grad))
    step = e.op("tf.Div", e.op("tf.Mul", lr, grad), e.op("tf.Sqrt", e.op("tf.AddV2", ms_new, epsilon)))
    mom_new = e.op("tf.AddV2", mom_old, step)
    e.assign(mom, mom_new)
    e.assign(var, e.op("tf.Sub", e.read(var, grad), mom_new))
    return []


def centered_rms_prop(op, e: Emitter):
    var, mg, ms, mom, lr, rho, momentum_, epsilon, grad = op.operands
    one = e.scalar(1, grad)
    ms_delta = e.op("tf.Mul", e.op("tf.Mul", grad, grad), e.op("tf.Sub", one, rho))
    ms_new = e.op("tf.AddV2", ms_delta, e.op("tf.Mul", e.read(ms, grad), rho))
    e.assign(ms, ms_new)
    mg_delta = e.op("tf.Mul", grad, e.op("tf.Sub", one, rho))
    mg_new = e.op("tf.AddV2", mg_delta, e.op("tf.Mul", e.read(mg, grad), rho))
    e.assign(mg, mg_new)
    mom_old = e.op("tf.Mul", momentum_, e.read(mom, grad))
    lr_grad = e.op("tf.Mul", lr, grad)
    denominator = e.op("tf.Sqrt", e.op("tf.AddV2", e.op("tf.Sub", ms_new, e.op("tf.Square", mg_new)), epsilon))
    mom_new = e.op("tf.AddV2", mom_old, e.op("tf.Div", lr_grad, denominator))
    e.assign(mom, mom_new)
    e.assign(var, e.op("tf.Sub", e.read(var, grad), mom_new))
    return []


def proximal_adagrad(op, e: Emitter):
    var, accum, lr, l1, l2, grad = op.operands
    one, zero = e.scalar(1, grad), e.scalar(0, grad)
    accum_new = e.op("tf.AddV2", e.read(accum, grad), e.op("tf.Square", grad))
    adagrad_lr = e.op("tf.Mul", lr, e.op("tf.Rsqrt", accum_new))
    prox = e.op("tf.Sub", e.read(var, grad), e.op("tf.Mul", grad, adagrad_lr))
    shrunk = e.op("tf.Mul", e.op("tf.Sign", prox), e.op("tf.Maximum", e.op(
        "tf.Sub", e.op("tf.Abs", prox), e.op("tf.Mul", adagrad_lr, l1)), zero))
    numerator = e.op("tf.SelectV2", e.op("tf.Greater", l1, zero), shrunk, prox)
    var_new = e.op("tf.Div", numerator, e.op("tf.Add", one, e.op("tf.Mul", adagrad_lr, l2)))
    e.assign(var, var_new)
    e.assign(accum, accum_new)
    return []


def ftrl(op, e: Emitter, with_shrinkage: bool):
    """FTRL-proximal (multiply_linear_by_lr = false, as TensorFlow decomposes it):
    accum' = accum + g^2;  linear' = linear + g_s - (accum'^-p - accum^-p) / lr * var  (g_s = g + 2 l2_shrinkage var)
    var' = (sign(linear') l1 - linear') / (accum'^-p / lr + 2 l2)  where |linear'| > l1, else 0."""
    if bool_attr(op, "multiply_linear_by_lr"):
        return None
    var_h, accum_h, linear_h, grad, lr, l1, l2, *rest = op.operands
    shrinkage, lr_power = rest if with_shrinkage else (None, rest[0])
    var, accum, linear = e.read(var_h, grad), e.read(accum_h, grad), e.read(linear_h, grad)
    two = e.scalar(2, grad)
    grad_used = e.op("tf.AddV2", grad, e.op("tf.Mul", e.op("tf.Mul", two, shrinkage), var)) if with_shrinkage else grad
    accum_new = e.op("tf.AddV2", accum, e.op("tf.Square", grad))
    neg_power = e.op("tf.Neg", lr_power)
    power_new, power_old = e.op("tf.Pow", accum_new, neg_power), e.op("tf.Pow", accum, neg_power)
    sigma = e.op("tf.Div", e.op("tf.Sub", power_new, power_old), lr)
    linear_new = e.op("tf.Sub", e.op("tf.AddV2", linear, grad_used), e.op("tf.Mul", sigma, var))
    quadratic = e.op("tf.AddV2", e.op("tf.Div", power_new, lr), e.op("tf.Mul", two, l2))
    value = e.op("tf.Div", e.op("tf.Sub", e.op("tf.Mul", e.op("tf.Sign", linear_new), l1), linear_new), quadratic)
    var_new = e.op("tf.SelectV2", e.op("tf.Greater", e.op("tf.Abs", linear_new), l1), value, e.op("tf.ZerosLike", value))
    e.assign(var_h, var_new)
    e.assign(accum_h, accum_new)
    e.assign(linear_h, linear_new)
    return []


def resource_gather(op, e: Emitter):
    resource, indices = op.operands
    batch_dims = attr(op, "batch_dims")
    batch = batch_dims.value.data if isinstance(batch_dims, IntegerAttr) else 0
    axis = e.constant(np.asarray(batch, np.int64))
    gathered = e.op("tf.GatherV2", e.read(resource, op.results[0]), indices, axis, type_=op.results[0].type,
                    properties={"batch_dims": IntegerAttr(batch, 64)}, attributes=_carried(op))
    return [gathered]


def resource_scatter(tensor_op: str):
    def rule(op, e: Emitter):
        resource, indices, updates = op.operands
        shape = tf_types.shape_of(indices.type)
        expanded_type = tf_types.tensor_type(None if shape is None else (*shape, 1), element_type(indices))
        read = e.read(resource, updates)
        expanded = e.op("tf.ExpandDims", indices, e.constant(np.asarray(-1, np.int32)), type_=expanded_type)
        e.assign(resource, e.op(tensor_op, read, expanded, updates, type_=read.type,
                                properties={"bad_indices_policy": StringAttr("")}))
        return []
    return rule


def variable_shape(op, e: Emitter):
    resource = op.operands[0]
    if tf_types.resource_subtype(resource.type) is None:
        return None
    read = e.op("tf.ReadVariableOp", resource, type_=tf_types.resource_subtype(resource.type))
    return [e.op("tf.Shape", read, type_=op.results[0].type)]


def collective_reduce_without_token(op, e: Emitter):
    """The ordering tokens (resource operands after the first four) only order collectives on one
    device: XLA orders them itself."""
    if len(op.operands) <= 4:
        return None
    return [e.op("tf.CollectiveReduceV2", *op.operands[:4], type_=op.results[0].type,
                 properties={k: v for k, v in op.properties.items() if k != "Nordering_token"},
                 attributes={k: v for k, v in op.attributes.items() if k != "Nordering_token"})]


def rng_read_and_skip(op, e: Emitter):
    """state = counter words + key; counter += 256 * delta with carry (Philox: 2 words, ThreeFry: 1)."""
    resource, alg, delta = op.operands
    algorithm = constant_of(alg)
    counter_size = {1: 2, 2: 1}.get(int(algorithm)) if algorithm is not None and algorithm.size == 1 else None
    state_type = tf_types.resource_subtype(resource.type)
    if counter_size is None or state_type is None or tf_types.shape_of(state_type) != (counter_size + 1,):
        return None
    state = e.op("tf.ReadVariableOp", resource, type_=state_type)
    word_type = TensorType(element_type(state_type), [])
    words = build("tf.Unpack", [state], [word_type] * (counter_size + 1), properties={"axis": IntegerAttr(0, 64)})
    e.anchor.parent_block().insert_op_before(words, e.anchor)
    u64 = TensorType(IntegerType(64, Signedness.UNSIGNED), [])
    increment = e.op("tf.Mul", e.scalar(256, delta), delta, type_=u64)
    new_words = []
    for word in words.results[:counter_size]:
        word_u64 = e.op("tf.Cast", word, type_=u64, properties={"Truncate": bool_value(False)})
        new_u64 = e.op("tf.AddV2", word_u64, increment, type_=u64)
        new_words.append(e.op("tf.Cast", new_u64, type_=word_type, properties={"Truncate": bool_value(False)}))
        carry = e.op("tf.Less", new_u64, word_u64)
        increment = e.op("tf.Cast", carry, type_=u64, properties={"Truncate": bool_value(False)})
    new_state = e.op("tf.Pack", *new_words, words.results[counter_size], type_=state_type,
                     properties={"axis": IntegerAttr(0, 64)})
    e.assign(resource, new_state)
    paddings = e.constant(np.asarray([[0, 3 - (counter_size + 1)]], np.int64))  # (the output has 3 words)
    return [e.op("tf.Pad", state, paddings, type_=op.results[0].type)]


def _carried(op: Operation) -> dict:
    return {k: v for k, v in op.attributes.items() if k.startswith("_") or k == "device"}


# Operand counts of TensorFlow's definitions (CollectiveReduceV2: at least 4, its ordering tokens after them).
ARITY = {"tf.AssignAddVariableOp": 2, "tf.AssignSubVariableOp": 2, "tf.ResourceApplyGradientDescent": 3,
         "tf.ResourceApplyMomentum": 5, "tf.ResourceApplyKerasMomentum": 5, "tf.ResourceApplyAdagrad": 4,
         "tf.ResourceApplyAdagradV2": 5, "tf.ResourceApplyAdam": 10, "tf.ResourceApplyRMSProp": 8,
         "tf.ResourceApplyCenteredRMSProp": 9, "tf.ResourceApplyProximalAdagrad": 6, "tf.ResourceApplyFtrl": 8,
         "tf.ResourceApplyFtrlV2": 9, "tf.ResourceGather": 2, "tf.ResourceScatterAdd": 3,
         "tf.ResourceScatterUpdate": 3, "tf.VariableShape": 1, "tf.CollectiveReduceV2": 4, "tf.RngReadAndSkip": 3}


def arity_problem(op: Operation, name: str) -> str | None:
    """TensorFlow's operand-count rule for ``op``, broken: the message; else None."""
    want, got = ARITY[name], len(op.operands)
    if got == want or (name == "tf.CollectiveReduceV2" and got > want):
        return None
    return f"expects {'at least ' if name == 'tf.CollectiveReduceV2' else ''}{want} operands, got {got}"


RULES: dict[str, Callable] = {
    "tf.AssignAddVariableOp": assign_update("tf.AddV2"),
    "tf.AssignSubVariableOp": assign_update("tf.Sub"),
    "tf.ResourceApplyGradientDescent": gradient_descent,
    "tf.ResourceApplyMomentum": momentum,
    "tf.ResourceApplyKerasMomentum": keras_momentum,
    "tf.ResourceApplyAdagrad": lambda op, e: adagrad(op, e, with_epsilon=False),
    "tf.ResourceApplyAdagradV2": lambda op, e: adagrad(op, e, with_epsilon=True),
    "tf.ResourceApplyAdam": adam,
    "tf.ResourceApplyRMSProp": rms_prop,
    "tf.ResourceApplyCenteredRMSProp": centered_rms_prop,
    "tf.ResourceApplyProximalAdagrad": proximal_adagrad,
    "tf.ResourceApplyFtrl": lambda op, e: ftrl(op, e, with_shrinkage=False),
    "tf.ResourceApplyFtrlV2": lambda op, e: ftrl(op, e, with_shrinkage=True),
    "tf.ResourceGather": resource_gather,
    "tf.ResourceScatterAdd": resource_scatter("tf.TensorScatterAdd"),
    "tf.ResourceScatterUpdate": resource_scatter("tf.TensorScatterUpdate"),
    "tf.VariableShape": variable_shape,
    "tf.CollectiveReduceV2": collective_reduce_without_token,
    "tf.RngReadAndSkip": rng_read_and_skip,
}
