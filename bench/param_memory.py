#!/usr/bin/env python3
"""Peak memory per rank when each rank reads only its piece of the weights.

An MLP whose weights dominate (hidden 4096, MLP 16384, no bias: 512 MiB of
f32) on 4 ranks, one session each, peak resident memory per rank from the
session after one call (hp.torch.Session.peak_memory, the compiled program
and MPI included):

  base:        the same program with small weights (256 x 1024): what a rank
               holds besides the weights.
  tensors:     column/row-parallel plan, parameters passed as tensors (hp.torch
               writes them to files; each rank reads its block).
  checkpoint:  the same plan, parameters from a safetensors file read in place.
  replicated:  no plan: every rank holds every weight (what each rank held
               before block reads, whatever the plan).

Prints the table and writes it to OUT/param_memory.txt (OUT: --out, default
build/bench). Run with the python of scripts/torch-env.sh. A benchmark,
never a test (python/torch_tests/test_checkpoints.py asserts the bound):
exit 1 if an output differs from eager.
"""
import argparse
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import torch
    from safetensors.torch import save_file
    from torch import nn
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
    import hp
    import hp.torch

    class Wide(nn.Module):
        def __init__(self, hidden, ffn):
            super().__init__()
            self.up = nn.Linear(hidden, ffn, bias=False)
            self.down = nn.Linear(ffn, hidden, bias=False)

        def forward(self, x):
            return self.down(torch.relu(self.up(x)))

    mesh = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
    plan = {"up": ColwiseParallel(), "down": RowwiseParallel()}
    problems = []

    def peak(model, params, use_plan=True):
        x = torch.randn(2, model.up.in_features)
        prog = hp.torch.export(model, (x,), mesh, plan=plan if use_plan else None)
        with hp.torch.Session(prog, params) as sess:
            out = sess(x)
            with torch.no_grad():
                if not torch.allclose(out, model(x), rtol=1e-5, atol=1e-5):
                    problems.append("an output differs from eager")
            return max(sess.peak_memory())

    torch.manual_seed(0)
    small = Wide(256, 1024)
    big = Wide(4096, 16384)
    size = sum(p.numel() * p.element_size() for p in big.parameters())
    mib = 1 << 20
    rows = [("base (256 x 1024 weights)", peak(small, dict(small.named_parameters())))]
    rows.append(("tensors, TP plan", peak(big, dict(big.named_parameters()))))
    with tempfile.TemporaryDirectory(prefix="hp-bench-memory-") as tmp:
        path = os.path.join(tmp, "wide.safetensors")
        save_file(dict(big.state_dict()), path)
        rows.append(("checkpoint in place, TP plan", peak(big, path)))
    rows.append(("replicated (no plan)", peak(big, dict(big.named_parameters()), False)))
    base = rows[0][1]
    lines = [f"MLP 4096 x 16384, {size / mib:.0f} MiB of f32 weights, 4 ranks; "
             f"a quarter is {size / 4 / mib:.0f} MiB",
             f"{'':<32}{'peak MiB/rank':>14}{'above base':>12}"]
    lines += [f"{name:<32}{p / mib:>14.0f}{(p - base) / mib:>12.0f}" for name, p in rows]
    text = "\n".join(lines + [f"PROBLEM: {p}" for p in problems])
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "param_memory.txt"), "w") as f:
        f.write(text + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
