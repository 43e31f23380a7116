#!/usr/bin/env python3
"""Structured mutation fuzzer for hp-opt.

Mutates the examples and lit inputs (split at `// -----`) with MLIR-aware
edits (numbers, placements, element types, mesh shapes, in_placements keys,
deleted/duplicated/swapped lines), runs each mutant through parse+verify,
the hp pipelines and single passes, and reports

  * crashes (a signal, LLVM's stack dump), attributed to hp when the stack
    holds hp code or when an upstream pass crashed on IR hp's passes built,
    and to upstream MLIR when the input alone crashes upstream code;
  * timeouts;
  * output accepted and printed that does not parse again (custom and
    generic form).

Mutants go to hp-opt in batches with -split-input-file; a batch that
crashes or times out is re-run one mutant at a time to find the culprit.

With --global-programs N it also generates N random global-view programs
(test/e2e/cpu/gen_global.py: a DAG of linalg / tensor / arith ops and
constraints in one dtensor.global_region, mixed element types, dims uneven
on the mesh axes or smaller than them) and runs each on its mesh's ranks
with hp-runner: every rank compares every result with the same ops on one
device. A mismatch, a failing or crashing run, or a timeout is an hp
finding (the file holds the program, which hp-runner runs as it is).

  python3 scripts/fuzz.py --minutes 10            # runs for 10 minutes
  python3 scripts/fuzz.py --mutants 10000 --seed 7
  python3 scripts/fuzz.py --mutants 0 --global-programs 20
Findings are written to --out (default fuzz/findings) and summarised; the
exit status is 1 if any finding is in hp code.
"""
import argparse
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PIPELINES = [
    [],
    ["--hp-partition"],
    ["--hp-partition=verify-plans latency-bytes=0"],
    ["--hp-lower-to-cpu"],
    ["--dtensor-expand-local-regions"],
    ["--dtensor-propagate"],
    ["--dtensor-propagate", "--dtensor-check-contracts"],
    ["--convert-dtensor-to-shard=verify-plans"],
    ["--dtensor-expand-local-regions", "--convert-dtensor-to-shard"],
    ["--canonicalize"],
    ["--convert-shard-to-nccl"],
    ["--convert-shard-to-nccl", "--convert-nccl-to-llvm"],
    ["--convert-nccl-to-llvm"],
]

NUMBERS = ["0", "1", "2", "3", "7", "-1", "4294967297", "2147483648",
           "9223372036854775807", "281474976710657", "?"]
TYPES = ["f32", "f16", "bf16", "f64", "i8", "i32", "i64", "i1", "i16",
         "index", "vector<2xf32>", "complex<f32>", "f8E4M3FN"]
PLACEMENTS = ["replicate", "shard<0>", "shard<1>", "shard<2>", "shard<7>",
              "partial<sum>", "partial<max>", "partial<avg>", "partial<prod>",
              "partial<min>", "none"]
KEYS = ['""', "x", "hidden", "hiden", "weight", "x = none, x"]


def seeds():
    files = sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir")) +
                   glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"),
                             recursive=True))
    chunks = []
    for f in files:
        text = open(f).read()
        for chunk in text.split("// -----"):
            body = "\n".join(l for l in chunk.splitlines()
                             if not l.lstrip().startswith("//"))
            if body.strip():
                chunks.append(body)
    return chunks


