"""Writing checkpoints in TensorFlow's format: the LevelDB table and tensor-bundle writers, the
TrackableObjectGraph as TensorFlow 2.21 builds it, tt.train.Checkpoint (write / read / save /
restore and the load statuses), optimizer slots, CheckpointManager and its state file, reading
TensorFlow's checkpoint fixture, and crash safety (processes killed at every step and at random
moments of CheckpointManager.save, disk full, permission denied)."""
import errno
import json
import os
import pathlib
import random
import shutil
import signal
import struct
import sys
import tempfile
import time

import conformance_modules
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinytf as tt
from tinytf.errors import InvalidArgumentError, NotFoundError, PermissionDeniedError, ResourceExhaustedError
from tinytf.formats import durable_files
from tinytf.formats.leveldb_table import TableReader
from tinytf.formats.leveldb_table_writer import table_bytes
from tinytf.formats.tensor_bundle import BundleReader, data_path, index_path
from tinytf.formats.tensor_bundle_writer import BundleWriter, write_bundle
from tinytf.train.checkpoint_reader import get_checkpoint_state
from tinytf.train.object_graph import ObjectGraph

ROOT = pathlib.Path(__file__).parents[2]
TF_FIXTURE = ROOT / "tests" / "fixtures" / "checkpoints" / "tf2_21_modules_adam"


def _models():
    return conformance_modules.load("checkpoint_models")


cm = _models()


# -- the LevelDB table writer -------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.binary(max_size=40), st.binary(max_size=300), max_size=200),
       st.sampled_from([64, 512, 4096]))
def test_table_round_trip(entries, block_size):
    items = sorted(entries.items())
    data = table_bytes(items, block_size=block_size)
    assert list(TableReader("t.index", data).items()) == items


def test_table_layout_matches_leveldb():
    data = table_bytes([(b"", b"h"), (b"abc", b"1"), (b"abd", b"2")])
    low, high = struct.unpack_from("<II", data, len(data) - 8)
    assert (high << 32 | low) == 0xDB4775248B80FB57
    reader = TableReader("t.index", data)
    assert reader.block_compressions == {0}  # uncompressed, as TensorFlow's source writes
    # the second key shares "ab" with the first: shared=2, non_shared=1, value_len=1
    assert data.startswith(b"\x00\x00\x01h\x00\x03\x01abc1\x02\x01\x01d2")


def test_table_refuses_unsorted_keys():
    with pytest.raises(InvalidArgumentError, match="increasing order"):
        table_bytes([(b"b", b""), (b"a", b"")])


# -- the tensor bundle writer -------------------------------------------------------------------

def test_bundle_round_trip_every_dtype(tmp_path):
    tensors = {
        "f32": np.arange(12, dtype=np.float32).reshape(3, 4), "f64": np.array(np.pi), "f16": np.ones(3, np.float16),
        "bf16": np.array([1.5, -2], ml_dtypes.bfloat16), "i8": np.array([-3], np.int8), "u16": np.arange(4, dtype=np.uint16),
        "i64": np.array([2**40], np.int64), "bool": np.array([True, False]), "c64": np.array([1 + 2j], np.complex64),
        "big_endian": np.arange(5, dtype=">i4"), "transposed": np.arange(6, dtype=np.float32).reshape(2, 3).T,
        "str": np.array([b"", b"hello", "caf\u00e9"], dtype=object), "scalar_str": np.array(b"x", dtype=object),
        "empty": np.zeros((0, 3), np.float32),
    }
    prefix = str(tmp_path / "b")
    assert write_bundle(prefix, tensors) == prefix
    reader = BundleReader(prefix)
    assert reader.names() == sorted(tensors)
    for name, value in tensors.items():
        got = reader.get_tensor(name)
        if value.dtype == object:
            assert got.tolist() == [v.encode() if isinstance(v, str) else v for v in value.reshape(-1)] or \
                got.shape == value.shape and got.reshape(-1).tolist() == [
                    v.encode() if isinstance(v, str) else v for v in value.reshape(-1)]
        else:
            np.testing.assert_array_equal(got, value)
            assert got.dtype == value.dtype.newbyteorder("=")
    assert reader.header.num_shards == 1 and reader.header.version.producer == 1
    entry = reader.entry("f32")
    assert entry.shard_id == 0 and entry.HasField("shape")
    assert sorted(os.listdir(tmp_path)) == ["b.data-00000-of-00001", "b.index"]  # no temporary files left


