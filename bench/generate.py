#!/usr/bin/env python3
"""Greedy decoding on 4 ranks: hp.torch.Generator against transformers'
model.generate under torch's tensor-parallel plan on the same ranks.

A LlamaForCausalLM (hidden 256, 4 layers, 8 heads and 4 key/value heads,
MLP 1024, vocabulary 4096: 30 MiB of f32 weights; nothing downloaded),
one prompt of --prompt tokens, --new new tokens:

  hp:     hp.torch.Generator: compiled, launched and loaded once (from a
          safetensors checkpoint read in place), with a prefill entry for
          the prompt, warmed up by a one-token request, then the request
          timed by the client (the prompt in one prefill step, then a
          decode step per token); peak memory per rank from the session
          (the compiled program included).
  torch:  the same model (same seed, same weights) under parallelize_module
          with the same plan on 4 gloo processes, one thread each,
          model.generate(do_sample=False) after one warm-up request, timed
          on the slowest rank; peak memory per rank (ru_maxrss).

Both must produce transformers' own single-device tokens. Prints the table
(tokens per second, peak MiB per rank, the model's size) and writes it to
OUT/generate.txt (OUT: --out, default build/bench). Run with the python of
scripts/torch-env.sh. A benchmark, never a test: exit 1 if either side's
tokens differ from single-device transformers'.
"""
import argparse
import os
import resource
import sys
import tempfile
import time

import gloo_ranks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "torch")
WORLD = 4


def build():
    import torch
    import transformers
    torch.manual_seed(0)
    config = transformers.LlamaConfig(hidden_size=256, intermediate_size=1024,
                                      num_attention_heads=8, num_key_value_heads=4,
                                      num_hidden_layers=4, vocab_size=4096,
                                      max_position_embeddings=512)
    model = transformers.LlamaForCausalLM(config).eval()
    # Every token decoded on both sides: a random model may emit its
    # end-of-sequence token early.
    model.generation_config.eos_token_id = None
    return model


def prompt(length):
    import torch
    torch.manual_seed(1)
    return torch.randint(0, 4096, (1, length))


def plan_for(model):
    import hf_causal_lm
    plan = hf_causal_lm.plan_for(hf_causal_lm.Logits(model))
    return {k[len("model."):]: v for k, v in plan.items()}


def torch_worker(rank, port, result_path, length, new):
    dist = gloo_ranks.setup(rank, WORLD, port, EXAMPLES, 600)
    import torch
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    mesh = init_device_mesh("cpu", (WORLD,), mesh_dim_names=("tp",))
    model = build()
    parallelize_module(model, mesh, plan_for(model))
    ids = prompt(length)
    kwargs = dict(attention_mask=torch.ones_like(ids), do_sample=False,
                  max_new_tokens=new)
    with torch.no_grad():
        model.generate(ids, **kwargs)
        dist.barrier()
        start = time.perf_counter()
        tokens = model.generate(ids, **kwargs)
        t = torch.tensor(time.perf_counter() - start)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    peak = torch.tensor(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0)
    dist.all_reduce(peak, op=dist.ReduceOp.MAX)
    gloo_ranks.finish(rank, {"seconds": t.item(), "peak": peak.item(),
                             "tokens": tokens.tolist()}, result_path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", type=int, default=16)
    parser.add_argument("--new", type=int, default=32)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = parser.parse_args()
    sys.path[:0] = [os.path.join(args.build, "python"), EXAMPLES]
    import torch
    import hp
    import hp.torch

    torch.set_num_threads(1)
    os.environ.setdefault("HP_CPU_THREADS", "1")
    model = build()
    ids = prompt(args.prompt)
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    expected = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                              max_new_tokens=args.new).tolist()
    mesh = hp.DeviceMesh("tp", [WORLD], mesh_dim_names=("tp",))
    problems = []
    with tempfile.TemporaryDirectory(prefix="hp-bench-generate-") as tmp:
        model.save_pretrained(tmp)
        start = time.perf_counter()
        with hp.torch.Generator(model, 1, args.prompt + args.new, mesh,
                                plan=plan_for(model), params=tmp,
                                prefill=args.prompt) as gen:
            # The ranks start and compile in the background; a first
            # request (one token) waits for them, as torch's warm-up does.
            gen(ids, 1)
            ready = time.perf_counter() - start
            start = time.perf_counter()
            tokens = gen(ids, args.new).tolist()
            hp_s = time.perf_counter() - start
            hp_peak = max(gen.peak_memory())
    if tokens != expected:
        problems.append("hp's tokens differ from single-device transformers'")
    theirs = gloo_ranks.run(torch_worker, WORLD, 1200, args.prompt, args.new)
    if "error" in theirs:
        problems.append(f"torch: {theirs['error']}")
        theirs = {"seconds": float("nan"), "peak": float("nan"), "tokens": expected}
    if theirs["tokens"] != expected:
        problems.append("torch TP's tokens differ from single-device transformers'")
    # One prefill step (the prompt), then a step per new token but the first.
    steps = args.new
    mib = 1 << 20
    lines = [
        f"LlamaForCausalLM, {size / mib:.1f} MiB of f32 weights, prompt {args.prompt}, "
        f"{args.new} new tokens, 4 ranks (TP), 1 thread each",
        f"{'':<40}{'tokens/s':>9}{'request s':>11}{'peak MiB/rank':>15}",
        f"{'hp.torch.Generator (session)':<40}{args.new / hp_s:>9.1f}{hp_s:>11.2f}"
        f"{hp_peak / mib:>15.0f}",
        f"{'transformers generate, torch TP (gloo)':<40}"
        f"{args.new / theirs['seconds']:>9.1f}{theirs['seconds']:>11.2f}"
        f"{theirs['peak'] / mib:>15.0f}",
        f"hp: session start (launch, compile, weights read, one request) {ready:.2f} s; "
        f"{steps} steps (prefill, then decode), {hp_s / steps * 1e3:.1f} ms each; "
        f"ratio torch/hp request time "
        f"{theirs['seconds'] / hp_s:.2f}",
    ]
    text = "\n".join(lines + [f"PROBLEM: {p}" for p in problems])
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "generate.txt"), "w") as f:
        f.write(text + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
