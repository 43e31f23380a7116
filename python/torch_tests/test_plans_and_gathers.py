"""Plans as transformers users give them and gathers they are told about:
an LM head tied to its embedding under vocabulary- and embedding-dim
parallel plans, plan="auto" (transformers' own plan strings), and the
warnings for whole parameters gathered (warn_gather_bytes), on 4 CPU ranks
against torch eager on one device.

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import os
import sys
import warnings

import pytest
import torch
from torch import nn
from torch.distributed.tensor import Replicate, Shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

import hp
import hp.torch
from numerics import check_close  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import hf_causal_lm  # noqa: E402
from hf_causal_lm import BATCH, SEQ, VOCAB  # noqa: E402

TP4 = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))


def export_quietly(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return hp.torch.export(*args, **kwargs)


def tied_llama():
    torch.manual_seed(0)
    model = hf_causal_lm.make_model("llama", layers=1)
    model.config.tie_word_embeddings = True
    model.tie_weights()
    assert model.lm_head.weight is model.model.embed_tokens.weight
    return hf_causal_lm.Logits(model)


def layer_plan():
    return {k: v for k, v in hf_causal_lm.plan_for(tied_llama()).items()
            if ".layers." in k}


HIDDEN, LOGITS = BATCH * SEQ * 64 * 4, BATCH * SEQ * VOCAB * 4


@pytest.mark.parametrize("embed,head,moved,torch_bytes,gathers_table", [
    # Vocabulary parallel (the table split by rows serves both): torch's
    # collectives, the embedding's all_reduce, the layer's two and the
    # logits' all_gather. Gathering the 32 KiB table instead would move the
    # same bytes in fewer steps, but every rank would then hold the whole
    # table each step (dtensor-propagate's param-memory-weight), so hp keeps
    # it split.
    (RowwiseParallel(input_layouts=Replicate()), ColwiseParallel(output_layouts=Replicate()),
     {"all_reduce": 3, "all_gather": 1}, 3 * 2 * 3 / 4 * HIDDEN + 3 / 4 * LOGITS, False),
    # Embedding-dim parallel (split by columns): the embedding's output
    # gathered (Colwise to Replicate), the layer's two all_reduces, the
    # head's partial logits all_reduced: torch's collectives.
    (ColwiseParallel(output_layouts=Replicate()), RowwiseParallel(input_layouts=Replicate()),
     {"all_reduce": 3, "all_gather": 1}, 3 / 4 * HIDDEN + 2 * 2 * 3 / 4 * HIDDEN
     + 2 * 3 / 4 * LOGITS, False),
])
def test_tied_lm_head(embed, head, moved, torch_bytes, gathers_table):
    wrapped = tied_llama()
    plan = {**layer_plan(), "model.model.embed_tokens": embed, "model.lm_head": head}
    args = hf_causal_lm.make_inputs(with_mask=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prog = hp.torch.export(wrapped, args, TP4, plan=plan)
    gathers = [str(w.message) for w in caught if "gathers the whole" in str(w.message)]
    table = "'model.model.embed_tokens.weight' ('tensor<128x64xf32>', 32.0 KiB)"
    assert [table in g for g in gathers] == [True] * gathers_table, gathers
    assert hp.torch.collectives(prog) == {"counts": moved, "bytes": torch_bytes}
    with torch.no_grad():
        expected = wrapped(*args)
    params = dict(wrapped.named_parameters(remove_duplicate=False))
    check_close(hp.torch.run(prog, args, params), expected)


def test_tied_parameter_split_two_ways_is_refused():
    wrapped = tied_llama()
    plan = {"model.model.embed_tokens": RowwiseParallel(input_layouts=Replicate()),
            "model.lm_head": RowwiseParallel()}
    with pytest.raises(ValueError, match="one tied parameter.*'model.lm_head' and "
                                         "'model.model.embed_tokens' split differently"):
        hp.torch.export(wrapped, hf_causal_lm.make_inputs(), TP4, plan=plan)


@pytest.mark.parametrize("name", ["llama", "qwen2"])
def test_auto_plan_is_transformers_plan(name):
    torch.manual_seed(0)
    wrapped = hf_causal_lm.Logits(hf_causal_lm.make_model(name, layers=1))
    args = hf_causal_lm.make_inputs(with_mask=True)
    prog = export_quietly(wrapped, args, TP4, plan="auto")
    # transformers' plan: embedding_rowwise, colwise/rowwise layers,
    # lm_head colwise_gather_output: torch's standard plan, its collectives.
    moved = hp.torch.collectives(prog)
    assert moved["counts"] == {"all_reduce": 3, "all_gather": 1}
    hidden, logits = BATCH * SEQ * 64 * 4, BATCH * SEQ * VOCAB * 4
    assert moved["bytes"] == 3 * 2 * 3 / 4 * hidden + 3 / 4 * logits
    with torch.no_grad():
        expected = wrapped(*args)
    check_close(hp.torch.run(prog, args, dict(wrapped.named_parameters())), expected)


def test_auto_plan_refusals():
    with pytest.raises(ValueError, match="holds no transformers model"):
        hp.torch.export(nn.Linear(4, 4), (torch.randn(2, 4),), TP4, plan="auto")
    bert = hf_causal_lm.make_bert(layers=1)
    with pytest.raises(ValueError, match="BertModel at 'model' has no tensor-parallel plan"):
        hp.torch.export(bert, hf_causal_lm.make_inputs(), TP4, plan="auto")
    model = hf_causal_lm.make_model("llama", layers=1)
    model._tp_plan = {**model._tp_plan, "lm_head": "colwise_sideways"}
    with pytest.raises(ValueError, match="'colwise_sideways' for module 'model.lm_head' is "
                                         "not a transformers plan string"):
        hp.torch.export(hf_causal_lm.Logits(model), hf_causal_lm.make_inputs(), TP4,
                        plan="auto")
    with pytest.raises(ValueError, match='plan must be a dict or "auto"'):
        hp.torch.export(nn.Linear(4, 4), (torch.randn(2, 4),), TP4, plan="Auto")


class Gathered(nn.Module):
    """A row-parallel weight the program gathers (8 x 8, 256 B) rather than
    all_reducing the 64 x 8 output it would make."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8, bias=False)

    def forward(self, x):
        return self.lin(x)  # the gather is reported here