def test_bundle_data_is_in_add_order_and_checksummed(tmp_path):
    prefix = str(tmp_path / "b")
    write_bundle(prefix, {"z": np.array([1.0], np.float32), "a": np.array([2.0], np.float32)})
    reader = BundleReader(prefix)
    assert reader.entry("z").offset == 0 and reader.entry("a").offset == 4  # TensorFlow's data order
    with open(data_path(prefix, 0, 1), "r+b") as f:
        f.seek(5)
        f.write(b"\x01")
    with pytest.raises(tt.errors.DataLossError, match="checksum"):
        BundleReader(prefix).get_tensor("a")


def test_bundle_errors(tmp_path):
    writer = BundleWriter(str(tmp_path / "b"))
    writer.add("a", np.zeros(2))
    with pytest.raises(InvalidArgumentError, match="twice"):
        writer.add("a", np.zeros(2))
    with pytest.raises(InvalidArgumentError, match="non-empty"):
        writer.add("", np.zeros(2))
    writer.abort()
    assert os.listdir(tmp_path) == []


# -- the object graph, as TensorFlow builds it ----------------------------------------------------

def _tf_structure():
    m = tt.Module()
    m.z = tt.Variable(1.0)
    m.cfg = [1, 2]
    m.d = {"b": tt.Variable(2.0), "a": tt.Variable(3.0), "c.x/y": tt.Variable(4.0)}
    m.t = (tt.Variable(5.0), 3)
    m.a = tt.Variable(6.0)
    m.shared = m.z
    m.empty = tt.Module()
    m.nested = [[tt.Variable(7.0)], {"k": tt.Module()}]
    return tt.train.Checkpoint(model=m, other=tt.Module())


def test_object_graph_matches_tensorflow_2_21():
    # Recorded from TensorFlow 2.21 with the same structure (tf.Module, tf.train.Checkpoint.write).
    expected = [
        ([("model", 1), ("other", 2)], [], True),
        ([("z", 3), ("cfg", 4), ("d", 5), ("t", 6), ("a", 7), ("shared", 3), ("empty", 8), ("nested", 9)], [], True),
        ([], [], False), ([], ["model/z/.ATTRIBUTES/VARIABLE_VALUE"], True), ([], [], False),
        ([("b", 10), ("a", 11), ("c.x/y", 12)], [], True), ([("0", 13)], [], True),
        ([], ["model/a/.ATTRIBUTES/VARIABLE_VALUE"], True), ([], [], False), ([("0", 14), ("1", 15)], [], True),
        ([], ["model/d/b/.ATTRIBUTES/VARIABLE_VALUE"], True), ([], ["model/d/a/.ATTRIBUTES/VARIABLE_VALUE"], True),
        ([], ["model/d/c..x.Sy/.ATTRIBUTES/VARIABLE_VALUE"], True), ([], ["model/t/0/.ATTRIBUTES/VARIABLE_VALUE"], True),
        ([("0", 16)], [], True), ([("k", 17)], [], False),
        ([], ["model/nested/0/0/.ATTRIBUTES/VARIABLE_VALUE"], True), ([], [], False),
    ]
    proto = ObjectGraph(_tf_structure()).proto
    got = [([(c.local_name, c.node_id) for c in n.children], [a.checkpoint_key for a in n.attributes],
            n.has_checkpoint_values.value) for n in proto.nodes]
    assert got == expected
    assert all(n.HasField("has_checkpoint_values") for n in proto.nodes)


def _trained(steps=1):
    net, opt = cm.build(tt)
    for _ in range(steps):
        cm.step(tt, net, opt)
    return net, opt


