#!/usr/bin/env python3
"""Training steps: hp.torch.Trainer against torch's own parallel training on
the same 4 ranks, same model, same batches, AdamW.

Two models: the Llama-style layer of examples/torch/ (hidden 256, 8 heads,
4 key/value heads, MLP 512, sequence 64, batch 8, mean squared error) and a
tiny LlamaForCausalLM (examples/torch/hf_causal_lm.py: hidden 64, 2 layers,
vocabulary 128; sequence 16, batch 8, next-token cross-entropy). Four
configurations each:

  tp4       torch: parallelize_module with the column/row plan on 4 ranks;
            hp: the same plan.
  ddp4      torch: DistributedDataParallel, the batch split 4 ways;
            hp: the batch split, parameters replicated.
  fsdp4     torch: FSDP2 (fully_shard on each layer and the model);
            hp: fsdp="dp" (parameters split by rows).
  fsdp2tp2  torch: the plan on "tp", FSDP2 on "dp" (2 x 2);
            hp: the plan on "tp", fsdp="dp".

Bytes: what one rank sends per step (ring formulas: an all_gather (n-1)
times its operand, a reduce_scatter (n-1)/n of its operand, an all_reduce
twice that), for hp from the program (Trainer.collectives), for torch
every collective a step issues (DTensor's and FSDP2's through a dispatch
mode, DDP's buckets through a comm hook). Step: ms per step after two
warm-up steps, the slowest rank, one thread per rank (hp: the client's
round trip, inputs in, loss out). Memory: peak resident MiB of the largest
rank (torch's ranks hold a Python interpreter and torch; hp's the compiled
program). Loss: the largest relative difference of hp's loss from torch's
over the steps.

Prints the table and writes it to OUT/train_compare.txt (OUT: --out,
default build/bench). Run with the python of scripts/torch-env.sh. A
benchmark, never a test (python/torch_tests/test_training.py checks the
numbers): the target (hp's bytes at most torch's) is printed as PROBLEM
lines; exit 1 if a loss differs from torch's by more than 1e-4.
"""
import argparse
import copy
import os
import resource
import sys
import time

import gloo_ranks
import torch_compare

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "torch")
WORLD = 4
CONFIGS = ("tp4", "ddp4", "fsdp4", "fsdp2tp2")
MODELS = ("layer", "causal_lm")


