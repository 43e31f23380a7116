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
  grid    grid queries (grid_shape, process indices, neighbors, shard_shape)
          and moves (all_gather, shift, all_to_all, scatter) whose group size
          comes from the grid.

--dynamic declares grid axes `?`: their sizes then come from the launch,
while the expected values still use the real shape.
"""

import argparse
import itertools
import sys


class Program:
    def __init__(self, dynamic=""):
        # dynamic: which grid axes are declared `?` (sized at launch):
        # "" none, "last" the last axis, "all" every axis.
        self.dynamic = dynamic
        self.grids = {}
        self.funcs = []
        self.calls = []
        self.count = 0

    def grid(self, shape):
        name = "g" + "x".join(map(str, shape))
        self.grids[name] = shape
        return name

    def declared(self, shape):
        sizes = [str(n) for n in shape]
        if self.dynamic == "all":
            sizes = ["?"] * len(shape)
        elif self.dynamic == "last":
            sizes[-1] = "?"
        return "x".join(sizes)

    def emit(self):
        out = []
        for name, shape in self.grids.items():
            out.append(f"shard.grid @{name}(shape = {self.declared(shape)})")
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
    # On a dynamic grid the scattered size is known at run time only.
    declared = f"tensor<?x{ty_out}>" if op == "reduce_scatter" and p.dynamic else tout
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
        lines.append(f"  %got0 = shard.reduce_scatter %in on @{g} grid_axes = [{axes}] scatter_axis = 0 : {tin} -> {declared}")
        lines.append(f"  %got = tensor.cast %got0 : {declared} to {tout}")
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


def queries_case(p, idx, grid_shape):
    """grid_shape, process_multi_index, neighbors_linear_indices and
    shard_shape, compared with values the generator knows from the launch."""
    name = f"queries{idx}"
    g = p.grid(grid_shape)
    rank = len(grid_shape)
    idx_types = ", ".join(["index"] * rank)
    res = (lambda v, i: f"{v}#{i}") if rank > 1 else (lambda v, i: v)
    bind = f":{rank}" if rank > 1 else ""
    lines = [f"func.func @{name}() {{",
             f"  %size{bind} = shard.grid_shape @{g} : {idx_types}",
             f"  %c{bind} = shard.process_multi_index on @{g} : {idx_types}",
             f"  %lin = shard.process_linear_index on @{g} : index",
             "  %ok0 = arith.constant true"]
    ok = "%ok0"
    k = 0

    def check(cond):
        nonlocal ok, k
        k += 1
        lines.append(f"  %ok{k} = arith.andi {ok}, {cond} : i1")
        ok = f"%ok{k}"

    # sizes from the launch
    for a, n in enumerate(grid_shape):
        lines += [f"  %n{a} = arith.constant {n} : index",
                  f"  %sz{a} = arith.cmpi eq, {res('%size', a)}, %n{a} : index"]
        check(f"%sz{a}")
    # the linear index is row-major over the coordinates
    lines.append("  %l0 = arith.constant 0 : index")
    prev = "%l0"
    for a in range(rank):
        lines += [f"  %lm{a} = arith.muli {prev}, %n{a} : index",
                  f"  %l{a + 1} = arith.addi %lm{a}, {res('%c', a)} : index"]
        prev = f"%l{a + 1}"
    lines.append(f"  %lok = arith.cmpi eq, {prev}, %lin : index")
    check("%lok")
    # neighbours along the last axis: linear index -+ 1, or -1 at the ends
    last = rank - 1
    device = ", ".join(res("%c", a) for a in range(rank))
    lines += [f"  %down, %up = shard.neighbors_linear_indices on @{g}[{device}] split_axes = [{last}] : index, index",
              "  %one = arith.constant 1 : index",
              "  %m1 = arith.constant -1 : index",
              "  %zero = arith.constant 0 : index",
              f"  %first = arith.cmpi eq, {res('%c', last)}, %zero : index",
              f"  %nl = arith.subi %n{last}, %one : index",
              f"  %isl = arith.cmpi eq, {res('%c', last)}, %nl : index",
              "  %linm1 = arith.subi %lin, %one : index",
              "  %linp1 = arith.addi %lin, %one : index",
              "  %wd = arith.select %first, %m1, %linm1 : index",
              "  %wu = arith.select %isl, %m1, %linp1 : index",
              "  %dok = arith.cmpi eq, %down, %wd : index",
              "  %uok = arith.cmpi eq, %up, %wu : index"]
    check("%dok")
    check("%uok")
    # shard_shape of 10 rows over the last axis: upstream puts the
    # remainder on the last shards.
    n = grid_shape[last]
    lines += [f"  %s = shard.sharding @{g} split_axes = [[{last}]] : !shard.sharding",
              f"  %rows = shard.shard_shape dims = [10] sharding = %s device = [{device}] : index"]
    # want = 10 // n + (c >= n - 10 % n)
    lines += [f"  %base = arith.constant {10 // n} : index",
              f"  %firstlong = arith.constant {n - 10 % n} : index",
              f"  %long = arith.cmpi uge, {res('%c', last)}, %firstlong : index",
              "  %extra = arith.select %long, %one, %zero : index",
              "  %wrows = arith.addi %base, %extra : index",
              "  %rok = arith.cmpi eq, %rows, %wrows : index"]
    check("%rok")
    lines += ok_or_fail(name, ok)
    lines += ["  return", "}"]
    p.funcs.append("\n".join(lines))
    p.calls.append(name)
    p.count += 1


def index_tensor(tag, shape, value):
    """Lines defining %<tag>: an f32 tensor of `shape` whose element at
    indices (%i, %j, ..) is the index %v the `value` lines compute from them
    (values defined before the tensor may be used)."""
    names = ["%i", "%j"][:len(shape)]
    dims = ", ".join(f"d{k}" for k in range(len(shape)))
    ty = f"tensor<{'x'.join(map(str, shape))}xf32>"
    parallel = ", ".join(['"parallel"'] * len(shape))
    return ([f"  %{tag}_e = tensor.empty() : {ty}",
             f"  %{tag} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], "
             f"iterator_types = [{parallel}]}} outs(%{tag}_e : {ty}) {{",
             "  ^bb0(%o: f32):"] +
            [f"    {v} = linalg.index {k} : index" for k, v in enumerate(names)] +
            [f"    {line}" for line in value] +
            ["    %v64 = arith.index_cast %v : index to i64",
             "    %f = arith.sitofp %v64 : i64 to f32",
             "    linalg.yield %f : f32",
             f"  }} -> {ty}"])


def moves_case(p, idx, grid_shape):
    """all_gather, shift, all_to_all and scatter along the last grid axis;
    the group size is a run-time value on a dynamic grid. Rank values:
    100 * linear index + element. `me` is the rank's coordinate on the last
    axis, `row` the linear index of member 0 of its group."""
    name = f"moves{idx}"
    g = p.grid(grid_shape)
    last = len(grid_shape) - 1
    n = grid_shape[last]
    dyn = p.dynamic != ""
    vec = f"tensor<{2 * n}xf32>"
    lines = [f"func.func @{name}() {{",
             f"  %lin = shard.process_linear_index on @{g} : index",
             "  %c2 = arith.constant 2 : index",
             "  %c10 = arith.constant 10 : index",
             "  %c100 = arith.constant 100 : index",
             f"  %n = arith.constant {n} : index",
             f"  %nm1 = arith.constant {n - 1} : index",
             "  %base = arith.muli %lin, %c100 : index",
             "  %me = arith.remui %lin, %n : index",
             "  %me2 = arith.muli %me, %c2 : index",
             "  %row = arith.subi %lin, %me : index"]
    lines += index_tensor("src", [2 * n], ["%v = arith.addi %base, %i : index"])
    # all_gather of the first two elements: member j's 100 * (row + j) + r.
    gathered = "?" if dyn else str(2 * n)
    lines += [f"  %two = tensor.extract_slice %src[0] [2] [1] : {vec} to tensor<2xf32>",
              f"  %ag = shard.all_gather %two on @{g} grid_axes = [{last}] gather_axis = 0 : tensor<2xf32> -> tensor<{gathered}xf32>",
              f"  %agc = tensor.cast %ag : tensor<{gathered}xf32> to {vec}"]
    lines += index_tensor("aw", [2 * n], [
        "%jj = arith.divui %i, %c2 : index",
        "%r = arith.remui %i, %c2 : index",
        "%who = arith.addi %row, %jj : index",
        "%w100 = arith.muli %who, %c100 : index",
        "%v = arith.addi %w100, %r : index"])
    lines += equal_all(f"{name}_ag", "%agc", "%aw", [2 * n], "f32")
    # shift by one, rotating: from member (me - 1) mod n.
    lines += [f"  %sh = shard.shift %src on @{g} grid_axes = [{last}] shift_axis = {last} offset = 1 rotate : {vec} -> {vec}"]
    lines += index_tensor("sw", [2 * n], [
        "%prev0 = arith.addi %me, %nm1 : index",
        "%prev = arith.remui %prev0, %n : index",
        "%who = arith.addi %row, %prev : index",
        "%w100 = arith.muli %who, %c100 : index",
        "%v = arith.addi %w100, %i : index"])
    lines += equal_all(f"{name}_sh", "%sh", "%sw", [2 * n], "f32")
    # all_to_all (split and concat dim 0): block j of the result is member
    # j's block `me`: 100 * (row + j) + 2 * me + r.
    moved = "?" if dyn else str(2 * n)
    lines += [f"  %a2a = shard.all_to_all %src on @{g} grid_axes = [{last}] split_axis = 0 concat_axis = 0 : {vec} -> tensor<{moved}xf32>",
              f"  %a2ac = tensor.cast %a2a : tensor<{moved}xf32> to {vec}"]
    lines += index_tensor("tw", [2 * n], [
        "%jj = arith.divui %i, %c2 : index",
        "%r = arith.remui %i, %c2 : index",
        "%who = arith.addi %row, %jj : index",
        "%w100 = arith.muli %who, %c100 : index",
        "%v0 = arith.addi %w100, %me2 : index",
        "%v = arith.addi %v0, %r : index"])
    lines += equal_all(f"{name}_a2a", "%a2ac", "%tw", [2 * n], "f32")
    # scatter from member 0 of the group: block me of its values.
    block = "?" if dyn else "2"
    lines += [f"  %sc = shard.scatter %src on @{g} grid_axes = [{last}] scatter_axis = 0 root = [0] : ({vec}) -> tensor<{block}xf32>",
              f"  %scc = tensor.cast %sc : tensor<{block}xf32> to tensor<2xf32>"]
    lines += index_tensor("cw", [2], [
        "%w100 = arith.muli %row, %c100 : index",
        "%v0 = arith.addi %w100, %me2 : index",
        "%v = arith.addi %v0, %i : index"])
    lines += equal_all(f"{name}_sc", "%scc", "%cw", [2], "f32")
    # all_to_all of a 2-D block, split rows, concat columns. Input (r, c) is
    # 100 * lin + 10 * r + c on a (2n)x2 block; result (p, 2j + c) is member
    # j's row 2 * me + p.
    cols = "?" if dyn else str(2 * n)
    rows2 = "?" if dyn else "2"
    lines += index_tensor("m2", [2 * n, 2], [
        "%i10 = arith.muli %i, %c10 : index",
        "%v0 = arith.addi %base, %i10 : index",
        "%v = arith.addi %v0, %j : index"])
    lines += [f"  %t2 = shard.all_to_all %m2 on @{g} grid_axes = [{last}] split_axis = 0 concat_axis = 1 : tensor<{2 * n}x2xf32> -> tensor<{rows2}x{cols}xf32>",
              f"  %t2c = tensor.cast %t2 : tensor<{rows2}x{cols}xf32> to tensor<2x{2 * n}xf32>"]
    lines += index_tensor("w2", [2, 2 * n], [
        "%jj = arith.divui %j, %c2 : index",
        "%cc = arith.remui %j, %c2 : index",
        "%who = arith.addi %row, %jj : index",
        "%w100 = arith.muli %who, %c100 : index",
        "%r0 = arith.addi %me2, %i : index",
        "%r10 = arith.muli %r0, %c10 : index",
        "%v0 = arith.addi %w100, %r10 : index",
        "%v = arith.addi %v0, %cc : index"])
    lines += equal_all(f"{name}_t2", "%t2c", "%w2", [2, 2 * n], "f32")
    lines.append(f"  %{name}_ok0a = arith.andi %{name}_ag_ok, %{name}_sh_ok : i1")
    lines.append(f"  %{name}_ok0 = arith.andi %{name}_ok0a, %{name}_t2_ok : i1")
    lines.append(f"  %{name}_ok1 = arith.andi %{name}_ok0, %{name}_a2a_ok : i1")
    lines.append(f"  %{name}_ok = arith.andi %{name}_ok1, %{name}_sc_ok : i1")
    lines += ok_or_fail(name, f"%{name}_ok")
    lines += ["  return", "}"]
    p.funcs.append("\n".join(lines))
    p.calls.append(name)
    p.count += 1


def grid_suite(p, devices):
    shapes = [(devices,)] if devices != 4 else [(4,), (2, 2)]
    for i, shape in enumerate(shapes):
        queries_case(p, i, shape)
        moves_case(p, i, shape)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", choices=["halo", "widen", "grid"], required=True)
    ap.add_argument("--devices", type=int, default=4)
    ap.add_argument("--dynamic", choices=["", "last", "all"], default="",
                    help="declare the last (or every) grid axis `?`")
    ap.add_argument("--count", action="store_true",
                    help="print the number of checks a run prints instead")
    args = ap.parse_args()
    p = Program(args.dynamic)
    {"halo": halo_suite, "widen": widen_suite,
     "grid": grid_suite}[args.suite](p, args.devices)
    if args.count:
        print(p.count)
        return
    sys.stdout.write(p.emit())


if __name__ == "__main__":
    main()
