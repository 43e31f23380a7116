"""Attention as torch and transformers write it: F.scaled_dot_product_attention
(causal, boolean and float masks, fewer KV heads), nn.MultiheadAttention, the
masks transformers builds (its cumsum included) and whole causal LMs, split
by heads under tensor parallel plans and by batch under data parallel, on 4
CPU ranks against torch eager on one device (rtol 1e-5, atol 1e-5).

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import os
import sys
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.distributed.tensor import Replicate, Shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

import hp
import hp.torch
from numerics import check_close  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import hf_causal_lm  # noqa: E402
from hf_causal_lm import BATCH, SEQ  # noqa: E402

TP4 = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
DP4 = hp.DeviceMesh("dp", [4], mesh_dim_names=("dp",))
DP2xTP2 = hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp"))


def export_quietly(*args, **kwargs):
    """hp.torch.export, failing on any warning: no op may run replicated."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return hp.torch.export(*args, **kwargs)


class Attention(nn.Module):
    """q/k/v/o projections around F.scaled_dot_product_attention; ``kv``
    heads (fewer than ``heads``: grouped-query attention) and the mask kind
    are the parameters."""

    def __init__(self, mask="causal", heads=8, kv=8, dim=64):
        super().__init__()
        self.heads, self.kv, self.mask = heads, kv, mask
        hd = dim // heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, kv * hd)
        self.v = nn.Linear(dim, kv * hd)
        self.o = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        b, s, d = x.shape
        q = self.q(x).view(b, s, self.heads, -1).transpose(1, 2)
        k = self.k(x).view(b, s, self.kv, -1).transpose(1, 2)
        v = self.v(x).view(b, s, self.kv, -1).transpose(1, 2)
        gqa = self.kv != self.heads
        if self.mask == "causal":
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)
        else:
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=gqa)
        return self.o(a.transpose(1, 2).reshape(b, s, d))


ATTENTION_PLAN = {"q": ColwiseParallel(), "k": ColwiseParallel(), "v": ColwiseParallel(),
                  "o": RowwiseParallel()}


def attention_inputs(mask):
    x = torch.randn(2, 16, 64)
    if mask == "bool":
        # Padding: the second sequence's last 5 keys are masked.
        keep = torch.ones(2, 1, 16, 16, dtype=torch.bool)
        keep[1, :, :, 11:] = False
        return (x, keep)
    if mask == "float":
        return (x, torch.randn(2, 1, 16, 16))
    return (x,)


@pytest.mark.parametrize("mask,kv", [("causal", 8), ("causal", 4), ("bool", 8), ("float", 4)])
def test_sdpa_split_by_heads(mask, kv):
    torch.manual_seed(0)
    model = Attention(mask, kv=kv).eval()
    args = attention_inputs(mask)
    prog = export_quietly(model, args, TP4, plan=ATTENTION_PLAN)
    # torch: the row-wise o projection's all_reduce, nothing else (the
    # heads, and the masks broadcast over them, stay on their ranks).
    moved = hp.torch.collectives(prog)
    assert moved["counts"] == {"all_reduce": 1}
    assert moved["bytes"] == 2 * 3 / 4 * 2 * 16 * 64 * 4
    check_close(hp.torch.run(prog, args, dict(model.named_parameters())), model(*args))


def test_sdpa_split_by_batch_moves_nothing():
    torch.manual_seed(0)
    model = Attention("bool").eval()
    args = attention_inputs("bool")
    prog = export_quietly(model, args, DP4, inputs=[[hp.Shard(0)], [hp.Shard(0)]],
                          outputs=[[hp.Shard(0)]])
    assert hp.torch.collectives(prog)["counts"] == {}
    check_close(hp.torch.run(prog, args, dict(model.named_parameters())), model(*args))


def test_multihead_attention_encoder_layer():
    torch.manual_seed(0)
    model = nn.TransformerEncoderLayer(64, 8, 128, dropout=0.0, batch_first=True).eval()
    x = torch.randn(2, 16, 64)
    prog = export_quietly(model, (x,), TP4,
                          plan={"linear1": ColwiseParallel(), "linear2": RowwiseParallel()})
    # As torch: the feed-forward's all_reduce; attention on whole heads
    # (MultiheadAttention's packed in_proj has no torch style) moves nothing.
    assert hp.torch.collectives(prog)["counts"] == {"all_reduce": 1}
    with torch.no_grad():
        check_close(hp.torch.run(prog, (x,), dict(model.named_parameters())), model(x))


