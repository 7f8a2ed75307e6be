"""The benchmark harness: timing, rows, peer detection, the adapters, run_all end to end, ``tinytf bench``."""
from __future__ import annotations

import os
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from bench import common, run_all  # noqa: E402
from bench.common import MISSING, Row  # noqa: E402


def test_measure_calls_and_orders_statistics():
    calls = []
    t = common.measure(lambda: calls.append(1), repeat=4, number=10, warmup=2)
    assert len(calls) == 2 + 4 * 10
    assert (t.number, t.repeat) == (10, 4)
    assert 0 < t.best <= t.median


def test_measure_autorange_reaches_min_time():
    clock = [0]  # a fake clock: each call of the function takes one tick

    def tick():
        clock[0] += 1

    t = common.measure(tick, repeat=3, min_time=50, timer=lambda: clock[0], warmup=0)
    assert t.number == 100  # 1 and 10 calls ran under 50 ticks; 100 is the first power of ten at or above
    assert t.best == t.median == 1.0


def test_measure_rejects_zero_repeats():
    with pytest.raises(ValueError):
        common.measure(lambda: None, repeat=0)


def test_row_ratio_and_verdict():
    row = Row("b", "case", "µs", 2.0, peers={"numpy": 1.0, "pytorch": MISSING}, reference="numpy",
              target="<= 3x numpy", target_ratio=3.0)
    assert row.ratio == 2.0 and row.verdict is True
    row.target_ratio = 1.5
    assert row.verdict is False
    row.met = True  # an explicit verdict wins (compound targets)
    assert row.verdict is True
    other = Row("b", "c", "s", 1.3, others={"xDSL": 1.0}, reference="xDSL")
    assert other.ratio == pytest.approx(1.3) and other.verdict is None
    missing_ref = Row("b", "c", "s", 1.0, peers={"tensorflow": MISSING}, reference="tensorflow", target_ratio=1.0)
    assert missing_ref.ratio is None and missing_ref.verdict is None
    assert Row.from_dict(row.to_dict()) == row


def test_mark_missing_distinguishes_missing_from_failed(monkeypatch):
    monkeypatch.setattr(common, "_AVAILABLE", {"tensorflow": False, "jax": True, "numpy": True})
    marked = common.mark_missing({"tensorflow": None, "jax": None, "numpy": 0.5})
    assert marked == {"tensorflow": MISSING, "jax": None, "numpy": 0.5}


def test_peer_detection():
    assert common.peer_available("numpy")
    assert not common.peer_available("no_such_module_tinytf_bench")
    versions = common.peer_versions()
    assert set(versions) == {"numpy", "tensorflow", "jax", "pytorch"}
    import numpy

    assert versions["numpy"] == numpy.__version__
    for key, value in versions.items():  # a version string, or "missing" exactly when it is not installed
        assert (value == MISSING) == (not common.peer_installed(key))


def test_machine_info_names_what_results_depend_on():
    info = common.machine_info()
    assert info["cpu"] and info["python"].split()[-1] == ".".join(map(str, sys.version_info[:3]))
    assert info["libraries"]["numpy"] != MISSING and "tensorflow" in info["libraries"]
    assert info["date"].endswith("UTC")


def test_format_helpers():
    row = Row("b", "c", "ms", 0.5, peers={"pytorch": 2.0}, reference="pytorch", target_ratio=0.2)
    assert common.format_ratio(row) == "0.25x PyTorch"
    assert common.format_verdict(row) == "**no**"
    assert common.format_value(None) == "failed" and common.format_value(MISSING) == MISSING
    assert common.format_value(12345.6, "ops/s") == "12,346 ops/s"
    assert common.format_value(999.7, "µs") == "1,000 µs" and common.format_value(999.4) == "999"
    assert common.exit_code([row]) == 0 and common.exit_code(3) == 3 and common.exit_code(None) == 0


# --- adapters: the tables the benchmarks print today ---------------------------------------------

EAGER = """\
2x2 float32 add           µs/op  x numpy   (wall time)
numpy np.add              0.400     1.00
tinytf tt.add             1.100     2.75
tinytf a + b              1.300     3.25
pytorch torch.add         1.500     3.75
tensorflow tf.add        30.000    75.00
tinytf misses the target (<= 1 µs and <= 3x numpy): 1.100 µs, 2.75x numpy
"""


