#!/usr/bin/env python3
"""Random fuzzer of hp's public Python API.

Each batch runs in a subprocess that makes random calls with random and bad
arguments (wrong types, negative and huge ints, empty and odd strings,
objects of dropped contexts and modules, random pipelines, deep nesting).
Every call is a line of Python source executed in one namespace, so a batch
is its own reproducer. A Python exception of the kinds the API documents
(ValueError, TypeError, RuntimeError) is the expected answer to bad input;
anything else is a finding: a signal (crash), another exception type, a
hang, or a verified module whose printed text does not parse again.
Findings are written to --out as standalone scripts; the exit status is 1
when there is any.

  PYTHONPATH=build/python python3 scripts/fuzz_python.py --seconds 60
"""

import argparse
import os
import pathlib
import random
import subprocess
import sys
import time

# Run before a batch's calls and at the top of each reproducer.
PRELUDE = """\
import gc
import hp
from hp import _hp


def _roundtrip(module):
    # A module that verifies must print as text that parses again.
    try:
        module.verify()
    except ValueError:
        return
    text = str(module)
    try:
        hp.Module.parse(hp.Context(), text)
    except ValueError as e:
        raise AssertionError("verified module does not re-parse:\\n" + text) from e


def _run_in_provider(module, pipeline):
    # The next op built first runs `pipeline` from the location provider,
    # which may erase the block the op goes to, or its operands.
    def provider():
        _hp.set_location_provider(hp._caller_location)
        try:
            module.run(pipeline)
        except ValueError:
            pass
        return hp._caller_location()
    _hp.set_location_provider(provider)
"""

EXPECTED = (ValueError, TypeError, RuntimeError)

GOOD_TYPES = ["f32", "i64", "tensor<4xf32>", "tensor<8x4xf32>", "index",
              "!dtensor.tensor<8xf32, @m, [shard<0>]>",
              "!dtensor.tensor<8x4xf32, @m, [replicate]>"]
BAD_TEXT = ["", " ", "(", ")", "<", ">", "{", "}", "@", "%x", "\x00", "f32 f32",
            "tensor<", "!dtensor.tensor<8xf32, @, []>", "é", "\\", '"', "#", "//",
            "tensor<-1xf32>", "tensor<99999999999999999999xf32>"]
ATTRS = ["{value = 1 : i64}", "{}", "1 : i64", "[1, 2]", "unit", "\"s\"",
         "{value = dense<1.0> : tensor<4xf32>}", "{sym_name = \"f\"}", "{a = }"]
OP_NAMES = ["arith.addf", "arith.constant", "func.return", "func.call",
            "dtensor.redistribute", "dtensor.from_local", "dtensor.to_local",
            "dtensor.yield", "dtensor.mesh", "tensor.empty", "test.unknown",
            "builtin.module", "", "noDot", ".x", "x.", "scf.yield"]
PIPELINES = ["hp-partition", "builtin.module(hp-partition)", " builtin.module( cse ) ",
             "canonicalize", "cse", "func.func(canonicalize)", "builtin.module(cse),cse",
             "builtin.module(builtin.module(cse))", "hp-partition{print-plans}",
             "hp-partition{bogus=1}", "no-such-pass", "(((", ")", "", ",", "{",
             "convert-dtensor-to-shard", "func.func(", "builtin.module("]
INTS = [0, 1, 2, 3, 4, 8, -1, -2, 2**31, 2**62, 2**63 - 1, -2**63, 2**64, 10**6]
BAD_TIMEOUTS = ["0", "-1", "'x'", "True", "float('nan')"]
NAMES = ["m", "tp", "f", "main", "", "1x", "a b", "@m", "m-1", "_m", "é", "a\x00b"]


def deep(n):
    """Text nested n brackets deep."""
    return "tensor<" * n + "f32" + ">" * n


