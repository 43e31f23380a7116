#!/usr/bin/env python3
"""Generates a random global-view program and its end-to-end check at test time.

The program (deterministic from --seed) declares `dtensor.mesh @m` and a
function @program whose DTensor arguments have random boundary placements
(shard<d>, replicate, partial<sum|max|min>) and whose body is one
`dtensor.global_region` holding a random DAG of ops on global tensors:
linalg.matmul / batch_matmul, elementwise linalg.generic (identity,
broadcasting and outer-product maps), one-dim reductions (sum and max, the
init a linalg.fill of the identity), linalg.transpose / broadcast / fill,
tensor.empty, dense arith.constant tensors, elementwise arith ops directly on
tensors, tensor.expand_shape / collapse_shape, tensor.extract_slice (plain
and rank-reducing), tensor.concat, generics reading linalg.index (an added
index, a causal mask) and `dtensor.constrain` with random placements
(partial ones only on contraction or reduction outputs, of the matching
kind). Values are reused by several ops (residual-style adds); dims are
small (1..12, or those of --dims), often uneven on the mesh axes or smaller
than them (empty shards). Results get random placements too (partial ones
sometimes, now and then a plain tensor: the whole value on every rank).
A result keeps the partial kind that an argument or a constraint pins on
its value's mesh dim unless --partial-kind-changes is given, which lets it
change (dtensor-propagate then goes through replicate on that dim, since no
redistribute turns partial<a> into partial<b>).

With several types (--type f32,i64,i32) one program mixes them: arguments
and ops draw their type, and `convert` ops (an elementwise generic of
sitofp, fptosi, extsi, trunci, extf or truncf) carry values between types;
every value stays within the smallest type's exact range. One type makes
the same programs as before. --break-reference makes @reference's first
result wrong, for a fuzzer to show that a mismatch is caught
(scripts/fuzz.py --global-programs, which calls generate()).

@main builds every argument deterministically on every rank (small
integers; a partial argument gets per-rank values whose reduction is the
global value, as gen_redistribute.py builds them), calls @program, brings
each result back to replicated and compares it with @reference: the SAME
body ops on plain tensors, which outside a global_region are per-rank data,
so each rank computes the single-device result by itself (a constrain is
the identity there). The generator bounds every value's magnitude, so all values are
exact integers in every element type and any summation order gives the same
numbers; i32/i64 compare exactly, f32 within 1e-4 relative anyway. Each
rank prints `ok result <k>` per result, or `MISMATCH result <k>` with the
count of differing elements; the output carries its own FileCheck lines.

Run: python3 gen_global.py --mesh 2x2 --type i32 --seed 1 --ops 8 > t.mlir
     hp-runner -np 4 t.mlir -e main --entry-point-result=void | FileCheck t.mlir
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_redistribute as gr  # noqa: E402
from gen_redistribute import FLOATS, P, R, S, dt, lt  # noqa: E402

MAX_RANK = 4
MAX_DIM = 24          # dims made by concat / collapse stay at most this
LIMITS = {"f32": 1 << 22, "f64": 1 << 40, "i32": 1 << 29, "i64": 1 << 40}


def ty(shape, t):
    return lt([str(s) for s in shape], t)


def amap(n, dims):
    ds = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({ds}) -> ({', '.join(f'd{i}' for i in dims)})>"


def iters(kinds):
    return "[" + ", ".join(f'"{k}"' for k in kinds) + "]"


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class V:
    """A body value: a global tensor of `shape`, |elements| <= bound.
    `partial` is the partial kind a constraint may pin it to (the
    combiner of the contraction or reduction that made it)."""

    def __init__(self, vid, shape, bound, partial=None, t=None):
        self.id, self.shape, self.bound, self.partial = vid, tuple(shape), bound, partial
        self.t = t
        self.uses = 0
        self.layout = None  # the placements an argument or a constraint pins


class Program:
    def __init__(self, rng, mesh, types, dims):
        """`types`: one element type, or several for a program that mixes
        them. Each op is then built in one type drawn for it (self.t, the
        type of the values it reads and makes), and `convert` ops carry
        values from one type to another."""
        types = [types] if isinstance(types, str) else list(types)
        self.rng, self.mesh, self.types, self.dims = rng, mesh, types, dims
        self.t = types[0]
        # Every value stays exact in every type the program holds.
        self.limit = min(LIMITS[t] for t in types)
        self.ops = []      # (lines(names) -> [str], constrain (res, input) or None)
        self.pool = []     # values ops may use
        self.n = 0
        self.args = []     # (V, placements)
        self.partial_kind_changes = False

    @property
    def float(self):
        return self.t in FLOATS

    @property
    def mixed(self):
        return len(self.types) > 1

    def draw_type(self):
        """The type of the next op (no draw, and so the same programs as
        before, when there is one type)."""
        if self.mixed:
            self.t = self.rng.choice(self.types)
        return self.t

    # -- names and text -------------------------------------------------------
    def new(self, shape, bound, partial=None):
        self.n += 1
        v = V(self.n, shape, bound, partial, self.t)
        self.pool.append(v)
        return v

    def T(self, v_or_shape):
        if isinstance(v_or_shape, V):
            return ty(v_or_shape.shape, v_or_shape.t)
        return ty(v_or_shape, self.t)

    def lit(self, x):
        return f"{float(x)}" if self.float else f"{int(x)}"

    def op(self, kind):
        f = {"add": ("addf", "addi"), "sub": ("subf", "subi"),
             "mul": ("mulf", "muli"), "max": ("maximumf", "maxsi")}[kind]
        return f[0] if self.float else f[1]

    def emit(self, fn, constrain=None):
        self.ops.append((fn, constrain))

    def use(self, *vs):
        for v in vs:
            v.uses += 1

    # -- picking operands -----------------------------------------------------
    def pick(self, pred=lambda v: True):
        cands = [v for v in self.pool if v.t == self.t and pred(v)]
        if not cands:
            return None
        # Few dead ends: with three values nothing uses yet, take one of them.
        unused = [v for v in cands if v.uses == 0]
        if unused and sum(v.uses == 0 for v in self.pool) >= 3:
            cands = unused
        # Recent and little-used values first, older ones still reused.
        w = [1.0 + 2.0 * (i + 1) / len(cands) + (5.0 if v.uses == 0 else 0.0)
             for i, v in enumerate(cands)]
        return self.rng.choices(cands, weights=w)[0]

    def dim(self):
        return self.rng.choice(self.dims)

    def need(self, shape, fresh=0.2):
        """A value of exactly `shape`: an existing one mostly, else a
        transpose of one, else a new leaf (a dense constant or a fill)."""
        shape = tuple(shape)
        if self.rng.random() >= fresh:
            v = self.pick(lambda v: v.shape == shape)
            if v:
                return v
        if len(shape) == 2 and self.rng.random() < 0.5:
            v = self.pick(lambda v: v.shape == shape[::-1])
            if v:
                return self.transpose(v, (1, 0))
        return self.leaf(shape)

    # -- leaves ---------------------------------------------------------------
    def leaf(self, shape):
        if numel(shape) <= 64 and self.rng.random() < 0.75:
            return self.dense(shape)
        return self.fill(shape)

    def dense(self, shape):
        vals = [self.rng.randint(-3, 3) for _ in range(numel(shape))]

        def nest(vals, shape):
            if len(shape) == 1:
                return "[" + ", ".join(self.lit(x) for x in vals) + "]"
            k = numel(shape[1:])
            return "[" + ", ".join(nest(vals[i * k:(i + 1) * k], shape[1:])
                                   for i in range(shape[0])) + "]"
        r = self.new(shape, max(1, max(abs(x) for x in vals)))
        text = f"%t{r.id} = arith.constant dense<{nest(vals, shape)}> : {self.T(r)}"
        self.emit(lambda n: [text])
        return r

    def fill(self, shape, value=None):
        c = self.rng.choice([-3, -2, -1, 1, 2, 3]) if value is None else value
        r = self.new(shape, max(1, abs(c)))
        # Literals are made now: the text is built later, when self.t
        # may be another op's type.
        t, T, lit = self.t, self.T(r), self.lit(c)
        self.emit(lambda n: [
            f"%h{r.id}_c = arith.constant {lit} : {t}",
            f"%h{r.id}_e = tensor.empty() : {T}",
            f"%t{r.id} = linalg.fill ins(%h{r.id}_c : {t}) outs(%h{r.id}_e : {T}) -> {T}"])
        return r

    # -- ops ------------------------------------------------------------------
    def ok(self, bound):
        return bound <= self.limit

    def matmul(self):
        a = self.pick(lambda v: len(v.shape) == 2)
        if not a:
            return None
        m, k = a.shape
        b = self.pick(lambda v: len(v.shape) == 2 and v.shape[0] == k)
        if not b or self.rng.random() < 0.3:
            b = self.need((k, self.dim()))
        n_ = b.shape[1]
        acc = None
        if self.rng.random() < 0.3:
            acc = self.pick(lambda v: v.shape == (m, n_))
        bound = k * a.bound * b.bound + (acc.bound if acc else 0)
        if not self.ok(bound):
            return None
        r = self.new((m, n_), bound, "sum")
        self.use(a, b)
        t, T, zero = self.t, self.T(r), self.lit(0)
        ta, tb = self.T(a), self.T(b)

        def text(n):
            lines = []
            if acc:
                init = n(acc)
            else:
                init = f"%h{r.id}_z"
                lines += [f"%h{r.id}_c = arith.constant {zero} : {t}",
                          f"%h{r.id}_e = tensor.empty() : {T}",
                          f"%h{r.id}_z = linalg.fill ins(%h{r.id}_c : {t}) outs(%h{r.id}_e : {T}) -> {T}"]
            lines.append(f"%t{r.id} = linalg.matmul ins({n(a)}, {n(b)} : {ta}, {tb}) "
                         f"outs({init} : {T}) -> {T}")
            return lines
        if acc:
            self.use(acc)
        self.emit(text)
        return r

    def batch_matmul(self):
        a = self.pick(lambda v: len(v.shape) == 3)
        if not a:
            base = self.pick(lambda v: len(v.shape) == 2)
            if not base:
                return None
            a = self.broadcast(base, 0)
            if not a:
                return None
        bt, m, k = a.shape
        b = self.pick(lambda v: len(v.shape) == 3 and v.shape[:2] == (bt, k))
        if not b or self.rng.random() < 0.3:
            b = self.need((bt, k, self.dim()))
        n_ = b.shape[2]
        bound = k * a.bound * b.bound
        if not self.ok(bound):
            return None
        r = self.new((bt, m, n_), bound, "sum")
        self.use(a, b)
        t, T, zero = self.t, self.T(r), self.lit(0)
        ta, tb = self.T(a), self.T(b)
        self.emit(lambda n: [
            f"%h{r.id}_c = arith.constant {zero} : {t}",
            f"%h{r.id}_e = tensor.empty() : {T}",
            f"%h{r.id}_z = linalg.fill ins(%h{r.id}_c : {t}) outs(%h{r.id}_e : {T}) -> {T}",
            f"%t{r.id} = linalg.batch_matmul ins({n(a)}, {n(b)} : {ta}, {tb}) "
            f"outs(%h{r.id}_z : {T}) -> {T}"])
        return r

    def combine(self, kind, ba, bb):
        return {"add": ba + bb, "sub": ba + bb, "mul": ba * bb,
                "max": max(ba, bb)}[kind]

    def elementwise(self):
        kind = self.rng.choice(["add", "sub", "mul", "max"])
        mode = self.rng.choice(["same", "same", "bcast", "bcast", "outer"])
        if mode == "outer":
            a = self.pick(lambda v: len(v.shape) == 1)
            b = self.pick(lambda v: len(v.shape) == 1)
            if not a or not b:
                return None
            out = (a.shape[0], b.shape[0])
            ma, mb = [0], [1]
        else:
            a = self.pick()
            if not a:
                return None
            out = a.shape
            r_ = len(out)
            ma = list(range(r_))
            if mode == "same" or r_ == 1:
                b, mb = self.need(out), list(range(r_))
            else:
                keep = sorted(self.rng.sample(range(r_), self.rng.randint(1, r_ - 1)))
                b, mb = self.need([out[d] for d in keep]), keep
        if self.rng.random() < 0.5:
            a, b, ma, mb = b, a, mb, ma
        bound = self.combine(kind, a.bound, b.bound)
        if not self.ok(bound):
            return None
        r = self.new(out, bound)
        self.use(a, b)
        nd = len(out)
        t, T, zero = self.t, self.T(r), self.lit(0)
        ta, tb = self.T(a), self.T(b)
        op = self.op(kind)
        maps = f"[{amap(nd, ma)}, {amap(nd, mb)}, {amap(nd, range(nd))}]"
        self.emit(lambda n: [
            f"%h{r.id}_e = tensor.empty() : {T}",
            f"%t{r.id} = linalg.generic {{indexing_maps = {maps}, "
            f"iterator_types = {iters(['parallel'] * nd)}}} "
            f"ins({n(a)}, {n(b)} : {ta}, {tb}) outs(%h{r.id}_e : {T}) {{",
            f"^bb0(%h{r.id}_x: {t}, %h{r.id}_y: {t}, %h{r.id}_o: {t}):",
            f"  %h{r.id}_s = arith.{op} %h{r.id}_x, %h{r.id}_y : {t}",
            f"  linalg.yield %h{r.id}_s : {t}",
            f"}} -> {T}"])
        return r

    def arith_tensor(self, residual=False):
        kind = "add" if residual else self.rng.choice(["add", "sub", "mul", "max"])
        a = self.pick()
        if not a:
            return None
        if residual:
            # The newest value plus an older one of its shape.
            a = self.pool[-1]
            self.t = a.t
            older = [v for v in self.pool[:-1] if v.shape == a.shape and v.t == a.t]
            if not older:
                return None
            b = self.rng.choice(older)
        else:
            b = self.need(a.shape)
        bound = self.combine(kind, a.bound, b.bound)
        if not self.ok(bound):
            return None
        r = self.new(a.shape, bound)
        self.use(a, b)
        op, T = self.op(kind), self.T(r)
        self.emit(lambda n: [f"%t{r.id} = arith.{op} {n(a)}, {n(b)} : {T}"])
        return r

    def reduction(self):
        a = self.pick(lambda v: len(v.shape) >= 2)
        if not a:
            return None
        kind = self.rng.choice(["sum", "max"])
        d = self.rng.randrange(len(a.shape))
        bound = a.bound * a.shape[d] if kind == "sum" else a.bound
        if not self.ok(bound):
            return None
        nd = len(a.shape)
        out = tuple(s for i, s in enumerate(a.shape) if i != d)
        r = self.new(out, bound, kind)
        self.use(a)
        t, T, ta = self.t, self.T(r), self.T(a)
        if kind == "sum":
            ident, comb = self.lit(0), self.op("add")
        else:
            ident = {"f32": "0xFF800000", "f64": "0xFFF0000000000000",
                     "i32": "-2147483648", "i64": "-9223372036854775808"}[t]
            comb = self.op("max")
        maps = f"[{amap(nd, range(nd))}, {amap(nd, [i for i in range(nd) if i != d])}]"
        kinds = ["reduction" if i == d else "parallel" for i in range(nd)]
        self.emit(lambda n: [
            f"%h{r.id}_c = arith.constant {ident} : {t}",
            f"%h{r.id}_e = tensor.empty() : {T}",
            f"%h{r.id}_i = linalg.fill ins(%h{r.id}_c : {t}) outs(%h{r.id}_e : {T}) -> {T}",
            f"%t{r.id} = linalg.generic {{indexing_maps = {maps}, iterator_types = {iters(kinds)}}} "
            f"ins({n(a)} : {ta}) outs(%h{r.id}_i : {T}) {{",
            f"^bb0(%h{r.id}_x: {t}, %h{r.id}_a: {t}):",
            f"  %h{r.id}_s = arith.{comb} %h{r.id}_x, %h{r.id}_a : {t}",
            f"  linalg.yield %h{r.id}_s : {t}",
            f"}} -> {T}"])
        return r

    def transpose(self, a=None, perm=None):
        if a is None:
            a = self.pick(lambda v: len(v.shape) >= 2)
            if not a:
                return None
            nd = len(a.shape)
            perm = list(range(nd))
            while perm == list(range(nd)):
                self.rng.shuffle(perm)
        out = tuple(a.shape[p] for p in perm)
        r = self.new(out, a.bound)
        self.use(a)
        T, ta = self.T(r), self.T(a)
        self.emit(lambda n: [
            f"%h{r.id}_e = tensor.empty() : {T}",
            f"%t{r.id} = linalg.transpose ins({n(a)} : {ta}) outs(%h{r.id}_e : {T}) "
            f"permutation = [{', '.join(map(str, perm))}]"])
        return r

    def broadcast(self, a=None, pos=None):
        if a is None:
            a = self.pick(lambda v: len(v.shape) < MAX_RANK)
            if not a:
                return None
        if len(a.shape) >= MAX_RANK:
            return None
        if pos is None:
            pos = self.rng.randint(0, len(a.shape))
        out = list(a.shape)
        out.insert(pos, self.dim())
        r = self.new(out, a.bound)
        self.use(a)
        T, ta = self.T(r), self.T(a)
        self.emit(lambda n: [
            f"%h{r.id}_e = tensor.empty() : {T}",
            f"%t{r.id} = linalg.broadcast ins({n(a)} : {ta}) outs(%h{r.id}_e : {T}) "
            f"dimensions = [{pos}]"])
        return r

    def expand(self):
        a = self.pick(lambda v: len(v.shape) < MAX_RANK)
        if not a:
            return None
        d = self.rng.randrange(len(a.shape))
        s = a.shape[d]
        splits = [(p, s // p) for p in range(2, s) if s % p == 0]
        if splits and self.rng.random() < 0.6:
            parts = list(self.rng.choice(splits))
        else:
            parts = [1, s] if self.rng.random() < 0.5 else [s, 1]
        out = list(a.shape[:d]) + parts + list(a.shape[d + 1:])
        groups, k = [], 0
        for i in range(len(a.shape)):
            width = 2 if i == d else 1
            groups.append(list(range(k, k + width)))
            k += width
        r = self.new(out, a.bound)
        self.use(a)
        T, ta = self.T(r), self.T(a)
        self.emit(lambda n: [
            f"%t{r.id} = tensor.expand_shape {n(a)} {groups} output_shape "
            f"[{', '.join(map(str, out))}] : {ta} into {T}"])
        return r

    def collapse(self):
        a = self.pick(lambda v: len(v.shape) >= 2)
        if not a:
            return None
        d = self.rng.randrange(len(a.shape) - 1)
        if a.shape[d] * a.shape[d + 1] > MAX_DIM:
            return None
        out = list(a.shape[:d]) + [a.shape[d] * a.shape[d + 1]] + list(a.shape[d + 2:])
        groups = [[i] for i in range(d)] + [[d, d + 1]] + \
                 [[i] for i in range(d + 2, len(a.shape))]
        r = self.new(out, a.bound)
        self.use(a)
        T, ta = self.T(r), self.T(a)
        self.emit(lambda n: [f"%t{r.id} = tensor.collapse_shape {n(a)} {groups} : {ta} into {T}"])
        return r

    def slice(self):
        a = self.pick(lambda v: max(v.shape) >= 2)
        if not a:
            return None
        nd = len(a.shape)
        offs, sizes = [0] * nd, list(a.shape)
        cut = [d for d in range(nd) if a.shape[d] >= 2]
        for d in self.rng.sample(cut, 1 if len(cut) == 1 or self.rng.random() < 0.7 else 2):
            size = self.rng.randint(1, a.shape[d] - 1)
            offs[d], sizes[d] = self.rng.randint(0, a.shape[d] - size), size
        out = list(sizes)
        ones = [d for d in range(nd) if sizes[d] == 1]
        if nd >= 2 and ones and self.rng.random() < 0.4:
            out.pop(self.rng.choice(ones))  # rank-reducing
        r = self.new(out, a.bound)
        self.use(a)
        T, ta = self.T(r), self.T(a)
        j = lambda xs: ", ".join(map(str, xs))  # noqa: E731
        self.emit(lambda n: [
            f"%t{r.id} = tensor.extract_slice {n(a)}[{j(offs)}] [{j(sizes)}] "
            f"[{j([1] * nd)}] : {ta} to {T}"])
        return r

    def concat(self):
        a = self.pick()
        if not a:
            return None
        d = self.rng.randrange(len(a.shape))
        parts = [a]
        for _ in range(self.rng.choice([1, 1, 2])):
            shape = list(a.shape)
            shape[d] = self.dim()
            p = self.pick(lambda v: len(v.shape) == len(shape) and all(
                v.shape[i] == shape[i] for i in range(len(shape)) if i != d))
            parts.append(p if p and self.rng.random() < 0.7 else self.need(shape))
        total = sum(p.shape[d] for p in parts)
        if total > MAX_DIM:
            return None
        out = list(a.shape)
        out[d] = total
        r = self.new(out, max(p.bound for p in parts))
        self.use(*parts)
        T = self.T(r)
        self.emit(lambda n: [
            f"%t{r.id} = tensor.concat dim({d}) {', '.join(n(p) for p in parts)} : "
            f"({', '.join(self.T(p) for p in parts)}) -> {T}"])
        return r

    def index_op(self):
        a = self.pick()
        if not a:
            return None
        nd = len(a.shape)
        mask = nd >= 2 and self.rng.random() < 0.5
        t = self.t
        if mask:
            p, q = sorted(self.rng.sample(range(nd), 2))
            bound = a.bound
        else:
            p = self.rng.randrange(nd)
            bound = a.bound + a.shape[p] - 1
        if not self.ok(bound):
            return None
        r = self.new(a.shape, bound)
        self.use(a)
        T, ta = self.T(r), self.T(a)
        h = f"%h{r.id}"
        if mask:
            body = [f"  {h}_i = linalg.index {p} : index",
                    f"  {h}_j = linalg.index {q} : index",
                    f"  {h}_c = arith.cmpi sge, {h}_i, {h}_j : index",
                    f"  {h}_z = arith.constant {self.lit(0)} : {t}",
                    f"  {h}_s = arith.select {h}_c, {h}_x, {h}_z : {t}"]
        else:
            body = [f"  {h}_i = linalg.index {p} : index"]
            if self.float:
                body += [f"  {h}_n = arith.index_cast {h}_i : index to i64",
                         f"  {h}_f = arith.sitofp {h}_n : i64 to {t}"]
            else:
                body += [f"  {h}_f = arith.index_cast {h}_i : index to {t}"]
            body += [f"  {h}_s = arith.{self.op('add')} {h}_x, {h}_f : {t}"]
        maps = f"[{amap(nd, range(nd))}, {amap(nd, range(nd))}]"
        self.emit(lambda n: [
            f"{h}_e = tensor.empty() : {T}",
            f"%t{r.id} = linalg.generic {{indexing_maps = {maps}, "
            f"iterator_types = {iters(['parallel'] * nd)}}} "
            f"ins({n(a)} : {ta}) outs({h}_e : {T}) {{",
            f"^bb0({h}_x: {t}, {h}_o: {t}):"] + body + [
            f"  linalg.yield {h}_s : {t}",
            f"}} -> {T}"])
        return r

    def convert(self):
        """A value of another type in this op's type (arith casts in an
        elementwise generic; exact, since every value is within the
        smallest type's limit)."""
        cands = [v for v in self.pool if v.t != self.t]
        if not cands:
            return None
        a = self.rng.choice(cands)
        src, dst = a.t, self.t
        if src in FLOATS and dst in FLOATS:
            cast = "extf" if LIMITS[dst] > LIMITS[src] else "truncf"
        elif src in FLOATS:
            cast = "fptosi"
        elif dst in FLOATS:
            cast = "sitofp"
        else:
            cast = "extsi" if dst == "i64" else "trunci"
        r = self.new(a.shape, a.bound)
        self.use(a)
        nd = len(a.shape)
        T, ta, h = self.T(r), self.T(a), f"%h{r.id}"
        maps = f"[{amap(nd, range(nd))}, {amap(nd, range(nd))}]"
        self.emit(lambda n: [
            f"{h}_e = tensor.empty() : {T}",
            f"%t{r.id} = linalg.generic {{indexing_maps = {maps}, "
            f"iterator_types = {iters(['parallel'] * nd)}}} "
            f"ins({n(a)} : {ta}) outs({h}_e : {T}) {{",
            f"^bb0({h}_x: {src}, {h}_o: {dst}):",
            f"  {h}_s = arith.{cast} {h}_x : {src} to {dst}",
            f"  linalg.yield {h}_s : {dst}",
            f"}} -> {T}"])
        return r

    def placements(self, rank, partial_kinds, p_partial=0.2):
        out = []
        for _ in self.mesh:
            c = self.rng.random()
            if partial_kinds and c < p_partial:
                out.append(P(self.rng.choice(partial_kinds)))
            elif c < 0.65:
                out.append(S(self.rng.randrange(rank)))
            else:
                out.append(R)
        return out

    def constrain(self):
        a = None
        if self.rng.random() < 0.5:  # a contraction or reduction, maybe partial
            a = self.pick(lambda v: v.partial)
        a = a or self.pick()
        if not a:
            return None
        pl = self.placements(len(a.shape), [a.partial] if a.partial else [], 0.35)
        r = self.new(a.shape, a.bound, a.partial)
        r.layout = pl
        self.use(a)
        text = "[" + ", ".join(gr.ptext(p) for p in pl) + "]"
        self.emit(lambda n: [f"%t{r.id} = dtensor.constrain {n(a)} {text} : {self.T(r)}"],
                  constrain=(r, a))
        return r

    # -- the whole program ----------------------------------------------------
    KINDS = [("matmul", 3), ("batch_matmul", 1), ("elementwise", 3),
             ("arith_tensor", 2), ("residual", 1.5), ("reduction", 2),
             ("transpose", 1.5), ("broadcast", 1), ("expand", 1),
             ("collapse", 1), ("slice", 1.5), ("concat", 1), ("index_op", 1.5),
             ("constrain", 2), ("leaf", 0.5)]

    def build(self, nops):
        rng = self.rng
        for k in range(rng.randint(2, 4)):
            self.draw_type()
            rank = rng.choice([1, 2, 2, 2, 3])
            shape = tuple(self.dim() for _ in range(rank))
            v = self.new(shape, 0)
            v.arg = k
            v.layout = self.placements(rank, ["sum", "max", "min"])
            self.args.append((v, v.layout))
        self.params = [(rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4),
                        rng.randint(0, 6), rng.randint(3, 7)) for _ in self.args]
        for (v, _), (_, _, _, _, m) in zip(self.args, self.params):
            v.bound = m // 2 + 1
        made = 0
        kinds = self.KINDS + ([("convert", 3)] if self.mixed else [])
        for _ in range(nops * 20):
            if made >= nops:
                break
            names, weights = zip(*kinds)
            kind = rng.choices(names, weights=weights)[0]
            self.draw_type()
            if kind == "residual":
                r = self.arith_tensor(residual=True)
            elif kind == "leaf":
                r = self.leaf(tuple(self.dim() for _ in range(rng.randint(1, 3))))
            else:
                r = getattr(self, kind)()
            made += r is not None
        # Results: the newest value, other values nothing uses (newest
        # first, at most four in all), and now and then a used one.
        last = self.pool[-1]
        sinks = [v for v in reversed(self.pool[:-1])
                 if v.uses == 0 and not hasattr(v, "arg")]
        results = [last] + sinks[:3]
        others = [v for v in self.pool if v not in results]
        if others and rng.random() < 0.25:
            results.append(rng.choice(others))
        self.results = []
        for v in results:
            if rng.random() < 0.1:
                self.results.append((v, None))  # a plain tensor result
                continue
            pl = self.placements(len(v.shape), ["sum", "max", "min"])
            if v.layout and not self.partial_kind_changes:
                # Without --partial-kind-changes a result keeps the kind of a
                # pinned partial on the same mesh dim (with it, propagation
                # goes through replicate there).
                pl = [q if q[0] == "P" and p[0] == "P" else p
                      for p, q in zip(pl, v.layout)]
            self.results.append((v, pl))

    def body(self, ref):
        """The body lines; in the reference a constraint is its input."""
        alias = {}

        def n(v):
            v = alias.get(v.id, v)
            return f"%a{v.arg}" if hasattr(v, "arg") else f"%t{v.id}"
        lines = []
        for fn, con in self.ops:
            if ref and con:
                alias[con[0].id] = alias.get(con[1].id, con[1])
                continue
            lines += fn(n)
        return lines, n


