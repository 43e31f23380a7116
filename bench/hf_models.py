#!/usr/bin/env python3
"""Whole transformers models, hp against torch DTensor under the same plan.

Each row is a model of examples/torch/hf_causal_lm.py as transformers builds
it (tiny random config, default SDPA attention, the library's own masks; an
``attention_mask`` whose second sequence is right-padded) under torch's
tensor-parallel plan for its layers (q/k/v and gate/up column-wise, o and
down row-wise; Bert's query/key/value/intermediate column-wise, the output
denses row-wise), on 4 ranks: 1-D tp, and Llama on 2 x 2 dp x tp with the
batch split over dp. Then an 8192 x 64 nn.Embedding under torch's rowwise
(vocabulary-parallel) and colwise styles; GPT2LMHeadModel under column- and
row-wise styles on its Conv1D layers; Mixtral and Qwen2-MoE with their
expert weights split by expert (Shard(0)), the rest replicated. torch's
styles cannot run the last three (Conv1D, 3-D expert weights): hp's side
only, the reason printed.

  hp:     hp.torch.export (seconds; ops its remarks say run replicated),
          hp.torch.collectives (kinds, bytes one rank sends, ring formulas),
          hp.torch.run on 4 ranks (max |hp - eager|), hp.torch.time_step
          (the forward --steps times in one launch, timed in the program,
          HP_CPU_THREADS=1).
  torch:  the same model (same seed, same weights) under parallelize_module
          with the same plan on 4 gloo processes, one thread each: collectives
          by CommDebugMode and their sizes by bench/torch_compare.py's dispatch
          mode (same ring formulas), then --steps forward passes after 2
          warm-up ones, mean step of the slowest rank.

Prints the table and writes it to OUT/hf_models.txt (OUT: --out, default
build/bench). Run with the python of scripts/torch-env.sh. A benchmark,
never a test: the targets (hp's bytes at most torch's, no op replicated,
numbers within 1e-5) are printed as PROBLEM lines, never asserted; exit 1
if any is missed.
"""
import argparse
import os
import sys
import time
import warnings

import gloo_ranks
import torch_compare

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "torch")
WORLD = 4


def rows():
    """(key, label, mesh shape, build, torch_note) where build() gives
    (model, args, plan, params) from seed 0; plan keys are paths in the
    model, params hp placements of named parameters (None: the plan's).
    torch_note says why torch's styles cannot run the row (None: they can)."""
    import hf_causal_lm as h
    import torch
    from torch import nn
    from torch.distributed.tensor import Replicate
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

    def causal(name):
        def build():
            torch.manual_seed(0)
            model = h.Logits(h.make_model(name))
            return model, h.make_inputs(with_mask=True), h.plan_for(model), None
        return build

    def bert():
        torch.manual_seed(0)
        return h.make_bert(), h.make_inputs(with_mask=True), h.BERT_PLAN, None

    def embedding(style):
        # An 8192 x 64 table looked up by 2 x 16 ids, torch's two styles.
        def build():
            torch.manual_seed(0)
            model = nn.Sequential(nn.Embedding(8192, 64))
            return model, (torch.randint(0, 8192, (2, 16)),), {"0": style}, None
        return build

    def gpt2():
        torch.manual_seed(0)
        return (h.Logits(h.make_gpt2()), h.make_inputs(with_mask=True), h.GPT2_PLAN, None)

    def moe(name):
        def build():
            import hp
            model = h.Logits(h.make_moe(name))
            args = h.make_inputs(with_mask=True)
            experts = {n: [hp.Shard(0)] for n, _ in model.named_parameters()
                       if ".experts." in n}
            return model, args, None, experts
        return build

    no_torch_moe = ("torch's styles split no 3-D expert weight (transformers' own "
                    "MoE plans need its distributed loading)")
    return [("llama", "LlamaForCausalLM", (WORLD,), causal("llama"), None),
            ("mistral", "MistralForCausalLM", (WORLD,), causal("mistral"), None),
            ("qwen2", "Qwen2ForCausalLM", (WORLD,), causal("qwen2"), None),
            ("bert", "BertModel", (WORLD,), bert, None),
            ("llama_dp_tp", "LlamaForCausalLM", (2, 2), causal("llama"), None),
            ("embed_rows", "Embedding, rowwise", (WORLD,),
             embedding(RowwiseParallel(input_layouts=Replicate())), None),
            ("embed_cols", "Embedding, colwise", (WORLD,),
             embedding(ColwiseParallel(output_layouts=Replicate())), None),
            ("gpt2", "GPT2LMHeadModel", (WORLD,), gpt2,
             "torch's Colwise/Rowwise take nn.Linear and nn.Embedding, not GPT-2's Conv1D"),
            ("mixtral", "Mixtral (EP)", (WORLD,), moe("mixtral"), no_torch_moe),
            ("qwen2_moe", "Qwen2-MoE (EP)", (WORLD,), moe("qwen2_moe"), no_torch_moe)]


