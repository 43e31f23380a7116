"""Training the Llama-style decoder layer of llama_layer.py on a 2 x 2 mesh:
the batch split on "dp" with the parameters split by rows there too (FSDP),
torch's tensor-parallel plan on "tp", AdamW. hp.torch.Trainer compiles the
step (forward, backward, the optimizer's update) into one program, keeps
the parameters and the optimizer's state on the 4 ranks, and is checked
step by step against torch eager training on one device.

Run: python examples/torch/train.py   (with build/python on PYTHONPATH)
"""
import copy

import torch
import torch.nn.functional as F

from llama_layer import TP_PLAN, DecoderLayer


def main():
    import hp
    import hp.torch
    torch.manual_seed(0)
    model = DecoderLayer()
    reference = copy.deepcopy(model)
    batches = [(torch.randn(4, 16, 64), torch.randn(4, 16, 64)) for _ in range(10)]

    def loss_fn(out, target):
        return F.mse_loss(out, target)

    mesh = hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp"))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    ref_opt = torch.optim.AdamW(reference.parameters(), lr=1e-3, weight_decay=0.1)
    worst = 0.0
    with hp.torch.Trainer(model, loss_fn, (batches[0][0],), (batches[0][1],), mesh,
                          optimizer=opt, plan=TP_PLAN, inputs=[[hp.Shard(0), hp.Replicate()]],
                          fsdp="dp") as tr:
        print(f"one step moves {tr.collectives()}")
        for step, (x, y) in enumerate(batches):
            loss = tr.step((x,), (y,))
            ref_opt.zero_grad()
            expected = loss_fn(reference(x), y)
            expected.backward()
            ref_opt.step()
            worst = max(worst, abs(loss - expected.item()) / abs(expected.item()))
            print(f"step {step}: loss {loss:.6f} (torch eager {expected.item():.6f})")
        params = tr.state_dict()
    # AdamW's update is about lr times the sign of a gradient: a gradient near
    # zero, summed over ranks in another order, can move a parameter by up to
    # lr in any run but the same one (docs/Training.md).
    err = max((params[n] - p).abs().max().item() for n, p in reference.state_dict().items())
    ok = worst <= 1e-5 and err <= 1e-4
    print(f"FSDP x TP training, 10 steps: losses match torch: {worst <= 1e-5} (largest "
          f"relative difference {worst:.1e}); parameters within {err:.1e}")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
