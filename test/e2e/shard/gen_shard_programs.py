#!/usr/bin/env python3
"""Generates shard-level programs, in the shape upstream's shard-partition
produces, that check themselves on every rank.

Each case builds this rank's local tensor from closed formulas of the rank's
grid coordinates, runs one shard op, builds the expected result from the op's
definition (written here, independently of hp's lowering) and prints "ok" or
"FAIL <case>". Suites:

  halo    shard.update_halo on 1-D and 2-D grids (uneven halos, a zero halo,
          size-1 axes, two grid axes on one tensor dim, corners).
  widen   all_reduce / reduce / reduce_scatter whose result element type is
          wider (or narrower) than the input's: the sum must be exact in the
          wider type.
"""

import argparse
import itertools
import sys


class Program:
    def __init__(self):
        self.grids = {}
        self.funcs = []
        self.calls = []
        self.count = 0

    def grid(self, shape):
        name = "g" + "x".join(map(str, shape))
        self.grids[name] = shape
        return name

    def emit(self):
        out = []
        for name, shape in self.grids.items():
            out.append(f"shard.grid @{name}(shape = {'x'.join(map(str, shape))})")
        out += self.funcs
        out.append("func.func @main() {")
        for c in self.calls:
            out.append(f"  func.call @{c}() : () -> ()")
        out.append("  return")
        out.append("}")
        return "\n".join(out) + "\n"


def ok_or_fail(name, cond):
    return [f"  scf.if {cond} {{",
            '    vector.print str "ok\\n"',
            "  } else {",
            f'    vector.print str "FAIL {name}\\n"',
            "  }"]


def convert(value, ty):
    """MLIR lines turning an i64 SSA value into `ty`; returns (lines, name)."""
    if ty.startswith("f") or ty == "bf16":
        return [f"    %conv = arith.sitofp {value} : i64 to {ty}"], "%conv"
    if ty == "i64":
        return [], value
    return [f"    %conv = arith.trunci {value} : i64 to {ty}"], "%conv"


def equal_all(name, got, want, shape, ty):
    """Lines counting elements where got != want; defines %<name>_ok : i1."""
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    ident = f"affine_map<({dims}) -> ({dims})>"
    scalar = f"affine_map<({dims}) -> ()>"
    iters = ", ".join(['"reduction"'] * rank)
    tt = f"tensor<{'x'.join(map(str, shape))}x{ty}>"
    cmp = "arith.cmpf une" if ty.startswith("f") or ty == "bf16" else "arith.cmpi ne"
    return [
        f"  %{name}_zero = arith.constant 0 : i64",
        f"  %{name}_init = tensor.from_elements %{name}_zero : tensor<i64>",
        f"  %{name}_bad = linalg.generic {{indexing_maps = [{ident}, {ident}, {scalar}], iterator_types = [{iters}]}}",
        f"      ins({got}, {want} : {tt}, {tt}) outs(%{name}_init : tensor<i64>) {{",
        f"  ^bb0(%x: {ty}, %y: {ty}, %acc: i64):",
        f"    %ne = {cmp}, %x, %y : {ty}",
        "    %one = arith.extui %ne : i1 to i64",
        "    %s = arith.addi %acc, %one : i64",
        "    linalg.yield %s : i64",
        "  } -> tensor<i64>",
        f"  %{name}_n = tensor.extract %{name}_bad[] : tensor<i64>",
        f"  %{name}_ok = arith.cmpi eq, %{name}_n, %{name}_zero : i64",
    ]


