"""``tinytf``: the command-line tool.

    tinytf run model.mlir --inputs in.npz -o out.npz [--entry NAME] [--backend graph|xla]
    tinytf demo
    tinytf gradcheck ... / tinytf bench ... / tinytf quantize ...   (when those modules exist)

``in.npz`` holds ``arg0, arg1, ...`` in the entry function's argument order (a resource argument's
array is its variable's initial value); ``out.npz`` gets ``out0, out1, ...``. Errors print one
line and exit 1. A subcommand ``X`` not defined here is ``tinytf.cli.X.main(argv)``, so other
modules add commands without editing this file.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from tinytf.cli.errors import run_tool

PLUGGABLE = ("gradcheck", "bench", "quantize")


def _plugin(name: str):
    try:
        module = importlib.import_module(f"tinytf.cli.{name}")
    except ModuleNotFoundError as err:
        if err.name == f"tinytf.cli.{name}":
            return None
        raise
    return getattr(module, "main", None)


def _load_inputs(path: str) -> list:
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        keys = set(data.files)
        args, i = [], 0
        while f"arg{i}" in keys:
            args.append(data[f"arg{i}"])
            i += 1
        extra = sorted(keys - {f"arg{j}" for j in range(i)})
    if extra:
        raise ValueError(f"{path}: unexpected arrays {', '.join(extra)} (expected arg0, arg1, ...)")
    return args


def cmd_run(args) -> int:
    import numpy as np

    import tinytf as tt

    module = tt.load_mlir(args.file)
    inputs = _load_inputs(args.inputs) if args.inputs else []
    outputs = module.run(*inputs, entry=args.entry, backend=args.backend)
    if args.output:
        np.savez(args.output, **{f"out{i}": o for i, o in enumerate(outputs)})
    else:
        for i, o in enumerate(outputs):
            print(f"out{i}: {o.dtype} {list(o.shape)}\n{o}")
    return 0


# A function as TensorFlow 2.21 exports it (tf.mlir.experimental.convert_function): a Dense layer
# with its kernel and bias captured as resource arguments.
DEMO_MLIR = """\
module attributes {tf.versions = {bad_consumers = [], min_consumer = 0 : i32, producer = 2474 : i32}} {
  func.func @__inference_dense_42(%arg0: tensor<4x3xf32> {tf._user_specified_name = "x"}, %arg1: tensor<*x!tf_type.resource> {tf._user_specified_name = "resource"}, %arg2: tensor<*x!tf_type.resource> {tf._user_specified_name = "resource"}) -> tensor<4x?xf32> attributes {allow_soft_placement = false, tf.entry_function = {control_outputs = "", inputs = "x,dense_matmul_readvariableop_resource,dense_biasadd_readvariableop_resource", outputs = "identity_RetVal"}} {
    %0 = "tf.ReadVariableOp"(%arg1) {device = ""} : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
    %1 = "tf.ReadVariableOp"(%arg2) {device = ""} : (tensor<*x!tf_type.resource>) -> tensor<*xf32>
    %2 = "tf.MatMul"(%arg0, %0) <{grad_a = false, grad_b = false, transpose_a = false, transpose_b = false}> {device = ""} : (tensor<4x3xf32>, tensor<*xf32>) -> tensor<4x?xf32>
    %3 = "tf.BiasAdd"(%2, %1) <{data_format = "NHWC"}> {device = ""} : (tensor<4x?xf32>, tensor<*xf32>) -> tensor<4x?xf32>
    %4 = "tf.Relu"(%3) {device = ""} : (tensor<4x?xf32>) -> tensor<4x?xf32>
    %5 = "tf.Identity"(%4) {device = ""} : (tensor<4x?xf32>) -> tensor<4x?xf32>
    return %5 : tensor<4x?xf32>
  }
}
"""


def cmd_demo(args) -> int:
    """A short tour: a TensorFlow export parsed, verified, printed and run; eager vs graph mode."""
    import time

    import numpy as np
    from rich.console import Console
    from rich.syntax import Syntax
    from rich.table import Table

    import tinytf as tt
    from tinytf import mlir

    console = Console()
    console.rule("[bold]1. MLIR exported by TensorFlow 2.21: parse and verify")
    module = tt.load_mlir(DEMO_MLIR)
    fn = module.entry()
    console.print(f"entry function [cyan]@{fn.sym_name.data}[/], {len(fn.body.blocks[0].ops)} ops, "
                  f"{len(fn.function_type.inputs.data)} arguments (2 are captured variables)")
    console.rule("[bold]2. printed back by tinytf")
    console.print(Syntax(mlir.print(module.module).rstrip(), "mlir", word_wrap=True))
    console.rule("[bold]3. run it (graph executor) and check against numpy")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    w = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    (out,) = module.run(x, w, b)
    expected = np.maximum(x @ w + b, 0)
    table = Table("output", "shape", "dtype", "max |tinytf - numpy|")
    table.add_row("out0", str(list(out.shape)), str(out.dtype), f"{np.abs(out - expected).max():.2e}")
    console.print(table)
    console.rule("[bold]4. the same model written with tinytf ops: eager and tt.function")
    kernel, bias = tt.Variable(w, name="kernel"), tt.Variable(b, name="bias")

    def dense(x):
        return tt.nn.relu(tt.nn.bias_add(tt.matmul(x, kernel), bias))

    graph = tt.function(dense)
    eager_out, graph_out = dense(tt.constant(x)).numpy(), graph(tt.constant(x)).numpy()
    console.print(f"eager == graph: [green]{bool(np.allclose(eager_out, graph_out))}[/]; traced function:")
    console.print(Syntax(graph.get_concrete_function(tt.TensorSpec([4, 3])).mlir().rstrip(), "mlir",
                         word_wrap=True))
    if not args.quick:
        xt = tt.constant(x)
        timing = Table("mode", "µs per call")
        for label, call in (("eager", lambda: dense(xt)), ("tt.function", lambda: graph(xt)),
                            ("loaded TF MLIR", lambda: module.run(x, w, b))):
            call()
            start = time.perf_counter()
            for _ in range(200):
                call()
            timing.add_row(label, f"{(time.perf_counter() - start) / 200 * 1e6:.1f}")
        console.print(timing)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tinytf", description="tinytf: a small, readable TensorFlow")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run an MLIR function on inputs from an .npz file")
    run.add_argument("file", help="MLIR file (TensorFlow's export or tinytf's)")
    run.add_argument("--inputs", "-i", help=".npz with arg0, arg1, ... in argument order")
    run.add_argument("-o", "--output", help=".npz to write out0, out1, ... to (default: print)")
    run.add_argument("--entry", help="function to run (default: the only public one, main, or tf.entry_function)")
    run.add_argument("--backend", default="graph", choices=["graph", "xla"])
    run.set_defaults(handler=cmd_run)
    demo = sub.add_parser("demo", help="a short tour: parse a TF export, verify, print, run")
    demo.add_argument("--quick", action="store_true", help="skip the timing part")
    demo.set_defaults(handler=cmd_demo)
    for name in PLUGGABLE:
        if importlib.util.find_spec(f"tinytf.cli.{name}") is not None:
            sub.add_parser(name, help=f"see 'tinytf {name} --help'", add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in PLUGGABLE:
        plugin = _plugin(argv[0])
        if plugin is not None:
            return run_tool(f"tinytf {argv[0]}", lambda: plugin(argv[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help()
        return 2
    return run_tool(f"tinytf {args.command}", lambda: args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
