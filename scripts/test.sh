#!/usr/bin/env bash
# Builds hp and runs every test suite (lit, gtest, pytest, the torch frontend's
# pytest), then prints one summary line per suite and a closing
# 'total: N passed, N failed, N skipped' line.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh || exit 1
export PATH=/usr/lib/llvm-22/bin:$PATH

reports=build/test-reports
rm -rf "$reports" && mkdir -p "$reports"

echo "== lit"
lit -sv --xunit-xml-output="$reports/lit.xml" build/test
echo "== unit tests"
build/unittests/HPUnitTests --gtest_output="xml:$reports/unittests.xml"

echo "== python (pytest)"
PYTHONPATH=build/python python3 -m pytest -q python/tests \
  --junitxml="$reports/python.xml"

echo "== torch frontend (pytest, in the torch environment of scripts/torch-env.sh)"
PYTHONPATH=build/python "$(bash scripts/torch-env.sh)" -m pytest -q python/torch_tests \
  --junitxml="$reports/torch.xml"

echo "== summary"
python3 scripts/test-summary.py \
  "lit=$reports/lit.xml" \
  "unittests=$reports/unittests.xml" \
  "python=$reports/python.xml" \
  "torch=$reports/torch.xml"
