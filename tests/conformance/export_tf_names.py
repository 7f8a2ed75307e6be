"""Record TensorFlow's public Python names per namespace, the facts tests/unit/test_api_coverage.py
measures tinytf against.

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_tf_names.py [--out tests/fixtures/tf_public_names.json]

Writes ``{"__meta__": {...}, "math": {"abs": "function", ...}, ...}``: each namespace's names without a
leading underscore, each with its kind (function, class, module, dtype, constant). ``top`` is
``tf.*`` itself; ``raw_ops`` is ``tf.raw_ops``.
"""
from __future__ import annotations

import argparse
import inspect
import json
import os
from pathlib import Path

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "fixtures" / "tf_public_names.json"
NAMESPACES = ("math", "nn", "linalg", "random", "signal", "image", "bitwise", "debugging", "raw_ops")


def kind(tf, value) -> str:
    if inspect.ismodule(value):
        return "module"
    if isinstance(value, tf.dtypes.DType):
        return "dtype"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "constant"


def names(tf, module) -> dict[str, str]:
    return {n: kind(tf, getattr(module, n)) for n in sorted(dir(module)) if not n.startswith("_")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT))
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    out = {"__meta__": {"tensorflow": tf.__version__,
                        "generated_by": "tests/conformance/export_tf_names.py"}}
    for ns in NAMESPACES:
        out[ns] = names(tf, getattr(tf, ns))
    out["top"] = names(tf, tf)
    Path(args.out).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    counts = ", ".join(f"{k} {len(v)}" for k, v in out.items() if k != "__meta__")
    print(f"wrote {args.out}: {counts}")


if __name__ == "__main__":
    main()
