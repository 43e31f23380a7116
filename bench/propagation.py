#!/usr/bin/env python3
"""Whole-program placement: dtensor-propagate vs torch-like greedy vs upstream.

Builds a corpus of global-view programs (one `dtensor.global_region` in a
function @program each): a tensor-parallel MLP, the same with sequence
parallelism, multi-head attention, the Megatron TP+SP layer of
examples/global_megatron_layer.mlir, chains built to trap an op-by-op
choice, DAGs with residuals, and MLPs on a 2-D (dp x tp) mesh. For each:

  * `hp-opt --dtensor-propagate=print-strategies` under pure bytes
    (latency-bytes=0 flop-bytes=0: the cost is the bytes one rank sends) and
    under the default cost model; from the summary remark: hp's cost, the
    greedy cost (torch DTensor's op-by-op choice: each op in program order
    takes its cheapest strategy given its inputs' placements), the lower
    bound and whether the solution is exact;
  * `hp-opt --hp-partition`: the collectives inside func @program by kind,
    and their bytes per rank from the static types, counted by hp's C++
    (hp.partitioned_collectives; ring algorithms: all_gather (n-1)/n of its result, reduce_scatter and all_to_all (n-1)/n
    of their operand, all_reduce twice that, shift one block);
  * the planning time: the wall time of `hp-opt --dtensor-propagate`;
  * upstream MLIR where it can say the program: the same body with
    `shard.shard` annotations on the arguments, the constraints and the
    results, through `mlir-opt` sharding-propagation and shard-partition,
    its collectives counted and priced the same way ("n/a" and the reason
    where upstream cannot express the program or fails).

Then times propagation and `hp-opt --hp-partition` of generated global
regions of about 1,000 ops on a 1-D mesh of 4 (a residual stack of Megatron
MLP blocks, and the same with skip connections; target under 2 s).

Prints the tables, writes them to OUT/propagation.txt and, where matplotlib
is installed, a bar chart to OUT/propagation.png (OUT: --out, default
build/bench). Exits 1 if hp's cost is above greedy's on any program (never
worse than greedy is the target), 2 if hp-opt failed on one; timings are
never asserted. A benchmark, never a test.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HP_OPT = os.environ.get("HP_OPT", os.path.join(ROOT, "build", "bin", "hp-opt"))
MLIR_OPT = os.environ.get("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt")
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
KINDS = ["all_gather", "all_reduce", "reduce_scatter", "all_to_all", "permute"]
KIND_SHORT = {"all_gather": "AG", "all_reduce": "AR", "reduce_scatter": "RS",
              "all_to_all": "A2A", "permute": "P"}


# ---------------------------------------------------------------------------
# Program builder: ordinary linalg/tensor ops on global tensors.
# ---------------------------------------------------------------------------

def ttype(shape, elt="f32"):
    return f"tensor<{'x'.join(map(str, shape))}x{elt}>"


def placement_text(p):
    return "replicate" if p == "R" else f"shard<{p[1:]}>"


def dtype(shape, mesh_name, placement):
    ps = ", ".join(placement_text(p) for p in placement)
    return f"!dtensor.tensor<{'x'.join(map(str, shape))}xf32, @{mesh_name}, [{ps}]>"


class Program:
    """A global-view program: arguments with placements, a body of plain ops,
    results with placements; `hp_text()` is its dtensor form."""

    def __init__(self, name, mesh, names=None, note=""):
        self.name = name
        self.mesh = tuple(mesh)
        self.mesh_names = names or (["tp"] if len(mesh) == 1 else ["dp", "tp"])
        self.note = note
        self.args = []      # (name, shape, placement)
        self.lines = []
        self.results = []   # (value, placement)
        self.n = 0
        self.shapes = {}
        self.lines.append("%zero = arith.constant 0.0 : f32")
        self.lines.append("%ninf = arith.constant 0xFF800000 : f32")

    # -- values --
    def _new(self, shape, prefix="v"):
        self.n += 1
        name = f"%{prefix}{self.n}"
        self.shapes[name] = tuple(shape)
        return name

    def arg(self, name, shape, placement):
        self.args.append((name, tuple(shape), tuple(placement)))
        self.shapes["%" + name] = tuple(shape)
        return "%" + name

    def _filled(self, shape, value="%zero"):
        e = self._new(shape, "e")
        z = self._new(shape, "z")
        t = ttype(shape)
        self.lines.append(f"{e} = tensor.empty() : {t}")
        self.lines.append(f"{z} = linalg.fill ins({value} : f32) outs({e} : {t}) -> {t}")
        return e, z

    # -- ops --
    def matmul(self, a, b):
        (m, k), (_, n) = self.shapes[a], self.shapes[b]
        _, z = self._filled((m, n))
        r = self._new((m, n))
        self.lines.append(
            f"{r} = linalg.matmul ins({a}, {b} : {ttype((m, k))}, {ttype((k, n))}) "
            f"outs({z} : {ttype((m, n))}) -> {ttype((m, n))}")
        return r

    def batch_matmul(self, a, b):
        (bt, m, k), (_, _, n) = self.shapes[a], self.shapes[b]
        _, z = self._filled((bt, m, n))
        r = self._new((bt, m, n))
        self.lines.append(
            f"{r} = linalg.batch_matmul ins({a}, {b} : {ttype((bt, m, k))}, "
            f"{ttype((bt, k, n))}) outs({z} : {ttype((bt, m, n))}) -> {ttype((bt, m, n))}")
        return r

    def map(self, op, *xs):
        """linalg.map of one arith/math op over same-shaped tensors."""
        shape = self.shapes[xs[0]]
        t = ttype(shape)
        e = self._new(shape, "e")
        r = self._new(shape)
        self.lines.append(f"{e} = tensor.empty() : {t}")
        self.lines.append(f"{r} = linalg.map {{ {op} }} ins({', '.join(xs)} : "
                          f"{', '.join([t] * len(xs))}) outs({e} : {t})")
        return r

    def relu(self, x):
        _, z = self._filled(self.shapes[x])
        return self.map("arith.maximumf", x, z)

    def tanh(self, x):
        return self.map("math.tanh", x)

    def add(self, a, b):
        return self.map("arith.addf", a, b)

    def mul(self, a, b):
        return self.map("arith.mulf", a, b)

    def _maps(self, rank, keep):
        dims = [f"d{i}" for i in range(rank)]
        full = f"affine_map<({', '.join(dims)}) -> ({', '.join(dims)})>"
        part = f"affine_map<({', '.join(dims)}) -> ({', '.join(dims[:keep])})>"
        return full, part

    def reduce_last(self, x, kind="add"):
        """Reduce the last dim (sum or max)."""
        shape = self.shapes[x]
        out = shape[:-1]
        _, z = self._filled(out, "%zero" if kind == "add" else "%ninf")
        full, part = self._maps(len(shape), len(shape) - 1)
        its = ", ".join(['"parallel"'] * (len(shape) - 1) + ['"reduction"'])
        op = "arith.addf" if kind == "add" else "arith.maximumf"
        r = self._new(out)
        self.lines += [
            f"{r} = linalg.generic {{indexing_maps = [{full}, {part}], iterator_types = [{its}]}}",
            f"    ins({x} : {ttype(shape)}) outs({z} : {ttype(out)}) {{",
            "^bb0(%a: f32, %acc: f32):",
            f"  %r = {op} %acc, %a : f32",
            "  linalg.yield %r : f32",
            f"}} -> {ttype(out)}"]
        return r

    def rowwise(self, x, v, body):
        """x[..., j] op v[...]: `body` maps (%a, %m) to %r."""
        shape = self.shapes[x]
        full, part = self._maps(len(shape), len(shape) - 1)
        its = ", ".join(['"parallel"'] * len(shape))
        e = self._new(shape, "e")
        r = self._new(shape)
        self.lines.append(f"{e} = tensor.empty() : {ttype(shape)}")
        self.lines += [
            f"{r} = linalg.generic {{indexing_maps = [{full}, {part}, {full}], iterator_types = [{its}]}}",
            f"    ins({x}, {v} : {ttype(shape)}, {ttype(self.shapes[v])}) outs({e} : {ttype(shape)}) {{",
            "^bb0(%a: f32, %m: f32, %o: f32):"] + ["  " + b for b in body] + [
            "  linalg.yield %r : f32",
            f"}} -> {ttype(shape)}"]
        return r

    def softmax(self, x):
        mx = self.reduce_last(x, "max")
        ex = self.rowwise(x, mx, ["%d = arith.subf %a, %m : f32", "%r = math.exp %d : f32"])
        sm = self.reduce_last(ex, "add")
        return self.rowwise(ex, sm, ["%r = arith.divf %a, %m : f32"])

    def scale(self, x, c):
        shape = self.shapes[x]
        full, _ = self._maps(len(shape), 0)
        its = ", ".join(['"parallel"'] * len(shape))
        e = self._new(shape, "e")
        r = self._new(shape)
        self.lines.append(f"{e} = tensor.empty() : {ttype(shape)}")
        self.lines += [
            f"{r} = linalg.generic {{indexing_maps = [{full}, {full}], iterator_types = [{its}]}}",
            f"    ins({x} : {ttype(shape)}) outs({e} : {ttype(shape)}) {{",
            "^bb0(%a: f32, %o: f32):",
            f"  %c = arith.constant {c!r} : f32",
            "  %r = arith.mulf %a, %c : f32",
            "  linalg.yield %r : f32",
            f"}} -> {ttype(shape)}"]
        return r

    def transpose(self, x, perm):
        shape = self.shapes[x]
        out = tuple(shape[p] for p in perm)
        e = self._new(out, "e")
        r = self._new(out)
        self.lines.append(f"{e} = tensor.empty() : {ttype(out)}")
        self.lines.append(f"{r} = linalg.transpose ins({x} : {ttype(shape)}) "
                          f"outs({e} : {ttype(out)}) permutation = {list(perm)}")
        return r

    def split_heads(self, x, heads):
        """[s, h] -> [s, heads, h / heads]"""
        s, h = self.shapes[x]
        out = (s, heads, h // heads)
        r = self._new(out)
        self.lines.append(f"{r} = tensor.expand_shape {x} [[0], [1, 2]] output_shape "
                          f"[{s}, {heads}, {h // heads}] : {ttype((s, h))} into {ttype(out)}")
        return r

    def merge_heads(self, x):
        s, heads, dh = self.shapes[x]
        out = (s, heads * dh)
        r = self._new(out)
        self.lines.append(f"{r} = tensor.collapse_shape {x} [[0], [1, 2]] : "
                          f"{ttype((s, heads, dh))} into {ttype(out)}")
        return r

    def result(self, v, placement):
        self.results.append((v, tuple(placement)))

    # -- text --
    def hp_text(self):
        m = "mesh"
        mesh_line = (f"dtensor.mesh @{m} shape = [{', '.join(map(str, self.mesh))}] "
                     "names = [" + ", ".join('"%s"' % n for n in self.mesh_names) + "]")
        atys = [dtype(s, m, p) for _, s, p in self.args]
        rtys = [dtype(self.shapes[v], m, p) for v, p in self.results]
        rty = rtys[0] if len(rtys) == 1 else f"({', '.join(rtys)})"
        rnames = ", ".join(f"%y{i}" for i in range(len(rtys)))
        lines = [mesh_line, "",
                 f"func.func @program({', '.join(f'%a_{n}: {t}' for (n, _, _), t in zip(self.args, atys))})",
                 f"    -> {rty} {{",
                 f"  {rnames} = dtensor.global_region on @{m} args("
                 f"{', '.join(f'%a_{n}' for n, _, _ in self.args)})",
                 f"      : ({', '.join(atys)})",
                 f"     -> {rty} {{",
                 f"  ^bb0({', '.join(f'%{n}: {ttype(s)}' for n, s, _ in self.args)}):"]
        lines += ["    " + l for l in self.lines]
        lines.append(f"    dtensor.yield {', '.join(v for v, _ in self.results)} : "
                     f"{', '.join(ttype(self.shapes[v]) for v, _ in self.results)}")
        lines += ["  }", f"  return {rnames} : {', '.join(rtys)}", "}", ""]
        return "\n".join(lines)


def split_axes(placement, rank):
    """Upstream split_axes of a placement list ("R", "S<d>"; mesh dims in
    order, major to minor on a tensor dim split by several)."""
    axes = [[] for _ in range(rank)]
    for m, p in enumerate(placement):
        if p != "R":
            axes[int(p[1:])].append(m)
    while len(axes) > 1 and not axes[-1]:
        axes.pop()
    return "[" + ", ".join("[" + ", ".join(map(str, a)) + "]" for a in axes) + "]"


PLACED = re.compile(r"%(\w+): !dtensor\.tensor<([\dx]+)x(\w+), @\w+, \[([^\]]*)\]>")


def placements_of(text):
    """"replicate, shard<1>" -> ["R", "S1"]; None with a partial."""
    out = []
    for p in (q.strip() for q in text.split(",")):
        if p == "replicate":
            out.append("R")
        elif p.startswith("shard<"):
            out.append("S" + p[6:-1])
        else:
            return None
    return out


def to_upstream(text):
    """The upstream shard form of a global program: the region body with
    shard.shard annotations on the arguments, the constraints and the
    results; or the reason it has none."""
    if "dtensor.local_region" in text:
        return None, "dtensor.local_region (per-rank code) has no upstream form"
    mesh = re.search(r"dtensor\.mesh @(\w+) shape = \[([\d, ]+)\]", text)
    grid = mesh.group(1)
    shape = "x".join(s.strip() for s in mesh.group(2).split(","))
    head_end = text.index("dtensor.global_region")
    header = text[text.index("func.func @program"):head_end]
    sig, results = (re.split(r"\)\s*->", header, maxsplit=1) + [""])[:2]
    args = PLACED.findall(sig)
    res = re.findall(r"!dtensor\.tensor<([\dx]+)x(\w+), @\w+, \[([^\]]*)\]>", results)
    start = text.index("^bb0(", head_end) + len("^bb0(")
    depth, i = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    names = re.findall(r"%(\w+)\s*:", text[start:i - 1])
    body = text[text.index("\n", i) + 1:].splitlines()
    last = max(k for k, l in enumerate(body) if "dtensor.yield" in l)
    yielded = re.match(r"\s*dtensor\.yield (.*?) :", body[last]).group(1).split(", ")
    out = [l for l in text.splitlines() if l.startswith("#")]
    out += [f"shard.grid @{grid}(shape = {shape})", ""]
    rtys = [f"tensor<{s}x{e}>" for s, e, _ in res]
    out.append("func.func @program(" + ", ".join(
        f"%a_{n}: tensor<{s}x{e}>" for n, s, e, _ in args) + f") -> ({', '.join(rtys)}) {{")

    def annotate(value, shape_elt, placement_text, result):
        pl = placements_of(placement_text)
        if pl is None:
            raise ValueError("a partial placement at the boundary")
        rank = len(shape_elt[0].split("x"))
        t = f"tensor<{shape_elt[0]}x{shape_elt[1]}>"
        return [f"  {result}_s = shard.sharding @{grid} split_axes = {split_axes(pl, rank)} : !shard.sharding",
                f"  {result} = shard.shard {value} to {result}_s : {t}"]

    try:
        for (n, s, e, p), b in zip(args, names):
            out += annotate(f"%a_{n}", (s, e), p, f"%{b}")
        for l in body[:last]:
            c = re.match(r"\s*(%\w+) = dtensor\.constrain (%\w+) \[([^\]]*)\] : tensor<([\dx]+)x(\w+)>", l)
            if c:
                out += annotate(c.group(2), (c.group(4), c.group(5)), c.group(3), c.group(1))
            elif "dtensor." in l:
                return None, "op without an upstream form: " + l.strip()[:40]
            else:
                out.append(l)
        rets = []
        for k, (v, (s, e, p)) in enumerate(zip(yielded, res)):
            out += annotate(v, (s, e), p, f"%ret{k}")
            rets.append(f"%ret{k}")
    except ValueError as err:
        return None, str(err)
    out += [f"  return {', '.join(rets)} : {', '.join(rtys)}", "}", ""]
    return "\n".join(out), None


# ---------------------------------------------------------------------------
# The corpus.
# ---------------------------------------------------------------------------

S, H, F = 64, 256, 1024  # sequence, hidden, MLP width


def mlp_tp():
    p = Program("mlp_tp", (4,), note="x, y [R]; w1 col, w2 row")
    x = p.arg("x", (S, H), ["R"])
    w1 = p.arg("w1", (H, F), ["S1"])
    w2 = p.arg("w2", (F, H), ["S0"])
    p.result(p.matmul(p.relu(p.matmul(x, w1)), w2), ["R"])
    return p


def mlp_tp_sp():
    p = Program("mlp_tp_sp", (4,), note="x, y [S(0)] on seq")
    x = p.arg("x", (S, H), ["S0"])
    w1 = p.arg("w1", (H, F), ["S1"])
    w2 = p.arg("w2", (F, H), ["S0"])
    p.result(p.matmul(p.relu(p.matmul(x, w1)), w2), ["S0"])
    return p


def attention(p, x, prefix, heads=4):
    """q/k/v projections (column parallel), per-head scores and softmax,
    output projection (row parallel)."""
    s, h = p.shapes[x]
    w = {n: p.arg(f"{prefix}w{n}", (h, h), ["S1"] if n != "o" else ["S0"])
         for n in "qkvo"}
    q = p.transpose(p.split_heads(p.matmul(x, w["q"]), heads), (1, 0, 2))
    k = p.transpose(p.split_heads(p.matmul(x, w["k"]), heads), (1, 2, 0))
    v = p.transpose(p.split_heads(p.matmul(x, w["v"]), heads), (1, 0, 2))
    scores = p.scale(p.batch_matmul(q, k), (h // heads) ** -0.5)
    ctx = p.batch_matmul(p.softmax(scores), v)
    return p.matmul(p.merge_heads(p.transpose(ctx, (1, 0, 2))), w["o"])


def attention_prog():
    p = Program("attention", (4,), note="4 heads; x, y [R]")
    x = p.arg("x", (S, H), ["R"])
    p.result(attention(p, x, ""), ["R"])
    return p


def attention_flat():
    """Single-head attention without reshapes (upstream can say it)."""
    p = Program("attention_1head", (4,), note="no reshapes; x, y [R]")
    x = p.arg("x", (S, H), ["R"])
    wq = p.arg("wq", (H, H), ["S1"])
    wk = p.arg("wk", (H, H), ["S1"])
    wv = p.arg("wv", (H, H), ["S1"])
    wo = p.arg("wo", (H, H), ["S0"])
    q, k, v = p.matmul(x, wq), p.matmul(x, wk), p.matmul(x, wv)
    scores = p.scale(p.matmul(q, p.transpose(k, (1, 0))), H ** -0.5)
    p.result(p.matmul(p.matmul(p.softmax(scores), v), wo), ["R"])
    return p


def trap_partial():
    """x is hidden-sharded and small, w replicated and wide: the matmul's
    locally free strategy (contract the sharded dim, partial sums) leaves a
    wide partial that the tanh must reduce; gathering the small x first
    keeps everything column-sharded for 3/4 of x."""
    p = Program("trap_partial", (4,), note="free partial early, wide reduce later")
    x = p.arg("x", (16, 64), ["S1"])
    w = p.arg("w", (64, 4096), ["R"])
    p.result(p.tanh(p.matmul(x, w)), ["S1"])
    return p


def trap_layout():
    """x [S(0)] -> tanh -> matmul with a replicated wide weight -> tanh ->
    y [S(1)]: keeping S(0) is free at every op, and the wide result then
    needs an all_to_all; gathering the small x early costs far less."""
    p = Program("trap_layout", (4,), note="keep S(0) early, all_to_all later")
    x = p.arg("x", (64, 64), ["S0"])
    w = p.arg("w", (64, 4096), ["R"])
    p.result(p.tanh(p.matmul(p.tanh(x), w)), ["S1"])
    return p


def trap_chain():
    """A longer chain: every op's cheapest local step keeps the sequence
    split; the last op and the result want a column split of a wide value."""
    p = Program("trap_chain", (4,), note="4 elementwise ops, then wide matmuls")
    x = p.arg("x", (64, 128), ["S0"])
    w1 = p.arg("w1", (128, 128), ["R"])
    w2 = p.arg("w2", (128, 2048), ["R"])
    b = p.arg("b", (64, 2048), ["S1"])
    h = p.tanh(p.relu(p.tanh(x)))
    h = p.matmul(p.tanh(p.matmul(h, w1)), w2)
    p.result(p.add(h, b), ["S1"])
    return p


def trap_fanout():
    """A value read by two consumers: the first (in program order) is cheapest
    on the sequence split, the second needs the column split of a wide
    result; placing the shared value by the first consumer costs the second."""
    p = Program("trap_fanout", (4,), note="shared value, conflicting users")
    x = p.arg("x", (64, 64), ["S0"])
    wa = p.arg("wa", (64, 64), ["R"])
    wb = p.arg("wb", (64, 4096), ["R"])
    t = p.tanh(x)
    a = p.matmul(t, wa)
    bb = p.matmul(t, wb)
    p.result(a, ["S0"])
    p.result(p.tanh(bb), ["S1"])
    return p


def residual_stack():
    """Two sequence-parallel residual MLP blocks: x is read by the block and
    the residual add, and a side branch reads every block's input."""
    p = Program("residual_mlp_x2", (4,), note="x_{i+1} = x_i + mlp(x_i), side branch")
    x = p.arg("x", (S, H), ["S0"])
    side = None
    for i in range(2):
        w1 = p.arg(f"w1_{i}", (H, F), ["S1"])
        w2 = p.arg(f"w2_{i}", (F, H), ["S0"])
        h = p.matmul(p.tanh(p.matmul(x, w1)), w2)
        s = p.tanh(x)
        side = s if side is None else p.add(side, s)
        x = p.add(x, h)
    p.result(x, ["S0"])
    p.result(side, ["S0"])
    return p


