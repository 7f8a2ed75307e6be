"""A fast path through xDSL's parser for the line shape that is the bulk of every TensorFlow export:

    %r = "tf.Op"(%a, %b#1) <{props}> {attrs} : (types) -> types

xDSL lexes such a line token by token in Python (about 40 tokens, most of them inside the repeated
``tensor<...>`` types and ``{device = ""}``). ``GenericOpFastPath`` reads the line's head (results,
name, operands) with one regular expression, and its tail (everything after the operand list) from
a cache keyed by the tail's text: a TF export repeats the same ``{device = ""} : (tensor<*xf32>,
tensor<*xf32>) -> tensor<*xf32>`` thousands of times. A tail not seen before is parsed once by
xDSL's own methods, on a parser of the same class over just that text. Types met anywhere else
(function signatures, custom-form ops) are cached by their text too.

It builds the same IR as xDSL's parser (the same op classes, operands, result types, properties,
attributes and value names; the same objects are simply shared between ops, as attributes are
immutable). Anything else — a forward reference, a type that does not match its value's, a
duplicate name, a region, a location, an op spread over lines, malformed text — leaves the parser
untouched and goes the ordinary way, which reports errors exactly where xDSL reports them.
"""
from __future__ import annotations

import gc
import re

from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

_VALUE = r"%(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
_RESULT = rf"{_VALUE}(?::[0-9]+)?"
_OPERAND = rf"{_VALUE}(?:#[0-9]+)?"
_SEPARATOR = r"[ \t]*,[ \t]*"

# results `=` "name" `(` operands `)` tail-of-the-line
_HEAD = re.compile(
    rf"(?:(?P<results>{_RESULT}(?:{_SEPARATOR}{_RESULT})*)[ \t]*=[ \t]*)?"
    r'"(?P<name>[^"\\\n]+)"'
    rf"\([ \t]*(?P<operands>{_OPERAND}(?:{_SEPARATOR}{_OPERAND})*)?[ \t]*\)"
    r"(?P<tail>[ \t]*[<{:][^\n]*)"
)
_NAME_AND_INDEX = re.compile(r"%([^#:,\s]+)(?:[#:]([0-9]+))?")

# a ranked or unranked tensor of a builtin or tf_type element type, with no encoding
_SIMPLE_TENSOR = re.compile(r"tensor<(?:\*x|(?:(?:[0-9]+|\?)x)*)(?:[a-z]+[0-9]*|!tf_type\.[a-z0-9_]+)>")
# an attribute dictionary with no brackets but those of strings: {tf._user_specified_name = "x"}
_FLAT_DICTIONARY = re.compile(r'\{(?:[^{}"<>\[\]()\n\\]|"[^"\\\n]*")*\}')

_FAILED = object()  # a tail the fast path could not read on its own line