def test_full_names_are_tensorflows_variable_names():
    # TensorFlow 2.21 (tf.Module built in its parent's name scope, tf.train.Checkpoint.write): full_name
    # is the variable's name without ":0"
    class Dense(tt.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.w = tt.Variable(np.ones(2, np.float32), name="w")
            self.b = tt.Variable(np.float32(1.0))
            self.c = tt.Variable(np.float32(1.0), name="c")

    class MLP(tt.Module):
        def __init__(self):
            super().__init__()
            with self.name_scope:
                self.d = Dense()

    model = MLP()
    opt = tt.optimizers.Adam(0.1)
    opt.apply_gradients([(tt.constant([1.0, 1.0]), model.d.w)])
    proto = ObjectGraph(tt.train.Checkpoint(model=model, opt=opt)).proto
    full_names = {a.checkpoint_key: a.full_name for n in proto.nodes for a in n.attributes}
    assert full_names["model/d/w/.ATTRIBUTES/VARIABLE_VALUE"] == "mlp/dense/w"
    assert full_names["model/d/b/.ATTRIBUTES/VARIABLE_VALUE"] == "mlp/Variable"
    assert full_names["model/d/c/.ATTRIBUTES/VARIABLE_VALUE"] == "mlp/c"
    assert full_names["model/d/w/.OPTIMIZER_SLOT/opt/m/.ATTRIBUTES/VARIABLE_VALUE"] == "mlp/dense/w/m"


def test_slot_variables_are_keyed_and_ordered_as_tensorflow():
    net, opt = _trained()
    proto = ObjectGraph(tt.train.Checkpoint(model=net, optimizer=opt)).proto
    optimizer = proto.nodes[proto.nodes[0].children[1].node_id]
    assert [c.local_name for c in optimizer.children] == ["beta1_power", "beta2_power", "iter"]
    slots = [(s.slot_name, s.original_variable_node_id, s.slot_variable_node_id) for s in optimizer.slot_variables]
    # TensorFlow: slot names sorted, then the variables in node order; slot nodes appended after the others
    assert [s[0] for s in slots] == ["m"] * 6 + ["v"] * 6
    originals = [s[1] for s in slots[:6]]
    assert originals == sorted(originals) and [s[1] for s in slots[6:]] == originals
    first_slot = min(s[2] for s in slots)
    assert [s[2] for s in slots] == list(range(first_slot, first_slot + 12)) and first_slot + 12 == len(proto.nodes)
    key = proto.nodes[slots[0][2]].attributes[0].checkpoint_key
    assert key == "model/encoder/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE"


# -- Checkpoint: write, read, statuses ----------------------------------------------------------

def test_write_read_round_trip_with_optimizer(tmp_path):
    net, opt = _trained(2)
    prefix = tt.train.Checkpoint(model=net, optimizer=opt).write(str(tmp_path / "w"))
    assert prefix == str(tmp_path / "w")
    saved = cm.checkpoint_values(tt, net, opt)
    assert sorted(n for n, _ in tt.train.list_variables(prefix)) == sorted([*saved, "_CHECKPOINTABLE_OBJECT_GRAPH"])
    net2, opt2 = cm.build(tt, {k: np.zeros_like(v) for k, v in cm.initial_values().items()})
    status = tt.train.Checkpoint(model=net2, optimizer=opt2).read(prefix)
    status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()
    restored = cm.checkpoint_values(tt, net2, opt2)  # slots and beta powers created by the restore
    assert restored.keys() == saved.keys()
    for key, value in saved.items():
        np.testing.assert_array_equal(restored[key], value, err_msg=key)
    cm.step(tt, net, opt)
    cm.step(tt, net2, opt2)
    for key, value in cm.checkpoint_values(tt, net, opt).items():
        np.testing.assert_array_equal(cm.checkpoint_values(tt, net2, opt2)[key], value, err_msg=key)


def test_reads_tensorflows_checkpoint_and_continues_training():
    """TF 2.21 wrote the fixture (tests/conformance/export_checkpoint_fixture.py): tinytf restores it
    by object-graph matching and one more Adam step gives TensorFlow's values."""
    net, opt = cm.build(tt, {k: np.zeros_like(v) for k, v in cm.initial_values().items()})
    ckpt = tt.train.Checkpoint(model=net, optimizer=opt)
    latest = tt.train.latest_checkpoint(str(TF_FIXTURE))
    assert latest == str(TF_FIXTURE / "ckpt-1")
    ckpt.restore(latest).assert_consumed()
    assert int(ckpt.save_counter.numpy()) == 1 and int(opt.iterations.numpy()) == 2
    reader = tt.train.load_checkpoint(latest)
    for key, value in cm.checkpoint_values(tt, net, opt).items():
        np.testing.assert_array_equal(value, reader.get_tensor(key), err_msg=key)
    cm.step(tt, net, opt)
    expected = json.loads((TF_FIXTURE / "expected.json").read_text())
    got = cm.checkpoint_values(tt, net, opt)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        want = np.array(value["values"], value["dtype"]).reshape(value["shape"])
        np.testing.assert_allclose(got[key], want, rtol=2e-6, atol=1e-7, err_msg=key)


def _structure(graph) -> list:
    return [([(c.node_id, c.local_name) for c in n.children], [(a.name, a.checkpoint_key) for a in n.attributes],
             [(v.original_variable_node_id, v.slot_name, v.slot_variable_node_id) for v in n.slot_variables],
             n.has_checkpoint_values.value) for n in graph.nodes]


def test_object_graph_is_the_one_tensorflow_wrote_for_the_same_model():
    """Nodes, children, keys, slot variables: all but the informational full_names, against TF 2.21's file."""
    net, opt = _trained(2)
    ckpt = tt.train.Checkpoint(model=net, optimizer=opt)
    ckpt.save_counter  # noqa: B018  (TensorFlow's CheckpointManager.save created it)
    theirs = tt.train.load_checkpoint(str(TF_FIXTURE / "ckpt-1")).object_graph()
    assert _structure(ObjectGraph(ckpt).proto) == _structure(theirs)


def test_assert_consumed_and_existing_objects(tmp_path):
    net, opt = _trained()
    prefix = tt.train.Checkpoint(model=net, optimizer=opt).write(str(tmp_path / "w"))
    # the checkpoint has more than the program: existing objects match, consumed does not
    net2, _ = cm.build(tt)
    status = tt.train.Checkpoint(model=net2).read(prefix)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint .*optimizer"):
        status.assert_consumed()
    status.expect_partial()
    # the program has more than the checkpoint
    net3, _ = cm.build(tt)
    net3.extra = tt.Variable(1.0)
    status = tt.train.Checkpoint(model=net3).read(prefix)
    with pytest.raises(AssertionError, match="1 Python objects that were not bound"):
        status.assert_existing_objects_matched()
    # nothing but the root matches
    status = tt.train.Checkpoint(other=tt.Variable(1.0)).read(prefix)
    with pytest.raises(AssertionError, match="Nothing except the root"):
        status.assert_nontrivial_match()


def test_restore_none_and_missing_checkpoints(tmp_path):
    status = tt.train.Checkpoint(v=tt.Variable(1.0)).restore(None)
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        status.assert_consumed()
    status.initialize_or_restore()
    with pytest.raises(NotFoundError, match="Failed to find any matching files"):
        tt.train.Checkpoint(v=tt.Variable(1.0)).read(str(tmp_path / "nothing"))


def test_mismatched_shapes_and_dtypes_are_errors(tmp_path):
    prefix = tt.train.Checkpoint(v=tt.Variable(np.zeros(3, np.float32))).write(str(tmp_path / "w"))
    with pytest.raises(InvalidArgumentError, match=r"incompatible tensor with shape \[3\].*shape \[4\]"):
        tt.train.Checkpoint(v=tt.Variable(np.zeros(4, np.float32))).read(prefix)
    with pytest.raises(InvalidArgumentError, match="dtype float32 .* dtype int32"):
        tt.train.Checkpoint(v=tt.Variable(np.zeros(3, np.int32))).read(prefix)


def test_deferred_restoration_of_attributes_created_later(tmp_path):
    m = tt.Module()
    m.later = tt.Variable(np.arange(3, dtype=np.float32))
    m.sub = tt.Module()
    m.sub.w = tt.Variable(np.float32(7))
    prefix = tt.train.Checkpoint(model=m).write(str(tmp_path / "w"))
    fresh = tt.Module()
    status = tt.train.Checkpoint(model=fresh).read(prefix)
    with pytest.raises(AssertionError, match="Unresolved object"):
        status.assert_consumed()
    fresh.later = tt.Variable(np.zeros(3, np.float32))  # restored on assignment, as in TensorFlow
    np.testing.assert_array_equal(fresh.later.numpy(), [0, 1, 2])
    fresh.sub = tt.Module()
    fresh.sub.w = tt.Variable(np.float32(0))
    assert float(fresh.sub.w.numpy()) == 7.0
    status.assert_consumed()


def test_deferred_slot_restoration_waits_for_the_variable(tmp_path):
    net, opt = _trained()
    prefix = tt.train.Checkpoint(model=net, optimizer=opt).write(str(tmp_path / "w"))
    opt2 = tt.optimizers.Adam(cm.LEARNING_RATE)
    holder = tt.Module()
    status = tt.train.Checkpoint(model=holder, optimizer=opt2).read(prefix)
    assert opt2._slot_names() == []  # no variables matched yet
    holder.encoder = tt.Module()
    holder.encoder.w = tt.Variable(np.zeros([3, 4], np.float32))
    np.testing.assert_array_equal(opt2.get_slot(holder.encoder.w, "m").numpy(), opt.get_slot(net.encoder.w, "m").numpy())
    status.assert_existing_objects_matched()


def test_name_based_checkpoints_match_by_variable_name():
    fixture = ROOT / "tests" / "fixtures" / "checkpoints" / "half_plus_two_tf1_14" / "variables"
    a, b = tt.Variable(np.float32(0), name="a"), tt.Variable(np.float32(0), name="b")
    status = tt.train.Checkpoint(a=a, b=b).read(str(fixture))
    assert (float(a.numpy()), float(b.numpy())) == (0.5, 2.0)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="name-based"):
        status.assert_consumed()