class MainGen(gr.Gen):
    """gen_redistribute's builder, with coordinates from dtensor.axis_index
    (the mesh here is a dtensor.mesh)."""

    def coords(self):
        out = []
        for m in range(len(self.mesh)):
            v = self.val()
            self.emit(f'{v} = dtensor.axis_index @m "d{m}" : index')
            out.append(v)
        return out

    def pattern(self, shape, params):
        """X[i, j, ...] = ((a i + b j + c k + s) mod m) - m/2 on every rank."""
        a, b, c, s, m = params
        weights = [a, b, c, a + c][:len(shape)]
        T = ty(shape, self.t)
        e, x = self.val(), self.val()
        u = x[1:]
        self.emit(f"{e} = tensor.empty() : {T}")
        nd = len(shape)
        self.emit(f"{x} = linalg.generic {{indexing_maps = [{amap(nd, range(nd))}], "
                  f"iterator_types = {iters(['parallel'] * nd)}}} outs({e} : {T}) {{")
        self.lines.append(f"  ^bb0(%{u}_out: {self.t}):")
        body = [f"%{u}_acc0 = arith.constant {s} : index"]
        for i, w in enumerate(weights):
            body += [f"%{u}_i{i} = linalg.index {i} : index",
                     f"%{u}_w{i} = arith.constant {w} : index",
                     f"%{u}_m{i} = arith.muli %{u}_i{i}, %{u}_w{i} : index",
                     f"%{u}_acc{i + 1} = arith.addi %{u}_acc{i}, %{u}_m{i} : index"]
        body += [f"%{u}_mod = arith.constant {m} : index",
                 f"%{u}_r = arith.remui %{u}_acc{nd}, %{u}_mod : index",
                 f"%{u}_r64 = arith.index_cast %{u}_r : index to i64",
                 f"%{u}_off = arith.constant {m // 2} : i64",
                 f"%{u}_v = arith.subi %{u}_r64, %{u}_off : i64"]
        if self.t in FLOATS:
            body.append(f"%{u}_res = arith.sitofp %{u}_v : i64 to {self.t}")
        elif self.t == "i64":
            body.append(f"%{u}_res = arith.addi %{u}_v, %{u}_off : i64")
            body.append(f"%{u}_res2 = arith.subi %{u}_res, %{u}_off : i64")
        else:
            body.append(f"%{u}_res = arith.trunci %{u}_v : i64 to {self.t}")
        res = f"%{u}_res2" if self.t == "i64" else f"%{u}_res"
        body.append(f"linalg.yield {res} : {self.t}")
        self.lines.extend("    " + l for l in body)
        self.lines.append(f"  }} -> {T}")
        return x

    def compare(self, got, want, shape, k):
        T = ty(shape, self.t)
        flat = [numel(shape)]
        g, w = got, want
        if len(shape) > 1:
            groups = [list(range(len(shape)))]
            g, w = self.val(), self.val()
            self.emit(f"{g} = tensor.collapse_shape {got} {groups} : {T} into {ty(flat, self.t)}")
            self.emit(f"{w} = tensor.collapse_shape {want} {groups} : {T} into {ty(flat, self.t)}")
        dyn = lt(["?"], self.t)
        gd, wd, bad, z, ok = (self.val() for _ in range(5))
        self.emit(f"{gd} = tensor.cast {g} : {ty(flat, self.t)} to {dyn}")
        self.emit(f"{wd} = tensor.cast {w} : {ty(flat, self.t)} to {dyn}")
        self.emit(f"{bad} = func.call @mismatches_{self.t}({gd}, {wd}) : ({dyn}, {dyn}) -> i64")
        self.emit(f"{z} = arith.constant 0 : i64")
        self.emit(f"{ok} = arith.cmpi eq, {bad}, {z} : i64")
        self.emit(f"scf.if {ok} {{")
        self.emit(f"  vector.print str \"ok result {k}\\n\"")
        self.emit("} else {")
        self.emit(f"  vector.print str \"MISMATCH result {k} ({'x'.join(map(str, shape))}): "
                  f"elements differing from the single-device result: \"")
        self.emit(f"  vector.print {bad} : i64")
        self.emit("}")


