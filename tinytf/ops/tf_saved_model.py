"""The ``tf_saved_model`` dialect's verifiers: what TensorFlow checks of a module that stands for a SavedModel.

    module attributes {tf_saved_model.semantics} {
      "tf_saved_model.global_tensor"() {is_mutable, sym_name = "v", type = tensor<f32>, value = dense<1.0> : tensor<f32>} : () -> ()
      func.func @f(%x: tensor<f32> {tf_saved_model.index_path = [0]},
                   %v: tensor<!tf_type.resource<tensor<f32>>> {tf_saved_model.bound_input = @v})
          -> (tensor<f32> {tf_saved_model.index_path = []}) attributes {tf_saved_model.exported_names = ["f"]}
      "tf_saved_model.session_initializer"() {initializers = [@init]} : () -> ()
    }

Its ops (``global_tensor``, ``session_initializer``, ``asset``) print in generic form, as TensorFlow's do,
and check themselves; ``verify_attributes`` gives the module, its functions and their argument and result
attributes TensorFlow's checks, in its words and at its locations:
exported functions public and the rest private, every argument an ``index_path`` (first) or a
``bound_input`` of a global tensor or asset of the matching type, exported names unique, one session
initializer whose functions exist, are exported once and return nothing, no internal calls of an
exported function. ``tinytf.mlir`` calls it before an op's own checks, as MLIR verifies dialect
attributes on entering an op.
"""
from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_prop_def, prop_def
from xdsl.utils.exceptions import VerifyException

from tinytf.errors import InvalidArgumentError
from tinytf.framework import tf_types
from tinytf.framework.op import location

__all__: list[str] = []  # the dialect's checks, not op functions

PREFIX = "tf_saved_model."
SEMANTICS = PREFIX + "semantics"
EXPORTED_NAMES = PREFIX + "exported_names"
BOUND_INPUT = PREFIX + "bound_input"
INDEX_PATH = PREFIX + "index_path"
UNDER_CONSTRUCTION = PREFIX + "under_construction"
INITIALIZER_TYPE = PREFIX + "initializer_type"
GLOBAL_TENSOR, SESSION_INITIALIZER, ASSET = (PREFIX + k for k in ("global_tensor", "session_initializer", "asset"))
INITIALIZER_TYPES = ("restore_op", "init_op")


def fail(op, message: str, notes=()):
    """An error at ``op`` (MLIR's ``emitError``: no ``'op' op`` prefix) with notes [(op, text)] at others."""
    where = location(op)
    error = InvalidArgumentError(f"{where + ': ' if where else ''}{message}", op_name(op))
    error.related = [("note", location(other) or where, text) for other, text in notes]
    raise error


def op_name(op) -> str:
    return op.op_name.data if hasattr(op, "op_name") else op.name


def get(op, key: str):
    """An attribute of ``op``, inherent (``<{...}>``) or not."""
    props = getattr(op, "properties", {})
    return props.get(key) or op.attributes.get(key)


def verify_attributes(op) -> None:
    """TensorFlow's tf_saved_model dialect checks of ``op``: its own ``tf_saved_model.*`` attributes (a
    module's ``semantics`` checks the whole module), a function's argument and result attributes. Cheap
    for everything else. (The dialect's ops check themselves: their ``verify_``.)"""
    for key in [k for k in op.attributes if k.startswith(PREFIX)]:
        _check_op_attribute(op, key, op.attributes[key])
    if op.name == "func.func":
        _check_function_attributes(op)


# --- attributes on ops --------------------------------------------------------------------------