def residual_attn_mlp():
    """Attention (no reshapes) and an MLP, each with a residual, x [S(0)]."""
    p = Program("residual_attn_mlp", (4,), note="x + attn(x), then + mlp, SP")
    x = p.arg("x", (S, H), ["S0"])
    wq = p.arg("wq", (H, H), ["S1"])
    wk = p.arg("wk", (H, H), ["S1"])
    wv = p.arg("wv", (H, H), ["S1"])
    wo = p.arg("wo", (H, H), ["S0"])
    w1 = p.arg("w1", (H, F), ["S1"])
    w2 = p.arg("w2", (F, H), ["S0"])
    q, k, v = p.matmul(x, wq), p.matmul(x, wk), p.matmul(x, wv)
    scores = p.scale(p.matmul(q, p.transpose(k, (1, 0))), H ** -0.5)
    r1 = p.add(x, p.matmul(p.matmul(p.softmax(scores), v), wo))
    r2 = p.add(r1, p.matmul(p.tanh(p.matmul(r1, w1)), w2))
    p.result(r2, ["S0"])
    return p


def skip_dag(blocks, skip, name=None):
    """A residual stack of MLP blocks where each block also adds the stream
    from `skip` blocks back (long-range fan-out: many values live at once)."""
    p = Program(name or f"dag_skip{skip}_x{blocks}", (4,),
                note=f"{blocks} MLP blocks, + x_(i-{skip})")
    x = p.arg("x", (32, 64), ["S0"])
    seen = [x]
    for i in range(blocks):
        w1 = p.arg(f"w1_{i}", (64, 128), ["S1"])
        w2 = p.arg(f"w2_{i}", (128, 64), ["S0"])
        h = p.matmul(p.tanh(p.matmul(x, w1)), w2)
        x = p.add(p.add(x, h), seen[max(0, len(seen) - skip)])
        seen.append(x)
    p.result(x, ["S0"])
    return p


