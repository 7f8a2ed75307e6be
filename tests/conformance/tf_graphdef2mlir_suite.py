"""TensorFlow 2.21's GraphDef importer tests (``tests/graphdef2mlir/*.pbtxt``) run through tinytf-translate.

    .venv/bin/python tests/conformance/tf_graphdef2mlir_suite.py [--files 'graph-*'] [--failures]

Each ``# RUN:`` line ``tf-mlir-translate -graphdef-to-mlir FLAGS %s -o - | FileCheck [--check-prefix=P] %s``
becomes ``tinytf-translate --graphdef-to-mlir FLAGS FILE`` and filecheck on its output (``not`` and
``2>&1`` honoured). A file passes when all its RUN lines pass; a RUN line is "n/a" when it asks for a
flag tinytf-translate does not offer (``-tf-upgrade-legacy``, ``-tf-debug-info``, ...).
TensorFlow's files are read where tf_mlir_suite.py extracted them; nothing is copied.
"""
from __future__ import annotations

import argparse
import contextlib
import fnmatch
import io
import re
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

FOLDER = Path("/tmp/tf_mlir_tests/tensorflow/compiler/mlir/tensorflow/tests/graphdef2mlir")
OFFERED = {"graphdef-to-mlir", "graphdef-to-splatted-mlir", "mlir-print-debuginfo", "mlir-print-local-scope", "print-after-all", "tf-input-arrays", "tf-input-data-types", "tf-input-shapes", "tf-output-arrays",
           "tf-control-output-arrays", "tf-prune-unused-nodes", "tf-enable-shape-inference-on-import",
           "tf-enable-unconditionally-use-set-output-shapes-on-import", "tf-graph-as-function",
           "tf-xla-compile-device-type", "tf-enable-soft-placement-on-import", "tf-set-original-tf-func-name-on-import",
           "tf-convert-legacy-fed-inputs"}


def run_lines(text: str) -> list[str]:
    lines, current = [], ""
    for line in text.splitlines():
        m = re.match(r"\s*#\s*RUN:\s?(.*)$", line)
        if not m:
            continue
        part = m.group(1).rstrip()
        current += part[:-1] if part.endswith("\\") else part
        if not part.endswith("\\"):
            lines.append(current)
            current = ""
    return lines


def translate(argv: list[str]) -> tuple[int, str, str]:
    from tinytf.cli.translate import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exit_:
            rc = exit_.code if isinstance(exit_.code, int) else 1
    return rc, out.getvalue(), err.getvalue()


def filecheck(check_file: Path, text: str, prefixes: list[str], workdir: Path) -> tuple[bool, str]:
    from filecheck.matcher import Matcher
    from filecheck.options import parse_argv_options

    source = workdir / "input.txt"
    source.write_text(text)
    argv = ["filecheck", str(check_file), "--input-file", str(source), "--check-prefixes", ",".join(prefixes)]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        rc = Matcher.from_opts(parse_argv_options(argv)).run()
    lines = [ln for ln in buffer.getvalue().splitlines() if "error" in ln] or [""]
    return rc == 0, lines[0].split("error:", 1)[-1].strip()


def run_one(path: Path, line: str, workdir: Path) -> tuple[str, str]:
    """('pass' | 'fail' | 'n/a', reason) of one RUN line on ``path``."""
    words = shlex.split(line.replace("%s", str(path)))
    if "|" in words:
        cut = words.index("|")
        tool, check = words[:cut], words[cut + 1:]
    else:
        tool, check = words, []
    expect_failure = tool and tool[0] == "not"
    tool = tool[1:] if expect_failure else tool
    if not tool or tool[0] != "tf-mlir-translate":
        return "n/a", f"tool {tool[:1]}"
    merge = "2>&1" in tool
    argv, skip = [], False
    for word in tool[1:]:
        if skip:
            skip = False
            continue
        if word in ("2>&1",):
            continue
        if word == "-o":
            skip = True
            continue
        name = word.lstrip("-").split("=", 1)[0]
        if word.startswith("-") and name not in OFFERED:
            return "n/a", f"flag -{name}"
        argv.append(word)
    rc, out, err = translate(argv)
    if expect_failure and rc == 0:
        return "fail", "tinytf-translate succeeded where tf-mlir-translate fails"
    if not expect_failure and rc != 0:
        return "fail", "tinytf-translate: " + (err.strip().splitlines() or ["exit %d" % rc])[0]
    if not check:
        return "pass", ""
    if check[0] != "FileCheck":
        return "n/a", f"checker {check[0]}"
    prefixes = []
    for word in check[1:]:
        m = re.match(r"-+check-prefix(?:es)?=(.*)", word)
        if m:
            prefixes += m.group(1).split(",")
    ok, reason = filecheck(path, out + (err if merge else ""), prefixes or ["CHECK"], workdir)
    return ("pass", "") if ok else ("fail", "filecheck: " + reason)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folder", type=Path, default=FOLDER)
    ap.add_argument("--files", nargs="*", default=[])
    ap.add_argument("--failures", action="store_true")
    args = ap.parse_args(argv)
    files = sorted(p for p in args.folder.glob("*.pbtxt")
                   if not args.files or any(fnmatch.fnmatch(p.name, g) for g in args.files))
    totals = {"pass": 0, "fail": 0, "n/a": 0}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            results = [run_one(path, line, Path(tmp)) for line in run_lines(path.read_text())]
            if not results:
                continue
            status = "fail" if any(s == "fail" for s, _ in results) else \
                "n/a" if any(s == "n/a" for s, _ in results) else "pass"
            totals[status] += 1
            reason = next((r for s, r in results if s == status and r), "")
            rows.append((path.name, len(results), sum(s == "pass" for s, _ in results), status, reason))
    print("| file | RUN lines | pass | result | first problem |\n|---|---:|---:|---|---|")
    for name, n, ok, status, reason in rows:
        print(f"| {name} | {n} | {ok} | {status} | {reason[:100]} |")
    runnable = totals["pass"] + totals["fail"]
    print(f"\n- files passing: {totals['pass']} / {len(rows)}; of the files tinytf can run: {totals['pass']} / {runnable}"
          f"; n/a: {totals['n/a']}")
    if args.failures:
        for name, _, _, status, reason in rows:
            if status == "fail":
                print(f"{name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
