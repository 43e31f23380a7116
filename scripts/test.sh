#!/usr/bin/env bash
# Builds hp and runs every test suite (lit, gtest, pytest, the torch frontend's
# pytest), then prints one summary line per suite and a closing
# 'total: N passed, N failed, N skipped' line.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh || exit 1
export PATH=/usr/lib/llvm-22/bin:$PATH

# Programs compiled by the tests are cached in the build tree (lit.cfg.py
# says the same for lit alone), not in the user's ~/.cache/hp.
export HP_CACHE_DIR="$PWD/build/test/hp-cache"

reports=build/test-reports
rm -rf "$reports" && mkdir -p "$reports"

echo "== lit"
lit -sv --xunit-xml-output="$reports/lit.xml" build/test
echo "== unit tests"
# Two shards side by side: the tests are single-threaded and the machine
# has two cores. Each shard's log is printed when both have ended.
for i in 0 1; do
  GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=$i build/unittests/HPUnitTests \
    --gtest_output="xml:$reports/unittests-$i.xml" > "$reports/unittests-$i.log" 2>&1 &
done
wait
cat "$reports/unittests-0.log" "$reports/unittests-1.log"

echo "== python (pytest)"
PYTHONPATH=build/python python3 -m pytest -q python/tests \
  --junitxml="$reports/python.xml"

echo "== torch frontend (pytest, in the torch environment of scripts/torch-env.sh)"
PYTHONPATH=build/python "$(bash scripts/torch-env.sh)" -m pytest -q python/torch_tests \
  --junitxml="$reports/torch.xml"

echo "== summary"
python3 scripts/test-summary.py \
  "lit=$reports/lit.xml" \
  "unittests=$reports/unittests-0.xml,$reports/unittests-1.xml" \
  "python=$reports/python.xml" \
  "torch=$reports/torch.xml"
