"""``tinytf``: the command-line tool.

    tinytf run model.mlir --inputs in.npz -o out.npz [--entry NAME] [--backend graph|xla] [--devices N]
    tinytf demo
    tinytf gradcheck ... / tinytf bench ... / tinytf quantize ... / tinytf saved_model show|run ...

``in.npz`` holds ``arg0, arg1, ...`` in the entry function's argument order (a resource argument's
array is its variable's initial value); ``out.npz`` gets ``out0, out1, ...``. ``--devices N`` runs
on N CPU devices (XLA backend): for IR with ``tf_device.replicate``, ``tf.XlaSharding`` or
``mhlo.sharding``, which XLA's SPMD partitioner spreads over them. Errors print one
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

PLUGGABLE = ("gradcheck", "bench", "quantize", "demo", "saved_model")


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


def _use_devices(count: int) -> None:
    """N CPU devices for JAX (set before its backend starts)."""
    if count < 1:
        raise ValueError(f"--devices must be at least 1, got {count}")
    import jax

    try:
        jax.config.update("jax_num_cpu_devices", count)
    except RuntimeError as err:
        raise ValueError(f"--devices {count}: JAX has already started ({err})") from None


def cmd_run(args) -> int:
    import numpy as np

    import tinytf as tt

    backend = args.backend or ("xla" if args.devices else "graph")
    if args.devices:
        if backend != "xla":
            raise ValueError("--devices runs on XLA: use --backend xla (or leave --backend out)")
        _use_devices(args.devices)
    module = tt.load_mlir(args.file)
    inputs = _load_inputs(args.inputs) if args.inputs else []
    outputs = module.run(*inputs, entry=args.entry, backend=backend)
    if args.output:
        np.savez(args.output, **{f"out{i}": o for i, o in enumerate(outputs)})
    else:
        for i, o in enumerate(outputs):
            print(f"out{i}: {o.dtype} {list(o.shape)}\n{o}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tinytf", description="tinytf: a small, readable TensorFlow")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run an MLIR function on inputs from an .npz file")
    run.add_argument("file", help="MLIR file (TensorFlow's export or tinytf's)")
    run.add_argument("--inputs", "-i", help=".npz with arg0, arg1, ... in argument order")
    run.add_argument("-o", "--output", help=".npz to write out0, out1, ... to (default: print)")
    run.add_argument("--entry", help="function to run (default: the only public one, main, or tf.entry_function)")
    run.add_argument("--backend", default=None, choices=["graph", "xla"], help="graph (default) or xla")
    run.add_argument("--devices", type=int, default=None, metavar="N",
                     help="run on N CPU devices (XLA; for replicated or sharded IR)")
    run.set_defaults(handler=cmd_run)
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
