"""What the op classes' ``verify_ir`` checks read and say: TensorFlow's verifier vocabulary.

TensorFlow verifies an op twice over: its op definition (ODS) constrains each attribute, operand and
result type (``operand #0 must be tensor of bool values, but got 'tensor<2xi32>'``), then the op's
C++ ``verify()`` checks ranks, dims and constant operands. An op class states both in ``verify_ir``
with these helpers, in TensorFlow's words; unknown ranks and dims always pass:

    def verify_ir(self):
        v.check_types(self, operands={"reduction_indices": v.INDEX})
        v.check_reduction_dims(self.input, self.reduction_indices)

Shapes here are tuples (``None`` for ``?``) or ``None`` for an unranked tensor, as in TensorSpecs; an
operand defined by a constant has the constant's own type (TensorFlow's GetRankedTensorTypeForOperand).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.utils.exceptions import VerifyException

from tinytf.framework import diagnostics, tf_types

__all__: list[str] = []  # helpers, not op functions


def fail(message: str):
    """Report a verifier error (the driver prefixes ``'tf.X' op`` and the location)."""
    raise VerifyException(message)


# --- types ---------------------------------------------------------------------------------------

def type_of(value: SSAValue | Attribute) -> Attribute:
    """The value's type, or a constant operand's own type (its attribute's: TensorFlow reads a constant's
    shape off its value, as constant folding may leave the result type less precise)."""
    if not isinstance(value, SSAValue):
        return value
    attr = _constant_attr(value)
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return attr.type
    return value.type


def shape(value) -> tuple | None:
    """The ranked shape (``None`` dims unknown), or ``None`` for an unranked or non-tensor value."""
    type_ = type_of(value)
    if isinstance(type_, TensorType):
        return tf_types.shape_of(type_)
    return None


def rank(value) -> int | None:
    s = shape(value)
    return None if s is None else len(s)


def element(value) -> Attribute:
    return tf_types.element_type_of(value.type if isinstance(value, SSAValue) else value)


def is_float(value) -> bool:
    return tf_types.element_type_of(type_of(value)).name in _FLOAT_NAMES


_FLOAT_NAMES = {"f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2", "tf32"}


def has_rank(value, r: int) -> bool:
    """IsOfRankOrUnranked."""
    got = rank(value)
    return got is None or got == r


def rank_at_least(value, r: int) -> bool:
    got = rank(value)
    return got is None or got >= r


def rank_at_most(value, r: int) -> bool:
    got = rank(value)
    return got is None or got <= r


def num_elements(s: tuple | None) -> int | None:
    if s is None or any(d is None for d in s):
        return None
    return int(np.prod(s, dtype=np.int64)) if s else 1


def known(d) -> bool:
    return d is not None


# --- constant operands -------------------------------------------------------------------------

def _constant_attr(value: SSAValue):
    owner = value.owner
    name = getattr(owner, "name", None)
    if name in ("tf.Const", "arith.constant"):
        return owner.properties.get("value") or owner.attributes.get("value")
    return None


def const(value: SSAValue) -> np.ndarray | None:
    """A constant operand's value (``tf.Const`` or ``arith.constant`` of int, float or bool elements)."""
    attr = _constant_attr(value)
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    s = tf_types.shape_of(attr.type)
    if s is None or num_elements(s) is None or num_elements(s) > 1 << 16:
        return None
    values = attr.get_values()
    if len(values) == 1 and num_elements(s) != 1:
        values = list(values) * num_elements(s)  # a splat
    return np.asarray(values).reshape(s)


def const_ints(value: SSAValue) -> list[int] | None:
    array = const(value)
    if array is None or array.dtype.kind not in "iub":
        return None
    return [int(x) for x in array.reshape(-1)]


