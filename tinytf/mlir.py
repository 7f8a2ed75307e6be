"""MLIR text in and out: an xDSL context with every tinytf dialect, and parse / print / verify
that report problems as ``tinytf.errors`` with ``file:line:col``.

    >>> module = tinytf.mlir.parse('func.func @f(%x: tensor<f32>) -> tensor<f32> { ... }')
    >>> tinytf.mlir.verify(module)
    >>> print(tinytf.mlir.print(module))

Unknown ``tf.*`` ops and ``!tf_type.*`` types parse and print unchanged, as in TensorFlow. A splat
constant (``dense<0.0> : tensor<4096x4096xf32>``) stays one element (``attributes.is_splat``). Empty
input, NUL bytes and bytes that are not UTF-8 are ``ParseError``s at their location.
"""
from __future__ import annotations

import builtins
import dataclasses
import io
import math
import os
import re
from pathlib import Path
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloatConstr,
    ArrayAttr,
    Builtin,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    TensorType,
    UnrankedTensorType,
    UnregisteredAttr,
    i64,
)
from xdsl.dialects.cf import Cf
from xdsl.dialects.func import Func
from xdsl.dialects.scf import Scf
from xdsl.dialects.tensor import Tensor
from xdsl.ir import Dialect, Operation
from xdsl.irdl import (
    AnyAttr,
    ParamAttrConstraint,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
)
from xdsl.parser.attribute_parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError as XdslParseError
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

import tinytf.ops  # noqa: F401  (registers every op)
from tinytf.errors import InvalidArgumentError, NotFoundError, OpError, ParseError
from tinytf.framework import apfloat, attributes, diagnostics, string_elements, value_names
from tinytf.framework.generic_op_parser import GenericOpFastPath
from tinytf.framework.op import IR_ONLY, REGISTRY, SOURCE_SPAN, location  # noqa: F401  (mlir.location)
from tinytf.framework.tf_types import TensorProtoAttr, TFType
from tinytf.ops import tf_saved_model
from tinytf.ops.tf_device import TFDevice
from tinytf.ops.tf_executor import TFExecutor


def tf_dialect() -> Dialect:
    """TensorFlow's ops tinytf defines: the registered ones and those it knows only as IR (``op.IR_ONLY``)."""
    ops = {**IR_ONLY, **REGISTRY}
    return Dialect("tf", [cls for name, cls in sorted(ops.items()) if name.startswith("tf.")], [])


@irdl_op_definition
class ArithConstantOp(arith.ConstantOp):
    """``arith.constant``, taking any typed attribute as MLIR's does: TensorFlow's IR gives it string
    tensors (``dense<"a"> : tensor<!tf_type.string>``) and tensor protos, which xDSL's refuses."""

    name = "arith.constant"
    parse, print = classmethod(Operation.parse.__func__), Operation.print  # (the format makes them anew)
    result = result_def(arith.ConstantOp._T)
    value = prop_def(
        arith.ConstantOp.get_irdl_definition().properties["value"].constr
        | ParamAttrConstraint(string_elements.DenseStringElementsAttr, (arith.ConstantOp._T, AnyAttr()))
        | ParamAttrConstraint(TensorProtoAttr, (AnyAttr(), arith.ConstantOp._T))
    )

    def verify_(self) -> None:  # (not the inherited one: it checks xDSL's narrower definition)
        pass


def _float_binary_op(base: type) -> type:
    """xDSL's arith float binary op, taking unranked tensors too (``arith.addf %x, %x : tensor<*xf32>``, as in
    TensorFlow's tests): xDSL's accepts floats, vectors and ranked tensors only."""
    T = VarConstraint("T", arith.floatingPointLike | ParamAttrConstraint(UnrankedTensorType, (AnyFloatConstr,)))
    fields = {"name": base.name, "T": T, "lhs": operand_def(T), "rhs": operand_def(T), "result": result_def(T),
              "fastmath": prop_def(arith.FastMathFlagsAttr, default_value=arith.FastMathFlagsAttr("none")),
              "parse": classmethod(Operation.parse.__func__), "print": Operation.print,  # (the format makes them)
              "verify_": lambda self: None,  # (not the inherited one: it checks xDSL's narrower definition)
              "__doc__": base.__doc__, "__annotations__": {"T": ClassVar}, "__module__": __name__}
    return irdl_op_definition(type(base.__name__, (base,), fields))


