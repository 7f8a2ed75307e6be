"""One of TensorFlow's lit test files, read and run the way its RUN lines say, with tinytf-opt for
tf-opt and the ``filecheck`` package for FileCheck (the harness behind ``tf_mlir_suite.py``).

    lit = LitFile.read(path)               # its cases (split on `// -----`) and RUN pipelines
    parse_and_print(lit.cases[0], lit.name)        # -> (ok, reason): parses, prints, reprints the same
    run_pipeline(lit.runs[0], unit, lit.name, tmp) # -> (status, reason): "pass" | "fail" | "n/a"

A RUN line is translated, never loosened: a tf-opt flag or pass tinytf does not offer makes the
run "n/a" (with the name), not a silent no-op. ``-verify-diagnostics`` is checked here as MLIR
checks it: every ``expected-error/-warning/-remark/-note`` must be reported on its line with its
text, and no other diagnostic may be reported.
"""
from __future__ import annotations

import contextlib
import io
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

SEPARATOR = "// -----"
ANCHORS = {"builtin.module", "func.func", "any"}  # pass-pipeline nesting: tinytf's passes walk the module
# TensorFlow's name -> tinytf's, for passes that do the same job under another name.
PASS_ALIASES = {"inline": "tf-inline"}
# Options that change nothing tinytf does (test-convergence: xDSL's canonicalize always iterates
# to a fixed point; default-pipeline='': no cleanup after inlining, which tf-inline never runs).
IGNORED_OPTIONS = {"canonicalize": {"test-convergence"}, "inline": {"default-pipeline"}}
PRINT_FLAGS = {"mlir-print-debuginfo": "--print-debuginfo", "mlir-print-op-generic": "--print-op-generic"}
NO_OP_FLAGS = {"allow-unregistered-dialect", "mlir-print-local-scope", "mlir-disable-threading"}
FILECHECK_NO_OP = {"dump-input"}  # how failures are shown, not what is checked


@dataclass
class Case:
    index: int
    line: int  # 1-based line of the case's first character in its file
    text: str

    @property
    def padded(self) -> str:
        """The case at its own line numbers, so diagnostics name the file's lines."""
        return "\n" * (self.line - 1) + self.text


@dataclass
class Stage:
    flags: list[str] = field(default_factory=list)  # tinytf-opt flags
    passes: list[str] = field(default_factory=list)  # xDSL pipeline entries, `name{opts}`
    verify: bool = False


@dataclass
class Pipeline:
    text: str
    stages: list[Stage] = field(default_factory=list)
    split: bool = False
    expect_failure: bool = False  # `not tf-opt ...`
    merge_stderr: bool = False  # `2>&1`
    check_prefixes: list[str] | None = None  # None: no FileCheck
    filecheck_flags: list[str] = field(default_factory=list)
    unavailable: str | None = None  # why tinytf cannot run it

    @property
    def passes(self) -> list[str]:
        return [p for s in self.stages for p in s.passes]


@dataclass
class LitFile:
    name: str
    text: str
    cases: list[Case]
    runs: list[Pipeline]

    @classmethod
    def read(cls, path: Path, offered: set[str], name: str | None = None) -> LitFile:
        text = path.read_text(encoding="utf-8", errors="replace").replace("\r", "")
        return cls(name or path.name, text, split_cases(text), [parse_run(r, offered) for r in run_lines(text)])

    def units(self, run: Pipeline) -> list[Case]:
        """What one tool invocation sees: each case with -split-input-file, else the whole file."""
        return self.cases if run.split else [Case(0, 1, self.text)]


def split_cases(text: str) -> list[Case]:
    """The cases between lines that are exactly `// -----` (as MLIR splits)."""
    cases, start, line = [], 0, 1
    lines = text.splitlines(keepends=True)
    for n, text_line in enumerate(lines, start=1):
        if text_line.strip() == SEPARATOR:
            cases.append(Case(len(cases), line, "".join(lines[start:n - 1])))
            start, line = n, n + 1
    cases.append(Case(len(cases), line, "".join(lines[start:])))
    return cases


def run_lines(text: str) -> list[str]:
    runs, current = [], None
    for line in text.splitlines():
        m = re.match(r"\s*//\s*RUN:(.*)$", line)
        if not m:
            continue
        part = m.group(1).strip()
        current = part if current is None else current + " " + part
        if current.endswith("\\"):
            current = current[:-1].rstrip()
            continue
        runs.append(current)
        current = None
    return runs


# --- RUN lines --------------------------------------------------------------------------------

