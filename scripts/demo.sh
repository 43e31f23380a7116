#!/usr/bin/env bash
# The main demo. Builds hp-opt on a fresh Debian 12 machine and runs it on the
# example dtensor programs: each is parsed, fully verified (placement
# contracts, local shapes, meshes) and printed; then canonicalized.
# Multi-rank execution arrives with the CPU pipeline (see README, "Status").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh hp-opt
HP_OPT=build/bin/hp-opt

for f in examples/*.mlir; do
  echo "=================================================================="
  echo "== $f: verified"
  echo "=================================================================="
  "$HP_OPT" "$f"
  echo "== $f: canonicalized"
  "$HP_OPT" --canonicalize "$f" | grep -E "dtensor\.(redistribute|from_local|to_local)" || true
done

echo "=================================================================="
echo "== a broken contract is caught at compile time"
echo "=================================================================="
broken=$(mktemp --suffix=.mlir)
trap 'rm -f "$broken"' EXIT
sed 's/out_placements = \[partial<sum>\]/out_placements = [replicate]/' examples/tp_mlp.mlir > "$broken"
if "$HP_OPT" --mlir-print-op-on-diagnostic=false "$broken" > /dev/null 2> "$broken.err"; then
  echo "unexpected: the broken program verified" >&2
  exit 1
fi
sed "s|$broken|tp_mlp.mlir (edited)|" "$broken.err"
rm -f "$broken.err"
echo "demo: OK"