def case(name):
    """(model, loss_fn, batches, plan, layers) for ``name``, seeded: the
    same on every rank and in hp's process."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(0)
    if name == "layer":
        import llama_layer
        model = llama_layer.DecoderLayer(256, 8, 4, 512, 64)
        batches = [(torch.randn(8, 64, 256), torch.randn(8, 64, 256)) for _ in range(STEPS)]
        return model, lambda out, y: F.mse_loss(out, y), batches, llama_layer.TP_PLAN, []
    import hf_causal_lm
    model = hf_causal_lm.make_model("llama").train()
    ids = [torch.randint(0, hf_causal_lm.VOCAB, (8, 17)) for _ in range(STEPS)]
    batches = [(i[:, :-1].contiguous(), i[:, 1:].contiguous()) for i in ids]
    plan = hf_causal_lm.causal_lm_plan()

    def loss_fn(out, labels):
        logits = out.logits
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))

    return model, loss_fn, batches, plan, list(model.model.layers)


STEPS = 8


# ---------------------------------------------------------------------------
# torch: one process per rank, every row in turn.
# ---------------------------------------------------------------------------

def torch_row(model_name, config, meshes, dist):
    import torch
    from torch.distributed.fsdp import fully_shard
    from torch.distributed.tensor.parallel import parallelize_module
    from torch.nn.parallel import DistributedDataParallel

    model, loss_fn, batches, plan, layers = case(model_name)  # layers: FSDP2's units
    rank = dist.get_rank()
    dp_rank, dp = 0, 1
    if config == "tp4":
        parallelize_module(model, meshes["tp4"], plan)
    elif config == "ddp4":
        # The buffers (rotary tables) never change: no broadcast per step.
        model = DistributedDataParallel(model, broadcast_buffers=False)

        # DDP's own all_reduce runs in C++, where the dispatch mode cannot
        # see it; the same all_reduce from Python can be seen.
        def hook(state, bucket):
            fut = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
            return fut.then(lambda f: f.value()[0].div_(WORLD))

        model.register_comm_hook(None, hook)
        dp_rank, dp = rank, WORLD
    elif config == "fsdp4":
        for layer in layers:
            fully_shard(layer, mesh=meshes["fsdp4"])
        fully_shard(model, mesh=meshes["fsdp4"])
        dp_rank, dp = rank, WORLD
    else:
        mesh = meshes["fsdp2tp2"]
        parallelize_module(model, mesh["tp"], plan)
        for layer in layers:
            fully_shard(layer, mesh=mesh["dp"])
        fully_shard(model, mesh=mesh["dp"])
        dp_rank, dp = mesh.get_local_rank("dp"), 2
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    losses, times, sizes_of_step = [], [], None
    for i, (x, y) in enumerate(batches):
        x, y = x.chunk(dp, 0)[dp_rank], y.chunk(dp, 0)[dp_rank]
        sizes = torch_compare.collective_sizes_mode()
        dist.barrier()
        start = time.perf_counter()
        with sizes:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - start)
        # The mean over the batch: every data-parallel group's loss, counted
        # once per rank of its group.
        total = loss.detach().clone()
        dist.all_reduce(total)
        losses.append(total.item() / WORLD)
        if i == 1:
            sizes_of_step = sizes.calls
    step = torch.tensor([sum(times[2:]) / max(1, len(times) - 2)])
    dist.all_reduce(step, op=dist.ReduceOp.MAX)
    peak = torch.tensor([resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0])
    dist.all_reduce(peak, op=dist.ReduceOp.MAX)
    counts = {}
    for kind, _, n in sizes_of_step:
        if n > 1:
            counts[kind] = counts.get(kind, 0) + 1
    return {"losses": losses, "step": step.item(), "peak": peak.item(), "counts": counts,
            "bytes": sum(torch_compare.ring_bytes(k, b, n) for k, b, n in sizes_of_step)}


def torch_worker(rank, port, result_path):
    dist = gloo_ranks.setup(rank, WORLD, port, EXAMPLES, 600)
    import warnings
    warnings.filterwarnings("ignore")
    from torch.distributed.device_mesh import init_device_mesh
    meshes = {"tp4": init_device_mesh("cpu", (WORLD,), mesh_dim_names=("tp",)),
              "fsdp4": init_device_mesh("cpu", (WORLD,), mesh_dim_names=("dp",)),
              "fsdp2tp2": init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))}
    results = {}
    for model_name in MODELS:
        for config in CONFIGS:
            key = f"{model_name}/{config}"
            try:
                results[key] = torch_row(model_name, config, meshes, dist)
            except Exception as e:  # pylint: disable=broad-except
                line = (str(e).strip().splitlines() or [""])[0]
                results[key] = {"error": f"{type(e).__name__}: {line}"[:200]}
    gloo_ranks.finish(rank, results, result_path)


# ---------------------------------------------------------------------------
# hp
# ---------------------------------------------------------------------------

def hp_row(hp, model_name, config):
    import torch
    model, loss_fn, batches, plan, _ = case(model_name)
    if config == "tp4":
        mesh = hp.DeviceMesh("m", [WORLD], mesh_dim_names=("tp",))
        kw = dict(plan=plan)
    elif config in ("ddp4", "fsdp4"):
        mesh = hp.DeviceMesh("m", [WORLD], mesh_dim_names=("dp",))
        kw = dict(inputs=[[hp.Shard(0)]], fsdp="dp" if config == "fsdp4" else None)
    else:
        mesh = hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp"))
        kw = dict(plan=plan, plan_dim="tp", inputs=[[hp.Shard(0), hp.Replicate()]], fsdp="dp")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    start = time.time()
    with hp.torch.Trainer(model, loss_fn, (batches[0][0],), (batches[0][1],), mesh,
                          optimizer=opt, **kw) as tr:
        build = time.time() - start
        losses, times = [], []
        for x, y in batches:
            t0 = time.perf_counter()
            losses.append(tr.step((x,), (y,)))
            times.append(time.perf_counter() - t0)
        moved = tr.collectives()
        peak = max(tr.peak_memory())
    return {"losses": losses, "step": sum(times[2:]) / max(1, len(times) - 2), "peak": peak,
            "counts": moved["counts"], "bytes": moved["bytes"], "build": build}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    args.out = args.out or os.path.join(args.build, "bench")
    os.makedirs(args.out, exist_ok=True)
    sys.path[:0] = [os.path.join(args.build, "python"), EXAMPLES]
    os.environ["HP_CPU_THREADS"] = "1"
    try:
        import torch
        import hp
        import hp.torch
    except ImportError as e:
        print(f"train_compare: {e}: run with the python of scripts/torch-env.sh and hp built "
              f"in {args.build}", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    import warnings
    warnings.filterwarnings("ignore")

    hp_results = {}
    for model_name in MODELS:
        for config in CONFIGS:
            try:
                hp_results[f"{model_name}/{config}"] = hp_row(hp, model_name, config)
            except Exception as e:  # pylint: disable=broad-except
                hp_results[f"{model_name}/{config}"] = {
                    "fails": f"{type(e).__name__}: {str(e).splitlines()[0]}"[:200]}
    torch_results = gloo_ranks.run(torch_worker, WORLD, 1800)

    lines = []

    def emit(line=""):
        print(line)
        lines.append(line)

    kinds = torch_compare.kinds_text
    emit(f"hp.torch.Trainer vs torch {torch.__version__} (TP, DDP, FSDP2, FSDP2 + TP) on "
         f"{WORLD} gloo ranks, AdamW, {STEPS} steps; bytes one rank sends per step (ring); "
         "ms per step (one thread per rank); peak MiB of the largest rank")
    head = (f"{'model/config':20} {'hp':22} {'hp B':>9} {'torch':22} {'torch B':>9} "
            f"{'B ratio':>7} {'hp ms':>7} {'torch ms':>8} {'hp MiB':>7} {'torch MiB':>9} "
            f"{'loss diff':>9}")
    emit(head)
    emit("-" * len(head))
    problems, wrong = [], False
    for model_name in MODELS:
        for config in CONFIGS:
            key = f"{model_name}/{config}"
            h = hp_results[key]
            t = torch_results.get(key, {"error": torch_results.get("error", "no result")})
            if "fails" in h:
                problems.append(f"{key}: hp fails: {h['fails']}")
                emit(f"{key:20} hp fails: {h['fails']}")
                wrong = True
                continue
            if "error" in t:
                emit(f"{key:20} {kinds(h['counts']):22} {h['bytes']:9,.0f} torch fails: "
                     f"{t['error']}")
                continue
            diff = max(abs(a - b) / abs(b) for a, b in zip(h["losses"], t["losses"]))
            ratio = h["bytes"] / t["bytes"] if t["bytes"] else float("inf")
            emit(f"{key:20} {kinds(h['counts']):22} {h['bytes']:9,.0f} "
                 f"{kinds(t['counts']):22} {t['bytes']:9,.0f} {ratio:7.2f} "
                 f"{h['step'] * 1e3:7.1f} {t['step'] * 1e3:8.1f} "
                 f"{h['peak'] / 2**20:7.0f} {t['peak'] / 2**20:9.0f} {diff:9.1e}")
            if diff > 1e-4:
                problems.append(f"{key}: hp's loss differs from torch's by {diff:.1e}")
                wrong = True
            if h["bytes"] > t["bytes"]:
                problems.append(f"{key}: hp sends {ratio:.2f}x torch's bytes")
    for p in problems:
        emit(f"PROBLEM: {p}")
    with open(os.path.join(args.out, "train_compare.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
