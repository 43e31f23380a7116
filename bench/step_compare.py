#!/usr/bin/env python3
"""One forward step: hp against torch DTensor on the same ranks and threads.

Two models of examples/torch/ at the sizes of issue #22 (sequence 256,
hidden 512, 8 heads, MLP 2048, batch 1), on 2 ranks with one thread each:

  * the tensor-parallel MLP (MLP, column/row plan);
  * the Llama-style decoder layer under tensor + sequence parallelism
    (TP_SP_PLAN: sequence-sharded norms, 2 all_gathers, 2 reduce_scatters).

  hp:     hp.torch.export, then hp.torch.time_step: the forward pass
          --steps times in one launch, timed inside the program after a
          warm-up call (neither launch nor compilation counts); best of
          --trials. HP_CPU_THREADS=1.
  torch:  the same module (same weights) under parallelize_module with the
          same plan on 2 gloo processes, torch.set_num_threads(1), --steps
          forward passes after 2 warm-up ones, mean step of the slowest rank.
  single: torch eager on one process, one thread, the same way.

Then the parts: the lowering time of each program (hp-opt --hp-lower-to-cpu,
best of 3; target under 0.5 s); the layer's f32 matmul (256x512 by 512x1024)
in hp against oneDNN's sgemm called directly from C (target at least 0.8x);
an elementwise chain against a copy of the same buffers (bench/elementwise.py;
target within 2x per byte).

Prints the table (ms per step, hp/torch) and writes it to OUT/step_compare.txt
and a bar chart to OUT/step_compare.png (OUT: --out, default build/bench). Run with the python of
scripts/torch-env.sh. A benchmark, never a test: the targets (hp <= torch
TP+SP on the same ranks and threads) are read here, never asserted.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import gloo_ranks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "torch")
WORLD = 2


def cases():
    import torch
    import llama_layer
    import mlp

    def seeded(make, shape):
        torch.manual_seed(0)
        return make(), torch.randn(*shape)

    return [
        ("TP MLP", "colwise/rowwise", lambda: seeded(lambda: mlp.MLP(512, 2048), (256, 512)),
         mlp.PLAN, False),
        ("Llama-style layer", "TP+SP",
         lambda: seeded(lambda: llama_layer.DecoderLayer(512, 8, 8, 2048, 256), (1, 256, 512)),
         llama_layer.TP_SP_PLAN, True),
    ]


def torch_worker(rank, port, result_path, steps):
    dist = gloo_ranks.setup(rank, WORLD, port, EXAMPLES, 120)
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    mesh = init_device_mesh("cpu", (WORLD,), mesh_dim_names=("tp",))
    times = {}
    for name, plan_name, build, plan, seq in cases():
        model, x = build()
        parallelize_module(model, mesh, plan)
        local = x.chunk(WORLD, dim=1)[rank] if seq else x
        with torch.no_grad():
            for _ in range(2):
                model(local)
            dist.barrier()
            start = time.perf_counter()
            for _ in range(steps):
                model(local)
            best = (time.perf_counter() - start) / steps
        # The step is the slowest rank's.
        t = torch.tensor([best])
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times[name] = t.item()
    gloo_ranks.finish(rank, times, result_path)


def torch_times(steps):
    times = gloo_ranks.run(torch_worker, WORLD, 600, steps)
    if "error" in times:
        raise SystemExit(f"step_compare: {times['error']}")
    return times


def lowering_seconds(build, prog, tmp):
    """Best of three wall-clock runs of hp-opt --hp-lower-to-cpu on the
    exported program (parse, partition, lower to LLVM, print)."""
    path = os.path.join(tmp, "lower.mlir")
    prog.save(path)
    best = None
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([os.path.join(build, "bin", "hp-opt"), path, "--hp-lower-to-cpu",
                        "-o", os.devnull], check=True)
        t = time.perf_counter() - start
        best = t if best is None else min(best, t)
    return best


MATMUL = (256, 1024, 512)   # M, N, K: the layer's MLP matmul (issue #22)


def hp_matmul_gflops(build, tmp, iters=50):
    """hp's f32 matmul (linalg.matmul through hp-lower-to-cpu) on one rank,
    one core, timed by the program itself over `iters` calls."""
    import elementwise
    m, n, k = MATMUL
    types = (f"memref<{m}x{k}xf32>", f"memref<{k}x{n}xf32>", f"memref<{m}x{n}xf32>")
    step = (f"  linalg.matmul ins(%a, %b : {types[0]}, {types[1]}) "
            f"outs(%c : {types[2]})")
    text = elementwise.timed_program(step, types, iters)
    best = min(elementwise.timed(build, text, False, tmp) for _ in range(3))
    return 2.0 * m * n * k / best / 1e9


def onednn_gflops(tmp):
    """oneDNN's dnnl_sgemm called directly from C (bench/blas_choice.py's
    program), one thread, at the same size; None if it does not build."""
    import blas_choice
    exe, _ = blas_choice.build("oneDNN", *blas_choice.PROGRAMS["oneDNN"], tmp)
    if not exe:
        return None
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run(["taskset", "-c", "0", exe, "s"], capture_output=True, text=True,
                         env=env, check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and tuple(map(int, parts[:3])) == MATMUL:
            return float(parts[3])
    return None


def chain_against_copy(build, tmp):
    """bench/elementwise.py's chain and copy (16 MiB f32 buffers, one core):
    ms per iteration of each and the chain's time per byte over the copy's."""
    import elementwise
    rows, cols, iters = 4194, 1000, 30
    copy = elementwise.per_iteration(build, "copy", rows, cols, iters, False, tmp)
    chain = elementwise.per_iteration(build, "chain", rows, cols, iters, False, tmp)
    return copy, chain, (chain / 3) / (copy / 2)   # 3 buffers moved against 2


def plot(rows, ttimes, path):
    """Bars of ms per step: hp, torch DTensor and torch on one device."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = [r[0] for r in rows]
    series = [("hp", [r[2] * 1e3 for r in rows]),
              ("torch DTensor (gloo)", [ttimes[n] * 1e3 for n in names]),
              ("torch, 1 device", [r[3] * 1e3 for r in rows])]
    fig, ax = plt.subplots(figsize=(7, 4))
    width = 0.27
    for i, (label, values) in enumerate(series):
        xs = [j + (i - 1) * width for j in range(len(names))]
        ax.bar(xs, values, width, label=label)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names)
    ax.set_ylabel(f"ms per forward step ({WORLD} ranks, 1 thread each)")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    sys.path.insert(0, EXAMPLES)
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    os.environ["HP_CPU_THREADS"] = "1"
    import torch
    import hp
    import hp.torch

    torch.set_num_threads(1)
    mesh = hp.DeviceMesh("tp", [WORLD], mesh_dim_names=("tp",))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, plan_name, build, plan, seq in cases():
            model, x = build()
            io = [[hp.Shard(1)]] if seq else None
            start = time.perf_counter()
            prog = hp.torch.export(model, (x,), mesh, plan=plan, inputs=io, outputs=io)
            export_s = time.perf_counter() - start
            params = dict(model.named_parameters())
            best = None
            for _ in range(args.trials):
                out, step = hp.torch.time_step(prog, (x,), params, steps=args.steps)
                best = step if best is None else min(best, step)
            with torch.no_grad():
                expected = model(x)
                for _ in range(2):
                    model(x)
                s0 = time.perf_counter()
                for _ in range(args.steps):
                    model(x)
                single = (time.perf_counter() - s0) / args.steps
            ok = torch.allclose(out, expected, rtol=1e-4, atol=1e-5)
            rows.append([name, plan_name, best, single, ok, export_s,
                         lowering_seconds(args.build, prog, tmp)])
        hp_gf = hp_matmul_gflops(args.build, tmp)
        dnnl_gf = onednn_gflops(tmp)
        copy, chain, per_byte = chain_against_copy(args.build, tmp)
    ttimes = torch_times(args.steps)

    lines = [f"One forward step on {WORLD} ranks, one thread each (ms; mean of {args.steps} "
             f"steps after warm-up, hp timed inside the program, best of {args.trials})",
             f"{'model':<20}{'plan':<17}{'hp':>9}{'torch DTensor':>15}{'hp/torch':>10}"
             f"{'torch 1 device':>16}{'export s':>10}{'lower s':>9}  numerics"]
    for name, plan_name, hp_s, single, ok, export_s, lower_s in rows:
        tt = ttimes.get(name)
        lines.append(f"{name:<20}{plan_name:<17}{hp_s * 1e3:>9.2f}{tt * 1e3:>15.2f}"
                     f"{hp_s / tt:>10.2f}{single * 1e3:>16.2f}{export_s:>10.1f}{lower_s:>9.2f}  "
                     f"{'matches torch' if ok else 'MISMATCH'}")
    m, n, k = MATMUL
    dnnl = f"{dnnl_gf:.1f}" if dnnl_gf else "not built"
    ratio = f"{hp_gf / dnnl_gf:.2f}" if dnnl_gf else "-"
    lines += ["",
              f"f32 matmul {m}x{k} by {k}x{n}, one core: hp {hp_gf:.1f} GFLOP/s, "
              f"oneDNN sgemm called directly {dnnl} GFLOP/s: {ratio}x",
              f"elementwise chain on 16 MiB f32 buffers, one core: {chain * 1e3:.2f} ms, "
              f"copy {copy * 1e3:.2f} ms: {per_byte:.2f}x the copy's time per byte"]
    text = "\n".join(lines)
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "step_compare.txt"), "w") as f:
        f.write(text + "\n")
    png = os.path.join(args.out, "step_compare.png")
    print(f"wrote {png}" if plot(rows, ttimes, png) else "no matplotlib: no plot")
    return 0 if all(r[4] for r in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