def test_checkpoint_refuses_untrackable_values():
    with pytest.raises(InvalidArgumentError, match="trackable"):
        tt.train.Checkpoint(model=3)


def test_save_counts_and_writes_the_state_file_as_tensorflow(tmp_path):
    v = tt.Variable(np.float32(1))
    ckpt = tt.train.Checkpoint(v=v)
    assert ckpt.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-1")
    v.assign(np.float32(2))
    assert ckpt.save(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt-2")
    assert (tmp_path / "checkpoint").read_text() == 'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-2"\n'
    assert tt.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-2")
    graph = tt.train.load_checkpoint(str(tmp_path / "ckpt-2")).object_graph()
    assert [c.local_name for c in graph.nodes[0].children] == ["v", "save_counter"]
    fresh = tt.train.Checkpoint(v=tt.Variable(np.float32(0)))
    fresh.restore(str(tmp_path)).assert_consumed()  # a directory: its latest checkpoint
    assert int(fresh.save_counter.numpy()) == 2 and float(fresh.v.numpy()) == 2.0


# -- CheckpointManager --------------------------------------------------------------------------

def test_manager_keeps_the_newest_and_records_them(tmp_path):
    v = tt.Variable(np.float32(0))
    ckpt = tt.train.Checkpoint(v=v)
    manager = tt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    paths = []
    for i in range(4):
        v.assign(np.float32(i))
        paths.append(manager.save())
    assert paths == [str(tmp_path / f"ckpt-{i}") for i in (1, 2, 3, 4)]
    assert manager.checkpoints == paths[2:] and manager.latest_checkpoint == paths[3]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-3.data-00000-of-00001", "ckpt-3.index",
                                            "ckpt-4.data-00000-of-00001", "ckpt-4.index"]
    state = get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == paths[2:]
    assert len(state.all_model_checkpoint_timestamps) == 2 and state.last_preserved_timestamp > 0
    text = (tmp_path / "checkpoint").read_text().splitlines()
    assert text[:3] == ['model_checkpoint_path: "ckpt-4"', 'all_model_checkpoint_paths: "ckpt-3"',
                        'all_model_checkpoint_paths: "ckpt-4"']
    assert text[3].startswith("all_model_checkpoint_timestamps: ") and text[5].startswith("last_preserved_timestamp: ")
    # a new manager on the directory picks up the list; a restored counter continues the numbering
    ckpt2 = tt.train.Checkpoint(v=tt.Variable(np.float32(-1)))
    manager2 = tt.train.CheckpointManager(ckpt2, str(tmp_path), max_to_keep=2)
    assert manager2.checkpoints == paths[2:]
    assert manager2.restore_or_initialize() == paths[3] and float(ckpt2.v.numpy()) == 3.0
    assert manager2.save() == str(tmp_path / "ckpt-5") and manager2.checkpoints == [paths[3], str(tmp_path / "ckpt-5")]