def parse_run(text: str, offered: set[str]) -> Pipeline:
    lex = shlex.shlex(text, posix=True, punctuation_chars="|")
    lex.whitespace_split = True
    tokens = list(lex)
    commands, current = [], []
    for tok in tokens:
        if tok == "|":
            commands.append(current)
            current = []
        else:
            current.append(tok)
    commands.append(current)
    run = Pipeline(text)
    for words in commands:
        if "2>&1" in words:
            run.merge_stderr = True
            words = [w for w in words if w != "2>&1"]
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):  # FILECHECK_OPTS="" FileCheck
            words = words[1:]
        if words and words[0] == "not":
            run.expect_failure, words = True, words[1:]
        if not words:
            continue
        tool, args = words[0], words[1:]
        if tool == "tf-opt":
            stage = _tf_opt_stage(args, run, offered)
            run.stages.append(stage)
        elif tool == "FileCheck":
            _filecheck(args, run)
        elif run.unavailable is None:
            run.unavailable = f"tool {tool}"
    if not run.stages and run.unavailable is None:
        run.unavailable = "no tf-opt stage"
    return run


def _tf_opt_stage(args: list[str], run: Pipeline, offered: set[str]) -> Stage:
    stage = Stage()
    it = iter(args)
    for arg in it:
        if arg == "%s" or arg == "-":
            continue
        name, _, value = arg.lstrip("-").partition("=")
        if name == "o":
            next(it, None)
        elif name == "split-input-file":
            run.split = True
        elif name == "verify-diagnostics":
            stage.verify = True
        elif name in PRINT_FLAGS:
            stage.flags.append(PRINT_FLAGS[name])
        elif name in NO_OP_FLAGS:
            pass
        elif name == "pass-pipeline":
            for pass_name, options in parse_pass_pipeline(value):
                _add_pass(stage, run, pass_name, options, offered)
        elif name.startswith("mlir-") or name.startswith("debug"):
            run.unavailable = run.unavailable or f"flag -{name}"
        else:
            _add_pass(stage, run, name, value, offered)
    return stage


def _add_pass(stage: Stage, run: Pipeline, name: str, options: str, offered: set[str]) -> None:
    kept = [o for o in _split_options(options) if o.partition("=")[0] not in IGNORED_OPTIONS.get(name, ())]
    tinytf_name = PASS_ALIASES.get(name, name)
    if tinytf_name not in offered:
        run.unavailable = run.unavailable or f"pass {name}"
        return
    stage.passes.append(tinytf_name + ("{" + " ".join(_quoted(o) for o in kept) + "}" if kept else ""))


def _quoted(option: str) -> str:
    """``opt=tf.A,tf.B`` -> ``opt="tf.A,tf.B"``: xDSL's pipeline lexer reads op names and paths only in quotes."""
    key, eq, value = option.partition("=")
    plain = re.fullmatch(r"[\w\-.,]*", value) and not re.search(r"[A-Za-z_]\.|\.[A-Za-z_]", value)
    if not eq or plain or value.startswith('"'):
        return option
    return f'{key}="{value}"'


def _split_options(options: str) -> list[str]:
    options = options.strip().strip("{}").strip()
    return shlex.split(options) if options else []


def parse_pass_pipeline(spec: str) -> list[tuple[str, str]]:
    """``builtin.module(func.func(canonicalize{test-convergence}))`` -> [("canonicalize", "test-convergence")]."""
    out, i = [], 0
    while i < len(spec):
        m = re.compile(r"\s*([\w.\-]+)").match(spec, i)
        if not m:
            break
        name, i = m.group(1), m.end()
        options = ""
        if i < len(spec) and spec[i] == "{":
            end = _matching(spec, i, "{", "}")
            options, i = spec[i + 1:end], end + 1
        nested = None
        if i < len(spec) and spec[i] == "(":
            end = _matching(spec, i, "(", ")")
            nested, i = spec[i + 1:end], end + 1
        if nested is not None and (name in ANCHORS or "." in name):
            out.extend(parse_pass_pipeline(nested))
        else:
            out.append((name, options))
        while i < len(spec) and spec[i] in ", ":
            i += 1
    return out


def _matching(text: str, start: int, open_: str, close: str) -> int:
    depth = 0
    for j in range(start, len(text)):
        depth += {open_: 1, close: -1}.get(text[j], 0)
        if depth == 0:
            return j
    return len(text) - 1


