"""Parameters read by pieces: every rank reads only its own block of each
split parameter (dtensor-add-driver's block reads), from the files hp.torch
writes or in place from a safetensors checkpoint (hp.torch.Checkpoint), so
no process holds the whole model; checked against torch eager on one device
and by the ranks' peak memory.

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import copy
import json
import os
import random
import signal
import struct
import sys

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file
from torch import nn
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

import hp
import hp.torch
from hp import _checkpoint

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


def _safetensors_with_header(path, header, data):
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


def _safe_open_accepts(path):
    try:
        with safe_open(str(path), "pt") as f:
            f.keys()
        return True
    except Exception:  # pylint: disable=broad-except  (any refusal)
        return False


def _hp_accepts(path):
    try:
        _checkpoint._entries(str(path))
        return True
    except ValueError:
        return False


def test_a_mutated_header_is_read_exactly_when_safetensors_reads_it(tmp_path):
    # The format's own reader is the definition: thousands of headers with
    # one field changed (floats and strings for integers, overlapping,
    # gapped and out-of-range offsets, lengths that disagree with the shape,
    # unknown dtypes, a bad __metadata__), each accepted by hp exactly when
    # safetensors.safe_open accepts it; then bytes of a header flipped.
    base = tmp_path / "base.safetensors"
    save_file({"a": torch.randn(4, 8), "b": torch.randn(16), "c": torch.zeros(0, 3)},
              str(base))
    raw = base.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
    rng = random.Random(0)
    values = [0, 1, 16, 64, 128, 192, 16.0, 16.9, "8", -1, True, None, [1], 2**64, 1e3]
    path = tmp_path / "mutant.safetensors"
    accepted = refused = 0
    for _ in range(1500):
        h = copy.deepcopy(header)
        name = rng.choice(["a", "b", "c"])
        field = rng.choice(["shape", "data_offsets", "dtype", "extra", "meta", "del"])
        if field in ("shape", "data_offsets"):
            v = list(h[name][field])
            if v and rng.random() < .8:
                v[rng.randrange(len(v))] = rng.choice(values)
            else:
                v = rng.choice([[], [64], [2, 32], "x", [0, 1, 2], [0, 128]])
            h[name][field] = v
        elif field == "dtype":
            h[name]["dtype"] = rng.choice(["F32", "F16", "I64", "U16", "F4", "float32", 3])
        elif field == "extra":
            h[name]["other"] = 1
        elif field == "meta":
            h["__metadata__"] = rng.choice([{"k": "v"}, {"k": 1}, None, "s", []])
        else:
            del h[name]
        _safetensors_with_header(path, h, data)
        want = _safe_open_accepts(path)
        assert _hp_accepts(path) == want, h
        accepted, refused = accepted + want, refused + (not want)
    text = json.dumps(header).encode()
    for _ in range(300):
        flipped = bytearray(text)
        flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        path.write_bytes(struct.pack("<Q", len(flipped)) + bytes(flipped) + data)
        assert _hp_accepts(path) == _safe_open_accepts(path), bytes(flipped)
    assert accepted > 100 and refused > 100  # both sides of the rule were tried
    # JSON that Python reads and the format does not: a key twice, a lone
    # surrogate, nesting past 127; and every dtype the format knows.
    entry = '"dtype": "F32", "shape": [0], "data_offsets": [0, 0]'
    texts = ['{"x": {' + entry + ', "dtype": "F32"}}', '{"__metadata__": {}, "__metadata__": {}}',
             '{"\\ud800": {' + entry + '}}', '{"x": {' + entry + ', "dtype": "F8_XX"}}']
    texts += ['{"x": {' + entry + ', "o": ' + "[" * d + "]" * d + '}}'
              for d in (125, 126, 100000)]
    texts += ['{"x": {"dtype": "%s", "shape": [0], "data_offsets": [0, 0]}}' % d
              for d in _checkpoint._FORMAT_BITS]
    for text in texts:
        raw = text.encode("utf-8", "surrogatepass")
        path.write_bytes(struct.pack("<Q", len(raw)) + raw)
        assert _hp_accepts(path) == _safe_open_accepts(path), text[:80]


def test_a_corrupt_header_is_refused_before_the_ranks_start(llama, tmp_path):
    model, prog = llama
    x = torch.randn(2, 16, 64)
    good = tmp_path / "good.safetensors"
    save_file(dict(model.state_dict()), str(good))
    raw = good.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header, data = json.loads(raw[8:8 + n]), raw[8 + n:]
    first, second = sorted((k for k in header if k != "__metadata__"),
                           key=lambda k: header[k]["data_offsets"])[:2]
    overlapping = copy.deepcopy(header)
    overlapping[second]["data_offsets"][0] -= 4
    floats = copy.deepcopy(header)
    floats[first]["shape"] = [float(d) + 0.9 for d in floats[first]["shape"]]
    strings = copy.deepcopy(header)
    strings[first]["shape"] = [str(d) for d in strings[first]["shape"]]
    for bad in (overlapping, floats, strings):
        path = tmp_path / "bad.safetensors"
        _safetensors_with_header(path, bad, data)
        assert not _safe_open_accepts(path)
        with pytest.raises(ValueError, match="is not a safetensors file"):
            hp.torch.run(prog, x, params=path)


def _split_checkpoint(model, directory, stale_first):
    """The model's state in two files, the index putting ``stale_first``'s
    tensor in the second while the first holds an older copy of it."""
    state = dict(model.state_dict())
    names = sorted(state)
    moved = [stale_first] + [n for n in names[len(names) // 2:] if n != stale_first]
    kept = [n for n in names if n not in moved]
    first = {n: state[n] for n in kept}
    first[stale_first] = torch.zeros_like(state[stale_first])  # the stale copy
    save_file(first, str(directory / "model-00001-of-00002.safetensors"))
    save_file({n: state[n] for n in moved}, str(directory / "model-00002-of-00002.safetensors"))
    weight_map = {n: "model-00001-of-00002.safetensors" for n in kept}
    weight_map.update({n: "model-00002-of-00002.safetensors" for n in moved})
    return weight_map


def test_a_sharded_index_is_followed_and_two_copies_without_one_refused(llama, tmp_path):
    model, prog = llama
    x = torch.randn(2, 16, 64)
    name = next(n for n, _ in model.named_parameters())
    weight_map = _split_checkpoint(model, tmp_path, name)
    # No index: the name is in both files and nothing says which is current.
    with pytest.raises(ValueError, match=f"'{name}' is in both .* no index"):
        hp.torch.run(prog, x, params=tmp_path)
    with open(tmp_path / "model.safetensors.index.json", "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)
    with torch.no_grad():
        check_close(hp.torch.run(prog, x, params=tmp_path), model(x))
        # A tensor of a shard the index does not list is read from its shard,
        # as transformers reads it.
        listed = {n: f for n, f in weight_map.items() if n != name}
        with open(tmp_path / "model.safetensors.index.json", "w") as f:
            json.dump({"weight_map": listed}, f)
        with pytest.raises(ValueError, match=f"'{name}' is in both"):
            hp.torch.run(prog, x, params=tmp_path)  # unlisted and in two shards
        other = next(n for n, f in weight_map.items() if f.startswith("model-00002")
                     and n != name)
        listed = {n: f for n, f in weight_map.items() if n != other}
        with open(tmp_path / "model.safetensors.index.json", "w") as f:
            json.dump({"weight_map": listed}, f)
        check_close(hp.torch.run(prog, x, params=tmp_path), model(x))
    # The index names a file that is not there, or one without the tensor.
    weight_map[name] = "model-00003-of-00002.safetensors"
    with open(tmp_path / "model.safetensors.index.json", "w") as f:
        json.dump({"weight_map": weight_map}, f)
    with pytest.raises(ValueError, match=f"params: .* puts '{name}' in "
                                         "model-00003-of-00002.safetensors, and there is no"):
        hp.torch.run(prog, x, params=tmp_path)
    other = next(n for n, f in weight_map.items() if f.startswith("model-00002") and n != name)
    weight_map[name], weight_map[other] = (weight_map[other],
                                           "model-00001-of-00002.safetensors")
    with open(tmp_path / "model.safetensors.index.json", "w") as f:
        json.dump({"weight_map": weight_map}, f)
    with pytest.raises(ValueError, match=f"puts '{other}' in model-00001-of-00002.safetensors, "
                                         "which holds no tensor of that name"):
        hp.torch.run(prog, x, params=tmp_path)


@pytest.mark.parametrize("what", ["file", "index"])
def test_a_fifo_is_refused_without_blocking(llama, tmp_path, what):
    model, prog = llama
    path = tmp_path / ("model.safetensors" if what == "file" else "x.safetensors.index.json")
    os.mkfifo(path)

    def hung(*_):
        raise AssertionError("reading the FIFO blocked")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        with pytest.raises(ValueError, match="is not a regular file"):
            hp.torch.Session(prog, path)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