def test_manager_options(tmp_path):
    calls = []
    step = tt.Variable(np.int64(0))
    ckpt = tt.train.Checkpoint(step=step)
    manager = tt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=None, checkpoint_name="model",
                                         step_counter=step, checkpoint_interval=2, init_fn=lambda: calls.append(1))
    assert manager.restore_or_initialize() is None and calls == [1]
    assert manager.save() == str(tmp_path / "model-1")
    step.assign(np.int64(1))
    assert manager.save() is None  # the interval is not reached
    step.assign(np.int64(2))
    assert manager.save(checkpoint_number=step) == str(tmp_path / "model-2")
    for _ in range(3):
        step.assign_add(np.int64(2))
        manager.save()
    assert len(manager.checkpoints) == 5  # max_to_keep=None keeps all
    with pytest.raises(InvalidArgumentError, match="max_to_keep"):
        tt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)
    with pytest.raises(InvalidArgumentError, match="step_counter"):
        tt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1, checkpoint_interval=3)


def test_keep_checkpoint_every_n_hours_preserves_unlisted(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    ckpt = tt.train.Checkpoint(v=tt.Variable(np.float32(0)))
    manager = tt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1, keep_checkpoint_every_n_hours=1)
    for _ in range(3):
        clock[0] += 1800
        manager.save()
    # ckpt-2 (t=4600) is an hour after the last preserved time (the manager's start, 999): preserved,
    # not listed; ckpt-1 (t=2800) is not
    assert manager.checkpoints == [str(tmp_path / "ckpt-3")]
    assert os.path.exists(tmp_path / "ckpt-2.index") and not os.path.exists(tmp_path / "ckpt-1.index")


