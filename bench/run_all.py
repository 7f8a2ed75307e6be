"""Run every benchmark in bench/ and write bench/RESULTS.md: tinytf beside its peers, one run, one machine.

    python bench/run_all.py [--quick] [--only eager_dispatch mlp_step] [-o bench/RESULTS.md | -o -]
    make bench                      # in .venv-bench, with TensorFlow, JAX and PyTorch installed
    tinytf bench --quick            # the quick modes, in the current environment, table to the terminal

Each benchmark runs in its own child process (``--child``; peers' thread pools and imports stay
apart, and one that crashes or hangs costs only its own row). A benchmark's ``main(argv)`` returns a
list of ``bench.common.Row``; for those that still print a table instead, an adapter below reads the
rows from that table. Peers a benchmark measures but that do not import are reported ``missing``.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path[:0] = [p for p in (ROOT,) if p not in sys.path]

from bench.common import (  # noqa: E402
    PEERS,
    Row,
    as_rows,
    format_ratio,
    format_value,
    format_verdict,
    machine_info,
    mark_missing,
    peer_versions,
)

NOT_BENCHMARKS = {"common", "run_all", "__init__"}
# a benchmark's quick mode is ``--quick`` unless named here (those without the flag yet)
QUICK_ARGS = {"forwarding": ["--size-mb", "20"]}
ORDER = ["parse_print", "passes", "eager_dispatch", "mlp_step", "gradcheck", "xla_step", "quantized", "forwarding",
         "checkpoint_io"]


def discover(only=None, bench_dir: str = BENCH) -> list[str]:
    """Benchmark names (file stems in ``bench_dir``), in ORDER first, then alphabetically."""
    names = sorted(f[:-3] for f in os.listdir(bench_dir)
                   if f.endswith(".py") and not f.startswith("_") and f[:-3] not in NOT_BENCHMARKS)
    names.sort(key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    if only:
        unknown = [n for n in only if n not in names]
        if unknown:
            raise SystemExit(f"run_all: no benchmark {', '.join(unknown)} in {bench_dir} (have: {', '.join(names)})")
        names = [n for n in names if n in only]
    return names


# --- adapters: rows from the tables that benchmarks print today ----------------------------------

def _table(text: str, labels) -> dict[str, float]:
    """``label  number ...`` lines -> label -> the first number (labels matched exactly, at line start)."""
    out = {}
    for line in text.splitlines():
        for label in labels:
            m = re.match(rf"^\s*{re.escape(label)}\s+(-?[\d.,]+)(?:\s|$)", line)
            if m:
                out[label] = float(m.group(1).replace(",", ""))
    return out


def _peers(found: dict, mapping: dict) -> dict:
    """Peer key -> its measured value (mapping: peer key -> label in the printed table)."""
    return mark_missing({peer: found.get(label) for peer, label in mapping.items()})


def adapt_parse_print(result, text, quick) -> list[Row]:
    if not isinstance(result, dict):
        return []
    return [Row("parse_print", f"parse + print, {result['ops']:,}-op TF function", "s", result["tinytf_s"],
                others={"xDSL": result["xdsl_s"]}, reference="xDSL", target="<= 1.3x plain xDSL",
                target_ratio=1.3, note="xDSL parses the same text generically and prints it with its own printer"),
            *[Row("parse_print", f"parse + verify, {label} (CPU time)", "s", result[key], target="<= 1 s per 10,000 ops",
                  met=result[key] <= ops / 10_000, note=f"{ops / result[key]:,.0f} ops/s; goal >= 10,000 ops/s")
              for label, key, ops in ((f"{result['ops']:,}-op TF function", "parse_verify_cpu_s", result["ops"]),
                                      (f"NASNetMobile, {result.get('nasnet_ops', 0):,} ops", "nasnet_parse_verify_cpu_s",
                                       result.get("nasnet_ops", 0)))
              if result.get(key)]]


def adapt_passes(result, text, quick) -> list[Row]:
    labels = ["xDSL canonicalize (dce only)", "tinytf canonicalize (+ tf folding)", "tf-shape-inference",
              "canonicalize + tf-shape-inference"]
    found = _table(text, labels)
    m = re.search(r"generated function: (\d+) tf ops", text)
    n = f"{int(m.group(1)):,}-op" if m else "generated"
    xdsl = {"xDSL canonicalize": found.get(labels[0])}
    rows = []
    if labels[1] in found:
        rows.append(Row("passes", f"canonicalize, {n} function", "s", found[labels[1]], others=xdsl,
                        reference="xDSL canonicalize", note="tinytf adds TF constant folding; xDSL's does DCE only"))
    if labels[3] in found:
        rows.append(Row("passes", f"canonicalize + tf-shape-inference, {n} function", "s", found[labels[3]],
                        others=xdsl, reference="xDSL canonicalize"))
    return rows


def adapt_eager_dispatch(result, text, quick) -> list[Row]:
    mapping = {"numpy": "numpy np.add", "tensorflow": "tensorflow tf.add", "jax": "jax jnp.add",
               "pytorch": "pytorch torch.add"}
    found = _table(text, ["tinytf tt.add", *mapping.values()])
    tiny = found.get("tinytf tt.add")
    if tiny is None:
        return []
    row = Row("eager_dispatch", "eager 2x2 float32 add, per op", "µs", tiny, peers=_peers(found, mapping),
              reference="numpy", target="<= 1 µs and <= 3x numpy")
    ratio = row.ratio
    row.met = ratio is not None and tiny <= 1.0 and ratio <= 3.0
    return [row]


def adapt_gradcheck(result, text, quick) -> list[Row]:
    labels = ["numpy loop (2N evaluations)", "tinytf full", "tinytf fast", "torch gradcheck full",
              "torch gradcheck fast", "tf.test.compute_gradient", "jax check_grads (rev)"]
    found = _table(text, labels)
    rows = []
    if "tinytf full" in found:
        peers = _peers(found, {"numpy": labels[0], "tensorflow": labels[5], "pytorch": labels[3]})
        row = Row("gradcheck", "full gradient check, 4,096 params (numpy: a hand-written loop)", "ms",
                  found["tinytf full"], peers=peers, reference="pytorch",
                  target="<= 0.2x torch full (5x faster) and <= 2x the numpy loop")
        loop = found.get(labels[0])
        row.met = None if row.ratio is None or loop is None else (row.ratio <= 0.2 and row.tinytf <= 2 * loop)
        rows.append(row)
    if "tinytf fast" in found:
        rows.append(Row("gradcheck", "fast (projected) gradient check, 4,096 params", "ms", found["tinytf fast"],
                        peers=_peers(found, {"jax": labels[6], "pytorch": labels[4]}), reference="pytorch",
                        target="<= 2x torch fast_mode", target_ratio=2.0,
                        note="jax.test_util.check_grads checks random directions (as fast modes do), so it is "
                             "compared here, not with the full checks"))
    return rows


def adapt_xla_step(result, text, quick) -> list[Row]:
    steady, _, rest = text.partition("\nfirst call")
    first_text, _, memory = rest.partition("\nSGD step")
    memory = "SGD step" + memory if memory else ""
    found = _table(steady, ["tinytf jit_compile", "tinytf XlaFunction", "jax.jit (hand-written)",
                            "tf.function(jit_compile)"])
    first = _table(first_text, ["tinytf jit_compile", "jax.jit", "tf.function(jit_compile=True)"])
    rows = []
    peers = _peers(found, {"jax": "jax.jit (hand-written)", "tensorflow": "tf.function(jit_compile)"})
    for label, note in (("tinytf jit_compile", "tt.function(jit_compile=True) on tt.Variables: weights pass "
                                               "through numpy every call"),
                        ("tinytf XlaFunction", "the same compiled step on device arrays, weights donated")):
        if label in found:
            rows.append(Row("xla_step", f"XLA training step 64x256x256x10, {label.split()[1]}", "µs", found[label],
                            peers=peers, reference="jax", target="<= 1.2x jax.jit", target_ratio=1.2, note=note))
    if "tinytf jit_compile" in first:
        rows.append(Row("xla_step", "first call: trace + passes + lower + compile", "s", first["tinytf jit_compile"],
                        peers=_peers(first, {"jax": "jax.jit", "tensorflow": "tf.function(jit_compile=True)"}),
                        reference="tensorflow"))
    # one "SGD step[, batch B] on a NxN float32 weight (M MiB) ..." table per memory case
    section, mem = None, {}
    for line in memory.splitlines() if memory else []:
        head = re.search(r"(?:batch (\d+), )?on a \d+x\d+ float32 weight \((\d+) MiB\)", line)
        if head:
            section = f"{head.group(2)} MiB weight" + (f", batch {head.group(1)}" if head.group(1) else "")
            continue
        parts = line.split()
        if section and parts and parts[0] in ("donating", "not") and len(parts) >= 6:
            mem.setdefault(section, {})["not donating" if parts[0] == "not" else "donating"] = float(parts[-1])
    for section, peaks in mem.items():
        if "donating" in peaks:
            rows.append(Row("xla_step", f"SGD step, {section}: peak memory (XLA memory analysis)", "MiB",
                            peaks["donating"], others={"not donating": peaks.get("not donating")},
                            reference="not donating", note="arguments + outputs - aliased + temporaries"))
    return rows


def adapt_forwarding(result, text, quick) -> list[Row]:
    peaks = {m.group(1): (float(m.group(2)), float(m.group(3)))
             for m in re.finditer(r"^\s*(keep-all|liveness|forwarding)\s+peak\s+([\d.]+) MB = \s*([\d.]+)x", text, re.M)}
    head = re.search(r"chain of (\d+) elementwise ops on a (\d+) MB", text)
    if "forwarding" not in peaks:
        return []
    mb, ratio = peaks["forwarding"]
    tensor = mb / ratio if ratio else None
    case = f"graph-mode peak memory, {head.group(1)} elementwise ops on {head.group(2)} MB" if head else \
        "graph-mode peak memory, elementwise chain"
    others = {"tensor": tensor, **{f"{k} executor": v[0] for k, v in peaks.items() if k != "forwarding"}}
    return [Row("forwarding", case, "MB", mb, others=others, reference="tensor", target="<= 3x the tensor",
                target_ratio=3.0, note="tracemalloc peak, the input included; keep-all frees nothing, liveness "
                                       "frees each value after its last use, forwarding also reuses dying buffers")]


ADAPTERS = {"parse_print": adapt_parse_print, "passes": adapt_passes, "eager_dispatch": adapt_eager_dispatch,
            "gradcheck": adapt_gradcheck, "xla_step": adapt_xla_step,
            "forwarding": adapt_forwarding}


# --- one benchmark, in a child process -----------------------------------------------------------

class _Tee(io.TextIOBase):
    """stdout that is also kept, so an adapter can read what the benchmark printed."""

    def __init__(self, stream):
        self.stream, self.buffer_ = stream, io.StringIO()

    def write(self, s):
        self.stream.write(s)
        self.buffer_.write(s)
        return len(s)

    def flush(self):
        self.stream.flush()


def child(name: str, quick: bool, rows_file: str, bench_dir: str = BENCH) -> int:
    """Run bench/NAME.py's main in this process; write its rows as JSON to ``rows_file``."""
    spec = importlib.util.spec_from_file_location(f"bench.{name}", os.path.join(bench_dir, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        spec.loader.exec_module(module)
        result = module.main(QUICK_ARGS.get(name, ["--quick"]) if quick else [])
    rows = as_rows(result)
    how = "rows"
    if not rows and name in ADAPTERS:
        rows, how = ADAPTERS[name](result, tee.buffer_.getvalue(), quick), "adapter"
    with open(rows_file, "w") as f:
        json.dump({"rows": [r.to_dict() for r in rows], "how": how}, f)
    return 0


THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
                    "TF_NUM_INTEROP_THREADS")


def child_environment(threads: int | None) -> dict:
    """The benchmarks' environment: ours, with every library's thread pools capped if ``threads`` is given."""
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's start-up chatter would bury the tables
    if threads:
        env.update({var: str(threads) for var in THREAD_VARIABLES})
    return env


def run_one(name: str, quick: bool, timeout: float, bench_dir: str = BENCH, threads: int | None = None) -> dict:
    """Run one benchmark in a child process: its rows, printed output, wall time and any failure."""
    with tempfile.TemporaryDirectory() as tmp:
        rows_file = os.path.join(tmp, "rows.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--rows-file", rows_file,
               "--bench-dir", bench_dir]
        cmd += ["--quick"] if quick else []
        start, cpu_start = time.perf_counter(), _children_cpu()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                                  env=child_environment(threads))
            output, code = done.stdout + done.stderr, done.returncode
        except subprocess.TimeoutExpired as err:
            output = (err.stdout or b"").decode(errors="replace") if isinstance(err.stdout, bytes) else (err.stdout or "")
            output, code = output + f"\n(timed out after {timeout:.0f} s)", "timeout"
        seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu_start
        os.sync()  # the kernel writes a benchmark's files back now, not during the next one's timings
        data = {"rows": [], "how": ""}
        if os.path.exists(rows_file):
            with open(rows_file) as f:
                data = json.load(f)
    rows = [Row.from_dict(r) for r in data["rows"]]
    error = None
    if code != 0:
        tail = [line for line in output.strip().splitlines() if line.strip()]
        error = f"exit {code}: {tail[-1] if tail else 'no output'}"
    elif not rows:
        error = "reported no rows (main returned none and no adapter read its table)"
    return {"name": name, "rows": rows, "output": output, "seconds": seconds, "cpu": cpu, "load": _load(),
            "error": error, "how": data["how"]}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load() -> str:
    try:
        return "%.1f" % os.getloadavg()[0]
    except OSError:
        return "?"


