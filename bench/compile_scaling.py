#!/usr/bin/env python3
"""Compile-time scaling of hp-partition.

Generates modules with N local_regions and N redistributes (N = 1k, 10k,
100k by default), times `hp-opt --hp-partition` on each and upstream
`mlir-opt --canonicalize` on its output, and prints wall time and peak
memory with the growth from one size to the next. Target: 10x the ops costs
at most 12x the time and memory.

A second table holds the ops fixed and grows the mesh, from (2, 2, 2) to
(16, 16, 16) = 4096 devices, with uneven and empty pieces: planning and the
emitted code must not grow with the number of devices.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

UNITS_PER_FUNC = 100


def local_dims(shape, mesh, dim):
    """The local type's dims when `dim` is split over every mesh axis."""
    sizes = {shape[dim]}
    for n in mesh:
        nxt = set()
        for g in sizes:
            c = -(-g // n)
            nxt |= {max(0, min(c, g - i * c)) for i in range(n)}
        sizes = nxt
    dims = [str(s) for s in shape]
    dims[dim] = str(sizes.pop()) if len(sizes) == 1 else "?"
    return "x".join(dims)


def generate(n, path, mesh=(4,), shape=(8, 16)):
    """n units of: a local_region (an addf on the local block) followed by a
    redistribute that moves the split to the other dim (an all_to_all).
    The from_local/to_local between them keeps canonicalization from
    composing the redistributes away."""
    gshape = "x".join(map(str, shape))
    placement = [", ".join(["shard<0>"] * len(mesh)),
                 ", ".join(["shard<1>"] * len(mesh))]
    types = [f"!dtensor.tensor<{gshape}xf32, @tp, [{p}]>" for p in placement]
    local = [f"tensor<{local_dims(shape, mesh, d)}xf32>" for d in (0, 1)]
    placement = [f"[{p}]" for p in placement]
    with open(path, "w") as f:
        f.write(f'dtensor.mesh @tp shape = [{", ".join(map(str, mesh))}]\n')
        left = n
        fi = 0
        while left > 0:
            units = min(UNITS_PER_FUNC, left)
            left -= units
            f.write(f"func.func @f{fi}(%a0: {types[0]}) -> {types[units % 2]} {{\n")
            for u in range(units):
                k = u % 2
                f.write(
                    f"  %b{u} = dtensor.local_region on @tp args(%a{u} as \"x\")"
                    f" out_placements = {placement[k]} : ({types[k]}) -> {types[k]} {{\n"
                    f"  ^bb0(%l: {local[k]}):\n"
                    f"    %s = arith.addf %l, %l : {local[k]}\n"
                    f"    dtensor.yield %s : {local[k]}\n  }}\n"
                    f"  %a{u + 1} = dtensor.redistribute %b{u} : {types[k]} -> {types[1 - k]}\n")
            f.write(f"  return %a{units} : {types[units % 2]}\n}}\n")
            fi += 1


def measure(cmd):
    """Wall seconds and peak RSS (MiB) of cmd, through GNU time."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v"] + cmd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)",
                        proc.stderr).group(1))
    return wall, rss / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hp-opt", default="build/bin/hp-opt")
    parser.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--mesh-ops", type=int, default=10000,
                        help="ops of the growing-mesh table (0: skip it)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            src = os.path.join(tmp, f"in{n}.mlir")
            out = os.path.join(tmp, f"out{n}.mlir")
            generate(n, src)
            hp = measure([args.hp_opt, "--hp-partition", src, "-o", out])
            up = measure([args.mlir_opt, "--allow-unregistered-dialect",
                          "--canonicalize", out, "-o", os.devnull])
            rows.append((n, hp, up))

    print(f"{'regions':>8} {'hp-partition s':>15} {'MiB':>8} "
          f"{'mlir-opt canon s':>17} {'MiB':>8} {'hp/canon':>9}")
    for n, hp, up in rows:
        print(f"{n:>8} {hp[0]:>15.2f} {hp[1]:>8.0f} {up[0]:>17.2f} "
              f"{up[1]:>8.0f} {hp[0] / up[0]:>9.2f}")
    print()
    worst = 0.0
    for (n0, hp0, _), (n1, hp1, _) in zip(rows, rows[1:]):
        t, m = hp1[0] / hp0[0], hp1[1] / hp0[1]
        scale = n1 / n0
        print(f"{n0} -> {n1} ({scale:.0f}x ops): time x{t:.2f}, "
              f"peak memory x{m:.2f} (target <= {scale * 1.2:.0f}x)")
        worst = max(worst, t / scale, m / scale)
    print(f"worst growth per 1x ops: {worst:.2f} (target <= 1.20)")

    if args.mesh_ops:
        print()
        meshes = [(2, 2, 2), (4, 4, 4), (16, 16, 16)]
        mesh_rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for mesh in meshes:
                src = os.path.join(tmp, "mesh.mlir")
                out = os.path.join(tmp, "mesh.out.mlir")
                # 30 x 70 splits unevenly on every mesh; on 4096 devices most
                # pieces are empty.
                generate(args.mesh_ops, src, mesh, (30, 70))
                hp = measure([args.hp_opt, "--hp-partition", src, "-o", out])
                mesh_rows.append((mesh, hp, os.path.getsize(out)))
        print(f"{'mesh':>14} {'devices':>8} {'hp-partition s':>15} {'MiB':>8} "
              f"{'output KiB':>11}")
        for mesh, hp, size in mesh_rows:
            devices = 1
            for m in mesh:
                devices *= m
            print(f"{str(mesh):>14} {devices:>8} {hp[0]:>15.2f} {hp[1]:>8.0f} "
                  f"{size / 1024:>11.0f}")
        t = mesh_rows[-1][1][0] / mesh_rows[0][1][0]
        print(f"(16,16,16) over (2,2,2): time x{t:.2f} for 512x the devices "
              f"(target: about 1)")


if __name__ == "__main__":
    main()