# -- crash safety -------------------------------------------------------------------------------

def _base(size: int) -> np.ndarray:
    return (np.arange(size, dtype=np.int64) % 1009).astype(np.float32)


def _pattern(base: np.ndarray, n: int) -> np.ndarray:
    return base + np.float32(n)


def _saver_child(directory: str, size: int, ready_fd: int, hook=None) -> None:
    """(in a forked child) Restore the latest checkpoint, then save forever; never returns."""
    try:
        base = _base(size)
        var = tt.Variable(np.zeros(size, np.float32))
        ckpt = tt.train.Checkpoint(model={"big": var})
        manager = tt.train.CheckpointManager(ckpt, directory, max_to_keep=2)
        if manager.latest_checkpoint:
            ckpt.restore(manager.latest_checkpoint).assert_consumed()
        durable_files.STEP_HOOK = hook
        while True:
            var.assign(_pattern(base, int(ckpt.save_counter.numpy()) + 1))
            os.write(ready_fd, b"s")
            manager.save()
    finally:
        os._exit(3)


def _fork(fn, *args):
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        fn(*args[:-1], write_fd, args[-1])
    os.close(write_fd)
    return pid, read_fd


def _check_directory(directory: str, size: int, previous_latest: int) -> int:
    """Every checkpoint the state file lists restores exactly; the latest never goes back."""
    state = get_checkpoint_state(directory)
    if state is None:
        assert previous_latest == 0
        return 0
    base = _base(size)
    assert state.model_checkpoint_path in state.all_model_checkpoint_paths
    for path in state.all_model_checkpoint_paths:
        var = tt.Variable(np.zeros(size, np.float32))
        ckpt = tt.train.Checkpoint(model={"big": var})
        ckpt.restore(path).assert_consumed()
        number = int(ckpt.save_counter.numpy())
        assert path.endswith(f"-{number}")
        np.testing.assert_array_equal(var.numpy(), _pattern(base, number))
    latest = int(state.model_checkpoint_path.rsplit("-", 1)[1])
    assert latest >= previous_latest
    assert tt.train.latest_checkpoint(directory) == state.model_checkpoint_path
    return latest


