"""Pass throughput: tinytf's canonicalize + tf-shape-inference over a generated 10,000-op function,
beside xDSL's own canonicalize (no tf folding patterns: dead-code removal only) on the same module.

    .venv/bin/python bench/passes.py            # 10,000 ops, best of 3
    .venv/bin/python bench/passes.py --quick    # 10,000 ops, one run

The function mixes work for both passes: every result is typed ``tensor<*xf32>`` (shape inference
refines each to ``8x16``), one op in eight is foldable arithmetic on constants, one in sixteen is
dead. ops/s counts the ops of the input function.
"""
from __future__ import annotations

import argparse
import time

from xdsl.transforms.canonicalize import CanonicalizePass

import tinytf.passes  # noqa: F401  (hooks tf constant folding into canonicalize)
from tinytf import mlir
from tinytf.framework import op as op_module
from tinytf.passes.constant_fold import ConstantFold
from tinytf.passes.shape_inference import ShapeInference

UNRANKED = "tensor<*xf32>"


def generate(n_ops: int) -> str:
    """A function of ``n_ops`` tf ops over two 8x16 arguments."""
    types = {"%x": "tensor<8x16xf32>", "%y": "tensor<8x16xf32>"}
    lines, live, count = [], ["%x", "%y"], 0
    binary = ["tf.AddV2", "tf.Mul", "tf.Sub"]
    while count < n_ops:
        i = count
        if i % 8 == 7:  # a foldable triple: two constants and an op on them
            lines += [f'%c{i}a = "tf.Const"() <{{value = dense<{i % 5}.5> : tensor<8x16xf32>}}> : () -> {UNRANKED}',
                      f'%c{i}b = "tf.Const"() <{{value = dense<2.0> : tensor<f32>}}> : () -> tensor<f32>',
                      f'%v{i} = "tf.Mul"(%c{i}a, %c{i}b) : ({UNRANKED}, tensor<f32>) -> {UNRANKED}']
            live.append(f"%v{i}")
            types[f"%v{i}"] = UNRANKED
            count += 3
            continue
        a, b = live[-1], live[-2 - (i % 3) if len(live) > 3 else 0]
        if i % 16 == 5:  # dead: nothing uses it
            lines.append(f'%d{i} = "tf.Relu"({a}) : ({types[a]}) -> {UNRANKED}')
        elif i % 4 == 1:
            lines.append(f'%v{i} = "tf.Relu"({a}) : ({types[a]}) -> {UNRANKED}')
            live.append(f"%v{i}")
        else:
            op = binary[i % 3]
            lines.append(f'%v{i} = "{op}"({a}, {b}) : ({types[a]}, {types[b]}) -> {UNRANKED}')
            live.append(f"%v{i}")
        types[f"%v{i}"] = UNRANKED
        count += 1
    # each live value feeds the next op, so the result depends on all of them: only the dead ops
    # and the folded constants go
    a, b = live[-1], live[-2]
    lines.append(f'%out = "tf.AddV2"({a}, {b}) : ({types[a]}, {types[b]}) -> {UNRANKED}')
    body = "\n  ".join(lines)
    return (f"func.func @main(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> {UNRANKED} {{\n  {body}\n"
            f"  func.return %out : {UNRANKED}\n}}\n")


def timed(module, passes, repeat):
    best = float("inf")
    out = None
    for _ in range(repeat):
        clone = module.clone()
        start = time.perf_counter()
        for p in passes:
            p.apply(mlir.context(), clone)
        best = min(best, time.perf_counter() - start)
        out = clone
    return best, out


def xdsl_canonicalize(module, repeat):
    """xDSL's canonicalize as it comes: tinytf's folding pattern taken out for the measurement."""
    saved = list(op_module.CANONICALIZATION_PATTERNS)
    op_module.CANONICALIZATION_PATTERNS.clear()
    try:
        return timed(module, [CanonicalizePass()], repeat)
    finally:
        op_module.CANONICALIZATION_PATTERNS.extend(saved)


def count_ops(module) -> int:
    return sum(1 for op in module.walk() if op.name.startswith("tf."))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="one run of each instead of the best of 3")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else 3

    text = generate(args.ops)
    start = time.perf_counter()
    module = mlir.parse(text)
    parse_s = time.perf_counter() - start
    n = count_ops(module)
    print(f"generated function: {n} tf ops; parse {parse_s:.2f} s ({n / parse_s:,.0f} ops/s)")

    rows = [("xDSL canonicalize (dce only)", *xdsl_canonicalize(module, repeat)),
            ("tinytf canonicalize (+ tf folding)", *timed(module, [CanonicalizePass()], repeat)),
            ("tf-constant-fold", *timed(module, [ConstantFold()], repeat)),
            ("tf-shape-inference", *timed(module, [ShapeInference()], repeat)),
            ("canonicalize + tf-shape-inference", *timed(module, [CanonicalizePass(), ShapeInference()], repeat))]
    print(f"{'pipeline':38} {'seconds':>8} {'ops/s':>10} {'ops left':>9}")
    for name, seconds, out in rows:
        print(f"{name:38} {seconds:8.3f} {n / seconds:10,.0f} {count_ops(out):9d}")
    refined = sum(1 for op in rows[-1][2].walk() for r in op.results if str(r.type) == UNRANKED)
    print(f"unranked results left after the pipeline: {refined}")


if __name__ == "__main__":
    main()