def _check_op_attribute(op, key: str, value) -> None:
    name = op_name(op)
    if key == EXPORTED_NAMES:
        if name not in ("func.func", GLOBAL_TENSOR):
            fail(op, f"'{EXPORTED_NAMES}' must be on a 'func' or '{GLOBAL_TENSOR}' op")
        if not (isinstance(value, ArrayAttr) and all(isinstance(s, StringAttr) for s in value.data)):
            fail(op, f"'{EXPORTED_NAMES}' must be an array of strings")
        parent = op.parent_op()
        if parent is None or SEMANTICS not in parent.attributes:
            fail(op, f"'{EXPORTED_NAMES}' must be on an op whose immediate parent has attribute '{SEMANTICS}'")
        if name == "func.func":
            _check_exported_function(op)
    elif key == SEMANTICS:
        if name != "builtin.module":
            fail(op, f"'{SEMANTICS}' must be on a module op")
        _check_module(op)
    elif key == UNDER_CONSTRUCTION:
        pass
    elif key == INITIALIZER_TYPE:
        if name != "func.func":
            fail(op, f"Attribute {INITIALIZER_TYPE} should be on a func::FuncOp")
        if not isinstance(value, StringAttr):
            fail(op, f"{INITIALIZER_TYPE} should be a StringAttr")
        if value.data not in INITIALIZER_TYPES:
            fail(op, f"{INITIALIZER_TYPE} should be one of 'restore_op' or 'init_op'. Got: {value.data}")
    else:
        fail(op, f"unknown tf_saved_model dialect attribute '{key}'")


def _arg_attrs(func) -> list[dict]:
    return _attr_dicts(func.arg_attrs, len(func.function_type.inputs.data))


def _result_attrs(func) -> list[dict]:
    return _attr_dicts(func.res_attrs, len(func.function_type.outputs.data))


def _attr_dicts(raw, n: int) -> list[dict]:
    if not isinstance(raw, ArrayAttr):
        return [{} for _ in range(n)]
    return [dict(d.data) if isinstance(d, DictionaryAttr) else {} for d in raw.data]


def _module_of(op):
    parent = op.parent_op()
    while parent is not None and parent.name != "builtin.module":
        parent = parent.parent_op()
    return parent


def _check_exported_function(func) -> None:
    """VerifyExportedFunc: index paths, then bound inputs (each once), or resource names while under
    construction; every result an index path."""
    module = _module_of(func)
    building = module is not None and UNDER_CONSTRUCTION in module.attributes
    args = _arg_attrs(func)
    bound_seen = False
    for attrs in args:
        if BOUND_INPUT in attrs:
            bound_seen = True
        elif INDEX_PATH in attrs:
            if bound_seen:
                fail(func, f"all '{INDEX_PATH}' arg attributes should precede all '{BOUND_INPUT}' arg attributes")
        elif "tf.resource_name" in attrs:
            if not building:
                fail(func, "'tf.resource_name' attribute is not allowed unless it is being under construction")
        else:
            fail(func, f"all arguments should have '{INDEX_PATH}', '{BOUND_INPUT}' or 'tf.resource_name' attributes")
    bound = set()
    for attrs in args:
        ref = attrs.get(BOUND_INPUT)
        if isinstance(ref, SymbolRefAttr) and not ref.nested_references.data:
            if ref.root_reference.data in bound and not building:
                fail(func, f"duplicate '{BOUND_INPUT}' binding")
            bound.add(ref.root_reference.data)
    if any(INDEX_PATH not in attrs for attrs in _result_attrs(func)):
        fail(func, f"all results should have '{INDEX_PATH}' attributes")


# --- argument and result attributes of functions ------------------------------------------------

def _check_function_attributes(func) -> None:
    inputs = func.function_type.inputs.data
    for i, attrs in enumerate(_arg_attrs(func)):
        for key, value in attrs.items():
            if not key.startswith(PREFIX):
                continue
            if key == BOUND_INPUT:
                _check_bound_input(func, inputs[i], value)
            elif key == INDEX_PATH:
                _check_index_path(func, value)
            else:
                fail(func, f"unknown tf_saved_model dialect arg attribute '{key}'")
    for attrs in _result_attrs(func):
        for key, value in attrs.items():
            if key == INDEX_PATH:
                _check_index_path(func, value)
            elif key.startswith(PREFIX):
                fail(func, f"unknown tf_saved_model dialect result attribute '{key}'")