def dense_str(value: SSAValue) -> str:
    """A constant operand as MLIR prints it: ``dense<[4, 1]> : tensor<2xi32>``, ``dense<4> : tensor<1xi32>``."""
    array = const(value)
    type_ = type_of(value)
    if array is not None and array.size and (array == array.reshape(-1)[0]).all():  # a splat (one element too)
        body = _scalar_str(array.reshape(-1)[0])
    else:
        body = _array_str(array) if array is not None else "?"
    return f"dense<{body}> : {type_}"


def _scalar_str(x) -> str:
    if isinstance(x, np.bool_ | bool):
        return "true" if x else "false"
    return str(int(x)) if np.asarray(x).dtype.kind in "iu" else repr(float(x))


def _array_str(array: np.ndarray) -> str:
    if array.ndim == 0:
        return _scalar_str(array.item())
    return "[" + ", ".join(_array_str(a) if array.ndim > 1 else _scalar_str(a) for a in array) + "]"


# --- ODS type constraints -------------------------------------------------------------------------

@dataclass(frozen=True)
class TypeConstraint:
    """An operand or result type TensorFlow's op definition allows: ``description`` completes
    "must be ...", ``test`` takes the element type, ``rank`` (when given) the tensor's rank. TensorFlow's
    element type constraints (TF_Int32, TF_Float, TF_Bool, ...) also allow the matching ref type
    (``!tf_type.int32ref``); MLIR's own (I1) do not: ``refs=False``."""

    description: str
    test: Callable[[Attribute], bool]
    rank: int | None = None
    refs: bool = True

    def allows(self, type_: Attribute) -> bool:
        if not isinstance(type_, TensorType | UnrankedTensorType):
            return False
        if self.rank is not None and isinstance(type_, TensorType) and len(type_.get_shape()) != self.rank:
            return False
        element_ = type_.element_type
        return self.test(_drop_ref(element_) if self.refs else element_)


def _int(widths, signed=True):
    def test(e):
        return isinstance(e, IntegerType) and e.width.data in widths and \
            (e.signedness.data != Signedness.UNSIGNED) == signed
    return test


INDEX = TypeConstraint("tensor of 32/64-bit signed integer values", _int((32, 64)))
BOOL = TypeConstraint("tensor of bool values", _int((1,)))
FLOAT = TypeConstraint("tensor of floating-point values", lambda e: e.name in _FLOAT_NAMES)
F32 = TypeConstraint("tensor of 32-bit float values", lambda e: e.name == "f32")
TF_DTYPE = TypeConstraint("tensor of tf.dtype values", lambda e: True)
I1_SCALAR = TypeConstraint("0D tensor of 1-bit signless integer values", _int((1,)), rank=0, refs=False)


# tinytf's dtype name -> (the TF_* type constraint's name, its summary), as tf_op_base.td states them;
# TensorOf<[...]> lists them in the order of those names.
_ODS_TYPES = {"bfloat16": ("Bfloat16", "bfloat16"), "bool": ("Bool", "bool"),
              "complex128": ("Complex128", "128-bit complex"), "complex64": ("Complex64", "64-bit complex"),
              "float16": ("Float16", "16-bit float"), "float32": ("Float32", "32-bit float"),
              "float64": ("Float64", "64-bit float"), "int16": ("Int16", "16-bit integer"),
              "int32": ("Int32", "32-bit integer"), "int64": ("Int64", "64-bit integer"),
              "int8": ("Int8", "8-bit integer"), "uint16": ("Uint16", "16-bit unsigned integer"),
              "uint32": ("Uint32", "32-bit unsigned integer"), "uint64": ("Uint64", "64-bit unsigned integer"),
              "uint8": ("Uint8", "8-bit unsigned integer")}
_ODS_QUANTIZED = [("Qint16", "16-bit quantized integer"), ("Qint32", "32-bit quantized integer"),
                  ("Qint8", "8-bit quantized integer"), ("Quint16", "16-bit quantized unsigned integer"),
                  ("Quint8", "8-bit quantized unsigned integer")]


