"""TensorFlow 2.21's own MLIR lit tests run through tinytf: the yardstick of issue 14.

    .venv/bin/python tests/conformance/tf_mlir_suite.py \
        --extract-from /work/.mirror/theIArchitecture+tensorflow/repo   # once: git archive -> /tmp/tf_mlir_tests
    .venv/bin/python tests/conformance/tf_mlir_suite.py -j 2 --json /tmp/tf_suite.json
    .venv/bin/python tests/conformance/tf_mlir_suite.py --files 'tf_executor_ops*' --failures

For every .mlir file of ``tensorflow/compiler/mlir/tensorflow/tests/`` (TensorFlow's files are read
where they were extracted and never copied into this project):

- **parse+print**: each `// -----` case (1,767 in all, whatever the RUN line says) parses, prints,
  and its printout reprints the same; a case written to be refused by the parser counts when tinytf
  refuses it on the expected line with the expected message.
- **pass**: each RUN line, translated to tinytf-opt (see tf_lit_case.py), on each case (with
  `-split-input-file`) or on the whole file, through filecheck with the RUN line's prefixes; a
  case passes when every RUN line of its file passes on it, is "n/a" when a RUN line asks for a
  tool, flag or pass tinytf does not offer.

It prints a per-file table and the totals of issue 14's "Done when".
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import multiprocessing
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
import tf_lit_case as lit  # noqa: E402

TESTS = "tensorflow/compiler/mlir/tensorflow/tests"
DEFAULT_ROOT = Path("/tmp/tf_mlir_tests")
VERIFIER_FILES = ["tf_executor_ops*", "tf_device_ops*", "tf-ops.mlir", "tf_saved_model_ops*", "func-attr*"]
_workdir: Path | None = None
_timeout = 30.0


def extract(git_dir: Path, root: Path) -> None:
    """The test folder of the repository's first commit (TensorFlow 2.21.0), CRLF stripped."""
    first = subprocess.run(["git", "-C", str(git_dir), "rev-list", "--max-parents=0", "HEAD"],
                           check=True, capture_output=True, text=True).stdout.split()[-1]
    root.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(git_dir), "archive", first, TESTS + "/"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    for path in (root / TESTS).rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if b"\r" in data:
                path.write_bytes(data.replace(b"\r\n", b"\n"))


def offered_passes() -> set[str]:
    from tinytf.cli.opt import tinytf_passes

    return set(tinytf_passes()) | {"canonicalize", "cse", "dce"}


# --- workers ----------------------------------------------------------------------------------

class CaseTimeout(BaseException):
    """Not an Exception: tinytf's own ``except Exception`` must not turn it into a parse error."""


def _on_alarm(signum, frame):
    raise CaseTimeout


def _init_worker(timeout: float, memory_gib: float) -> None:
    global _workdir, _timeout
    _workdir = Path(tempfile.mkdtemp(prefix="tf_suite_"))
    _timeout = timeout
    signal.signal(signal.SIGALRM, _on_alarm)
    if memory_gib:
        limit = int(memory_gib * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import tinytf.cli.opt  # noqa: F401  (import once per worker, not per case)


def _task(task):
    kind, rel, root, run_index, unit_index = task
    path = Path(root) / rel
    lit_file = lit.LitFile.read(path, _offered(), name=path.name)
    signal.setitimer(signal.ITIMER_REAL, _timeout)
    try:
        if kind == "parse":
            ok, reason = lit.parse_and_print(lit_file.cases[unit_index], lit_file.name)
            result = ("pass" if ok else "fail", reason, None)
        else:
            run = lit_file.runs[run_index]
            unit = lit_file.units(run)[unit_index]
            result = lit.run_pipeline(run, unit, lit_file.name, _workdir, labels=True)
    except CaseTimeout:
        result = ("fail", f"timeout after {_timeout:g} s", None)
    except MemoryError:
        result = ("fail", "out of memory", None)
    except Exception as err:  # noqa: BLE001  (a crash is this case's result)
        result = ("fail", f"crash: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}", None)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return task, result


_OFFERED: set[str] | None = None


def _offered() -> set[str]:
    global _OFFERED
    if _OFFERED is None:
        _OFFERED = offered_passes()
    return _OFFERED


# --- the suite --------------------------------------------------------------------------------

def collect(root: Path, patterns: list[str]) -> dict[str, lit.LitFile]:
    tests = root / TESTS
    files = {}
    for path in sorted(tests.rglob("*.mlir")):
        rel = str(path.relative_to(tests))
        if patterns and not any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(path.name, p) for p in patterns):
            continue
        files[rel] = lit.LitFile.read(path, _offered(), name=path.name)
    return files


def tasks_for(files: dict[str, lit.LitFile], root: Path) -> list[tuple]:
    tests = str(root / TESTS)
    tasks = []
    for rel, f in files.items():
        tasks += [("parse", rel, tests, -1, c.index) for c in f.cases]
        for r, run in enumerate(f.runs):
            tasks += [("run", rel, tests, r, u) for u in range(len(f.units(run)))]
    return tasks


