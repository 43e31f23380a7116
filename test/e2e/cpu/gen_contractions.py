#!/usr/bin/env python3
"""Generates contraction tests at test time: fixed shapes (matmul, batched,
matrix-vector, vector-matrix, A and B transposed, C transposed, contiguous
pairs of n or k loops, attention-like batch loops strided inside A and B)
and then random ones (up to two loops of each kind batch, m, n, k, each
operand's dims in a random order) of random sizes (uneven, tiny, empty),
with operands that are slices of larger tensors
(strided, some with no unit stride), in one element type. hp-lower-to-cpu
sends f32 and f64 ones to a BLAS (convert-linalg-to-blas) and leaves the
others to loops; each result is compared with the same contraction written
as explicit scf.for loops, which no linalg pass sees. Values are small
integers, so every type holds every sum exactly and the comparison is exact.
The output carries its FileCheck lines: one `ok` per case.

Run: python3 gen_contractions.py --type f32 --seed 1 --cases 12 > t.mlir
"""
import argparse
import random

FLOAT = {"f32", "f64", "f16", "bf16"}


def const(t, v):
    return f"{float(v)}" if t in FLOAT else f"{int(v)}"


class Gen:
    def __init__(self, t, rng):
        self.t, self.rng, self.lines, self.n = t, rng, [], 0

    def tmp(self, p="v"):
        self.n += 1
        return f"%{p}{self.n}"

    def emit(self, s):
        self.lines.append("  " + s)

    def report(self, index, bad, label):
        """Prints `ok <index>`, or MISMATCH with `label` and the count `bad`
        of differing elements (an i64 value)."""
        self.emit(f"%ok{index} = arith.cmpi eq, {bad}, %zero64 : i64")
        self.emit(f"scf.if %ok{index} {{\n    vector.print str \"ok {index}\\n\"\n  }} else {{\n"
                  f"    vector.print str \"MISMATCH {index} ({label}): elements differing: \"\n"
                  f"    vector.print {bad} : i64\n  }}")

    def loop_nest(self, index, name, bounds, init, ty, body, tag):
        """`name` = scf.for nest over `bounds` (one induction variable per
        entry) carrying `init` of type `ty`; `body(ivs, cur)` gives the
        lines of the innermost body and the value it yields. No linalg pass
        sees these loops: they are the reference the generated ops are
        compared with."""
        ivs = [f"%{tag}{index}_i{d}" for d in range(len(bounds))]
        for d, b in enumerate(bounds):
            self.emit(f"%{tag}{index}_ub{d} = arith.constant {b} : index")
        lines, cur = [], init
        for d in range(len(bounds)):
            it = f"%{tag}{index}_it{d}"
            res = name if d == 0 else f"%{tag}{index}_r{d}"
            lines.append("  " * (d + 1) + f"{res} = scf.for {ivs[d]} = %c0 to "
                         f"%{tag}{index}_ub{d} step %c1 iter_args({it} = {cur}) -> ({ty}) {{")
            cur = it
        inner, value = body(ivs, cur)
        pad = "  " * (len(bounds) + 1)
        lines += [pad + l for l in inner] + [pad + f"scf.yield {value} : {ty}"]
        for d in range(len(bounds) - 1, 0, -1):
            lines.append("  " * (d + 1) + "}")
            lines.append("  " * (d + 1) + f"scf.yield %{tag}{index}_r{d} : {ty}")
        lines.append("  }")
        self.lines.append("\n".join(lines))

    def count_mismatches(self, index, got, want, shape):
        """`%bad<index>`: how many elements of `got` and `want` (tensors of
        `shape`) differ, counted with loops too (a vectorized count could
        hide what it should find)."""
        bad = f"%bad{index}"
        t = self.t
        ext = lambda v, idx: f"tensor.extract {v}[{', '.join(idx)}] : {self.tensor(shape)}"
        cmp = "arith.cmpf une," if t in FLOAT else "arith.cmpi ne,"

        def compare(ivs, cur):
            return ([f"%x = {ext(got, ivs)}", f"%y = {ext(want, ivs)}",
                     f"%ne = {cmp} %x, %y : {t}", "%e = arith.extui %ne : i1 to i64",
                     f"%s = arith.addi {cur}, %e : i64"], "%s")

        # A rank-0 result is compared inside one iteration (values in a loop
        # body are scoped).
        self.loop_nest(index, bad, shape or [1], "%zero64", "i64",
                       lambda ivs, cur: compare(ivs if shape else [], cur), "k")
        return bad

    def tensor(self, shape):
        """The tensor type of `shape` in the element type (rank 0 too)."""
        return "tensor<" + "".join(f"{n}x" for n in shape) + f"{self.t}>"

    def values(self, shape, seed):
        """A tensor of small integers in [-3, 3] built by linalg.generic from
        linalg.index (no constants to fold)."""
        name = self.tmp("x")
        e = self.tmp("e")
        self.emit(f"{e} = tensor.empty() : {self.tensor(shape)}")
        rank = len(shape)
        dims = ", ".join(f"d{i}" for i in range(rank))
        idx = "\n".join(f"      %i{i} = linalg.index {i} : index" for i in range(rank))
        acc = f"%c{seed % 5 + 1}"
        terms = [f"%i{i}" for i in range(rank)]
        body = [f"      %s0 = arith.muli {terms[0]}, {acc} : index"] if rank else []
        for i in range(1, rank):
            body.append(f"      %m{i} = arith.muli {terms[i]}, %c{(seed + i) % 3 + 2} : index")
            body.append(f"      %s{i} = arith.addi %s{i-1}, %m{i} : index")
        last = f"%s{rank-1}"
        body.append(f"      %r = arith.remui {last}, %c7 : index")
        body.append("      %q = arith.subi %r, %c3 : index")
        body.append("      %q64 = arith.index_cast %q : index to i64")
        if self.t in FLOAT:
            body.append(f"      %f = arith.sitofp %q64 : i64 to {self.t}")
        elif self.t == "i64":
            body.append("      %f = arith.addi %q64, %q64 : i64")
        else:
            body.append(f"      %f = arith.trunci %q64 : i64 to {self.t}")
        iters = ", ".join(['"parallel"'] * rank)
        self.emit(
            f"{name} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], "
            f"iterator_types = [{iters}]}} outs({e} : {self.tensor(shape)}) {{\n"
            f"    ^bb0(%out: {self.t}):\n{idx}\n" + "\n".join(body) +
            f"\n      linalg.yield %f : {self.t}\n    }} -> {self.tensor(shape)}")
        return name

    def operand(self, shape, seed):
        """A tensor of `shape`, sometimes a strided slice of a bigger one."""
        kind = self.rng.choice(["whole", "whole", "slice", "strided"])
        if kind == "whole" or 0 in shape:
            return self.values(shape, seed)
        steps = [self.rng.choice([1, 2]) if kind == "strided" else 1 for _ in shape]
        big = [s * st + self.rng.randint(0, 2) for s, st in zip(shape, steps)]
        src = self.values(big, seed)
        offs = [self.rng.randint(0, b - ((s - 1) * st + 1))
                for s, st, b in zip(shape, steps, big)]
        name = self.tmp("sl")
        self.emit(f"{name} = tensor.extract_slice {src}[{', '.join(map(str, offs))}] "
                  f"[{', '.join(map(str, shape))}] [{', '.join(map(str, steps))}] : "
                  f"{self.tensor(big)} to {self.tensor(shape)}")
        return name


