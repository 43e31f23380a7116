"""Ranks that stay up: the Llama-style decoder layer of llama_layer.py under
torch's tensor-parallel plan in one hp.torch.Session on 4 CPU ranks
(compiled, launched and loaded once), called on new inputs and checked
against torch eager each time; then a buffer kept on the ranks as state
(a running sum each call updates, fetched on demand).

Run: python examples/torch/session.py   (with build/python on PYTHONPATH)
"""
import time

import torch

import hp
import hp.torch
import llama_layer


class RunningSum(torch.nn.Module):
    """Returns its input doubled and the sum of every input so far (the
    buffer `total`, which a session keeps on the ranks)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(8, 64))

    def forward(self, x):
        return x * 2, self.total + x


def main():
    mesh = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
    torch.manual_seed(0)
    model = llama_layer.DecoderLayer()
    x = torch.randn(2, 16, 64)
    prog = hp.torch.export(model, (x,), mesh, plan=llama_layer.TP_PLAN)
    # The ranks start, compile and load the weights in the background; the
    # first call waits for them.
    with hp.torch.Session(prog, dict(model.named_parameters())) as sess:
        for i in range(5):
            x = torch.randn(2, 16, 64)
            t0 = time.perf_counter()
            out = sess(x)
            took = time.perf_counter() - t0
            with torch.no_grad():
                err = (out - model(x)).abs().max().item()
            first = " (with the ranks' start)" if i == 0 else ""
            print(f"call {i}: {took * 1e3:.1f} ms{first}, max |hp - torch| = {err:.1e}")
            assert err < 1e-5

    acc = RunningSum()
    prog = hp.torch.export(acc, (torch.zeros(8, 64),), mesh, params={"total": [hp.Shard(1)]})
    with hp.torch.Session(prog, state={"total": 1}) as sess:
        expected = torch.zeros(8, 64)
        for _ in range(3):
            x = torch.randn(8, 64)
            assert torch.equal(sess(x), x * 2)
            expected += x
        err = (sess.state()["total"] - expected).abs().max().item()
        print(f"resident state after 3 calls: max |hp - torch| = {err:.1e}")
        assert err < 1e-5


if __name__ == "__main__":
    main()
