"""sort, topk and scatter, which torch-mlir lowers to tm_tensor loops and hp
decomposes before import (python/hp/_decompose.py), checked bit for bit
against torch on 4 CPU ranks with their rows split; and a top-2 mixture of
experts written as users write it, split by tokens and by experts.

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import warnings

import pytest
import torch
from torch import nn

import hp
import hp.torch

M4 = hp.DeviceMesh("m", [4], mesh_dim_names=("m",))


def export_quietly(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return hp.torch.export(*args, **kwargs)


def same(got, expected):
    """Equal elements, NaN where torch has NaN, the sign of every zero, and
    the same dtype."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if got.is_floating_point():
        nan = expected.isnan()
        assert torch.equal(got.isnan(), nan)
        got, expected = got[~nan], expected[~nan]
        assert torch.equal(got.signbit(), expected.signbit())
    assert torch.equal(got, expected), (got, expected)


def rows_with_ties_and_nan():
    torch.manual_seed(0)
    x = torch.randn(8, 9)
    x[0, 3] = x[0, 5]            # a tie
    x[1, 2] = float("nan")
    x[2, 4] = float("inf")
    x[3, 6] = -float("inf")
    x[4, 1], x[4, 2] = -0.0, 0.0
    return x


class Sorts(nn.Module):
    def __init__(self, descending):
        super().__init__()
        self.descending = descending

    def forward(self, x):
        v, i = x.sort(dim=-1, descending=self.descending, stable=True)
        v0, i0 = x.sort(dim=0, descending=self.descending, stable=True)
        # The default sort need not be stable: its values only.
        return v, i, v0, i0, x.sort(-1, self.descending).values


@pytest.mark.parametrize("descending", [False, True])
def test_sort_by_rows_and_along_the_split_dim(descending):
    x = rows_with_ties_and_nan()
    model = Sorts(descending)
    prog = export_quietly(model, (x,), M4, inputs=[[hp.Shard(0)]], outputs=[[hp.Shard(0)]] * 5)
    for got, expected in zip(hp.torch.run(prog, (x,)), model(x)):
        same(got, expected)


class BoolSort(nn.Module):
    def forward(self, x):
        v, i = (x > 0).sort(dim=-1, descending=True, stable=True)
        v0, i0 = (x > 0).sort(dim=0, stable=True)
        return v, i, v0, i0


def test_booleans_sort_false_first_as_torch_does():
    # torch-mlir compares booleans as signed i1 (true = -1); dtensor.sort
    # orders them as torch does. dtensor-widen-bool-tensors sorts their bytes,
    # so the rows stay split: no "runs replicated" warning.
    x = rows_with_ties_and_nan()
    model = BoolSort()
    prog = export_quietly(model, (x,), M4, inputs=[[hp.Shard(0)]],
                          outputs=[[hp.Shard(0)]] * 4)
    for got, expected in zip(hp.torch.run(prog, (x,)), model(x)):
        same(got, expected)


class SmallCases(nn.Module):
    """What torch-mlir's sort and scan would get wrong or refuse: bytes
    (compared signed there), 0-d tensors."""

    def forward(self, n, s):
        b = n.to(torch.uint8)
        v, i = b.sort(-1, descending=True)
        top, idx = b.topk(2, -1)
        z, zi = s.sort()
        return (v.to(torch.int32), i, top.to(torch.int32), idx, z, zi, s.cumsum(0),
                (s > 0).cumsum(0), s.topk(1)[0])


def test_bytes_and_0d_tensors_sort_and_scan_as_torch_does():
    n = torch.tensor([[200, 3, 255, 128, 7], [0, 129, 1, 250, 127]], dtype=torch.int32)
    s = torch.tensor(-1.5)
    model = SmallCases()
    prog = hp.torch.export(model, (n, s), M4)
    for got, expected in zip(hp.torch.run(prog, (n, s)), model(n, s)):
        same(got, expected)


class TopK(nn.Module):
    def forward(self, x, n):
        top, idx = x.topk(3, -1)
        low, _ = x.topk(2, -1, largest=False)
        return top, idx, low, n.topk(2, -1)[0]


def test_topk_of_floats_and_integers():
    x = rows_with_ties_and_nan()
    x[0, 3] = 10.0  # no tie among the top 3 (torch orders ties as it likes)
    n = torch.randint(-5, 5, (8, 7))
    model = TopK()
    prog = export_quietly(model, (x, n), M4, inputs=[[hp.Shard(0)]] * 2,
                          outputs=[[hp.Shard(0)]] * 4)
    assert hp.torch.collectives(prog)["counts"] == {}
    for got, expected in zip(hp.torch.run(prog, (x, n)), model(x, n)):
        same(got, expected)


class Scatters(nn.Module):
    def forward(self, x, idx, src, any_idx):
        return (x.scatter(1, idx, src), x.scatter(1, idx, 2.5),
                x.scatter_add(1, any_idx, src), x.scatter_add(0, any_idx.clamp(max=7), src))