def _filecheck(args: list[str], run: Pipeline) -> None:
    prefixes = []
    it = iter(args)
    for arg in it:
        if arg == "%s":
            continue
        name, eq, value = arg.lstrip("-").partition("=")
        if name in ("check-prefix", "check-prefixes"):
            value = value if eq else next(it, "")
            prefixes += [p for p in value.split(",") if p]
        elif name in FILECHECK_NO_OP:
            pass
        elif name in ("strict-whitespace", "match-full-lines", "enable-var-scope", "allow-empty"):
            run.filecheck_flags.append("--" + name)
        elif run.unavailable is None:
            run.unavailable = f"FileCheck flag -{name}"
    run.check_prefixes = prefixes or ["CHECK"]


# --- diagnostics ------------------------------------------------------------------------------

# MLIR's designator (mlir/lib/IR/Diagnostics.cpp): one per line, the message up to the last `}}`.
EXPECTED = re.compile(r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *"
                      r"\{\{(.*)\}\}$")


@dataclass
class Diagnostic:
    kind: str
    line: int | None  # None: @unknown, a diagnostic without a location
    message: str
    regex: bool = False

    def matches(self, kind: str, line: int | None, message: str) -> bool:
        if kind != self.kind or line != self.line:
            return False
        if self.regex:
            pattern = "".join(re.escape(p) if i % 2 == 0 else p for i, p in enumerate(re.split(r"\{\{|\}\}", self.message)))
            return re.search(pattern, message) is not None
        return self.message in message


def expected_diagnostics(text: str) -> list[Diagnostic]:
    """The designators of a text, placed on their lines as MLIR places them: none is its own line,
    @+N / @-N relative, @above the last line above without a designator, @below the next one."""
    out, last_plain, pending = [], 0, []
    for n, line in enumerate(text.splitlines(), start=1):
        m = EXPECTED.search(line.rstrip())
        if not m:
            last_plain = n
            for d in pending:
                d.line = n
            pending = []
            continue
        where = m.group(4)
        d = Diagnostic(m.group(1), n, m.group(5), regex=bool(m.group(2)))
        if where == "unknown":
            d.line = None
        elif where == "above":
            d.line = last_plain
        elif where == "below":
            pending.append(d)
        elif where is not None:
            d.line = n + int(where)
        out.append(d)
    return out


def reported_diagnostics(output: str, path: str) -> tuple[list[tuple[str, int | None, str]], list[str]]:
    """(diagnostics as (kind, line or None, message), other error lines) in tinytf-opt's output."""
    located, other = [], []
    pattern = re.compile(re.escape(path) + r":(?:(\d+):(\d+):)?\s*(?:(error|warning|remark|note):\s*)?(.*)$")
    for line in output.splitlines():
        m = pattern.match(line.strip())
        if m:
            located.append((m.group(3) or "error", int(m.group(1)) if m.group(1) else None, m.group(4)))
        elif re.match(r"\S+: error:", line) or line.startswith("Traceback"):
            other.append(line)
    return located, other


def check_diagnostics(expected: list[Diagnostic], output: str, path: str) -> str | None:
    """None when the reported diagnostics are exactly the expected ones, else the first problem."""
    located, other = reported_diagnostics(output, path)
    if other:
        return f"unexpected: {other[0]}"
    unmatched = list(expected)
    for kind, line, message in located:
        hit = next((d for d in unmatched if d.matches(kind, line, message)), None)
        if hit is None:
            return f"unexpected {kind} at line {line}: {message}"
        unmatched.remove(hit)
    if unmatched:
        d = unmatched[0]
        return f"expected {d.kind} at line {d.line} not reported: {d.message}"
    return None


def strip_diagnostics(output: str, path: str) -> str:
    return "\n".join(line for line in output.splitlines() if not line.startswith(path + ":")) + "\n"


# --- running ----------------------------------------------------------------------------------