class Generator:
    """Random lines of Python over the objects made so far; `seen` maps
    each kind to the variable names that exist in the namespace."""

    def __init__(self, rng, ns):
        self.rng, self.ns, self.counter = rng, ns, 0
        self.seen = {k: [] for k in ("ctx", "module", "block", "op", "value",
                                     "type", "attr", "mesh")}

    def pick(self, kind):
        names = [n for n in self.seen[kind] if n in self.ns]
        return self.rng.choice(names) if names else None

    def fresh(self, kind):
        self.counter += 1
        name = f"{kind}{self.counter}"
        return name, lambda: name in self.ns and self.seen[kind].append(name)

    def junk(self):
        """A wrong-typed argument."""
        return self.rng.choice(["None", "1.5", "'x'", "[]", "object()", "-1",
                                str(self.rng.choice(INTS)), "True"])

    def text(self, pool):
        r = self.rng.random()
        if r < 0.05:
            return repr(deep(self.rng.choice([600, 5000])))
        if r < 0.25:
            return repr(self.rng.choice(BAD_TEXT))
        if r < 0.3:
            return repr("".join(self.rng.choice("()<>{}[]@%!#:,x0 f32\"") for _ in
                                range(self.rng.randint(1, 30))))
        return repr(self.rng.choice(pool))

    def any_of(self, kind):
        """A variable of `kind`, or sometimes one of another kind or junk."""
        name = self.pick(kind)
        if name is None or self.rng.random() < 0.1:
            other = self.pick(self.rng.choice(list(self.seen)))
            return other or self.junk()
        return name

    def receiver(self, kind):
        """An object of `kind` whose method is called (the call is skipped if
        there is none yet): calling a method on junk only tests Python."""
        return self.pick(kind) or "__SKIP__"

    def list_of(self, kind, most=3):
        return "[" + ", ".join(self.any_of(kind) for _ in range(self.rng.randint(0, most))) + "]"

    def shape(self):
        return repr([self.rng.choice(INTS[:6] + [0, -1, 2**62])
                     for _ in range(self.rng.randint(0, 3))])

    def placements(self):
        choices = ["hp.Shard(0)", "hp.Shard(1)", "hp.Replicate()", "hp.Partial()",
                   "hp.StridedShard(0, 2)", "hp.Shard(-1)", "hp.Partial('xor')", "1"]
        return "[" + ", ".join(self.rng.choice(choices)
                               for _ in range(self.rng.randint(0, 3))) + "]"

    def line(self):
        """(source, on_success) of one random call."""
        r = self.rng
        g = self.any_of
        actions = [
            lambda: self.assign("ctx", "hp.Context()"),
            lambda: self.assign("module", f"hp.Module.create({g('ctx')})"),
            lambda: self.assign("module", f"hp.Module.parse({g('ctx')}, "
                                          f"{self.text(['', 'dtensor.mesh @m shape = [2]'])})"),
            lambda: self.assign("type", f"hp.Type.parse({g('ctx')}, {self.text(GOOD_TYPES)})"),
            lambda: self.assign("attr", f"hp.Attribute.parse({g('ctx')}, {self.text(ATTRS)})"),
            lambda: self.assign("attr", f"_hp.shard_attr({g('ctx')}, {r.choice(INTS)})"),
            lambda: self.assign("attr", f"_hp.strided_shard_attr({g('ctx')}, "
                                        f"{r.choice(INTS)}, {r.choice(INTS)})"),
            lambda: self.assign("attr", f"_hp.partial_attr({g('ctx')}, "
                                        f"{r.choice(['sum', 'max', '', 'xor', 'SUM'])!r})"),
            lambda: self.assign("mesh", f"hp.DeviceMesh({r.choice(NAMES)!r}, {self.shape()})"),
            lambda: f"{self.receiver('mesh')}.add_to({g('module')})",
            lambda: f"_hp.add_mesh({g('module')}, {r.choice(NAMES)!r}, {self.shape()}, "
                    f"{r.choice(['None', '[]', repr(['a']), repr(['a', 'a']), repr(['', 'b'])])})",
            lambda: self.assign("type", f"hp.dtensor_type({g('ctx')}, {self.shape()}, "
                                        f"{self.text(['f32', 'i64'])}, {g('mesh')}, "
                                        f"{self.placements()})"),
            lambda: self.assign("type", f"_hp.dtensor_type({g('ctx')}, {self.shape()}, 'f32', "
                                        f"{r.choice(NAMES)!r}, {self.list_of('attr')})"),
            lambda: self.assign("type", f"_hp.local_type({g('type')}, {self.shape()})"),
            lambda: self.assign("block", f"hp.add_function({g('module')}, "
                                         f"{r.choice(NAMES)!r}, {self.list_of('type')}, "
                                         f"{self.list_of('type')})"),
            lambda: self.assign("block", f"{self.receiver('module')}.body"),
            lambda: self.assign("op", f"hp.add_op({g('block')}, {r.choice(OP_NAMES)!r}, "
                                      f"{self.list_of('value')}, {self.list_of('type')}, "
                                      f"{r.choice(['None'] + [repr(a) for a in ATTRS])})"),
            lambda: self.take_value(),
            lambda: self.local_region(),
            lambda: self.global_region(),
            lambda: self.assign("op", f"hp.constrain({g('ctx')}, {g('block')}, "
                                      f"{self.any_of('value')}, {self.any_of('mesh')}, "
                                      f"{self.placements()})"),
            lambda: f"hp.yield_({g('block')}, {self.list_of('value')})",
            lambda: f"{self.receiver('module')}.verify()",
            lambda: f"{self.receiver('module')}.run({self.text(PIPELINES)})",
            lambda: f"str({g('module')})",
            lambda: f"str({g('op')})",
            lambda: f"{self.receiver('value')}.type",
            lambda: f"_roundtrip({self.receiver('module')})",
            lambda: self.drop(),
            lambda: "gc.collect()",
            lambda: f"hp.run({g('module')}, np={r.choice([0, -1, 10**6, '2', 1.5])!r})",
            lambda: f"hp.run({g('module')}, extra_args={r.choice([['-np', '3'], ['-n=2'], 'x', ['--mpirun-args=-c 4'], ['-n4'], ['--mpirun-args', '-np 4']])!r})",
            lambda: f"hp.run({g('module')}, timeout={r.choice(BAD_TIMEOUTS)})",
            lambda: f"_run_in_provider({self.receiver('module')}, "
                    f"{r.choice(['symbol-privatize,symbol-dce', 'canonicalize', 'hp-partition'])!r})",
            lambda: f"_hp.set_location_provider({r.choice(['None', 'hp._caller_location', '1'])})",
        ]
        source = r.choice(actions)()
        return "gc.collect()" if "__SKIP__" in source else source

    def drop(self):
        """Drops a variable: what other objects point into must stay alive."""
        name = self.pick(self.rng.choice(["ctx", "module", "block", "op", "type"]))
        return f"del {name}; gc.collect()" if name else "gc.collect()"

    def assign(self, kind, expr):
        name, done = self.fresh(kind)
        self.pending = done
        return f"{name} = {expr}"

    def take_value(self):
        src = self.pick(self.rng.choice(["op", "block"]))
        if src is None:
            return "gc.collect()"
        field = "results" if isinstance(self.ns[src], self.ns["hp"].Operation) else "arguments"
        try:
            items = getattr(self.ns[src], field)
        except ValueError:
            # Taken before a Module.run (one from a location provider too):
            # the batch's own line must raise it again.
            return f"{src}.{field}"
        if not items:
            return f"{src}"
        return self.assign("value", f"{src}.{field}[{self.rng.randrange(len(items))}]")

    def local_region(self):
        name, done = self.fresh("op")
        body = f"body{self.counter}"
        self.pending = lambda: (done(), body in self.ns and self.seen["block"].append(body))
        args = ", ".join(f"({self.any_of('value')}, {self.rng.choice(NAMES)!r})"
                         for _ in range(self.rng.randint(0, 2)))
        return (f"{name}, {body} = hp.local_region({self.any_of('ctx')}, {self.any_of('block')}, "
                f"{self.any_of('mesh')}, [{args}], {self.list_of('type')}, "
                f"out_placements={self.rng.choice(['None', self.placements()])})")


    def global_region(self):
        name, done = self.fresh("op")
        body = f"body{self.counter}"
        self.pending = lambda: (done(), body in self.ns and self.seen["block"].append(body))
        args = ", ".join(self.any_of("value") for _ in range(self.rng.randint(0, 2)))
        return (f"{name}, {body} = hp.global_region({self.any_of('block')}, "
                f"{self.any_of('mesh')}, [{args}], {self.list_of('type')})")


