"""Running a script on several simulated CPU devices: JAX fixes its device count when it starts, so each
multi-device test runs its script in a child process (shared by the distribute, dtensor and sharded-IR tests)."""
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_on_devices(script: str, devices: int = 8, timeout: int = 300) -> dict:
    """Run ``script`` with ``devices`` CPU devices; the JSON it prints last."""
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}", JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
