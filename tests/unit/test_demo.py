"""``tinytf demo``: the tour runs end to end, each step shows what it claims, and a failing step
makes the exit status non-zero and is named. (Its running time is printed by the demo, not tested.)"""
from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from tinytf.cli import demo


def _console(buffer, width=160):
    return Console(file=buffer, width=width, color_system=None)


@pytest.fixture(scope="module")
def tour_output():
    buffer = io.StringIO()
    code = demo.main(["--quick"], console=_console(buffer))
    return code, buffer.getvalue()


def test_demo_runs_every_step_and_exits_0(tour_output):
    code, out = tour_output
    assert code == 0
    assert "FAILED" not in out and "skipped" not in out and "failed:" not in out
    assert f"{len(demo.STEPS)} of {len(demo.STEPS)} steps ran" in out
    for number, (title, demonstrates, _) in enumerate(demo.STEPS, 1):
        assert f"{number}. {title}" in out
        assert f"demonstrates: {' '.join(demonstrates.split()[:6])}" in out
    assert out.count("demonstrates:") == len(demo.STEPS)


def test_demo_training_loss_falls_and_modes_agree(tour_output):
    _, out = tour_output
    rows = {m.group(1): (float(m.group(2)), float(m.group(3)))
            for m in re.finditer(r"│ (eager|tt\.function|jit_compile=True)\s+│.*?│ ([\d.]+) -> ([\d.]+)", out)}
    assert set(rows) == {"eager", "tt.function", "jit_compile=True"}
    for first, last in rows.values():
        assert last < 0.8 * first
    assert rows["eager"] == pytest.approx(rows["tt.function"], rel=1e-4)
    assert rows["eager"] == pytest.approx(rows["jit_compile=True"], rel=1e-3)
    assert "eager == graph: True" in out and "eager == xla: True" in out and "loss fell: True" in out


def test_demo_gradient_tables(tour_output):
    _, out = tour_output
    assert "gradient check (full, float64): passed" in out and "gradient check (fast, float64): passed" in out
    for name, shape, count in (("w1", "(8, 64)", 512), ("b1", "(64,)", 64), ("w2", "(64, 1)", 64)):
        assert re.search(rf"│ {name}\s+│ {re.escape(shape)}\s+│ float32 │ {count}\s+│ [\d.e-]+\s+│ [\d.e-]+\s+│ ok", out)
    assert "FAILED" not in out


def test_demo_mlir_cluster_xla_and_quantization(tour_output):
    _, out = tour_output
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
    _, out = tour_output
    rows = re.findall(r"│ (eager|tt\.function|jit_compile=True)\s+│ ([\d.]+)\s+│ ([\d.]+)\s+│ \d+ ms", out)
    assert [r[0] for r in rows] == ["eager", "tt.function", "jit_compile=True"]
    for _, loss, norm in rows[1:]:
        assert (float(loss), float(norm)) == pytest.approx((float(rows[0][1]), float(rows[0][2])), rel=1e-4)
    assert "eager == graph == XLA gradients: True; the traced function holds 2 tf.While ops" in out


def test_a_failing_step_is_one_line_naming_it_and_the_tour_goes_on():
    buffer = io.StringIO()
    tour = demo.Tour(_console(buffer, width=120), steps=2)

    def broken(_):
        raise ModuleNotFoundError("No module named 'tinytf.somewhere'")  # a missing piece is a failure too

    def crashes(_):
        raise RuntimeError("lowering [red]failed\nsecond line of detail")

    tour.step(1, "needs a missing piece", "what it would show", broken)
    tour.step(2, "hits a failure", "what it would show", crashes)
    tour.step(3, "works", "that the tour goes on", lambda t: t.console.print("step three ran"))
    out = buffer.getvalue()
    assert "FAILED: step 1 (needs a missing piece): ModuleNotFoundError: No module named 'tinytf.somewhere'" in out
    assert "FAILED: step 2 (hits a failure): RuntimeError: lowering [red]failed\n" in out  # markup is escaped
    assert "second line" not in out and "not available yet" not in out
    assert "step three ran" in out
    assert tour.status == {1: "failed: ModuleNotFoundError: No module named 'tinytf.somewhere'",
                           2: "failed: RuntimeError: lowering [red]failed", 3: "ok"}


def test_a_step_after_a_failed_one_it_needs_is_skipped():
    buffer = io.StringIO()
    tour = demo.Tour(_console(buffer, width=120), steps=2)
    tour.step(4, demo.STEPS[3][0], demo.STEPS[3][1], demo.traced_mlir)  # step 2 never made train_function
    out = buffer.getvalue()
    assert f"skipped: step 4 ({demo.STEPS[3][0]}): needs step 2 ({demo.STEPS[1][0]}), which failed" in out
    assert tour.status[4].startswith("skipped: needs step 2")


