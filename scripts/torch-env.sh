#!/usr/bin/env bash
# Creates (once) the cached virtual environment of hp's torch frontend and
# prints its python: torch, torch-mlir and transformers from PyPI
# (scripts/torch-requirements.txt; the first run downloads about 6 GB).
# Cached in $HP_TORCH_VENV (default ~/.cache/hp/torch-venv) and rebuilt when
# the requirements change. Any failure is an error: the torch tests are part
# of scripts/test.sh and are never skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${HP_TORCH_VENV:-$HOME/.cache/hp/torch-venv}
req=scripts/torch-requirements.txt
stamp="$venv/.hp-requirements"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then
  echo "$venv/bin/python"
  exit 0
fi
echo "torch-env: creating $venv (torch, torch-mlir, transformers: about 6 GB on the first run)" >&2
mkdir -p "$(dirname "$venv")"
# The same interpreter that builds hp's extension module, so it imports.
# (Debian's own python3 needs python3-venv for `-m venv`; virtualenv from
# PyPI does the same job.)
python3 -m venv "$venv" 2>/dev/null ||
  { python3 -m pip install -q --disable-pip-version-check virtualenv >&2 &&
    python3 -m virtualenv -q "$venv" >&2; }
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
"$venv/bin/python" -c "import torch, torch_mlir.fx, transformers" >&2
cp "$req" "$stamp"
echo "$venv/bin/python"
