#!/usr/bin/env bash
# The benchmarks on an accelerator machine whose Python already has jax with its GPU plugin, optax,
# orbax-checkpoint and torch (the workplace's device machine: no venv, nothing installed), from the
# repository root:  benchmarks/on_device.sh OUT_DIR [PYTHON] [QUICK] [ONLY]
# Each benchmark's output goes to OUT_DIR/<name>.txt and its tables to stdout; QUICK=1 runs one round of
# each (a check of the script itself, e.g. on CPU before spending device time). ONLY, a comma-separated
# subset of step_phases,adam_step,chain,replay,train_step,memory,profile,tests, runs those parts alone
# (in this script's order), to fit a short lease.
set -u
out=${1:-device_out}; py=${2:-python3}; quick=${3:-0}; only=${4:-all}
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
r() { if [ "$quick" = 1 ]; then echo 1; else echo "$1"; fi; }
{ nvidia-smi -L 2>/dev/null; "$py" -c "import jax, torch, tapejax; print('jax', jax.__version__, jax.devices(), 'torch', torch.__version__)"; } 2>&1 | tee "$out/env.txt"
wanted() { [ "$only" = all ] || [[ ",$only," == *",$1,"* ]]; }
run() {
  local name=$1 limit=$2; shift 2
  wanted "$name" || return 0
  echo "== $name: $*"
  timeout "$limit" "$py" "$@" > "$out/$name.txt" 2>&1
  echo "rc=$?"
  grep -E '^\||Traceback|Error' "$out/$name.txt" | head -40
}
run step_phases 120 benchmarks/step_phases.py --steps "$(r 300)"
run adam_step 180 benchmarks/adam_step.py --rounds "$(r 9)" --steps 5 --torch-threads 0
run chain 120 benchmarks/chain.py --rounds "$(r 9)" --only tapejax,eager,jit,torch
run replay 120 benchmarks/replay.py --rounds "$(r 9)"
run train_step 120 benchmarks/train_step.py
run memory 120 benchmarks/memory.py --lengths 1000 --steps "$(r 100)" --only tapejax,torch
# Where the transformer step's host time goes (tools/sample_profile.py), the step as step_phases.py runs it.
if wanted profile; then
echo "== profile"
timeout 60 "$py" tools/sample_profile.py --setup "import sys, jax; sys.path.insert(0, 'benchmarks')
from step_phases import build; one = build('transformer', jax.devices()[0])" --stmt "one()" --seconds "$(r 10)" --top 30 \
  > "$out/profile.txt" 2>&1; echo "rc=$?"
fi
# Then the tests that behave differently on an accelerator (buffer donation, placement, the fused
# optimizer step), on its default device.
wanted tests || exit 0
echo "== tests"
# (Each test process must not take JAX's default 75% of the GPU's memory: four share it.)
XLA_PYTHON_CLIENT_PREALLOCATE=false timeout "$(r 200)" "$py" -m pytest tests/test_function.py \
  tests/test_fused_update.py tests/test_fused_assign.py tests/test_lazy.py tests/test_replay.py \
  tests/test_optimizers.py tests/test_ahead.py -p no:cacheprovider -n 4 -rf > "$out/tests.txt" 2>&1
echo "rc=$?"; tail -5 "$out/tests.txt"