class GenericOpFastPath(Parser):
    """A mixin for an xDSL ``Parser`` subclass (see the module docstring). The caches live as long
    as the parser: one text, one context, one set of aliases. ``enabled = False`` turns the fast
    path off (what the tests compare it with)."""

    enabled = True

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._tails: dict[str, object] = {}
        self._types: dict[str, object] = {}
        self._dictionaries: dict[str, dict] = {}
        self._declared_properties: dict[type, tuple[str, ...]] = {}

    # --- types --------------------------------------------------------------------------------

    def parse_optional_type(self):
        token = self._current_token
        if token.kind is not MLIRTokenKind.BARE_IDENT or token.text != "tensor" or not self.enabled:
            return super().parse_optional_type()
        start = token.span.start
        match = _SIMPLE_TENSOR.match(self.lexer.input.content, start)
        if match is None:
            return super().parse_optional_type()
        text = match.group()
        type_ = self._types.get(text)
        if type_ is None:
            type_ = super().parse_optional_type()
            if self._current_token.span.start >= match.end():  # (read exactly the matched text)
                self._types[text] = type_
            return type_
        self.lexer.pos = match.end()
        self._parser_state.current_token = self.lexer.lex()
        return type_

    def parse_optional_dictionary_attr_dict(self):
        """xDSL's, with flat dictionaries (a function argument's ``{tf._user_specified_name = "x"}``)
        cached by their text."""
        token = self._current_token
        if token.kind is not MLIRTokenKind.L_BRACE or not self.enabled:
            return super().parse_optional_dictionary_attr_dict()
        match = _FLAT_DICTIONARY.match(self.lexer.input.content, token.span.start)
        if match is None:
            return super().parse_optional_dictionary_attr_dict()
        text = match.group()
        entries = self._dictionaries.get(text)
        if entries is None:
            entries = super().parse_optional_dictionary_attr_dict()
            if self._current_token.span.start >= match.end():  # (read exactly the matched text)
                self._dictionaries[text] = entries
            return dict(entries)
        self.lexer.pos = match.end()
        self._parser_state.current_token = self.lexer.lex()
        return dict(entries)

    def parse_module(self, *args, **kwargs):
        """xDSL's, with Python's cyclic garbage collector paused: an op and its results refer to each
        other, and the collections a growing module triggers cost a third of a large parse."""
        paused = gc.isenabled()
        gc.disable()
        try:
            return super().parse_module(*args, **kwargs)
        finally:
            if paused:
                gc.enable()

    # --- generic ops --------------------------------------------------------------------------

    def parse_operation(self):
        op = self._parse_generic_line() if self.enabled else None
        return super().parse_operation() if op is None else op

    def _parse_generic_line(self):
        """The op on the current line, or None (nothing consumed) where xDSL's parser must read it."""
        token = self._current_token
        if token.kind is not MLIRTokenKind.PERCENT_IDENT and token.kind is not MLIRTokenKind.STRING_LIT:
            return None
        content = self.lexer.input.content
        head = _HEAD.match(content, token.span.start)
        if head is None:
            return None
        tail = self._tail(head.group("tail"))
        if tail is None:
            return None
        properties, attributes, inputs, outputs = tail

        operands = []
        operand_text = head.group("operands")
        if operand_text is not None:
            ssa_values = self.ssa_values
            for name, index in _NAME_AND_INDEX.findall(operand_text):
                values = ssa_values.get(name)
                index = int(index) if index else 0
                if values is None or index >= len(values):
                    return None  # a forward reference, or out of range: xDSL's way
                operands.append(values[index])
        if len(operands) != len(inputs) or any(v.type != t for v, t in zip(operands, inputs, strict=True)):
            return None

        results = []
        results_text = head.group("results")
        if results_text is not None:
            offset = head.start("results")
            for match in _NAME_AND_INDEX.finditer(results_text):
                name, size = match.group(1), int(match.group(2) or 1)
                if name in self.ssa_values or name in self.forward_ssa_references or any(r[0] == name for r in results):
                    return None
                results.append((name, size, Span(offset + match.start(), offset + match.end(1), self.lexer.input)))
            if sum(size for _, size, _ in results) != len(outputs):
                return None

        op_type = self._get_op_by_name(head.group("name"))
        declared = self._declared_properties.get(op_type)
        if declared is None:
            declared = tuple(op_type.get_irdl_definition().properties) if issubclass(op_type, IRDLOperation) else ()
            self._declared_properties[op_type] = declared
        if attributes and any(name in attributes for name in declared):  # (older text: properties among attributes)
            properties, attributes = dict(properties), dict(attributes)
            for name in declared:  # (in the order xDSL's parser moves them)
                if name in attributes and name not in properties:
                    properties[name] = attributes.pop(name)
        op = op_type.create(operands=operands, result_types=outputs, properties=properties, attributes=attributes)

        index = 0
        for name, size, span in results:
            self._register_ssa_definition(name, op.results[index:index + size], span)
            index += size
        self.lexer.pos = head.end()
        self._parser_state.current_token = self.lexer.lex()
        return op

    def _tail(self, text: str):
        """(properties, attributes, input types, output types) of ``<{...}> {...} : (...) -> ...``,
        read by xDSL's own methods once per distinct text; None where that text is not exactly one
        whole tail (a region, a location, an op that goes on to the next line, an error)."""
        tail = self._tails.get(text)
        if tail is None:
            tail = self._read_tail(text)
            self._tails[text] = tail
        return None if tail is _FAILED else tail

    def _read_tail(self, text: str):
        reader = type(self)(self.ctx, text, self.lexer.input.name)
        reader.attribute_aliases = self.attribute_aliases
        reader._types, reader._dictionaries = self._types, self._dictionaries
        try:
            properties = reader.parse_optional_properties_dict()
            attributes = reader.parse_optional_attr_dict()
            reader.parse_punctuation(":")
            function_type = reader.parse_function_type()
        except Exception:
            return _FAILED
        if reader._current_token.kind is not MLIRTokenKind.EOF:
            return _FAILED
        return properties, attributes, tuple(function_type.inputs.data), tuple(function_type.outputs.data)