def test_multihead_attention_with_a_causal_mask_split_by_batch():
    torch.manual_seed(0)
    attn = nn.MultiheadAttention(64, 8, batch_first=True).eval()
    # A float mask held as a constant: torch-mlir keeps it as a resource
    # after the module, which the driver must not cut off.
    mask = nn.Transformer.generate_square_subsequent_mask(16)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = attn

        def forward(self, x):
            return self.attn(x, x, x, attn_mask=mask, need_weights=False)[0]

    model = Block()
    x = torch.randn(4, 16, 64)
    prog = export_quietly(model, (x,), DP4, inputs=[[hp.Shard(0)]], outputs=[[hp.Shard(0)]])
    assert hp.torch.collectives(prog)["counts"] == {}
    with torch.no_grad():
        check_close(hp.torch.run(prog, (x,), dict(model.named_parameters())), model(x))


class Lookup(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 64)

    def forward(self, ids):
        return self.emb(ids)


@pytest.mark.parametrize("style,moves", [
    # torch's vocabulary-parallel embedding: zeros off each rank's rows,
    # one all_reduce of the activations (never the 256 KB table).
    (RowwiseParallel(input_layouts=Replicate()), {"all_reduce": 1}),
    # ... reduce-scattered along the sequence for sequence parallelism.
    (RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)),
     {"reduce_scatter": 1}),
    # Split by embedding dim: local lookups, nothing moved.
    (ColwiseParallel(), {}),
])
def test_embedding_styles_do_not_gather_the_table(style, moves):
    torch.manual_seed(0)
    model = Lookup()
    ids = torch.randint(0, 1000, (2, 24))
    ids[0, :3] = torch.tensor([0, 249, 250])  # the first and last rows of pieces
    prog = export_quietly(model, (ids,), TP4, plan={"emb": style})
    moved = hp.torch.collectives(prog)
    assert moved["counts"] == moves
    activations = 2 * 24 * 64 * 4
    assert moved["bytes"] == {"all_reduce": 2 * 3 / 4 * activations,
                              "reduce_scatter": 3 / 4 * activations}.get(
                                  next(iter(moves), None), 0)
    out = hp.torch.run(prog, (ids,), dict(model.named_parameters()))
    with torch.no_grad():
        assert torch.equal(out, model(ids))


def test_cumsum_is_taken_along_and_across_a_split_dim():
    # cumsum and cumprod as dtensor.scan (not torch-mlir's tm_tensor loop):
    # split along the scanned dim, each rank's piece from the pieces before.
    # The f32 running sum is carried in f64 as torch's CPU kernel carries
    # it: over 4096 elements an f32 one would be off by about 1e-4.
    class Scan(nn.Module):
        def forward(self, x, ids, long):
            return (x.cumsum(1), (ids != 1).cumsum(-1), ids.cumsum(1, dtype=torch.int32),
                    (x.sign() + 1.5).cumprod(1), long.cumsum(1))

    x = torch.randn(4, 12, 8)
    ids = torch.randint(0, 3, (4, 12))
    long = torch.randn(2, 4096)
    model = Scan()
    for ps in ([hp.Shard(1)], [hp.Shard(0)]):
        prog = export_quietly(model, (x, ids, long), TP4, inputs=[ps, ps, ps])
        assert str(prog).count("dtensor.scan") == 5 and "tm_tensor" not in str(prog)
        out = hp.torch.run(prog, (x, ids, long))
        expected = model(x, ids, long)
        check_close(out[0], expected[0])
        assert out[1].dtype == torch.int64 and torch.equal(out[1], expected[1])
        assert out[2].dtype == torch.int32 and torch.equal(out[2], expected[2])
        check_close(out[3], expected[3])
        check_close(out[4], expected[4], rtol=1e-6, atol=1e-6)


def test_bool_inputs_and_outputs_travel_as_bytes():
    class Masks(nn.Module):
        def forward(self, x, keep):
            positive = x > 0
            return positive & keep, torch.where(keep, x, 0.0), positive.any(-1)

    x = torch.randn(8, 6)
    keep = torch.rand(8, 6) > 0.3
    model = Masks()
    prog = export_quietly(model, (x, keep), TP4, inputs=[[hp.Shard(0)], [hp.Shard(0)]],
                          outputs=[[hp.Shard(0)], [hp.Shard(1)], [hp.Shard(0)]])
    out = hp.torch.run(prog, (x, keep))
    for got, expected in zip(out, model(x, keep)):
        assert got.dtype == expected.dtype and torch.equal(got, expected)


