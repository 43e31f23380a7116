#!/usr/bin/env python3
"""Generates the redistribute end-to-end tests in this directory.

Each file runs on one mesh and one element type. For every case it builds a
global tensor X on every rank, lays it out with the source placements (a
partial source gets per-rank values whose reduction is X), calls a function
that holds only the redistribute under test, and then checks
  * the local block of each rank against the torch.chunk block of X that
    this script computes independently (targets without partial axes), and
  * the value brought back to replicated on every rank against X.
Values are small integers so every dtype represents them and sums exactly.

Run: python3 gen_redistribute.py   (rewrites redistribute-*.mlir here)
"""
import itertools
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))

FLOATS = {"f32", "f64", "f16", "bf16"}


def chunk(size, parts, i):
    c = -(-size // parts)
    return min(i * c, size), max(0, min(c, size - i * c))


def local_block(shape, mesh, placements, coord):
    """torch.chunk offsets and sizes, nested in mesh-dim order."""
    offs, sizes = [0] * len(shape), list(shape)
    for m, p in enumerate(placements):
        if p[0] == "S":
            d = p[1]
            o, s = chunk(sizes[d], mesh[m], coord[m])
            offs[d] += o
            sizes[d] = s
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
        """Per-rank values whose reduction over the partial axes is X."""
        paxes = [m for m, p in enumerate(placements) if p[0] == "P"]
        op = placements[paxes[0]][1]
        self.mark = len(self.lines)
        c = self.coords()
        flat = self.const(0, "index")
        for m in paxes:
            n = self.const(self.mesh[m], "index")
            a = self.val()
            self.emit(f"{a} = arith.muli {flat}, {n} : index")
            flat = self.val()
            self.emit(f"{flat} = arith.addi {a}, {c[m]} : index")
        group = 1
        for m in paxes:
            group *= self.mesh[m]
        zero = self.const(0, "index")
        first = self.val()
        self.emit(f"{first} = arith.cmpi eq, {flat}, {zero} : index")
        fe = self.to_elt(flat)
        one = self.const(1, "elt")
        if op == "sum":
            keep = self.arith("sub", "%x_in", self.const(group - 1, "elt"))
            other = one
        elif op == "prod":
            keep, other = "%x_in", one
        elif op == "max":
            keep, other = "%x_in", self.arith("sub", "%x_in",
                                               self.arith("add", fe, one))
        elif op == "min":
            keep, other = "%x_in", self.arith("add", "%x_in",
                                               self.arith("add", fe, one))
        else:  # avg over one axis: X + c - (n-1)/2
            half = self.const((group - 1) / 2, "elt")
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
        self.emit(f"{bad} = func.call @mismatches({g}, {w}) : ({dyn}, {dyn}) -> i64")
        z = self.val()
        self.emit(f"{z} = arith.constant 0 : i64")
        ok = self.val()
        self.emit(f"{ok} = arith.cmpi eq, {bad}, {z} : i64")
        self.emit(f"scf.if {ok} {{")
        self.emit(f"  vector.print str \"ok {label}\\n\"")
        self.emit("} else {")
        self.emit(f"  vector.print str \"FAIL {label}\\n\"")
        self.emit("}")

    def case(self, k, shape, src, dst):
        t = self.t
        self.funcs.append(
            f"func.func @case{k}(%a: {dt(shape, t, src)}) -> {dt(shape, t, dst)} {{\n"
            f"  %r = dtensor.redistribute %a : {dt(shape, t, src)} -> {dt(shape, t, dst)}\n"
            f"  return %r : {dt(shape, t, dst)}\n}}\n")
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

    def mismatches(self):
        t = self.t
        cmp = "arith.cmpf une," if t in FLOATS else "arith.cmpi ne,"
        return f"""// Elements that differ, or a large count when the shapes differ.
func.func @mismatches(%a: tensor<?x?x{t}>, %b: tensor<?x?x{t}>) -> i64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a0 = tensor.dim %a, %c0 : tensor<?x?x{t}>
  %a1 = tensor.dim %a, %c1 : tensor<?x?x{t}>
  %b0 = tensor.dim %b, %c0 : tensor<?x?x{t}>
  %b1 = tensor.dim %b, %c1 : tensor<?x?x{t}>
  %e0 = arith.cmpi eq, %a0, %b0 : index
  %e1 = arith.cmpi eq, %a1, %b1 : index
  %same = arith.andi %e0, %e1 : i1
  %r = scf.if %same -> i64 {{
    %zero = arith.constant 0 : i64
    %init = tensor.from_elements %zero : tensor<i64>
    %n = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                         iterator_types = ["reduction", "reduction"]}}
        ins(%a, %b : tensor<?x?x{t}>, tensor<?x?x{t}>) outs(%init : tensor<i64>) {{
    ^bb0(%x: {t}, %y: {t}, %acc: i64):
      %ne = {cmp} %x, %y : {t}
      %one = arith.extui %ne : i1 to i64
      %s = arith.addi %acc, %one : i64
      linalg.yield %s : i64
    }} -> tensor<i64>
    %v = tensor.extract %n[] : tensor<i64>
    scf.yield %v : i64
  }} else {{
    %big = arith.constant 1000000 : i64
    scf.yield %big : i64
  }}
  return %r : i64
}}
"""

    def render(self, cases, ranks):
        for k, (shape, src, dst) in enumerate(cases):
            self.case(k, shape, src, dst)
        mesh = "x".join(str(n) for n in self.mesh)
        checks = sum(1 + (not any(p[0] == "P" for p in dst)) for _, _, dst in cases)
        head = (f"// GENERATED by gen_redistribute.py; do not edit.\n"
                f"// Redistributes on a {mesh} mesh with {self.t} elements, each checked\n"
                f"// on every rank against values computed independently of hp.\n"
                f"// REQUIRES: mpi\n"
                f"// RUN: %hp-runner -np {ranks} %s -e main --entry-point-result=void > %t\n"
                f"// RUN: FileCheck %s < %t\n"
                f"// RUN: not grep FAIL %t\n"
                f"// CHECK-COUNT-{checks * ranks}: ok\n\n"
                f"shard.grid @m(shape = {mesh}){self.grid_attrs()}\n\n")
        body = "func.func @main() {\n" + "\n".join(self.lines) + "\n  return\n}\n"
        return head + self.mismatches() + "\n" + "\n".join(self.funcs) + "\n" + body


def S(d):
    return ("S", d)


R = ("R",)


def P(op="sum"):
    return ("P", op)


def one_d_cases(ops):
    """Every row of the table on a 1-D mesh, uneven 7x5."""
    shape = [7, 5]
    cases = [(shape, [S(0)], [R]), (shape, [R], [S(1)]), (shape, [S(0)], [S(1)]),
             (shape, [S(1)], [S(0)]), (shape, [S(0)], [P("sum")]),
             (shape, [R], [P("sum")])]
    for op in ops:
        cases += [(shape, [P(op)], [R])]
        if op != "avg":
            cases += [(shape, [P(op)], [S(0)])]
    cases += [([6, 4], [P("sum")], [S(1)]), ([6, 4], [S(0)], [S(1)])]
    return cases


def two_d_cases():
    shape = [7, 5]
    return [
        (shape, [S(0), S(1)], [S(1), S(0)]),
        (shape, [S(0), S(0)], [R, S(0)]),
        (shape, [S(0), S(0)], [R, R]),
        (shape, [R, R], [S(0), S(0)]),
        (shape, [S(1), R], [S(0), S(1)]),
        (shape, [P("sum"), S(0)], [S(0), R]),
        (shape, [P("sum"), P("sum")], [S(1), R]),
        (shape, [P("sum"), P("sum")], [R, R]),
        (shape, [S(0), R], [P("sum"), S(1)]),
        ([6, 4], [S(0), S(1)], [S(1), S(0)]),
    ]


def write(name, mesh, t, cases, devices=None):
    ranks = 1
    for n in mesh:
        ranks *= n
    text = Gen(mesh, t, devices).render(cases, ranks)
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


def main():
    all_ops = ["sum", "max", "min", "prod", "avg"]
    int_ops = ["sum", "max", "min", "prod"]
    for n in (2, 3, 4):
        write(f"redistribute-mesh{n}-f32.mlir", [n], "f32", one_d_cases(all_ops))
    for mesh in ([2, 2], [2, 3]):
        name = "x".join(map(str, mesh))
        write(f"redistribute-mesh{name}-f32.mlir", mesh, "f32", two_d_cases())
    for t in ("f64", "f16", "bf16"):
        write(f"redistribute-mesh3-{t}.mlir", [3], t, one_d_cases(all_ops))
        write(f"redistribute-mesh2x2-{t}.mlir", [2, 2], t, two_d_cases())
    # A device list that is not the iota: mesh coordinates map to other
    # ranks, and every check goes through the mesh coordinate.
    write("redistribute-mesh2x2-devices-f32.mlir", [2, 2], "f32", two_d_cases(),
          devices=[3, 1, 2, 0])
    for t in ("i32", "i64"):
        write(f"redistribute-mesh3-{t}.mlir", [3], t, one_d_cases(int_ops))
        write(f"redistribute-mesh2x2-{t}.mlir", [2, 2], t, two_d_cases())


if __name__ == "__main__":
    main()
