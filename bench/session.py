#!/usr/bin/env python3
"""A session's calls against one launch per call and against torch DTensor.

The Llama-style decoder layer of examples/torch/ (sequence 256, hidden 512,
8 heads, MLP 2048, batch 1) under torch's tensor-parallel plan, on 2 ranks
with one thread each:

  step:     hp.torch.time_step: the forward pass --steps times in one launch,
            timed inside the program (no launch, no compilation, no I/O).
  session:  hp.torch.Session: compiled, launched and loaded once, then
            --calls calls, each timed by the client (inputs written, the
            call announced, results read back), every output checked
            against eager.
  run:      hp.torch.run per call (launch, compile, read every weight),
            mean of --runs.
  torch:    the same module under parallelize_module on 2 gloo processes
            kept up, one thread each: mean step after 2 warm-up ones.
  tiny:     a tiny Qwen3ForCausalLM (hidden 128, 64 tokens) under
            transformers' plan on 2 ranks: --tiny-calls session calls
            against its in-program step, median and p99. With 4 layers (a
            step of about 1.2 ms here, the size #51 measured at 1.5 ms) the
            targets are judged; with 2 (about 0.65 ms) the row shows the
            fixed cost of a call (the client's and the ranks' file work and
            wake-ups, about 0.3 ms on a 2-core host), which no step that
            short can hide.

Prints the table (ms per call) and writes it to OUT/session.txt (OUT: --out,
default build/bench). Run with the python of scripts/torch-env.sh. A
benchmark, never a test: the targets (a session call at most 1.5x the
in-program step on the layer; on the 4-layer tiny model a median at most
1.3x and a p99 at most 2x) are printed as PROBLEM lines, never asserted;
exit 1 if missed or if any output differs from eager.
"""
import argparse
import os
import statistics
import sys
import time

import gloo_ranks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples", "torch")
WORLD = 2


def build():
    import torch
    import llama_layer
    torch.manual_seed(0)
    return llama_layer.DecoderLayer(512, 8, 8, 2048, 256), torch.randn(1, 256, 512)


def torch_worker(rank, port, result_path, steps):
    dist = gloo_ranks.setup(rank, WORLD, port, EXAMPLES, 120)
    import torch
    import llama_layer
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import parallelize_module

    mesh = init_device_mesh("cpu", (WORLD,), mesh_dim_names=("tp",))
    model, x = build()
    parallelize_module(model, mesh, llama_layer.TP_PLAN)
    with torch.no_grad():
        for _ in range(2):
            model(x)
        dist.barrier()
        start = time.perf_counter()
        for _ in range(steps):
            model(x)
        step = (time.perf_counter() - start) / steps
    t = torch.tensor([step])
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    gloo_ranks.finish(rank, {"step": t.item()}, result_path)


