#!/usr/bin/env python3
"""hp's redistribute plans vs JAX (XLA's SPMD partitioner) on the same cases.

For every pair of placement lists without partials (JAX shardings cannot
say "partial") on meshes of up to 8 host devices, with tensor sizes every
mesh axis divides (the cases XLA handles without padding):

  * hp: `hp-opt --convert-dtensor-to-shard="print-plans latency-bytes=0"`,
    the plan's bytes per rank and collectives, from the remarks;
  * JAX: jit of the identity with the source as in_shardings and the target
    as out_shardings, compiled for 8 CPU host devices; the collectives of the
    optimized HLO priced with hp's model (bytes one rank sends, ring
    algorithms: all-gather (n-1)/n of its result, all-to-all and
    reduce-scatter (n-1)/n of their operand, all-reduce twice that,
    collective-permute one block when a rank sends to another);
  * the receive lower bound: the most bytes one rank must receive, given
    what it already holds.

Prints per-case lines where hp and JAX differ, per-mesh totals, and writes a
bar chart (total bytes per rank over the receive bound, per mesh shape and
tensor rank: the bound, the exhaustive optimum over hp's moves from
hp-bench-plan-quality --optimum, hp, JAX) to build/bench/jax_compare.png. Skips cleanly (exit 0) where JAX is absent:
`pip install jax matplotlib` enables it. A benchmark, never a test.
"""

import itertools
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))
import hp  # noqa: E402  (hp's byte formulas, from its build)
HP_OPT = os.environ.get("HP_OPT", os.path.join(ROOT, "build", "bin", "hp-opt"))
PLAN_QUALITY = os.path.join(ROOT, "build", "bench", "hp-bench-plan-quality")
MESHES = [(2,), (4,), (8,), (2, 2), (2, 4), (4, 2), (2, 2, 2)]
if os.environ.get("HP_JAX_MESHES"):  # e.g. "2x2,2x2x2"
    MESHES = [tuple(int(n) for n in m.split("x"))
              for m in os.environ["HP_JAX_MESHES"].split(",")]
SHAPES = {2: (16, 8), 3: (8, 16, 8)}
ELEMENT_BYTES = 4


def placements(mesh_rank, tensor_rank):
    """Every list of R / S(d) over the mesh dims."""
    options = ["R"] + [f"S{d}" for d in range(tensor_rank)]
    return list(itertools.product(options, repeat=mesh_rank))


def dtensor_type(shape, placement):
    ps = ", ".join("replicate" if p == "R" else f"shard<{p[1:]}>" for p in placement)
    return f"!dtensor.tensor<{'x'.join(map(str, shape))}xf32, @m, [{ps}]>"


