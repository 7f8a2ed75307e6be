"""``tinytf demo``: the tour runs end to end, quickly, and each step shows what it claims."""
from __future__ import annotations

import io
import re
import time

import pytest
from rich.console import Console

from tinytf.cli import demo


@pytest.fixture(scope="module")
def tour_output():
    buffer = io.StringIO()
    start = time.perf_counter()
    code = demo.main(["--quick"], console=Console(file=buffer, width=160, color_system=None))
    return code, buffer.getvalue(), time.perf_counter() - start


def test_demo_runs_every_step_in_under_a_minute(tour_output):
    code, out, seconds = tour_output
    assert code == 0
    assert seconds < 60
    assert "not available yet" not in out
    assert f"{len(demo.STEPS)} of {len(demo.STEPS)} steps ran" in out
    for number, (title, demonstrates, _) in enumerate(demo.STEPS, 1):
        assert f"{number}. {title}" in out
        assert f"demonstrates: {' '.join(demonstrates.split()[:6])}" in out
    assert out.count("demonstrates:") == len(demo.STEPS)


def test_demo_training_loss_falls_and_modes_agree(tour_output):
    _, out, _ = tour_output
    rows = {m.group(1): (float(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"│ (eager|tt\.function|jit_compile=True)\s+│.*?│ ([\d.]+) -> ([\d.]+)", out)}
    assert set(rows) == {"eager", "tt.function", "jit_compile=True"}
    for first, last in rows.values():
        assert last < 0.8 * first
    assert rows["eager"] == pytest.approx(rows["tt.function"], rel=1e-4)
    assert rows["eager"] == pytest.approx(rows["jit_compile=True"], rel=1e-3)
    assert "eager == graph: True" in out and "eager == xla: True" in out and "loss fell: True" in out


def test_demo_gradient_tables(tour_output):
    _, out, _ = tour_output
    assert "gradient check (full, float64): passed" in out and "gradient check (fast, float64): passed" in out
    for name, shape, count in (("w1", "(8, 64)", 512), ("b1", "(64,)", 64), ("w2", "(64, 1)", 64)):
        assert re.search(rf"│ {name}\s+│ {re.escape(shape)}\s+│ float32 │ {count}\s+│ [\d.e-]+\s+│ [\d.e-]+\s+│ ok", out)
    assert "FAILED" not in out


def test_demo_mlir_cluster_xla_and_quantization(tour_output):
    _, out, _ = tour_output
    assert '"tf.MatMul"' in out and '"tf.BiasAdd"' in out and "tf.entry_function" in out
    assert "tt.load_mlir(text).run(x, *weights) == the eager forward pass: True" in out
    assert "tf.AssignSubVariableOp" in out  # the training step's SGD updates, in the op summary
    assert '"tf_device.cluster_func"' in out and '"tf.AssignVariableOp"' in out
    marks = re.findall(r"│ %arg(\d+)\s+│ tensor<[^│]*│ -> output (\d+)", out)
    assert [(int(a), int(o)) for a, o in marks] == [(1, 0), (2, 1), (3, 2), (4, 3)]  # the four weights
    assert re.search(r"^// InputMapping \{0, 1, 2, 3, 4, 5\}", out, re.M)
    assert "// XlaOutputDescription type=float shape=(8, 64) input_index=1" in out
    saved = int(re.search(r"donation saved (\d+) bytes", out).group(1))
    assert saved == (8 * 64 + 64 + 64 + 1) * 4  # every updated weight written in place
    (f_bytes, f_loss), (q_bytes, q_loss, diff) = (
        re.search(r"│ float32 \(variables frozen\)\s+│ (\d+)\s+│ ([\d.]+)", out).groups(),
        re.search(r"│ int8 weights\s+│ (\d+)\s+│ ([\d.]+)\s+│ ([\d.e+-]+)", out).groups())
    assert int(q_bytes) < int(f_bytes) and 0 < float(diff) < 0.05
    assert float(q_loss) == pytest.approx(float(f_loss), rel=0.05)


def test_demo_gradient_through_a_loop_agrees_across_modes(tour_output):
    _, out, _ = tour_output
    rows = re.findall(r"│ (eager|tt\.function|jit_compile=True)\s+│ ([\d.]+)\s+│ ([\d.]+)\s+│ \d+ ms", out)
    assert [r[0] for r in rows] == ["eager", "tt.function", "jit_compile=True"]
    for _, loss, norm in rows[1:]:
        assert (float(loss), float(norm)) == pytest.approx((float(rows[0][1]), float(rows[0][2])), rel=1e-4)
    assert "eager == graph == XLA gradients: True; the traced function holds 3 tf.While ops" in out


def test_a_missing_piece_is_one_line_and_the_tour_goes_on():
    buffer = io.StringIO()
    tour = demo.Tour(Console(file=buffer, width=120, color_system=None), steps=2)

    def missing(_):
        raise demo.Unavailable("tinytf.somewhere (no module named 'tinytf.somewhere')")

    def broken(_):
        raise RuntimeError("lowering failed\nsecond line of detail")

    tour.step(1, "needs a missing piece", "what it would show", missing)
    tour.step(2, "hits a failure", "what it would show", broken)
    tour.step(3, "works", "that the tour goes on", lambda t: t.console.print("step three ran"))
    out = buffer.getvalue()
    assert "not available yet: tinytf.somewhere (no module named 'tinytf.somewhere')" in out
    assert "not available yet: RuntimeError: lowering failed" in out and "second line" not in out
    assert "step three ran" in out
    assert tour.status[3] == "ok" and tour.status[1].startswith("not available yet")


def test_sparkline():
    assert demo.sparkline([3.0, 2.0, 1.0, 1.0]) == "█▅▁▁"
    assert demo.sparkline([1.0, 1.0]) == "▁▁"
    long = demo.sparkline([float(100 - i) for i in range(101)], width=11)
    assert long == "██▇▆▅▅▄▃▂▁▁"  # 100, 90, ..., 0: every tenth value, the first and the last kept


def test_a_failing_training_mode_is_one_line_and_the_others_train(monkeypatch):
    import tinytf as tt
    from tinytf.errors import UnimplementedError

    buffer = io.StringIO()
    tour = demo.Tour(Console(file=buffer, width=160, color_system=None), steps=3)
    demo.build(tour)
    real = tt.function

    def no_xla(fn=None, *args, jit_compile=False, **kwargs):
        if jit_compile:
            raise UnimplementedError("needs the XLA backend (tinytf.xla), which is not available yet")
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(tt, "function", no_xla)
    demo.train(tour)
    out = buffer.getvalue()
    assert "not available yet: jit_compile=True: UnimplementedError: needs the XLA backend" in out
    assert set(tour.losses) == {"eager", "tt.function"} and "eager == graph: True" in out
    assert "eager == xla" not in out
