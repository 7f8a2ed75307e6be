"""The ``Op`` base class, the op registry and tinytf's op traits.

Every TensorFlow op is one class: an xDSL operation (so the class is the IR node) that also
carries the op's rules as static methods. An op defines what applies to it:

    infer(*specs, **attrs)        shape and dtype rule: TensorSpecs in, a TensorSpec (or list) out
    compute(xp, *arrays, **attrs) reference semantics, written once for numpy and jax.numpy
    kernel(ctx, **attrs)          instead of compute, for ops that need TensorFlow's kernel API
    lower(*values, **attrs)       instead of compute under XLA, where numpy and JAX differ
    grad(op, *dys)                gradient, written with public tinytf ops; ``op`` has ``inputs``,
                                  ``outputs`` (tensors) and ``attrs`` (Python values)

and, where it applies, what the engines ask of it instead of keeping tables of op names:

    UFUNC                         the numpy ufunc that is compute on float arrays (np.add)
    compute_into(out, *arrays)    compute written into ``out``, bit for bit: a graph may pass a dying
                                  input's buffer (tinytf/runtime/forwarding.py)
    compute_for(**attrs)          compute with the attributes fixed, as a plain function of the arrays,
                                  for callers that checked the operands (static plans; float results)
    update(xp, *values, **attrs)  a VariableUpdate's new variable values (tinytf/ops/variable_updates.py)
    BATCHING / batch(...)         how to evaluate over a stack of inputs (tinytf/autodiff/batching.py)
    CallsFunctions trait          the op runs functions of its module (calls, If, Case, While)

``Op.bind(*inputs, **attrs)`` hands the op to the current context (eager, tracing, or a tape
wrapping either). That is the whole dispatch story.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, FileLineColLoc, SymbolRefAttr
from xdsl.irdl import IRDLOperation, irdl_op_definition, traits_def
from xdsl.traits import ConstantLike, HasCanonicalizationPatternsTrait, OpTrait
from xdsl.utils.exceptions import VerifyException

from tinytf.errors import InvalidArgumentError
from tinytf.framework import attributes, context
from tinytf.framework.attributes import REQUIRED, AttrSpec

REGISTRY: dict[str, type[Op]] = {}
# Ops tinytf knows only as IR: they parse, verify (TensorFlow's checks) and print, but have no rules to run
# (XLA-only and TPU ops, region control flow, quantized types tinytf does not model). They are no part of
# the op API (not in REGISTRY: no tt.raw_ops entry, no registry-walk test asks them for rules); running
# one raises UnimplementedError naming it, as for an unknown op.
IR_ONLY: dict[str, type[Op]] = {}

# Rewrite patterns xDSL's ``canonicalize`` runs on every tf op; tinytf.passes adds constant folding.
CANONICALIZATION_PATTERNS: list = []


@dataclass(frozen=True)
class TFCanonicalization(HasCanonicalizationPatternsTrait):
    """Hands ``canonicalize`` the patterns in ``CANONICALIZATION_PATTERNS`` (filled by upper layers)."""

    @classmethod
    def get_canonicalization_patterns(cls):
        return tuple(CANONICALIZATION_PATTERNS)


class Op(IRDLOperation):
    """Base of every ``tf.*`` op class; see the module docstring for the rules an op defines."""

    traits = traits_def(TFCanonicalization())  # IRDL adds a base class's traits to each subclass's

    @classmethod
    def bind(cls, *inputs, **attrs):
        try:
            ctx = context._local.top
        except AttributeError:
            ctx = context.current()
        return ctx.execute(cls, inputs, attrs)

    @classmethod
    def attr_specs(cls) -> dict[str, AttrSpec]:
        return cls.__tf_attrs__

    @classmethod
    def complete_attrs(cls, attrs: dict) -> dict:
        """``attrs`` with defaults filled in; InvalidArgumentError for unknown or missing ones."""
        specs = cls.__tf_attrs__
        for key in attrs:
            if key not in specs:
                raise InvalidArgumentError(f"{cls.name}: unknown attribute '{key}'", cls.name)
        out = {}
        for key, spec in specs.items():
            if key in attrs and attrs[key] is not None:
                out[key] = attrs[key]
            elif spec.default is REQUIRED:
                raise InvalidArgumentError(f"{cls.name}: missing attribute '{key}'", cls.name)
            else:
                out[key] = spec.default
        return out

    def attr_values(self) -> dict:
        """This op's attributes as Python values (defaults where the IR leaves one out)."""
        out = {}
        for key, spec in self.__tf_attrs__.items():
            if spec.derived:
                out[key] = getattr(self, key)
                continue
            raw = self.properties.get(key)
            if raw is None:
                raw = self.attributes.get(key)  # TF text that never became a property
            if raw is not None:
                out[key] = attributes.to_python(spec.kind, raw, f"{self.name} attribute '{key}'")
            elif spec.default is REQUIRED:
                raise InvalidArgumentError(f"{self.name}: missing attribute '{key}'", self.name)
            else:
                out[key] = spec.default
        return out

    @classmethod
    def attrs_to_properties(cls, attrs: dict) -> dict:
        specs = cls.__tf_attrs__
        props = {k: attributes.from_python(specs[k].kind, attrs[k]) for k in sorted(attrs) if not specs[k].derived}
        # TensorFlow prints properties sorted by name; a false unit attribute is left out.
        return {k: v for k, v in props.items() if v is not None}

    # TensorFlow's constraints on attribute values beyond their kind, as its op definitions state them:
    # {name: constraint}, a constraint being a callable on the raw attribute with a ``description``
    # (tinytf/ops/verifiers.py makes them: ``i64_array(4)``, ``one_of("SAME", "VALID")``, ...).
    ATTR_CONSTRAINTS: ClassVar[dict] = {}

    def verify_(self) -> None:
        """TensorFlow's checks, in its order: the attributes (its op definitions' ``requires attribute
        'k'`` and ``attribute 'k' failed to satisfy constraint: ...``), then the class's ``verify_ir``."""
        for key, spec in self.__tf_attrs__.items():
            if spec.derived:
                try:
                    getattr(self, key)
                except Exception as err:  # a malformed type must become a diagnostic
                    raise VerifyException(str(err)) from None
                continue
            raw = self.properties.get(key)
            if raw is None:
                raw = self.attributes.get(key)
            if raw is None:
                if spec.default is REQUIRED:
                    raise VerifyException(f"{self.name}: missing attribute '{key}' (requires attribute '{key}')")
                continue
            constraint = self.ATTR_CONSTRAINTS.get(key)
            try:
                attributes.to_python(spec.kind, raw, f"{self.name} attribute '{key}'")
            except Exception as err:  # a malformed attribute must become a diagnostic
                what = constraint.description if constraint is not None else _ODS_KINDS.get(spec.kind, spec.kind)
                raise VerifyException(f"{err} (attribute '{key}' failed to satisfy constraint: {what})") from None
            if constraint is not None and not constraint(raw):
                raise VerifyException(f"attribute '{key}' failed to satisfy constraint: {constraint.description}")
        self.verify_ir()

    def verify_ir(self) -> None:
        """TensorFlow's structural checks of this op, as its op definition and C++ verifier make them
        (operand and result counts, ranks and shapes, what constant operands may hold): raise xDSL's
        ``VerifyException`` with TensorFlow's message; the driver prefixes ``'tf.X' op``. Unknown
        ranks and dims pass. None by default."""


