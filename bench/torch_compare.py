#!/usr/bin/env python3
"""hp vs torch DTensor: the same modules under the same tensor-parallel plans.

For each module of examples/torch/ under the torch plan its main() uses (a
two-layer MLP, column/row; the Llama-style layer under TP and TP + sequence
parallel; transformers' LlamaDecoderLayer under TP; a language-model head
and its loss with the vocabulary split and the logits left as DTensors, where
torch's dispatch all_gathers the logits for log_softmax; a residual MLP block
on a 2 x 2 (dp, tp) mesh), on 4 processes:

  * hp: `hp.torch.export` exactly as the example's main() calls it, and
    `hp.torch.collectives` of the program: its collectives by kind and the
    bytes one rank sends (ring algorithms: all_gather (n-1)/n of its result,
    reduce_scatter and all_to_all (n-1)/n of their operand, all_reduce twice
    that), taken as they are;
  * torch: the same module (same seed, same weights) under
    `parallelize_module(model, mesh["tp"], plan)` on 4 real processes (gloo
    on localhost, torch.multiprocessing spawn), each rank fed what torch
    expects: the whole input for TP (the plans' default use_local_output
    runs the module's own code on local tensors), the rank's Shard(1) chunk
    of the sequence for TP + SP (torchtitan's convention), its half of the
    batch for dp x tp. One forward pass under no_grad: CommDebugMode counts
    the collectives on rank 0, and a TorchDispatchMode records the size and
    group of every functional and c10d collective, priced by the same ring
    formulas with the group size of each call. The output is gathered to
    full and checked against single-device eager (allclose, rtol 1e-4, atol
    1e-5).

A row torch cannot run reads "torch: fails: <reason>". Prints the table,
writes it to OUT/torch_compare.txt and, where matplotlib imports, a bar chart
of bytes per rank (hp vs torch, per row) to OUT/torch_compare.png (OUT:
--out, default build/bench). Exits 1 if hp sends more bytes per rank than
torch on any row (hp <= torch on every row is the target), 2 if an export,
a torch run or torch's numerics check failed. Run it with the python of
scripts/torch-env.sh; hp's Python package comes from BUILD/python (--build,
default build); HP_TORCH_COMPARE_TRACE=1 prints the traceback of each torch
failure. A benchmark, never a test.
"""

import argparse
import os
import sys
import time
import traceback

import gloo_ranks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "torch")
WORLD = 4
KIND_SHORT = [("all_gather", "AG"), ("reduce_scatter", "RS"), ("all_reduce", "AR"),
              ("all_to_all", "A2A"), ("broadcast", "BC"), ("permute", "P"),
              ("shift", "P"), ("send", "S"), ("recv", "R")]
C10D_KINDS = ("all_gather", "reduce_scatter", "all_reduce", "all_to_all", "broadcast")


# ---------------------------------------------------------------------------
# The rows: a module, its input and plan, as the examples' main() have them.
# ---------------------------------------------------------------------------

class Case:
    """One row. `build()` makes (model, x) from seed 0 as the example does;
    `hp_export(hp, model, x)` exports it as its main() does; `plan` and
    `mesh` ((4,) or (2, 2)) are torch's; `seq_parallel`: the layer input and
    output are Shard(1) on "tp"."""

    def __init__(self, key, model, plan_name, mesh, build, hp_export, plan,
                 seq_parallel=False):
        self.key = key
        self.model = model
        self.plan_name = plan_name
        self.mesh = mesh
        self.build = build
        self.hp_export = hp_export
        self.plan = plan
        self.seq_parallel = seq_parallel

    @property
    def ranks(self):
        return "x".join(map(str, self.mesh)) + (" dpxtp" if len(self.mesh) == 2 else "")