def tiny_rows(calls, layers, judged):
    """The tiny Qwen3's step and its session calls: (lines, problems); the
    latency targets only when ``judged``."""
    import torch
    import transformers
    import hp
    import hp.torch
    import hf_causal_lm

    torch.manual_seed(0)
    config = transformers.Qwen3Config(hidden_size=128, intermediate_size=256,
                                      num_attention_heads=8, num_key_value_heads=4,
                                      head_dim=16, num_hidden_layers=layers, vocab_size=512,
                                      max_position_embeddings=128)
    wrapped = hf_causal_lm.Logits(transformers.Qwen3ForCausalLM(config).eval())
    ids = torch.randint(0, 512, (1, 64))
    mesh = hp.DeviceMesh("tp", [WORLD], mesh_dim_names=("tp",))
    prog = hp.torch.export(wrapped, (ids,), mesh, plan=hf_causal_lm.plan_for(wrapped))
    params = dict(wrapped.named_parameters())
    _, step = hp.torch.time_step(prog, (ids,), params, steps=200)
    with torch.no_grad():
        expected = wrapped(ids)
    times, worst = [], 0.0
    with hp.torch.Session(prog, params) as sess:
        for _ in range(5):
            sess(ids)
        for _ in range(calls):
            c0 = time.perf_counter()
            out = sess(ids)
            times.append(time.perf_counter() - c0)
            worst = max(worst, (out - expected).abs().max().item())
    times.sort()
    median, p99 = statistics.median(times), times[max(0, int(0.99 * len(times)) - 1)]
    lines = [f"tiny Qwen3 (hidden 128, {layers} layers, 64 tokens), TP on {WORLD} ranks, "
             f"{calls} calls (ms per call)",
             f"{'hp step (in program)':<34}{step * 1e3:>9.3f}",
             f"{'hp session call, median':<34}{median * 1e3:>9.3f}   {median / step:.2f}x the step",
             f"{'hp session call, p99':<34}{p99 * 1e3:>9.3f}   {p99 / step:.2f}x the step",
             f"{'a call beyond the step, median':<34}{(median - step) * 1e3:>9.3f}",
             f"max |session - eager| over {calls} calls: {worst:.1e}"]
    problems = []
    if judged and median > 1.3 * step:
        problems.append(f"PROBLEM: a tiny session call's median is {median / step:.2f}x the "
                        f"step (target 1.3x)")
    if judged and p99 > 2 * step:
        problems.append(f"PROBLEM: a tiny session call's p99 is {p99 / step:.2f}x the step "
                        f"(target 2x)")
    if worst > 1e-4:
        problems.append(f"PROBLEM: tiny session outputs differ from eager by {worst:.1e}")
    return lines, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tiny-calls", type=int, default=500)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    sys.path.insert(0, EXAMPLES)
    os.environ["HP_CPU_THREADS"] = "1"
    import torch
    import hp
    import hp.torch
    import llama_layer

    torch.set_num_threads(1)
    mesh = hp.DeviceMesh("tp", [WORLD], mesh_dim_names=("tp",))
    model, x = build()
    prog = hp.torch.export(model, (x,), mesh, plan=llama_layer.TP_PLAN)
    params = dict(model.named_parameters())
    _, step = hp.torch.time_step(prog, (x,), params, steps=args.steps)

    inputs = [torch.randn(1, 256, 512) for _ in range(args.calls)]
    with torch.no_grad():
        expected = [model(t) for t in inputs]
    start = time.perf_counter()
    with hp.torch.Session(prog, params) as sess:
        for t in inputs[:2]:
            sess(t)  # warm-up: first touches of the buffers
        started = time.perf_counter() - start
        calls, worst = [], 0.0
        for t, e in zip(inputs, expected):
            c0 = time.perf_counter()
            out = sess(t)
            calls.append(time.perf_counter() - c0)
            worst = max(worst, (out - e).abs().max().item())
    runs = []
    for t in inputs[:args.runs]:
        r0 = time.perf_counter()
        hp.torch.run(prog, (t,), params)
        runs.append(time.perf_counter() - r0)
    torch_step = gloo_ranks.run(torch_worker, WORLD, 600, args.steps)
    if "error" in torch_step:
        raise SystemExit(f"session: {torch_step['error']}")
    torch_step = torch_step["step"]

    mean, median = statistics.mean(calls), statistics.median(calls)
    lines = [f"Llama-style layer (seq 256, hidden 512), TP on {WORLD} ranks, one thread each "
             "(ms per call)",
             f"{'hp step (in program)':<34}{step * 1e3:>9.2f}",
             f"{'hp session call, mean':<34}{mean * 1e3:>9.2f}   {mean / step:.2f}x the step",
             f"{'hp session call, median':<34}{median * 1e3:>9.2f}   {median / step:.2f}x the step",
             f"{'hp session start (launch, load)':<34}{started * 1e3:>9.2f}",
             f"{'hp.torch.run per call':<34}{statistics.mean(runs) * 1e3:>9.2f}   "
             f"{statistics.mean(runs) / mean:.0f}x a session call",
             f"{'torch DTensor step (gloo, kept up)':<34}{torch_step * 1e3:>9.2f}   "
             f"session/torch {mean / torch_step:.2f}",
             f"max |session - eager| over {args.calls} calls: {worst:.1e}"]
    problems = []
    if mean > 1.5 * step:
        problems.append(f"PROBLEM: a session call costs {mean / step:.2f}x the step (target 1.5x)")
    if worst > 1e-4:
        problems.append(f"PROBLEM: session outputs differ from eager by {worst:.1e}")
    tiny, tiny_problems = [], []
    for layers, judged in ((4, True), (2, False)):
        rows, found = tiny_rows(args.tiny_calls, layers, judged)
        tiny += [""] + rows
        tiny_problems += found
    text = "\n".join(lines + tiny + problems + tiny_problems)
    problems += tiny_problems
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "session.txt"), "w") as f:
        f.write(text + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