def call(main, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse
            rc = exc.code if isinstance(exc.code, int) else 1
    return rc, out.getvalue(), err.getvalue()


def parse_and_print(case: Case, name: str) -> tuple[bool, str]:
    """Whether tinytf parses the case and prints it as text that reprints the same (in generic form
    when it does not verify, as MLIR prints it). A case written to be refused by the parser passes
    when tinytf refuses it on that line with that message."""
    from tinytf import mlir
    from tinytf.errors import ParseError

    try:
        module = mlir.parse_text(case.padded, name)
    except ParseError as err:
        message = str(err).split(": ", 1)[-1]
        if any(d.matches("error", err.line, message) for d in expected_diagnostics(case.padded)):
            return True, "refused as expected"
        return False, f"parse: {err}"
    try:
        mlir.verify(module)
        generic = False
    except Exception:  # noqa: BLE001  (MLIR's printer prints IR that does not verify in generic form)
        generic = True
    try:
        first = mlir.print(module, generic=generic)
        second = mlir.print(mlir.parse_text(first, name + " (printed)"), generic=generic)
    except Exception as err:  # noqa: BLE001  (any failure to print is this case's result)
        return False, f"print: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    if first != second:
        return False, "print: the printed text reprints differently"
    return True, ""


def run_pipeline(run: Pipeline, unit: Case, name: str, workdir: Path, labels: bool = False):
    """("pass" | "fail" | "n/a", reason, label counts) for one invocation of a RUN line on one unit.
    With ``labels``, a FileCheck run on a whole file also counts its CHECK-LABEL blocks that match
    on their own: (matched, blocks); otherwise None."""
    status, reason, output = _run_tools(run, unit, name, workdir)
    counts = None
    if status != "n/a" and run.check_prefixes is not None:
        blocks = label_blocks(unit.text, run.check_prefixes) if labels and not run.split else []
        if output is not None:
            status, reason = filecheck(unit.text, output, run, workdir / f"{name}.check", workdir / f"{name}.out")
        if blocks:
            matched = len(blocks) if status == "pass" else 0
            if status != "pass" and output is not None:
                matched = sum(filecheck(block, output, run, workdir / f"{name}.check", workdir / f"{name}.out")[0]
                              == "pass" for block in blocks)
            counts = (matched, len(blocks))
    return status, reason.replace(str(workdir) + "/", ""), counts


def _run_tools(run: Pipeline, unit: Case, name: str, workdir: Path) -> tuple[str, str, str | None]:
    """Run the tf-opt stages: (status, reason, the output FileCheck reads, or None on failure)."""
    if run.unavailable:
        return "n/a", run.unavailable, None
    from tinytf.cli.opt import main as opt_main

    source = workdir / name
    source.write_text(unit.padded)
    path, output = source, ""
    for i, stage in enumerate(run.stages):
        argv = [str(path), *stage.flags] + (["-p", ",".join(stage.passes)] if stage.passes else [])
        argv += ["--verify-diagnostics"] if stage.verify else []
        rc, out, err = call(opt_main, argv)
        last = i == len(run.stages) - 1
        if stage.verify:
            problem = check_diagnostics(expected_diagnostics(unit.padded), out + err, str(path))
            if problem:
                return "fail", problem, None
            out = strip_diagnostics(out, str(path))
        elif run.expect_failure and last:
            if rc == 0:
                return "fail", "tinytf-opt succeeded where tf-opt fails", None
        elif rc != 0:
            return "fail", "tinytf-opt: " + ((err or out).strip().splitlines() or ["exit status %d" % rc])[0], None
        output = out + (err if run.merge_stderr else "")
        if not last:
            path = workdir / f"{name}.stage{i + 1}.mlir"
            path.write_text(out)
    return "pass", "", output


def label_blocks(check_text: str, prefixes: list[str]) -> list[str]:
    """The check lines cut at each PREFIX-LABEL: one text per label, holding that label's lines."""
    label = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, prefixes)) + r")-LABEL:")
    lines = check_text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if label.search(line)]
    return ["".join(lines[s:e]) for s, e in zip(starts, [*starts[1:], len(lines)])]


def filecheck(check_text: str, output: str, run: Pipeline, check_path: Path, out_path: Path) -> tuple[str, str]:
    prefixes = run.check_prefixes or ["CHECK"]
    directive = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, prefixes)) + r")(-[A-Z]+(-\d+)?)?:")
    if not directive.search(check_text):
        return "pass", "no check lines"
    from filecheck.matcher import Matcher
    from filecheck.options import parse_argv_options

    check_path.write_text(check_text)
    out_path.write_text(output)
    argv = ["filecheck", str(check_path), "--input-file", str(out_path), "--check-prefixes", ",".join(prefixes),
            *run.filecheck_flags]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        rc = Matcher.from_opts(parse_argv_options(argv)).run()
    if rc == 0:
        return "pass", ""
    lines = [ln for ln in buffer.getvalue().splitlines() if "error" in ln] or buffer.getvalue().splitlines() or [""]
    return "fail", "filecheck: " + re.sub(r"\x1b\[[0-9;]*m", "", lines[0]).split("error:", 1)[-1].strip()