def cases():
    """Imports the examples (EXAMPLES must be on sys.path)."""
    import torch
    import dp_tp_mlp
    import hf_llama_layer
    import llama_layer
    import mlp
    import vocab_parallel_loss

    def seeded(make, shape):
        def build():
            torch.manual_seed(0)
            model = make()
            return model, torch.randn(*shape)
        return build

    def seeded_inputs(make, inputs):
        def build():
            torch.manual_seed(0)
            model = make()
            return model, inputs()
        return build

    def tp_mesh(hp):
        return hp.DeviceMesh("tp", [WORLD], mesh_dim_names=("tp",))

    def llama(plan, placement):
        def export(hp, model, x):
            ps = [placement(hp)]
            return hp.torch.export(model, (x,), tp_mesh(hp), plan=plan, inputs=[ps],
                                   outputs=[ps])
        return export

    return [
        Case("mlp", "MLP", "colwise/rowwise", (WORLD,),
             seeded(mlp.MLP, (8, 32)),
             lambda hp, m, x: hp.torch.export(m, (x,), tp_mesh(hp), plan=mlp.PLAN),
             mlp.PLAN),
        Case("llama_tp", "Llama-style layer", "TP", (WORLD,),
             seeded(llama_layer.DecoderLayer, (2, 16, 64)),
             llama(llama_layer.TP_PLAN, lambda hp: hp.Replicate()),
             llama_layer.TP_PLAN),
        Case("llama_tp_sp", "Llama-style layer", "TP+SP", (WORLD,),
             seeded(llama_layer.DecoderLayer, (2, 16, 64)),
             llama(llama_layer.TP_SP_PLAN, lambda hp: hp.Shard(1)),
             llama_layer.TP_SP_PLAN, seq_parallel=True),
        Case("hf_llama", "HF LlamaDecoderLayer", "TP", (WORLD,),
             seeded(hf_llama_layer.make_layer, (2, 16, 64)),
             lambda hp, m, x: hp.torch.export(m, (x,), tp_mesh(hp), plan=hf_llama_layer.PLAN),
             hf_llama_layer.PLAN),
        Case("vocab_loss", "LM head + loss", "vocab-parallel", (WORLD,),
             seeded_inputs(vocab_parallel_loss.HeadLoss, vocab_parallel_loss.make_inputs),
             lambda hp, m, x: hp.torch.export(m, x, tp_mesh(hp), plan=vocab_parallel_loss.PLAN),
             vocab_parallel_loss.PLAN),
        Case("dp_tp", "residual MLP block", "dp + col/row", (2, 2),
             seeded(dp_tp_mlp.Block, (8, 6, 32)),
             lambda hp, m, x: hp.torch.export(
                 m, (x,), hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp")),
                 plan=dp_tp_mlp.PLAN, inputs=[[hp.Shard(0), hp.Replicate()]]),
             dp_tp_mlp.PLAN),
    ]


def kind_of(name):
    """hp's collective kind of a torch or hp op name, or the name."""
    name = name.lower().replace("allgather", "all_gather").replace(
        "allreduce", "all_reduce").replace("alltoall", "all_to_all")
    for kind, _ in KIND_SHORT:
        if kind in name:
            return kind
    return name


def kinds_text(counts):
    """{"all_gather": 2, "reduce_scatter": 2} -> "2 AG + 2 RS"; as many
    sends as receives are pairs: {"send": 12, "recv": 12} -> "12 SR"."""
    order = [k for k, _ in KIND_SHORT]
    short = dict(KIND_SHORT)
    counts = dict(counts)
    if counts.get("send") and counts.get("send") == counts.get("recv"):
        counts.pop("recv")
        short = dict(short, send="SR")
    parts = [f"{n} {short.get(k, k)}" for k, n in
             sorted(counts.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order
                    else len(order)) if n]
    return " + ".join(parts) or "none"


# ---------------------------------------------------------------------------
# torch side: one process per rank, every row in turn.
# ---------------------------------------------------------------------------

