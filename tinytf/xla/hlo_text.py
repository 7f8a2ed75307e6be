"""HLO text in TensorFlow's entry convention.

JAX lowers a computation with flat parameters and returns a single result untupled. TensorFlow's
``-mlir-tf-to-hlo-text`` prints the entry computation with all parameters in one tuple
(``-tf-xla-emit-use-tuple-args``) and, with ``-tf-xla-emit-return-tuple``, a tuple result even for
one output. These rewrites change only how the entry computation receives its parameters and
hands back its result, exactly as XLA's own tuple conventions do:

    p.1 = f32[] parameter(0)          ->   arg_tuple.0 = (f32[], f32[]) parameter(0)
    p.2 = f32[] parameter(1)               p.1 = f32[] get-tuple-element(arg_tuple.0), index=0
                                           p.2 = f32[] get-tuple-element(arg_tuple.0), index=1
    ROOT add.1 = f32[] add(...)       ->   add.1 = f32[] add(...)
                                           ROOT tuple.0 = (f32[]) tuple(add.1)
"""
from __future__ import annotations

import re

_PARAM = re.compile(r"^(\s*)(ROOT )?(\S+) = (\S+) parameter\((\d+)\)(.*)$")
_ROOT = re.compile(r"^(\s*)ROOT (\S+) = (.*)$")


def _entry_span(lines: list[str]) -> tuple[int, int]:
    start = next(i for i, line in enumerate(lines) if line.startswith("ENTRY "))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("}"))
    return start, end


def _fresh(text: str, base: str) -> str:
    name, i = f"{base}.0", 0
    while re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", text):
        i += 1
        name = f"{base}.{i}"
    return name


def _split_layout(header: str) -> tuple[int, int, int] | None:
    """Positions in the header of ``entry_computation_layout={(params)->result}``: (params start,
    the ``->``, the closing brace)."""
    key = "entry_computation_layout={"
    at = header.find(key)
    if at < 0:
        return None
    start = at + len(key)
    depth, i = 0, start
    while i < len(header):
        ch = header[i]
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if depth == 0 and header.startswith("->", i + 1) and ch == ")":
            arrow = i + 1
            break
        i += 1
    else:
        return None
    depth, j = 0, arrow + 2
    while j < len(header):
        ch = header[j]
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            if depth == 0:
                return start, arrow, j
            depth -= 1
        j += 1
    return None


def tuple_parameters(text: str) -> str:
    """Gather the entry computation's parameters into one tuple parameter."""
    lines = text.split("\n")
    start, end = _entry_span(lines)
    params = []
    for i in range(start + 1, end):
        m = _PARAM.match(lines[i])
        if m:
            params.append((i, m))
    params.sort(key=lambda p: int(p[1].group(5)))
    types = [m.group(4) for _, m in params]
    tuple_name = _fresh(text, "arg_tuple")
    indent = params[0][1].group(1) if params else "  "
    for i, m in params:
        root = m.group(2) or ""
        lines[i] = (f"{m.group(1)}{root}{m.group(3)} = {m.group(4)} get-tuple-element({tuple_name}), "
                    f"index={m.group(5)}")
    lines.insert(start + 1, f"{indent}{tuple_name} = ({', '.join(types)}) parameter(0)")
    header = lines[0]
    span = _split_layout(header)
    if span is not None:
        s, arrow, _ = span
        header = header[:s] + "(" + header[s:arrow] + ")" + header[arrow:]
    header = re.sub(r"\((\d+), \{\}, (may-alias|must-alias)\)", r"(0, {\1}, \2)", header)
    lines[0] = header
    return "\n".join(lines)


def tuple_result(text: str) -> str:
    """Wrap a single (non-tuple) entry result in a one-element tuple."""
    lines = text.split("\n")
    start, end = _entry_span(lines)
    for i in range(start + 1, end):
        m = _ROOT.match(lines[i])
        if not m:
            continue
        result_type = m.group(3).split(" ", 1)[0]
        if result_type.startswith("("):
            return text  # already a tuple
        name = _fresh(text, "tuple")
        lines[i] = f"{m.group(1)}{m.group(2)} = {m.group(3)}"
        lines.insert(end, f"{m.group(1)}ROOT {name} = ({result_type}) tuple({m.group(2)})")
        break
    else:
        return text
    header = lines[0]
    span = _split_layout(header)
    if span is not None:
        _, arrow, close = span
        header = header[:arrow + 2] + "(" + header[arrow + 2:close] + ")" + header[close:]
    header = header.replace("{ {}: (", "{ {0}: (")
    lines[0] = header
    return "\n".join(lines)