# Fixed cases, one of each shape the BLAS path handles, as loop kinds and
# each operand's dims in order: A, B, C (each dim names a loop).
FIXED = [
    ("matmul", "mnk", ("mk", "kn", "mn")),
    ("batch", "bmnk", ("bmk", "bkn", "bmn")),
    ("matvec", "mk", ("mk", "k", "m")),
    ("transposed", "mnk", ("km", "nk", "mn")),
    # Heads: an n loop pair contiguous in B and C (one gemm n).
    ("heads", "mnNk", ("mk", "knN", "mnN")),
    # An output projection over heads: a contiguous k loop pair.
    ("k-pair", "mnkK", ("mkK", "kKn", "mn")),
    # Attention scores: batch and head loops around a gemm, A and B rows
    # strided by the heads.
    ("attention", "bBmnk", ("bmBk", "bnBk", "bBmn")),
    ("C-transposed", "mnk", ("mk", "kn", "nm")),
    ("vecmat", "nk", ("k", "kn", "n")),
]

KIND = {"b": "batch", "B": "batch", "m": "m", "M": "m", "n": "n", "N": "n",
        "k": "k", "K": "k"}


def random_shape(rng):
    """Loop names (lower case the first of a kind, upper case a second) and
    each operand's dims, in random orders."""
    loops = ["b"] * rng.randint(0, 1) + ["B"] * rng.randint(0, 1)
    loops += ["m"] * rng.randint(0, 1) + ["M"] * rng.randint(0, 1)
    loops += ["n"] * rng.randint(0, 1) + ["N"] * rng.randint(0, 1)
    if not any(l in loops for l in "mMnN"):
        loops.append("m")
    loops += ["k"] + ["K"] * rng.randint(0, 1)
    pick = lambda kinds: "".join(rng.sample([l for l in loops if KIND[l] in kinds],
                                            len([l for l in loops if KIND[l] in kinds])))
    return "".join(loops), (pick({"batch", "m", "k"}), pick({"batch", "n", "k"}),
                            pick({"batch", "m", "n"}))