def _step_names(tmp_path) -> list[str]:
    names = []
    ckpt = tt.train.Checkpoint(model={"big": tt.Variable(np.zeros(8, np.float32))})
    manager = tt.train.CheckpointManager(ckpt, str(tmp_path / "probe"), max_to_keep=1)
    manager.save()
    durable_files.STEP_HOOK = names.append
    try:
        manager.save()  # the second save also deletes the first checkpoint
    finally:
        durable_files.STEP_HOOK = None
    return names


def _kill_at(target: int):
    seen = [0]

    def hook(name):
        seen[0] += 1
        if seen[0] == target:
            os.kill(os.getpid(), signal.SIGKILL)

    return hook


def test_killed_at_every_step_of_save_leaves_a_listed_whole_checkpoint(tmp_path):
    names = _step_names(tmp_path)
    assert {"data written", "index renamed", "checkpoint renamed", "deleting old checkpoint"} <= set(names)
    directory, size, latest = str(tmp_path / "ckpt"), 1000, 0
    for run in range(2):  # the first run kills the very first save too
        for target in range(1, len(names) + 1):
            pid, read_fd = _fork(_saver_child, directory, size, _kill_at(target))
            _, status = os.waitpid(pid, 0)
            os.close(read_fd)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (run, target, names[target - 1])
            latest = _check_directory(directory, size, latest)
    assert latest > 0


def _random_kills(directory: str, size: int, kills: int, seed: int) -> dict:
    """Fork savers and SIGKILL each at a random moment of its save(); check the directory after each."""
    rng = random.Random(seed)
    # one whole checkpoint first (so every check restores a real one), timed to spread the kills over a save
    var = tt.Variable(_pattern(_base(size), 1))
    start = time.perf_counter()
    tt.train.CheckpointManager(tt.train.Checkpoint(model={"big": var}), directory, max_to_keep=2).save()
    save_seconds = time.perf_counter() - start
    del var
    latest, stats = _check_directory(directory, size, 1), {"kills": 0, "mid_write": 0, "new_checkpoints": 0}
    while stats["kills"] < kills:
        pid, read_fd = _fork(_saver_child, directory, size, None)
        ready = os.read(read_fd, 1)  # the child is about to call save()
        time.sleep(rng.uniform(0, 1.3 * save_seconds))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read_fd)
        assert ready == b"s"
        stats["kills"] += 1
        stats["mid_write"] += any(durable_files.TEMP_MARK in n for n in os.listdir(directory))
        new = _check_directory(directory, size, latest)
        stats["new_checkpoints"] += new > latest
        latest = new
    return stats


def test_killed_at_random_moments_of_save(tmp_path):
    # 4 MB in the suite; TINYTF_SLOW_TESTS=1 runs the 200 MB version below (about a minute here)
    stats = _random_kills(str(tmp_path / "ckpt"), 1 << 20, kills=20, seed=16)
    assert stats["kills"] == 20


@pytest.mark.skipif(not os.environ.get("TINYTF_SLOW_TESTS"), reason="slow: set TINYTF_SLOW_TESTS=1 (200 MB x 20 kills)")
def test_killed_at_random_moments_of_save_200mb(tmp_path):
    stats = _random_kills(str(tmp_path / "ckpt"), 50 * 1024 * 1024, kills=20, seed=200)
    print(f"200 MB crash test: {stats}", file=sys.stderr)  # kills, those that left temporary files, new checkpoints
    assert stats["kills"] == 20


def _failing_save_child(directory: str, mode: str, result_fd: int, _unused=None) -> None:
    import resource

    try:
        var = tt.Variable(np.full(1 << 18, 2.0, np.float32))  # 1 MB
        ckpt = tt.train.Checkpoint(v=var)
        manager = tt.train.CheckpointManager(ckpt, directory, max_to_keep=2)
        ckpt.restore(manager.latest_checkpoint)
        before = int(ckpt.save_counter.numpy())
        if mode == "full":
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))  # files past 100 kB: EFBIG
        elif os.getuid() == 0:
            os.setuid(65534)  # nobody may not write root's directory
        else:
            os.chmod(directory, 0o500)
        try:
            manager.save()
            message = "saved"
        except (ResourceExhaustedError, PermissionDeniedError) as e:
            message = f"{type(e).__name__}: {e.message}"
        assert int(ckpt.save_counter.numpy()) == before and manager.checkpoints == [manager.latest_checkpoint]
        os.write(result_fd, message.encode())
    finally:
        os._exit(0)