def tensor_of(names, quantized: bool = False) -> TypeConstraint:
    """TensorOf<[...]>: a tensor of one of the dtypes ``names`` (tinytf's dtype names), and of TensorFlow's
    quantized types (which tinytf does not model) when ``quantized``."""
    names = frozenset(names)
    entries = sorted([_ODS_TYPES[n] for n in names] + (_ODS_QUANTIZED if quantized else []))

    def test(e):
        try:
            return tf_types.dtype_from_element_type(e).name in names
        except Exception:  # noqa: BLE001  (a type tinytf does not model: a quantized one, say)
            return quantized and e.name.startswith("tf_type.q")
    return TypeConstraint("tensor of " + " or ".join(summary for _, summary in entries) + " values", test)


def _operand_indices(op, field: str, results: bool = False) -> tuple[list[int], bool]:
    """Flat indices of an operand (or result) field, and whether it is variadic."""
    values = getattr(op, field)
    variadic = isinstance(values, Sequence)
    group = op.results if results else op.operands
    members = values if variadic else ([values] if values is not None else [])
    return [i for i, v in enumerate(group) if any(v is m for m in members)], variadic


def check_types(op, operands: dict | None = None, results: dict | None = None) -> None:
    """ODS's operand and result type checks: ``operand #1 must be tensor of 32/64-bit signed integer
    values, but got 'tensor<f32>'`` (``variadic of ...`` for a variadic field)."""
    for kind, table in (("operand", operands), ("result", results)):
        group = op.results if kind == "result" else op.operands
        for field, constraint in (table or {}).items():
            indices, variadic = _operand_indices(op, field, results=kind == "result")
            for i in indices:
                type_ = group[i].type
                if not constraint.allows(type_):
                    what = ("variadic of " if variadic else "") + constraint.description
                    fail(f"{kind} #{i} must be {what}, but got '{type_}'")


# --- compatibility of types (TensorFlow's tf_type helpers) ----------------------------------------

def _drop_ref(e: Attribute) -> Attribute:
    if isinstance(e, tf_types.RefType):
        return tf_types.element_type_from_dtype(e.dtype)
    return e


def same_type(a: Attribute, b: Attribute) -> bool:
    """Type equality (tinytf's resource and variant types compare equal whatever their subtypes: compare
    the text too). The parser shares type objects, so identity settles most checks without printing."""
    return a is b or (a == b and str(a) == str(b))


def cast_compatible_type(a: Attribute, b: Attribute, ignore_ref_a: bool = False) -> Attribute | None:
    """GetCastCompatibleType: the refined type both fit, or None (shapes equal where known; resource
    subtypes compatible; any two variants compatible)."""
    if same_type(a, b):
        return b
    a_t = isinstance(a, TensorType | UnrankedTensorType)
    b_t = isinstance(b, TensorType | UnrankedTensorType)
    if a_t != b_t:
        return None
    if not a_t:
        if ignore_ref_a and isinstance(a, tf_types.RefType):
            a = _drop_ref(a)
            if same_type(a, b):
                return a
        if type(a) is not type(b):
            return None
        if not isinstance(a, tf_types.ResourceType | tf_types.VariantType):
            return None
        if isinstance(a, tf_types.VariantType):
            return a
        sa, sb = a.subtypes.data, b.subtypes.data
        if not sa:
            return b
        if not sb:
            return a
        if len(sa) != len(sb):
            return None
        refined = [cast_compatible_type(x, y) for x, y in zip(sa, sb)]
        return None if any(r is None for r in refined) else tf_types.ResourceType(refined)
    element_ = cast_compatible_type(a.element_type, b.element_type, ignore_ref_a)
    if element_ is None:
        return None
    sa, sb = tf_types.shape_of(a), tf_types.shape_of(b)
    if sa is None or sb is None:
        return tf_types.tensor_type(sb if sa is None else sa, element_)
    if len(sa) != len(sb) or any(x is not None and y is not None and x != y for x, y in zip(sa, sb)):
        return None
    return tf_types.tensor_type(tuple(x if x is not None else y for x, y in zip(sa, sb)), element_)


