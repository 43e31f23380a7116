"""A residual MLP block on a 2-D mesh, dp x tp = 2 x 2: the batch split on
"dp", the weights by torch's column/row plan on "tp" (as
parallelize_module(model, mesh["tp"], plan) with data parallel on "dp").
Exported by hp.torch, run on 4 CPU ranks, checked against torch eager.

Run: python examples/torch/dp_tp_mlp.py   (with build/python on PYTHONPATH)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel


class Block(nn.Module):
    def __init__(self, dim=32, hidden=64):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


PLAN = {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()}


def main():
    import hp
    import hp.torch
    torch.manual_seed(0)
    model = Block()
    x = torch.randn(8, 6, 32)
    mesh = hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp"))
    prog = hp.torch.export(model, (x,), mesh, plan=PLAN,
                           inputs=[[hp.Shard(0), hp.Replicate()]])
    out = hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)
    expected = model(x)
    ok = torch.allclose(out, expected, rtol=1e-4, atol=1e-5)
    print(f"dp x tp MLP block: {hp.torch.collectives(prog)}; matches torch: {ok} "
          f"(max error {(out - expected).abs().max():.2e})")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
