"""tf-fuse-bias-activation on real Keras models: the graph executor with and without the fused ops.

    python bench/fuse_bias_activation.py [--repeat 40] [resnet50 vgg16 ...]

Both programs run the same loaded module after tf-fold-batch-norm (tests/conformance/fixtures/keras); one
also runs tf-fuse-bias-activation. Calls alternate between the two; the best CPU time (process time) of
``--repeat`` calls each is reported, with how many ops fused and the largest difference of the outputs
(0: the fused kernels are bit for bit the unfused chain). BLAS runs on one thread (unless
OMP_NUM_THREADS and the like say otherwise): the CPU time of several BLAS threads counts their spin
waits between calls (at two threads, VGG16's CPU times differed by 9% where the wall times were
within 2%).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy loads
    os.environ.setdefault(_var, "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))

import numpy as np  # noqa: E402

from bench.common import Row  # noqa: E402
from tinytf.passes.fold_batch_norm import folded  # noqa: E402
from tinytf.passes.fuse_bias_activation import fused  # noqa: E402
from tinytf.runtime.executor import Program, check_argument  # noqa: E402

MODELS = ("resnet50", "vgg16", "efficientnet_b0", "mobilenet_v2")


def measure(name: str, repeat: int) -> Row:
    from keras_fixtures import fixture, module

    _, inputs, captures, _ = fixture(name)
    loaded = module(name)
    fn = loaded.entry(None)
    fn_name, types = fn.sym_name.data, list(fn.function_type.inputs.data)
    args = [check_argument(a, t, i, fn_name) for i, (a, t) in enumerate(zip([*inputs, *captures], types))]
    base = folded(loaded._runnable)
    rewritten = fused(base)
    count = sum(1 for op in rewritten.walk() if op.name.startswith("tf._Fused"))
    programs = {"unfused": Program(base), "fused": Program(rewritten)}
    outs = {k: p.run(fn_name, list(args)) for k, p in programs.items()}
    diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in zip(*outs.values()))
    best = dict.fromkeys(programs, float("inf"))
    for _ in range(repeat):
        for key, program in programs.items():
            start = time.process_time()
            program.run(fn_name, list(args))
            best[key] = min(best[key], time.process_time() - start)
    print(f"{name}: {count} fused ops; unfused {best['unfused'] * 1e3:.2f} ms, fused {best['fused'] * 1e3:.2f} ms "
          f"CPU (best of {repeat}), {best['unfused'] / best['fused']:.3f}x; max |difference| {diff:.3g}", flush=True)
    return Row("fuse_bias_activation", f"{name}, graph, fused ({count} ops) vs unfused", "ms", best["fused"] * 1e3,
               others={"unfused": best["unfused"] * 1e3}, reference="unfused", target="<= 1.0x unfused",
               target_ratio=1.0, note=f"CPU time, best of {repeat}; max |fused - unfused| {diff:.3g}")


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", default=list(MODELS))
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="two models, fewer calls")
    options = parser.parse_args(argv)
    if options.quick:
        options.models, options.repeat = options.models[:2], 10
    return [measure(name, options.repeat) for name in options.models]


if __name__ == "__main__":
    main()
