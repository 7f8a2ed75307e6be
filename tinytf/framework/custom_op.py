"""``tt.register_op``: a user-defined op with its kernel, shape rule, gradient and lowering.

    def kernel(ctx, *, alpha):                     # TensorFlow's kernel API (an OpKernelContext)
        den = 1 + alpha * np.abs(ctx.input(0))     # (a local name for the input would block forwarding)
        out, _ = ctx.forward_input_or_allocate_output([0], 0, den.shape, den.dtype)
        np.divide(ctx.input(0), den, out=out)      # in place when the input was dying

    softsign = tt.register_op(
        "ScaledSoftsign", inputs=["x"], outputs=["y"], attrs={"alpha": 1.0},
        kernel=kernel, shape_fn=lambda x, *, alpha: x,
        grad=lambda op, dy: [dy / tt.square(1 + op.attrs["alpha"] * tt.math.abs(op.inputs[0]))],
        lower=lambda x, *, alpha: x / (1 + alpha * abs(x)))
    y = softsign(x, alpha=2.0)       # eager, in tt.function, under GradientTape and XLA alike

The op becomes a class like the library's (an xDSL operation in the ``tf`` dialect, in the
registry and ``tt.raw_ops``), so it prints as ``"tf.ScaledSoftsign"(%x) <{alpha = 2.0 : f32}>``
and parses back. See examples/custom_op.py.
"""
from __future__ import annotations

import keyword
import re

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from tinytf.errors import AlreadyExistsError, InvalidArgumentError
from tinytf.framework.attributes import attr
from tinytf.framework.op import (
    REGISTRY,
    RESERVED_FIELD_NAMES,
    NoConstantFold,
    NotDifferentiable,
    Op,
    ResourceOp,
    register,
)

_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]*$")


def _check_identifier(op_name: str, what: str, key: str, taken: set) -> None:
    if not key.isidentifier() or keyword.iskeyword(key) or key.startswith("_") or key in RESERVED_FIELD_NAMES:
        raise InvalidArgumentError(f"register_op({op_name}): {what} name '{key}' is not usable")
    if key in taken:
        raise InvalidArgumentError(f"register_op({op_name}): name '{key}' is used twice")
    taken.add(key)


def register_op(name: str, *, inputs, outputs=("output",), attrs: dict | None = None, kernel=None, compute=None,
                shape_fn, grad=None, lower=None, stateful: bool = False, doc: str | None = None):
    """Define and register op ``tf.<name>``; returns its public function ``f(*inputs, **attrs)``
    (with ``f.op_class`` the op class).

    - ``inputs`` / ``outputs``: operand and result names, TensorFlow's argument names.
    - ``attrs``: ``{name: default}``, or ``{name: (default, kind)}`` where the default does not say
      the kind (see tinytf.framework.attributes); ``None`` as default makes the attr required.
    - ``kernel(ctx, **attrs)``: fills ``ctx``'s outputs (TensorFlow's kernel API), or
      ``compute(xp, *arrays, **attrs)``: returns them (runs on numpy and jax.numpy).
    - ``shape_fn(*specs, **attrs)``: TensorSpecs in, a TensorSpec (or list, one per output) out;
      raise InvalidArgumentError on bad input.
    - ``grad(op, *dys)``: input gradients written with tinytf ops (None: not differentiable).
    - ``lower(*values, **attrs)``: the op in JAX, for XLA (default: ``compute`` with jax.numpy).
    - ``stateful``: the op reads or writes variables (it gets them as Variables; no folding).
    """
    if not isinstance(name, str) or not _NAME.match(name.removeprefix("tf.")):
        raise InvalidArgumentError(f"register_op: op name {name!r} must be CamelCase (TensorFlow's op names)")
    full = name if name.startswith("tf.") else f"tf.{name}"
    if full in REGISTRY:
        raise AlreadyExistsError(f"register_op: op {full} is already registered", full)
    if kernel is None and compute is None:
        raise InvalidArgumentError(f"register_op({full}): give a kernel(ctx, **attrs) or compute(xp, *arrays, **attrs)")
    if not callable(shape_fn):
        raise InvalidArgumentError(f"register_op({full}): shape_fn(*specs, **attrs) is required")
    outputs = [f"output_{i}" for i in range(outputs)] if isinstance(outputs, int) else list(outputs)
    inputs, attrs = list(inputs), dict(attrs or {})
    taken: set = set()
    namespace: dict = {"name": full, "__doc__": doc or f"User-defined op {full} (tt.register_op).",
                       "__module__": __name__}
    for key in inputs:
        _check_identifier(full, "input", key, taken)
        namespace[key] = operand_def()
    for key in outputs:
        _check_identifier(full, "output", key, taken)
        namespace[key] = result_def()
    for key, spec in attrs.items():
        _check_identifier(full, "attr", key, taken)
        default, kind = spec if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str) else (spec, None)
        if default is None and kind is None:
            raise InvalidArgumentError(f"register_op({full}): required attr '{key}' needs a kind: (None, \"int\")")
        try:
            namespace[key] = attr(default, kind=kind) if default is not None else attr(kind=kind)
        except TypeError as err:
            raise InvalidArgumentError(f"register_op({full}): attr '{key}': {err}") from None
    traits = [NoConstantFold(), ResourceOp()] if stateful else [Pure()]
    if grad is None:
        traits.append(NotDifferentiable())
    namespace["traits"] = traits_def(*traits)
    namespace["infer"] = staticmethod(shape_fn)
    for rule, fn in (("kernel", kernel), ("compute", compute), ("grad", grad), ("lower", lower)):
        if fn is not None:
            namespace[rule] = staticmethod(fn)
    cls = register(type(full.removeprefix("tf."), (Op,), namespace))

    def op(*args, **kwargs):
        if len(args) != len(inputs):
            raise InvalidArgumentError(f"{full} takes {len(inputs)} inputs ({', '.join(inputs)}), got {len(args)}",
                                       full)
        kwargs.pop("name", None)
        return cls.bind(*args, **kwargs)

    op.__name__ = op.__qualname__ = full.removeprefix("tf.")
    op.__doc__ = namespace["__doc__"]
    op.op_class = cls
    return op


def unregister_op(name: str) -> None:
    """Remove a user-defined op from the registry (tests; the op's class stays usable where held)."""
    full = name if name.startswith("tf.") else f"tf.{name}"
    cls = REGISTRY.get(full)
    if cls is None or cls.__module__ != __name__:
        raise InvalidArgumentError(f"unregister_op: {full} is not a user-defined op")
    del REGISTRY[full]


__all__ = ["register_op", "unregister_op"]