def export_gathered(**kwargs):
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prog = hp.torch.export(Gathered(), (torch.randn(64, 8),), TP4,
                               params={"lin.weight": [Shard(1)]}, **kwargs)
    return prog, [str(w.message) for w in caught]


def test_a_gathered_parameter_is_reported_at_the_users_line():
    prog, said = export_gathered()
    assert hp.torch.collectives(prog)["counts"] == {"all_gather": 1}
    gathers = [m for m in said if "gathers the whole" in m]
    assert len(gathers) == 1, said
    assert "test_plans_and_gathers.py:" in gathers[0]
    assert "aten.linear" in gathers[0] or "aten.mm" in gathers[0] or "aten.t" in gathers[0]
    assert "'lin.weight' ('tensor<8x8xf32>', 256 B)" in gathers[0]
    assert any(r.kind == "gathers-whole" and r.parameter == "lin.weight" for r in prog.remarks)


@pytest.mark.parametrize("threshold,reported", [(0, False), (257, False), (256, True), (1, True)])
def test_warn_gather_bytes_sets_the_threshold(threshold, reported):
    _, said = export_gathered(warn_gather_bytes=threshold)
    gathers = [m for m in said if "gathers the whole" in m]
    assert bool(gathers) == reported, said
    if reported:
        assert f"(warn-gather-bytes={threshold})" in gathers[0]
        assert "'lin.weight'" in gathers[0]


@pytest.mark.parametrize("bad,error", [(-1, ValueError), (2**64, ValueError), (1.5, TypeError),
                                       ("1", TypeError), (True, TypeError)])
def test_warn_gather_bytes_refuses_bad_values(bad, error):
    with pytest.raises(error, match="warn_gather_bytes"):
        hp.torch.export(Gathered(), (torch.randn(64, 8),), TP4, warn_gather_bytes=bad)


def test_gpt2_conv1d_styles():
    """GPT2LMHeadModel as transformers builds it (SDPA, tanh GELU, Conv1D,
    tied head) under column-/row-wise styles on its Conv1D layers."""
    torch.manual_seed(0)
    wrapped = hf_causal_lm.Logits(hf_causal_lm.make_gpt2(layers=1))
    args = hf_causal_lm.make_inputs(with_mask=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prog = hp.torch.export(wrapped, args, TP4, plan=hf_causal_lm.GPT2_PLAN)
    said = [str(w.message) for w in caught]
    assert not [m for m in said if "runs replicated" in m], said
    # Conv1D's weight is [in, out]: column-wise splits dim 1, row-wise dim 0.
    placed = {k: v[2] for k, v in prog.state_specs.items()}
    layer = "model.transformer.h.0."
    assert placed[layer + "attn.c_attn.weight"] == [hp.Shard(1)]
    assert placed[layer + "attn.c_attn.bias"] == [hp.Shard(0)]
    assert placed[layer + "attn.c_proj.weight"] == [hp.Shard(0)]
    assert placed[layer + "mlp.c_fc.weight"] == [hp.Shard(1)]
    assert placed[layer + "mlp.c_proj.weight"] == [hp.Shard(0)]
    # By hand: the tied 128x64 table stays split (no parameter gathered):
    # the embedding's all_reduce and the logits' all_gather, as torch; c_attn's
    # fused q|k|v output (192 columns in 4 blocks of 48, across head bounds)
    # gathered before it is split; the two row-wise outputs all_reduced.
    assert not [m for m in said if "gathers the whole" in m], said
    qkv = BATCH * SEQ * 3 * 64 * 4
    assert hp.torch.collectives(prog) == {
        "counts": {"all_gather": 2, "all_reduce": 3},
        "bytes": 2 * 3 / 4 * HIDDEN + 3 / 4 * LOGITS + 3 / 4 * qkv + 2 * 2 * 3 / 4 * HIDDEN}
    with torch.no_grad():
        expected = wrapped(*args)
    params = dict(wrapped.named_parameters(remove_duplicate=False))
    check_close(hp.torch.run(prog, args, params), expected)