def _check_index_path(func, value) -> None:
    if not isinstance(value, ArrayAttr):
        fail(func, f"'{INDEX_PATH}' attribute should be an ArrayAttr")
    for element in value.data:
        if isinstance(element, StringAttr):
            continue
        if isinstance(element, IntegerAttr) and isinstance(element.type, IntegerType) and element.type.width.data == 64:
            continue
        fail(func, f"'{INDEX_PATH}' elements should be strings or 64-bit integers")


def _symbol(module, name: str):
    for op in module.body.block.ops if module is not None else ():
        sym = get(op, "sym_name")
        if isinstance(sym, StringAttr) and sym.data == name:
            return op
    return None


def _check_bound_input(func, arg_type, value) -> None:
    """A bound input names a global tensor (argument: a resource of its type) or an asset (a string)."""
    if not (isinstance(value, SymbolRefAttr) and not value.nested_references.data):
        fail(func, f"'{BOUND_INPUT}' attribute should be a FlatSymbolRefAttr")
    name = value.root_reference.data
    target = _symbol(_module_of(func), name)
    if target is None:
        fail(func, f"'{BOUND_INPUT}' attribute must reference a valid symbol, got invalid symbol '{name}'")
    kind = op_name(target)
    if kind == GLOBAL_TENSOR:
        expected = tf_types.tensor_type((), tf_types.ResourceType([get(target, "type")]))
    elif kind == ASSET:
        expected = tf_types.tensor_type((), tf_types.StringType())
    else:
        fail(target, "unknown symbol operation")
    if str(arg_type) != str(expected):
        fail(func, f"bound input with type '{arg_type}' expected to have type '{expected}'")


# --- the dialect's ops ----------------------------------------------------------------------------

@irdl_op_definition
class GlobalTensorOp(IRDLOperation):
    """A variable (``is_mutable``) or a constant of the SavedModel; functions take it as a bound input.

        "tf_saved_model.global_tensor"() <{is_mutable, sym_name = "v", type = tensor<2xf32>, value = dense<0.0> : tensor<2xf32>}> : () -> ()
    """

    name = GLOBAL_TENSOR
    sym_name = prop_def(StringAttr)
    type = prop_def(Attribute)
    value = opt_prop_def(Attribute)
    is_mutable = opt_prop_def(UnitAttr)

    def verify_(self) -> None:
        type_, value = self.type, self.value
        if value is not None and isinstance(type_, TensorType | UnrankedTensorType):
            if not _compatible_tensor_types(type_, getattr(value, "type", None)):
                raise VerifyException("'type' and 'value' attributes should have compatible tensor types")
        if self.is_mutable is None:
            shape = tf_types.shape_of(type_) if isinstance(type_, TensorType) else None
            if shape is None or any(d is None for d in shape):
                raise VerifyException(f"'type' attribute for immutable '{GLOBAL_TENSOR}' should have a static shape")


@irdl_op_definition
class SessionInitializerOp(IRDLOperation):
    """The functions a session runs once before serving (TF1's init and restore ops), each exported once
    and returning nothing.  "tf_saved_model.session_initializer"() <{initializers = [@init]}> : () -> ()"""

    name = SESSION_INITIALIZER
    initializers = prop_def(ArrayAttr)

    def verify_(self) -> None:
        for name in _initializer_names(self):
            func = _symbol(self.parent_op(), name)
            if func is None or op_name(func) != "func.func":
                raise VerifyException("the initializer function does not exist")
            if func.function_type.outputs.data:
                raise VerifyException("the initializer function should have no output")
            exported = _exported_names(func)
            if not exported:
                raise VerifyException("the initializer function should be exported")
            if len(exported) != 1:
                raise VerifyException("the initializer function should have only one exported name")


@irdl_op_definition
class AssetOp(IRDLOperation):
    """A file the SavedModel ships (``assets/``); functions take its path as a bound input.

        "tf_saved_model.asset"() <{filename = "assets/vocab.txt", sym_name = "vocab"}> : () -> ()
    """

    name = ASSET
    sym_name = prop_def(StringAttr)
    filename = prop_def(StringAttr)


TFSavedModel = Dialect("tf_saved_model", [GlobalTensorOp, SessionInitializerOp, AssetOp], [])


