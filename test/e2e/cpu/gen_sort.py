#!/usr/bin/env python3
"""Generates the end-to-end check of dtensor.sort at test time.

Each --case TYPE:SHAPE:DIM:ORDER:PLACEMENTS[:topK] (ORDER asc or desc; for
example f32:6x9:1:desc:S0,R) becomes @program_k: a dtensor.global_region
holding one `dtensor.sort` along DIM of an argument laid out with
PLACEMENTS (S<d>, R), both results asked for in the same layout; with
topK only their first K along DIM (torch's topk, which dtensor-lower-sorts
lowers by selection), compared with the reference's first K. @main
builds the input (small integers with many ties; for floats every fifth
element NaN), runs @program_k, brings the results back replicated and
compares them bit for bit with @reference_k, an independent definition: each
element's rank in its row (how many come before it: ordered before it, or
equal and earlier in the row; NaN as torch orders it), then the element of
rank r at position r (a masked pick over the row), n^2 compares that share
no code with the radix sort. Each rank prints `sort case <k>: ok` or
`sort case <k>: MISMATCH`; the output carries its own FileCheck lines.

Run: python3 gen_sort.py --mesh 2x2 --case f32:6x9:1:desc:S0,R > t.mlir
     hp-runner -np 4 t.mlir -e main --entry-point-result=void | FileCheck t.mlir
"""
import argparse

FLOATS = {"f16", "bf16", "f32", "f64"}
BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i32": 32, "i64": 64}


def tensor(shape, t):
    return "tensor<" + "".join(f"{s}x" for s in shape) + t + ">"


def placement(text):
    if text == "R":
        return "replicate"
    if text.startswith("S"):
        return f"shard<{int(text[1:])}>"
    raise SystemExit(f"bad placement {text!r}")


def dtensor(shape, t, ps):
    body = "".join(f"{s}x" for s in shape) + t
    return f"!dtensor.tensor<{body}, @m, [{', '.join(ps)}]>"


def amap(n, dims):
    ds = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({ds}) -> ({', '.join(dims)})>"


def before(t, x, y, desc, out):
    """Lines setting %{out} (i1): whether x comes strictly before y."""
    if t not in FLOATS:
        return [f"%{out} = arith.cmpi {'sgt' if desc else 'slt'}, {x}, {y} : {t}"]
    nan, num = (x, y) if desc else (y, x)
    return [f"%{out}_o = arith.cmpf {'ogt' if desc else 'olt'}, {x}, {y} : {t}",
            f"%{out}_n = arith.cmpf uno, {nan}, {nan} : {t}",
            f"%{out}_m = arith.cmpf ord, {num}, {num} : {t}",
            f"%{out}_f = arith.andi %{out}_n, %{out}_m : i1",
            f"%{out} = arith.ori %{out}_o, %{out}_f : i1"]


def equal(t, x, y, out):
    if t not in FLOATS:
        return [f"%{out} = arith.cmpi eq, {x}, {y} : {t}"]
    # Equal numbers, or both NaN.
    return [f"%{out}_e = arith.cmpf oeq, {x}, {y} : {t}",
            f"%{out}_a = arith.cmpf uno, {x}, {x} : {t}",
            f"%{out}_b = arith.cmpf uno, {y}, {y} : {t}",
            f"%{out}_n = arith.andi %{out}_a, %{out}_b : i1",
            f"%{out} = arith.ori %{out}_e, %{out}_n : i1"]