def cast_compatible(*types: Attribute) -> bool:
    """AreCastCompatible."""
    common = types[0]
    for t in types[1:]:
        common = cast_compatible_type(common, t)
        if common is None:
            return False
    return True


def broadcast_shape(a: tuple | None, b: tuple | None) -> tuple | None | bool:
    """MLIR's getBroadcastedShape: the broadcast shape, ``None`` when either is unranked, ``False`` when the
    shapes do not broadcast."""
    if a is None or b is None:
        return None
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x is None or y is None:
            out.append(y if x == 1 else x if y == 1 else (x if x is not None and x > 1 else y if y is not None
                                                          and y > 1 else None))
        elif x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return False
    return tuple(reversed(out))


def broadcast_compatible(a: Attribute, b: Attribute) -> bool:
    """TensorFlow's BroadcastCompatible of two tensor types: element types equal (refs dropped), shapes
    broadcast."""
    ea, eb = _drop_ref(tf_types.element_type_of(a)), _drop_ref(tf_types.element_type_of(b))
    if ea != eb and not (isinstance(ea, tf_types.ResourceType | tf_types.VariantType) and type(ea) is type(eb)):
        return False
    return broadcast_shape(tf_types.shape_of(a) if isinstance(a, TensorType) else None,
                           tf_types.shape_of(b) if isinstance(b, TensorType) else None) is not False


def check_types_compatibility(types: Sequence[Attribute], mask_one_dim: bool = False) -> None:
    """VerifyTypesCompatibility: the ranked types have one rank and equal known dims (but one dim, with
    ``mask_one_dim``: Concat's axis)."""
    common_rank = None
    common: list = []
    masked = None
    for t in types:
        if not isinstance(t, TensorType):
            continue
        s = tf_types.shape_of(t)
        if common_rank is None:
            common_rank, common = len(s), [None] * len(s)
        elif common_rank != len(s):
            fail(f"operand type '{t}' is not compatible with preceding operands; expected rank: {common_rank}")
        for i, d in enumerate(s):
            if i == masked or d is None:
                continue
            if common[i] is None:
                common[i] = d
            elif common[i] != d:
                if mask_one_dim and masked is None:
                    masked = i
                    continue
                fail(f"operand type '{t}' is not compatible with preceding operands; expected dimension at index "
                     f"{i}: {common[i]}")


def check_ranges_compatible(desc0: str, types0: Sequence, desc1: str, types1: Sequence) -> None:
    """VerifyTypeRangesAreCompatible."""
    if len(types0) != len(types1):
        fail(f"{desc0}s (size = {len(types0)}) should have the same number of values as {desc1}s "
             f"(size = {len(types1)})")
    for i, (t0, t1) in enumerate(zip(types0, types1)):
        if not cast_compatible(t0, t1):
            fail(f"{desc0} type {t0} is incompatible with {desc1} type {t1} at index {i}")


def check_reduction_dims(input_, dims) -> None:
    """VerifyReductionInputAndDims."""
    if not isinstance(dims.type, TensorType):
        return
    if len(dims.type.get_shape()) > 1:
        fail("dimensions can only be 0D or 1D tensor")
    r = rank(input_) if isinstance(input_.type, TensorType) else None
    values = const_ints(dims)
    if r is None or values is None:
        return
    for i, d in enumerate(values):
        if d < -r or d >= r:
            fail(f"{i}-th dimension should be in the range of [-{r}, {r})")


# --- symbols --------------------------------------------------------------------------------------

def _symbol_in(scope, name: str):
    """The op named ``name`` directly in ``scope``'s regions (a symbol table's own symbols), or None."""
    for region in scope.regions:
        for block in region.blocks:
            for child in block.ops:
                sym = child.properties.get("sym_name") or child.attributes.get("sym_name")
                if isinstance(sym, StringAttr) and sym.data == name:
                    return child
    return None