def test_scatter_and_scatter_add_over_part_of_the_tensor():
    torch.manual_seed(0)
    x = torch.randn(8, 9)
    # scatter: distinct targets per row (torch leaves repeats undefined);
    # index and src cover 8 x 4 / 8 x 5 of x, scatter_add repeats targets.
    idx = torch.stack([torch.randperm(9)[:4] for _ in range(8)])
    src = torch.randn(8, 5)
    any_idx = torch.randint(0, 9, (8, 4))
    model = Scatters()
    prog = export_quietly(model, (x, idx, src, any_idx), M4,
                          inputs=[[hp.Shard(0)]] * 4, outputs=[[hp.Shard(0)]] * 4)
    out = hp.torch.run(prog, (x, idx, src, any_idx))
    expected = model(x, idx, src, any_idx)
    same(out[0], expected[0])
    same(out[1], expected[1])
    for got, want in zip(out[2:], expected[2:]):  # sums, in another order
        assert torch.allclose(got, want, rtol=1e-6, atol=1e-6)


class TopTwoMoE(nn.Module):
    """Top-2 routing over 8 experts, the experts' weights stacked: each token
    goes through every expert, weighted by its gate (0 off its top 2)."""

    def __init__(self, d=16, h=32, experts=8):
        super().__init__()
        self.router = nn.Linear(d, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, d, h) / d ** 0.5)
        self.w2 = nn.Parameter(torch.randn(experts, h, d) / h ** 0.5)

    def forward(self, x):
        p = self.router(x).softmax(-1)
        top, idx = p.topk(2, -1)
        gates = torch.zeros_like(p).scatter(1, idx, top / top.sum(-1, keepdim=True))
        h = torch.einsum("td,edh->teh", x, self.w1).relu()
        return torch.einsum("te,ted->td", gates, torch.einsum("teh,ehd->ted", h, self.w2))


@pytest.mark.parametrize("split", ["tokens", "experts"])
def test_top2_moe(split):
    torch.manual_seed(0)
    model = TopTwoMoE().eval()
    x = torch.randn(64, 16)
    if split == "tokens":
        prog = export_quietly(model, (x,), M4, inputs=[[hp.Shard(0)]], outputs=[[hp.Shard(0)]])
        expected_moves = {}
    else:
        # Each rank holds 2 experts (no expert weight gathered); the
        # weighted sum over experts is one all_reduce of the output.
        prog = export_quietly(model, (x,), M4,
                              params={"w1": [hp.Shard(0)], "w2": [hp.Shard(0)]})
        expected_moves = {"all_reduce": 1}
    assert hp.torch.collectives(prog)["counts"] == expected_moves
    with torch.no_grad():
        expected = model(x)
    out = hp.torch.run(prog, (x,), dict(model.named_parameters()))
    assert torch.allclose(out, expected, rtol=1e-5, atol=1e-5), (out - expected).abs().max()


def transformers_moe(name):
    """A tiny MixtralForCausalLM or Qwen2MoeForCausalLM (hf_causal_lm.make_moe)
    in a Logits wrapper, and its inputs."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch"))
    import hf_causal_lm
    return hf_causal_lm.Logits(hf_causal_lm.make_moe(name)), \
        hf_causal_lm.make_inputs(with_mask=True)


@pytest.mark.parametrize("split", ["experts", "within"])
@pytest.mark.parametrize("name", ["mixtral", "qwen2_moe"])
def test_transformers_moe_split_by_experts(name, split):
    # By expert (expert parallel: tokens go to their experts' ranks by
    # all_to_all), or inside each expert (tensor parallel: gate_up by its
    # output features, down by its input features).
    wrapped, args = transformers_moe(name)
    implementation = wrapped.model.config._experts_implementation
    within = {"gate_up_proj": [hp.Shard(1)], "down_proj": [hp.Shard(2)]}
    experts = {n: [hp.Shard(0)] if split == "experts" else within[n.rsplit(".", 1)[1]]
               for n, _ in wrapped.named_parameters() if ".experts." in n}
    assert len(experts) == 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prog = hp.torch.export(wrapped, args, M4, params=experts)
    said = [str(w.message) for w in caught]
    assert not [m for m in said if "runs replicated" in m], said
    # No expert weight gathered: each rank reads its experts' rows (for
    # Qwen2-MoE's small tables thanks to param-memory-weight, which prices
    # a whole weight held on every rank).
    gathered = [m for m in said if "gathers the whole" in m]
    assert gathered == [], gathered
    assert wrapped.model.config._experts_implementation == implementation  # restored
    kinds = hp.torch.collectives(prog)["counts"]
    if split == "experts":
        assert "all_to_all" in kinds, kinds
    with torch.no_grad():
        expected = wrapped(*args)
    out = hp.torch.run(prog, args, dict(wrapped.named_parameters()))
    assert torch.allclose(out, expected, rtol=1e-5, atol=1e-5), (out - expected).abs().max()
