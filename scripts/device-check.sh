#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU: builds what the GPU tests
# need, runs them (test/e2e/gpu, test/GPU, the hp-lower-to-gpu pipeline test)
# and times the TP-MLP example (world size 1) on the GPU and on the CPU path.
# Prints the results; exits non-zero if a test fails. Meant to finish in
# under 8 minutes on a 16-core machine with the dependencies present.
#
# Needs what scripts/install-deps.sh installs (LLVM/MLIR 22, Open MPI) plus
# the CUDA toolkit and NCCL under /usr/local/cuda (or HP_CUDA_ROOT) and a
# driver. This script installs nothing. Where LLVM 22 is absent (the
# offline device machines), it runs build-device/ instead, the bundle that
# scripts/device-bundle.sh makes here: carry it along. Otherwise it says
# what is missing.
set -uo pipefail
cd "$(dirname "$0")/.."
cuda=${HP_CUDA_ROOT:-/usr/local/cuda}
export PATH=$cuda/bin:/usr/lib/llvm-22/bin:$PATH

# A machine without the toolchain runs the ahead-of-time bundle carried to
# it (scripts/device-bundle.sh, then carry build-device).
if [ ! -x /usr/lib/llvm-22/bin/mlir-tblgen ] && [ -x build-device/run.sh ]; then
  nvidia-smi -L || { echo "device-check: no GPU visible"; exit 2; }
  echo "== ahead-of-time GPU examples (build-device), world size 1"
  bash build-device/run.sh
  exit $?
fi

missing=()
command -v nvidia-smi >/dev/null && nvidia-smi -L | grep -q "GPU " || missing+=("a visible GPU (nvidia-smi -L)")
[ -x /usr/lib/llvm-22/bin/mlir-tblgen ] || missing+=("LLVM/MLIR 22 (scripts/install-deps.sh), or the bundle build-device/ (scripts/device-bundle.sh)")
command -v mpirun >/dev/null || missing+=("Open MPI (scripts/install-deps.sh)")
[ -f "$cuda/include/nccl.h" ] || missing+=("NCCL headers in $cuda/include")
if [ ${#missing[@]} -gt 0 ]; then
  printf 'device-check: missing %s\n' "${missing[@]}"
  exit 2
fi
nvidia-smi -L

echo "== build"
if [ ! -f build/build.ninja ]; then
  cmake --preset default -DHP_CUDA_ROOT="$cuda" >/dev/null || exit 1
fi
cmake --build build --target hp-opt hp-runner hp_runtime_host hp_cuda_runtime hp_runtime_gpu \
  hp_nccl_host hp_runtime_cpu || exit 1
grep -Eq "hp_have_gpu_runtime = (1|True|ON)" build/test/lit.site.cfg.py || {
  echo "device-check: the GPU runtime was not configured (CUDA driver or NCCL not found)"
  exit 1
}

echo "== GPU tests"
lit -v build/test/e2e/gpu build/test/GPU build/test/Pipelines/hp-lower-to-gpu.mlir
status=$?

echo "== TP-MLP, world size 1 (wall time of one hp-runner run, JIT included)"
tp=$(mktemp --suffix=.mlir)
bash test/Examples/Inputs/mesh-size.sh tp_mlp 1 examples > "$tp"
for target in cpu gpu; do
  start=$(date +%s.%N)
  out=$(build/bin/hp-runner -np 1 --target=$target "$tp" -e main \
        --entry-point-result=void 2>&1)
  end=$(date +%s.%N)
  printf '%s: %.3f s: %s\n' "$target" "$(awk "BEGIN { print $end - $start }")" "$out"
done
rm -f "$tp"
exit $status
