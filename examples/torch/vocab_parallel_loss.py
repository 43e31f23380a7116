"""A language-model head and its cross-entropy loss, with the head's weight
split by vocabulary (ColwiseParallel, logits kept as DTensors). torch's
dispatch computes log_softmax on replicated logits, so it all_gathers them
(batch x sequence x vocabulary) unless the user wraps the loss in
torch's loss_parallel(); hp's propagation finds cheaper placements itself:
under the default cost model one all_to_all of the logits turns them
token-wise (a quarter of torch's bytes); with latency-bytes=0, the
log_softmax's reductions stay on the split vocabulary (small all_reduces,
loss_parallel's scheme).
Exported by hp.torch, run on 4 CPU ranks, checked against torch eager.

Run: python examples/torch/vocab_parallel_loss.py   (with build/python on PYTHONPATH)
"""
import torch
import torch.nn as nn
from torch.distributed.tensor import Replicate
from torch.distributed.tensor.parallel import ColwiseParallel, PrepareModuleInput


class HeadLoss(nn.Module):
    def __init__(self, dim=64, vocab=512):
        super().__init__()
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, h, labels):
        """`labels`: one-hot targets (batch, seq, vocab)."""
        logp = torch.log_softmax(self.head(h), dim=-1)
        return -(logp * labels).sum(-1).mean()


# Inputs as replicated DTensors, the head split by vocabulary, its logits
# left as DTensors for the loss (torch's use_local_output=False).
PLAN = {
    "": PrepareModuleInput(input_layouts=(Replicate(), Replicate()),
                           desired_input_layouts=(Replicate(), Replicate()),
                           use_local_output=False),
    "head": ColwiseParallel(use_local_output=False),
}


def make_inputs(batch=8, seq=16, dim=64, vocab=512):
    h = torch.randn(batch, seq, dim)
    labels = nn.functional.one_hot(torch.randint(vocab, (batch, seq)), vocab).float()
    return h, labels


def main():
    import hp
    import hp.torch
    torch.manual_seed(0)
    model = HeadLoss()
    h, labels = make_inputs()
    mesh = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
    prog = hp.torch.export(model, (h, labels), mesh, plan=PLAN)
    out = hp.torch.run(prog, (h, labels), dict(model.named_parameters()), np=4)
    expected = model(h, labels)
    ok = torch.allclose(out, expected, rtol=1e-4, atol=1e-5)
    print(f"vocab-parallel loss: {hp.torch.collectives(prog)}; matches torch: {ok} "
          f"(loss {out.item():.6f}, torch {expected.item():.6f})")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