def mismatches(t):
    dyn = lt(["?"], t)
    if t in FLOATS:
        cmp = [f"      %d = arith.subf %x, %y : {t}",
               f"      %ad = math.absf %d : {t}",
               f"      %ay = math.absf %y : {t}",
               f"      %m = arith.maximumf %ay, %one : {t}",
               f"      %tol = arith.mulf %m, %rel : {t}",
               f"      %ne = arith.cmpf ugt, %ad, %tol : {t}"]
        consts = [f"  %one = arith.constant 1.0 : {t}",
                  f"  %rel = arith.constant 1.0e-4 : {t}"]
    else:
        cmp = [f"      %ne = arith.cmpi ne, %x, %y : {t}"]
        consts = []
    return "\n".join([
        "// Elements of %a that differ from %b (f32: by more than 1e-4 relative).",
        f"func.func @mismatches_{t}(%a: {dyn}, %b: {dyn}) -> i64 {{"] + consts + [
        "  %zero = arith.constant 0 : i64",
        "  %init = tensor.from_elements %zero : tensor<i64>",
        "  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],",
        "                       iterator_types = [\"reduction\"]}",
        f"      ins(%a, %b : {dyn}, {dyn}) outs(%init : tensor<i64>) {{",
        f"    ^bb0(%x: {t}, %y: {t}, %acc: i64):"] + cmp + [
        "      %e = arith.extui %ne : i1 to i64",
        "      %s = arith.addi %acc, %e : i64",
        "      linalg.yield %s : i64",
        "  } -> tensor<i64>",
        "  %v = tensor.extract %n[] : tensor<i64>",
        "  return %v : i64",
        "}", ""])


