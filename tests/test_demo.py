"""`make demo` (examples/demo.py) runs to the end with a reduced number of steps and prints its report."""
import os
import re
import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "examples" / "demo.py"


def test_demo_runs_with_few_steps():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    p = subprocess.run([sys.executable, str(DEMO), "--steps", "40", "--timing-runs", "3"], capture_output=True,
                       text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]
    out = p.stdout
    assert "1. eager" in out and "2. compiled" in out
    assert out.count("step    40") == 2  # both loss curves reach the last step
    losses = [float(v) for v in re.findall(r"step\s+\d+\s+loss (\d+\.\d+)", out)]
    assert losses[-1] < losses[0]  # it trains
    diff = float(re.search(r"loss curves: ([0-9.e+-]+)", out).group(1))
    assert diff < 1e-4  # eager and compiled agree
    assert "gradcheck ok" in out
    for name in ("tapejax eager", "tapejax tj.function", "jax.jit(jax.value_and_grad)"):
        assert re.search(re.escape(name) + r".*\d+\.\d+\s+\d+\.\dx", out), name