def ring_bytes(kind, operand_bytes, n):
    """Bytes one rank sends in a torch collective of `kind` on `n` ranks,
    by hp's own formulas (hp.collective_bytes_sent: an all_gather (n-1)/n of
    its result, n times the operand; reduce_scatter and all_to_all (n-1)/n
    of their operand, all_reduce twice that). Any other kind (a broadcast)
    is charged its operand."""
    import hp
    if kind not in ("all_gather", "all_reduce", "reduce_scatter", "all_to_all"):
        kind = "broadcast"
    result = n * operand_bytes if kind == "all_gather" else operand_bytes
    return hp.collective_bytes_sent(kind, max(n, 1), float(operand_bytes), float(result))


def collective_sizes_mode():
    """A TorchDispatchMode recording (kind, operand bytes, group size) of
    every functional (_c10d_functional, c10d_functional) and c10d collective
    on plain tensors; DTensor ops pass through to DTensor first, as
    CommDebugMode does, so their collectives come back here."""
    from torch.distributed import ProcessGroup
    from torch.distributed.distributed_c10d import _resolve_process_group
    from torch.distributed.tensor import DTensor
    from torch.utils._python_dispatch import TorchDispatchMode

    def group_size(group):
        if isinstance(group, str):
            return _resolve_process_group(group).size()
        return group.size()

    def nbytes(ts):
        if isinstance(ts, (list, tuple)):
            return sum(nbytes(t) for t in ts)
        return ts.numel() * ts.element_size()

    class Mode(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.calls = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if any(issubclass(t, DTensor) for t in types):
                return NotImplemented
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            ns = func.namespace
            op = func._opname
            if ns in ("_c10d_functional", "c10d_functional", "_c10d_functional_autograd"):
                # Group sizes: all_gather and reduce_scatter take theirs,
                # the others a group name last.
                if op.startswith("all_gather"):
                    self.calls.append(("all_gather", nbytes(args[0]), args[1]))
                elif op.startswith("reduce_scatter"):
                    self.calls.append(("reduce_scatter", nbytes(args[0]), args[2]))
                elif op.startswith(("all_reduce", "all_to_all", "broadcast")):
                    self.calls.append((kind_of(op), nbytes(args[0]), group_size(args[-1])))
            elif ns == "c10d" and kind_of(op) in C10D_KINDS:
                # (tensors, group, ...) or (outputs, inputs, group, ...).
                at = next(i for i, a in enumerate(func._schema.arguments)
                          if "ProcessGroup" in str(a.type))
                group = ProcessGroup.unbox(args[at])
                self.calls.append((kind_of(op), nbytes(args[at - 1]), group.size()))
            return out

    return Mode()


def torch_case(case, meshes):
    """Runs one row on this rank; returns its counts and bytes (rank 0's)
    and whether the gathered output matches eager."""
    import torch
    import torch.distributed as dist
    from torch.distributed.tensor import DTensor
    from torch.distributed.tensor.debug import CommDebugMode
    from torch.distributed.tensor.parallel import parallelize_module

    mesh = meshes[case.mesh]
    tp = mesh["tp"] if len(case.mesh) == 2 else mesh
    model, x = case.build()
    args = x if isinstance(x, tuple) else (x,)
    with torch.no_grad():
        expected = model(*args)
    parallelize_module(model, tp, case.plan)

    local = args[0]
    if len(case.mesh) == 2:
        local = local.chunk(case.mesh[0], dim=0)[mesh.get_local_rank("dp")]
    if case.seq_parallel:
        local = local.chunk(tp.size(), dim=1)[tp.get_local_rank()]
    sizes = collective_sizes_mode()
    with torch.no_grad(), CommDebugMode() as comm, sizes:
        out = model(local, *args[1:])
    out = out.full_tensor() if isinstance(out, DTensor) else out

    # The whole output: the sequence back from "tp", the batch from "dp".
    def gather(t, group, dim):
        parts = [torch.empty_like(t) for _ in range(dist.get_world_size(group))]
        dist.all_gather(parts, t.contiguous(), group=group)
        return torch.cat(parts, dim=dim)

    if case.seq_parallel:
        out = gather(out, tp.get_group(), 1)
    if len(case.mesh) == 2:
        out = gather(out, mesh.get_group("dp"), 0)

    counts = {}
    for op, n in comm.get_comm_counts().items():
        kind = kind_of(str(op))
        counts[kind] = counts.get(kind, 0) + n
    recorded = {}
    for kind, _, _ in sizes.calls:
        recorded[kind] = recorded.get(kind, 0) + 1
    return {"counts": counts,
            "bytes": sum(ring_bytes(k, b, n) for k, b, n in sizes.calls),
            "recorded": recorded,
            "ok": bool(torch.allclose(out, expected, rtol=1e-4, atol=1e-5)),
            "max_error": float((out - expected).abs().max())}


def torch_worker(rank, port, result_path, examples):
    """One rank: every row; rank 0 writes {key: result} to result_path."""
    dist = gloo_ranks.setup(rank, WORLD, port, examples, 60)
    from torch.distributed.device_mesh import init_device_mesh

    meshes = {(WORLD,): init_device_mesh("cpu", (WORLD,), mesh_dim_names=("tp",)),
              (2, 2): init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))}
    results = {}
    for case in cases():
        try:
            r = torch_case(case, meshes)
        except Exception as e:  # pylint: disable=broad-except
            line = (str(e).strip().splitlines() or [""])[0]
            r = {"error": f"{type(e).__name__}: {line}"[:200]}
            if os.environ.get("HP_TORCH_COMPARE_TRACE"):
                traceback.print_exc()
        # A failure on any rank fails the row.
        everyone = [None] * WORLD
        dist.all_gather_object(everyone, r.get("error"))
        errors = [f"rank {k}: {e}" for k, e in enumerate(everyone) if e]
        if errors and "error" not in r:
            r = {"error": errors[0]}
        results[case.key] = r
    gloo_ranks.finish(rank, results, result_path)