def render(prog, title, break_reference=False):
    """The program's text; `break_reference` makes @reference return a
    wrong first result (-1 - x for x), so that a fuzzer can show that a
    mismatch is found and reported."""
    mesh = prog.mesh
    ranks = numel(mesh)
    rep = [R] * len(mesh)
    args = prog.args
    arg_types = [dt(v.shape, v.t, pl) for v, pl in args]
    res_types = [dt(v.shape, v.t, pl) if pl else ty(v.shape, v.t) for v, pl in prog.results]
    nres = len(prog.results)
    out = []
    out.append(f"// Generated by gen_global.py {title}.\n"
               f"// A random global-view program on a {'x'.join(map(str, mesh))} mesh with "
               f"{', '.join(prog.types)}\n"
               f"// elements; every rank compares each result with the same ops on one device.\n"
               f"// CHECK-NOT: MISMATCH\n"
               f"// CHECK-COUNT-{nres * ranks}: ok result\n"
               f"// CHECK-NOT: MISMATCH\n\n"
               f"dtensor.mesh @m shape = [{', '.join(map(str, mesh))}]\n\n")
    for t in sorted({v.t for v, _ in prog.results}):
        out.append(mismatches(t))

    # @program: one global_region.
    body, n = prog.body(ref=False)
    params = ", ".join(f"%p{i}: {T}" for i, T in enumerate(arg_types))
    rlist = ", ".join(res_types)
    rparen = f"({rlist})" if nres > 1 else rlist
    lines = [f"func.func @program({params}) -> {rparen} {{"]
    res = "%r" if nres == 1 else f"%r:{nres}"
    lines.append(f"  {res} = dtensor.global_region on @m args({', '.join(f'%p{i}' for i in range(len(args)))})")
    lines.append(f"      : ({', '.join(arg_types)}) -> {rparen} {{")
    lines.append(f"  ^bb0({', '.join(f'%a{i}: {ty(v.shape, v.t)}' for i, (v, _) in enumerate(args))}):")
    lines += ["    " + l for l in body]
    ys = [n(v) for v, _ in prog.results]
    lines.append(f"    dtensor.yield {', '.join(ys)} : {', '.join(ty(v.shape, v.t) for v, _ in prog.results)}")
    lines.append("  }")
    rvals = ["%r"] if nres == 1 else [f"%r#{i}" for i in range(nres)]
    lines.append(f"  return {', '.join(rvals)} : {rlist}")
    lines.append("}\n")
    out.append("\n".join(lines))

    # @reference: the same ops on plain tensors, on one rank.
    body, n = prog.body(ref=True)
    gtypes = [ty(v.shape, v.t) for v, _ in prog.results]
    params = ", ".join(f"%a{i}: {ty(v.shape, v.t)}" for i, (v, _) in enumerate(args))
    lines = ["// The same ops on one device.",
             f"func.func @reference({params}) -> ({', '.join(gtypes)}) {{"]
    lines += ["  " + l for l in body]
    rets = [n(v) for v, _ in prog.results]
    if break_reference:
        v = prog.results[0][0]
        one = "-1.0" if v.t in FLOATS else "-1"
        sub = "subf" if v.t in FLOATS else "subi"
        lines += [f"  %broken_c = arith.constant dense<{one}> : {gtypes[0]}",
                  f"  %broken = arith.{sub} %broken_c, {rets[0]} : {gtypes[0]}"]
        rets[0] = "%broken"
    lines.append(f"  return {', '.join(rets)} : {', '.join(gtypes)}")
    lines.append("}\n")
    out.append("\n".join(lines))

    # @main
    # MainGen (gen_redistribute's builder) holds one element type: it is
    # set to each value's before the code for that value is built.
    g = MainGen(mesh, prog.types[0])
    xs, ds = [], []
    for (v, pl), prm in zip(args, prog.params):
        t = g.t = v.t
        x = g.pattern(v.shape, prm)
        full = [str(s) for s in v.shape]
        if any(p[0] == "P" for p in pl):
            start = [p if p[0] == "P" else R for p in pl]
            lx = g.partial_local(x, v.shape, start)
        else:
            start, lx = rep, x
        d0 = g.val()
        g.emit(f"{d0} = dtensor.from_local {lx} : {lt(full, t)} -> {dt(v.shape, t, start)}")
        d = d0
        if start != list(pl):
            d = g.val()
            g.emit(f"{d} = dtensor.redistribute {d0} : {dt(v.shape, t, start)} -> {dt(v.shape, t, pl)}")
        xs.append(x)
        ds.append(d)
    want = g.val()
    g.emit(f"{want}:{nres} = func.call @reference({', '.join(xs)}) : "
           f"({', '.join(ty(v.shape, v.t) for v, _ in args)}) -> ({', '.join(gtypes)})")
    got = g.val()
    g.emit(f"{got}:{nres} = func.call @program({', '.join(ds)}) : "
           f"({', '.join(arg_types)}) -> ({', '.join(res_types)})")
    for k, (v, pl) in enumerate(prog.results):
        t = g.t = v.t
        r = f"{got}#{k}"
        if pl is not None:
            if list(pl) != rep:
                rr = g.val()
                g.emit(f"{rr} = dtensor.redistribute {r} : {dt(v.shape, t, pl)} -> {dt(v.shape, t, rep)}")
                r = rr
            loc = g.val()
            g.emit(f"{loc} = dtensor.to_local {r} : {dt(v.shape, t, rep)} -> {ty(v.shape, t)}")
            r = loc
        g.compare(r, f"{want}#{k}", v.shape, k)
    out.append("func.func @main() {\n" + "\n".join(g.lines) + "\n  return\n}\n")
    return "\n".join(out)