def mlp_dp_tp():
    p = Program("mlp_dp_tp_2x2", (2, 2), note="x, y [S(0), R]; w1 [R, S(1)], w2 [R, S(0)]")
    x = p.arg("x", (S, H), ["S0", "R"])
    w1 = p.arg("w1", (H, F), ["R", "S1"])
    w2 = p.arg("w2", (F, H), ["R", "S0"])
    p.result(p.matmul(p.relu(p.matmul(x, w1)), w2), ["S0", "R"])
    return p


def residual_dp_tp_sp():
    p = Program("residual_dp_tp_sp_2x4", (2, 4),
                note="x, y [S(0), S(0)] (dp + sp), 2 residual MLP blocks")
    x = p.arg("x", (S, H), ["S0", "S0"])
    for i in range(2):
        w1 = p.arg(f"w1_{i}", (H, F), ["R", "S1"])
        w2 = p.arg(f"w2_{i}", (F, H), ["R", "S0"])
        x = p.add(x, p.matmul(p.tanh(p.matmul(x, w1)), w2))
    p.result(x, ["S0", "S0"])
    return p


class FileProgram:
    """A program taken from an example file: its affine-map aliases, its mesh
    and its first function, renamed @program."""

    def __init__(self, name, path, note):
        self.name, self.note = name, note
        with open(path) as f:
            src = f.read().splitlines()
        aliases = [l for l in src if l.startswith("#")]
        mesh = next(l for l in src if l.startswith("dtensor.mesh"))
        start = next(i for i, l in enumerate(src) if l.startswith("func.func @"))
        end = next(i for i in range(start, len(src)) if src[i] == "}")
        func = "\n".join(src[start:end + 1])
        func = re.sub(r"^func\.func @\w+", "func.func @program", func)
        self.text = "\n".join(aliases + [mesh, "", func, ""])
        self.mesh = tuple(int(n) for n in re.search(r"shape = \[([\d, ]+)\]", mesh)
                          .group(1).split(","))

    def hp_text(self):
        return self.text