def case_status(f: lit.LitFile, run_results: dict[tuple[int, int], tuple[str, str]], case: lit.Case):
    """A case's status over every RUN line: fail beats n/a beats pass."""
    worst = ("pass", "")
    if not f.runs:
        return ("n/a", "no RUN line")
    for r, run in enumerate(f.runs):
        unit = case.index if run.split else 0
        status = run_results.get((r, unit), ("fail", "not run", None))[:2]
        if status[0] == "fail":
            return status
        if status[0] == "n/a" and worst[0] == "pass":
            worst = status
    return worst


def summarize(files, results) -> dict:
    per_file = {}
    for rel, f in files.items():
        parse = [results[("parse", rel, -1, c.index)][:2] for c in f.cases]
        runs = {(r, u): results[("run", rel, r, u)] for r, run in enumerate(f.runs) for u in range(len(f.units(run)))}
        cases = [case_status(f, runs, c) for c in f.cases]
        reasons = [s[1] for s in cases if s[0] == "fail"] or [s[1] for s in cases if s[0] == "n/a"]
        counted = [v[2] for v in runs.values() if v[2] is not None]
        per_file[rel] = {
            "cases": len(f.cases),
            "parse_print": sum(s == "pass" for s, _ in parse),
            "pass": sum(s == "pass" for s, _ in cases),
            "n/a": sum(s == "n/a" for s, _ in cases),
            "passes": sorted({p.split("{")[0] for run in f.runs for p in run.passes}),
            "available": all(run.unavailable is None for run in f.runs) and bool(f.runs),
            "reason": reasons[0] if reasons else "",
            "labels": [sum(c[0] for c in counted), sum(c[1] for c in counted)] if counted else None,
            "case_results": [{"line": c.line, "parse_print": list(p), "pass": list(s)}
                             for c, p, s in zip(f.cases, parse, cases)],
        }
    return per_file


def totals(per_file: dict) -> list[tuple[str, int, int]]:
    def add(rows):
        return sum(per_file[r]["pass"] for r in rows), sum(per_file[r]["cases"] for r in rows)

    all_files = list(per_file)
    verifier = [r for r in all_files if any(fnmatch.fnmatch(r, p) for p in VERIFIER_FILES)]
    pass_tests = [r for r in all_files if per_file[r]["available"] and per_file[r]["passes"] and r not in verifier]
    lines = [("parse+print, all cases", sum(v["parse_print"] for v in per_file.values()),
              sum(v["cases"] for v in per_file.values()))]
    lines.append(("verifier files (" + ", ".join(VERIFIER_FILES) + ")", *add(verifier)))
    lines.append((f"pass-test files of tinytf's passes ({len(pass_tests)} files)", *add(pass_tests)))
    available = sum(v["cases"] - v["n/a"] for v in per_file.values())
    lines.append(("pass, of the cases tinytf can run", sum(v["pass"] for v in per_file.values()), available))
    lines.append(("pass, all cases", sum(v["pass"] for v in per_file.values()),
                  sum(v["cases"] for v in per_file.values())))
    return lines


def report(per_file: dict, failures: bool, out=sys.stdout) -> None:
    print("| file | cases | parse+print | pass | n/a | CHECK-LABELs | first problem |", file=out)
    print("|---|---:|---:|---:|---:|---:|---|", file=out)
    for rel, v in per_file.items():
        reason = v["reason"].replace("|", "\\|")[:110]
        labels = f"{v['labels'][0]}/{v['labels'][1]}" if v["labels"] else ""
        print(f"| {rel} | {v['cases']} | {v['parse_print']} | {v['pass']} | {v['n/a']} | {labels} | {reason} |",
              file=out)
    print(file=out)
    for label, ok, n in totals(per_file):
        print(f"- {label}: {ok} / {n} ({100.0 * ok / max(n, 1):.1f}%)", file=out)
    if failures:
        print(file=out)
        for rel, v in per_file.items():
            for r in v["case_results"]:
                for what in ("parse_print", "pass"):
                    status, reason = r[what]
                    if status == "fail":
                        print(f"{rel}:{r['line']}: {what}: {reason}", file=out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=DEFAULT_ROOT, help=f"where {TESTS} was extracted")
    ap.add_argument("--extract-from", type=Path, help="a git directory of the TensorFlow fork: extract, then run")
    ap.add_argument("--files", nargs="*", default=[], help="glob patterns of test files (default: all)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    ap.add_argument("--memory-gib", type=float, default=8.0, help="address-space limit per worker (0: none)")
    ap.add_argument("--json", type=Path, help="write every case's result here")
    ap.add_argument("--failures", action="store_true", help="list every failing case with its reason")
    args = ap.parse_args(argv)
    if args.extract_from:
        extract(args.extract_from, args.root)
    if not (args.root / TESTS).is_dir():
        print(f"no {TESTS} under {args.root}: run with --extract-from GIT_DIR first", file=sys.stderr)
        return 2
    files = collect(args.root, args.files)
    tasks = tasks_for(files, args.root)
    start = time.time()
    results = {}
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(args.jobs, _init_worker, (args.timeout, args.memory_gib), maxtasksperchild=200) as pool:
        for (kind, rel, _, r, u), result in pool.imap_unordered(_task, tasks, chunksize=4):
            results[(kind, rel, r, u)] = result
    per_file = summarize(files, results)
    report(per_file, args.failures)
    print(f"\n{len(tasks)} runs in {time.time() - start:.0f} s on {args.jobs} processes", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(per_file, indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
