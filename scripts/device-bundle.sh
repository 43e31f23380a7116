#!/usr/bin/env bash
# Builds build-device/: the GPU end-to-end examples compiled ahead of time
# (hp-lower-to-gpu, sm_90 fatbin), every library they need except the CUDA
# driver and libnccl, and run.sh (scripts/device-run.sh), which runs them.
# For a GPU machine with neither LLVM 22 nor Open MPI: scripts/device-check.sh
# runs the bundle there. It is a few MiB, small enough to carry; libnccl
# comes from that machine.
# Usage: scripts/device-bundle.sh [chip]   (default sm_90)
set -euo pipefail
cd "$(dirname "$0")/.."
chip=${1:-sm_90}
cuda=${HP_CUDA_ROOT:-/usr/local/cuda}
export PATH=$cuda/bin:/usr/lib/llvm-22/bin:$PATH
bash scripts/build.sh hp-opt hp_runtime_host hp_cuda_runtime hp_runtime_gpu hp_print_utils >/dev/null

out=build-device
rm -rf "$out" && mkdir -p "$out/lib"
echo 'void hp_example_main(void); int main(void) { hp_example_main(); return 0; }' |
  cc -x c -c - -o "$out/entry.o"
for example in tp_mlp cp_attention; do
  bash test/Examples/Inputs/mesh-size.sh "$example" 1 examples > "$out/$example.mlir"
  build/bin/hp-opt --hp-lower-to-gpu="chip=$chip format=fatbin" \
    "$out/$example.mlir" -o "$out/$example.llvm.mlir"
  mlir-translate --mlir-to-llvmir \
    "$out/$example.llvm.mlir" -o "$out/$example.ll"
  llc -O2 -filetype=obj -relocation-model=pic "$out/$example.ll" -o "$out/$example.o"
  # The module's @main returns nothing; a C main gives the process an exit
  # status of 0 when it returns (failures exit non-zero on their own).
  llvm-objcopy --redefine-sym main=hp_example_main "$out/$example.o"
  c++ -fuse-ld=lld "$out/$example.o" "$out/entry.o" -o "$out/$example" \
    -Lbuild/lib -lhp_runtime_gpu -lhp_runtime_host -lhp_cuda_runtime \
    -L"$cuda/lib64" -lnccl \
    -lhp_print_utils -L"$cuda/lib64/stubs" -lcuda \
    -Wl,-rpath,'$ORIGIN/lib' -Wl,--no-undefined
  rm "$out/$example.mlir" "$out/$example.llvm.mlir" "$out/$example.ll" "$out/$example.o"
done
rm "$out/entry.o"

# hp's runtime and what it loads that a CUDA image may lack (Open MPI: only
# loaded, never initialised, at world size 1).
cp build/lib/libhp_cuda_runtime.so build/lib/libhp_runtime_gpu.so \
  build/lib/libhp_runtime_host.so build/lib/libhp_print_utils.so "$out/lib/"
ldd build/lib/libhp_runtime_gpu.so | awk '$3 ~ /^\// {print $1, $3}' |
  while read -r name path; do
    case "$name" in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libstdc++*|libgcc_s*|libz.so*|libnccl*|libcuda*|libhp_*) ;;
      *) cp -L "$path" "$out/lib/$name" ;;
    esac
  done
cp scripts/device-run.sh "$out/run.sh"
du -sh "$out"