def hp_costs(mesh, shape, pairs, latency_bytes=0):
    """(bytes, collectives) of hp's plan for each pair under `latency_bytes`."""
    lines = [f"dtensor.mesh @m shape = [{', '.join(map(str, mesh))}]"]
    for i, (src, dst) in enumerate(pairs):
        a, b = dtensor_type(shape, src), dtensor_type(shape, dst)
        lines += [f"func.func @c{i}(%x: {a}) -> {b} {{",
                  f"  %r = dtensor.redistribute %x : {a} -> {b}",
                  f"  return %r : {b}", "}"]
    proc = subprocess.run(
        [HP_OPT, f"--convert-dtensor-to-shard=print-plans latency-bytes={latency_bytes}",
         "--mlir-print-op-on-diagnostic=false", "-o", "/dev/null", "-"],
        input="\n".join(lines), capture_output=True, text=True, check=True)
    costs = {}
    for m in re.finditer(r"<stdin>:(\d+):\d+: remark: plan .*?: cost=(\S+) collectives=(\d+)",
                         proc.stderr):
        line, cost, launches = int(m.group(1)), float(m.group(2)), int(m.group(3))
        # Axis weights are 1: the cost is the bytes plus alpha per launch.
        costs[(line - 3) // 4] = (cost - latency_bytes * launches, launches)
    # Identity pairs have no remark: nothing to move.
    return [costs.get(i, (0.0, 0)) for i in range(len(pairs))]


def optimum_costs(mesh, shape, pairs):
    """The exhaustive optimum's bytes for each pair (hp-bench-plan-quality
    --optimum: Bellman-Ford over every reachable state, independent of the
    planner's search), or None where that tool is not built."""
    if not os.path.exists(PLAN_QUALITY):
        return None
    text = "".join(f"{'x'.join(map(str, mesh))} {'x'.join(map(str, shape))} "
                   f"{','.join(src)} {','.join(dst)}\n" for src, dst in pairs)
    proc = subprocess.run([PLAN_QUALITY, "--optimum"], input=text,
                          capture_output=True, text=True, check=True)
    return [float(v) for v in proc.stdout.split()]


def partition_spec(P, placement, tensor_rank, axis_names):
    dims = [[] for _ in range(tensor_rank)]
    for m, p in enumerate(placement):
        if p != "R":
            dims[int(p[1:])].append(axis_names[m])
    return P(*[tuple(d) if len(d) > 1 else (d[0] if d else None) for d in dims])


def group_size(line):
    """Members of the collective's groups, from any of XLA's spellings."""
    g = re.search(r"replica_groups=\{\{([\d,]*)\}", line)
    if g:
        return len(g.group(1).split(","))
    g = re.search(r"replica_groups=\[(\d+),(\d+)\]", line)
    if g:
        return int(g.group(2))
    g = re.search(r"replica_groups=mesh\[([^\]]*)\].*?\{([^}]*)\}", line)
    if g:
        sizes = dict((k, int(v)) for k, v in re.findall(r"'(\w+)'=(\d+)", g.group(1)))
        n = 1
        for axis in re.findall(r"'(\w+)'", g.group(2)):
            n *= sizes.get(axis, 1)
        return n
    return 1


def hlo_bytes(text):
    """(bytes one rank sends, collectives) of the optimized HLO's collectives."""
    sizes = {"f32": 4, "bf16": 2, "f16": 2, "f64": 8, "s32": 4, "u32": 4, "pred": 1}
    total, count = 0.0, 0
    for line in text.splitlines():
        m = re.search(r"= (\(.*?\)|\w+\[[\d,]*\]\S*) (all-gather|all-to-all|"
                      r"collective-permute|reduce-scatter|all-reduce)(-start)?\(", line)
        if not m:
            continue
        nbytes = 0
        for ty, dims in re.findall(r"(\w+)\[([\d,]*)\]", m.group(1)):
            elems = 1
            for d in filter(None, dims.split(",")):
                elems *= int(d)
            nbytes += elems * sizes.get(ty, 4)
        op = m.group(2)
        if m.group(3) and op in ("all-gather", "collective-permute"):
            nbytes //= 2  # async start: (operand, result)
        if op == "collective-permute":
            pairs = re.findall(r"\{(\d+),(\d+)\}", line.split("source_target_pairs=")[-1])
            moves = any(a != b for a, b in pairs)
            total += hp.collective_bytes_sent("send", 2, float(nbytes), float(nbytes)) if moves else 0
            count += 1 if moves else 0
            continue
        n = group_size(line)
        if n <= 1:
            continue
        count += 1
        # HLO gives each collective's result shape; hp's formulas
        # (hp.collective_bytes_sent) price it. A reduce-scatter's operand is
        # n of its results.
        kind = {"all-gather": "all_gather", "all-to-all": "all_to_all",
                "reduce-scatter": "reduce_scatter"}.get(op, "all_reduce")
        operand = n * nbytes if kind == "reduce_scatter" else nbytes
        total += hp.collective_bytes_sent(kind, n, float(operand), float(nbytes))
    return total, count


def receive_bound(mesh, shape, src, dst):
    """The most bytes one rank must receive: its target block minus what its
    source block already holds (even splits, mesh-dim nesting)."""
    def box(placement, coord):
        lo, size = [0] * len(shape), list(shape)
        for m, p in enumerate(placement):
            if p != "R":
                d = int(p[1:])
                size[d] //= mesh[m]
                lo[d] += coord[m] * size[d]
        return lo, size
    most = 0
    for coord in itertools.product(*[range(n) for n in mesh]):
        (hl, hs), (wl, ws) = box(src, coord), box(dst, coord)
        wanted = kept = 1
        for k in range(len(shape)):
            wanted *= ws[k]
            kept *= max(0, min(hl[k] + hs[k], wl[k] + ws[k]) - max(hl[k], wl[k]))
        most = max(most, (wanted - kept) * ELEMENT_BYTES)
    return most


def main():
    try:
        os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    except ImportError:
        print("jax_compare: JAX is not installed (pip install jax matplotlib); skipped")
        return 0
    if not os.path.exists(HP_OPT):
        print(f"jax_compare: {HP_OPT} not built; skipped")
        return 0

    summary = []
    print(f"{'mesh':10} {'rank':>4} {'case':34} {'hp B':>8} {'hp #':>4} "
          f"{'jax B':>8} {'jax #':>5} {'recv B':>8}")
    for mesh in MESHES:
        names = tuple("abc"[:len(mesh)])
        devices = np.array(jax.devices()[:int(np.prod(mesh))]).reshape(mesh)
        jmesh = Mesh(devices, names)
        for rank, shape in SHAPES.items():
            # Rank 3 on 8 devices is 4,032 compiles: rank 2 there.
            if rank == 3 and int(np.prod(mesh)) > 4:
                continue
            lists = placements(len(mesh), rank)
            pairs = [(s, d) for s in lists for d in lists if s != d]
            hp = hp_costs(mesh, shape, pairs)
            # hp's default cost model (64 KiB per launch): fewer launches
            # where bytes tie.
            hp_default = hp_costs(mesh, shape, pairs, latency_bytes=65536)
            optimum = optimum_costs(mesh, shape, pairs)
            x = jnp.zeros(shape, jnp.float32)
            sums = {"hp": 0.0, "jax": 0.0, "bound": 0.0, "optimum": 0.0,
                    "n": 0, "better": 0,
                    "worse": 0, "more_launches": 0, "unparsed": 0,
                    "default_more_launches": 0}
            for i, ((src, dst), (hb, hc), (db, dc)) in enumerate(
                    zip(pairs, hp, hp_default)):
                f = jax.jit(lambda v: v,
                            in_shardings=NamedSharding(jmesh, partition_spec(P, src, rank, names)),
                            out_shardings=NamedSharding(jmesh, partition_spec(P, dst, rank, names)))
                jb, jc = hlo_bytes(f.lower(x).compile().as_text())
                rb = receive_bound(mesh, shape, src, dst)
                # Below the bound means a collective the parser missed.
                sums["unparsed"] += jb < rb - 1e-6
                sums["hp"] += hb
                sums["jax"] += jb
                # The optimum prices 4-byte elements, as here.
                sums["optimum"] += optimum[i] if optimum else float("nan")
                sums["bound"] += rb
                sums["n"] += 1
                if hb < jb - 1e-6:
                    sums["better"] += 1
                elif hb > jb + 1e-6:
                    sums["worse"] += 1
                elif hc > jc:
                    sums["more_launches"] += 1
                if abs(db - jb) < 1e-6 and dc > jc:
                    sums["default_more_launches"] += 1
                if abs(hb - jb) > 1e-6 or hc > jc:
                    case = f"[{','.join(src)}] -> [{','.join(dst)}]"
                    print(f"{str(mesh):10} {rank:>4} {case:34} {hb:8.0f} {hc:4d} "
                          f"{jb:8.0f} {jc:5d} {rb:8.0f}")
            summary.append((mesh, rank, sums))

    print(f"\n{'mesh':10} {'rank':>4} {'pairs':>6} {'hp/jax':>8} {'hp/recv':>8} "
          f"{'hp/opt':>7} {'hp<jax':>7} {'hp>jax':>7} {'same B, more launches':>22}")
    tot = {"hp": 0.0, "jax": 0.0, "bound": 0.0, "optimum": 0.0, "n": 0,
           "better": 0, "worse": 0,
           "more_launches": 0, "unparsed": 0, "default_more_launches": 0}
    for mesh, rank, s in summary:
        print(f"{str(mesh):10} {rank:>4} {s['n']:>6} {s['hp'] / max(s['jax'], 1):8.4f} "
              f"{s['hp'] / max(s['bound'], 1):8.4f} {s['hp'] / max(s['optimum'], 1):7.4f} "
              f"{s['better']:>7} {s['worse']:>7} "
              f"{s['more_launches']:>22}")
        for k in tot:
            tot[k] += s[k]
    print(f"\nall: {tot['n']} pairs; total bytes hp/jax {tot['hp'] / tot['jax']:.4f}, "
          f"hp/receive bound {tot['hp'] / tot['bound']:.4f}, hp/exhaustive optimum "
          f"{tot['hp'] / tot['optimum']:.4f}; hp moves fewer bytes on "
          f"{tot['better']}, more on {tot['worse']}; equal bytes but more collectives on "
          f"{tot['more_launches']} (with the default latency-bytes: "
          f"{tot['default_more_launches']}); JAX below the receive bound (HLO not "
          f"parsed): {tot['unparsed']}")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("jax_compare: matplotlib not installed; no chart")
        return 0
    labels = [f"{'x'.join(map(str, m))}\nrank {r}" for m, r, _ in summary]
    xs = np.arange(len(summary))
    width = 0.2
    fig, ax = plt.subplots(figsize=(12, 4.5))
    for i, (key, label) in enumerate([("bound", "receive lower bound"),
                                      ("optimum", "exhaustive optimum (hp's moves)"),
                                      ("hp", "hp's plans"),
                                      ("jax", f"JAX {jax.__version__} (XLA)")]):
        ax.bar(xs + (i - 1.5) * width, [s[key] / max(s["bound"], 1) for _, _, s in summary],
               width, label=label)
    ax.set_xticks(xs, labels, fontsize=8)
    ax.set_ylabel("total bytes per rank / receive bound")
    ax.set_ylim(0.8, None)
    ax.set_title("Redistributes without partials, bytes only (latency-bytes=0)")
    ax.legend()
    fig.tight_layout()
    out = os.path.join(ROOT, "build", "bench", "jax_compare.png")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"chart: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
