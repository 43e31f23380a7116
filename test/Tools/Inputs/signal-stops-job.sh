#!/usr/bin/env bash
# Usage: signal-stops-job.sh HP_RUNNER INPUT WORKDIR
# Starts `hp-runner -np 2` on a copy of INPUT, sends it SIGTERM once both
# ranks run, and checks that hp-runner exits and no process of the job is
# left. Prints "stopped" and hp-runner's exit status.
set -u
runner=$1
work=$3
mkdir -p "$work"
input="$work/job-$$.mlir"
cp "$2" "$input"
"$runner" -np 2 "$input" -e main --entry-point-result=void &
pid=$!
for _ in $(seq 300); do
  [ "$(pgrep -f -- "$input" | wc -l)" -ge 3 ] && break
  sleep 0.1
done
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
for _ in $(seq 200); do
  left=$(pgrep -f -- "$input" | wc -l)
  [ "$left" -eq 0 ] && break
  sleep 0.1
done
if [ "$left" -ne 0 ]; then
  echo "left running: $left processes"
  pkill -KILL -f -- "$input"
  exit 1
fi
echo "stopped rc=$rc"