def big_stack(blocks):
    """A residual stack of Megatron MLP blocks: 6 ops each (fill, matmul,
    tanh, fill, matmul, add)."""
    p = Program(f"stack_{blocks}", (4,))
    x = p.arg("x", (32, 64), ["S0"])
    for i in range(blocks):
        w1 = p.arg(f"w1_{i}", (64, 128), ["S1"])
        w2 = p.arg(f"w2_{i}", (128, 64), ["S0"])
        x = p.add(x, p.matmul(p.tanh(p.matmul(x, w1)), w2))
    p.result(x, ["S0"])
    return p


def shared_weight(n):
    """A chain of `n` matmuls that all read one weight: one value with `n`
    uses, whose redistributes depend on every user's strategy at once."""
    p = Program(f"shared_weight_{n}", (4,), note=f"x <- x * w, {n} times")
    x = p.arg("x", (32, 64), ["S0"])
    w = p.arg("w", (64, 64), ["S1"])
    for _ in range(n):
        x = p.matmul(x, w)
    p.result(x, ["S0"])
    return p


def fan_out(n):
    """`n` elementwise ops that each read the same two inputs (add, mul,
    max in turn), their results summed in a chain: two values with `n`
    uses each."""
    p = Program(f"fan_out_{n}", (4,), note=f"{n} ops on (a, b), summed")
    a = p.arg("a", (32, 64), ["S0"])
    b = p.arg("b", (32, 64), ["S1"])
    ops = ["arith.addf", "arith.mulf", "arith.maximumf"]
    acc = None
    for i in range(n):
        t = p.map(ops[i % len(ops)], a, b)
        acc = t if acc is None else p.add(acc, t)
    p.result(acc, ["S0"])
    return p