def case(g, index):
    rng, t = g.rng, g.t
    # The fixed cases first, non-empty; then random ones with empty dims.
    if index < len(FIXED):
        label, loops, dims = FIXED[index]
        sizes = [2, 3, 5, 7, 8, 13]
    else:
        label = "random"
        loops, dims = random_shape(rng)
        sizes = [0, 1, 2, 3, 5, 7, 8, 13]
    ub = {l: rng.choice(sizes) if KIND[l] != "batch" else rng.choice([1, 2, 3])
          for l in loops}
    shapes = [[ub[l] for l in d] for d in dims]
    a_shape, b_shape, c_shape = shapes
    a = g.operand(a_shape, index * 3 + 1)
    b = g.operand(b_shape, index * 3 + 2)
    c = g.operand(c_shape, index * 3 + 3)
    # The contraction as hp-lower-to-cpu sees it.
    names = {l: f"d{i}" for i, l in enumerate(loops)}
    amap, bmap, cmap = ([names[l] for l in d] for d in dims)
    all_dims = ", ".join(names[l] for l in loops)
    iters = ", ".join('"reduction"' if KIND[l] == "k" else '"parallel"' for l in loops)
    got = g.tmp("got")
    mul = "arith.mulf" if t in FLOAT else "arith.muli"
    add = "arith.addf" if t in FLOAT else "arith.addi"
    g.emit(f"{got} = linalg.generic {{indexing_maps = [affine_map<({all_dims}) -> ({', '.join(amap)})>, "
           f"affine_map<({all_dims}) -> ({', '.join(bmap)})>, affine_map<({all_dims}) -> ({', '.join(cmap)})>], "
           f"iterator_types = [{iters}]}} ins({a}, {b} : {g.tensor(a_shape)}, {g.tensor(b_shape)}) "
           f"outs({c} : {g.tensor(c_shape)}) {{\n"
           f"    ^bb0(%p: {t}, %q: {t}, %acc: {t}):\n"
           f"      %pq = {mul} %p, %q : {t}\n      %sum = {add} %acc, %pq : {t}\n"
           f"      linalg.yield %sum : {t}\n    }} -> {g.tensor(c_shape)}")
    # The same contraction as loops on the same values: c[...] += a * b.
    want = g.tmp("want")
    ext = lambda v, s, idx: f"tensor.extract {v}[{', '.join(idx)}] : {g.tensor(s)}"

    def point(ivs, cur):
        at = dict(zip(loops, ivs))
        aidx, bidx, cidx = ([at[l] for l in d] for d in dims)
        return ([f"%av = {ext(a, a_shape, aidx)}", f"%bv = {ext(b, b_shape, bidx)}",
                 f"%cv = {ext(cur, c_shape, cidx)}", f"%pr = {mul} %av, %bv : {t}",
                 f"%nv = {add} %cv, %pr : {t}",
                 f"%ins = tensor.insert %nv into {cur}[{', '.join(cidx)}] : "
                 f"{g.tensor(c_shape)}"], "%ins")

    g.loop_nest(index, want, [ub[l] for l in loops], c, g.tensor(c_shape), point, "w")
    g.count_mismatches(index, got, want, c_shape)
    g.report(index, f"%bad{index}",
             f"{label} loops {loops} A{a_shape} {dims[0]} B{b_shape} {dims[1]} C{c_shape} {dims[2]}")


def generate(case, script, default_cases, extra_consts=lambda t: []):
    """The command line of a generator: --type, --seed, --cases; prints
    @main holding `case(g, i)` for every case, with its FileCheck lines.
    `extra_consts(type)` adds constants the cases use."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--type", default="f32")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=default_cases)
    args = ap.parse_args()
    g = Gen(args.type, random.Random(args.seed))
    for i in range(args.cases):
        case(g, i)
    print(f"// Generated by {script} --type {args.type} --seed {args.seed} --cases {args.cases}")
    for i in range(args.cases):
        print(f"// CHECK: ok {i}")
    print("// CHECK-NOT: MISMATCH")
    print("func.func @main() {")
    consts = ["%c0 = arith.constant 0 : index", "%c1 = arith.constant 1 : index",
              "%zero64 = arith.constant 0 : i64"] + extra_consts(args.type)
    consts += [f"%c{v} = arith.constant {v} : index" for v in (2, 3, 4, 5, 6, 7)]
    for c in consts:
        print("  " + c)
    print("\n".join(g.lines))
    print("  return\n}")


if __name__ == "__main__":
    generate(case, "gen_contractions.py", 10)