def halo_case(p, idx, grid_shape, split, core, halos, ty):
    """update_halo on a tensor whose dims `split[d]` (grid axes) are split
    into `core[d]` rows per rank with halos (lo, hi) per split dim."""
    name = f"halo{idx}"
    g = p.grid(grid_shape)
    rank = len(core)
    split_dims = [d for d in range(rank) if split[d]]
    lohi = {d: halos[2 * k:2 * k + 2] for k, d in enumerate(split_dims)}
    local = [core[d] + sum(lohi[d]) if d in lohi else core[d] for d in range(rank)]
    tt = f"tensor<{'x'.join(map(str, local))}x{ty}>"
    gr = len(grid_shape)
    coords = ", ".join(["index"] * gr)
    body = [f"func.func @{name}() {{",
            f"  %c:{gr} = shard.process_multi_index on @{g} : {coords}" if gr > 1 else
            f"  %c = shard.process_multi_index on @{g} : index"]
    cref = (lambda a: f"%c#{a}") if gr > 1 else (lambda a: "%c")

    def builder(tag, expected):
        dims = ", ".join(f"d{i}" for i in range(rank))
        parallel = ", ".join(['"parallel"'] * rank)
        lines = [f"  %{tag}_e = tensor.empty() : {tt}",
                 f"  %{tag} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], "
                 f"iterator_types = [{parallel}]}} outs(%{tag}_e : {tt}) {{",
                 f"  ^bb0(%out: {ty}):",
                 "    %true = arith.constant true",
                 "    %v0 = arith.constant 1 : index"]
        keep = "%true"
        value = "%v0"
        for d in range(rank):
            lines.append(f"    %p{d} = linalg.index {d} : index")
            if d in lohi:
                lo, hi = lohi[d]
                axes = split[d]
                # Group index over the split axes, row-major.
                lines.append(f"    %gi{d}_0 = arith.constant 0 : index")
                prev = f"%gi{d}_0"
                n = 1
                for j, a in enumerate(axes):
                    lines.append(f"    %gs{d}_{j} = arith.constant {grid_shape[a]} : index")
                    lines.append(f"    %gm{d}_{j} = arith.muli {prev}, %gs{d}_{j} : index")
                    lines.append(f"    %gi{d}_{j + 1} = arith.addi %gm{d}_{j}, {cref(a)} : index")
                    prev = f"%gi{d}_{j + 1}"
                    n *= grid_shape[a]
                lines += [f"    %core{d} = arith.constant {core[d]} : index",
                          f"    %lo{d} = arith.constant {lo} : index",
                          f"    %end{d} = arith.constant {lo + core[d]} : index",
                          f"    %start{d} = arith.muli {prev}, %core{d} : index",
                          f"    %gp{d} = arith.addi %start{d}, %p{d} : index",
                          f"    %g{d} = arith.subi %gp{d}, %lo{d} : index",
                          f"    %inlo{d} = arith.cmpi uge, %p{d}, %lo{d} : index",
                          f"    %inhi{d} = arith.cmpi ult, %p{d}, %end{d} : index",
                          f"    %in{d} = arith.andi %inlo{d}, %inhi{d} : i1"]
                ok = f"%in{d}"
                if expected:
                    lines += [f"    %zero{d} = arith.constant 0 : index",
                              f"    %last{d} = arith.constant {n - 1} : index",
                              f"    %below{d} = arith.cmpi ult, %p{d}, %lo{d} : index",
                              f"    %hasdown{d} = arith.cmpi ugt, {prev}, %zero{d} : index",
                              f"    %fromdown{d} = arith.andi %below{d}, %hasdown{d} : i1",
                              f"    %above{d} = arith.cmpi uge, %p{d}, %end{d} : index",
                              f"    %hasup{d} = arith.cmpi ult, {prev}, %last{d} : index",
                              f"    %fromup{d} = arith.andi %above{d}, %hasup{d} : i1",
                              f"    %nb{d} = arith.ori %fromdown{d}, %fromup{d} : i1",
                              f"    %ok{d} = arith.ori %in{d}, %nb{d} : i1"]
                    ok = f"%ok{d}"
                lines.append(f"    %keep{d} = arith.andi {keep}, {ok} : i1")
                keep = f"%keep{d}"
                gidx = f"%g{d}"
            else:
                gidx = f"%p{d}"
            # value = value * 100 + global index + 1 (distinct per element)
            lines += [f"    %h{d} = arith.constant 100 : index",
                      f"    %vm{d} = arith.muli {value}, %h{d} : index",
                      f"    %va{d} = arith.addi %vm{d}, {gidx} : index",
                      f"    %v{d + 1} = arith.addi %va{d}, %v0 : index"]
            value = f"%v{d + 1}"
        lines += [f"    %minus = arith.constant -1 : index",
                  f"    %sel = arith.select {keep}, {value}, %minus : index",
                  "    %i64 = arith.index_cast %sel : index to i64"]
        conv, res = convert("%i64", ty)
        lines += conv
        lines += [f"    linalg.yield {res} : {ty}", f"  }} -> {tt}"]
        return lines

    body += builder("in", False)
    body += builder("want", True)
    axes = ", ".join("[" + ", ".join(map(str, s)) + "]" for s in split)
    body.append(f"  %got = shard.update_halo %in on @{g} split_axes = [{axes}] "
                f"halo_sizes = [{', '.join(map(str, halos))}] : {tt}")
    body += equal_all(name, "%got", "%want", local, ty)
    body += ok_or_fail(name, f"%{name}_ok")
    body += ["  return", "}"]
    p.funcs.append("\n".join(body))
    p.calls.append(name)
    p.count += 1