def torch_worker(rank, port, result_path, steps):
    dist = gloo_ranks.setup(rank, WORLD, port, EXAMPLES, 300)
    # CommDebugMode's module hooks warn about transformers' output classes.
    warnings.filterwarnings("ignore", message="For backward hooks to be called")
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.debug import CommDebugMode
    from torch.distributed.tensor.parallel import parallelize_module

    meshes = {(WORLD,): init_device_mesh("cpu", (WORLD,), mesh_dim_names=("tp",)),
              (2, 2): init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))}
    results = {}
    for key, _, shape, build, note in rows():
        if note:
            continue
        try:
            mesh = meshes[shape]
            model, args, plan, _ = build()
            parallelize_module(model, mesh["tp"] if len(shape) == 2 else mesh, plan)
            if len(shape) == 2:
                args = tuple(a.chunk(shape[0], 0)[mesh.get_local_rank("dp")] for a in args)
            sizes = torch_compare.collective_sizes_mode()
            with torch.no_grad(), CommDebugMode() as comm, sizes:
                model(*args)
            counts = {}
            for op, n in comm.get_comm_counts().items():
                kind = torch_compare.kind_of(str(op))
                counts[kind] = counts.get(kind, 0) + n
            with torch.no_grad():
                for _ in range(2):
                    model(*args)
                dist.barrier()
                start = time.perf_counter()
                for _ in range(steps):
                    model(*args)
                step = (time.perf_counter() - start) / steps
            t = torch.tensor([step])
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            results[key] = {"counts": counts, "step": t.item(),
                            "bytes": sum(torch_compare.ring_bytes(k, b, n)
                                         for k, b, n in sizes.calls)}
        except Exception as e:  # pylint: disable=broad-except
            line = (str(e).strip().splitlines() or [""])[0]
            results[key] = {"error": f"{type(e).__name__}: {line}"[:200]}
    gloo_ranks.finish(rank, results, result_path)


def hp_row(hp, shape, build, steps):
    import torch
    model, args, plan, params = build()
    if len(shape) == 2:
        mesh = hp.DeviceMesh("m", list(shape), mesh_dim_names=("dp", "tp"))
        inputs = [[hp.Shard(0), hp.Replicate()]] * len(args)
    else:
        mesh = hp.DeviceMesh("tp", list(shape), mesh_dim_names=("tp",))
        inputs = None
    start = time.time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prog = hp.torch.export(model, args, mesh, plan=plan, inputs=inputs, params=params)
    seconds = time.time() - start
    values = dict(model.named_parameters(remove_duplicate=False))
    out, step = hp.torch.time_step(prog, args, values, steps=steps)
    with torch.no_grad():
        error = (out - model(*args)).abs().max().item()
    moved = hp.torch.collectives(prog)
    return {"export": seconds, "replicated": sum(r.kind == "runs-replicated" for r in prog.remarks),
            "error": error, "counts": moved["counts"], "bytes": moved["bytes"], "step": step}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=None)
    parser.add_argument("--steps", type=int, default=20)
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
        print(f"hf_models: {e}: run with the python of scripts/torch-env.sh and hp built "
              f"in {args.build}", file=sys.stderr)
        return 2

    hp_results = {}
    for key, _, shape, build, _ in rows():
        try:
            hp_results[key] = hp_row(hp, shape, build, args.steps)
        except Exception as e:  # pylint: disable=broad-except
            hp_results[key] = {"fails": f"{type(e).__name__}: {str(e).splitlines()[0]}"[:200]}
    torch_results = gloo_ranks.run(torch_worker, WORLD, 900, args.steps)

    lines = []

    def emit(line=""):
        print(line)
        lines.append(line)

    kinds = torch_compare.kinds_text
    emit(f"hp vs torch {torch.__version__} DTensor, same model and plan, {WORLD} ranks, one "
         "forward; bytes one rank sends (ring); step: ms, one thread per rank")
    head = (f"{'model':19} {'ranks':5} {'export s':>8} {'repl':>4} {'max|diff|':>9}  "
            f"{'hp':12} {'hp B/rank':>10}  {'torch':12} {'torch B/rank':>12} {'B ratio':>7}  "
            f"{'hp ms':>7} {'torch ms':>8} {'ratio':>6}")
    emit(head)
    emit("-" * len(head))
    problems = []
    for key, label, shape, _, note in rows():
        h = hp_results[key]
        t = torch_results.get(key, {"error": torch_results.get("error", "no result")})
        ranks = "x".join(map(str, shape))
        if "fails" in h:
            problems.append(f"{key}: hp fails: {h['fails']}")
            emit(f"{label:19} {ranks:5} hp fails: {h['fails']}")
            continue
        line = (f"{label:19} {ranks:5} {h['export']:8.1f} {h['replicated']:4d} "
                f"{h['error']:9.1e}  {kinds(h['counts']):12} {h['bytes']:10,.0f}  ")
        if h["replicated"]:
            problems.append(f"{key}: {h['replicated']} ops run replicated")
        if not h["error"] <= 1e-5:
            problems.append(f"{key}: hp differs from eager by {h['error']:.1e}")
        if note:
            emit(line + f"torch n/a: {note}")
            continue
        if "error" in t:
            problems.append(f"{key}: torch fails: {t['error']}")
            emit(line + f"torch fails: {t['error']}")
            continue
        if h["bytes"] > t["bytes"] * (1 + 1e-9) + 1e-6:
            problems.append(f"{key}: hp {h['bytes']:g} B > torch {t['bytes']:g} B")
        ratio = f"{h['bytes'] / t['bytes']:.2f}" if t["bytes"] else \
            ("1.00" if not h["bytes"] else "inf")
        emit(line + f"{kinds(t['counts']):12} {t['bytes']:12,.0f} {ratio:>7}  "
             f"{h['step'] * 1e3:7.2f} {t['step'] * 1e3:8.2f} {h['step'] / t['step']:6.2f}")
    emit()
    for p in problems:
        emit("PROBLEM: " + p)
    with open(os.path.join(args.out, "hf_models.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"table: {os.path.join(args.out, 'hf_models.txt')}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
