#!/usr/bin/env python3
"""cumsum on 2 ranks: time against length, hp against torch.

A cumsum of int64 and of f32 over n elements (n = 2^16 and 2^18), the
input split along the scanned dim on 2 ranks: hp runs it as dtensor.scan
(each rank's piece and the total of the piece before it, docs/Propagation.md
"Scans"), a loop linear in n. Per length: hp's in-program time per call
(hp.torch.time_step, one thread per rank: no launch, no compilation) and
eager torch's in one process (one thread); then the ratio of hp's time at
2^18 to 2^16, whose target is at most 4.5x (linear time is 4x). Every
output is checked against torch first.

Prints the table and writes it to OUT/scan.txt (OUT: --out, default
build/bench). Run with the python of scripts/torch-env.sh. A benchmark,
never a test: a missed target is a PROBLEM line and exit 1.
"""
import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import torch  # noqa: E402

import hp  # noqa: E402
import hp.torch  # noqa: E402,F401

TARGET = 4.5


class Scan(torch.nn.Module):
    def forward(self, x):
        return x.cumsum(0)


def torch_seconds(x, steps):
    torch.set_num_threads(1)
    x.cumsum(0)
    start = time.perf_counter()
    for _ in range(steps):
        x.cumsum(0)
    return (time.perf_counter() - start) / steps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    args = ap.parse_args()
    mesh = hp.DeviceMesh("tp", [2])
    lines = ["| dtype | n | hp ms (in program, 2 ranks) | torch ms (1 process) |",
             "|---|---:|---:|---:|"]
    problems = []
    for dtype in (torch.int64, torch.float32):
        seconds = {}
        for n in (1 << 16, 1 << 18):
            torch.manual_seed(0)
            x = (torch.randint(-3, 4, (n,)) if dtype == torch.int64
                 else torch.randn(n))
            prog = hp.torch.export(Scan(), (x,), mesh, inputs=[[hp.Shard(0)]])
            out, step = hp.torch.time_step(prog, (x,), steps=args.steps)
            want = Scan()(x)
            if dtype == torch.int64 and not torch.equal(out, want):
                problems.append(f"PROBLEM: int64 cumsum over {n} differs from torch")
            if dtype == torch.float32 and not torch.allclose(out, want, rtol=1e-5,
                                                             atol=1e-3):
                problems.append(f"PROBLEM: f32 cumsum over {n} differs from torch")
            seconds[n] = step
            lines.append(f"| {str(dtype).split('.')[-1]} | {n} | {step * 1e3:.3f} | "
                         f"{torch_seconds(x, args.steps) * 1e3:.3f} |")
        ratio = seconds[1 << 18] / seconds[1 << 16]
        lines.append(f"| {str(dtype).split('.')[-1]} | 2^18 / 2^16 | {ratio:.2f}x "
                     f"(target <= {TARGET}x) | |")
        if ratio > TARGET:
            problems.append(f"PROBLEM: {dtype} cumsum 2^18 takes {ratio:.2f}x 2^16 "
                            f"(target {TARGET}x)")
    text = "\n".join(lines + problems)
    print(text)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "scan.txt"), "w") as f:
        f.write(text + "\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