def mutate(text, rng):
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(9)
        if kind == 0:  # a number
            nums = list(re.finditer(r"(?<![\w%#@])\d+(?![\w])", text))
            if nums:
                m = rng.choice(nums)
                text = text[:m.start()] + rng.choice(NUMBERS) + text[m.end():]
        elif kind == 1:  # a placement
            ps = list(re.finditer(r"shard<\d+>|replicate|partial<\w+>|\bnone\b", text))
            if ps:
                m = rng.choice(ps)
                text = text[:m.start()] + rng.choice(PLACEMENTS) + text[m.end():]
        elif kind == 2:  # an element type everywhere it occurs
            ts = re.findall(r"x(f32|f16|bf16|f64|i32|i64)\b", text)
            if ts:
                t = rng.choice(ts)
                text = re.sub(rf"x{t}\b", "x" + rng.choice(TYPES), text)
        elif kind == 3:  # a mesh shape
            text = re.sub(r"shape = \[[^\]]*\]",
                          lambda m: "shape = [" + ", ".join(
                              rng.choice(["1", "2", "3", "4", "0", "4294967297"])
                              for _ in range(rng.randint(1, 3))) + "]",
                          text, count=1)
        elif kind == 4:  # an in_placements key
            text = re.sub(r"in_placements = \{(\w+)",
                          lambda m: "in_placements = {" + rng.choice(KEYS),
                          text, count=1)
        else:
            lines = text.splitlines()
            if len(lines) < 2:
                continue
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if kind == 5:
                del lines[i]
            elif kind == 6:
                lines.insert(j, lines[i])
            elif kind == 7:
                lines[i], lines[j] = lines[j], lines[i]
            else:  # a dimension in a type
                lines[i] = re.sub(r"<(\d+)x", lambda m: "<" + rng.choice(NUMBERS) + "x",
                                  lines[i], count=1)
            text = "\n".join(lines)
    return text