def generate(mesh, types, seed, ops=8, dims=None, partial_kind_changes=False,
             break_reference=False, title=""):
    """The text of the program for (mesh, types, seed, dims): the command
    line's, and scripts/fuzz.py's."""
    rng = random.Random(f"{seed}/{'x'.join(map(str, mesh))}/{','.join(types)}/"
                        f"{','.join(map(str, dims or []))}")
    if not dims:
        # Uneven on the axes, smaller than them, and now and then even.
        dims = sorted(set(rng.sample(range(1, 13), rng.randint(3, 5)) +
                          [rng.choice([1, 2, 3, 5, 7])]))
    prog = Program(rng, mesh, types, dims)
    prog.partial_kind_changes = partial_kind_changes
    prog.build(ops)
    return render(prog, title, break_reference)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mesh", required=True, help="mesh shape, e.g. 2x2")
    ap.add_argument("--type", default="f32",
                    help=f"element type ({', '.join(sorted(LIMITS))}), or several joined "
                         "by commas for a program that mixes them (f32,i64)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ops", type=int, default=8, help="ops in the body (besides leaves)")
    ap.add_argument("--dims", default="",
                    help="tensor dims to draw from, e.g. 1,2,3,7 (default: random from 1..12)")
    ap.add_argument("--partial-kind-changes", action="store_true",
                    help="let a result change the partial kind an argument or a "
                         "constraint pins on a mesh dim (dtensor-propagate refuses "
                         "that today; off by default)")
    ap.add_argument("--break-reference", action="store_true",
                    help="make @reference's first result wrong (to show that a "
                         "mismatch is caught)")
    args = ap.parse_args()
    types = args.type.split(",")
    for t in types:
        if t not in LIMITS:
            ap.error(f"unknown type {t!r} ({', '.join(sorted(LIMITS))})")
    mesh = [int(x) for x in args.mesh.split("x")]
    dims = [int(x) for x in args.dims.split(",")] if args.dims else None
    sys.stdout.write(generate(mesh, types, args.seed, args.ops, dims,
                              args.partial_kind_changes, args.break_reference,
                              " ".join(sys.argv[1:])))


if __name__ == "__main__":
    main()
