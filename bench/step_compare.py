#!/usr/bin/env python3
"""One forward step: hp against torch DTensor on the same ranks and threads.

Two models of examples/torch/ at the sizes of issue #22 (sequence 256,
hidden 512, 8 heads, MLP 2048, batch 1), on 2 ranks with one thread each:

  * the tensor-parallel MLP (MLP, column/row plan);
  * the Llama-style decoder layer under tensor + sequence parallelism
    (TP_SP_PLAN: sequence-sharded norms, 2 all_gathers, 2 reduce_scatters).

  hp:     hp.torch.export, then hp.torch.run with the forward pass repeated
          --steps times in one launch and once; the difference over
          (steps - 1) is one step (compilation and start-up cancel); best of
          --trials. HP_CPU_THREADS=1.
  torch:  the same module (same weights) under parallelize_module with the
          same plan on 2 gloo processes, torch.set_num_threads(1), the same
          number of timed forward passes after 2 warm-up ones; best step.
  single: torch eager on one process, one thread.

Prints the table (ms per step, hp/torch) and writes it to OUT/step_compare.txt
(OUT: --out, default build/bench). Run with the python of
scripts/torch-env.sh. A benchmark, never a test: the targets (hp <= torch
TP+SP on the same ranks and threads) are read here, never asserted.
"""
import argparse
import datetime
import os
import socket
import sys
import tempfile
import time

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


def torch_worker(rank, port, steps, result_path):
    sys.path.insert(0, EXAMPLES)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=120))
    mesh = init_device_mesh("cpu", (WORLD,), mesh_dim_names=("tp",))
    times = {}
    for name, plan_name, build, plan, seq in cases():
        model, x = build()
        parallelize_module(model, mesh, plan)
        local = x.chunk(WORLD, dim=1)[rank] if seq else x
        best = None
        with torch.no_grad():
            for i in range(steps + 2):
                dist.barrier()
                start = time.perf_counter()
                model(local)
                elapsed = time.perf_counter() - start
                if i >= 2:
                    best = elapsed if best is None else min(best, elapsed)
        # The step is the slowest rank's.
        t = torch.tensor([best])
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times[name] = t.item()
    if rank == 0:
        with open(result_path, "w") as f:
            f.write(repr(times))
    dist.destroy_process_group()


def torch_times(steps):
    import torch.multiprocessing as mp
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "times")
        mp.spawn(torch_worker, args=(port, steps, path), nprocs=WORLD)
        with open(path) as f:
            return eval(f.read())  # noqa: S307 (our own repr of a dict of floats)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    sys.path.insert(0, EXAMPLES)
    os.environ["HP_CPU_THREADS"] = "1"
    import torch
    import hp
    import hp.torch

    torch.set_num_threads(1)
    mesh = hp.DeviceMesh("tp", [WORLD], mesh_dim_names=("tp",))
    rows = []
    for name, plan_name, build, plan, seq in cases():
        model, x = build()
        io = [[hp.Shard(1)]] if seq else None
        start = time.perf_counter()
        prog = hp.torch.export(model, (x,), mesh, plan=plan, inputs=io, outputs=io)
        export_s = time.perf_counter() - start
        params = dict(model.named_parameters())
        best = None
        for _ in range(args.trials):
            t0 = time.perf_counter()
            out = hp.torch.run(prog, (x,), params, repeat=args.steps)
            t1 = time.perf_counter()
            hp.torch.run(prog, (x,), params, repeat=1)
            t2 = time.perf_counter()
            step = ((t1 - t0) - (t2 - t1)) / (args.steps - 1)
            best = step if best is None else min(best, step)
        with torch.no_grad():
            expected = model(x)
            single = None
            for i in range(args.steps + 2):
                s0 = time.perf_counter()
                model(x)
                if i >= 2:
                    single = min(single or 1e9, time.perf_counter() - s0)
        ok = torch.allclose(out, expected, rtol=1e-4, atol=1e-5)
        rows.append([name, plan_name, best, single, ok, export_s, hp.torch.collectives(prog)])
    ttimes = torch_times(args.steps)

    lines = [f"One forward step on {WORLD} ranks, one thread each (ms; best of "
             f"{args.trials} hp trials of {args.steps} steps, torch best of {args.steps})",
             f"{'model':<20}{'plan':<17}{'hp':>9}{'torch DTensor':>15}{'hp/torch':>10}"
             f"{'torch 1 device':>16}{'export s':>10}  numerics"]
    for name, plan_name, hp_s, single, ok, export_s, moved in rows:
        tt = ttimes.get(name)
        lines.append(f"{name:<20}{plan_name:<17}{hp_s * 1e3:>9.2f}{tt * 1e3:>15.2f}"
                     f"{hp_s / tt:>10.2f}{single * 1e3:>16.2f}{export_s:>10.1f}  "
                     f"{'matches torch' if ok else 'MISMATCH'}")
    text = "\n".join(lines)
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "step_compare.txt"), "w") as f:
        f.write(text + "\n")
    return 0 if all(r[4] for r in rows) else 2


if __name__ == "__main__":
    sys.exit(main())