def lookup_function(op, symbol: Attribute):
    """The ``func.func`` a symbol reference names (``@f``, or nested ``@module::@f``), searching the
    enclosing symbol tables as MLIR's lookupNearestSymbolFrom does, or None."""
    if isinstance(symbol, SymbolRefAttr):
        path = [symbol.root_reference.data, *(r.data for r in symbol.nested_references.data)]
    elif isinstance(symbol, StringAttr):
        path = [symbol.data]
    else:
        return None
    scope = op.parent_op()
    found = None
    while scope is not None and found is None:
        found = _symbol_in(scope, path[0])
        scope = scope.parent_op()
    for name in path[1:]:
        found = None if found is None else _symbol_in(found, name)
    return found if found is not None and found.name == "func.func" else None


def function_type(func) -> tuple[list, list]:
    """(argument types, result types) of a ``func.func``."""
    ft = func.function_type
    return list(ft.inputs.data), list(ft.outputs.data)


# --- ODS attribute constraints (Op.ATTR_CONSTRAINTS) -----------------------------------------------

@dataclass(frozen=True)
class AttrConstraint:
    description: str
    test: Callable[[Attribute], bool]

    def __call__(self, raw: Attribute) -> bool:
        try:
            return bool(self.test(raw))
        except Exception:  # noqa: BLE001  (an attribute of another shape does not satisfy it)
            return False


def _i64(x) -> bool:
    return isinstance(x, IntegerAttr) and isinstance(x.type, IntegerType) and x.type.width.data == 64


def i64_array(at_least: int = 0) -> AttrConstraint:
    """I64ArrayAttr (``with at least N elements``: ConfinedAttr<..., ArrayMinCount<N>>)."""
    text = "64-bit integer array attribute" + (f" with at least {at_least} elements" if at_least else "")
    return AttrConstraint(text, lambda a: isinstance(a, ArrayAttr) and len(a.data) >= at_least
                          and all(_i64(x) for x in a.data))


def one_of(*values: str, description: str | None = None) -> AttrConstraint:
    text = description or "string attribute whose value is " + ", or ".join(values)
    return AttrConstraint(text, lambda a: isinstance(a, StringAttr) and a.data in values)


F32_ATTR = AttrConstraint("32-bit float attribute", lambda a: isinstance(a, FloatAttr) and a.type.name == "f32")
DATA_FORMAT = one_of("NHWC", "NCHW", description="'NHWC' or 'NCHW' convnet data format")
PADDING = one_of("SAME", "VALID")
PADDING_EXPLICIT = one_of("SAME", "VALID", "EXPLICIT")


# --- TensorFlow's op traits ------------------------------------------------------------------------

def _resolved_element(type_: Attribute) -> Attribute:
    return _drop_ref(tf_types.element_type_of(type_))


def same_element_types(op) -> None:
    """TF_SameOperandsAndResultElementTypeResolveRef (as an op's ``verify_ir = v.same_element_types``)."""
    types = [r.type for r in op.results] or [o.type for o in op.operands]
    if not types:
        return
    want = _resolved_element(types[0])
    if any(not same_type(_resolved_element(t.type), want) for t in (*op.results, *op.operands)):
        fail("requires compatible element types for all operands and results")


def _same_shapes(types) -> bool:
    shapes = [tf_types.shape_of(t) for t in types if isinstance(t, TensorType)]
    return all(len(s) == len(shapes[0]) and all(a is None or b is None or a == b for a, b in zip(s, shapes[0]))
               for s in shapes)


def same_types(op) -> None:
    """TF_SameOperandsAndResultTypeResolveRef: compatible shapes, then equal element types."""
    if not _same_shapes([x.type for x in (*op.operands, *op.results)]):
        fail("requires the same shape for all operands and results")
    same_element_types(op)


def operands_same_as_results_or_ref(op) -> None:
    """TF_OperandsSameAsResultsTypeOrRef (Identity)."""
    if not _same_shapes([x.type for x in (*op.operands, *op.results)]):
        fail("requires the same shape for all operands and results")
    first = op.results[0].type
    for r in op.results[1:]:
        if cast_compatible_type(first, r.type) is None:
            fail("requires all return types to have compatible element types")
    for o in op.operands:
        if cast_compatible_type(o.type, first, ignore_ref_a=True) is None:
            fail("requires all operands and results to have compatible element types")