# How TensorFlow's op definitions name the attribute kinds, in "failed to satisfy constraint: ..." messages.
_ODS_KINDS = {"bool": "bool attribute", "unit": "unit attribute", "int": "64-bit signless integer attribute",
              "float": "32-bit float attribute", "str": "string attribute", "ints": "64-bit integer array attribute",
              "floats": "32-bit float array attribute", "strs": "string array attribute", "type": "any type attribute",
              "types": "type array attribute", "shape": "TensorFlow shape attribute",
              "shapes": "tensorflow shape attribute array", "func": "symbol reference attribute",
              "tensor": "constant vector/tensor attribute"}


# What an op class defines besides its operands, results and attributes: the rules (see the module
# docstring and the engines' declared hooks) and what xDSL's operations already have.
RULE_NAMES = frozenset({"infer", "compute", "compute_into", "compute_for", "kernel", "lower", "grad", "update",
                        "batch", "bind", "name", "traits", "verify_ir"})
RESERVED_FIELD_NAMES = RULE_NAMES | {k for k in dir(IRDLOperation) if not k.startswith("_")}


def tf_name(field: str) -> str:
    """TensorFlow's name of an operand, result or attribute field: a field whose TensorFlow name is a
    rule's (MaxPoolGrad's ``grad`` operand) is spelled with a trailing underscore (``grad_``)."""
    return field[:-1] if field.endswith("_") and field[:-1] in RULE_NAMES else field


def _check_field_names(cls) -> None:
    """An operand, result or attribute must not hide a rule or an xDSL member of the op class."""
    definition = cls.get_irdl_definition()
    fields = [k for k, _ in definition.operands] + [k for k, _ in definition.results] + \
        [k for k in cls.__tf_attrs__ if not cls.__tf_attrs__[k].derived]
    clashes = sorted(set(fields) & RESERVED_FIELD_NAMES)
    if clashes:
        raise TypeError(f"{cls.name}: operand/result/attribute name(s) {clashes} hide the op's rules or xDSL members; "
                        "spell them with a trailing underscore (tf_name strips it)")


def register(cls: type[Op], registry: dict | None = None) -> type[Op]:
    """Define ``cls`` as an xDSL operation and add it to the registry (or ``registry``) under its ``name``."""
    specs = {}
    for klass in reversed(cls.__mro__):
        for key, value in vars(klass).items():
            if hasattr(value, "tinytf_attr"):
                specs[key] = AttrSpec(key, *value.tinytf_attr)
            elif hasattr(value, "tinytf_derived"):
                specs[key] = AttrSpec(key, *value.tinytf_derived, derived=True)
    cls = irdl_op_definition(cls)
    cls.__tf_attrs__ = specs
    _check_field_names(cls)
    (REGISTRY if registry is None else registry)[cls.name] = cls
    return cls


