#!/usr/bin/env bash
# The main demo. Builds hp-opt on a fresh Debian 12 machine and runs it on the
# example dtensor programs: each is verified (placement contracts, local
# shapes, meshes), then lowered with hp-partition to SPMD code on local
# tensors with planned shard collectives, which upstream mlir-opt verifies.
# Multi-rank execution arrives with the CPU pipeline (see README, "Status").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh hp-opt
HP_OPT=build/bin/hp-opt
spmd=$(mktemp --suffix=.mlir)
broken=$(mktemp --suffix=.mlir)
trap 'rm -f "$spmd" "$broken" "$broken.err"' EXIT

for f in examples/*.mlir; do
  echo "=================================================================="
  echo "== $f: verified"
  echo "=================================================================="
  "$HP_OPT" "$f"
  echo "== $f: hp-partition (plans, then the SPMD program)"
  "$HP_OPT" --hp-partition="print-plans" --mlir-print-op-on-diagnostic=false "$f" \
    2> >(grep remark >&2) > "$spmd"
  cat "$spmd"
  /usr/lib/llvm-22/bin/mlir-opt --allow-unregistered-dialect "$spmd" > /dev/null
  echo "== $f: upstream mlir-opt verifies the SPMD program"
done

echo "=================================================================="
echo "== a broken contract is caught at compile time"
echo "=================================================================="
sed 's/out_placements = \[partial<sum>\]/out_placements = [replicate]/' examples/tp_mlp.mlir > "$broken"
if "$HP_OPT" --mlir-print-op-on-diagnostic=false "$broken" > /dev/null 2> "$broken.err"; then
  echo "unexpected: the broken program verified" >&2
  exit 1
fi
sed "s|$broken|tp_mlp.mlir (edited)|" "$broken.err"
echo "demo: OK"