def tensor_type(shape, element_type: Attribute) -> Attribute:
    return tf_types.tensor_type(shape, element_type)


def check_inferred(op, inferred: Sequence[Attribute]) -> None:
    """InferTypeOpInterface: the result types must be compatible with the inferred ones."""
    results = [r.type for r in op.results]
    if len(results) != len(inferred) or not all(cast_compatible(a, b) for a, b in zip(inferred, results)):
        why = (f"'{op.name}' op inferred type(s) '{', '.join(str(t) for t in inferred)}' are incompatible with "
               f"return type(s) of operation '{', '.join(str(t) for t in results)}'")
        raise diagnostics.Error("failed to infer returned types", errors=[why])  # MLIR reports both


def check_shape_result(operand_type: Attribute, result_type: Attribute, index: int | None = None, op=None) -> None:
    """VerifyShapeOperandAndResult (Shape, ShapeN, VariableShape): a 1-D result as long as the operand's rank;
    a static result of an unranked operand is only warned about (at ``op``: shape inference may be behind)."""
    which = "" if index is None else f" #{index}"
    if not isinstance(result_type, TensorType):
        return
    if len(result_type.get_shape()) != 1:
        fail(f"requires 1D type for result{which}")
    n = tf_types.shape_of(result_type)[0]
    if isinstance(operand_type, TensorType):
        r = len(operand_type.get_shape())
        if n is not None and r and n != r:
            fail(f"requires dimension size of result{which} to match rank of operand{which}")
    elif n is not None and op is not None:
        diagnostics.warn(op, f"has static shape result{which} for unranked operand{which}")
    if not _int((32, 64))(result_type.element_type):
        fail(f"requires int32 or int64 return type for result{which}")


def is_ranked(type_: Attribute) -> bool:
    return isinstance(type_, TensorType)


def compatible_shapes(a: Attribute, b: Attribute) -> bool:
    """MLIR's verifyCompatibleShape: equal ranks and equal known dims, when both are ranked."""
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)):
        return True
    sa, sb = tf_types.shape_of(a), tf_types.shape_of(b)
    return len(sa) == len(sb) and all(x is None or y is None or x == y for x, y in zip(sa, sb))


def check_branch_functions(op, branches: Sequence[tuple[str, Attribute]]) -> None:
    """VerifyCaseOrIfOpBranchFunctions (If, Case): each branch a defined function whose arguments take the
    op's operands (the first, the predicate or index, elided) and whose results are the op's."""
    inputs = [x.type for x in op.operands[1:]]
    results = [r.type for r in op.results]
    signatures = []
    for name, symbol in branches:
        func = lookup_function(op, symbol)
        if func is None:
            fail(f"expects {name} ({symbol}) to point to a defined function")
        args, outs = function_type(func)
        check_ranges_compatible(f"{name} input", args, "input", inputs)
        check_ranges_compatible(f"{name} result", outs, "result", results)
        signatures.append(args)
    for i in range(len(inputs)):
        types = [args[i] for args in signatures]
        if types and not cast_compatible(*types):
            fail(f"expects all branch input type(s) ({', '.join(str(t) for t in types)}) at index {i} to be cast "
                 "compatible")


def check_while_types(op, cond_inputs, body_inputs, body_results, shape_invariant: bool) -> None:
    """VerifyWhileTypes (While, WhileRegion)."""
    inputs = ("input", [x.type for x in op.operands])
    results = ("result", [r.type for r in op.results])
    regions = [("body result", list(body_results)), ("condition input", list(cond_inputs)),
               ("body input", list(body_inputs))]
    if not shape_invariant:
        check_ranges_compatible(inputs[0], inputs[1], results[0], results[1])
    for desc, types in regions[1:]:
        check_ranges_compatible(inputs[0], inputs[1], desc, types)
    for desc, types in regions:
        check_ranges_compatible(results[0], results[1], desc, types)
    for i in range(len(regions)):
        for j in range(i + 1, len(regions)):
            check_ranges_compatible(regions[i][0], regions[i][1], regions[j][0], regions[j][1])