def test_adapt_eager_dispatch(monkeypatch):
    monkeypatch.setattr(common, "_AVAILABLE", {"jax": False, "numpy": True, "tensorflow": True, "pytorch": True})
    (row,) = run_all.adapt_eager_dispatch(0, EAGER, True)
    assert row.tinytf == 1.1 and row.peers == {"numpy": 0.4, "tensorflow": 30.0, "jax": MISSING, "pytorch": 1.5}
    assert row.ratio == pytest.approx(2.75) and row.verdict is False  # > 1 µs


GRADCHECK = """\
sum(tanh(x @ W)), x 8x64, W 64x64 = 4096 parameters, float64 (wall time)
  numpy loop (2N evaluations)         40.00 ms
  tinytf full (cold)                  90.00 ms
  tinytf full                         50.00 ms
  tinytf fast (cold)                  10.00 ms
  tinytf fast                          1.50 ms
  torch gradcheck full               400.00 ms
  torch gradcheck fast                 1.00 ms
  tf.test.compute_gradient          1150.00 ms
  jax check_grads (rev)              360.00 ms
"""


def test_adapt_gradcheck():
    full, fast = run_all.adapt_gradcheck(0, GRADCHECK, True)
    assert full.tinytf == 50.0  # not the cold run
    assert full.peers == {"numpy": 40.0, "tensorflow": 1150.0, "pytorch": 400.0}
    assert full.ratio == pytest.approx(0.125) and full.verdict is True  # 8x faster, within 2x of the loop
    assert fast.tinytf == 1.5 and fast.ratio == pytest.approx(1.5) and fast.verdict is True
    assert fast.peers == {"jax": 360.0, "pytorch": 1.0}  # check_grads is directional, as fast mode


def test_adapt_parse_print_and_passes():
    (row,) = run_all.adapt_parse_print({"ops": 2000, "xdsl_s": 1.0, "tinytf_s": 1.4, "overhead": 0.4}, "", True)
    assert row.others == {"xDSL": 1.0} and row.verdict is False
    passes = """generated function: 10000 tf ops; parse 2.00 s (5,000 ops/s)
pipeline                                seconds      ops/s  ops left
xDSL canonicalize (dce only)              0.500     20,000      9000
tinytf canonicalize (+ tf folding)        0.800     12,500      7000
tf-constant-fold                          0.300     33,333      7000
tf-shape-inference                        0.600     16,667     10000
canonicalize + tf-shape-inference         1.400      7,143      7000
"""
    canon, pipeline = run_all.adapt_passes(None, passes, True)
    assert canon.tinytf == 0.8 and canon.others == {"xDSL canonicalize": 0.5} and "10,000-op" in canon.case
    assert pipeline.tinytf == 1.4 and pipeline.ratio == pytest.approx(2.8)


XLA = """\
MLP training step (64x256x256x10)    µs/call jax.jit
jax.jit (hand-written)                 100.0      1.00
tinytf jit_compile                     150.0      1.50
tinytf XlaFunction                     110.0      1.10
tf.function(jit_compile)               650.0      6.50

first call (trace + lower + compile)  seconds
jax.jit                                0.100
tinytf jit_compile                     0.300
tf.function(jit_compile=True)          0.260

SGD step, batch 1, on a 8192x8192 float32 weight (256 MiB): XLA memory analysis (MiB)
                arguments    outputs      alias       temp       peak
donating            256.1      256.0      256.0        0.1      256.1
not donating        256.1      256.0        0.0        0.1      512.1

SGD step, batch 8, on a 8192x8192 float32 weight (256 MiB): XLA memory analysis (MiB)
                arguments    outputs      alias       temp       peak
donating            256.5      256.0      256.0      256.2      512.8
not donating        256.5      256.0        0.0        0.2      512.8
"""


def test_adapt_xla_step():
    jit, device, first, memory, batched = run_all.adapt_xla_step(0, XLA, True)
    assert jit.tinytf == 150.0 and jit.peers == {"jax": 100.0, "tensorflow": 650.0} and jit.verdict is False
    assert device.tinytf == 110.0 and device.verdict is True
    assert first.tinytf == 0.3 and first.peers == {"jax": 0.1, "tensorflow": 0.26}  # the first-call table's
    assert memory.tinytf == 256.1 and memory.others == {"not donating": 512.1} and memory.ratio == pytest.approx(0.5, rel=1e-3)
    assert "256 MiB weight, batch 1" in memory.case and "batch 8" in batched.case
    assert batched.tinytf == 512.8 and batched.others == {"not donating": 512.8}