def register_ir_only(cls: type[Op]) -> type[Op]:
    """Define ``cls`` as an op tinytf knows only as IR (see ``IR_ONLY``): it needs no ``infer`` or ``compute``."""
    return register(cls, IR_ONLY)


def lookup(name: str) -> type[Op] | None:
    """The op class of ``name``: a registered op's, or an IR-only op's."""
    return REGISTRY.get(name) or IR_ONLY.get(name)


SOURCE_SPAN = "_tt_span"  # where tinytf.mlir's parser found an op (an xDSL Span), for diagnostics


def location(op) -> str:
    """``file:line:col`` of an IR op (its own, or its nearest parent's), or ``""`` when unknown."""
    while op is not None:
        if isinstance(op.location, FileLineColLoc):
            loc = op.location
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        span = op.__dict__.get(SOURCE_SPAN)
        if span is not None:
            where = span.get_location()
            return f"{where.file}:{where.line}:{where.col}"
        op = op.parent_op()
    return ""


# --- traits ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class NoConstantFold(OpTrait):
    """Constant folding must leave this op alone (tf.Identity keeps int8 weights int8)."""


@dataclass(frozen=True)
class Commutative(OpTrait):
    """The op's two operands may be swapped."""


@dataclass(frozen=True)
class Elementwise(OpTrait):
    """Applied element by element, with TensorFlow's broadcasting."""


@dataclass(frozen=True)
class NotDifferentiable(OpTrait):
    """Gradients through this op are None (integer results, comparisons, shapes, ...)."""


@dataclass(frozen=True)
class NoGradient(OpTrait):
    """TensorFlow registers no gradient for this op: differentiating through it raises LookupError
    (where a NotDifferentiable op's gradient is None)."""


@dataclass(frozen=True)
class ResourceOp(OpTrait):
    """Reads or writes a variable through a resource or ref operand."""


@dataclass(frozen=True)
class ReturnsOperands(OpTrait):
    """The results are the operands, unchanged (Identity, IdentityN, StopGradient): an engine may pass
    the values through instead of running the op."""


@dataclass(frozen=True)
class CallsFunctions(OpTrait):
    """The op runs functions of its module, named by its function attributes ``functions``; ``kind`` says
    how: "call" the one function, "if" (operand 0 picks the first or the second), "case" (operand 0
    indexes the list), "while" (cond, body), "cluster" (a compiled cluster: XLA runs the function).
    Engines run such ops by their kind; the ops have no compute or kernel."""

    kind: str
    functions: tuple = ()

    def callees(self, op) -> list[str]:
        """The names of the functions ``op`` calls, in the order of ``functions`` (a list attribute,
        Case's ``branches``, gives each of its symbols). InvalidArgumentError when one is missing."""
        names = []
        for key in self.functions:
            raw = op.properties.get(key) or op.attributes.get(key)
            refs = raw.data if isinstance(raw, ArrayAttr) else (raw,)
            if not refs or not all(isinstance(r, SymbolRefAttr) for r in refs):
                name = op.op_name.data if hasattr(op, "op_name") else op.name
                raise InvalidArgumentError(f"'{name}' op needs a function attribute '{key}'", name)
            names.extend(r.root_reference.data for r in refs)
        return names

    def callee_arguments(self, op, operand_index: int) -> list[tuple[str, int]]:
        """(function, argument index) pairs that operand ``operand_index`` of ``op`` becomes: operand 0 of
        an "if" or "case" is the predicate or index, the rest are the functions' arguments."""
        if self.kind in ("if", "case"):
            return [(f, operand_index - 1) for f in self.callees(op)] if operand_index > 0 else []
        return [(f, operand_index) for f in self.callees(op)]


def calls_functions(op_or_cls) -> CallsFunctions | None:
    """The op's CallsFunctions trait, or None (an op class or an IR op, registered or not)."""
    return op_or_cls.get_trait(CallsFunctions) if hasattr(op_or_cls, "get_trait") else None


def is_constant(op) -> bool:
    """A tinytf op whose value is known without inputs (tf.Const: xDSL's ConstantLike trait)."""
    return isinstance(op, Op) and has_trait(op, ConstantLike)


def has_trait(op_or_cls, trait: type[OpTrait]) -> bool:
    """Whether an op class or IR op has ``trait`` (an unregistered op has none: xDSL would say yes; a
    tape's stand-in for a traced call lists its traits in a tuple)."""
    if isinstance(op_or_cls.traits, tuple):
        return any(isinstance(t, trait) for t in op_or_cls.traits)
    return op_or_cls.has_trait(trait, value_if_unregistered=False)
