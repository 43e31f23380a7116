#!/usr/bin/env bash
# Installs dependencies (fresh Debian 12), configures with the default preset
# and builds the given targets (default: everything).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export PATH=/usr/lib/llvm-22/bin:$PATH
if [ ! -f build/build.ninja ]; then
  cmake --preset default
fi
cmake --build build --target "${@:-all}"
