#!/usr/bin/env python3
"""Generates the end-to-end check of dtensor.scan at test time.

Each --case TYPE:KIND:SHAPE:DIM:PLACEMENTS (for example
f32:sum:7x3:0:S0,S0) becomes @program_k: a dtensor.global_region holding one
`dtensor.scan KIND` along DIM of an argument laid out with PLACEMENTS
(S<d>, R, P for partial<sum>), its result asked for in the same layout, so
that a split along DIM stays split and runs as each rank's local scan plus
the pieces' totals. @main builds the input (small integers, exact in every
type), runs @program_k, brings the result back replicated and compares it
with @reference_k, an independent definition: for every i, the combination
of the elements j <= i, a masked reduction (one linalg.generic with a loop j
and a select on j <= i) that shares no code with the scan's loop or its
split. Each rank prints `scan case <k>: ok` or `scan case <k>: MISMATCH
(<n> elements)`; the output carries its own FileCheck lines.

Run: python3 gen_scan.py --mesh 2x2 --case f32:sum:7x3:0:S0,S0 > t.mlir
     hp-runner -np 4 t.mlir -e main --entry-point-result=void | FileCheck t.mlir
"""
import argparse

FLOATS = {"f16", "bf16", "f32", "f64"}
INT_BITS = {"i32": 32, "i64": 64}


def tensor(shape, t):
    return "tensor<" + "".join(f"{s}x" for s in shape) + t + ">"


def placement(text):
    if text == "R":
        return "replicate"
    if text == "P":
        return "partial<sum>"
    if text.startswith("S"):
        return f"shard<{int(text[1:])}>"
    raise SystemExit(f"bad placement {text!r}")


def dtensor(shape, t, ps):
    body = "".join(f"{s}x" for s in shape) + t
    return f"!dtensor.tensor<{body}, @m, [{', '.join(ps)}]>"


def combine(kind, t, a, b):
    f = t in FLOATS
    op = {"sum": "addf" if f else "addi", "prod": "mulf" if f else "muli",
          "max": "maximumf" if f else "maxsi", "min": "minimumf" if f else "minsi"}[kind]
    return f"arith.{op} {a}, {b} : {t}"


def identity(kind, t):
    value = {"sum": 0, "prod": 1, "max": -1000, "min": 1000}[kind]
    return f"{value}.0" if t in FLOATS else str(value)


def amap(n, dims):
    ds = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({ds}) -> ({', '.join(dims)})>"


def from_i64(t, value, out):
    """MLIR lines converting the i64 `value` to `t` as `out`."""
    if t in FLOATS:
        return [f"%{out} = arith.sitofp {value} : i64 to {t}"]
    if t == "i64":
        return [f"%{out} = arith.addi {value}, %zero64 : i64"]
    return [f"%{out} = arith.trunci {value} : i64 to {t}"]


