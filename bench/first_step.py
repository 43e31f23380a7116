#!/usr/bin/env python3
"""Time to the first training step, compiled and from hp's cache, against
torch.compile's first step.

A tiny LlamaForCausalLM (hidden 64, 8 heads / 4 KV heads, MLP 128,
vocabulary 128, batch 2 x 16 tokens) at each depth of --layers, trained with
AdamW under hp.torch.Trainer on 2 ranks (FSDP over "dp", one thread each):

  hp cold:  a new Trainer with an empty hp cache (HP_CACHE_DIR in a fresh
            temporary directory) until its first step returns; split into
            hp-runner's stages (Trainer.compile_report: parse, lower, code
            generation, once per job) and the rest (tracing, torch-mlir's
            import, placement in Python, and starting the ranks).
  hp warm:  a second Trainer of the same model in the same process: the
            program comes from the cache (no lowering, no code generation).
  compile:  torch.compile of the same model's training step (forward,
            cross-entropy, backward, AdamW step) in a fresh process with an
            empty inductor cache (TORCHINDUCTOR_CACHE_DIR), until its first
            step returns; one process, one thread.

Prints the table (seconds) and writes it to OUT/first_step.txt (OUT: --out,
default build/bench). Run with the python of scripts/torch-env.sh. A
benchmark, never a test: the targets of the compile issue (a warm start at
most half a cold one; a cold start at most torch.compile's; 2x the layers
at most 2x the time) are printed as PROBLEM lines, never asserted.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "torch")
WORLD = 2

COMPILE_CHILD = r"""
import json, sys, time
import torch
import torch.nn.functional as F
sys.path.insert(0, sys.argv[1])
import hf_causal_lm
torch.set_num_threads(1)
torch.manual_seed(0)
model = hf_causal_lm.make_model("llama", layers=int(sys.argv[2])).train()
ids = torch.randint(0, hf_causal_lm.VOCAB, (hf_causal_lm.BATCH, hf_causal_lm.SEQ + 1))
x, y = ids[:, :-1].contiguous(), ids[:, 1:].contiguous()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)

@torch.compile
def step(x, y):
    logits = model(x).logits
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
    loss.backward()
    return loss

start = time.perf_counter()
step(x, y)
opt.step()
opt.zero_grad()
print(json.dumps({"first": time.perf_counter() - start}))
"""


def batch():
    import torch
    import hf_causal_lm
    ids = torch.randint(0, hf_causal_lm.VOCAB, (hf_causal_lm.BATCH, hf_causal_lm.SEQ + 1))
    return ids[:, :-1].contiguous(), ids[:, 1:].contiguous()


def hp_first_step(layers):
    """(seconds to the first step, the compile report) of a new Trainer."""
    import torch
    import torch.nn.functional as F
    import hp
    import hp.torch
    import hf_causal_lm

    torch.manual_seed(0)
    model = hf_causal_lm.make_model("llama", layers=layers).train()
    x, y = batch()

    def loss_fn(out, labels):
        logits = out.logits
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))

    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    mesh = hp.DeviceMesh("m", [WORLD], mesh_dim_names=("dp",))
    start = time.perf_counter()
    with hp.torch.Trainer(model, loss_fn, (x,), (y,), mesh, optimizer=opt,
                          inputs=[[hp.Shard(0)]], fsdp="dp") as tr:
        tr.step((x,), (y,))
        return time.perf_counter() - start, tr.compile_report


def compile_first_step(layers):
    with tempfile.TemporaryDirectory(prefix="hp-bench-inductor-") as cache:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, OMP_NUM_THREADS="1")
        out = subprocess.run([sys.executable, "-c", COMPILE_CHILD, EXAMPLES, str(layers)],
                             env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])["first"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", default="1,2,4,8,16",
                    help="comma-separated depths of the tiny Llama")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = ap.parse_args()
    sys.path[:0] = [os.path.join(args.build, "python"), EXAMPLES]
    os.environ["HP_CPU_THREADS"] = "1"
    depths = [int(n) for n in args.layers.split(",")]

    head = (f"{'layers':>6}{'hp cold':>10}{'parse':>8}{'lower':>8}{'codegen':>9}{'rest':>8}"
            f"{'hp warm':>10}{'compile':>10}{'warm/cold':>11}{'cold/compile':>14}")
    lines = [f"tiny LlamaForCausalLM, AdamW, FSDP on {WORLD} ranks x 1 thread: "
             f"seconds to the first step", head]
    print(lines[0], flush=True)
    print(head, flush=True)
    problems, colds = [], {}
    for layers in depths:
        with tempfile.TemporaryDirectory(prefix="hp-bench-cache-") as cache:
            os.environ["HP_CACHE_DIR"] = cache
            cold, report = hp_first_step(layers)
            warm, warm_report = hp_first_step(layers)
        compiled = compile_first_step(layers)
        colds[layers] = cold
        stages = report["parse_s"] + report["lower_s"] + report["codegen_s"]
        row = (f"{layers:>6}{cold:>10.2f}{report['parse_s']:>8.2f}{report['lower_s']:>8.2f}"
               f"{report['codegen_s']:>9.2f}{cold - stages:>8.2f}{warm:>10.2f}"
               f"{compiled:>10.2f}{warm / cold:>11.2f}{cold / compiled:>14.2f}")
        lines.append(row)
        print(row, flush=True)
        if warm_report["cache"] != "hit":
            problems.append(f"PROBLEM: {layers} layers: the second Trainer missed the cache")
        if warm > 0.5 * cold:
            problems.append(f"PROBLEM: {layers} layers: a warm start is {warm / cold:.2f}x "
                            f"a cold one (target 0.5x)")
        if cold > compiled:
            problems.append(f"PROBLEM: {layers} layers: hp's first step {cold:.1f} s, "
                            f"torch.compile's {compiled:.1f} s")
        half = layers // 2
        if half in colds and cold > 2 * colds[half]:
            problems.append(f"PROBLEM: {layers} layers take {cold / colds[half]:.2f}x "
                            f"{half} layers (target 2x)")
    lines += problems
    for p in problems:
        print(p)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "first_step.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
