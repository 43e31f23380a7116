#!/usr/bin/env bash
# Builds hp and runs every benchmark; each prints its ratios to targets.
# Benchmarks are never part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh hp-opt hp-runner hp_runtime_cpu hp_nccl_host _hp \
  hp-bench-plan-quality hp-bench-mpi-baseline
echo "== plan_quality: planner cost vs exhaustive optimum, receive bound, torch-like greedy; 4-D planning time"
build/bench/hp-bench-plan-quality
echo
echo "== jax_compare: hp vs JAX (XLA) on 8 host devices (skipped without jax)"
python3 bench/jax_compare.py 2>/dev/null
echo
echo "== elementwise: vectorized chains and reductions against memcpy, one core"
python3 bench/elementwise.py
echo
echo "== blas_choice: single-thread gemm of each BLAS Debian packages"
python3 bench/blas_choice.py || echo "(needs libblis-dev, libeigen3-dev)"
echo
echo "== propagation: dtensor-propagate vs greedy, lower bound and upstream sharding-propagation"
# The chart needs matplotlib (PyPI) in the python that runs the benches.
python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install -q matplotlib
python3 bench/propagation.py
echo
echo "== compile_scaling: hp-partition on 1k/10k/100k local regions"
python3 bench/compile_scaling.py
echo
echo "== runtime_overhead: generated collectives vs hand-written MPI, 4 ranks"
python3 bench/runtime_overhead.py
echo
echo "== torch_compare: hp vs torch DTensor, same modules and tensor-parallel plans, 4 ranks"
"$(bash scripts/torch-env.sh)" bench/torch_compare.py
echo
echo "== step_compare: one forward step, hp vs torch DTensor on 2 ranks, one thread each"
"$(bash scripts/torch-env.sh)" bench/step_compare.py
echo
echo "== hf_models: whole transformers models, hp vs torch DTensor under the same plan, 4 ranks"
"$(bash scripts/torch-env.sh)" bench/hf_models.py
echo
echo "== session: calls on one hp.torch.Session vs the in-program step, a launch per call and torch DTensor"
"$(bash scripts/torch-env.sh)" bench/session.py
echo
echo "== generate: greedy decoding on 4 ranks, hp.torch.Generator vs transformers under torch TP"
"$(bash scripts/torch-env.sh)" bench/generate.py
echo
echo "== train_compare: training steps, hp.torch.Trainer vs torch TP / DDP / FSDP2 / FSDP2 + TP, 4 ranks"
"$(bash scripts/torch-env.sh)" bench/train_compare.py
echo
echo "== param_memory: peak memory per rank with block reads, tensors and a checkpoint, 4 ranks"
"$(bash scripts/torch-env.sh)" bench/param_memory.py
echo
echo "== first_step: time to the first training step, cold and from hp's cache, vs torch.compile's"
"$(bash scripts/torch-env.sh)" bench/first_step.py
echo
echo "== scans_and_sorts: cumsum, sort and topk on 2 ranks, time against length (target: 2^18 at most 4.5x 2^16)"
"$(bash scripts/torch-env.sh)" bench/scans_and_sorts.py