# --- the report ------------------------------------------------------------------------------------

def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table_markdown(results: list[dict]) -> str:
    peers = list(PEERS)
    head = ["benchmark", "case", "tinytf", *[PEERS[p][0] for p in peers], "other", "ratio", "target", "met"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for res in results:
        rows = res["rows"] or [None]
        for row in rows:
            if row is None:
                cells = [res["name"], res["error"] or "no rows", "—", *["—"] * len(peers), "—", "—", "—", "—"]
            else:
                others = ", ".join(f"{k} {format_value(v, row.unit)}" for k, v in row.others.items()) or "—"
                cells = [row.benchmark, row.case, format_value(row.tinytf, row.unit),
                         *[format_value(row.peers[p], row.unit) if p in row.peers else "—" for p in peers],
                         others, format_ratio(row), row.target or "—", format_verdict(row)]
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def report_markdown(results: list[dict], machine: dict, versions: dict, quick: bool, seconds: float,
                    threads: int | None = None) -> str:
    libs = ", ".join(f"{k} {v}" for k, v in machine["libraries"].items())
    thread_text = f"capped at {threads} ({', '.join(THREAD_VARIABLES)})" if threads else "each library's default"
    peers = ", ".join(f"{PEERS[k][0]} {v}" for k, v in versions.items())
    out = [
        "# Benchmark results",
        "",
        f"Generated by `bench/run_all.py{' --quick' if quick else ''}` (`make bench`) on {machine['date']}, "
        f"{'quick' if quick else 'full'} mode, {seconds:.0f} s in all. Every number below comes from this one run on "
        "this one machine; each benchmark ran in its own process, one after another.",
        "",
        "| machine | |",
        "|---|---|",
        f"| CPU | {machine['cpu']} |",
        f"| cores | {machine['cores']} |",
        f"| memory | {machine['memory']} |",
        f"| load average at start | {machine['load average at start']} |",
        f"| Python | {machine['python']} |",
        f"| OS | {machine['os']} |",
        f"| peers | {peers} |",
        f"| libraries | {libs} |",
        f"| threads | {thread_text} |",
        "",
        f"The machine is shared: with a load average above its {os.cpu_count()} cores, wall times are inflated and "
        "noisy (each benchmark's wall and CPU seconds, and the load after it, head its output below); the ratios "
        "compare numbers taken side by side in one process, so they suffer less than the absolute times.",
        "",
        "Values are costs (time per call, or memory): lower is better. **ratio** is tinytf's value divided by the named "
        "reference, so below 1x tinytf is ahead. A peer cell says `missing` when the benchmark measures that "
        "peer but it does not import in this environment, `failed` when it imports but its measurement did "
        "not come back, and — when the benchmark does not measure it. **other** holds baselines that are not "
        "peers (plain xDSL).",
        "",
        table_markdown(results),
        "",
    ]
    notes = [(r.benchmark, r.case, r.note) for res in results for r in res["rows"] if r.note]
    if notes:
        out += ["Notes:", ""] + [f"- {b} / {c}: {n}" for b, c, n in notes] + [""]
    out += ["## Each benchmark's own output", ""]
    for res in results:
        status = f", **{res['error']}**" if res["error"] else ""
        summary = (f"{res['name']}: {res['seconds']:.1f} s wall, {res['cpu']:.1f} s CPU, "
                   f"load average {res['load']} after it{status}")
        out += [f"<details><summary>{summary}</summary>", "", "```",
                res["output"].rstrip(), "```", "", "</details>", ""]
    return "\n".join(out)


def main(argv=None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each benchmark's quick mode (each under a minute)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these benchmarks (file stems)")
    parser.add_argument("-o", "--output", default=os.path.join(BENCH, "RESULTS.md"),
                        help="where to write the report ('-' for the terminal only; default bench/RESULTS.md)")
    parser.add_argument("--timeout", type=float, help="seconds per benchmark (default 300 quick, 1800 full)")
    parser.add_argument("--threads", type=int, help="cap every library's thread pools (OMP, OpenBLAS, MKL, "
                        "TensorFlow) at N in the benchmarks' processes (default: each library's own default)")
    parser.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    parser.add_argument("--bench-dir", default=BENCH, help=argparse.SUPPRESS)  # tests use their own
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--rows-file", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.quick, args.rows_file, args.bench_dir)
    names = discover(args.only, args.bench_dir)
    if args.list:
        print("\n".join(names))
        return 0
    timeout = args.timeout or (300 if args.quick else 1800)
    machine, versions = machine_info(), peer_versions()
    print(f"{len(names)} benchmarks, {'quick' if args.quick else 'full'} mode; peers: "
          + ", ".join(f"{PEERS[k][0]} {v}" for k, v in versions.items()), flush=True)
    start = time.perf_counter()
    results = []
    for i, name in enumerate(names, 1):
        print(f"[{i}/{len(names)}] {name} ...", end=" ", flush=True)
        res = run_one(name, args.quick, timeout, args.bench_dir, args.threads)
        results.append(res)
        print(f"{res['seconds']:.1f} s, {len(res['rows'])} rows" + (f" ({res['error']})" if res["error"] else ""),
              flush=True)
    text = report_markdown(results, machine, versions, args.quick, time.perf_counter() - start, args.threads)
    print()
    print(table_markdown(results))
    if args.output != "-":
        with open(args.output, "w") as f:
            f.write(text)
        print(f"\nwrote {os.path.relpath(args.output)}")
    return 1 if any(res["error"] for res in results) else 0


if __name__ == "__main__":
    sys.exit(main())
