"""tt.summary: TensorBoard event files read back by the tensorboard package's own readers (every
scalar, histogram, image, text and the graph) and served by a real `tensorboard --logdir`."""
import glob
import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
import zlib

import numpy as np
import pytest

import tinytf as tt
from tinytf.errors import DataLossError, InvalidArgumentError, UnimplementedError
from tinytf.formats.tfrecord import frame, read_records
from tinytf.summary.summaries import histogram_buckets


def _accumulator(logdir):
    from tensorboard.backend.event_processing import event_accumulator as ea

    acc = ea.EventAccumulator(str(logdir), size_guidance={ea.TENSORS: 0, ea.GRAPH: 1})
    acc.Reload()
    return acc


def _values(acc, tag):
    from tensorboard.util import tensor_util

    return [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors(tag)]


def _decode_png(data: bytes) -> np.ndarray:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + length
    width, height, depth, color, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, 1 + width * channels)
    assert depth == 8 and not rows[:, 0].any()
    return rows[:, 1:].reshape(height, width, channels)


def test_event_file_name_and_first_event(tmp_path):
    writer = tt.summary.create_file_writer(str(tmp_path / "logs"))
    writer.close()
    (path,) = glob.glob(str(tmp_path / "logs" / "*"))
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{re.escape(socket.gethostname())}\.{os.getpid()}\.\d+\.v2",
                        os.path.basename(path))
    from tinytf.formats import protos

    (first,) = [protos.event_pb2.Event.FromString(r) for r in read_records(path)]
    assert first.file_version == "brain.Event:2" and first.wall_time > 0


def test_every_scalar_histogram_image_and_text_is_read_back(tmp_path):
    writer = tt.summary.create_file_writer(str(tmp_path))
    losses = [1.0 / (i + 1) for i in range(25)]
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(200).astype(np.float32) for _ in range(3)]
    images = rng.random((4, 6, 5, 3)).astype(np.float32)
    with writer.as_default():
        for step, loss in enumerate(losses):
            assert tt.summary.scalar("loss", tt.constant(np.float32(loss)), step=step)
        for step, w in enumerate(weights):
            assert tt.summary.histogram("weights", tt.Variable(w), step=step)
        assert tt.summary.image("inputs", images, step=7, max_outputs=2)
        assert tt.summary.image("gray", np.full((1, 2, 3, 1), 200, np.uint8), step=7)
        assert tt.summary.text("notes", "**lr** = 0.01", step=0)
        with tt.name_scope("eval"):
            assert tt.summary.scalar("accuracy", 0.75, step=10, description="top-1")
    writer.flush()
    acc = _accumulator(tmp_path)
    assert set(acc.Tags()["tensors"]) == {"loss", "weights", "inputs", "gray", "notes", "eval/accuracy"}
    plugins = {tag: acc.SummaryMetadata(tag).plugin_data.plugin_name for tag in acc.Tags()["tensors"]}
    assert plugins == {"loss": "scalars", "eval/accuracy": "scalars", "weights": "histograms", "inputs": "images",
                       "gray": "images", "notes": "text"}
    assert [(s, float(v)) for s, v in _values(acc, "loss")] == [(s, np.float32(v)) for s, v in enumerate(losses)]
    assert _values(acc, "eval/accuracy") == [(10, np.float32(0.75))]
    assert acc.SummaryMetadata("eval/accuracy").summary_description == "top-1"
    for (_, buckets), w in zip(_values(acc, "weights"), weights):
        assert buckets.shape == (30, 3) and buckets.dtype == np.float64
        assert buckets[:, 2].sum() == 200 and buckets[0, 0] == w.min() and buckets[-1, 1] == w.max()
        np.testing.assert_array_equal(buckets, histogram_buckets(w))
    assert [s for s, _ in _values(acc, "weights")] == [0, 1, 2]
    ((step, value),) = _values(acc, "inputs")
    assert step == 7 and value.shape == (4,) and value[:2].tolist() == [b"5", b"6"]  # width, height, 2 PNGs
    for png, pixels in zip(value[2:], images):
        np.testing.assert_array_equal(_decode_png(png), np.clip(pixels * 255.5, 0, 255).astype(np.uint8))
    np.testing.assert_array_equal(_decode_png(_values(acc, "gray")[0][1][2]), np.full((2, 3, 1), 200, np.uint8))
    assert _values(acc, "notes")[0][1] == b"**lr** = 0.01"


def test_histogram_buckets_follow_tensorboard():
    from tensorboard.plugins.histogram import summary_v2
    from tensorboard.util import tensor_util

    data = np.random.default_rng(1).standard_normal(1000)
    reference = tensor_util.make_ndarray(summary_v2.histogram_pb("h", data, buckets=12).value[0].tensor)
    np.testing.assert_allclose(histogram_buckets(data, 12), reference, rtol=1e-12)
    single = histogram_buckets(np.full(5, 3.0), 4)
    np.testing.assert_array_equal(single, [[3, 3, 0], [3, 3, 0], [3, 3, 0], [3, 3, 5]])
    np.testing.assert_array_equal(histogram_buckets(np.zeros(0), 3), np.zeros((3, 3)))


