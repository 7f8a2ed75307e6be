"""Parse + print of a generated 10,000-op TF function: tinytf beside plain xDSL, one run.

    python bench/parse_print.py [--quick] [--ops N] [--no-fast-path]

Plain xDSL parses the same generic-form text with only the builtin and func dialects loaded
(every tf op an UnregisteredOp) and prints it with xDSL's own printer. tinytf parses into its
registered op classes (properties, locations for diagnostics) and prints TensorFlow's syntax.
Target: tinytf adds at most 30% to xDSL's own cost. Also parse + verify (issue 17's load-time goal:
at least 10,000 ops/s) of the same function and of NASNetMobile's export (3,136 ops).
``--no-fast-path`` measures xDSL's per-token parser alone (``generic_op_parser`` off).
"""
from __future__ import annotations

import argparse
import gzip
import io
import time
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer

from tinytf import mlir
from tinytf.framework.generic_op_parser import GenericOpFastPath

NASNET = Path(__file__).resolve().parents[1] / "tests/conformance/fixtures/keras/nasnet_mobile.mlir.gz"

OPS = [
    ('"tf.AddV2"({a}, {b}) {{device = ""}}', "(tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>"),
    ('"tf.MatMul"({a}, {b}) <{{grad_a = false, grad_b = false, transpose_a = false, transpose_b = true}}> {{device = ""}}',
     "(tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>"),
    ('"tf.Relu"({a}) {{device = ""}}', "(tensor<64x64xf32>) -> tensor<64x64xf32>"),
    ('"tf.Mul"({a}, {b}) {{device = ""}}', "(tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>"),
    ('"tf.Identity"({a}) {{device = ""}}', "(tensor<64x64xf32>) -> tensor<64x64xf32>"),
]


def generate(n_ops: int) -> str:
    lines = ["func.func @main(%arg0: tensor<64x64xf32>, %arg1: tensor<64x64xf32>) -> tensor<64x64xf32> {"]
    names = ["%arg0", "%arg1"]
    for i in range(n_ops - 1):
        template, type_ = OPS[i % len(OPS)]
        lines.append(f"  %{i} = {template.format(a=names[-1], b=names[-2])} : {type_}")
        names.append(f"%{i}")
    lines.append(f"  func.return {names[-1]} : tensor<64x64xf32>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def xdsl_parse_print(text: str) -> str:
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    module = Parser(ctx, text).parse_module()
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def tinytf_parse_print(text: str) -> str:
    return mlir.print(mlir.parse(text))


def tinytf_parse_verify(text: str) -> None:
    mlir.verify(mlir.parse(text))


def count_ops(text: str) -> int:
    """Ops inside the module's functions."""
    module = mlir.parse(text)
    return sum(1 for op in module.walk() if op.parent_op() is not None and op.parent_op() is not module)


def best_of(fn, text: str, repeat: int, cpu: bool = False) -> float:
    """The best wall time of ``repeat`` runs (or the best CPU time of this process: parsing runs on one
    thread, and CPU time stays put when other processes share the cores)."""
    clock = time.process_time if cpu else time.perf_counter
    times = []
    for _ in range(repeat):
        start = clock()
        fn(text)
        times.append(clock() - start)
    return min(times)


def run(n_ops: int, repeat: int) -> dict:
    text = generate(n_ops)
    tinytf_parse_print(text)  # warm up both (imports, dialect loading)
    xdsl_parse_print(text)
    t_xdsl = best_of(xdsl_parse_print, text, repeat)
    t_tinytf = best_of(tinytf_parse_print, text, repeat)
    t_parse_verify = best_of(tinytf_parse_verify, text, repeat)
    nasnet = gzip.decompress(NASNET.read_bytes()).decode()
    nasnet_ops = count_ops(nasnet)
    t_nasnet = best_of(tinytf_parse_verify, nasnet, repeat)
    cpu_parse_verify = best_of(tinytf_parse_verify, text, repeat, cpu=True)
    cpu_nasnet = best_of(tinytf_parse_verify, nasnet, repeat, cpu=True)
    return {"ops": n_ops, "xdsl_s": t_xdsl, "tinytf_s": t_tinytf,
            "xdsl_ops_per_s": n_ops / t_xdsl, "tinytf_ops_per_s": n_ops / t_tinytf,
            "overhead": t_tinytf / t_xdsl - 1,
            "parse_verify_s": t_parse_verify, "parse_verify_ops_per_s": n_ops / t_parse_verify,
            "nasnet_ops": nasnet_ops, "nasnet_parse_verify_s": t_nasnet,
            "nasnet_ops_per_s": nasnet_ops / t_nasnet,
            "parse_verify_cpu_s": cpu_parse_verify, "nasnet_parse_verify_cpu_s": cpu_nasnet}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 ops, best of 2")
    parser.add_argument("--ops", type=int, default=None)
    parser.add_argument("--no-fast-path", action="store_true", help="xDSL's per-token parser only (the 'before')")
    args = parser.parse_args(argv)
    GenericOpFastPath.enabled = not args.no_fast_path
    n_ops = args.ops or (2000 if args.quick else 10_000)
    result = run(n_ops, repeat=2 if args.quick else 3)
    print(f"parse+print of a {result['ops']}-op TF function (best of runs)")
    print(f"  plain xDSL : {result['xdsl_s']:.3f} s  {result['xdsl_ops_per_s']:,.0f} ops/s")
    print(f"  tinytf     : {result['tinytf_s']:.3f} s  {result['tinytf_ops_per_s']:,.0f} ops/s")
    verdict = "met" if result["overhead"] <= 0.30 else "NOT met"
    print(f"  tinytf overhead over xDSL: {result['overhead']:+.0%} (target <= +30%: {verdict})")
    goal = "met" if min(result["parse_verify_ops_per_s"], result["nasnet_ops_per_s"]) >= 10_000 else "NOT met"
    print(f"parse + verify: {result['ops']}-op function {result['parse_verify_s']:.3f} s "
          f"{result['parse_verify_ops_per_s']:,.0f} ops/s; NASNetMobile ({result['nasnet_ops']:,} ops) "
          f"{result['nasnet_parse_verify_s']:.3f} s {result['nasnet_ops_per_s']:,.0f} ops/s "
          f"(goal >= 10,000 ops/s: {goal})")
    print(f"  in CPU time: {result['ops']}-op function {result['parse_verify_cpu_s']:.3f} s "
          f"{result['ops'] / result['parse_verify_cpu_s']:,.0f} ops/s; NASNetMobile "
          f"{result['nasnet_parse_verify_cpu_s']:.3f} s {result['nasnet_ops'] / result['nasnet_parse_verify_cpu_s']:,.0f} ops/s")
    return result


if __name__ == "__main__":
    main()