@pytest.mark.parametrize("mode, error", [("full", "ResourceExhaustedError"), ("denied", "PermissionDeniedError")])
def test_disk_full_and_permission_denied_keep_the_previous_state(tmp_path, mode, error):
    if mode == "denied" and os.getuid() == 0:  # `nobody` must reach the directory: pytest's tmp is root's only
        tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="tinytf-denied-", dir="/tmp"))
        os.chmod(tmp_path, 0o755)
    try:
        _disk_full_and_permission_denied(tmp_path, mode, error)
    finally:
        if mode == "denied":
            shutil.rmtree(tmp_path, ignore_errors=True)


def _disk_full_and_permission_denied(tmp_path, mode, error):
    directory = str(tmp_path / "ckpt")
    ckpt = tt.train.Checkpoint(v=tt.Variable(np.full(1 << 18, 1.0, np.float32)))
    first = tt.train.CheckpointManager(ckpt, directory, max_to_keep=2).save()
    state_before = (tmp_path / "ckpt" / "checkpoint").read_text()
    files_before = sorted(os.listdir(directory))
    pid, read_fd = _fork(_failing_save_child, directory, mode, None)
    os.waitpid(pid, 0)
    message = os.read(read_fd, 4096).decode()
    os.close(read_fd)
    os.chmod(directory, 0o755)
    assert message.startswith(error), message
    assert "ckpt-2" in message and "previous checkpoints" in message
    assert (tmp_path / "ckpt" / "checkpoint").read_text() == state_before
    assert sorted(os.listdir(directory)) == files_before  # no temporary files left behind
    restored = tt.train.Checkpoint(v=tt.Variable(np.zeros(1 << 18, np.float32)))
    restored.restore(tt.train.latest_checkpoint(directory)).assert_consumed()
    assert tt.train.latest_checkpoint(directory) == first and float(restored.v.numpy()[0]) == 1.0


def test_os_errors_become_tinytf_errors(tmp_path, monkeypatch):
    def no_space(self, data):
        raise durable_files.os_error(OSError(errno.ENOSPC, "No space left on device"), self.temp, "write", self.note)

    monkeypatch.setattr(durable_files.TempFile, "write", no_space)
    with pytest.raises(ResourceExhaustedError, match="No space left on device"):
        tt.train.Checkpoint(v=tt.Variable(1.0)).write(str(tmp_path / "w"))
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


def test_stale_temporary_files_of_dead_processes_are_removed(tmp_path):
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    stale = tmp_path / f"ckpt-3.index{durable_files.TEMP_MARK}{dead}-abcd"
    live = tmp_path / f"ckpt-3.index{durable_files.TEMP_MARK}{os.getpid()}-abcd"
    stale.write_bytes(b"x")
    live.write_bytes(b"x")
    tt.train.CheckpointManager(tt.train.Checkpoint(v=tt.Variable(1.0)), str(tmp_path), max_to_keep=1)
    assert not stale.exists() and live.exists()


def test_an_index_on_disk_always_matches_its_data(tmp_path):
    prefix = str(tmp_path / "w")
    v = tt.Variable(np.zeros(4, np.float32))
    ckpt = tt.train.Checkpoint(v=v)
    ckpt.write(prefix)
    v.assign(np.ones(4, np.float32))
    seen = []

    def hook(name):
        seen.append((name, os.path.exists(index_path(prefix))))
        if os.path.exists(index_path(prefix)) and name != "index written" and name != "data written":
            # whenever an index is there, it reads back whole
            tt.train.load_checkpoint(prefix).get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")

    durable_files.STEP_HOOK = hook
    try:
        ckpt.write(prefix)
    finally:
        durable_files.STEP_HOOK = None
    assert ("old index removed", False) in seen and ("index renamed", True) in seen
    np.testing.assert_array_equal(tt.train.load_checkpoint(prefix).get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE"), 1.0)