def worker(seed, batch, calls):
    """Runs one batch; each line is printed before it runs (the reproducer)."""
    rng = random.Random(f"{seed}/{batch}")
    ns = {}
    exec(PRELUDE, ns)
    gen = Generator(rng, ns)
    # Deep builder nesting, now and then: must stop with a ValueError.
    if rng.random() < 0.1:
        gen.seen["module"].append("deep_m")
        lines = ["ctx_d = hp.Context()", "deep_m = hp.Module.create(ctx_d)",
                 "deep_mesh = hp.DeviceMesh('m', (2,))", "deep_mesh.add_to(deep_m)",
                 "deep_b = hp.add_function(deep_m, 'f', [], [])",
                 "for _ in range(300): deep_b = hp.local_region(ctx_d, deep_b, deep_mesh, [], [])[1]"]
    else:
        lines = []
    for i in range(calls):
        gen.pending = None
        source = lines[i] if i < len(lines) else gen.line()
        print(source, flush=True)
        try:
            exec(source, ns)
        except EXPECTED:
            pass
        if gen.pending:
            gen.pending()
    print("# batch done", flush=True)


def reproducer(lines):
    body = "\n".join(f"try:\n    {line}\nexcept (ValueError, TypeError, RuntimeError) as e:\n"
                     f"    print(type(e).__name__, str(e)[:200])" for line in lines)
    return PRELUDE + "\n" + body + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", default="20261203")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--batches", type=int, default=0, help="stop after this many (0: time)")
    parser.add_argument("--calls", type=int, default=60, help="calls per batch")
    parser.add_argument("--batch-timeout", type=float, default=120)
    parser.add_argument("--out", default="fuzz-python-findings")
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.seed, args.worker, args.calls)
        return 0
    out = pathlib.Path(args.out)
    findings, batch, start = 0, 0, time.monotonic()
    while (args.batches and batch < args.batches) or \
            (not args.batches and time.monotonic() - start < args.seconds):
        cmd = [sys.executable, __file__, "--worker", str(batch), "--seed", args.seed,
               "--calls", str(args.calls)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                  timeout=args.batch_timeout, stdin=subprocess.DEVNULL)
            stdout, stderr, rc = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as e:
            stdout = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout or ""
            stderr, rc = "timed out", "timeout"
        lines = stdout.splitlines()
        if rc != 0 or "# batch done" not in lines:
            findings += 1
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"finding-{args.seed}-{batch}.py"
            lines = [l for l in lines if l != "# batch done"]
            path.write_text(reproducer(lines))
            what = f"signal {-rc}" if isinstance(rc, int) and rc < 0 else f"exit {rc}"
            print(f"FINDING batch {batch} ({what}), last call: {lines[-1] if lines else '?'}\n"
                  f"  reproducer: {path}\n  {stderr.strip()[-2000:]}", flush=True)
        batch += 1
    print(f"fuzz_python: {batch} batches of {args.calls} calls, seed {args.seed}: "
          f"{findings} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