def check_call(op, symbol: Attribute, args: Sequence, legacy: bool = False) -> None:
    """VerifyPartitionedCall: ``'f' attribute refers to an undefined function: @g``; the argument count.
    LegacyCall's verifier names the callee without its ``@`` and says ``argument(s)``."""
    func = lookup_function(op, symbol)
    callee = symbol.root_reference.data if legacy and isinstance(symbol, SymbolRefAttr) else str(symbol)
    if func is None:
        fail(f"'f' attribute refers to an undefined function: {callee}")
    n = len(function_type(func)[0])
    if len(args) != n:
        noun = "argument(s)" if legacy else "arguments"
        fail(f"argument count mismatch: 'args' has {len(args)} {noun}, but '{callee}' expects {n}")


def paddings_are_2d(op) -> None:
    """TF_OperandHasRank<1, 2> (Pad, PadV2, MirrorPad)."""
    r = rank(op.operands[1].type)
    if r is not None and r != 2:
        fail("failed to verify that operand 1 is 2-D")


def results_broadcastable(op) -> None:
    """MLIR's ResultsBroadcastableShape: the ranked operands broadcast together, and each ranked result's
    trailing dims are compatible with that shape."""
    ranked = [tf_types.shape_of(x.type) for x in op.operands if isinstance(x.type, TensorType)]
    if not ranked:
        return
    out = ranked[0]
    for s in ranked[1:]:
        out = broadcast_shape(out, s)
        if out is False:
            fail("operands don't have broadcast-compatible shapes")
    for r in op.results:
        if not isinstance(r.type, TensorType):
            continue
        got = tf_types.shape_of(r.type)
        suffix = got[len(got) - len(out):] if len(out) <= len(got) else got
        if len(suffix) != len(out) or any(a is not None and b is not None and a != b and b != 1
                                          for a, b in zip(suffix, out)):
            fail(f"result type {_shape_str(got)} not broadcast compatible with broadcasted operands's shapes "
                 f"{_shape_str(out)}")


def _shape_str(s) -> str:
    return "'" + "x".join("?" if d is None else str(d) for d in s) + "'"


def broadcast_binary(op) -> None:
    """ResultsBroadcastableShape, then TF_SameOperandsAndResultElementTypeResolveRef (AddV2, Mul, ...)."""
    results_broadcastable(op)
    same_element_types(op)


def check_cumulative(op) -> None:
    """TensorFlow's verifier of Cumsum, Cumprod and CumulativeLogsumexp: a scalar axis within the input's rank."""
    if not has_rank(op.axis.type, 0):
        fail("requires scalar axis operand")
    axis, r = const_ints(op.axis), rank(op.x.type)
    if axis and r is not None and not -r <= axis[0] < r:
        fail(f"axis operand should be within range [{-r}, {r}); actual value: {axis[0]}")


def check_unsorted_segment(op) -> None:
    """VerifyUnsortedSegmentReduction (UnsortedSegmentSum, -Max, -Min, -Prod)."""
    if not rank_at_most(op.num_segments.type, 0):
        fail("number of segments should be a 0-D tensor")
    data, ids = shape(op.data.type), shape(op.segment_ids.type)
    if data is not None and ids is not None:
        if len(data) < len(ids):
            fail("requires segment ids rank to be less than or equal to data's rank")
        for i, (a, b) in enumerate(zip(ids, data)):
            if a is not None and b is not None and a != b:
                fail(f"requires segment ids shape to be a prefix of data shape, but dimension #{i} differs: {a} vs. {b}")
    n = const_ints(op.num_segments)
    if n and n[0] < 0:
        fail("num of segments cannot be negative")
