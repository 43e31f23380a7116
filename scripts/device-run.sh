#!/usr/bin/env bash
# Runs the ahead-of-time GPU examples of a bundle made by
# scripts/device-bundle.sh (copied there as run.sh), one process, world size
# 1; each compares its result with its single-device reference and prints
# whether it matches. Prints each run's wall time. libnccl is looked up in
# NCCL_LIB_DIR, then in python3's nvidia-nccl wheel, then the loader's path.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nccl=${NCCL_LIB_DIR:-$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null || true)}
export LD_LIBRARY_PATH=$here/lib${nccl:+:$nccl}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
status=0
for exe in tp_mlp cp_attention; do
  start=$(date +%s.%N)
  out=$("$here/$exe" 2>&1)
  rc=$?
  end=$(date +%s.%N)
  printf '%s: exit %d, %.3f s: %s\n' "$exe" "$rc" "$(awk "BEGIN { print $end - $start }")" "$out"
  if [ $rc -ne 0 ] || ! grep -q "this rank matches" <<<"$out" || grep -q MISMATCH <<<"$out"; then
    status=1
  fi
done
exit $status