def _compatible_tensor_types(a, b) -> bool:
    if not isinstance(b, TensorType | UnrankedTensorType) or a.element_type != b.element_type:
        return False
    if not (isinstance(a, TensorType) and isinstance(b, TensorType)):
        return True
    sa, sb = tf_types.shape_of(a), tf_types.shape_of(b)
    return len(sa) == len(sb) and all(x is None or y is None or x == y for x, y in zip(sa, sb))


def _initializer_names(op) -> list[str]:
    refs = get(op, "initializers")
    refs = refs.data if isinstance(refs, ArrayAttr) else ()
    return [r.root_reference.data for r in refs if isinstance(r, SymbolRefAttr)]


def _exported_names(op) -> list[str]:
    names = get(op, EXPORTED_NAMES)
    return [s.data for s in names.data if isinstance(s, StringAttr)] if isinstance(names, ArrayAttr) else []


# --- the module -----------------------------------------------------------------------------------

def _check_module(module) -> None:
    """VerifySavedModelModule."""
    body = list(module.body.block.ops)
    first_owner: dict[str, object] = {}
    for op in body:
        names = op.attributes.get(EXPORTED_NAMES)
        if names is None:
            continue
        _check_op_attribute(op, EXPORTED_NAMES, names)
        for s in names.data:
            if s.data in first_owner:
                fail(op, f"duplicate exported name '{s.data}'", notes=[(first_owner[s.data], "previously seen here")])
            first_owner[s.data] = op
    functions = [op for op in body if op.name == "func.func"]
    for func in functions:
        exported = EXPORTED_NAMES in func.attributes
        public = func.sym_visibility is None or func.sym_visibility.data == "public"
        if exported and not public:
            fail(func, f"exported function @{func.sym_name.data} should be public")
        if not exported and public:
            fail(func, f"non-exported function @{func.sym_name.data} should be private")
        if not exported and (any(BOUND_INPUT in a or INDEX_PATH in a for a in _arg_attrs(func))
                             or any(INDEX_PATH in a for a in _result_attrs(func))):
            fail(func, "can only apply 'tf_saved_model' argument attributes to exported functions")
    initializers = [op for op in body if op_name(op) == SESSION_INITIALIZER]
    if len(initializers) > 1:
        fail(initializers[1], "there must be no more than one session_initializer op")
    init_functions = set(_initializer_names(initializers[0])) if initializers else set()
    seen_types: set[str] = set()
    for name in _initializer_names(initializers[0]) if initializers else ():
        func = _symbol(module, name)
        kind = get(func, INITIALIZER_TYPE) if func is not None else None
        if isinstance(kind, StringAttr):
            if kind.data in seen_types:
                fail(func, f"Attribute {INITIALIZER_TYPE} should not have duplicate values. Found duplicate: "
                           f"\"{kind.data}\"")
            seen_types.add(kind.data)
    _check_symbol_uses(module, functions, init_functions)


def _check_symbol_uses(module, functions, init_functions: set[str]) -> None:
    """No op refers to an exported function but the session initializer to its own; an unknown op with
    regions might be a symbol table of its own, which TensorFlow refuses to guess about."""
    exported = {f.sym_name.data: f for f in functions if EXPORTED_NAMES in f.attributes}
    for op in module.walk():
        if op is module:
            continue
        if op.name == "builtin.unregistered" and op.regions:
            fail(module, f"modules with '{SEMANTICS}' must have analyzable symbol uses")
        for value in (*getattr(op, "properties", {}).values(), *op.attributes.values()):
            for ref in _symbol_refs(value):
                func = exported.get(ref)
                if func is None:
                    continue
                if ref in init_functions and op_name(op) == SESSION_INITIALIZER:
                    continue
                fail(op, "exported function cannot be internally referenced",
                     notes=[(func, "references this exported function")])


def _symbol_refs(value):
    if isinstance(value, SymbolRefAttr):
        yield value.root_reference.data
    elif isinstance(value, ArrayAttr):
        for v in value.data:
            yield from _symbol_refs(v)
    elif isinstance(value, DictionaryAttr):
        for v in value.data.values():
            yield from _symbol_refs(v)