_FLOAT_BINARY = {op: _float_binary_op(op) for op in (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp)}
Arith = Dialect("arith", [ArithConstantOp if op is arith.ConstantOp else _FLOAT_BINARY.get(op, op)
                          for op in arith.Arith.operations], list(arith.Arith.attributes))


def dialects() -> list[Dialect]:
    """Every dialect tinytf knows, as xDSL ``Dialect`` objects: TensorFlow's, and the upstream MLIR
    dialects TensorFlow's IR mixes in (``arith.constant``, ``tensor.cast``, ``cf.br``, ``scf.if``)."""
    return [Builtin, Func, Arith, Tensor, Cf, Scf, tf_dialect(), TFDevice, TFExecutor, tf_saved_model.TFSavedModel,
            TFType]


def context() -> Context:
    ctx = Context(allow_unregistered=True)
    for dialect in dialects():
        ctx.load_dialect(dialect)
    return ctx


# --- parsing -----------------------------------------------------------------------------------

def _hex_aware_to_type(self, parser, type_):
    """xDSL 0.74 reads ``dense<0x7FC00000> : tensor<f32>`` as the integer 2143289344; MLIR reads the
    bit pattern. Route hex literals of float element types through the bits."""
    text = self.span.text
    if text.lstrip("-")[:2].lower() == "0x" and hasattr(type_, "unpack") and hasattr(type_, "bitwidth"):
        bits = int(text, 16)
        return type_.unpack(bits.to_bytes(type_.bitwidth // 8, "little"), 1)[0]
    return _original_to_type(self, parser, type_)


_original_to_type = AttrParser._TensorLiteralElement.to_type
AttrParser._TensorLiteralElement.to_type = _hex_aware_to_type

# xDSL 0.74's string-literal regex nests `+` inside `*`: an unterminated string takes time
# exponential in its length (a 40-character one never returns). The same language, possessive:
MLIRLexer._unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


_TF_EXECUTOR_TYPES = frozenset(a.name for a in TFExecutor.attributes)


class _TFParser(GenericOpFastPath):
    """xDSL's parser with the fast path for TF's generic-form lines (``generic_op_parser``); remembers
    where each op starts, so later diagnostics can say file:line:col."""

    line_offset = 0  # lines before this text in its file (a --split-input-file chunk)

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        if self.line_offset:
            span = dataclasses.replace(span, line_offset=self.line_offset)
        op = super().parse_operation()
        op.__dict__.setdefault(SOURCE_SPAN, span)
        return op

    def resolve_operand(self, operand, type_):
        """xDSL's, with MLIR's message for a value used with two types; remembers where a value is first
        used before its definition (``parse_module`` reports a never-defined one there, as MLIR does)."""
        name = operand.operand_name
        if name not in self.ssa_values and name not in self.forward_ssa_references:
            self.__dict__.setdefault("_first_uses", {})[name] = operand.span
        try:
            return super().resolve_operand(operand, type_)
        except XdslParseError as err:
            if "previously used or defined with type" not in err.msg:
                raise
            prior = err.msg.rsplit(" with type ", 1)[1]
            prior_at = self.__dict__.get("_definitions", {}).get(name) or self.__dict__.get("_first_uses", {}).get(name)
            try:
                self.raise_error(f"use of value '{operand.span.text.split('#')[0]}' expects different type than "
                                 f"prior uses: '{type_}' vs '{prior}'", operand.span)
            except XdslParseError as mismatch:
                mismatch.notes = [(prior_at, "prior use here")] if prior_at is not None else []  # (parse_text places it)
                raise

    def _register_ssa_definition(self, name, values, span) -> None:
        self.__dict__.setdefault("_definitions", {})[name] = span  # where a value was defined, for notes
        return super()._register_ssa_definition(name, values, span)

    def parse_module(self, *args, **kwargs):
        """xDSL's; a value used but never defined where it is visible (one branch's value used in the other)
        is MLIR's ``use of undeclared SSA value name`` at its first use."""
        try:
            return super().parse_module(*args, **kwargs)
        except XdslParseError as err:
            names = [n for n in self.forward_ssa_references if n in self.__dict__.get("_first_uses", {})]
            if not err.msg.startswith("values used but not defined") or not names:
                raise
            self.raise_error("use of undeclared SSA value name", self._first_uses[names[0]])

    def _parse_extended_type_or_attribute(self, name: str, is_type: bool):
        """xDSL's, and: the type after ``#tf_type<tensor_proto : "0x..."> : tensor<4xf32>``; an opaque
        attribute of an unknown dialect whose body is not ``mnemonic ...`` (``#glue<"compare LTE">``)."""
        if "." not in name and self._current_token.kind is MLIRTokenKind.LESS:
            start = self._current_token.span.start
            self._consume_token(MLIRTokenKind.LESS)
            opaque = (self._current_token.kind is not MLIRTokenKind.BARE_IDENT and self.ctx.allow_unregistered
                      and self.ctx.get_optional_dialect(name) is None)
            if not opaque:
                self._resume_from(start)
            else:
                body_start = self._current_token.span.start
                end = self._raw_scan_balanced(body_start)
                body = self.lexer.input.content[body_start:end]
                self.lexer.pos = end
                self._parser_state.current_token = self.lexer.lex()
                self.parse_punctuation(">")
                return UnregisteredAttr.with_name_and_type(name, is_type)(name, is_type, False, body)
        attr = super()._parse_extended_type_or_attribute(name, is_type)
        if isinstance(attr, TensorProtoAttr) and self.parse_optional_punctuation(":") is not None:
            attr = attr.with_type(self.parse_type())
        return attr

    def _parse_dialect_type_or_attribute_body(self, name: str, is_type: bool, *args):
        """xDSL's; a ``!tf_executor.*`` type the dialect does not define is TensorFlow's error, not an
        unregistered type."""
        if is_type and name.startswith("tf_executor.") and name not in _TF_EXECUTOR_TYPES:
            at = self.lexer.input.content.rfind("!" + name, 0, self._current_token.span.start)  # (the type's own line)
            self.raise_error(f"unknown tf_executor type: {name.split('.', 1)[1]}", at if at >= 0 else None)
        return super()._parse_dialect_type_or_attribute_body(name, is_type, *args)

    def _parse_dense_literal_type(self):
        return string_elements.parse_dense_type(self)  # xDSL's, and tensor<2x!tf_type.string>

    def parse_dense_int_or_fp_elements_attr(self, type_) -> DenseIntOrFPElementsAttr:
        """xDSL's, except that a splat stays one element, as MLIR stores it: xDSL expands
        ``dense<0.0> : tensor<4096x4096xf32>`` into a 16M-element list and 64 MiB of bytes."""
        self.parse_punctuation("<", " in dense attribute")
        contents = None  # empty; or a hex string; or (elements, shape), shape [] for a splat
        if self.parse_optional_punctuation(">") is None:
            contents = string_elements.parse_literal(self)  # (elements, shape): bytes or numbers
            self.parse_punctuation(">", " in dense attribute")
        if type_ is None:
            self.parse_punctuation(":", " in dense attribute")
            type_ = self._parse_dense_literal_type()
        if string_elements.is_string_type(type_):  # dense<"x"> : tensor<!tf_type.string>
            return string_elements.from_literal(self, type_, *(contents or ([], [0])))
        if contents is not None and not contents[1] and isinstance(contents[0][0], bytes):
            contents = contents[0][0].decode("utf-8", "replace")  # a hex string, "0x0000803F"
        shape = list(type_.get_shape())
        count = math.prod(shape)
        element = type_.element_type
        if contents is None:
            if count != 0:
                self.raise_error("Expected at least one element in the dense literal, but got None")
            return DenseIntOrFPElementsAttr(type_, BytesAttr(b""))
        if isinstance(contents, str):
            try:
                raw = bytes.fromhex(contents[2:])
            except ValueError:
                self.raise_error("Hex string in denseAttr is invalid")
            if len(raw) == element.compile_time_size:  # a splat in hex
                if count > 1:
                    return attributes.splat_dense(type_, raw)
                raw *= count
            attr = DenseIntOrFPElementsAttr(type_, BytesAttr(raw))
            if len(attr) != count:
                self.raise_error(f"Shape mismatch in dense literal. Expected {count} elements from the type, "
                                 f"but got {len(attr)} elements.")
            return attr
        elements, literal_shape = contents
        values = [value.to_type(self, element) for value in elements]
        if literal_shape and literal_shape != shape:
            self.raise_error(f"Shape mismatch in dense literal. Expected {shape} shape from the type, "
                             f"but got {literal_shape} shape.")
        if not literal_shape and count != 1:  # a splat
            if count == 0:
                return DenseIntOrFPElementsAttr(type_, BytesAttr(b""))
            one = DenseIntOrFPElementsAttr.from_list(TensorType(element, []), values)  # packs as xDSL does
            return attributes.splat_dense(type_, one.data.data)
        return DenseIntOrFPElementsAttr.from_list(type_, values)


def is_path(text_or_path) -> bool:
    """Whether ``parse`` reads its argument as a file name: a ``Path``, or a one-line string with no
    ``{`` that is not blank and holds no NUL byte (those are MLIR text, to be reported as such)."""
    if isinstance(text_or_path, os.PathLike):
        return True
    return (isinstance(text_or_path, str) and bool(text_or_path.strip())
            and not any(c in text_or_path for c in "\n{\0"))


def decode(data: bytes, name: str, line_offset: int = 0) -> str:
    """UTF-8 text of a file's bytes; ``ParseError`` at the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + 1
        col = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        raise ParseError(f"invalid UTF-8 byte 0x{data[err.start]:02X}", name, line + line_offset, col) from None


def read_text(text_or_path) -> tuple[str, str]:
    """(text, name): a path (see ``is_path``) is read, a string of MLIR is taken as is."""
    if not is_path(text_or_path):
        return text_or_path, "<string>"
    path = os.fspath(text_or_path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise NotFoundError(f"cannot read {path}: {err.strerror}") from None
    except ValueError as err:  # a NUL byte in a Path's name
        raise NotFoundError(f"cannot read {path!r}: {err}") from None
    return decode(data, path), path


def _check_text(text: str, name: str, line_offset: int) -> None:
    """A NUL byte, reported where it is (xDSL would echo the NUL itself in its message)."""
    nul = text.find("\0")
    if nul >= 0:
        line = text.count("\n", 0, nul) + 1
        raise ParseError("NUL byte in the input", name, line + line_offset, nul - text.rfind("\n", 0, nul))


def parse(text_or_path, name: str | None = None, ctx: Context | None = None, line_offset: int = 0) -> ModuleOp:
    """Parse MLIR text (or a file) into a module; ``ParseError`` with file:line:col on bad text."""
    text, default_name = read_text(text_or_path)
    return parse_text(text, name or default_name, ctx, line_offset)


def parse_text(text: str, name: str = "<string>", ctx: Context | None = None, line_offset: int = 0,
               allow_empty: bool = False) -> ModuleOp:
    """Parse MLIR text (never a file name) into a module; ``ParseError`` with file:line:col on bad text.
    Text of nothing but blanks and comments is a ``ParseError`` too, unless ``allow_empty`` (a case of
    a ``--split-input-file`` input: MLIR reads it as an empty module)."""
    _check_text(text, name, line_offset)
    parser = None
    try:
        parser = _TFParser(ctx or context(), text, name)  # lexes the first token: may raise already
        parser.line_offset = line_offset
        if parser._current_token.kind is MLIRTokenKind.EOF:  # nothing but blanks and comments
            if allow_empty:
                return ModuleOp([])
            raise ParseError("empty input: expected a module or operations", name, 1 + line_offset, 1)
        return parser.parse_module()
    except XdslParseError as err:
        where = err.span.get_location()
        error = ParseError(err.msg, name, where.line + line_offset, where.col)
        here = f"{name}:{where.line + line_offset}:{where.col}"
        error.related = [("error", here, text) for text in getattr(err, "errors", ())] + \
            [("note", f"{name}:{at.line + line_offset}:{at.col}", text)  # (its notes, located)
             for at, text in ((span.get_location(), text) for span, text in getattr(err, "notes", ()))]
        raise error from None
    except OpError:
        raise
    except Exception as err:  # xDSL can fail in other ways on malformed text: still one clear error
        line, col = (1, 1)
        if parser is not None:
            where = parser._current_token.span.get_location()
            line, col = where.line, where.col
        message = f"malformed MLIR ({type(err).__name__}: {err})"
        raise ParseError(message, name, line + line_offset, col) from None


# --- verifying ---------------------------------------------------------------------------------

def verify(module: Operation) -> None:
    """Check every op's invariants; InvalidArgumentError ``file:line:col: 'op' message`` on the first bad one."""
    errors = verify_each(module, first_only=True)
    if errors:
        raise errors[0]


def verify_each(module: Operation, first_only: bool = False) -> list[InvalidArgumentError]:
    """The first error of each op at the top of ``module`` (a function, say), in order, as MLIR's
    verifier reports them: within one function it stops at the first bad op. An op's own checks come
    before the ops inside it, its region checks (``verify_regions_``: terminators) after them."""
    errors = []
    with attributes.verifying():  # a constant too large to run is still well formed
        units = [op for region in module.regions for block in region.blocks for op in block.ops]
        try:
            _verify_op(module)
        except InvalidArgumentError as err:
            return [err]
        for unit in units:
            try:
                _verify_tree(unit)
            except InvalidArgumentError as err:
                errors.append(err)
                if first_only:
                    return errors
        try:
            if hasattr(module, "verify_regions_"):
                _verify_op(module, module.verify_regions_)
        except InvalidArgumentError as err:
            errors.append(err)
    return errors


def _verify_tree(root: Operation) -> None:
    stack: list[tuple[Operation, object]] = [(root, None)]  # (op, None | a check to run after its nested ops)
    while stack:
        op, after = stack.pop()
        if after is not None:
            _verify_op(op, after)
            continue
        try:
            _verify_op(op)
        except InvalidArgumentError as err:
            if _NOT_A_TERMINATOR not in str(err):
                raise
            # MLIR checks a block's terminator on leaving the block: the op's own errors come first
            _verify_op(op, op.verify_)
            stack.append((op, _no_terminator(op)))
        if hasattr(op, "verify_regions_"):
            stack.append((op, op.verify_regions_))
        stack.extend((child, None) for region in reversed(op.regions) for block in reversed(region.blocks)
                     for child in reversed(list(block.ops)))


_NOT_A_TERMINATOR = "terminates block in single-block region but is not a terminator"


class _BlockError(VerifyException):
    """An error about a block, reported at an op of it without the ``'op' op`` prefix (MLIR's emitError)."""


def _no_terminator(op: Operation):
    def check():
        raise _BlockError(f"block with no terminator, has '{op.name}'")

    return check


_VARIADIC_COUNT = re.compile(r"^Expected at least (\d+) operands?, but got (\d+)")


def _verify_op(op: Operation, check=None) -> None:
    if check is None:  # an op's dialect attributes first, as MLIR verifies them on entering the op
        tf_saved_model.verify_attributes(op)
    try:
        op.verify(verify_nested_ops=False) if check is None else check()
    except Exception as err:
        op = getattr(err, "subject_op", op)  # an error about another op (a region's terminator) is reported there
        message = str(err).strip().splitlines()
        detail = next((line for line in message if "does not verify" in line or line), str(err))
        detail = detail.split("Operation does not verify: ")[-1]
        detail = detail.removeprefix(f"'{op.name}' ")  # (xDSL names the op in some messages: we do)
        detail = _VARIADIC_COUNT.sub(r"expected \1 or more operands, but found \2", detail)  # MLIR's words
        where = location(op)
        prefix = "" if isinstance(err, _BlockError) else f"'{op.name}' op "
        error = InvalidArgumentError(f"{where + ': ' if where else ''}{prefix}{detail}", op.name)
        error.related = diagnostics.related(err, where, location)  # notes and further errors, located
        raise error from None


# --- printing ----------------------------------------------------------------------------------

# MLIR elides the dialect of these ops in custom form, as TensorFlow's exports show.
_SHORT_NAMES = {"builtin.module": "module", "func.return": "return"}


class TFPrinter(Printer):
    """xDSL's printer, printing as MLIR (and so TensorFlow) does: ``[1, 1]`` for i64 arrays, not
    ``[1 : i64, 1 : i64]``; floats as LLVM's APFloat writes them (``8.000000e+00``, ``0.00704810954``)
    and ``0x7FC00000`` for NaN; ``module`` and ``return``, not ``builtin.module`` and ``func.return``;
    attribute dictionaries sorted by name; values and blocks named as MLIR names them, not as the text
    did (``%arg0``, ``%0``, ``%cst``, ``%outputs:2, %control``, ``%0#1``, ``^bb1``: see ``tinytf.framework.value_names``)."""

    _renamed: tuple[str, str] | None = None  # (xDSL name, MLIR name) of the op being started
    _names: value_names.Names | None = None  # MLIR's names for everything under the op printed

    def _name(self, op: Operation) -> value_names.Names:
        if self._names is None:
            top = op
            while top.parent_op() is not None:  # (an op printed alone is named as in its whole module)
                top = top.parent_op()
            self._names = value_names.Names(top, generic=self.print_generic_format)
        return self._names

    def print_ssa_value(self, value) -> str:
        name = self._names.values.get(value) if self._names is not None else None
        if name is None:  # a value from outside what is printed
            return super().print_ssa_value(value)
        self.print_string(f"%{name}")
        return name

    def _print_results(self, op) -> None:
        if not op.results:
            return
        text = self._name(op).results.get(op)
        if text is None:
            return super()._print_results(op)
        self.print_string(text)
        self.print_string(" = ")

    def _populate_block_name(self, block, block_index: int | None = None) -> None:
        name = self._names.blocks.get(block) if self._names is not None else None
        if name is None:
            return super()._populate_block_name(block, block_index)
        self._blocks[block] = name

    def print_attr_dict(self, attr_dict) -> None:
        super().print_attr_dict(dict(sorted(attr_dict.items())))  # MLIR's DictionaryAttr is sorted

    def print_op(self, op) -> None:
        self._name(op)
        short = None if self.print_generic_format else _SHORT_NAMES.get(op.name)
        self._renamed = (op.name, short) if short and not op.results else None
        super().print_op(op)

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if self._renamed is not None:  # the first string of a renamed op is its name
            long_name, short = self._renamed
            self._renamed = None
            text = short if text == long_name else text
        super().print_string(text, indent=indent)

    def print_attribute(self, attribute) -> None:
        if isinstance(attribute, string_elements.DenseStringElementsAttr):
            string_elements.print_attr(self, attribute)
            return
        if isinstance(attribute, TensorProtoAttr):
            super().print_attribute(attribute)
            if not isinstance(attribute.type, NoneAttr):
                self.print_string(" : ")
                self.print_attribute(attribute.type)
            return
        if isinstance(attribute, ArrayAttr):
            self.print_string("[")
            self.print_list(attribute.data, self._print_array_element)
            self.print_string("]")
            return
        super().print_attribute(attribute)

    def _print_array_element(self, attribute) -> None:
        if isinstance(attribute, IntegerAttr) and attribute.type == i64:
            self.print_string(str(attribute.value.data))
        else:
            self.print_attribute(attribute)

    def print_float(self, value: float, type_) -> None:
        semantics = apfloat.SEMANTICS.get(type_.name)
        if semantics is None:
            return super().print_float(value, type_)
        text = None if math.isnan(value) or math.isinf(value) else apfloat.mlir_float_text(value, *semantics)
        if text is None:  # MLIR prints the bit pattern
            text = "0x" + _float_bits(value, type_).hex().upper()
        self.print_string(text)


def _float_bits(value: float, type_) -> bytes:
    """The big-endian bytes of ``value`` in the float type ``type_``."""
    if type_.name == "bf16":
        import ml_dtypes  # (comes with JAX; only for a bfloat16 NaN, infinity or huge integer)
        import numpy as np

        return np.array(value, ml_dtypes.bfloat16).tobytes()[::-1]
    return type_.pack((value,))[::-1]


def print(module: Operation, generic: bool = False, debuginfo: bool = False) -> str:  # noqa: A001
    """The module as MLIR text; ``generic=True`` prints every op in generic form, as MLIR also does
    when an op with a custom form does not verify (its custom form may not read back);
    ``debuginfo=True`` prints each op's ``loc(...)``."""
    out = io.StringIO()
    generic = generic or not _custom_forms_verify(module)
    TFPrinter(stream=out, print_generic_format=generic, print_debuginfo=debuginfo).print_op(module)
    out.write("\n")
    return out.getvalue()


def _custom_forms_verify(module: Operation) -> bool:
    """Whether every op printed in a custom form verifies (the others print the same either way)."""
    with attributes.verifying():
        for op in module.walk():
            if type(op).print is Operation.print:
                continue
            try:
                op.verify(verify_nested_ops=False)
                if hasattr(op, "verify_regions_"):
                    op.verify_regions_()
            except Exception:
                return False
    return True


def round_trip(text: str) -> str:
    return print(parse(text))


__all__ = ["context", "dialects", "location", "parse", "parse_text", "print", "verify", "round_trip", "builtins"]
