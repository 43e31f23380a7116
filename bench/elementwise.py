#!/usr/bin/env python3
"""Elementwise chains and reductions on one CPU rank, vectorized or not,
next to a memory copy of the same bytes.

For f32 buffers of `--mb` MiB (default 16, past the caches), one rank
(hp-runner -np 1, taskset to one core) runs each kernel `--iters` times:

  * copy:   memref.copy of one buffer into another (LLVM's memcpy): the
            machine's bandwidth for reading one buffer and writing one;
  * chain:  c = max((a + b) * a, b) - a, one linalg.generic (two buffers
            read, one written);
  * exp:    c = exp(a) * b (a transcendental in the chain);
  * rowsum: c[i] = sum_j a[i, j] (rows of 1,000 elements; one buffer read).

Each kernel is timed through hp-lower-to-cpu as it is (vectorize-linalg-on-
buffers) and, for the linalg ones, with the same program first lowered by
upstream's convert-linalg-to-loops (the scalar loops hp made before; LLVM
may still vectorize those itself). The program times its own loop of --iters
iterations after one warm-up call (rtclock of MLIR's runner utils), so
neither compilation nor start-up counts. Prints GB/s moved (bytes read + written per iteration / time) and
each kernel's time over the copy's per byte moved (target for chains: within
2x of the copy). A benchmark, never a test.

Run: python3 bench/elementwise.py [--mb 16] [--iters 50] [--build build]
"""
import argparse
import os
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELS = {
    "chain": ("(a + b) * a max b - a", 3,
              """%s = arith.addf %x, %y : f32
    %m = arith.mulf %s, %x : f32
    %n = arith.maximumf %m, %y : f32
    %r = arith.subf %n, %x : f32"""),
    "exp": ("exp(a) * b", 3,
            """%e = math.exp %x : f32
    %r = arith.mulf %e, %y : f32"""),
}


def program(kernel, rows, cols, iters):
    t = f"memref<{rows}x{cols}xf32>"
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    if kernel == "copy":
        step = f"  memref.copy %a, %c : {t} to {t}"
        out_t = t
    elif kernel == "rowsum":
        out_t = f"memref<{rows}xf32>"
        step = (f"  linalg.generic {{indexing_maps = [{ident}, affine_map<(d0, d1) -> (d0)>], "
                f"iterator_types = [\"parallel\", \"reduction\"]}} ins(%a : {t}) outs(%c : {out_t}) {{\n"
                f"  ^bb0(%x: f32, %o: f32):\n    %r = arith.addf %x, %o : f32\n"
                f"    linalg.yield %r : f32\n  }}")
    else:
        out_t = t
        body = KERNELS[kernel][2]
        step = (f"  linalg.generic {{indexing_maps = [{ident}, {ident}, {ident}], "
                f"iterator_types = [\"parallel\", \"parallel\"]}} ins(%a, %b : {t}, {t}) "
                f"outs(%c : {t}) {{\n  ^bb0(%x: f32, %y: f32, %o: f32):\n    {body}\n"
                f"    linalg.yield %r : f32\n  }}")
    return timed_program(step, (t, t, out_t), iters)


def timed_program(step, types, iters):
    """A program whose @step(%a, %b, %c) (arguments of `types`, the body
    `step`) runs once as a warm-up and then `iters` times between two
    rtclock calls; it prints the seconds per call. %a and %b hold 0.5, %c
    starts as 0.5 too."""
    ta, tb, tc = types
    return f"""func.func @step(%a: {ta}, %b: {tb}, %c: {tc}) {{
{step}
  return
}}
func.func private @rtclock() -> f64
func.func @main() {{
  %a = memref.alloc() : {ta}
  %b = memref.alloc() : {tb}
  %c = memref.alloc() : {tc}
  %h = arith.constant 0.5 : f32
  linalg.fill ins(%h : f32) outs(%a : {ta})
  linalg.fill ins(%h : f32) outs(%b : {tb})
  linalg.fill ins(%h : f32) outs(%c : {tc})
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {iters} : index
  func.call @step(%a, %b, %c) : ({ta}, {tb}, {tc}) -> ()
  %t0 = func.call @rtclock() : () -> f64
  scf.for %i = %c0 to %n step %c1 {{
    func.call @step(%a, %b, %c) : ({ta}, {tb}, {tc}) -> ()
  }}
  %t1 = func.call @rtclock() : () -> f64
  %dt = arith.subf %t1, %t0 : f64
  %nf = arith.constant {float(iters)} : f64
  %per = arith.divf %dt, %nf : f64
  vector.print %per : f64
  return
}}
"""


def timed(build, text, scalar, tmp):
    """Seconds per iteration, as the program measures it (one warm-up call,
    then the timed loop: neither compilation nor start-up counts)."""
    path = os.path.join(tmp, "k.mlir")
    with open(path, "w") as f:
        f.write(text)
    if scalar:
        out = subprocess.run([os.path.join(build, "bin", "hp-opt"), path,
                              "--pass-pipeline=builtin.module(func.func(convert-linalg-to-loops))"],
                             capture_output=True, text=True, check=True).stdout
        with open(path, "w") as f:
            f.write(out)
    out = subprocess.run(["taskset", "-c", "0", os.path.join(build, "bin", "hp-runner"), path],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def per_iteration(build, kernel, rows, cols, iters, scalar, tmp):
    """The best of three runs' seconds per iteration of `kernel`."""
    return min(timed(build, program(kernel, rows, cols, iters), scalar, tmp)
               for _ in range(3))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=16)
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    cols = 1000
    rows = args.mb * (1 << 20) // 4 // cols
    size = rows * cols * 4
    moved = {"copy": 2 * size, "chain": 3 * size, "exp": 3 * size, "rowsum": size + rows * 4}
    with tempfile.TemporaryDirectory() as tmp:
        copy = per_iteration(args.build, "copy", rows, cols, args.iters, False, tmp)
        copy_rate = moved["copy"] / copy
        print(f"f32 {rows}x{cols} ({size / 2**20:.0f} MiB per buffer), one core, "
              f"best of 3, {args.iters} iterations")
        print(f"{'kernel':<28}{'ms/iter':>10}{'GB/s':>8}{'x copy/byte':>13}")
        print(f"{'copy (memcpy)':<28}{copy * 1e3:>10.2f}{copy_rate / 1e9:>8.1f}{1.0:>13.2f}")
        for kernel in ("chain", "exp", "rowsum"):
            label = KERNELS.get(kernel, ("sum of rows",))[0]
            for scalar in (False, True):
                t = per_iteration(args.build, kernel, rows, cols, args.iters, scalar, tmp)
                rate = moved[kernel] / t
                name = f"{kernel}{' (scalar loops)' if scalar else ''}"
                print(f"{name:<28}{t * 1e3:>10.2f}{rate / 1e9:>8.1f}{copy_rate / rate:>13.2f}"
                      f"   {label}")


if __name__ == "__main__":
    main()
