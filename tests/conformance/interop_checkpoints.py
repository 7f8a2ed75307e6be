"""Two-way checkpoint interop with real TensorFlow (``make interop``; needs ``.venv-bench``).

    .venv-bench/bin/python tests/conformance/interop_checkpoints.py

Checks, each printed PASS or FAIL (exit status 1 on any failure):

1. TensorFlow reads tinytf's checkpoints: ``tf.train.load_checkpoint`` sees every key with tinytf's
   values; ``tf.train.Checkpoint(model=..., optimizer=...).read`` restores nested tf.Modules and
   ``tf.compat.v1.train.AdamOptimizer`` (slots m and v, beta powers, ``iter``), and one more Adam step
   in both libraries gives the same values; TensorFlow's ``latest_checkpoint``,
   ``get_checkpoint_state`` and ``CheckpointManager`` read tinytf's ``checkpoint`` state file and
   carry on saving where tinytf stopped.
2. tinytf reads TensorFlow's: the same model written by TensorFlow (``write`` and
   ``CheckpointManager.save``) restores into tinytf with ``assert_consumed`` and continues
   training to TensorFlow's values; tinytf's manager continues TensorFlow's numbering.
3. Every dtype (floats, bfloat16, ints, bool, complex, strings) round-trips in both directions.

The model is ``checkpoint_models.py``; the committed fixture ``tests/fixtures/checkpoints/
tf2_21_modules_adam`` (``export_checkpoint_fixture.py``) lets ``make test`` check direction 2 without
TensorFlow.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [ROOT, HERE]
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import checkpoint_models as cm  # noqa: E402

RESULTS: list[tuple[str, bool, str]] = []


def check(name: str):
    def run(fn):
        try:
            detail = fn() or ""
            RESULTS.append((name, True, detail))
            print(f"PASS  {name}" + (f"  ({detail})" if detail else ""), flush=True)
        except Exception:  # noqa: BLE001 - a failed check is reported, the others still run
            RESULTS.append((name, False, traceback.format_exc()))
            print(f"FAIL  {name}\n{traceback.format_exc()}", flush=True)
        return fn

    return run


def assert_same(got: dict, want: dict, exact: bool = True, what: str = "") -> None:
    assert got.keys() == want.keys(), f"{what}: keys differ: {sorted(set(got) ^ set(want))}"
    for key in want:
        if exact:
            np.testing.assert_array_equal(got[key], want[key], err_msg=f"{what}: {key}")
        else:
            np.testing.assert_allclose(got[key], want[key], rtol=2e-6, atol=1e-7, err_msg=f"{what}: {key}")


def structure(graph) -> list:
    """An object graph without the informational ``full_name``s (TensorFlow's variable names)."""
    return [([(c.node_id, c.local_name) for c in n.children], [(a.name, a.checkpoint_key) for a in n.attributes],
             [(v.original_variable_node_id, v.slot_name, v.slot_variable_node_id) for v in n.slot_variables],
             n.has_checkpoint_values.value) for n in graph.nodes]


def zeros():
    return {k: np.zeros_like(v) for k, v in cm.initial_values().items()}


def main() -> int:
    import tensorflow as tf

    import tinytf as tt

    work = tempfile.mkdtemp(prefix="tinytf-interop-")
    print(f"TensorFlow {tf.__version__}, tinytf from {os.path.dirname(tt.__file__)}; files in {work}\n", flush=True)

    # -- 1. TensorFlow reads tinytf's checkpoints ------------------------------------------------
    net, opt = cm.build(tt)
    for _ in range(2):
        cm.step(tt, net, opt)
    tt_values = cm.checkpoint_values(tt, net, opt)
    tt_prefix = tt.train.Checkpoint(model=net, optimizer=opt).write(os.path.join(work, "tt", "weights"))

    @check("tf.train.load_checkpoint reads tinytf's write(): every key, exact values")
    def _():
        reader = tf.train.load_checkpoint(tt_prefix)
        keys = set(reader.get_variable_to_shape_map())
        assert keys == set(tt_values) | {"_CHECKPOINTABLE_OBJECT_GRAPH"}, sorted(keys ^ set(tt_values))
        assert_same({k: reader.get_tensor(k) for k in tt_values}, tt_values, what="load_checkpoint")
        return f"{len(tt_values)} variables incl. 12 Adam slots"

    @check("tf.train.Checkpoint(...).read restores nested tf.Modules + tf.compat.v1 Adam; one more step agrees")
    def _():
        tf_net, tf_opt = cm.build(tf, zeros())
        status = tf.train.Checkpoint(model=tf_net, optimizer=tf_opt).read(tt_prefix)
        status.assert_existing_objects_matched()
        restored = {k: v for k, v in cm.checkpoint_values(tf, tf_net, tf_opt).items() if "beta" not in k}
        assert_same(restored, {k: v for k, v in tt_values.items() if "beta" not in k}, what="restored")
        cm.step(tf, tf_net, tf_opt)  # creates the beta powers: TensorFlow restores them then (deferred)
        status.assert_consumed()
        net2, opt2 = cm.build(tt, zeros())
        tt.train.Checkpoint(model=net2, optimizer=opt2).read(tt_prefix).assert_consumed()
        cm.step(tt, net2, opt2)
        assert_same(cm.checkpoint_values(tf, tf_net, tf_opt), cm.checkpoint_values(tt, net2, opt2), exact=False,
                    what="after a step")
        return "assert_consumed passes; 22 values after the next step agree to 2e-6"

    mgr_dir = os.path.join(work, "tt_manager")
    ckpt = tt.train.Checkpoint(model=net, optimizer=opt)
    manager = tt.train.CheckpointManager(ckpt, mgr_dir, max_to_keep=2)
    saved = {}
    for _ in range(3):
        cm.step(tt, net, opt)
        saved[manager.save()] = cm.checkpoint_values(tt, net, opt)

    @check("TensorFlow reads tinytf's CheckpointManager directory and continues it")
    def _():
        assert tf.train.latest_checkpoint(mgr_dir) == manager.latest_checkpoint
        state = tf.train.get_checkpoint_state(mgr_dir)
        assert list(state.all_model_checkpoint_paths) == manager.checkpoints
        assert len(state.all_model_checkpoint_timestamps) == 2
        tf_net, tf_opt = cm.build(tf, zeros())
        tf_ckpt = tf.train.Checkpoint(model=tf_net, optimizer=tf_opt)
        tf_manager = tf.train.CheckpointManager(tf_ckpt, mgr_dir, max_to_keep=2)
        assert tf_manager.checkpoints == manager.checkpoints
        status = tf_ckpt.restore(tf_manager.latest_checkpoint)
        assert int(tf_ckpt.save_counter.numpy()) == 3
        got = {k: v for k, v in cm.checkpoint_values(tf, tf_net, tf_opt).items() if "beta" not in k}
        assert_same(got, {k: v for k, v in saved[manager.latest_checkpoint].items() if "beta" not in k})
        cm.step(tf, tf_net, tf_opt)
        status.assert_consumed()
        path = tf_manager.save()
        assert path.endswith("ckpt-4") and tf_manager.checkpoints == manager.checkpoints[1:] + [path]
        again = tt.train.CheckpointManager(tt.train.Checkpoint(), mgr_dir, max_to_keep=2)
        assert again.checkpoints == tf_manager.checkpoints and again.latest_checkpoint == path
        return f"latest {os.path.basename(manager.latest_checkpoint)}, TF saved ckpt-4, tinytf lists it"

    # -- 2. tinytf reads TensorFlow's checkpoints ------------------------------------------------
    tf_net, tf_opt = cm.build(tf)
    for _ in range(2):
        cm.step(tf, tf_net, tf_opt)
    tf_values = cm.checkpoint_values(tf, tf_net, tf_opt)
    tf_ckpt = tf.train.Checkpoint(model=tf_net, optimizer=tf_opt)
    tf_prefix = tf_ckpt.write(os.path.join(work, "tf", "weights"))
    tf_dir = os.path.join(work, "tf_manager")
    tf_manager = tf.train.CheckpointManager(tf_ckpt, tf_dir, max_to_keep=3)
    tf_manager.save()
    tf_manager.save()

    @check("tt.train.load_checkpoint reads TensorFlow's write(): every key, exact values")
    def _():
        reader = tt.train.load_checkpoint(tf_prefix)
        assert set(reader.get_variable_to_shape_map()) == set(tf_values) | {"_CHECKPOINTABLE_OBJECT_GRAPH"}
        assert_same({k: reader.get_tensor(k) for k in tf_values}, tf_values, what="load_checkpoint")
        graph = reader.object_graph()
        ours = tt.train.load_checkpoint(tt_prefix).object_graph()
        assert structure(graph) == structure(ours)
        return f"TensorFlow's object graph ({len(graph.nodes)} nodes) is the one tinytf writes for the same model"

    @check("tt.train.Checkpoint(...).read restores TensorFlow's nested modules + Adam; one more step agrees")
    def _():
        net2, opt2 = cm.build(tt, zeros())
        tt.train.Checkpoint(model=net2, optimizer=opt2).read(tf_prefix).assert_consumed()
        assert_same(cm.checkpoint_values(tt, net2, opt2), tf_values, what="restored")
        cm.step(tt, net2, opt2)
        tf_net2, tf_opt2 = cm.build(tf, zeros())
        status = tf.train.Checkpoint(model=tf_net2, optimizer=tf_opt2).read(tf_prefix)
        cm.step(tf, tf_net2, tf_opt2)
        status.assert_consumed()
        assert_same(cm.checkpoint_values(tt, net2, opt2), cm.checkpoint_values(tf, tf_net2, tf_opt2), exact=False,
                    what="after a step")
        return "assert_consumed passes; 22 values after the next step agree to 2e-6"

    @check("tinytf restores TensorFlow's CheckpointManager directory (save_counter too) and continues it")
    def _():
        net2, opt2 = cm.build(tt, zeros())
        ckpt2 = tt.train.Checkpoint(model=net2, optimizer=opt2)
        manager2 = tt.train.CheckpointManager(ckpt2, tf_dir, max_to_keep=3)
        assert manager2.checkpoints == tf_manager.checkpoints
        assert manager2.restore_or_initialize() == tf_manager.latest_checkpoint
        assert int(ckpt2.save_counter.numpy()) == 2
        assert_same(cm.checkpoint_values(tt, net2, opt2), tf_values)
        path = manager2.save()
        assert path.endswith("ckpt-3") and tf.train.latest_checkpoint(tf_dir) == path
        tf_again = tf.train.CheckpointManager(tf.train.Checkpoint(), tf_dir, max_to_keep=3)
        assert tf_again.checkpoints == manager2.checkpoints
        return "tinytf saved ckpt-3; TensorFlow's manager lists ckpt-1..3"

    # -- 3. every dtype ------------------------------------------------------------------------
    import ml_dtypes

    arrays = {
        "f16": np.array([1.5, -2], np.float16), "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "f64": np.array(np.pi), "bf16": np.array([0.5, 3], ml_dtypes.bfloat16), "i8": np.array([-7], np.int8),
        "i16": np.array([300], np.int16), "i32": np.array([1, 2], np.int32), "i64": np.array([2**40], np.int64),
        "u8": np.array([255], np.uint8), "u16": np.array([65535], np.uint16), "u32": np.array([2**31], np.uint32),
        "u64": np.array([2**63], np.uint64), "bool": np.array([True, False]), "c64": np.array([1 + 2j], np.complex64),
        "c128": np.array([3 - 4j]), "str": np.array([b"", b"hello", b"\x00\xff"], dtype=object),
    }

    @check("TensorFlow reads every dtype tinytf writes (tf.train.Checkpoint.read into tf.Variables)")
    def _():
        tt_vars = {k: tt.Variable(v) for k, v in arrays.items()}
        prefix = tt.train.Checkpoint(**tt_vars).write(os.path.join(work, "dtypes", "tt"))
        tf_vars = {k: tf.Variable(tf.zeros_like(tf.constant(v)) if v.dtype != object else tf.constant([b""] * len(v)))
                   for k, v in arrays.items()}
        tf.train.Checkpoint(**tf_vars).read(prefix).assert_consumed()
        for k, v in arrays.items():
            np.testing.assert_array_equal(tf_vars[k].numpy(), v, err_msg=k)
        return ", ".join(sorted(arrays))

    @check("tinytf reads every dtype TensorFlow writes")
    def _():
        tf_vars = {k: tf.Variable(v) for k, v in arrays.items()}
        prefix = tf.train.Checkpoint(**tf_vars).write(os.path.join(work, "dtypes", "tf"))
        tt_vars = {k: tt.Variable(np.zeros_like(v) if v.dtype != object else np.array([b""] * len(v), dtype=object))
                   for k, v in arrays.items()}
        tt.train.Checkpoint(**tt_vars).read(prefix).assert_consumed()
        for k, v in arrays.items():
            got = tt_vars[k].numpy()
            assert got.dtype == v.dtype, (k, got.dtype, v.dtype)
            np.testing.assert_array_equal(got, v, err_msg=k)
        return f"{len(arrays)} dtypes"

    shutil.rmtree(work, ignore_errors=True)
    failed = [name for name, ok, _ in RESULTS if not ok]
    print(f"\n{len(RESULTS) - len(failed)} of {len(RESULTS)} interop checks passed" +
          (f"; failed: {failed}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
