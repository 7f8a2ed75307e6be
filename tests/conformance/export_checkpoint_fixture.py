"""Record the TensorFlow-written checkpoint fixture ``tests/fixtures/checkpoints/tf2_21_modules_adam``.

Run by hand where TensorFlow is installed (never in ``make test``):

    .venv-bench/bin/python tests/conformance/export_checkpoint_fixture.py [--out DIR]

It builds ``checkpoint_models.build(tf)`` (nested tf.Modules, a list and a dict of them, a
non-trainable variable, ``tf.compat.v1.train.AdamOptimizer`` with slots, beta powers and an ``iter``
counter), takes two Adam steps, saves with ``tf.train.CheckpointManager`` (``ckpt-1`` and the
``checkpoint`` state file), and writes ``expected.json``: by checkpoint key, the dtype, shape and
values after one more Adam step, which tinytf must reproduce from the restored state.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(ROOT, "tests", "fixtures", "checkpoints", "tf2_21_modules_adam")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    sys.path.insert(0, HERE)
    import checkpoint_models as cm

    net, opt = cm.build(tf)
    for _ in range(2):
        cm.step(tf, net, opt)
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=net, optimizer=opt), args.out, max_to_keep=1)
    path = manager.save()
    values = cm.checkpoint_values(tf, net, opt)
    reader = tf.train.load_checkpoint(path)
    for key, value in values.items():  # the live objects hold what the bundle says
        assert np.array_equal(reader.get_tensor(key), value), key
    cm.step(tf, net, opt)
    after = cm.checkpoint_values(tf, net, opt)
    with open(os.path.join(args.out, "expected.json"), "w") as f:
        f.write("{\n" + ",\n".join(f'"{k}": {{"dtype": "{v.dtype}", "shape": {list(v.shape)}, "values": [' +
                                    ", ".join(str(x) for x in v.reshape(-1)) + "]}" for k, v in after.items())
                + "\n}\n")
    print(f"wrote {path} ({len(values)} values) with TensorFlow {tf.__version__}")
    for name in sorted(os.listdir(args.out)):
        print(f"  {name}: {os.path.getsize(os.path.join(args.out, name))} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
