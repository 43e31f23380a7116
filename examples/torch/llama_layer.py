"""A Llama-style decoder layer in plain torch (RMSNorm, rotary embeddings,
causal attention with grouped-query heads, SwiGLU MLP), written for one
device, placed by torch's standard tensor-parallel plan and by TP +
sequence parallel, run on 4 CPU ranks and checked against torch eager.

Run: python examples/torch/llama_layer.py   (with build/python on PYTHONPATH)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.tensor import Replicate, Shard
from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput,
                                               RowwiseParallel, SequenceParallel)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim) + 0.1 * torch.randn(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        self.head_dim = dim // n_heads
        self.wq = nn.Linear(dim, n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(n_heads * self.head_dim, dim, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.wq(x).view(b, t, -1, self.head_dim).transpose(1, 2)
        k = self.wk(x).view(b, t, -1, self.head_dim).transpose(1, 2)
        v = self.wv(x).view(b, t, -1, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        groups = q.shape[1] // k.shape[1]
        k = k.repeat_interleave(groups, dim=1)
        v = v.repeat_interleave(groups, dim=1)
        scores = (q @ k.transpose(-2, -1)) / self.head_dim ** 0.5
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        attn = scores.masked_fill(causal, float("-inf")).softmax(-1)
        return self.wo((attn @ v).transpose(1, 2).reshape(b, t, -1))


class FeedForward(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class DecoderLayer(nn.Module):
    def __init__(self, dim=64, n_heads=8, n_kv_heads=4, hidden=128, seq=16):
        super().__init__()
        self.attention_norm = RMSNorm(dim)
        self.attention = Attention(dim, n_heads, n_kv_heads)
        self.ffn_norm = RMSNorm(dim)
        self.feed_forward = FeedForward(dim, hidden)
        head_dim = dim // n_heads
        inv = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        freqs = torch.outer(torch.arange(seq).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x), self.cos, self.sin)
        return h + self.feed_forward(self.ffn_norm(h))


# torch's standard tensor-parallel plan for a Llama layer (torchtitan's).
TP_PLAN = {
    "attention.wq": ColwiseParallel(),
    "attention.wk": ColwiseParallel(),
    "attention.wv": ColwiseParallel(),
    "attention.wo": RowwiseParallel(),
    "feed_forward.w1": ColwiseParallel(),
    "feed_forward.w3": ColwiseParallel(),
    "feed_forward.w2": RowwiseParallel(),
}

# The same with sequence parallel: norms on sequence shards, all_gather
# before the attention and MLP, reduce_scatter after them.
TP_SP_PLAN = {
    "attention_norm": SequenceParallel(),
    "attention": PrepareModuleInput(input_layouts=(Shard(1), None, None),
                                    desired_input_layouts=(Replicate(), None, None)),
    "attention.wq": ColwiseParallel(),
    "attention.wk": ColwiseParallel(),
    "attention.wv": ColwiseParallel(),
    "attention.wo": RowwiseParallel(output_layouts=Shard(1)),
    "ffn_norm": SequenceParallel(),
    "feed_forward": PrepareModuleInput(input_layouts=(Shard(1),),
                                       desired_input_layouts=(Replicate(),)),
    "feed_forward.w1": ColwiseParallel(),
    "feed_forward.w3": ColwiseParallel(),
    "feed_forward.w2": RowwiseParallel(output_layouts=Shard(1)),
}


def main():
    import hp
    import hp.torch
    torch.manual_seed(0)
    model = DecoderLayer()
    x = torch.randn(2, 16, 64)
    expected = model(x)
    mesh = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
    for name, plan, io in (("TP", TP_PLAN, [hp.Replicate()]),
                           ("TP+SP", TP_SP_PLAN, [hp.Shard(1)])):
        prog = hp.torch.export(model, (x,), mesh, plan=plan, inputs=[io], outputs=[io])
        out = hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)
        ok = torch.allclose(out, expected, rtol=1e-4, atol=1e-5)
        print(f"llama layer {name}: {hp.torch.collectives(prog)}; "
              f"matches torch: {ok} (max error {(out - expected).abs().max():.2e})")
        if not ok:
            raise SystemExit(1)


if __name__ == "__main__":
    main()
