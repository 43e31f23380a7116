"""Parameters read by pieces: every rank reads only its own block of each
split parameter (dtensor-add-driver's block reads), from the files hp.torch
writes or in place from a safetensors checkpoint (hp.torch.Checkpoint), so
no process holds the whole model; checked against torch eager on one device
and by the ranks' peak memory.

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import json
import os
import sys

import pytest
import torch
from safetensors.torch import save_file
from torch import nn
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

import hp
import hp.torch

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import hf_causal_lm  # noqa: E402
from numerics import check_close  # noqa: E402
from test_plans_and_gathers import tied_llama  # noqa: E402
from test_sessions import llama  # noqa: E402,F401  (the Llama-style layer's fixture)

TP4 = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))
DP_TP = hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp"))


def test_session_and_run_read_a_safetensors_file_in_place(llama, tmp_path):
    model, prog = llama
    x = torch.randn(2, 16, 64)
    path = tmp_path / "layer.safetensors"
    save_file(dict(model.state_dict()), str(path))
    with torch.no_grad():
        expected = model(x)
    check_close(hp.torch.run(prog, x, params=str(path)), expected)
    with hp.torch.Session(prog, path) as sess:
        for i in range(3):
            torch.manual_seed(10 + i)
            y = torch.randn(2, 16, 64)
            with torch.no_grad():
                check_close(sess(y), model(y))


def test_a_sharded_save_pretrained_checkpoint_with_a_tied_head(tmp_path):
    # A wrapper's names are the checkpoint's with "model." in front; the
    # tied head is stored once (as the embedding) and read for both names.
    wrapped = tied_llama()
    wrapped.model.save_pretrained(str(tmp_path), max_shard_size="20KB")
    with open(tmp_path / "model.safetensors.index.json") as f:
        files = set(json.load(f)["weight_map"].values())
    assert len(files) > 1, "the checkpoint is not sharded; lower max_shard_size"
    args = hf_causal_lm.make_inputs(with_mask=True)
    prog = hp.torch.export(wrapped, args, TP4, plan=hf_causal_lm.plan_for(wrapped))
    with torch.no_grad():
        expected = wrapped(*args)
    with hp.torch.Session(prog, hp.torch.Checkpoint(tmp_path, prefix="model.")) as sess:
        check_close(sess(*args), expected)


def test_blocks_of_a_2d_mesh_with_uneven_rows(tmp_path):
    # 2x2 dp x tp: the 7 hidden features split over tp as 4 and 3 (the up
    # weight's rows, the down weight's columns), the input split over dp;
    # read from tensors and from a file.
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(6, 7), nn.ReLU(), nn.Linear(7, 6))
    x = torch.randn(4, 6)
    prog = hp.torch.export(model, (x,), DP_TP, inputs=[[hp.Shard(0), hp.Replicate()]],
                           plan={"0": ColwiseParallel(), "2": RowwiseParallel()})
    path = tmp_path / "m.safetensors"
    save_file(dict(model.state_dict()), str(path))
    with torch.no_grad():
        expected = model(x)
    check_close(hp.torch.run(prog, x, params=dict(model.named_parameters())), expected)
    check_close(hp.torch.run(prog, x, params=path), expected)


class Wide(nn.Module):
    """An MLP whose weights dominate a rank's memory (512 MiB in f32)."""

    def __init__(self, hidden, ffn):
        super().__init__()
        self.up = nn.Linear(hidden, ffn, bias=False)
        self.down = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


PLAN = {"up": ColwiseParallel(), "down": RowwiseParallel()}


def peak_of(model, params, x):
    prog = hp.torch.export(model, (x,), TP4, plan=PLAN)
    with hp.torch.Session(prog, params(model)) as sess:
        with torch.no_grad():
            check_close(sess(x), model(x))
        return sess.peak_memory()


@pytest.mark.parametrize("source", ["tensors", "checkpoint"])
def test_each_rank_holds_about_a_quarter_of_the_weights(source, tmp_path):
    def params(model):
        if source == "tensors":
            return dict(model.named_parameters())
        path = tmp_path / f"{id(model)}.safetensors"
        save_file(dict(model.state_dict()), str(path))
        return path

    torch.manual_seed(2)
    # The same program with small weights: what a rank holds besides them
    # (the compiled program, MPI, the runtime).
    base = max(peak_of(Wide(256, 1024), params, torch.randn(2, 256)))
    big = Wide(4096, 16384)
    whole = sum(p.numel() * p.element_size() for p in big.parameters())
    peaks = peak_of(big, params, torch.randn(2, 4096))
    del big
    assert len(peaks) == 4
    for rank, peak in enumerate(peaks):
        held = peak - base
        # A quarter (128 MiB) plus slack; a rank that read the whole model
        # would hold 512 MiB.
        assert held < 1.25 * whole / 4, \
            f"rank {rank} held {held >> 20} MiB above the base for {whole >> 20} MiB " \
            f"of weights split 4 ways"


def test_checkpoint_errors(llama, tmp_path):
    model, prog = llama
    x = torch.randn(2, 16, 64)
    state = dict(model.state_dict())
    with pytest.raises(ValueError, match="no checkpoint at"):
        hp.torch.Session(prog, tmp_path / "absent.safetensors")
    missing = dict(state)
    name = next(n for n, _ in model.named_parameters())
    del missing[name]
    save_file(missing, str(tmp_path / "missing.safetensors"))
    with pytest.raises(ValueError, match=f"has no tensor for parameter '{name}'"):
        hp.torch.run(prog, x, params=tmp_path / "missing.safetensors")
    half = {k: v.to(torch.bfloat16) for k, v in state.items()}
    save_file(half, str(tmp_path / "half.safetensors"))
    with pytest.raises(ValueError, match="torch.bfloat16; the program was exported for .* "
                                         "torch.float32 \\(export the model in the "
                                         "checkpoint's dtype\\)"):
        hp.torch.Session(prog, tmp_path / "half.safetensors")
    wrong = dict(state)
    wrong[name] = torch.zeros(3)
    save_file(wrong, str(tmp_path / "wrong.safetensors"))
    with pytest.raises(ValueError, match=f"'{name}' in .* is \\(3,\\) torch.float32"):
        hp.torch.Session(prog, tmp_path / "wrong.safetensors")
    (tmp_path / "junk.safetensors").write_bytes(b"\xff" * 64)
    with pytest.raises(ValueError, match="is not a safetensors file"):
        hp.torch.Session(prog, tmp_path / "junk.safetensors")
    with pytest.raises(TypeError, match="prefix must be a str"):
        hp.torch.Checkpoint(tmp_path, prefix=3)
    with pytest.raises(TypeError, match="params must be a dict of name -> tensor or the "
                                        "path of a safetensors checkpoint"):
        hp.torch.run(prog, x, params=[1, 2])
