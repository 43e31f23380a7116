#!/usr/bin/env bash
# Builds hp and runs every benchmark; each prints its ratios to targets.
# Benchmarks are never part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh hp-opt hp-bench-plan-quality
echo "== plan_quality: planner cost vs exhaustive optimum vs torch-like greedy"
build/bench/hp-bench-plan-quality
echo
echo "== compile_scaling: hp-partition on 1k/10k/100k local regions"
python3 bench/compile_scaling.py "$@"
