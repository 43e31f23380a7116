"""A two-layer MLP under torch's column/row tensor-parallel plan: the first
Linear split by output features, the second by input features, one
all_reduce. Exported by hp.torch, run on 4 CPU ranks, checked against torch
eager on one device.

Run: python examples/torch/mlp.py   (with build/python on PYTHONPATH)
"""
import torch
import torch.nn as nn
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel


class MLP(nn.Module):
    def __init__(self, dim=32, hidden=128):
        super().__init__()
        self.up = nn.Linear(dim, hidden)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


PLAN = {"up": ColwiseParallel(), "down": RowwiseParallel()}


def main():
    import hp
    import hp.torch
    torch.manual_seed(0)
    model = MLP()
    x = torch.randn(8, 32)
    mesh = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
    prog = hp.torch.export(model, (x,), mesh, plan=PLAN)
    out = hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)
    expected = model(x)
    ok = torch.allclose(out, expected, rtol=1e-4, atol=1e-5)
    print(f"mlp colwise/rowwise: {hp.torch.collectives(prog)}; matches torch: {ok} "
          f"(max error {(out - expected).abs().max():.2e})")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