def case_funcs(k, t, kind, shape, dim, ps):
    rank = len(shape)
    ty = tensor(shape, t)
    dty = dtensor(shape, t, ps)
    idx = [f"d{i}" for i in range(rank)]
    out = []
    # The program: the scan in a global region, the result laid out as the input.
    out.append(f"""func.func @program_{k}(%x: {dty}) -> {dty} {{
  %r = dtensor.global_region on @m args(%x) : ({dty}) -> {dty} {{
  ^bb0(%g: {ty}):
    %c = dtensor.scan {kind} %g dim = {dim} : {ty}
    dtensor.yield %c : {ty}
  }}
  return %r : {dty}
}}""")
    # The input: value(L) for the row-major index L; a product gets 1, -1
    # and 2 only (its running products stay small), the others -3..3.
    strides = []
    s = 1
    for n in reversed(shape):
        strides.insert(0, s)
        s *= n
    lines = [f"%zero64 = arith.constant 0 : i64"]
    lines.append("%lin0 = arith.constant 0 : index")
    for d in range(rank):
        lines += [f"%i{d} = linalg.index {d} : index",
                  f"%s{d} = arith.constant {strides[d]} : index",
                  f"%p{d} = arith.muli %i{d}, %s{d} : index",
                  f"%lin{d + 1} = arith.addi %lin{d}, %p{d} : index"]
    lines.append(f"%l = arith.index_cast %lin{rank} : index to i64")
    if kind == "prod":
        lines += ["%c5 = arith.constant 5 : i64", "%m = arith.remsi %l, %c5 : i64",
                  "%c2 = arith.constant 2 : i64", "%q = arith.remsi %m, %c2 : i64",
                  "%two = arith.muli %q, %c2 : i64", "%c1 = arith.constant 1 : i64",
                  "%sign = arith.subi %c1, %two : i64",  # 1 or -1
                  "%c4 = arith.constant 4 : i64", "%is4 = arith.cmpi eq, %m, %c4 : i64",
                  "%v = arith.select %is4, %c2, %sign : i64"]
    else:
        lines += ["%c5 = arith.constant 5 : i64", "%c7 = arith.constant 7 : i64",
                  "%c3 = arith.constant 3 : i64", "%f = arith.muli %l, %c5 : i64",
                  "%m = arith.remsi %f, %c7 : i64", "%v = arith.subi %m, %c3 : i64"]
    lines += from_i64(t, "%v", "e")
    body = "\n    ".join(lines)
    out.append(f"""func.func @input_{k}() -> {ty} {{
  %empty = tensor.empty() : {ty}
  %t = linalg.generic {{indexing_maps = [{amap(rank, idx)}], iterator_types = [{", ".join(['"parallel"'] * rank)}]}}
      outs(%empty : {ty}) {{
  ^bb0(%o: {t}):
    {body}
    linalg.yield %e : {t}
  }} -> {ty}
  return %t : {ty}
}}""")
    # The reference: out[.., i, ..] = combination over j <= i of x[.., j, ..].
    read = list(idx)
    read[dim] = f"d{rank}"
    iterators = ", ".join(['"parallel"'] * rank + ['"reduction"'])
    out.append(f"""func.func @reference_{k}(%x: {ty}) -> {ty} {{
  %id = arith.constant {identity(kind, t)} : {t}
  %empty = tensor.empty() : {ty}
  %init = linalg.fill ins(%id : {t}) outs(%empty : {ty}) -> {ty}
  %r = linalg.generic {{indexing_maps = [{amap(rank + 1, read)}, {amap(rank + 1, idx)}],
                       iterator_types = [{iterators}]}}
      ins(%x : {ty}) outs(%init : {ty}) {{
  ^bb0(%in: {t}, %acc: {t}):
    %i = linalg.index {dim} : index
    %j = linalg.index {rank} : index
    %le = arith.cmpi ule, %j, %i : index
    %c = {combine(kind, t, "%acc", "%in")}
    %s = arith.select %le, %c, %acc : {t}
    linalg.yield %s : {t}
  }} -> {ty}
  return %r : {ty}
}}""")
    # The count of elements that differ.
    ne = "arith.cmpf une" if t in FLOATS else "arith.cmpi ne"
    all_red = ", ".join(['"reduction"'] * rank)
    out.append(f"""func.func @mismatches_{k}(%a: {ty}, %b: {ty}) -> i64 {{
  %zero = arith.constant 0 : i64
  %init = tensor.from_elements %zero : tensor<i64>
  %n = linalg.generic {{indexing_maps = [{amap(rank, idx)}, {amap(rank, idx)}, {amap(rank, [])}],
                       iterator_types = [{all_red}]}}
      ins(%a, %b : {ty}, {ty}) outs(%init : tensor<i64>) {{
  ^bb0(%p: {t}, %q: {t}, %acc: i64):
    %d = {ne}, %p, %q : {t}
    %one = arith.extui %d : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  }} -> tensor<i64>
  %v = tensor.extract %n[] : tensor<i64>
  return %v : i64
}}""")
    rep = dtensor(shape, t, ["replicate"] * len(ps))
    main = f"""  %x{k} = func.call @input_{k}() : () -> {ty}
  %want{k} = func.call @reference_{k}(%x{k}) : ({ty}) -> {ty}
  %rx{k} = dtensor.from_local %x{k} : {ty} -> {rep}
  %dx{k} = dtensor.redistribute %rx{k} : {rep} -> {dty}
  %r{k} = func.call @program_{k}(%dx{k}) : ({dty}) -> {dty}
  %rr{k} = dtensor.redistribute %r{k} : {dty} -> {rep}
  %got{k} = dtensor.to_local %rr{k} : {rep} -> {ty}
  %n{k} = func.call @mismatches_{k}(%got{k}, %want{k}) : ({ty}, {ty}) -> i64
  %ok{k} = arith.cmpi eq, %n{k}, %zero : i64
  scf.if %ok{k} {{
    vector.print str "scan case {k}: ok\\n"
  }} else {{
    vector.print str "scan case {k}: MISMATCH ("
    vector.print %n{k} : i64
  }}"""
    return out, main


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mesh", required=True, help="axis sizes, e.g. 2x2")
    ap.add_argument("--case", action="append", required=True,
                    help="TYPE:KIND:SHAPE:DIM:PLACEMENTS, e.g. f32:sum:7x3:0:S0,S0")
    args = ap.parse_args()
    mesh = [int(s) for s in args.mesh.split("x")]
    ranks = 1
    for s in mesh:
        ranks *= s
    names = ", ".join(f'"m{i}"' for i in range(len(mesh)))
    funcs, mains, checks = [], [], []
    for k, text in enumerate(args.case):
        t, kind, shape, dim, ps = text.split(":")
        ps = [placement(p) for p in ps.split(",")]
        if len(ps) != len(mesh):
            raise SystemExit(f"case {text!r}: one placement per mesh axis")
        f, m = case_funcs(k, t, kind, [int(s) for s in shape.split("x")], int(dim), ps)
        funcs += f
        mains.append(m)
        checks += [f"// CHECK-DAG: scan case {k}: ok"] * ranks
    print(f"// Generated by gen_scan.py --mesh {args.mesh} "
          + " ".join(f"--case {c}" for c in args.case))
    print("\n".join(checks))
    print(f"\ndtensor.mesh @m shape = [{', '.join(map(str, mesh))}] names = [{names}]\n")
    print("\n\n".join(funcs))
    print("\nfunc.func @main() {\n  %zero = arith.constant 0 : i64\n"
          + "\n".join(mains) + "\n  return\n}")


if __name__ == "__main__":
    main()
