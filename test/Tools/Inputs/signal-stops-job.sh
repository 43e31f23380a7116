#!/usr/bin/env bash
# Usage: signal-stops-job.sh HP_RUNNER INPUT WORKDIR
# Starts `hp-runner -np 2` on INPUT with its own TMPDIR, sends it SIGTERM
# once both ranks run, and checks that hp-runner exits, no process of the
# job is left and nothing is left in TMPDIR (the lowered module the ranks
# run, mpirun's session directory). Prints "stopped", hp-runner's exit
# status and the number of files left.
set -u
runner=$1
work=$3
# The ranks run the module hp-runner lowers into TMPDIR: its path names
# every process of the job (mpirun and both ranks), and only those.
tmp="$work/job-$$"
rm -rf "$tmp"
mkdir -p "$tmp"
TMPDIR="$tmp" "$runner" -np 2 "$2" -e main --entry-point-result=void &
pid=$!
for _ in $(seq 300); do
  [ "$(pgrep -f -- "$tmp/" | wc -l)" -ge 3 ] && break
  sleep 0.1
done
sleep 1
kill -TERM "$pid"
wait "$pid"
rc=$?
for _ in $(seq 200); do
  left=$(pgrep -f -- "$tmp/" | wc -l)
  [ "$left" -eq 0 ] && break
  sleep 0.1
done
if [ "$left" -ne 0 ]; then
  echo "left running: $left processes"
  pkill -KILL -f -- "$tmp/"
  exit 1
fi
echo "stopped rc=$rc files=$(ls "$tmp" | wc -l)"