def run_torch(timeout):
    """Every row's torch result, or {"error": why} for all of them."""
    return gloo_ranks.run(torch_worker, WORLD, timeout, EXAMPLES)


# ---------------------------------------------------------------------------
# The table and chart.
# ---------------------------------------------------------------------------

def fmt_bytes(b):
    return "n/a" if b is None else f"{b:,.0f}"


def chart(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("torch_compare: matplotlib does not import; no chart")
        return
    labels = [f"{r['case'].model}\n{r['case'].plan_name}" for r in rows]
    xs = range(len(rows))
    width = 0.38
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for i, (side, label) in enumerate([("hp", "hp (hp.torch.export)"),
                                       ("torch", "torch DTensor (parallelize_module)")]):
        pts = [(x, r[side]["bytes"]) for x, r in zip(xs, rows)
               if "error" not in r[side] and r[side]["bytes"] is not None]
        ax.bar([x + (i - 0.5) * width for x, _ in pts], [b / 1024 for _, b in pts], width,
               label=label)
    top = max([r[s]["bytes"] or 0 for r in rows for s in ("hp", "torch")
               if "error" not in r[s]] + [1024])
    ax.set_ylim(top=top / 1024 * 1.25)
    ax.set_xticks(list(xs), labels, fontsize=8)
    ax.set_ylabel("KiB sent per rank, one forward (ring)")
    ax.set_title("Same module, same torch plan, 4 ranks: hp vs torch DTensor "
                 "(absent bar: failed)")
    ax.legend(fontsize=8, ncol=2, loc="upper center")
    fig.tight_layout()
    path = os.path.join(out, "torch_compare.png")
    fig.savefig(path, dpi=120)
    print(f"chart: {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="hp's build directory; its python/ holds the hp package")
    parser.add_argument("--out", default=None,
                        help="directory for torch_compare.txt/.png (default BUILD/bench)")
    parser.add_argument("--timeout", type=float, default=600,
                        help="seconds the torch ranks may take, all rows together")
    args = parser.parse_args()
    args.out = args.out or os.path.join(args.build, "bench")
    os.makedirs(args.out, exist_ok=True)
    sys.path[:0] = [os.path.join(args.build, "python"), EXAMPLES]
    start = time.time()
    try:
        import torch
        import hp
        import hp.torch
    except ImportError as e:
        print(f"torch_compare: {e}: run with the python of scripts/torch-env.sh "
              f"and hp built in {args.build}", file=sys.stderr)
        return 2

    # hp: export as each example does, count what @forward moves.
    rows = []
    for case in cases():
        model, x = case.build()
        try:
            rows.append({"case": case, "hp": hp.torch.collectives(case.hp_export(hp, model, x))})
        except Exception as e:  # pylint: disable=broad-except
            line = (str(e).strip().splitlines() or [""])[0]
            rows.append({"case": case, "hp": {"error": f"{type(e).__name__}: {line}"[:200]}})
    hp_time = time.time() - start

    t0 = time.time()
    results = run_torch(args.timeout)
    torch_time = time.time() - t0
    for r in rows:
        r["torch"] = results.get(r["case"].key, {"error": results.get("error", "no result")})

    out_lines = []

    def emit(line=""):
        print(line)
        out_lines.append(line)

    head = (f"{'model':21} {'plan':15} {'ranks':9} {'hp collectives':15} {'hp B/rank':>10}  "
            f"{'torch collectives':17} {'torch B/rank':>12} {'hp/torch':>8}  torch ok")
    emit(f"hp vs torch {torch.__version__} DTensor, one forward pass, bytes one rank "
         "sends (ring formulas)")
    emit(head)
    emit("-" * len(head))
    problems = []
    for r in rows:
        c, h, t = r["case"], r["hp"], r["torch"]
        line = f"{c.model:21} {c.plan_name:15} {c.ranks:9} "
        if "error" in h:
            problems.append(f"{c.key}: hp: fails: {h['error']}")
            line += f"{'hp: fails':15} {'':>10}  "
        else:
            line += f"{kinds_text(h['counts']):15} {fmt_bytes(h['bytes']):>10}  "
        if "error" in t:
            problems.append(f"{c.key}: torch: fails: {t['error']}")
            emit(line + "torch: fails: " + t["error"])
            continue
        ratio = "n/a"
        if "error" not in h and h["bytes"] is not None:
            ratio = f"{h['bytes'] / t['bytes']:.2f}" if t["bytes"] else \
                ("1.00" if not h["bytes"] else "inf")
            if h["bytes"] > t["bytes"] * (1 + 1e-9) + 1e-6:
                problems.append(f"{c.key}: hp {h['bytes']:g} B > torch {t['bytes']:g} B")
        if not t["ok"]:
            problems.append(f"{c.key}: torch output differs from eager "
                            f"(max error {t['max_error']:.2e})")
        if t["recorded"] != t["counts"]:
            problems.append(f"{c.key}: CommDebugMode counted {kinds_text(t['counts'])}, "
                            f"sizes recorded for {kinds_text(t['recorded'])}")
        emit(line + f"{kinds_text(t['counts']):17} {fmt_bytes(t['bytes']):>12} {ratio:>8}  "
             f"{'yes' if t['ok'] else 'NO'} ({t['max_error']:.1e})")
    emit()
    emit(f"hp export + count: {hp_time:.1f} s; torch, {WORLD} gloo ranks, all rows "
         f"(spawn, imports, init included): {torch_time:.1f} s")
    for p in problems:
        emit("PROBLEM: " + p)
    with open(os.path.join(args.out, "torch_compare.txt"), "w") as f:
        f.write("\n".join(out_lines) + "\n")
    print(f"table: {os.path.join(args.out, 'torch_compare.txt')}")
    chart(rows, args.out)
    worse = [p for p in problems if "> torch" in p]
    return 1 if worse else 2 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
