#!/usr/bin/env bash
# Installs everything hp needs to build and test on a fresh Debian 12 machine.
# Idempotent: packages already present are skipped by apt.
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

PKGS=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  clang-format-22               # scripts/check-format.sh (.ci/run)
  cmake ninja-build ccache g++
  libopenmpi-dev openmpi-bin
  libgtest-dev
  libdnnl-dev libopenblas-dev   # contractions on CPUs (docs/Performance.md)
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi


# hp's Python module is built with nanobind and tested with pytest (PyPI).
if ! python3 -c "import nanobind, pytest" >/dev/null 2>&1; then
  echo "install-deps: installing nanobind and pytest from PyPI"
  python3 -m pip install -q --disable-pip-version-check nanobind pytest
fi

# The torch frontend (hp.torch) and its tests: torch, torch-mlir and
# transformers in a cached virtual environment (about 6 GB the first time).
bash "$(dirname "$0")/torch-env.sh" > /dev/null