def run(hp_opt, args, text, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        p = subprocess.run([hp_opt, "--split-input-file", path] + args,
                           capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    finally:
        os.unlink(path)


def crashed(rc, err):
    return rc == "timeout" or (isinstance(rc, int) and rc < 0) or \
        "Stack dump" in err or "PLEASE submit a bug report" in err


HP_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HP_SOURCE = re.compile(re.escape(HP_ROOT) +
                       r"/(lib|tools|include/hp)/[\w/.-]+\.(cpp|h):[1-9]\d*:\d+")


_hp_names = None


def hp_names():
    """Names of the functions and types hp's sources define (lib/, tools/):
    its lowerings live in anonymous namespaces, whose frames carry no hp::."""
    global _hp_names
    if _hp_names is None:
        _hp_names = set()
        for sub in ("lib", "tools"):
            for path in glob.glob(os.path.join(HP_ROOT, sub, "**", "*.cpp"),
                                  recursive=True):
                text = open(path, errors="replace").read()
                _hp_names.update(re.findall(
                    r"^(?:struct|class)\s+(\w+)", text, re.M))
                _hp_names.update(re.findall(
                    r"^[\w:<>,\s*&]+?\b(\w+)\([^;]*$", text, re.M))
    return _hp_names


HP_PASSES = ("--hp-", "--dtensor-", "--convert-dtensor", "--convert-shard-to-nccl",
             "--convert-nccl", "--nccl-", "--copy-unproven")


def attribute(err, args=()):
    """Whose crash: `hp` when hp's code is on the stack (below), or when an
    upstream pass crashed after hp's passes ran (hp built the IR it choked
    on, so hp must build something else); `upstream` when the input itself
    crashes an upstream parser or verifier, or no hp pass ran."""
    owner = attribute_stack(err)
    if owner == "hp" or "parseSourceFile" in err:
        return owner
    if any(a.startswith(HP_PASSES) for a in args):
        return "hp"
    return "upstream"


def attribute_stack(err):
    """hp when a frame of the crashing stack is hp code: its function is in
    hp's namespace, its debug location is a line of hp's sources, or it is
    an anonymous-namespace function or pattern hp's sources define. A file
    name with line 0 sits next to a static helper of a neighbouring object
    file, so it is not evidence on its own."""
    frames = [l for l in err.splitlines() if re.match(r"\s*#\d+ ", l)]
    frames = [f for f in frames
              if not re.search(r"llvm::sys::|SignalHandler|libc\.so|__restore_rt", f)]
    parsing = "parseSourceFile" in err
    for f in frames[:20]:
        # While parsing, the innermost op parser owns the crash: an upstream
        # op's parser crashing inside a region that an hp op parses (a
        # global_region's body) is upstream's.
        if parsing and re.search(r"\bmlir::\w+::\w+::parse\(", f):
            return "upstream"
        if re.search(r"\bhp::|\bhp[A-Z]\w+\(", f) or HP_SOURCE.search(f):
            return "hp"
        m = re.search(r"\(anonymous namespace\)::(\w+)", f)
        if m and m.group(1) in hp_names():
            return "hp"
    return "upstream"


def check_batch(hp_opt, mutants, args, timeout, out_dir, findings):
    text = "\n// -----\n".join(mutants)
    rc, out, err = run(hp_opt, args, text, timeout * len(mutants))
    suspects = []
    if crashed(rc, err):
        suspects = mutants  # find the culprit one by one
    elif out.strip():
        # Everything printed must parse again, in custom and generic form.
        rc2, _, err2 = run(hp_opt, [], out, timeout * len(mutants))
        rc3, gen, _ = run(hp_opt, ["--mlir-print-op-generic"], out,
                          timeout * len(mutants))
        rc4, _, err4 = run(hp_opt, [], gen, timeout * len(mutants)) if rc3 == 0 else (0, "", "")
        if rc2 != 0 or rc4 != 0:
            suspects = mutants
    for m in suspects:
        rc, out, err = run(hp_opt, args, m, timeout)
        kind = None
        if rc == "timeout":
            kind = "timeout"
        elif crashed(rc, err):
            kind = "crash"
        elif rc == 0 and out.strip():
            rc2, _, err2 = run(hp_opt, [], out, timeout)
            if rc2 == 0:
                rc3, gen, _ = run(hp_opt, ["--mlir-print-op-generic"], out, timeout)
                rc2, _, err2 = run(hp_opt, [], gen, timeout) if rc3 == 0 else (0, "", "")
            if rc2 != 0:
                kind, err = "reparse", err2
        if kind:
            owner = attribute(err, args) if kind != "timeout" else "hp"
            n = len(findings)
            path = os.path.join(out_dir, f"{kind}-{owner}-{n}.mlir")
            with open(path, "w") as f:
                f.write(f"// hp-opt {' '.join(args)}\n// {kind} ({owner})\n" + m +
                        "\n\n/* stderr:\n" + err[-4000:].replace("*/", "* /") + "\n*/\n")
            findings.append((kind, owner, path))


sys.path.insert(0, os.path.join(ROOT, "test", "e2e", "cpu"))
import gen_global  # noqa: E402

# Meshes of at most 4 ranks (CI has 2 cores), uneven ones among them.
GLOBAL_MESHES = [[2], [3], [4], [2, 2], [1, 3], [3, 1], [2, 1, 2]]
GLOBAL_TYPES = sorted(gen_global.LIMITS)


def end_session(proc):
    """Ends hp-runner and its job: SIGTERM to hp-runner (which stops mpirun
    and the ranks), then SIGKILL to whatever of its session is left (ranks
    may sit in process groups of their own)."""
    def members():
        found = []
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] != "Z" and int(fields[3]) == proc.pid:
                found.append(int(entry))
        return found
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    for pid in members():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    proc.wait()


def run_global(hp_runner, path, ranks, timeout):
    """hp-runner's (status, stdout, stderr) for the program at `path`, in a
    TMPDIR of its own that is removed afterwards."""
    tmp = tempfile.mkdtemp(prefix="hp-fuzz-global-")
    proc = subprocess.Popen([hp_runner, "-np", str(ranks), path, "-e", "main",
                             "--entry-point-result=void"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, errors="replace",
                            start_new_session=True, env={**os.environ, "TMPDIR": tmp})
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    finally:
        if proc.poll() is None:
            end_session(proc)
        shutil.rmtree(tmp, ignore_errors=True)


def global_verdict(rc, out, err, expected):
    """None when every rank printed `ok result` for every result."""
    if rc == "timeout":
        return "timeout"
    if crashed(rc, err) or "ERROR: AddressSanitizer" in err or "runtime error:" in err:
        return "crash"
    if rc != 0:
        return "error"
    if "MISMATCH" in out or out.count("ok result") != expected:
        return "mismatch"
    return None


def check_global(hp_runner, rng, timeout, out_dir, findings, break_reference=False):
    """Generates one global-view program and runs it on its mesh."""
    mesh = rng.choice(GLOBAL_MESHES)
    types = rng.sample(GLOBAL_TYPES, rng.choice([1, 2, 2, 3]))
    seed, ops = rng.randrange(1 << 30), rng.randint(6, 14)
    changes = rng.random() < 0.2
    flags = f"--mesh {'x'.join(map(str, mesh))} --type {','.join(types)} --seed {seed} " \
            f"--ops {ops}" + (" --partial-kind-changes" if changes else "") + \
            (" --break-reference" if break_reference else "")
    text = gen_global.generate(mesh, types, seed, ops, None, changes, break_reference, flags)
    expected = int(re.search(r"CHECK-COUNT-(\d+): ok result", text).group(1))
    ranks = 1
    for m in mesh:
        ranks *= m
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        rc, out, err = run_global(hp_runner, path, ranks, timeout)
    finally:
        os.unlink(path)
    kind = global_verdict(rc, out, err, expected)
    if kind:
        n = len(findings)
        found = os.path.join(out_dir, f"global-{kind}-hp-{n}.mlir")
        with open(found, "w") as f:
            f.write(f"// gen_global.py {flags}\n// {kind} (hp) on {ranks} ranks, "
                    f"exit {rc}\n// RUN: hp-runner -np {ranks} %s -e main "
                    "--entry-point-result=void\n" + text +
                    "\n/* stdout:\n" + out[-4000:].replace("*/", "* /") +
                    "\n   stderr:\n" + err[-4000:].replace("*/", "* /") + "\n*/\n")
        findings.append((kind, "hp", found))
    return kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hp-opt", default=os.path.join(ROOT, "build", "bin", "hp-opt"))
    ap.add_argument("--minutes", type=float, default=0)
    ap.add_argument("--mutants", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=10.0,
                    help="seconds per mutant")
    ap.add_argument("--out", default=os.path.join(ROOT, "fuzz", "findings"))
    ap.add_argument("--global-programs", type=int, default=0,
                    help="random global-view programs to run on ranks")
    ap.add_argument("--hp-runner",
                    default=os.path.join(ROOT, "build", "bin", "hp-runner"))
    ap.add_argument("--global-timeout", type=float, default=300,
                    help="seconds per global-view program (compile and run)")
    ap.add_argument("--break-reference", action="store_true",
                    help="test the fuzzer: every global-view program's reference "
                         "is wrong, so each must be reported as a mismatch")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    corpus = seeds()
    rng = random.Random(args.seed)
    deadline = time.time() + args.minutes * 60 if args.minutes else None
    findings, done = [], 0
    start = time.time()

    def batches():
        nonlocal done
        while True:
            if deadline and time.time() > deadline:
                return
            if not deadline and done >= args.mutants:
                return
            n = args.batch if deadline else min(args.batch, args.mutants - done)
            done += n
            yield ([mutate(rng.choice(corpus), rng) for _ in range(n)],
                   rng.choice(PIPELINES))

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(check_batch, args.hp_opt, muts, pipe, args.timeout,
                               args.out, findings)
                   for muts, pipe in batches()] if not deadline else None
        if deadline:
            running = []
            for muts, pipe in batches():
                running.append(pool.submit(check_batch, args.hp_opt, muts, pipe,
                                           args.timeout, args.out, findings))
                while len([f for f in running if not f.done()]) >= args.jobs * 2:
                    time.sleep(0.05)
            futures = running
        for f in futures:
            f.result()
    hp = [f for f in findings if f[1] == "hp"]
    upstream = [f for f in findings if f[1] != "hp"]
    print(f"{done} mutants from {len(corpus)} seeds in {time.time() - start:.0f} s "
          f"(seed {args.seed}): {len(hp)} findings in hp, {len(upstream)} upstream")
    if args.global_programs:
        # Programs one after another: each takes up to 4 ranks.
        start, before = time.time(), len(findings)
        grng = random.Random(f"global/{args.seed}")
        for _ in range(args.global_programs):
            check_global(args.hp_runner, grng, args.global_timeout, args.out, findings,
                         args.break_reference)
        print(f"{args.global_programs} global-view programs on ranks in "
              f"{time.time() - start:.0f} s (seed {args.seed}): "
              f"{len(findings) - before} findings in hp")
        hp = [f for f in findings if f[1] == "hp"]
    for kind, owner, path in findings:
        print(f"  {kind:8} {owner:9} {os.path.relpath(path, ROOT)}")
    return 1 if hp else 0


if __name__ == "__main__":
    sys.exit(main())
