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

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.dialects.func import Func
from xdsl.ir import Dialect, Operation
from xdsl.parser import Parser
from xdsl.parser.attribute_parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError as XdslParseError
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

import tinytf.ops  # noqa: F401  (registers every op)
from tinytf.errors import InvalidArgumentError, NotFoundError, OpError, ParseError
from tinytf.framework import attributes
from tinytf.framework.op import REGISTRY, SOURCE_SPAN, location  # noqa: F401  (mlir.location)
from tinytf.framework.tf_types import TFType
from tinytf.ops.tf_device import TFDevice


def tf_dialect() -> Dialect:
    return Dialect("tf", [cls for name, cls in sorted(REGISTRY.items()) if name.startswith("tf.")], [])


def dialects() -> list[Dialect]:
    """Every dialect tinytf knows, as xDSL ``Dialect`` objects."""
    return [Builtin, Func, tf_dialect(), TFDevice, TFType]


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


class _TFParser(Parser):
    """Remembers where each op starts, so later diagnostics can say file:line:col."""

    line_offset = 0  # lines before this text in its file (a --split-input-file chunk)

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        if self.line_offset:
            span = dataclasses.replace(span, line_offset=self.line_offset)
        op = super().parse_operation()
        op.__dict__.setdefault(SOURCE_SPAN, span)
        return op

    def parse_dense_int_or_fp_elements_attr(self, type_) -> DenseIntOrFPElementsAttr:
        """xDSL's, except that a splat stays one element, as MLIR stores it: xDSL expands
        ``dense<0.0> : tensor<4096x4096xf32>`` into a 16M-element list and 64 MiB of bytes."""
        self.parse_punctuation("<", " in dense attribute")
        contents = None  # empty; or a hex string; or (elements, shape), shape [] for a splat
        if self.parse_optional_punctuation(">") is None:
            contents = self.parse_optional_str_literal()
            if contents is None:
                contents = self._parse_tensor_literal()
            self.parse_punctuation(">", " in dense attribute")
        if type_ is None:
            self.parse_punctuation(":", " in dense attribute")
            type_ = self._parse_dense_literal_type()
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


def parse_text(text: str, name: str = "<string>", ctx: Context | None = None, line_offset: int = 0) -> ModuleOp:
    """Parse MLIR text (never a file name) into a module; ``ParseError`` with file:line:col on bad text."""
    _check_text(text, name, line_offset)
    parser = None
    try:
        parser = _TFParser(ctx or context(), text, name)  # lexes the first token: may raise already
        parser.line_offset = line_offset
        if parser._current_token.kind is MLIRTokenKind.EOF:  # nothing but blanks and comments
            raise ParseError("empty input: expected a module or operations", name, 1 + line_offset, 1)
        return parser.parse_module()
    except XdslParseError as err:
        where = err.span.get_location()
        raise ParseError(err.msg, name, where.line + line_offset, where.col) from None
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
    with attributes.verifying():  # a constant too large to run is still well formed
        for op in module.walk():
            _verify_op(op)


def _verify_op(op: Operation) -> None:
    try:
        op.verify(verify_nested_ops=False)
    except Exception as err:
        message = str(err).strip().splitlines()
        detail = next((line for line in message if "does not verify" in line or line), str(err))
        detail = detail.split("Operation does not verify: ")[-1]
        where = location(op)
        raise InvalidArgumentError(f"{where + ': ' if where else ''}'{op.name}' op {detail}", op.name) from None


# --- printing ----------------------------------------------------------------------------------

# MLIR elides the dialect of these ops in custom form, as TensorFlow's exports show.
_SHORT_NAMES = {"builtin.module": "module", "func.return": "return"}


class TFPrinter(Printer):
    """xDSL's printer, printing as MLIR (and so TensorFlow) does: ``[1, 1]`` for i64 arrays, not
    ``[1 : i64, 1 : i64]``; ``0x7FC00000`` for NaN; ``module`` and ``return``, not
    ``builtin.module`` and ``func.return``."""

    _renamed: tuple[str, str] | None = None  # (xDSL name, MLIR name) of the op being started

    def print_op(self, op) -> None:
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
        if math.isnan(value) or math.isinf(value):
            self.print_string("0x" + type_.pack((value,))[::-1].hex().upper())
        else:
            super().print_float(value, type_)


def print(module: Operation, generic: bool = False) -> str:  # noqa: A001  (tinytf.mlir.print)
    """The module as MLIR text; ``generic=True`` prints every op in generic form."""
    out = io.StringIO()
    TFPrinter(stream=out, print_generic_format=generic).print_op(module)
    out.write("\n")
    return out.getvalue()


def round_trip(text: str) -> str:
    return print(parse(text))


__all__ = ["context", "dialects", "location", "parse", "parse_text", "print", "verify", "round_trip", "builtins"]
