"""Record the text TensorFlow's tf.print writes for the cases of tests/conformance/print_cases.py, eagerly
and from a tf.function (TensorFlow's StringFormat and PrintV2 ops).

Run by hand with TensorFlow installed, never in CI (tinytf is not imported):

    .venv-bench/bin/python tests/conformance/export_print_fixtures.py

Writes tests/fixtures/print/tf_print.json: {"__meta__": {...}, "eager": {case: text}, "function": {case: text}}.
"""
from __future__ import annotations

import importlib.util
import json
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "fixtures" / "print" / "tf_print.json"


def load_cases():
    spec = importlib.util.spec_from_file_location("print_cases", HERE / "print_cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


def to_tf(tf, value):
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "tensor":
        return tf.constant(value[1])
    if isinstance(value, dict):
        return {k: to_tf(tf, v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_tf(tf, v) for v in value]
    return value


def printed(tf, inputs, kwargs, use_function):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "out.txt"
        stream = f"file://{path}"

        def run():
            tf.print(*[to_tf(tf, v) for v in inputs], output_stream=stream, **kwargs)

        (tf.function(run) if use_function else run)()
        return path.read_text()


def main():
    import tensorflow as tf  # only here: never imported by pytest collection

    cases = load_cases()
    out = {"__meta__": {"tensorflow": tf.__version__},
           "eager": {name: printed(tf, *case, False) for name, case in cases.items()},
           "function": {name: printed(tf, *case, True) for name, case in cases.items()}}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
