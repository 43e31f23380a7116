#!/usr/bin/env python3
"""Runtime overhead of hp's generated collectives on CPU ranks.

For each collective kind and per-rank input size (4 KiB ... 64 MiB of f32),
generates a shard-level program that repeats the collective in a loop (one
element of each result is summed, so no iteration can be dropped), lowers
and runs it with
`hp-runner -np 4`, and runs bench/mpi_baseline.cpp, a hand-written MPI
program making the same call on the same bytes. Prints seconds per
iteration (the fastest of --repeats runs each, alternating), the ratio
hp/MPI (target <= 1.10 at >= 1 MiB), and how many
communicators each hp run created (target: one per (grid, axes)).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

KINDS = ["all_gather", "all_reduce", "reduce_scatter", "all_to_all"]
SIZES = [4 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]


def program(kind, n, ranks, iterations):
    """The collective in a loop; one element of each result feeds a scalar
    the loop carries, so no iteration can be dropped and no copy is added."""
    t = f"tensor<{n}xf32>"
    big = f"tensor<{n * ranks}xf32>"
    if kind == "all_gather":
        it, op = t, f"shard.all_gather %x on @g grid_axes = [0] gather_axis = 0 : {t} -> {big}"
        rt = big
    elif kind == "all_reduce":
        it, op, rt = t, f"shard.all_reduce %x on @g grid_axes = [0] : {t} -> {t}", t
    elif kind == "reduce_scatter":
        it, rt = big, t
        op = f"shard.reduce_scatter %x on @g grid_axes = [0] scatter_axis = 0 : {big} -> {t}"
    else:
        it, rt = t, t
        op = f"shard.all_to_all %x on @g grid_axes = [0] split_axis = 0 concat_axis = 0 : {t} -> {t}"
    return f"""
shard.grid @g(shape = {ranks})
func.func private @rtclock() -> f64
func.func private @hpNcclCommCreations() -> i64
func.func @run(%x: {it}, %iters: index) -> f32 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %iters step %c1 iter_args(%acc = %zero) -> f32 {{
    %y = {op}
    %e = tensor.extract %y[%c0] : {rt}
    %s = arith.addf %acc, %e : f32
    scf.yield %s : f32
  }}
  return %r : f32
}}
func.func @main() {{
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %iters = arith.constant {iterations} : index
  %e = tensor.empty() : {it}
  %x = linalg.fill ins(%zero : f32) outs(%e : {it}) -> {it}
  %w = func.call @run(%x, %c1) : ({it}, index) -> f32
  %t0 = func.call @rtclock() : () -> f64
  %y = func.call @run(%x, %iters) : ({it}, index) -> f32
  %t1 = func.call @rtclock() : () -> f64
  %dt = arith.subf %t1, %t0 : f64
  %n = arith.constant {iterations}.0 : f64
  %per = arith.divf %dt, %n : f64
  %r = shard.process_linear_index on @g : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {{
    vector.print str "seconds "
    vector.print %per : f64
    %made = func.call @hpNcclCommCreations() : () -> i64
    vector.print str "comms "
    vector.print %made : i64
    vector.print %y : f32
  }}
  return
}}
"""


def iterations_for(size):
    # About half a second per measurement on this machine: shorter runs are
    # dominated by how the scheduler treats 4 ranks on few cores.
    return max(10, min(2000, (2 << 30) // (size * 4)))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--hp-runner", default="build/bin/hp-runner")
    parser.add_argument("--baseline", default="build/bench/hp-bench-mpi-baseline")
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs per measurement; the fastest counts")
    args = parser.parse_args()
    mpirun = ["mpirun", "--oversubscribe", "-np", str(args.ranks)]
    if os.geteuid() == 0:
        mpirun.insert(1, "--allow-run-as-root")

    print(f"{'kind':<15} {'bytes/rank':>11} {'iters':>5} {'hp s/iter':>11} "
          f"{'MPI s/iter':>11} {'hp/MPI':>7} {'comms':>5}")
    worst_large = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds.split(","):
            for size in (int(s) for s in args.sizes.split(",")):
                n = size // 4
                n -= n % args.ranks  # all_to_all splits by the group size
                iters = iterations_for(size)
                path = os.path.join(tmp, f"{kind}_{size}.mlir")
                with open(path, "w") as f:
                    f.write(program(kind, n, args.ranks, iters))
                hp = mpi = float("inf")
                # Alternate the two so that machine noise hits both alike.
                for _ in range(args.repeats):
                    out = subprocess.run(
                        [args.hp_runner, "-np", str(args.ranks), path, "-e",
                         "main", "--entry-point-result=void"],
                        capture_output=True, text=True)
                    if out.returncode != 0:
                        sys.exit(f"hp run failed:\n{out.stderr[-2000:]}")
                    hp = min(hp, float(re.search(r"seconds\s+([0-9.eE+-]+)",
                                                 out.stdout).group(1)))
                    comms = int(re.search(r"comms\s+(\d+)", out.stdout).group(1))
                    base = subprocess.run(
                        mpirun + [args.baseline, kind, str(n * 4), str(iters)],
                        capture_output=True, text=True, check=True)
                    mpi = min(mpi, float(base.stdout.split()[0]))
                ratio = hp / mpi
                if size >= 1 << 20:
                    worst_large = max(worst_large, ratio)
                print(f"{kind:<15} {n * 4:>11} {iters:>5} {hp:>11.6f} {mpi:>11.6f} "
                      f"{ratio:>7.2f} {comms:>5}", flush=True)
    print(f"\nworst hp/MPI at >= 1 MiB: {worst_large:.2f} (target <= 1.10)")
    print("communicators per run: one per (grid, axes) used; each program "
          "above uses one group, so 'comms' should read 1")


if __name__ == "__main__":
    main()
