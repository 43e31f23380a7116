#!/usr/bin/env bash
# Builds hp-opt, hp-runner and the CPU runtime with ASan + UBSan (preset
# `sanitize`, in build-sanitize/), runs the lit suites those tools serve
# under it, then fuzzes the sanitized hp-opt with FUZZ_MUTANTS mutants
# (default 2000, about 2 minutes) from FUZZ_SEED (fixed by default, so that
# CI is repeatable; vary it to explore), runs FUZZ_GLOBAL_PROGRAMS (default
# 8, about 2 minutes) random global-view programs (gen_global.py's, mixed
# element types) on ranks under the sanitized hp-runner against their
# single-device results, and fuzzes the sanitized Python
# module (_hp) with scripts/fuzz_python.py for FUZZ_PY_SECONDS (default 90).
# .ci/run calls it after the README's test command.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh >/dev/null || exit 1
export PATH=/usr/lib/llvm-22/bin:$PATH
if [ ! -f build-sanitize/build.ninja ]; then
  cmake --preset sanitize >/dev/null || exit 1
fi
targets="hp-opt hp-runner hp-lsp-server hp_nccl_host hp_runtime_cpu"
# The GPU runtime exists where the CUDA toolkit does; lit links against it.
# The target list is read whole first: `ninja ... | grep -q` under pipefail
# fails when grep's early exit kills ninja with SIGPIPE.
all_targets=$(ninja -C build-sanitize -t targets all) || exit 1
for t in hp_cuda_runtime hp_runtime_gpu; do
  grep -q "^$t:" <<<"$all_targets" && targets="$targets $t"
done
echo "sanitize targets: $targets"
cmake --build build-sanitize --target $targets || exit 1

# Debian's libMLIR is not instrumented: its inline code poisons memory that
# gcc's ASan then reports as use-after-poison; MPI's allocations are never
# freed by design.
# The sanitized runtime libraries are loaded by sanitized processes only
# (hp-runner); executables the tests link against them are not run here.
export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0:abort_on_error=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Sanitized JIT runs are slower.
export HP_TIMEOUT_S=300

status=0
echo "== lit (ASan + UBSan): dialects, conversions, pipelines, tools, examples, e2e"
lit -sv --xunit-xml-output=build-sanitize/lit-sanitize.xml \
  --filter-out 'CAPI|Embedding|GPU/|Docs/' build-sanitize/test || status=1

echo "== fuzz (ASan + UBSan hp-opt, ${FUZZ_MUTANTS:-2000} mutants)"
python3 scripts/fuzz.py --hp-opt build-sanitize/bin/hp-opt \
  --mutants "${FUZZ_MUTANTS:-2000}" --seed "${FUZZ_SEED:-20261202}" \
  --out build-sanitize/fuzz-findings || status=1

echo "== fuzz (ASan + UBSan hp-runner, ${FUZZ_GLOBAL_PROGRAMS:-8} global-view programs on ranks)"
python3 scripts/fuzz.py --mutants 0 --hp-opt build-sanitize/bin/hp-opt \
  --hp-runner build-sanitize/bin/hp-runner \
  --global-programs "${FUZZ_GLOBAL_PROGRAMS:-8}" --seed "${FUZZ_SEED:-20261202}" \
  --out build-sanitize/fuzz-global-findings || status=1

echo "== fuzz (ASan + UBSan Python module _hp, ${FUZZ_PY_SECONDS:-90} s)"
# The interpreter is not instrumented: the sanitizer runtimes are preloaded
# so that the instrumented _hp finds them, and checked to be live with a
# deliberate overflow (if ASan were not active, the fuzzer would prove
# nothing).
sanitizers="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
if cmake --build build-sanitize --target _hp hp-python-package; then
  overflow='import ctypes
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
ctypes.memmove(libc.malloc(8), b"x" * 64, 64)'
  # Captured first: the probe aborts by design, which under pipefail would
  # fail a pipeline into grep however grep fares.
  probe=$(LD_PRELOAD="$sanitizers" python3 -c "$overflow" 2>&1)
  symbols=$(nm -D build-sanitize/python/hp/_hp*.so)
  if grep -q heap-buffer-overflow <<<"$probe" &&
      grep -q __asan_report <<<"$symbols"; then
    LD_PRELOAD="$sanitizers" PYTHONPATH=build-sanitize/python \
      python3 scripts/fuzz_python.py --seconds "${FUZZ_PY_SECONDS:-90}" \
      --seed "${FUZZ_SEED:-20261202}" --batch-timeout 600 \
      --out build-sanitize/fuzz-python-findings || status=1
  else
    echo "sanitize.sh: ASan is not active in the Python fuzzer's interpreter"
    status=1
  fi
else
  status=1
fi
exit $status