SHAPES = {"shared_weight": shared_weight, "fan_out": fan_out,
          "skip_dag": lambda blocks: skip_dag(blocks, 16, f"skip_dag_{blocks}")}


def corpus():
    progs = [mlp_tp(), mlp_tp_sp(), attention_prog(), attention_flat()]
    progs.append(FileProgram("megatron_layer", os.path.join(ROOT, "examples", "global_megatron_layer.mlir"),
                             "examples/global_megatron_layer.mlir (TP+SP)"))
    progs += [trap_partial(), trap_layout(), trap_chain(), trap_fanout(),
              residual_stack(), residual_attn_mlp(), skip_dag(20, 4), skip_dag(20, 16),
              mlp_dp_tp(), residual_dp_tp_sp()]
    progs.append(FileProgram("moe", os.path.join(ROOT, "examples", "global_moe.mlir"),
                             "examples/global_moe.mlir (local_region all_to_all)"))
    return progs


# ---------------------------------------------------------------------------
# Running and parsing.
# ---------------------------------------------------------------------------

SUMMARY = re.compile(
    r"remark: dtensor-choose-strategies: (\d+) ops; cost (\S+) = "
    r"redistributes (\S+) \+ compute (\S+) \(flop-bytes \S+\); ([^;]*?), "
    r"(optimal(?: \(meets the relaxation's lower bound\))?|lower bound (\S+), gap (\S+)); "
    r"greedy (\S+)")
