#!/usr/bin/env python3
"""Generates a redistribute end-to-end test program at test time.

The program runs on one mesh with one element type. For every case it builds
a global tensor X on every rank, lays it out with the source placements (a
partial source gets per-rank values whose reduction over the partial mesh
dims, innermost first, is X), calls a function that holds only the
redistribute (or chain of redistributes) under test, and then checks
  * the local block of each rank against the torch.chunk block of X that
    this script computes independently (targets without partial axes), and
  * the value brought back to replicated on every rank against X.
Values are small integers so every dtype represents them and sums exactly.
The output carries its own FileCheck lines (one `ok` per check and rank).

Run: python3 gen_redistribute.py --mesh 2x2 --type f32 --suite 2d > t.mlir
"""
import argparse
import itertools
import re
import sys

FLOATS = {"f32", "f64", "f16", "bf16"}


def chunk(size, parts, i):
    c = -(-size // parts)
    return min(i * c, size), max(0, min(c, size - i * c))


def local_block(shape, mesh, placements, coord):
    """Offsets and sizes of the block at `coord`, from torch's definitions
    applied in mesh-dim order to the indices held so far: Shard(d) keeps
    torch.chunk piece i of n; _StridedShard(d, f) cuts n*f torch.chunk pieces
    and keeps pieces i, i+n, ..., i+(f-1)n, concatenated."""
    held = [list(range(g)) for g in shape]
    for m, p in enumerate(placements):
        if p[0] not in ("S", "SS"):
            continue
        d, n = p[1], mesh[m]
        f = p[2] if p[0] == "SS" else 1
        kept = []
        for k in range(f):
            o, s = chunk(len(held[d]), n * f, coord[m] + k * n)
            kept += held[d][o:o + s]
        held[d] = kept
    offs, sizes = [], []
    for d, idx in enumerate(held):
        if idx != list(range(idx[0], idx[0] + len(idx))) if idx else False:
            raise SystemExit(f"{placements} on {shape}: the block of {coord} "
                             f"is not contiguous in dim {d}")
        offs.append(idx[0] if idx else 0)
        sizes.append(len(idx))
    return offs, sizes


def local_shape(shape, mesh, placements):
    out = []
    coords = list(itertools.product(*[range(n) for n in mesh]))
    for d in range(len(shape)):
        vals = {local_block(shape, mesh, placements, c)[1][d] for c in coords}
        out.append(str(vals.pop()) if len(vals) == 1 else "?")
    return out


def ptext(p):
    if p[0] == "S":
        return f"shard<{p[1]}>"
    if p[0] == "SS":
        return f"strided_shard<{p[1]}, {p[2]}>"
    if p[0] == "R":
        return "replicate"
    return f"partial<{p[1]}>"


def dtype_of(shape, t):
    return "x".join(str(s) for s in shape) + "x" + t


def dt(shape, t, placements):
    return (f"!dtensor.tensor<{dtype_of(shape, t)}, @m, "
            f"[{', '.join(ptext(p) for p in placements)}]>")


def lt(dims, t):
    return "tensor<" + "x".join(dims) + "x" + t + ">"


class Gen:
    def __init__(self, mesh, t, devices=None):
        self.mesh, self.t, self.devices = mesh, t, devices
        self.lines, self.funcs, self.n = [], [], 0
        self.ranks = set()
        self.regions = False

    def val(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, s):
        self.lines.append("  " + s)

    def const(self, value, typ):
        v = self.val()
        if typ == "index":
            self.emit(f"{v} = arith.constant {value} : index")
        elif self.t in FLOATS:
            self.emit(f"{v} = arith.constant {float(value)} : {self.t}")
        else:
            self.emit(f"{v} = arith.constant {int(value)} : {self.t}")
        return v

    def to_elt(self, idx):
        """index -> element type."""
        i64 = self.val()
        self.emit(f"{i64} = arith.index_cast {idx} : index to i64")
        v = self.val()
        if self.t in FLOATS:
            self.emit(f"{v} = arith.sitofp {i64} : i64 to {self.t}")
        elif self.t == "i64":
            return i64
        else:
            self.emit(f"{v} = arith.trunci {i64} : i64 to {self.t}")
        return v

    def arith(self, op, a, b):
        v = self.val()
        name = {"add": "addf", "sub": "subf"}[op] if self.t in FLOATS else \
               {"add": "addi", "sub": "subi"}[op]
        self.emit(f"{v} = arith.{name} {a}, {b} : {self.t}")
        return v

    def global_x(self, shape):
        """X[i, j, ...] = (7i + 3j + 5k) mod 11 + 1."""
        ty = lt([str(s) for s in shape], self.t)
        e = self.val()
        self.emit(f"{e} = tensor.empty() : {ty}")
        rank = len(shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        x = self.val()
        body = [f"  ^bb0(%out: {self.t}):"]
        weights = [7, 3, 5, 2][:rank]
        body.append("    %acc0 = arith.constant 0 : index")
        for i, w in enumerate(weights):
            body.append(f"    %i{i} = linalg.index {i} : index")
            body.append(f"    %w{i} = arith.constant {w} : index")
            body.append(f"    %m{i} = arith.muli %i{i}, %w{i} : index")
            body.append(f"    %acc{i + 1} = arith.addi %acc{i}, %m{i} : index")
        body.append("    %c11 = arith.constant 11 : index")
        body.append("    %c1 = arith.constant 1 : index")
        body.append(f"    %r = arith.remui %acc{rank}, %c11 : index")
        body.append("    %r1 = arith.addi %r, %c1 : index")
        body.append("    %r64 = arith.index_cast %r1 : index to i64")
        if self.t in FLOATS:
            body.append(f"    %res = arith.sitofp %r64 : i64 to {self.t}")
        elif self.t == "i64":
            body.append("    %res = arith.addi %r64, %r64 : i64")
            body.append("    %res2 = arith.subi %res, %r64 : i64")
        else:
            body.append(f"    %res = arith.trunci %r64 : i64 to {self.t}")
        res = "%res2" if self.t == "i64" else "%res"
        body.append(f"    linalg.yield {res} : {self.t}")
        iters = ", ".join(['"parallel"'] * rank)
        self.emit(f"{x} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], "
                  f"iterator_types = [{iters}]}} "
                  f"outs({e} : {ty}) {{")
        self.lines.extend(body)
        self.lines.append(f"  }} -> {ty}")
        return x

    def coords(self):
        names = ", ".join(["index"] * len(self.mesh))
        v = self.val()
        self.emit(f"{v}:{len(self.mesh)} = shard.process_multi_index on @m : {names}")
        return [f"{v}#{i}" for i in range(len(self.mesh))]

    def partial_local(self, x, shape, placements):
        """Per-rank values whose reduction over the partial axes is X.

        The value of a DTensor reduces its partial mesh dims innermost (last)
        first, so the transforms apply from the outermost axis inwards: the
        innermost reduction undoes the last transform first."""
        c = self.coords()
        for m, p in enumerate(placements):
            if p[0] == "P":
                x = self.partial_axis(x, shape, p[1], self.mesh[m], c[m])
        return x

    def partial_axis(self, x, shape, op, n, coord):
        """Values along one mesh axis of size n whose `op` reduction is x."""
        self.mark = len(self.lines)
        zero = self.const(0, "index")
        first = self.val()
        self.emit(f"{first} = arith.cmpi eq, {coord}, {zero} : index")
        fe = self.to_elt(coord)
        one = self.const(1, "elt")
        if op == "sum":
            keep = self.arith("sub", "%x_in", self.const(n - 1, "elt"))
            other = one
        elif op == "prod":
            keep, other = "%x_in", one
        elif op == "max":
            keep, other = "%x_in", self.arith("sub", "%x_in",
                                               self.arith("add", fe, one))
        elif op == "min":
            keep, other = "%x_in", self.arith("add", "%x_in",
                                               self.arith("add", fe, one))
        else:  # avg: X + c - (n-1)/2
            half = self.const((n - 1) / 2, "elt")
            keep = other = self.arith("sub", self.arith("add", "%x_in", fe), half)
        # The element computations above reference %x_in; emit them inside a
        # linalg.map body by moving the lines that use it.
        return self.map_with(x, shape, first, keep, other)

    def map_with(self, x, shape, cond, keep, other):
        # Lines after the last non-%x_in definition that use %x_in move into
        # the body. Simplest: recompute inside the body from captured values.
        ty = lt([str(s) for s in shape], self.t)
        # Lines computing from %x_in, directly or through each other.
        tainted, uses = {"%x_in"}, []
        for i in range(self.mark, len(self.lines)):
            line = self.lines[i]
            refs = set(re.findall(r"%[A-Za-z0-9_]+", line.split("=", 1)[-1]))
            if refs & tainted:
                uses.append(i)
                tainted.add(line.split("=", 1)[0].strip())
        body = [self.lines[i] for i in uses]
        self.lines = [l for i, l in enumerate(self.lines) if i not in uses]
        e = self.val()
        self.emit(f"{e} = tensor.empty() : {ty}")
        out = self.val()
        self.emit(f"{out} = linalg.map ins({x} : {ty}) outs({e} : {ty})")
        self.lines.append(f"    (%x_in: {self.t}, %unused: {self.t}) {{")
        self.lines.extend("  " + l for l in body)
        sel = self.val()
        self.lines.append(f"      {sel} = arith.select {cond}, {keep}, {other} : {self.t}")
        self.lines.append(f"      linalg.yield {sel} : {self.t}")
        self.lines.append("    }")
        return out

    def check(self, got, want, dims, label):
        """Prints `ok <label>` or `FAIL <label>` on this rank."""
        dyn = lt(["?"] * len(dims), self.t)
        g, w = self.val(), self.val()
        self.emit(f"{g} = tensor.cast {got} : {lt(dims, self.t)} to {dyn}")
        self.emit(f"{w} = tensor.cast {want} : {lt(dims, self.t)} to {dyn}")
        bad = self.val()
        self.ranks.add(len(dims))
        self.emit(f"{bad} = func.call @mismatches{len(dims)}({g}, {w}) : ({dyn}, {dyn}) -> i64")
        z = self.val()
        self.emit(f"{z} = arith.constant 0 : i64")
        ok = self.val()
        self.emit(f"{ok} = arith.cmpi eq, {bad}, {z} : i64")
        self.emit(f"scf.if {ok} {{")
        self.emit(f"  vector.print str \"ok {label}\\n\"")
        self.emit("} else {")
        self.emit(f"  vector.print str \"FAIL {label}\\n\"")
        self.emit("}")

    def case(self, k, shape, chain):
        """Redistributes through `chain` (source, ..., target) in one function,
        as redistribute ops or (region form) as local_regions whose
        in_placements ask for the next placement with redistribute_inputs,
        alternating the flat and the per-output out_placements forms."""
        t = self.t
        src, dst = chain[0], chain[-1]
        body = []
        prev = "%a"
        for i, (a, b) in enumerate(zip(chain, chain[1:])):
            if not self.regions:
                body.append(f"  %r{i} = dtensor.redistribute {prev} : {dt(shape, t, a)} -> {dt(shape, t, b)}\n")
                prev = f"%r{i}"
                continue
            pl = "[" + ", ".join(ptext(p) for p in b) + "]"
            loc = lt(local_shape(shape, self.mesh, b), t)
            if i % 2 == 0:
                body.append(
                    f"  %r{i} = dtensor.local_region on @m args({prev} as \"x\") in_placements = {{x = {pl}}}"
                    f" out_placements = {pl} redistribute_inputs : ({dt(shape, t, a)}) -> {dt(shape, t, b)} {{\n"
                    f"  ^bb0(%l{i}: {loc}):\n    dtensor.yield %l{i} : {loc}\n  }}\n")
            else:
                # Per-output form with a passed-through scalar and an
                # undeclared optional argument name.
                body.append(
                    f"  %n{i} = arith.constant {i} : i64\n"
                    f"  %r{i}, %m{i} = dtensor.local_region on @m args({prev} as \"x\", %n{i} as \"count\")"
                    f" in_placements = {{x = {pl}, count = none, bias = none}}"
                    f" out_placements = [{pl}, none] redistribute_inputs"
                    f" : ({dt(shape, t, a)}, i64) -> ({dt(shape, t, b)}, i64) {{\n"
                    f"  ^bb0(%l{i}: {loc}, %c{i}: i64):\n    dtensor.yield %l{i}, %c{i} : {loc}, i64\n  }}\n")
            prev = f"%r{i}"
        self.funcs.append(
            f"func.func @case{k}(%a: {dt(shape, t, src)}) -> {dt(shape, t, dst)} {{\n"
            + "".join(body) + f"  return {prev} : {dt(shape, t, dst)}\n}}\n")
        full = [str(s) for s in shape]
        x = self.global_x(shape)
        rep = [("R",)] * len(self.mesh)
        if any(p[0] == "P" for p in src):
            start = [p if p[0] == "P" else ("R",) for p in src]
            lx = self.partial_local(x, shape, start)
        else:
            start, lx = rep, x
        d0 = self.val()
        self.emit(f"{d0} = dtensor.from_local {lx} : {lt(full, t)} -> {dt(shape, t, start)}")
        s = d0
        if start != list(src):
            s = self.val()
            self.emit(f"{s} = dtensor.redistribute {d0} : {dt(shape, t, start)} -> {dt(shape, t, src)}")
        d = self.val()
        self.emit(f"{d} = func.call @case{k}({s}) : ({dt(shape, t, src)}) -> {dt(shape, t, dst)}")

        if not any(p[0] == "P" for p in dst):
            # Local block against the independently computed torch.chunk block.
            ldims = local_shape(shape, self.mesh, dst)
            dl = self.val()
            self.emit(f"{dl} = dtensor.to_local {d} : {dt(shape, t, dst)} -> {lt(ldims, t)}")
            coords = list(itertools.product(*[range(n) for n in self.mesh]))
            table = [local_block(shape, self.mesh, dst, c) for c in coords]
            rank = len(shape)
            flat = [v for o, s_ in table for v in o + s_]
            tbl = self.val()
            self.emit(f"{tbl} = arith.constant dense<{flat}> : tensor<{len(flat)}xindex>")
            lin = self.val()
            self.emit(f"{lin} = shard.process_linear_index on @m : index")
            base = self.val()
            two_r = self.const(2 * rank, "index")
            self.emit(f"{base} = arith.muli {lin}, {two_r} : index")
            parts = []
            for i in range(2 * rank):
                ci = self.const(i, "index")
                pos = self.val()
                self.emit(f"{pos} = arith.addi {base}, {ci} : index")
                v = self.val()
                self.emit(f"{v} = tensor.extract {tbl}[{pos}] : tensor<{len(flat)}xindex>")
                parts.append(v)
            offs, sizes = parts[:rank], parts[rank:]
            want = self.val()
            ones = ", ".join(["1"] * rank)
            self.emit(f"{want} = tensor.extract_slice {x}[{', '.join(offs)}] [{', '.join(sizes)}] [{ones}] : {lt(full, t)} to {lt(['?'] * rank, t)}")
            wantc = self.val()
            self.emit(f"{wantc} = tensor.cast {want} : {lt(['?'] * rank, t)} to {lt(ldims, t)}")
            self.check(dl, wantc, ldims, f"local case{k}")
        back = self.val()
        self.emit(f"{back} = dtensor.redistribute {d} : {dt(shape, t, dst)} -> {dt(shape, t, rep)}")
        bl = self.val()
        self.emit(f"{bl} = dtensor.to_local {back} : {dt(shape, t, rep)} -> {lt(full, t)}")
        self.check(bl, x, full, f"global case{k}")

    def grid_attrs(self):
        if not self.devices:
            return ""
        return (" {dtensor.devices = array<i64: "
                + ", ".join(map(str, self.devices)) + ">}")

    def mismatches(self, rank):
        t = self.t
        cmp = "arith.cmpf une," if t in FLOATS else "arith.cmpi ne,"
        ty = lt(["?"] * rank, t)
        idx = ", ".join(f"d{i}" for i in range(rank))
        lines = [f"// Elements that differ, or a large count when the shapes differ.",
                 f"func.func @mismatches{rank}(%a: {ty}, %b: {ty}) -> i64 {{",
                 "  %same0 = arith.constant true"]
        for i in range(rank):
            lines += [f"  %c{i} = arith.constant {i} : index",
                      f"  %a{i} = tensor.dim %a, %c{i} : {ty}",
                      f"  %b{i} = tensor.dim %b, %c{i} : {ty}",
                      f"  %e{i} = arith.cmpi eq, %a{i}, %b{i} : index",
                      f"  %same{i + 1} = arith.andi %same{i}, %e{i} : i1"]
        iters = ", ".join(['"reduction"'] * rank)
        lines += [
            f"  %r = scf.if %same{rank} -> i64 {{",
            "    %zero = arith.constant 0 : i64",
            "    %init = tensor.from_elements %zero : tensor<i64>",
            f"    %n = linalg.generic {{indexing_maps = [affine_map<({idx}) -> ({idx})>, affine_map<({idx}) -> ({idx})>, affine_map<({idx}) -> ()>],",
            f"                         iterator_types = [{iters}]}}",
            f"        ins(%a, %b : {ty}, {ty}) outs(%init : tensor<i64>) {{",
            f"    ^bb0(%x: {t}, %y: {t}, %acc: i64):",
            f"      %ne = {cmp} %x, %y : {t}",
            "      %one = arith.extui %ne : i1 to i64",
            "      %s = arith.addi %acc, %one : i64",
            "      linalg.yield %s : i64",
            "    } -> tensor<i64>",
            "    %v = tensor.extract %n[] : tensor<i64>",
            "    scf.yield %v : i64",
            "  } else {",
            "    %big = arith.constant 1000000 : i64",
            "    scf.yield %big : i64",
            "  }",
            "  return %r : i64",
            "}",
            ""]
        return "\n".join(lines)

    def render(self, cases, ranks, title):
        for k, (shape, chain) in enumerate(cases):
            self.case(k, shape, chain)
        mesh = "x".join(str(n) for n in self.mesh)
        checks = sum(1 + (not any(p[0] == "P" for p in chain[-1]))
                     for _, chain in cases)
        head = (f"// Generated by gen_redistribute.py: {title}.\n"
                f"// Redistributes on a {mesh} mesh with {self.t} elements, each checked\n"
                f"// on every rank against values computed independently of hp.\n"
                f"// CHECK-COUNT-{checks * ranks}: ok\n"
                f"// CHECK-NOT: {{{{ok|FAIL}}}}\n\n"
                f"shard.grid @m(shape = {mesh}){self.grid_attrs()}\n\n")
        body = "func.func @main() {\n" + "\n".join(self.lines) + "\n  return\n}\n"
        helpers = "\n".join(self.mismatches(r) for r in sorted(self.ranks))
        return head + helpers + "\n" + "\n".join(self.funcs) + "\n" + body


def S(d):
    return ("S", d)


R = ("R",)


def SS(d, f):
    return ("SS", d, f)


def P(op="sum"):
    return ("P", op)


def parse_placement(text):
    text = text.strip()
    if text == "R":
        return R
    m = re.fullmatch(r"S(\d+)", text)
    if m:
        return S(int(m.group(1)))
    m = re.fullmatch(r"SS(\d+)_(\d+)", text)
    if m:
        return SS(int(m.group(1)), int(m.group(2)))
    m = re.fullmatch(r"P(?:\((\w+)\))?", text)
    if m:
        return P(m.group(1) or "sum")
    raise SystemExit(f"bad placement {text!r}")


def parse_cases(text):
    """`7x9:P(max),S0->R,S1; ...`: a shape, then placement lists joined by ->."""
    cases = []
    for item in filter(None, (c.strip() for c in text.split(";"))):
        shape, chain = item.split(":")
        chain = [[parse_placement(p) for p in part.split(",")]
                 for part in chain.split("->")]
        cases.append(([int(x) for x in shape.split("x")], chain))
    return cases


def pair(shape, src, dst):
    return (shape, [src, dst])


def one_d_cases(ops):
    """Every row of the table on a 1-D mesh, uneven 7x5."""
    shape = [7, 5]
    cases = [pair(shape, [S(0)], [R]), pair(shape, [R], [S(1)]),
             pair(shape, [S(0)], [S(1)]), pair(shape, [S(1)], [S(0)]),
             pair(shape, [S(0)], [P("sum")]), pair(shape, [R], [P("sum")])]
    for op in ops:
        cases += [pair(shape, [P(op)], [R])]
        if op != "avg":
            cases += [pair(shape, [P(op)], [S(0)])]
    cases += [pair([6, 4], [P("sum")], [S(1)]), pair([6, 4], [S(0)], [S(1)])]
    return cases


def two_d_cases():
    shape = [7, 5]
    return [
        pair(shape, [S(0), S(1)], [S(1), S(0)]),
        pair(shape, [S(0), S(0)], [R, S(0)]),
        pair(shape, [S(0), S(0)], [R, R]),
        pair(shape, [R, R], [S(0), S(0)]),
        pair(shape, [S(1), R], [S(0), S(1)]),
        pair(shape, [P("sum"), S(0)], [S(0), R]),
        pair(shape, [P("sum"), P("sum")], [S(1), R]),
        pair(shape, [P("sum"), P("sum")], [R, R]),
        pair(shape, [S(0), R], [P("sum"), S(1)]),
        pair([6, 4], [S(0), S(1)], [S(1), S(0)]),
    ]


def empty_shard_cases(mesh):
    """Dims smaller than the mesh: some ranks hold empty blocks."""
    k = len(mesh)
    small = [2, 3]
    cases = [pair(small, [S(0)] * k, [R] * k),
             pair(small, [R] * k, [S(1)] * k),
             pair(small, [S(0)] * k, [S(1)] * k),
             pair(small, [P("sum")] * k, [S(0)] * k),
             pair(small, [P("max")] + [S(1)] * (k - 1), [S(0)] * k)]
    return cases


def rank_cases(mesh):
    """Rank 1 and rank 4 tensors."""
    k = len(mesh)
    return [pair([5], [S(0)] * k, [R] * k),
            pair([5], [P("sum")] * k, [S(0)] * k),
            pair([3, 2, 5, 2], [S(2)] + [S(0)] * (k - 1), [S(0)] + [S(3)] * (k - 1)),
            pair([3, 2, 5, 2], [P("sum")] * k, [S(2)] * k)]


def chain_cases(mesh):
    """Chains of redistributes in one function."""
    k = len(mesh)
    return [([7, 5], [[S(0)] * k, [R] * k, [S(1)] * k, [P("sum")] * k, [S(0)] * k]),
            ([5, 6], [[P("max")] * k, [S(1)] * k, [S(0)] + [R] * (k - 1), [R] * k])]


def mixed_partial_cases(k):
    """Different partial kinds on different mesh dims."""
    if k < 2:
        return []
    rest = [R] * (k - 2)
    return [pair([5, 3], [P("sum"), P("max")] + rest, [R] * k),
            pair([5, 3], [P("sum"), P("max")] + rest, [S(0), R] + rest),
            pair([5, 3], [P("max"), P("sum")] + rest, [S(1), S(0)] + rest),
            pair([5, 3], [P("min"), P("prod")] + rest, [P("min"), R] + rest),
            pair([5, 3], [R, R] + rest, [P("prod"), P("sum")] + rest)]


def random_cases(mesh, t, count, seed):
    """`count` random placement pairs (every partial kind the type allows,
    ranks 1 to 3, dims 1 to 9) from a fixed seed."""
    import random
    rng = random.Random(seed)
    ops = ["sum", "max", "min", "prod"] + (["avg"] if t in FLOATS else [])
    k = len(mesh)

    def placements(rank):
        out = []
        for _ in range(k):
            c = rng.randrange(4)
            out.append(R if c == 0 else P(rng.choice(ops)) if c == 1
                       else S(rng.randrange(rank)))
        return out

    cases = []
    for _ in range(count):
        rank = rng.randint(1, 3)
        shape = [rng.randint(1, 9) for _ in range(rank)]
        src, dst = placements(rank), placements(rank)
        for m in range(k):  # P(a) -> P(b) on one mesh dim is not a redistribute
            if src[m][0] == "P" and dst[m][0] == "P":
                dst[m] = src[m]
        # avg sources need values the generator builds for one avg axis only.
        if any(p == P("avg") for p in src) and sum(p[0] == "P" for p in src) > 1:
            src = [R if p == P("avg") else p for p in src]
            dst = [R if p == P("avg") else p for p in dst]
        cases.append(pair(shape, src, dst))
    return cases


def permute_cases(mesh):
    """Moves a point-to-point permute serves: mesh axes of equal size swap
    roles, a nesting is reordered, a split moves to another axis; even,
    uneven and empty blocks."""
    k = len(mesh)
    if k < 2:
        return []
    rest = [R] * (k - 2)
    cases = []
    for shape in ([8, 6], [10, 5], [3, 1], [1, 3]):
        cases += [pair(shape, [S(0), S(1)] + rest, [S(1), S(0)] + rest),
                  pair(shape, [S(0), S(0)] + rest, [R, S(0)] + rest),
                  pair(shape, [S(0), R] + rest, [R, S(0)] + rest),
                  pair(shape, [S(1), S(0)] + rest, [S(0), R] + rest)]
    if k >= 3:
        cases += [pair([8, 8, 8], [S(0), S(1), S(2)], [S(2), S(1), S(0)] + rest[1:]),
                  pair([4, 3, 5], [S(0), S(0), S(1)], [S(1), R, S(0)] + rest[1:]),
                  pair([5, 2, 3], [S(0), S(0), S(0)], [R, S(0), S(0)] + rest[1:]),
                  pair([6, 5], [S(0), P("sum"), S(1)], [S(1), P("sum"), S(0)] + rest[1:]),
                  # roles in a 3-cycle: the device a rank sends to is not
                  # the one it receives from
                  pair([4, 6, 8], [S(0), S(1), S(2)], [S(1), S(2), S(0)] + rest[1:]),
                  pair([3, 5, 7], [S(0), R, S(1)], [R, S(1), S(0)] + rest[1:])]
    return cases


def strided_cases(mesh):
    """strided_shard (torch's _StridedShard, the FSDP-over-TP layout) to and
    from the default nesting, replicate, partial and other dims; the other
    dims uneven or empty. 2-D meshes (2x2, 2x4, 4x2) and 2x2x2."""
    k = len(mesh)
    cases = []
    if k == 2:
        f = mesh[1]
        st = [SS(0, f), S(0)]
        for shape in ([8, 6], [8, 5], [mesh[0] * f, 1]):
            cases += [pair(shape, st, [S(0), S(0)]),
                      pair(shape, [S(0), S(0)], st),
                      pair(shape, st, [R, R]),
                      pair(shape, st, [S(1), S(0)]),
                      pair(shape, [S(1), R], st),
                      pair(shape, st, [P("sum"), S(0)]),
                      pair(shape, [P("max"), R], st),
                      pair(shape, st, [R, S(1)])]
        cases += [pair([5, 8], [S(1), S(0)], [SS(1, f), S(1)]),
                  pair([6, 8], [SS(1, f), S(1)], [S(0), S(1)]),
                  # both mesh dims strided on different tensor dims
                  pair([8, 8], [SS(0, f), S(0)], [S(1), SS(1, 1)]),
                  (([8, 4]), [[R, R], [SS(0, f), S(0)], [S(0), S(0)],
                              [SS(0, f), S(0)], [R, S(1)]])]
    elif k == 3:
        a, b, c = mesh
        cases += [pair([8, 3], [SS(0, b * c), S(0), S(0)], [S(0), S(0), S(0)]),
                  pair([8, 3], [S(0), S(0), S(0)], [S(0), SS(0, c), S(0)]),
                  pair([8, 3], [SS(0, b * c), SS(0, c), S(0)], [R, R, R]),
                  pair([8, 5], [R, P("sum"), R], [SS(0, b * c), SS(0, c), S(0)]),
                  pair([8, 5], [SS(0, b), S(0), S(1)], [S(1), S(0), S(0)]),
                  pair([16, 2], [S(0), SS(0, c), S(0)], [SS(0, b * c), S(0), S(0)])]
    return cases


def subblock_cases(mesh):
    """Permutes of sub-blocks: the target's splits refine the source's, each
    device receives its new block from one device and sends one part of its
    own (a device's block feeds several receivers). Other dims even, uneven
    or empty; a partial axis riding along on 3-D meshes."""
    k = len(mesh)
    cases = []
    if k == 2:
        for shape in ([16, 8], [16, 5], [8, 1]):
            cases += [pair(shape, [S(0), R], [S(1), S(0)]),
                      pair(shape, [S(0), R], [R, S(0)]),
                      pair(shape, [R, S(0)], [S(0), R]),
                      pair(shape, [R, S(0)], [S(0), S(1)])]
        cases += [pair([8, 16], [S(1), R], [S(0), S(1)]),
                  pair([8, 16], [R, S(1)], [S(1), S(0)]),
                  # new blocks gathered from pieces of several devices
                  pair([16, 8], [S(0), S(1)], [S(1), S(0)]),
                  pair([16, 8], [S(0), S(1)], [S(1), R]),
                  pair([16, 5], [S(0), S(1)], [S(1), R]),
                  pair([8, 16], [S(1), S(0)], [S(0), S(1)])]
    elif k == 3:
        for shape in ([8, 4], [8, 5]):
            cases += [pair(shape, [S(0), R, R], [R, S(0), S(0)]),
                      pair(shape, [S(0), S(0), S(0)], [R, R, S(0)]),
                      pair(shape, [S(0), S(0), P("sum")], [S(1), R, P("sum")]),
                      pair(shape, [S(0), R, P("sum")], [S(1), S(0), P("sum")]),
                      pair(shape, [R, S(0), P("max")], [S(0), S(1), P("max")])]
    return cases


SUITES = {
    "1d": lambda mesh, t: one_d_cases(["sum", "max", "min", "prod"] +
                                      (["avg"] if t in FLOATS else [])),
    "2d": lambda mesh, t: two_d_cases(),
    "empty": lambda mesh, t: empty_shard_cases(mesh),
    "ranks": lambda mesh, t: rank_cases(mesh),
    "chains": lambda mesh, t: chain_cases(mesh),
    "mixed": lambda mesh, t: mixed_partial_cases(len(mesh)),
    "permute": lambda mesh, t: permute_cases(mesh),
    "strided": lambda mesh, t: strided_cases(mesh),
    "subblock": lambda mesh, t: subblock_cases(mesh),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mesh", required=True, help="mesh shape, e.g. 2x2")
    ap.add_argument("--type", default="f32", help="element type")
    ap.add_argument("--suite", action="append", default=[],
                    choices=sorted(SUITES), help="case families (repeatable)")
    ap.add_argument("--cases", default="",
                    help="explicit cases: '7x9:P(max),S0->R,S1; ...'")
    ap.add_argument("--devices", default="",
                    help="device list of the grid, e.g. 3,1,2,0")
    ap.add_argument("--random", type=int, default=0,
                    help="add this many random placement pairs")
    ap.add_argument("--seed", type=int, default=1, help="seed of --random")
    ap.add_argument("--regions", action="store_true",
                    help="move data with local_regions (redistribute_inputs) "
                         "instead of redistribute ops")
    args = ap.parse_args()
    mesh = [int(n) for n in args.mesh.split("x")]
    cases = []
    for suite in args.suite:
        cases += SUITES[suite](mesh, args.type)
    cases += parse_cases(args.cases)
    if args.random:
        cases += random_cases(mesh, args.type, args.random, args.seed)
    if not cases:
        raise SystemExit("no cases: give --suite or --cases")
    for shape, chain in cases:
        for placements in chain:
            if len(placements) != len(mesh):
                raise SystemExit(f"placement list {placements} does not fit mesh {mesh}")
    ranks = 1
    for n in mesh:
        ranks *= n
    devices = [int(d) for d in args.devices.split(",")] if args.devices else None
    title = " ".join(sys.argv[1:])
    gen = Gen(mesh, args.type, devices)
    gen.regions = args.regions
    sys.stdout.write(gen.render(cases, ranks, title))


if __name__ == "__main__":
    main()
