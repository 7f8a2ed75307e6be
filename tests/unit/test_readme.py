"""The README's example runs as written."""
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_example_runs():
    text = (ROOT / "README.md").read_text()
    section = text.split("## A 20-line example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 25
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    first, last = re.search(r"loss (\S+) -> (\S+)", result.stdout).groups()
    assert float(last) < float(first)  # the training step learns
    assert '"tf.MatMul"' in result.stdout or "func.func" in result.stdout
    assert "gradient check (full, float64): passed" in result.stdout