APPLIED = re.compile(r"remark: dtensor-apply-strategies: \d+ ops, (\d+) redistributes")


def run(cmd, path):
    start = time.perf_counter()
    proc = subprocess.run(cmd + [path], capture_output=True, text=True)
    return proc, time.perf_counter() - start


def propagate(path, options):
    """The summary of the (single) global region, or raises with stderr."""
    proc, wall = run([HP_OPT, f"--dtensor-propagate={options}",
                      "--mlir-print-op-on-diagnostic=false", "-o", os.devnull], path)
    m = SUMMARY.search(proc.stderr)
    applied = APPLIED.search(proc.stderr)
    if proc.returncode != 0 or not m or not applied:
        raise RuntimeError(f"hp-opt --dtensor-propagate={options} failed "
                           f"(rc {proc.returncode}):\n{proc.stderr[-3000:]}")
    cost = float(m.group(2))
    return {"ops": int(m.group(1)), "redistributes": int(applied.group(1)),
            "cost": cost, "redist": float(m.group(3)), "compute": float(m.group(4)),
            "method": m.group(5), "exact": m.group(6).startswith("optimal"),
            "bound": cost if m.group(6).startswith("optimal") else float(m.group(7)),
            "greedy": float(m.group(9)), "wall": wall}


def function_body(text, name="program"):
    lines = text.splitlines()
    for i, l in enumerate(lines):
        if re.match(rf"\s*func\.func (\w+ )?@{name}\(", l):
            indent = l[:len(l) - len(l.lstrip())]
            for j in range(i + 1, len(lines)):
                if lines[j] == indent + "}":
                    return "\n".join(lines[i:j + 1])
            return "\n".join(lines[i:])
    raise RuntimeError(f"no func @{name} in the output")


def collectives(text):
    """Counts by kind, other (rooted) collectives and bytes per rank (None
    where a type is dynamic) of func @program in partitioned IR, counted by
    hp itself (hp.partitioned_collectives, the C API's one counter)."""
    import hp
    moved = hp.partitioned_collectives(text, "program")
    counts = {k: 0 for k in KINDS}
    other = 0
    for kind, n in moved["counts"].items():
        if kind in ("shift", "send", "recv"):
            counts["permute"] += n
        elif kind in counts:
            counts[kind] += n
        else:
            other += n
    return counts, other, moved["bytes"]


def hp_partition(path):
    proc, wall = run([HP_OPT, "--hp-partition"], path)
    if proc.returncode != 0:
        raise RuntimeError(f"hp-opt --hp-partition failed (rc {proc.returncode}):\n"
                           f"{proc.stderr[-3000:]}")
    return proc.stdout, wall


def upstream(prog, tmp):
    """(counts, other, bytes) of upstream's partition, or a reason string."""
    if not os.path.exists(MLIR_OPT):
        return f"{MLIR_OPT} not found"
    text, reason = to_upstream(prog.hp_text())
    if text is None:
        return reason
    path = os.path.join(tmp, f"{prog.name}.upstream.mlir")
    with open(path, "w") as f:
        f.write(text)
    proc, _ = run([MLIR_OPT, "--pass-pipeline=builtin.module(func.func("
                   "sharding-propagation,shard-partition))"], path)
    if proc.returncode != 0:
        err = next((l for l in proc.stderr.splitlines() if "error" in l), proc.stderr.strip()[:200])
        return "fails: " + re.sub(r"^\S+:\d+:\d+: ", "", err)[:90]
    body = function_body(proc.stdout)
    left = re.findall(r"shard\.shard\b", body)
    if left:
        return f"shard.shard left in the output ({len(left)})"
    try:
        return collectives(proc.stdout)
    except ValueError as e:  # hp cannot parse or count upstream's output
        return "not counted: " + str(e).splitlines()[-1][:80]


def fmt_bytes(b):
    if b is None:
        return "?"
    return f"{b:.0f}"


def kinds_text(counts, other=0):
    s = " ".join(f"{KIND_SHORT[k]}{v}" for k, v in counts.items() if v)
    if other:
        s += f" other{other}"
    return s or "-"


def measured(cmd, path):
    """(exit code, stderr, wall seconds, CPU seconds, peak resident MiB) of
    one run of `cmd path`."""
    with tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd + [path], stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return proc.returncode, err.read(), wall, cpu, usage.ru_maxrss / 1024


