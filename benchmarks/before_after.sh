#!/usr/bin/env bash
# Same-run before/after of a restructure: the chain, replay and train-step benchmarks of two commits,
# alternated (machines are shared and noisy: only figures from one run compare).
#   benchmarks/before_after.sh BEFORE_REV [AFTER_REV] [ROUNDS]     (AFTER_REV defaults to the work tree)
# Each commit runs from a temporary `git worktree` with this checkout's .venv; nothing else changes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
py="$root/.venv/bin/python"
[ -x "$py" ] || { echo "no .venv: run 'make bench' (or 'make test') first" >&2; exit 2; }
before=$1; after=${2:-}; rounds=${3:-2}
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/before" >/dev/null 2>&1 || true;
      [ -n "$after" ] && git -C "$root" worktree remove --force "$tmp/after" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add -q --detach "$tmp/before" "$before"
if [ -n "$after" ]; then git worktree add -q --detach "$tmp/after" "$after"; after_tree="$tmp/after"; else after_tree="$root"; fi
for round in $(seq 1 "$rounds"); do
  for tree in "$tmp/before" "$after_tree"; do
    echo "===== round $round: $(git -C "$tree" log --oneline -1 | cut -c1-60)$([ "$tree" = "$root" ] && echo ' (work tree)')"
    (cd "$tree" && PYTHONPATH="$tree/src" "$py" benchmarks/chain.py --rounds 9 --only tapejax,eager,jit,torch | grep -E '^\| (tapejax|raw|torch)')
    (cd "$tree" && PYTHONPATH="$tree/src" "$py" benchmarks/replay.py --rounds 9 | grep -E '^\| (tapejax|jax|torch)')
    (cd "$tree" && PYTHONPATH="$tree/src" "$py" benchmarks/train_step.py | grep -E '^\| (MLP|small|transformer)' | head -3)
  done
done