def test_tanh_gelu_matches_torch_to_float_rounding():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 128), nn.GELU(approximate="tanh"), nn.Linear(128, 32))
    x = torch.randn(8, 32) * 3
    prog = export_quietly(model, (x,), TP4, plan={"0": ColwiseParallel(), "2": RowwiseParallel()})
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters())), model(x))


# Each model with and without the cache and the padding mask, llama in
# every combination (the mask code is transformers' own, shared by all).
@pytest.mark.parametrize("name,use_cache,with_mask", [
    ("llama", False, False), ("llama", True, False), ("llama", False, True),
    ("mistral", False, True), ("mistral", True, False), ("qwen2", True, True)])
def test_causal_lm_tensor_parallel(name, use_cache, with_mask):
    torch.manual_seed(0)
    model = hf_causal_lm.make_model(name)
    args = hf_causal_lm.make_inputs(with_mask)
    wrapped = hf_causal_lm.Logits(model, use_cache)
    prog = export_quietly(wrapped, args, TP4, plan=hf_causal_lm.plan_for(wrapped))
    # As torch: the vocabulary-parallel embedding's all_reduce, each of the
    # two layers' o and down projections' all_reduces, and the gather of
    # the vocabulary-split logits.
    moved = hp.torch.collectives(prog)
    assert moved["counts"] == {"all_reduce": 5, "all_gather": 1}
    hidden, logits = BATCH * SEQ * 64 * 4, BATCH * SEQ * hf_causal_lm.VOCAB * 4
    assert moved["bytes"] == 5 * 2 * 3 / 4 * hidden + 3 / 4 * logits
    with torch.no_grad():
        expected = wrapped(*args)
    check_close(hp.torch.run(prog, args, dict(wrapped.named_parameters())), expected)


@pytest.mark.parametrize("name", ["llama", "mistral", "qwen2", "bert"])
def test_whole_models_data_by_tensor_parallel(name):
    torch.manual_seed(0)
    # One layer: placing a 2-D mesh is the slow part of this test.
    if name == "bert":
        wrapped, plan = hf_causal_lm.make_bert(layers=1), hf_causal_lm.BERT_PLAN
    else:
        wrapped = hf_causal_lm.Logits(hf_causal_lm.make_model(name, layers=1),
                                      use_cache=False)
        plan = hf_causal_lm.plan_for(wrapped)
    args = hf_causal_lm.make_inputs(with_mask=True)
    prog = export_quietly(wrapped, args, DP2xTP2, plan=plan,
                          inputs=[[hp.Shard(0), hp.Replicate()]] * 2)
    # As torch on tp: the embedding's and the layer's two all_reduces and
    # (causal LMs) the logits' all_gather; the padding mask stays split by
    # batch (its mask op reads it at the batch index, wrapped for negative
    # values).
    moved = hp.torch.collectives(prog)
    # Each collective over the tp pair (2 ranks) on this dp half's batch.
    hidden, logits = SEQ * 64 * 4, SEQ * hf_causal_lm.VOCAB * 4
    if name == "bert":
        assert moved == {"counts": {"all_reduce": 3}, "bytes": 3 * 2 * 1 / 2 * hidden}
    else:
        assert moved["counts"] == {"all_gather": 1, "all_reduce": 3}
        assert moved["bytes"] == 3 * 2 * 1 / 2 * hidden + 1 / 2 * logits
    with torch.no_grad():
        expected = wrapped(*args)
    check_close(hp.torch.run(prog, args, dict(wrapped.named_parameters())), expected)


def test_bert_model():
    torch.manual_seed(0)
    model = hf_causal_lm.make_bert()
    args = hf_causal_lm.make_inputs(with_mask=True)
    prog = export_quietly(model, args, TP4, plan=hf_causal_lm.BERT_PLAN)
    # The embedding's and each layer's two all_reduces, as torch.
    assert hp.torch.collectives(prog)["counts"] == {"all_reduce": 5}
    with torch.no_grad():
        expected = model(*args)
    check_close(hp.torch.run(prog, args, dict(model.named_parameters())), expected)