def test_graph_and_trace_export(tmp_path):
    v = tt.Variable(np.ones([3, 2], np.float32))

    @tt.function
    def f(x):
        return tt.nn.relu(tt.matmul(x, v) + 1.0)

    writer = tt.summary.create_file_writer(str(tmp_path))
    tt.summary.trace_on(graph=True)
    f(tt.constant(np.ones([2, 3], np.float32)))
    with writer.as_default():
        assert tt.summary.graph(f.get_concrete_function(tt.TensorSpec([2, 3], tt.float32)))
        tt.summary.trace_export("step_trace", step=3)
    writer.close()
    acc = _accumulator(tmp_path)
    graph = acc.Graph()
    ops = [n.op for n in graph.node]
    assert ops[:2] == ["Placeholder", "Placeholder"] and {"MatMul", "AddV2", "Relu", "ReadVariableOp"} <= set(ops)
    matmul = next(n for n in graph.node if n.op == "MatMul")
    assert list(matmul.input) == ["x", "ReadVariableOp"]
    assert [d.size for d in matmul.attr["_output_shapes"].list.shape[0].dim] == [2, 2]
    assert acc.SummaryMetadata("step_trace").plugin_data.plugin_name == "graph_run_metadata_graph"
    from tinytf.formats import protos

    ((step, value),) = _values(acc, "step_trace")
    run_metadata = protos.config_pb2.RunMetadata.FromString(value.item())
    assert step == 3 and len(run_metadata.function_graphs) == 1
    assert "Relu" in [n.op for n in run_metadata.function_graphs[0].pre_optimization_graph.node]
    from tinytf.function import ConcreteFunction

    assert not hasattr(ConcreteFunction.call_checked, "__wrapped__")  # trace_export ended the trace
    with pytest.raises(UnimplementedError, match="profiler"):
        tt.summary.trace_on(profiler=True)


def test_defaults_steps_and_errors(tmp_path):
    assert tt.summary.scalar("x", 1.0, step=0) is False  # no default writer
    writer = tt.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=5):
        assert tt.summary.experimental.get_step() == 5
        assert tt.summary.scalar("x", 1.0)
        tt.summary.experimental.set_step(tt.Variable(np.int64(9)))
        assert tt.summary.scalar("x", 2.0)
        with pytest.raises(InvalidArgumentError, match="expected a scalar"):
            tt.summary.scalar("x", [1.0, 2.0], step=0)
        with pytest.raises(InvalidArgumentError, match="image"):
            tt.summary.image("i", np.zeros((2, 2, 3)), step=0)
    assert tt.summary.experimental.get_step() is None
    with writer.as_default():
        with pytest.raises(InvalidArgumentError, match="No step set"):
            tt.summary.scalar("x", 1.0)

        @tt.function
        def traced(x):
            tt.summary.scalar("inside", x, step=0)
            return x

        with pytest.raises(UnimplementedError, match="eagerly"):
            traced(tt.constant(1.0))
    writer.close()
    assert [s for s, _ in _values(_accumulator(tmp_path), "x")] == [5, 9]
    with pytest.raises(tt.errors.FailedPreconditionError, match="closed"):
        with writer.as_default():
            tt.summary.scalar("x", 1.0, step=1)


def test_queue_and_flush(tmp_path):
    writer = tt.summary.create_file_writer(str(tmp_path), max_queue=1000, flush_millis=10**9)
    with writer.as_default(step=0):
        tt.summary.scalar("queued", 1.0)
        assert "queued" not in _accumulator(tmp_path).Tags()["tensors"]  # buffered
        tt.summary.flush()
        assert "queued" in _accumulator(tmp_path).Tags()["tensors"]


def test_tfrecord_framing_and_corruption(tmp_path):
    path = tmp_path / "records"
    path.write_bytes(frame(b"abc") + frame(b"") + frame(b"x" * 1000))
    assert list(read_records(str(path))) == [b"abc", b"", b"x" * 1000]
    data = bytearray(path.read_bytes())
    data[14] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(DataLossError, match="corrupt record data at offset 0"):
        list(read_records(str(path)))
    path.write_bytes(frame(b"abc") + frame(b"defg")[:-3])
    assert list(read_records(str(path), allow_truncated_tail=True)) == [b"abc"]
    with pytest.raises(DataLossError, match="runs past the end"):
        list(read_records(str(path)))


def _get_json(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read().decode())


def test_a_real_tensorboard_server_shows_the_scalars(tmp_path):
    writer = tt.summary.create_file_writer(str(tmp_path / "run"))
    with writer.as_default():
        for step in range(5):
            tt.summary.scalar("loss", 1.0 / (step + 1), step=step)
        tt.summary.histogram("w", np.arange(10.0), step=0)
    writer.close()
    server = subprocess.Popen(
        [sys.executable, "-m", "tensorboard.main", "--logdir", str(tmp_path / "run"), "--host", "127.0.0.1",
         "--port", "0", "--load_fast", "false", "--reload_interval", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(server.stderr), daemon=True)
    reader.start()
    try:
        base, points, deadline = None, None, time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            if base is None:
                found = re.search(r"http://127\.0\.0\.1:(\d+)/", "".join(lines))
                base = found and f"http://127.0.0.1:{found.group(1)}"
            if base is not None:
                try:
                    points = _get_json(f"{base}/data/plugin/scalars/scalars?run=.&tag=loss")
                    if len(points) == 5:
                        break
                except OSError:
                    pass
            time.sleep(0.5)
        assert base is not None, "".join(lines)
        assert [(step, round(value, 6)) for _, step, value in points] == [(s, round(1.0 / (s + 1), 6)) for s in range(5)]
        assert _get_json(f"{base}/data/runs") == ["."]
        assert "w" in _get_json(f"{base}/data/plugin/histograms/tags")["."]
    finally:
        server.terminate()  # stopped by its process id
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