# --- run_all end to end, on benchmarks of a test's own ---------------------------------------------

GOOD = '''
import os
from bench.common import MISSING, Row
def main(argv):
    print("good ran", argv, "threads", os.environ.get("OMP_NUM_THREADS"))
    return [Row("good", "an add", "µs", 2.0, peers={"numpy": 1.0, "pytorch": MISSING}, reference="numpy",
                target="<= 3x numpy", target_ratio=3.0),
            Row("good", "a slow one", "s", 9.0, others={"xDSL": 3.0}, reference="xDSL", target_ratio=1.3)]
'''
PRINTS_ONLY = '''
def main(argv):
    print("a table nobody reads")
    return 0
'''
BROKEN = '''
def main(argv):
    raise RuntimeError("kaboom in the benchmark")
'''


@pytest.fixture
def bench_dir(tmp_path):
    for name, text in (("good", GOOD), ("prints_only", PRINTS_ONLY), ("broken", BROKEN),
                       ("common", "# not a benchmark"), ("_helper", "# not a benchmark")):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text))
    return tmp_path


def test_discover_skips_helpers(bench_dir):
    assert run_all.discover(bench_dir=str(bench_dir)) == ["broken", "good", "prints_only"]
    with pytest.raises(SystemExit):
        run_all.discover(["nope"], bench_dir=str(bench_dir))
    real = run_all.discover()
    assert "run_all" not in real and "common" not in real and real[:2] == ["parse_print", "passes"]


def test_run_all_writes_results(bench_dir, tmp_path, capsys):
    out = tmp_path / "RESULTS.md"
    code = run_all.main(["--quick", "--bench-dir", str(bench_dir), "-o", str(out), "--threads", "1"])
    assert code == 1  # a benchmark failed, and says so
    text = out.read_text()
    assert "| threads | capped at 1 (OMP_NUM_THREADS," in text
    assert "| CPU | " in text and "| Python | " in text and "| peers | " in text and "quick mode" in text
    good = [line for line in text.splitlines() if line.startswith("| good | an add")]
    assert good == ["| good | an add | 2 µs | 1 µs | — | — | missing | — | 2x numpy | <= 3x numpy | yes |"]
    assert "| good | a slow one | 9 s | — | — | — | — | xDSL 3 s | 3x xDSL | — | **no** |" in text
    assert "| broken | exit 1: RuntimeError: kaboom in the benchmark |" in text
    assert "| prints_only | reported no rows" in text
    assert "good ran ['--quick'] threads 1" in text and "a table nobody reads" in text  # each one's own output
    assert "wrote" in capsys.readouterr().out


def test_run_all_timeout(tmp_path):
    (tmp_path / "slow.py").write_text("import time\ndef main(argv):\n    print('started', flush=True)\n"
                                      "    time.sleep(60)\n")
    res = run_all.run_one("slow", True, 2, str(tmp_path))
    assert res["error"].startswith("exit timeout") and res["rows"] == [] and res["seconds"] < 30


def test_tinytf_bench_command(bench_dir, tmp_path, capsys):
    from tinytf.cli import main as cli

    assert cli.main(["bench", "--list"]) == 0
    listed = capsys.readouterr().out.split()
    assert "eager_dispatch" in listed and "run_all" not in listed
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        code = cli.main(["bench", "--quick", "--bench-dir", str(bench_dir), "--only", "good"])
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    assert code == 0 and "| good | an add |" in out and "wrote" not in out  # the terminal only
    assert not (tmp_path / "RESULTS.md").exists()


FORWARDING = """\
chain of 20 elementwise ops on a 100 MB float32 tensor (peak includes the input)
  keep-all    peak   2100.0 MB = 21.00x the tensor     900.0 ms
  liveness    peak    300.0 MB =  3.00x the tensor     700.0 ms
  forwarding  peak    200.0 MB =  2.00x the tensor     600.0 ms
target: forwarding peak <= 3x the tensor: met
"""


def test_adapt_forwarding():
    (row,) = run_all.adapt_forwarding({}, FORWARDING, False)
    assert row.tinytf == 200.0 and row.unit == "MB" and "20 elementwise ops on 100 MB" in row.case
    assert row.others == {"tensor": 100.0, "keep-all executor": 2100.0, "liveness executor": 300.0}
    assert row.ratio == pytest.approx(2.0) and row.verdict is True
