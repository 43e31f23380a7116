#!/usr/bin/env python3
"""Generates elementwise and reduction tests at test time: linalg.generic ops
of random shapes (uneven around the vector width, tiny, empty; rank 1 to 3;
every eighth case hundreds of elements per dim, so that buffers span pages)
whose operands are read through identity, transposed and broadcasting
maps, sometimes as (strided) slices of bigger tensors, with a body of two
exact arithmetic ops; or with one reduction loop (innermost or not) summing
products or taking maxima of differences. The first operation's value is
sometimes not read from the inputs but a constant or a loop's
`linalg.index` (upstream's vectorizer once summed a constant once per vector
tile instead of once per element). hp-lower-to-cpu vectorizes them
(vectorize-linalg-on-buffers); each result is compared with the same
computation written as explicit scf.for loops on tensor.extract /
tensor.insert, which no linalg pass sees, and the comparison itself is such
a loop. Values are small integers, so every type (f32, f64, f16, bf16, i32,
i64) holds every result exactly and the comparison is exact. The output
carries its FileCheck lines: one `ok` per case.

Run: python3 gen_elementwise.py --type f32 --seed 1 --cases 12 > t.mlir
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_contractions import FLOAT, const, generate  # noqa: E402

SIZES = [0, 1, 2, 3, 5, 7, 13, 16, 17, 33]
BINARY_F = {"add": "arith.addf", "sub": "arith.subf", "mul": "arith.mulf",
            "max": "arith.maximumf", "min": "arith.minimumf"}
BINARY_I = {"add": "arith.addi", "sub": "arith.subi", "mul": "arith.muli",
            "max": "arith.maxsi", "min": "arith.minsi"}


def case(g, index):
    rng, t = g.rng, g.t
    ops = BINARY_F if t in FLOAT else BINARY_I
    rank = rng.choice([1, 2, 2, 3])
    shape = [rng.choice(SIZES if index >= 3 else SIZES[1:]) for _ in range(rank)]
    if index % 8 == 7:   # buffers spanning pages: an access past the end faults
        rank = 2
        shape = [rng.choice([129, 600]), rng.choice([257, 600])]
    red = None
    if rng.random() < 0.4 or index in (1, 2, 3):
        red = rng.randrange(rank) if index not in (1, 2, 3) else rank - 1
        shape[red] = min(shape[red], 17)    # sums stay exact in bf16
    loops = list(range(rank))

    def operand_map():
        kind = rng.choice(["id", "id", "perm", "bcast"])
        dims = list(loops)
        if kind == "perm":
            rng.shuffle(dims)
        elif kind == "bcast" and rank > 1:
            dims.pop(rng.randrange(rank))
        return dims

    amap, bmap = operand_map(), operand_map()
    if red is not None:   # the reduced loop feeds every reduction
        for m in (amap, bmap):
            if red not in m:
                m.append(red)
    out_dims = [d for d in loops if d != red]
    a_shape = [shape[d] for d in amap]
    b_shape = [shape[d] for d in bmap]
    c_shape = [shape[d] for d in out_dims]
    a = g.operand(a_shape, index * 3 + 1)
    b = g.operand(b_shape, index * 3 + 2)
    c = g.operand(c_shape, index * 3 + 3) if c_shape else None
    if c is None:
        c = g.tmp("c0")
        g.emit(f"{c} = tensor.from_elements %zero : {g.tensor([])}")
    op1, op2 = rng.choice(list(ops)), rng.choice(list(ops))
    if red is not None:
        op1, op2 = rng.choice([("mul", "add"), ("sub", "max"), ("add", "min")])
    # The term op2 combines: op1(a, b), a constant, or the index of a loop
    # (the reduced one, for most reductions).
    term = rng.choice(["ab", "ab", "const", "index"]) if index >= 2 else "ab"
    if index in (2, 3) and red is not None:
        term = "const" if index == 2 else "index"
    iloop = red if red is not None and (rng.random() < 0.7 or index == 3) else rng.randrange(rank)
    cval = rng.choice([1, 2, -1])

    def term_lines(p, q, idx):
        """The lines computing %u from the operand values `p`, `q` and the
        loop index value `idx` (an index)."""
        if term == "ab":
            return [f"%u = {ops[op1]} {p}, {q} : {t}"]
        if term == "const":
            return [f"%u = arith.constant {const(t, cval)} : {t}"]
        if t in FLOAT:
            return [f"%ui = arith.index_cast {idx} : index to i64",
                    f"%u = arith.sitofp %ui : i64 to {t}"]
        return [f"%u = arith.index_cast {idx} : index to {t}"]

    d = lambda dims: ", ".join(f"d{x}" for x in dims)
    alld = d(loops)
    iters = ", ".join('"reduction"' if x == red else '"parallel"' for x in loops)
    got = g.tmp("got")
    idx = [f"%idx = linalg.index {iloop} : index"] if term == "index" else []
    body = "".join(f"      {l}\n" for l in idx + term_lines("%p", "%q", "%idx"))
    if red is None:   # out = op2(term, a)
        body += f"      %v = {ops[op2]} %u, %p : {t}\n      linalg.yield %v : {t}"
    else:             # acc = op2(acc, term)
        body += f"      %v = {ops[op2]} %acc, %u : {t}\n      linalg.yield %v : {t}"
    g.emit(f"{got} = linalg.generic {{indexing_maps = [affine_map<({alld}) -> ({d(amap)})>, "
           f"affine_map<({alld}) -> ({d(bmap)})>, affine_map<({alld}) -> ({d(out_dims)})>], "
           f"iterator_types = [{iters}]}} ins({a}, {b} : {g.tensor(a_shape)}, {g.tensor(b_shape)}) "
           f"outs({c} : {g.tensor(c_shape)}) {{\n"
           f"    ^bb0(%p: {t}, %q: {t}, %acc: {t}):\n{body}\n    }} -> {g.tensor(c_shape)}")

    # The same as loops: every point of the iteration space, in order.
    want = g.tmp("want")
    ext = lambda v, s, idx: f"tensor.extract {v}[{', '.join(idx)}] : {g.tensor(s)}"

    def point(ivs, cur):
        at = lambda dims: [ivs[x] for x in dims]
        lines = [f"%pv = {ext(a, a_shape, at(amap))}", f"%qv = {ext(b, b_shape, at(bmap))}"]
        lines += term_lines("%pv", "%qv", ivs[iloop])
        if red is None:
            lines.append(f"%v = {ops[op2]} %u, %pv : {t}")
        else:
            lines += [f"%cv = {ext(cur, c_shape, at(out_dims))}",
                      f"%v = {ops[op2]} %cv, %u : {t}"]
        lines.append(f"%ins = tensor.insert %v into {cur}[{', '.join(at(out_dims))}] : "
                     f"{g.tensor(c_shape)}")
        return lines, "%ins"

    g.loop_nest(index, want, shape, c, g.tensor(c_shape), point, "w")

    bad = g.count_mismatches(index, got, want, c_shape)
    g.report(index, bad, f"{'reduce d' + str(red) if red is not None else 'map'} {shape} "
                         f"a{amap} b{bmap} {op1}/{op2} {term}{iloop if term == 'index' else ''}")


if __name__ == "__main__":
    generate(case, "gen_elementwise.py", 12, lambda t: [
        f"%zero = arith.constant {'0.0' if t in FLOAT else '0'} : {t}"])
