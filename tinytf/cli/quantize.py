"""``tinytf quantize``: freeze a model's variables, store its weights as int8, save the MLIR.

    tinytf quantize model.mlir --weights weights.npz -o model_int8.mlir [--per-tensor] [--asymmetric]
                    [--check inputs.npz] [--min-elements N] [--function] [--entry NAME] [--backend graph|xla]

``weights.npz`` holds ``arg0, arg1, ...`` as for ``tinytf run`` (a resource argument's array is its
variable's value; arrays for data arguments are ignored). ``inputs.npz`` holds the arguments of the
frozen function (the data arguments ``arg0, ...``). Prints the weight bytes before and after and,
with ``--check``, the largest output difference from the float model. Bad input (a weight missing,
of the wrong dtype or shape) prints one line and exits 1 without writing the output.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from tinytf.errors import InvalidArgumentError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tinytf quantize", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="MLIR file (TensorFlow's export or tinytf's)")
    parser.add_argument("--weights", "-w", help=".npz with the resource arguments' values (arg1, ... as for 'tinytf run')")
    parser.add_argument("-o", "--output", required=True, help="where to write the quantized MLIR")
    parser.add_argument("--per-tensor", action="store_true", help="one scale per weight (default: per output channel)")
    parser.add_argument("--asymmetric", action="store_true", help="min/max range with a zero point (default: symmetric)")
    parser.add_argument("--min-elements", type=int, default=1024, help="quantize weights with at least this many elements")
    parser.add_argument("--function", action="store_true", help="dequantize through @dequantize_i8 (default: inline)")
    parser.add_argument("--check", metavar="INPUTS.npz", help="run float and int8 models on these inputs and compare")
    parser.add_argument("--entry", help="function to quantize (default: as 'tinytf run' picks it)")
    parser.add_argument("--backend", default="graph", choices=["graph", "xla"], help="backend for --check")
    return parser


def _inputs(path: str, count: int) -> list[np.ndarray]:
    from tinytf.quantization.freeze_variables import load_npz

    arrays = load_npz(path)
    missing = [f"arg{i}" for i in range(count) if i not in arrays]
    if missing:
        raise InvalidArgumentError(f"--check {path}: no {', '.join(missing)} (the quantized function takes {count} "
                                   "arguments)")
    return [arrays[i] for i in range(count)]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import tinytf.mlir as mlir
    from tinytf.loaded_module import LoadedModule
    from tinytf.passes.constant_fold import constant_fold
    from tinytf.quantization import constant_bytes, freeze_variables, quantize_weights
    from tinytf.quantization.freeze_variables import load_npz
    from tinytf.runtime.module import find_entry

    if args.min_elements < 1:
        raise InvalidArgumentError(f"--min-elements must be at least 1, got {args.min_elements}")
    module = mlir.parse(args.file)
    mlir.verify(module)
    entry = find_entry(module, args.entry).sym_name.data
    frozen = freeze_variables(module, load_npz(args.weights) if args.weights else {}, entry)
    constant_fold(module)  # e.g. a kernel read then Reshaped (Keras attention) becomes one constant
    before = constant_bytes(module)
    float_module = module.clone() if args.check else None
    sites = quantize_weights(module, per_channel=not args.per_tensor, symmetric=not args.asymmetric,
                             min_elements=args.min_elements, inline=not args.function)
    mlir.verify(module)
    after = constant_bytes(module)
    mode = f"{'per tensor' if args.per_tensor else 'per channel'}, {'asymmetric' if args.asymmetric else 'symmetric'}"
    print(f"froze {len(frozen)} variable{'s' * (len(frozen) != 1)}; quantized {len(sites)} "
          f"weight{'s' * (len(sites) != 1)} to int8 ({mode}, at least {args.min_elements} elements)")
    for site in sites:
        print(f"  {site.op:<26} {str(list(site.shape)):<16} {site.float_bytes:>9} -> {site.int8_bytes:>8} bytes")
    print(f"weight bytes: {before} -> {after} ({before / max(after, 1):.2f}x smaller)")
    if args.check:
        fn = find_entry(module, entry)
        inputs = _inputs(args.check, len(fn.function_type.inputs.data))
        reference = LoadedModule(float_module).run(*inputs, entry=entry, backend=args.backend)
        quantized = LoadedModule(module).run(*inputs, entry=entry, backend=args.backend)
        for i, (ref, out) in enumerate(zip(reference, quantized)):
            diff = float(np.max(np.abs(out.astype(np.float64) - ref))) if ref.size else 0.0
            span = float(np.ptp(ref)) if ref.size else 0.0
            share = f" ({100 * diff / span:.3f}% of the float output's range {span:.4g})" if span > 0 else ""
            print(f"out{i}: max |int8 - float| = {diff:.4g}{share} [{args.backend}]")
    text = mlir.print(module)
    with open(args.output, "w") as f:
        f.write(text)
    print(f"wrote {args.output}")
    return 0