def halo_suite(p, devices):
    cases = []
    if devices == 4:
        cases = [
            ((4,), [[0], []], [3, 2], [2, 1], "i32"),       # uneven halos
            ((4,), [[0], []], [3, 2], [0, 2], "f32"),       # a zero halo
            ((4,), [[], [0]], [2, 4], [1, 3], "f64"),       # second tensor dim
            ((2, 2), [[0], [1]], [3, 4], [1, 2, 2, 1], "f32"),   # 2-D, corners
            ((2, 2), [[1], [0]], [2, 3], [2, 2, 1, 1], "i64"),   # axes swapped
            ((2, 2), [[0, 1], []], [2, 3], [1, 1], "f32"),       # two axes, one dim
            ((4, 1), [[0], [1]], [2, 2], [1, 1, 1, 1], "f32"),   # size-1 axis
            ((1, 4), [[1], []], [2, 2], [2, 1], "bf16"),
        ]
    elif devices == 3:
        cases = [((3,), [[0], []], [4, 2], [1, 2], "f32"),
                 ((3,), [[0], []], [3, 2], [3, 3], "i32")]  # halo = core
    for i, (grid, split, core, halos, ty) in enumerate(cases):
        halo_case(p, i, grid, split, core, halos, ty)


def widen_case(p, idx, grid_shape, op, ty_in, ty_out, n_elems):
    """Rank 0 holds `big`, the others 1: exact only if accumulated wide."""
    name = f"widen{idx}"
    g = p.grid(grid_shape)
    devices = 1
    for s in grid_shape:
        devices *= s
    axes = ", ".join(str(a) for a in range(len(grid_shape)))
    is_float_in = ty_in.startswith("f")
    big = {"f32": 16777216, "f16": 2048, "i8": 100}.get(ty_in, 1000)
    small = 1 if is_float_in else 100
    want_sum = big + (devices - 1) * small
    tin = f"tensor<{n_elems}x{ty_in}>"
    out_elems = n_elems // devices if op == "reduce_scatter" else n_elems
    tout = f"tensor<{out_elems}x{ty_out}>"
    lines = [f"func.func @{name}() {{",
             f"  %r = shard.process_linear_index on @{g} : index",
             "  %c0 = arith.constant 0 : index",
             "  %first = arith.cmpi eq, %r, %c0 : index"]
    if is_float_in:
        lines += [f"  %big = arith.constant {big}.0 : {ty_in}",
                  f"  %small = arith.constant {small}.0 : {ty_in}"]
    else:
        lines += [f"  %big = arith.constant {big} : {ty_in}",
                  f"  %small = arith.constant {small} : {ty_in}"]
    lines += [f"  %v = arith.select %first, %big, %small : {ty_in}",
              f"  %in = tensor.splat %v : {tin}"]
    if op == "all_reduce":
        lines.append(f"  %got = shard.all_reduce %in on @{g} grid_axes = [{axes}] : {tin} -> {tout}")
    elif op == "reduce":
        root = ", ".join("0" for _ in grid_shape)
        lines.append(f"  %got = shard.reduce %in on @{g} grid_axes = [{axes}] root = [{root}] : ({tin}) -> {tout}")
    else:
        lines.append(f"  %got = shard.reduce_scatter %in on @{g} grid_axes = [{axes}] scatter_axis = 0 : {tin} -> {tout}")
    if ty_out.startswith("f"):
        lines.append(f"  %w = arith.constant {want_sum}.0 : {ty_out}")
    else:
        lines.append(f"  %w = arith.constant {want_sum} : {ty_out}")
    lines.append(f"  %want = tensor.splat %w : {tout}")
    body_check = equal_all(name, "%got", "%want", [out_elems], ty_out)
    # reduce defines the result on the root only.
    if op == "reduce":
        lines += body_check
        lines.append(f"  %{name}_pass = arith.ori %{name}_ok, %notroot : i1")
        lines.insert(4, "  %notroot = arith.xori %first, %true : i1")
        lines.insert(4, "  %true = arith.constant true")
        lines += ok_or_fail(name, f"%{name}_pass")
    else:
        lines += body_check
        lines += ok_or_fail(name, f"%{name}_ok")
    lines += ["  return", "}"]
    p.funcs.append("\n".join(lines))
    p.calls.append(name)
    p.count += 1


def widen_suite(p, devices):
    grid = (devices,) if devices != 4 else (2, 2)
    cases = [("all_reduce", "f32", "f64"), ("reduce", "i8", "i16"),
             ("reduce_scatter", "f32", "f64"), ("all_reduce", "i8", "i32"),
             ("all_reduce", "f16", "f32")]
    for i, (op, a, b) in enumerate(cases):
        widen_case(p, i, grid, op, a, b, 4 * devices)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", choices=["halo", "widen"], required=True)
    ap.add_argument("--devices", type=int, default=4)
    ap.add_argument("--count", action="store_true",
                    help="print the number of checks a run prints instead")
    args = ap.parse_args()
    p = Program()
    {"halo": halo_suite, "widen": widen_suite}[args.suite](p, args.devices)
    if args.count:
        print(p.count)
        return
    sys.stdout.write(p.emit())


if __name__ == "__main__":
    main()
