"""MLIR's ``-verify-diagnostics``: the ``expected-*`` designators of a file, matched against the
diagnostics tinytf reports, every one of them.

    func.func @f(%x: tensor<f32>) {
      // expected-error@+1 {{'tf.AddV2' op Expected 2 operands, but got 1}}
      %0 = "tf.AddV2"(%x) : (tensor<f32>) -> tensor<f32>
      func.return
    }

A designator names its line as MLIR's does: none (its own line), ``@+N`` / ``@-N``, ``@above`` (the
last line above without a designator), ``@below`` (the next such line), ``@unknown`` (a diagnostic
with no location); ``expected-error-re`` reads ``{{...}}`` inside its message as regular
expressions. A diagnostic matches an expectation of its kind on its line whose text it contains.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

DESIGNATOR = re.compile(r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *"
                        r"\{\{(.*)\}\}$")
LOCATED = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?:(?P<kind>error|warning|remark|note): )?"
                     r"(?P<message>.*)$", re.S)


@dataclass
class Expected:
    kind: str
    line: int | None  # None: @unknown
    text: str
    regex: bool
    written_at: int  # the line of the designator itself, for reports
    matched: bool = False

    def matches(self, kind: str, line: int | None, message: str) -> bool:
        if line != self.line:
            return False
        if not self.regex:
            return self.text in message
        parts = re.split(r"\{\{|\}\}", self.text)
        pattern = "".join(re.escape(p) if i % 2 == 0 else p for i, p in enumerate(parts))
        try:
            return re.search(pattern, message) is not None
        except re.error:
            return False


@dataclass(frozen=True)
class Reported:
    kind: str
    line: int | None
    col: int | None
    message: str


def has_designators(text: str) -> bool:
    return any(DESIGNATOR.search(line) for line in text.splitlines())


def expectations(text: str, line_offset: int = 0) -> list[Expected]:
    """The expected diagnostics of ``text`` (a chunk starting ``line_offset`` lines into its file),
    with file line numbers."""
    found: list[Expected] = []
    below: list[Expected] = []
    last_plain = 0
    lines = text.split("\n")
    for index, line in enumerate(lines, start=1 + line_offset):
        m = DESIGNATOR.search(line)
        if m is None:
            for e in below:
                e.line = index
            below.clear()
            last_plain = index
            continue
        kind, regex, where, text_ = m.group(1), bool(m.group(2)), m.group(4), m.group(5)
        e = Expected(kind, index, text_, regex, index)
        if where is None:
            pass
        elif where == "unknown":
            e.line = None
        elif where == "above":
            e.line = last_plain
        elif where == "below":
            e.line = len(lines) + line_offset  # where a dangling @below stays, as in MLIR
            below.append(e)
        else:
            e.line = index + int(where)
        found.append(e)
    return found


def reported(err: BaseException | str, kind: str = "error") -> Reported:
    """A tinytf error as a diagnostic: its ``file:line:col:`` and its message."""
    text = str(err).strip()
    m = LOCATED.match(text)
    if m is None:
        return Reported(kind, None, None, text)
    return Reported(m.group("kind") or kind, int(m.group("line")), int(m.group("col")), m.group("message"))


def located(kind: str, where: str, message: str) -> Reported:
    """A diagnostic at ``where`` (``file:line:col``, or ``""`` when unknown)."""
    return reported(f"{where}: {kind}: {message}" if where else message, kind)


def reported_with_related(err: BaseException) -> list[Reported]:
    """A verifier error and the diagnostics it brings along (``err.related``: its notes at other ops, a
    further error at its own: see ``tinytf.framework.diagnostics``)."""
    return [reported(err)] + [located(kind, where, text) for kind, where, text in getattr(err, "related", ())]


def check(expected: list[Expected], diagnostics: list[Reported], name: str) -> list[str]:
    """The problems, as MLIR words them: each diagnostic no expectation matches, each expectation
    no diagnostic matched. Empty when the file's diagnostics are exactly the expected ones."""
    problems = []
    for d in diagnostics:
        hits = [e for e in expected if e.matches(d.kind, d.line, d.message)]
        same_kind = [e for e in hits if e.kind == d.kind]
        for e in same_kind:
            e.matched = True
        if same_kind:
            continue
        where = f"{name}:{d.line}:{d.col}" if d.line is not None else name
        if hits:
            problems.append(f"{where}: '{d.kind}' diagnostic emitted when expecting a '{hits[0].kind}'")
        else:
            problems.append(f"{where}: unexpected {d.kind}: {d.message}")
    for e in expected:
        if not e.matched:
            problems.append(f"{name}:{e.written_at}: expected {e.kind} \"{e.text}\" was not produced")
    return problems