def case_funcs(k, t, shape, dim, desc, ps, top=None):
    rank = len(shape)
    n = shape[dim]
    ty = tensor(shape, t)
    ity = tensor(shape, "i64")
    # The results' shape: the first `top` along dim, or all.
    oshape = list(shape)
    if top is not None:
        oshape[dim] = top
    oty = tensor(oshape, t)
    oity = tensor(oshape, "i64")
    dty = dtensor(shape, t, ps)
    odty = dtensor(oshape, t, ps)
    oidty = dtensor(oshape, "i64", ps)
    zeros = ", ".join(["0"] * rank)
    ones = ", ".join(["1"] * rank)
    osizes = ", ".join(map(str, oshape))

    def first(v, ty_in, ty_out, name):
        return (f"%{name} = tensor.extract_slice {v}[{zeros}] [{osizes}] [{ones}] : "
                f"{ty_in} to {ty_out}")
    idx = [f"d{i}" for i in range(rank)]
    order = " descending" if desc else ""
    out = []
    sliced = ""
    result = "%s, %j"
    if top is not None:
        sliced = ("\n    " + first("%s", ty, oty, "st") + "\n    "
                  + first("%j", ity, oity, "jt"))
        result = "%st, %jt"
    out.append(f"""func.func @program_{k}(%x: {dty}) -> ({odty}, {oidty}) {{
  %v, %i = dtensor.global_region on @m args(%x) : ({dty}) -> ({odty}, {oidty}) {{
  ^bb0(%g: {ty}):
    %s, %j = dtensor.sort %g dim = {dim}{order} : {ty} -> {ity}{sliced}
    dtensor.yield {result} : {oty}, {oity}
  }}
  return %v, %i : {odty}, {oidty}
}}""")
    strides, s = [], 1
    for size in reversed(shape):
        strides.insert(0, s)
        s *= size
    lines = ["%lin0 = arith.constant 0 : index"]
    for d in range(rank):
        lines += [f"%i{d} = linalg.index {d} : index",
                  f"%s{d} = arith.constant {strides[d]} : index",
                  f"%p{d} = arith.muli %i{d}, %s{d} : index",
                  f"%lin{d + 1} = arith.addi %lin{d}, %p{d} : index"]
    lines += [f"%l = arith.index_cast %lin{rank} : index to i64",
              "%c5 = arith.constant 5 : i64", "%c7 = arith.constant 7 : i64",
              "%c3 = arith.constant 3 : i64", "%f = arith.muli %l, %c5 : i64",
              "%m = arith.remsi %f, %c7 : i64", "%v = arith.subi %m, %c3 : i64"]
    if t in FLOATS:
        # -3..3 times 1, 1.125, 1.25 or 1.375 (ties, and mantissa bits);
        # every fifth a NaN (every other one negated), and among the rest
        # -0.0 (a tie with 0.0), inf and -inf.
        lines += ["%c4 = arith.constant 4 : i64", "%c11 = arith.constant 11 : i64",
                  "%q = arith.remsi %l, %c4 : i64",
                  f"%qf = arith.sitofp %q : i64 to {t}",
                  f"%eighth = arith.constant 0.125 : {t}",
                  f"%onef = arith.constant 1.0 : {t}",
                  f"%scale0 = arith.mulf %qf, %eighth : {t}",
                  f"%scale = arith.addf %scale0, %onef : {t}",
                  f"%whole = arith.sitofp %v : i64 to {t}",
                  f"%num = arith.mulf %whole, %scale : {t}",
                  f"%zero = arith.constant 0.0 : {t}",
                  f"%negzero = arith.negf %zero : {t}",
                  f"%inf = arith.divf %onef, %zero : {t}",
                  f"%neginf = arith.negf %inf : {t}",
                  f"%nan0 = arith.divf %zero, %zero : {t}",
                  f"%negnan = arith.negf %nan0 : {t}",
                  "%r2 = arith.remsi %l, %c2i : i64",
                  "%odd = arith.cmpi ne, %r2, %c0i : i64",
                  f"%nan = arith.select %odd, %nan0, %negnan : {t}",
                  "%r11 = arith.remsi %l, %c11 : i64",
                  "%isnz = arith.cmpi eq, %r11, %c3 : i64",
                  "%isinf = arith.cmpi eq, %r11, %c7 : i64",
                  "%c9 = arith.constant 9 : i64",
                  "%isninf = arith.cmpi eq, %r11, %c9 : i64",
                  f"%e0 = arith.select %isnz, %negzero, %num : {t}",
                  f"%e1 = arith.select %isinf, %inf, %e0 : {t}",
                  f"%e2 = arith.select %isninf, %neginf, %e1 : {t}",
                  "%r5 = arith.remsi %l, %c5 : i64",
                  "%isnan = arith.cmpi eq, %r5, %c2i : i64",
                  f"%e = arith.select %isnan, %nan, %e2 : {t}"]
        lines[0:0] = ["%c0i = arith.constant 0 : i64", "%c2i = arith.constant 2 : i64"]
    elif t == "i64":
        # Digits in the high bytes and ties in the low ones.
        lines += ["%big = arith.constant 1099511627776 : i64",
                  "%high = arith.muli %v, %big : i64", "%e = arith.addi %high, %m : i64"]
    else:
        lines += [f"%e = arith.trunci %v : i64 to {t}"]
    body = "\n    ".join(lines)
    par = ", ".join(['"parallel"'] * rank)
    out.append(f"""func.func @input_{k}() -> {ty} {{
  %empty = tensor.empty() : {ty}
  %t = linalg.generic {{indexing_maps = [{amap(rank, idx)}], iterator_types = [{par}]}}
      outs(%empty : {ty}) {{
  ^bb0(%o: {t}):
    {body}
    linalg.yield %e : {t}
  }} -> {ty}
  return %t : {ty}
}}""")
    # The reference: ranks, then the element of each rank.
    other = list(idx)
    other[dim] = f"d{rank}"
    red = ", ".join(['"parallel"'] * rank + ['"reduction"'])
    rank_lines = before(t, "%b", "%a", desc, "first") + equal(t, "%b", "%a", "same") + [
        f"%i = linalg.index {dim} : index", f"%j = linalg.index {rank} : index",
        "%earlier = arith.cmpi ult, %j, %i : index",
        "%tie = arith.andi %same, %earlier : i1",
        "%counts = arith.ori %first, %tie : i1",
        "%one = arith.extui %counts : i1 to i64",
        "%r = arith.addi %acc, %one : i64"]
    rank_body = "\n    ".join(rank_lines)
    # out[.., r, ..] = x[.., i, ..] where rank[.., i, ..] == r.
    pick = list(idx)
    pick[dim] = f"d{rank}"
    zero = "0.0" if t in FLOATS else "0"
    out.append(f"""func.func @reference_{k}(%x: {ty}) -> ({ty}, {ity}) {{
  %c0 = arith.constant 0 : i64
  %ie = tensor.empty() : {ity}
  %iz = linalg.fill ins(%c0 : i64) outs(%ie : {ity}) -> {ity}
  %ranks = linalg.generic {{indexing_maps = [{amap(rank + 1, idx)}, {amap(rank + 1, other)}, {amap(rank + 1, idx)}],
                           iterator_types = [{red}]}}
      ins(%x, %x : {ty}, {ty}) outs(%iz : {ity}) {{
  ^bb0(%a: {t}, %b: {t}, %acc: i64):
    {rank_body}
    linalg.yield %r : i64
  }} -> {ity}
  %z = arith.constant {zero} : {t}
  %ve = tensor.empty() : {ty}
  %vz = linalg.fill ins(%z : {t}) outs(%ve : {ty}) -> {ty}
  %v, %w = linalg.generic {{indexing_maps = [{amap(rank + 1, pick)}, {amap(rank + 1, pick)}, {amap(rank + 1, idx)}, {amap(rank + 1, idx)}],
                           iterator_types = [{red}]}}
      ins(%x, %ranks : {ty}, {ity}) outs(%vz, %iz : {ty}, {ity}) {{
  ^bb0(%a: {t}, %ra: i64, %accv: {t}, %acci: i64):
    %p = linalg.index {dim} : index
    %pp = arith.index_cast %p : index to i64
    %hit = arith.cmpi eq, %ra, %pp : i64
    %q = linalg.index {rank} : index
    %qq = arith.index_cast %q : index to i64
    %nv = arith.select %hit, %a, %accv : {t}
    %ni = arith.select %hit, %qq, %acci : i64
    linalg.yield %nv, %ni : {t}, i64
  }} -> ({ty}, {ity})
  return %v, %w : {ty}, {ity}
}}""")
    # Mismatches, bit for bit (NaN equals NaN).
    bits = f"i{BITS[t]}"
    conv = (lambda v, o: f"%{o} = arith.bitcast {v} : {t} to {bits}") if t in FLOATS else \
        (lambda v, o: f"%{o} = arith.addi {v}, %{o}z : {t}")
    allred = ", ".join(['"reduction"'] * rank)
    cmp_lines = ([conv("%p", "pb"), conv("%q", "qb")] if t in FLOATS else
                 [f"%pbz = arith.constant 0 : {t}", conv("%p", "pb"),
                  f"%qbz = arith.constant 0 : {t}", conv("%q", "qb")])
    cmp_body = "\n    ".join(cmp_lines)
    out.append(f"""func.func @mismatches_{k}(%a: {oty}, %b: {oty}, %ia: {oity}, %ib: {oity}) -> i64 {{
  %zero = arith.constant 0 : i64
  %init = tensor.from_elements %zero : tensor<i64>
  %n = linalg.generic {{indexing_maps = [{amap(rank, idx)}, {amap(rank, idx)}, {amap(rank, idx)}, {amap(rank, idx)}, {amap(rank, [])}],
                       iterator_types = [{allred}]}}
      ins(%a, %b, %ia, %ib : {oty}, {oty}, {oity}, {oity}) outs(%init : tensor<i64>) {{
  ^bb0(%p: {t}, %q: {t}, %pi: i64, %qi: i64, %acc: i64):
    {cmp_body}
    %d = arith.cmpi ne, %pb, %qb : {bits}
    %di = arith.cmpi ne, %pi, %qi : i64
    %any = arith.ori %d, %di : i1
    %one = arith.extui %any : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  }} -> tensor<i64>
  %v = tensor.extract %n[] : tensor<i64>
  return %v : i64
}}""")
    rep = dtensor(shape, t, ["replicate"] * len(ps))
    orep = dtensor(oshape, t, ["replicate"] * len(ps))
    oirep = dtensor(oshape, "i64", ["replicate"] * len(ps))
    want_v, want_i = f"%want{k}#0", f"%want{k}#1"
    if top is not None:
        want_v, want_i = f"%wv{k}", f"%wi{k}"
    main = f"""  %x{k} = func.call @input_{k}() : () -> {ty}
  %want{k}:2 = func.call @reference_{k}(%x{k}) : ({ty}) -> ({ty}, {ity})"""
    if top is not None:
        main += "\n  " + first(f"%want{k}#0", ty, oty, f"wv{k}")
        main += "\n  " + first(f"%want{k}#1", ity, oity, f"wi{k}")
    main += f"""
  %rx{k} = dtensor.from_local %x{k} : {ty} -> {rep}
  %dx{k} = dtensor.redistribute %rx{k} : {rep} -> {dty}
  %r{k}:2 = func.call @program_{k}(%dx{k}) : ({dty}) -> ({odty}, {oidty})
  %rv{k} = dtensor.redistribute %r{k}#0 : {odty} -> {orep}
  %ri{k} = dtensor.redistribute %r{k}#1 : {oidty} -> {oirep}
  %gv{k} = dtensor.to_local %rv{k} : {orep} -> {oty}
  %gi{k} = dtensor.to_local %ri{k} : {oirep} -> {oity}
  %n{k} = func.call @mismatches_{k}(%gv{k}, {want_v}, %gi{k}, {want_i}) : ({oty}, {oty}, {oity}, {oity}) -> i64
  %ok{k} = arith.cmpi eq, %n{k}, %zero : i64
  scf.if %ok{k} {{
    vector.print str "sort case {k}: ok\\n"
  }} else {{
    vector.print str "sort case {k}: MISMATCH ("
    vector.print %n{k} : i64
  }}"""
    return out, main


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mesh", required=True, help="axis sizes, e.g. 2x2")
    ap.add_argument("--case", action="append", required=True,
                    help="TYPE:SHAPE:DIM:ORDER:PLACEMENTS[:topK], e.g. f32:6x9:1:desc:S0,R")
    args = ap.parse_args()
    mesh = [int(s) for s in args.mesh.split("x")]
    ranks = 1
    for s in mesh:
        ranks *= s
    names = ", ".join(f'"m{i}"' for i in range(len(mesh)))
    funcs, mains, checks = [], [], []
    for k, text in enumerate(args.case):
        t, shape, dim, order, ps, *top = text.split(":")
        ps = [placement(p) for p in ps.split(",")]
        if len(ps) != len(mesh) or order not in ("asc", "desc") or \
                any(not x.startswith("top") for x in top) or len(top) > 1:
            raise SystemExit(f"case {text!r}: one placement per mesh axis, asc or desc, "
                             "then topK or nothing")
        f, m = case_funcs(k, t, [int(s) for s in shape.split("x")], int(dim),
                          order == "desc", ps, int(top[0][3:]) if top else None)
        funcs += f
        mains.append(m)
        checks += [f"// CHECK-DAG: sort case {k}: ok"] * ranks
    print(f"// Generated by gen_sort.py --mesh {args.mesh} "
          + " ".join(f"--case {c}" for c in args.case))
    print("\n".join(checks))
    print(f"\ndtensor.mesh @m shape = [{', '.join(map(str, mesh))}] names = [{names}]\n")
    print("\n\n".join(funcs))
    print("\nfunc.func @main() {\n  %zero = arith.constant 0 : i64\n"
          + "\n".join(mains) + "\n  return\n}")


if __name__ == "__main__":
    main()