def stress(tmp, emit, problems):
    """The shapes that once blew propagation up (one value read by hundreds
    of ops, long skip edges): time and peak memory of hp-opt
    --dtensor-propagate=print-strategies (target: under 10 s and 1 GiB on 2
    cores; CPU seconds too, as wall time counts other work on the machine),
    and the method, gap and greedy cost from its summary."""
    emit()
    emit("Stress shapes: hp-opt --dtensor-propagate=print-strategies, wall and CPU time, peak RSS")
    hdr = (f"{'shape':22} {'ops':>5} {'s':>6} {'cpu s':>6} {'MiB':>6}  {'method':58} {'cost':>10} "
           f"{'bound':>10} {'greedy':>10}")
    emit(hdr)
    emit("-" * len(hdr))
    for name, size in [("shared_weight", 80), ("shared_weight", 250), ("fan_out", 1000),
                       ("skip_dag", 714)]:
        prog = SHAPES[name](size)
        path = os.path.join(tmp, f"{prog.name}.mlir")
        with open(path, "w") as f:
            f.write(prog.hp_text())
        rc, err, wall, cpu, mib = measured(
            [HP_OPT, "--dtensor-propagate=print-strategies",
             "--mlir-print-op-on-diagnostic=false", "-o", os.devnull], path)
        m = SUMMARY.search(err)
        if rc != 0 or not m:
            problems.append(f"{prog.name}: hp-opt failed (rc {rc}) (IR: {path})")
            emit(f"{prog.name:22} ERROR rc {rc}, {wall:.1f} s, {mib:.0f} MiB")
            continue
        cost, greedy = float(m.group(3)), float(m.group(10))
        bound = cost if m.group(7).startswith("optimal") else float(m.group(8))
        method = m.group(6) + (", " + m.group(7).replace("the relaxation's lower ", "")
                               if m.group(7).startswith("optimal") else "")
        emit(f"{prog.name:22} {int(m.group(1)):>5} {wall:>6.2f} {cpu:>6.2f} {mib:>6.0f}  {method[:58]:58} "
             f"{cost:>10.0f} {bound:>10.0f} {greedy:>10.0f}")
        if cost > greedy * (1 + 1e-5) + 1e-6:
            problems.append(f"{prog.name}: hp {cost:g} > greedy {greedy:g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench"),
                        help="directory for propagation.txt/.png (default build/bench)")
    parser.add_argument("--big-blocks", type=int, default=167,
                        help="MLP blocks of the large region (6 ops each)")
    parser.add_argument("--keep", default=None,
                        help="directory to keep the generated programs in")
    parser.add_argument("--shape", nargs=2, metavar=("NAME", "SIZE"),
                        help="print one stress shape (" + ", ".join(SHAPES) +
                        ") of SIZE (matmuls, fan-out ops, blocks) and exit")
    parser.add_argument("--shapes-only", action="store_true",
                        help="run only the stress shapes")
    args = parser.parse_args()
    if args.shape:
        print(SHAPES[args.shape[0]](int(args.shape[1])).hp_text())
        return 0
    if not os.path.exists(HP_OPT):
        sys.exit(f"propagation: {HP_OPT} not built")
    os.makedirs(args.out, exist_ok=True)

    rows, problems = [], []
    tmpdir = tempfile.TemporaryDirectory()
    tmp = args.keep or tmpdir.name
    os.makedirs(tmp, exist_ok=True)
    for prog in [] if args.shapes_only else corpus():
        path = os.path.join(tmp, f"{prog.name}.mlir")
        with open(path, "w") as f:
            f.write(prog.hp_text())
        row = {"name": prog.name, "mesh": "x".join(map(str, prog.mesh)), "note": prog.note}
        try:
            pure = propagate(path, "print-strategies latency-bytes=0 flop-bytes=0")
            dflt = propagate(path, "print-strategies")
            # Planning time: the fastest of three runs.
            plan = min(run([HP_OPT, "--dtensor-propagate", "-o", os.devnull], path)[1]
                       for _ in range(3))
            text, _ = hp_partition(path)
            counts, other, irbytes = collectives(text)
        except (RuntimeError, ValueError) as e:
            problems.append(f"{prog.name}: {e} (IR: {path})")
            row["error"] = str(e).splitlines()[0]
            rows.append(row)
            continue
        row.update(pure=pure, dflt=dflt, plan=plan, counts=counts, other=other,
                   irbytes=irbytes, up=upstream(prog, tmp))
        if pure["cost"] > pure["greedy"] * (1 + 1e-5) + 1e-6:
            problems.append(f"{prog.name}: hp {pure['cost']:g} > greedy {pure['greedy']:g} (pure bytes)")
        if dflt["cost"] > dflt["greedy"] * (1 + 1e-5) + 1e-6:
            problems.append(f"{prog.name}: hp {dflt['cost']:g} > greedy {dflt['greedy']:g} (default costs)")
        if not pure["exact"] or not dflt["exact"]:
            problems.append(f"{prog.name}: not exact ({pure['method']} / {dflt['method']})")
        rows.append(row)

    out_lines = []

    def emit(s=""):
        print(s)
        out_lines.append(s)

    emit("Pure bytes (latency-bytes=0 flop-bytes=0): bytes one rank sends; bound = hp when exact.")
    emit("Default costs: 64 KiB per collective + flop-bytes x flops per device.")
    emit("Collectives: in func @program after hp-opt --hp-partition, default costs (AG all_gather,")
    emit("AR all_reduce, RS reduce_scatter, A2A all_to_all, P shift/send); IR B: their ring bytes")
    emit("per rank. plan ms: wall time of hp-opt --dtensor-propagate (process start included).")
    emit()
    hdr = (f"{'program':22} {'mesh':5} {'ops':>4} {'hp B':>8} {'greedy B':>9} {'bound B':>8} "
           f"{'exact':>5} {'hp/grd':>6} {'hp dflt':>8} {'grd dflt':>9} {'hp collectives':16} "
           f"{'IR B':>8} {'plan ms':>7}")
    emit(hdr)
    emit("-" * len(hdr))
    for r in rows:
        if "error" in r:
            emit(f"{r['name']:22} {r['mesh']:5} ERROR: {r['error']}")
            continue
        p, d = r["pure"], r["dflt"]
        ratio = p["cost"] / p["greedy"] if p["greedy"] else 1.0
        emit(f"{r['name']:22} {r['mesh']:5} {p['ops']:>4} {p['cost']:>8.0f} {p['greedy']:>9.0f} "
             f"{p['bound']:>8.0f} {('yes' if p['exact'] and d['exact'] else 'NO'):>5} {ratio:>6.3f} "
             f"{d['cost']:>8.0f} {d['greedy']:>9.0f} {kinds_text(r['counts'], r['other']):16} "
             f"{fmt_bytes(r['irbytes']):>8} {r['plan'] * 1e3:>7.0f}")
    emit()
    emit("hp vs upstream MLIR (mlir-opt sharding-propagation + shard-partition), same boundary")
    emit("shardings; collectives in func @program and their ring bytes per rank:")
    hdr2 = f"{'program':22} {'hp collectives':16} {'hp IR B':>8}  upstream"
    emit(hdr2)
    emit("-" * 78)
    for r in rows:
        if "error" in r:
            continue
        up = r["up"]
        if isinstance(up, str):
            ups = f"n/a: {up}"
        else:
            ups = f"{kinds_text(up[0], up[1]):16} {fmt_bytes(up[2]):>8} B"
        emit(f"{r['name']:22} {kinds_text(r['counts'], r['other']):16} {fmt_bytes(r['irbytes']):>8}  {ups}")

    # The large regions: a chain-like residual stack and a DAG with skips.
    emit()
    bigs = [(big_stack(args.big_blocks), "residual MLP stack"),
            (skip_dag(args.big_blocks * 6 // 7, 16, "dag_big"),
             "MLP stack + skips 16 back")]
    for big, what in [] if args.shapes_only else bigs:
        path = os.path.join(tmp, f"{big.name}.mlir")
        with open(path, "w") as f:
            f.write(big.hp_text())
        try:
            s = propagate(path, "print-strategies latency-bytes=0 flop-bytes=0")
            prop_t = min(run([HP_OPT, "--dtensor-propagate", "-o", os.devnull], path)[1]
                         for _ in range(2))
            part_t = min(hp_partition(path)[1] for _ in range(2))
        except RuntimeError as e:
            problems.append(f"{big.name}: {e} (IR: {path})")
            emit(f"{big.name}: ERROR {str(e).splitlines()[0]}")
            continue
        emit(f"large region, {what}: {s['ops']} ops, mesh 4: dtensor-propagate "
             f"{prop_t:.2f} s, hp-partition {part_t:.2f} s (target < 2 s); {s['method']}, "
             f"{'optimal' if s['exact'] else 'NOT exact, gap %g' % (s['cost'] - s['bound'])}; "
             f"bytes hp {s['cost']:.0f}, greedy {s['greedy']:.0f}")
        if s["cost"] > s["greedy"] * (1 + 1e-5) + 1e-6:
            problems.append(f"{big.name}: hp {s['cost']:g} > greedy {s['greedy']:g}")

    stress(tmp, emit, problems)

    emit()
    worse = [p for p in problems if "> greedy" in p]
    failed = [p for p in problems if "failed (rc" in p]
    for p in problems:
        emit("PROBLEM: " + p.splitlines()[0])
    with open(os.path.join(args.out, "propagation.txt"), "w") as f:
        f.write("\n".join(out_lines) + "\n")
    print(f"table: {os.path.join(args.out, 'propagation.txt')}")
    if rows:
        chart(rows, args.out)
    return 1 if worse else 2 if failed else 0


def chart(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("propagation: matplotlib not installed; no chart")
        return
    rows = [r for r in rows if "error" not in r]
    labels = [r["name"] for r in rows]
    xs = range(len(rows))
    width = 0.2
    fig, ax = plt.subplots(figsize=(12, 4.5))
    series = [("bound", "lower bound"), ("cost", "hp (dtensor-propagate)"),
              ("greedy", "greedy (torch-like, op by op)")]
    for i, (key, label) in enumerate(series):
        ax.bar([x + (i - 1.5) * width for x in xs], [max(r["pure"][key], 1) / 1024 for r in rows],
               width, label=label)
    ups = [(x, r["up"][2]) for x, r in zip(xs, rows)
           if not isinstance(r["up"], str) and r["up"][2] is not None]
    ax.bar([x + 1.5 * width for x, _ in ups], [max(b, 1) / 1024 for _, b in ups], width,
           label="upstream MLIR (absent: n/a)", color="dimgray")
    ax.set_yscale("log")
    ax.set_xticks(list(xs), labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("KiB sent per rank (log; 0 drawn as 1 B)")
    ax.set_title("Whole-program placement, bytes only (latency-bytes=0 flop-bytes=0)")
    top = max(max(r["pure"]["greedy"], r["pure"]["cost"], 1) for r in rows) / 1024
    ax.set_ylim(top=top * 40)
    ax.legend(fontsize=8, ncol=4, loc="upper left")
    fig.tight_layout()
    path = os.path.join(out, "propagation.png")
    fig.savefig(path, dpi=120)
    print(f"chart: {path}")


if __name__ == "__main__":
    sys.exit(main())