def test_the_exit_status_is_1_and_names_the_step_when_one_step_fails(monkeypatch):
    import tinytf as tt
    from tinytf.errors import InvalidArgumentError

    def no_variables(*args, **kwargs):
        raise InvalidArgumentError("tt.Variable is broken for this test")

    monkeypatch.setattr(tt, "Variable", no_variables)  # breaks step 1: every later step builds on it
    buffer = io.StringIO()
    code = demo.main(["--quick"], console=_console(buffer))
    out = buffer.getvalue()
    assert code == 1
    assert (f"FAILED: step 1 ({demo.STEPS[0][0]}): InvalidArgumentError: tt.Variable is broken for this test"
            in out)
    needs = {2: 1, 3: 1, 4: 2, 5: 4, 6: 5, 7: 1, 8: 1}  # the step each builds on
    assert len(needs) == len(demo.STEPS) - 1
    for number, before in needs.items():
        assert (f"skipped: step {number} ({demo.STEPS[number - 1][0]}): needs step {before} "
                f"({demo.STEPS[before - 1][0]}), which failed") in out
    assert f"0 of {len(demo.STEPS)} steps ran" in out
    assert f"failed: 1. {demo.STEPS[0][0]}" in out


def test_a_failing_middle_step_fails_the_run_and_the_later_steps_still_run(monkeypatch):
    def broken(tour):
        raise KeyError("lost the weights")

    def later(tour):
        tour.console.print(f"later step ran with {len(tour.variables)} variables")

    steps = [demo.STEPS[0], ("break it", "that a failure is named", broken), ("go on", "the rest runs", later)]
    monkeypatch.setattr(demo, "STEPS", steps)
    buffer = io.StringIO()
    code = demo.main(["--quick"], console=_console(buffer))
    out = buffer.getvalue()
    assert code == 1
    assert "FAILED: step 2 (break it): KeyError: 'lost the weights'" in out
    assert "later step ran with 4 variables" in out
    assert "2 of 3 steps ran" in out and "failed: 2. break it" in out and "skipped:" not in out


def test_sparkline():
    assert demo.sparkline([3.0, 2.0, 1.0, 1.0]) == "█▅▁▁"
    assert demo.sparkline([1.0, 1.0]) == "▁▁"
    long = demo.sparkline([float(100 - i) for i in range(101)], width=11)
    assert long == "██▇▆▅▅▄▃▂▁▁"  # 100, 90, ..., 0: every tenth value, the first and the last kept


def test_a_failing_training_mode_fails_the_step_and_the_others_train(monkeypatch):
    import tinytf as tt
    from tinytf.errors import UnimplementedError

    buffer = io.StringIO()
    tour = demo.Tour(_console(buffer), steps=3)
    demo.build(tour)
    real = tt.function

    def no_xla(fn=None, *args, jit_compile=False, **kwargs):
        if jit_compile:
            raise UnimplementedError("needs the XLA backend (tinytf.xla), which is not available yet")
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(tt, "function", no_xla)
    tour.step(2, "train it", "that one failing mode fails the step", demo.train)
    out = buffer.getvalue()
    assert ("FAILED: step 2 (train it): jit_compile=True: UnimplementedError: needs the XLA backend (tinytf.xla), "
            "which is not available yet") in out
    assert tour.status[2].startswith("failed: jit_compile=True: UnimplementedError")
    assert set(tour.losses) == {"eager", "tt.function"} and "eager == graph: True" in out
    assert "eager == xla" not in out and hasattr(tour, "train_function")  # step 4 can still use the graph


def test_demo_writes_a_tensorboard_log(tmp_path):
    """The training step's log: each mode's losses as TensorBoard scalars, and the traced step's graph."""
    from tensorboard.backend.event_processing import event_accumulator as ea
    from tensorboard.util import tensor_util

    buffer = io.StringIO()
    assert demo.main(["--quick", "--steps", "3", "--logdir", str(tmp_path)], console=_console(buffer)) == 0
    assert f"tensorboard --logdir {tmp_path}" in buffer.getvalue()
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.TENSORS: 0, ea.GRAPH: 1})
    acc.Reload()
    assert sorted(acc.Tags()["tensors"]) == ["loss/eager", "loss/jit_compile=True", "loss/tt.function"]
    losses = [float(tensor_util.make_ndarray(e.tensor_proto)) for e in acc.Tensors("loss/eager")]
    assert len(losses) == 3 and losses[-1] < losses[0]
    ops = {node.op for node in acc.Graph().node}
    assert {"MatMul", "BiasAdd", "AssignSubVariableOp"} <= ops
