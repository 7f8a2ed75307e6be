"""Int8 weight-only MLP inference: float vs int8 weights, in graph mode and under XLA, one run.

    python bench/quantized.py [--quick] [--blas-threads N]

The model is a TensorFlow-style export (Dense layers reading captured variables) of a
64x512 -> 512 relu -> 512 relu -> 10 MLP. ``tf-freeze-variables`` makes its weights constants
(the float model) and ``tf-quantize-weights`` (per channel, symmetric) stores them as int8 with
TensorFlow's dequantize pattern (the int8 model). Reported: time per call of each model through
``tt.load_mlir(...).run`` (graph) and through the compiled XLA program, the models' weight bytes,
the compiled programs' constant bytes (does the int8 weight stay int8 under XLA?), and the largest
output difference relative to the float output's range. Target (issue 6): weight bytes at least
3.5x smaller, outputs within 1% of the float outputs' range.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

if "--blas-threads" in sys.argv:  # must be set before numpy loads OpenBLAS
    _n = sys.argv[sys.argv.index("--blas-threads") + 1]
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = _n

import numpy as np  # noqa: E402

from bench.common import Row, measure  # noqa: E402

SIZES = [512, 512, 512, 10]
BATCH = 64
RES = "tensor<*x!tf_type.resource>"


def export_text(sizes=SIZES, batch=BATCH) -> str:
    """MLIR as TensorFlow exports a Keras MLP: kernels and biases are resource arguments."""
    n = len(sizes) - 1
    args = [f'%arg0: tensor<{batch}x{sizes[0]}xf32> {{tf._user_specified_name = "x"}}']
    args += [f'%arg{i}: {RES} {{tf._user_specified_name = "resource"}}' for i in range(1, 2 * n + 1)]
    names = ",".join(["x"] + [f"dense_{i // 2}_{'kernel' if i % 2 == 0 else 'bias'}" for i in range(2 * n)])
    lines, h = [], "%arg0"
    for layer in range(n):
        k, b = 2 * layer + 1, 2 * layer + 2
        lines.append(f'%k{layer} = "tf.ReadVariableOp"(%arg{k}) : ({RES}) -> tensor<*xf32>')
        lines.append(f'%b{layer} = "tf.ReadVariableOp"(%arg{b}) : ({RES}) -> tensor<*xf32>')
        lines.append(f'%m{layer} = "tf.MatMul"({h}, %k{layer}) <{{grad_a = false, grad_b = false, transpose_a = false, '
                     f'transpose_b = false}}> : (tensor<{batch}x{sizes[layer]}xf32>, tensor<*xf32>) -> '
                     f'tensor<{batch}x{sizes[layer + 1]}xf32>')
        op = "tf.Relu" if layer < n - 1 else "tf.Identity"
        lines.append(f'%a{layer} = "tf.BiasAdd"(%m{layer}, %b{layer}) <{{data_format = "NHWC"}}> : '
                     f'(tensor<{batch}x{sizes[layer + 1]}xf32>, tensor<*xf32>) -> tensor<{batch}x{sizes[layer + 1]}xf32>')
        lines.append(f'%h{layer} = "{op}"(%a{layer}) : (tensor<{batch}x{sizes[layer + 1]}xf32>) -> '
                     f'tensor<{batch}x{sizes[layer + 1]}xf32>')
        h = f"%h{layer}"
    out = f"tensor<{batch}x{sizes[-1]}xf32>"
    body = "\n    ".join(lines)
    return (f'func.func @__inference_mlp_1({", ".join(args)}) -> {out} attributes {{tf.entry_function = '
            f'{{control_outputs = "", inputs = "{names}", outputs = "identity_RetVal"}}}} {{\n    {body}\n'
            f'    return {h} : {out}\n}}\n')


def weights(sizes=SIZES, seed=0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        out.append((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32))
        out.append((rng.standard_normal(fan_out) * 0.1).astype(np.float32))
    return out


def main(argv=None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--blas-threads", type=int, help="threads for numpy's BLAS (a loaded machine)")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7

    from tinytf import mlir
    from tinytf.loaded_module import LoadedModule
    from tinytf.passes.constant_fold import constant_fold
    from tinytf.quantization import constant_bytes, freeze_variables, quantize_weights
    from tinytf.quantization.hlo_constants import constant_bytes as hlo_bytes

    ws = weights()
    x = np.random.default_rng(1).standard_normal((BATCH, SIZES[0])).astype(np.float32)
    float_module = mlir.parse(export_text())
    freeze_variables(float_module, ws)
    constant_fold(float_module)
    int8_module = float_module.clone()
    sites = quantize_weights(int8_module, per_channel=True, symmetric=True, min_elements=1024)
    models = {"float": LoadedModule(float_module), "int8": LoadedModule(int8_module)}
    weight_bytes = {k: constant_bytes(m.module) for k, m in models.items()}

    from tinytf import xla

    calls, outs, program_bytes = {}, {}, {}
    for kind, model in models.items():
        outs[(kind, "graph")] = model.run(x)[0]
        calls[(kind, "graph")] = lambda model=model: model.run(x)
        compiled = xla.XlaFunction(model.module)
        outs[(kind, "xla")] = compiled(x)[0]
        calls[(kind, "xla")] = lambda compiled=compiled: compiled.call_raw(x)
        program_bytes[kind] = hlo_bytes(next(iter(compiled.compilations.values())).compiled.as_text())
    # rounds that alternate float and int8, best of all: load from other processes hits both alike
    times = {key: float("inf") for key in calls}
    for _ in range(repeat):
        for key, call in calls.items():
            times[key] = min(times[key], measure(call, repeat=1).best)

    span = float(np.ptp(outs[("float", "graph")]))
    diffs = {mode: float(np.abs(outs[("int8", mode)] - outs[("float", mode)]).max()) for mode in ("graph", "xla")}
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}; {len(sites)} weights quantized per channel")
    print(f"{'mode':<8}{'float µs':>12}{'int8 µs':>12}{'int8/float':>12}{'max |diff| / range':>22}")
    for mode in ("graph", "xla"):
        f, q = times[("float", mode)] * 1e6, times[("int8", mode)] * 1e6
        print(f"{mode:<8}{f:>12.1f}{q:>12.1f}{q / f:>12.2f}{100 * diffs[mode] / span:>21.3f}%")
    ratio = weight_bytes["float"] / weight_bytes["int8"]
    print(f"weight bytes (tf.Const values): float {weight_bytes['float']}, int8 {weight_bytes['int8']} ({ratio:.2f}x)")
    for kind in ("float", "int8"):
        listed = ", ".join(f"{t} {n}" for t, n in sorted(program_bytes[kind].items()))
        print(f"compiled XLA program constants, {kind} model: {sum(program_bytes[kind].values())} bytes ({listed})")

    name = f"MLP {'-'.join(map(str, SIZES))} x{BATCH}"
    rows = [Row("quantized", f"{name}, graph, int8 vs float", "µs", times[("int8", "graph")] * 1e6,
                others={"float graph": times[("float", "graph")] * 1e6}, reference="float graph",
                note=f"max |int8 - float| = {100 * diffs['graph'] / span:.3f}% of the output range"),
            Row("quantized", f"{name}, XLA, int8 vs float", "µs", times[("int8", "xla")] * 1e6,
                others={"float xla": times[("float", "xla")] * 1e6}, reference="float xla",
                note=f"max |int8 - float| = {100 * diffs['xla'] / span:.3f}% of the output range"),
            Row("quantized", f"{name}, weight bytes", "bytes", weight_bytes["int8"],
                others={"float": weight_bytes["float"]}, reference="float", target="<= 1/3.5 of float",
                target_ratio=1 / 3.5),
            Row("quantized", f"{name}, compiled XLA constant bytes", "bytes", sum(program_bytes["int8"].values()),
                others={"float": sum(program_bytes["float"].values())}, reference="float",
                target="<= 1/3.5 of float", target_ratio=1 / 3.5,
                note=f"int8 program: {program_bytes['int8']}")]
    return rows


if __name__ == "__main__":
    main()
