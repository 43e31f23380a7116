"""hp: distributed tensors to NCCL collectives, in MLIR.

A thin Pythonic layer over the native ``_hp`` extension (itself a binding of
hp's C API). Placements mirror hyper_parallel / PyTorch DTensor:

>>> Shard(0), Replicate(), Partial()
(S(0), R, P)

Errors from MLIR (parse errors, verifier errors, failing passes) are raised
as ``ValueError`` whose message holds MLIR's located diagnostics.
"""

from . import _hp
from ._hp import Attribute, Block, Context, Module, Operation, Type, Value

__all__ = [
    "Attribute", "Block", "Context", "DeviceMesh", "Module", "Operation",
    "Partial", "Placement", "Replicate", "Shard", "StridedShard", "Type", "Value",
    "RunError", "collective_bytes_sent", "collectives", "constrain", "dtensor_type", "from_local", "global_region",
    "local_call", "local_region",
    "partitioned_collectives", "redistribute", "run", "to_local", "MAX_RANKS",
]

import re as _re

def _check_int(value, what, minimum=None):
    """Refuses bools, floats and strings where MLIR wants an integer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return value


def _check_symbol(name, what):
    """The type here; the rule itself in C++ (hp/Support/SymbolName.h), the
    one the C API and the builders check."""
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__}")
    _hp.check_symbol_name(name, what)
    return name


class Placement:
    """How a tensor is laid out along one mesh dimension."""

    def to_mlir(self, ctx):
        raise NotImplementedError

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self):
        return False


class Shard(Placement):
    """Tensor dim ``dim`` split across the mesh dimension (torch.chunk)."""

    def __init__(self, dim):
        _check_int(dim, "shard dim")
        if dim < 0:
            raise ValueError(f"shard dim must be non-negative, got {dim}")
        self.dim = dim

    def to_mlir(self, ctx):
        return _hp.shard_attr(ctx, self.dim)

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __eq__(self, other):
        return type(other) is Shard and other.dim == self.dim

    def __hash__(self):
        return hash(("S", self.dim))

    def __repr__(self):
        return f"S({self.dim})"


class StridedShard(Shard):
    """Torch's ``_StridedShard(dim, split_factor)``: on a mesh dim of size n,
    ``dim`` is cut into ``n * split_factor`` chunks and coordinate i holds
    chunks i, i + n, ... (the FSDP-over-TP layout)."""

    def __init__(self, dim, split_factor):
        super().__init__(dim)
        _check_int(split_factor, "strided_shard split factor")
        if split_factor < 1:
            raise ValueError(f"strided_shard split factor must be at least 1, got {split_factor}")
        self.split_factor = split_factor

    def to_mlir(self, ctx):
        return _hp.strided_shard_attr(ctx, self.dim, self.split_factor)

    def __eq__(self, other):
        return (isinstance(other, StridedShard) and other.dim == self.dim
                and other.split_factor == self.split_factor)

    def __hash__(self):
        return hash(("SS", self.dim, self.split_factor))

    def __repr__(self):
        return f"SS({self.dim}, {self.split_factor})"


class Replicate(Placement):
    """A full copy on every coordinate of the mesh dimension."""

    def to_mlir(self, ctx):
        return _hp.replicate_attr(ctx)

    def is_replicate(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return hash("R")

    def __repr__(self):
        return "R"


class Partial(Placement):
    """Pending reduction across the mesh dimension: sum, avg, max, min, prod."""

    OPS = tuple(_hp.reduce_ops())

    def __init__(self, reduce_op="sum"):
        if not isinstance(reduce_op, str) or reduce_op not in self.OPS:
            raise ValueError(f"unknown reduction '{reduce_op}' ({', '.join(self.OPS)})")
        self.reduce_op = reduce_op

    def to_mlir(self, ctx):
        return _hp.partial_attr(ctx, self.reduce_op)

    def is_partial(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Partial) and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash(("P", self.reduce_op))

    def __repr__(self):
        return "P" if self.reduce_op == "sum" else f"P({self.reduce_op})"


class DeviceMesh:
    """A named n-dimensional device mesh, emitted as ``dtensor.mesh``."""

    def __init__(self, name, shape, mesh_dim_names=None):
        self.name = _check_symbol(name, "mesh name")
        self.shape = tuple(_check_int(s, "mesh size", 1) for s in shape)
        if not self.shape:
            raise ValueError("a mesh needs at least one dimension")
        if mesh_dim_names is None:
            mesh_dim_names = tuple(f"d{i}" for i in range(len(self.shape)))
        mesh_dim_names = tuple(mesh_dim_names)
        if len(mesh_dim_names) != len(self.shape):
            raise ValueError("one name per mesh dimension")
        for n in mesh_dim_names:
            if not isinstance(n, str) or not n:
                raise ValueError(f"mesh dim names must be non-empty strings, got {n!r}")
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise ValueError(f"mesh dim names must be distinct, got {mesh_dim_names}")
        self.mesh_dim_names = mesh_dim_names

    @property
    def ndim(self):
        return len(self.shape)

    def size(self, dim=None):
        if dim is None:
            n = 1
            for s in self.shape:
                n *= s
            return n
        return self.shape[dim]

    def add_to(self, module):
        """Appends ``dtensor.mesh`` to a Module."""
        return _hp.add_mesh(module, self.name, list(self.shape), list(self.mesh_dim_names))

    def __repr__(self):
        dims = ", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, self.shape))
        return f"DeviceMesh({self.name}: {dims})"


def _placements(ctx, mesh, placements):
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"expected a DeviceMesh, got {type(mesh).__name__}")
    placements = list(placements)
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"expected a Placement (Shard, Replicate, Partial), got {p!r}")
    if len(placements) != mesh.ndim:
        raise ValueError(f"{len(placements)} placements for a mesh of rank {mesh.ndim}")
    return [p.to_mlir(ctx) for p in placements]


def dtensor_type(ctx, shape, element_type, mesh, placements):
    """``!dtensor.tensor<shape x element_type, @mesh, [placements]>``."""
    placements = _placements(ctx, mesh, placements)
    return _hp.dtensor_type(ctx, list(shape), element_type, mesh.name, placements)


def _region_placements(ctx, mesh, in_placements, out_placements):
    """``in_placements`` and ``out_placements`` of local_region and
    local_call as _hp takes them: ``(ins, outs, flat)``."""
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"expected a DeviceMesh, got {type(mesh).__name__}")
    ins = None
    if in_placements is not None:
        if not isinstance(in_placements, dict):
            raise TypeError("in_placements must be a dict of name -> placements or None")
        ins = [(name, None if ps is None else _placements(ctx, mesh, ps))
               for name, ps in in_placements.items()]
    outs, flat = None, False
    if out_placements is not None:
        out_placements = list(out_placements)
        flat = len(out_placements) > 0 and all(isinstance(p, Placement) for p in out_placements)
        if flat:
            outs = [_placements(ctx, mesh, out_placements)]
        else:
            outs = [None if ps is None else _placements(ctx, mesh, ps) for ps in out_placements]
    return ins, outs, flat


def _build_body(body_block, body):
    """Runs ``body(body_block, *arguments)`` and yields what it returns (a
    Value, a list of them, or None for nothing)."""
    values = body(body_block, *body_block.arguments)
    if values is None:
        values = []
    elif isinstance(values, Value):
        values = [values]
    yield_(body_block, list(values))


def local_region(ctx, block, mesh, args, results, in_placements=None,
                 out_placements=None, redistribute_inputs=False, body=None):
    """Appends a ``dtensor.local_region`` to ``block``.

    ``args`` is a list of ``(value, name)``; ``in_placements`` maps names to
    placement lists or ``None``; ``out_placements`` is one placement list
    (flat form) or a list of placement lists / ``None`` (per-output form).
    Returns ``(operation, body)``: append the body's ops to ``body`` (its
    arguments have the local types) and finish with ``yield_``. Or pass
    ``body=fn``: ``fn(body_block, *local_args)`` builds the body and returns
    the values to yield, and the yield is added for you.
    """
    ins, outs, flat = _region_placements(ctx, mesh, in_placements, out_placements)
    op, body_block = _hp.add_local_region(block, mesh.name, list(mesh.shape), list(args),
                                          ins, outs, flat, redistribute_inputs,
                                          list(results))
    if body is not None:
        _build_body(body_block, body)
    return op, body_block


def global_region(block, mesh, args, results, body=None):
    """Appends a ``dtensor.global_region`` on ``mesh`` to ``block``: a whole
    program on global tensors, placed by ``dtensor-propagate``.

    ``args`` are values (DTensors enter the body as their global tensors,
    anything else unchanged); ``results`` are the result types. Returns
    ``(operation, body)``: append the body's ops to ``body`` and finish with
    ``yield_``, or pass ``body=fn`` as for ``local_region``.
    """
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"expected a DeviceMesh, got {type(mesh).__name__}")
    op, body_block = _hp.add_global_region(block, mesh.name, list(args), list(results))
    if body is not None:
        _build_body(body_block, body)
    return op, body_block


def constrain(ctx, block, value, mesh, placements):
    """Appends ``dtensor.constrain value [placements]`` (inside a
    global_region): pins the value's placements; returns the op."""
    return _hp.add_constrain(block, value, _placements(ctx, mesh, placements))


def local_call(func, device_mesh, in_placements=None, out_placements=None,
               redistribute_inputs=False, unchecked=False):
    """The seed's ``local_region(func, device_mesh=..., in_placements=...,
    out_placements=..., redistribute_inputs=...)`` over a named ``func.func``.

    ``func`` is the name of a function whose arguments were named with
    ``add_function(..., arg_names=[...])`` (``dtensor.arg_name``). Returns a
    callable ``call(ctx, block, *args, results=[...])`` that appends a
    ``dtensor.local_call`` of it at one call site and returns the op; many
    call sites share the function.
    """

    def call(ctx, block, *args, results):
        ins, outs, flat = _region_placements(ctx, device_mesh, in_placements,
                                             out_placements)
        return _hp.add_local_call(block, func, device_mesh.name, list(args), ins,
                                  outs, flat, redistribute_inputs, unchecked,
                                  list(results))

    return call


def redistribute(block, value, to_type):
    """Appends ``dtensor.redistribute`` of ``value`` to the DTensor type
    ``to_type`` (same shape and mesh, other placements); returns the result."""
    return _hp.add_op(block, "dtensor.redistribute", [value], [to_type]).results[0]


def from_local(block, local, dtensor_type):
    """Appends ``dtensor.from_local``: this rank's block as a DTensor."""
    return _hp.add_op(block, "dtensor.from_local", [local], [dtensor_type]).results[0]


def to_local(block, dtensor, local_type):
    """Appends ``dtensor.to_local``: this rank's block of a DTensor."""
    return _hp.add_op(block, "dtensor.to_local", [dtensor], [local_type]).results[0]


def _runner():
    """hp-runner next to this package: <build>/bin or <prefix>/bin, or
    HP_TOOLS_DIR."""
    import os
    import shutil
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if os.environ.get("HP_TOOLS_DIR"):
        candidates.append(os.path.join(os.environ["HP_TOOLS_DIR"], "hp-runner"))
    candidates += [os.path.join(here, "..", "..", "bin", "hp-runner"),       # build
                   os.path.join(here, "..", "..", "..", "bin", "hp-runner")]  # prefix/lib/python
    for c in candidates:
        if os.path.exists(c):
            return os.path.normpath(c)
    found = shutil.which("hp-runner")
    if not found:
        raise RuntimeError("hp-runner not found: set HP_TOOLS_DIR")
    return found


class RunError(RuntimeError):
    """A program failed on some ranks (or ran past its timeout); ``outputs``
    and ``errors`` hold each rank's standard output and standard error."""

    def __init__(self, message, outputs, errors):
        super().__init__(message)
        self.outputs, self.errors = outputs, errors


# The most ranks hp.run launches: each is a process on this machine.
MAX_RANKS = 256

# hp-runner and mpirun flags that set the rank count, the processes per
# node, the hosts or the entry point: run() sets those itself.
_LAUNCH_FLAGS = ("-np", "--np", "-n", "--n", "-c", "-N", "--host", "-H", "--hostfile",
                 "--machinefile", "--map-by", "--npernode", "--npersocket",
                 "-e", "--entry-point-result", "--app")

# Open MPI's --tag-output prefix: [job,rank]<stream>:
_TAG = _re.compile(r"\[\d+,(\d+)\]<(stdout|stderr|stddiag)>:")


# A count attached to a short flag: -n4, -np4, -c4, -N4.
_ATTACHED_COUNT = _re.compile(r"(--?(?:np|n|c|N))\d")

# --mpirun-args=WORDS, or --mpirun-args followed by WORDS.
_MPIRUN_ARGS = ("--mpirun-args", "-mpirun-args")


def _launch_flag(word):
    """The launch flag `word` sets (-np, -np=4, -n4), or None."""
    flag = word.split("=", 1)[0]
    if flag in _LAUNCH_FLAGS:
        return flag
    attached = _ATTACHED_COUNT.match(word)
    return attached.group(1) if attached else None


def _check_extra_args(extra_args):
    if isinstance(extra_args, (str, bytes)):
        raise TypeError("extra_args must be a list of strings, not one string")
    extra_args = list(extra_args)
    for arg in extra_args:
        if not isinstance(arg, str):
            raise TypeError(f"extra_args must be strings, got {arg!r}")
    for i, arg in enumerate(extra_args):
        name, sep, value = arg.partition("=")
        if name in _MPIRUN_ARGS:
            # The value is mpirun's words, attached or the next argument.
            if not sep and i + 1 < len(extra_args):
                value = extra_args[i + 1]
            words = value.split()
        else:
            words = [arg]
        for word in words:
            flag = _launch_flag(word)
            if flag:
                raise ValueError(f"extra_args must not hold '{flag}': hp.run sets the rank "
                                 "count and the entry point itself (np=, entry=)")
    return extra_args


def _split_tagged(text, np, outputs, errors, untagged):
    """Distributes --tag-output text to each rank. Open MPI forwards each
    rank's output in chunks, so one rank's line can arrive in pieces, each
    tagged, with other ranks' pieces in between: every piece goes to its
    rank, and only the end of a physical line ends a line."""
    for line in text.splitlines():
        tags = list(_TAG.finditer(line))
        head = line[:tags[0].start()] if tags else line
        if head.strip():
            untagged.append(head)
        for i, m in enumerate(tags):
            piece = line[m.end():tags[i + 1].start() if i + 1 < len(tags) else len(line)]
            if i + 1 == len(tags):
                piece += "\n"
            rank = int(m.group(1))
            if rank >= np:
                untagged.append(piece)
                continue
            target = outputs if m.group(2) == "stdout" else errors
            target[rank] += piece


# mpirun names a rank that ended badly ("process rank 1 with PID ...").
_MPIRUN_RANK = _re.compile(r"\brank (\d+)\b")


def _output_tail(text, lines=10):
    """The last `lines` lines of a rank's standard output, each at most
    500 characters."""
    tail = text.rstrip("\n").splitlines()[-lines:]
    return "\n".join("  " + (line if len(line) <= 500 else line[:500] + " ...")
                     for line in tail)


def _failure_detail(outputs, errors, untagged):
    """Each distinct failure once, with the ranks that had it. A failing
    rank (one with error output, or one mpirun names) shows the end of its
    standard output first: the program's own failure text (cf.assert's
    message, the runtime checks' report) goes there, before the signal
    and stack trace on its error output."""
    failed = {rank for rank, text in enumerate(errors) if text.strip()}
    for line in untagged:
        failed.update(int(m.group(1)) for m in _MPIRUN_RANK.finditer(line)
                      if int(m.group(1)) < len(errors))
    groups = {}
    for rank in sorted(failed):
        key = (_output_tail(outputs[rank]) if outputs[rank].strip() else "",
               errors[rank].strip())
        groups.setdefault(key, []).append(rank)
    lines = []
    for (tail, text), ranks in groups.items():
        who = f"rank {ranks[0]}" if len(ranks) == 1 else \
            "ranks " + ", ".join(str(r) for r in ranks)
        if tail:
            lines.append(f"{who}, the end of its output:\n{tail}")
        if text:
            lines.append(f"{who}: {text}")
    return "\n".join(lines + untagged[-20:])


def _session_members(sid):
    """The live processes of session `sid` (zombies left out)."""
    import os
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:
            pids.append(int(entry))
    return pids


def _kill_session(proc):
    """Ends hp-runner, mpirun and every rank: all share the session that
    _launch started (ranks may sit in process groups of their own).
    hp-runner alone is asked first: it forwards SIGTERM to mpirun, which
    stops the ranks, and then removes its files (the lowered module, Open
    MPI's session directory); signalling every process at once races
    hp-runner's removal against mpirun's own clean-up. What is left after
    that gets SIGTERM, then SIGKILL."""
    import os
    import signal
    import time
    for sig, everyone in ((signal.SIGTERM, False), (signal.SIGTERM, True),
                          (signal.SIGKILL, True)):
        for pid in _session_members(proc.pid) if everyone else [proc.pid]:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            proc.poll()
            if not _session_members(proc.pid):
                break
            time.sleep(0.05)
        else:
            continue
        break
    proc.wait()


class _Ended(BaseException):
    """A signal that would have ended Python arrived during a job: raised
    where the job waits, so that the ``finally`` clauses end the job and
    remove its files (a BaseException, as KeyboardInterrupt is, so that no
    ``except Exception`` keeps it)."""

    def __init__(self, signum):
        super().__init__(f"signal {signum}")
        self.signum = signum


def _ending_signals():
    """The signals whose default action ends the process and that Python
    leaves at that default: SIGINT is Python's KeyboardInterrupt already,
    SIGKILL cannot be caught, and the synchronous faults (SIGSEGV, SIGBUS,
    SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS) mean the interpreter itself
    failed, where no Python code should run."""
    import signal
    names = ("SIGHUP", "SIGQUIT", "SIGTERM", "SIGUSR1", "SIGUSR2", "SIGALRM",
             "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGIO", "SIGPWR", "SIGSTKFLT")
    sigs = [getattr(signal, n) for n in names if hasattr(signal, n)]
    if hasattr(signal, "SIGRTMIN"):
        sigs += range(signal.SIGRTMIN, signal.SIGRTMAX + 1)
    return sigs


def _in_main_thread():
    import threading
    return threading.current_thread() is threading.main_thread()


class _JobSignals:
    """While a job runs, a signal that would end Python ends the job first.

    Python dies at once on SIGTERM, SIGHUP and the other signals left at
    their default action, skipping every ``finally``; hp-runner, mpirun and
    the ranks run in a session of their own, so they would survive it, and
    the job's files would stay in TMPDIR. In the main thread, the outermost
    ``with _JobSignals()`` gives each such signal whose handler is the
    default one a handler that raises :class:`_Ended`; on the way out the
    caller's handlers are back, and the signal is raised again, so Python
    ends as it would have (by the signal, without running the caller's
    ``finally`` clauses). Signals the caller handles (or ignores) keep the
    caller's handler: if it raises, the job ends with the exception.

    In another thread no handler can be set: there a signal that ends
    Python leaves the job running, as before (call hp.run from the main
    thread, or have the main thread's handler raise and join the thread).

    ``hold()`` defers the exception (the handler records the signal) while
    a job is being started or ended, so that no process escapes between
    its start and the ``try`` that ends it.
    """

    _depth = 0
    _installed = {}    # signal -> the caller's handler (always SIG_DFL)
    _pending = None    # the signal that arrived, once it has
    _deferred = False  # it arrived while held: raise when the hold ends
    _held = 0

    def __enter__(self):
        import signal
        cls = _JobSignals
        if not _in_main_thread():
            return self
        cls._depth += 1
        if cls._depth == 1:
            # Held while the handlers go in: __enter__ must not raise, or
            # __exit__ (which puts them back) would never run.
            cls._pending, cls._deferred, cls._held, cls._installed = None, False, 1, {}
            for sig in _ending_signals():
                try:
                    if signal.getsignal(sig) is signal.SIG_DFL:
                        signal.signal(sig, cls._handler)
                        cls._installed[sig] = signal.SIG_DFL
                except (OSError, ValueError):
                    pass  # a signal this platform does not let Python catch
            cls._held = 0
            if cls._deferred:
                # Nothing started yet: undo, and end as the signal would.
                self.__exit__(None, None, None)
        return self

    def __exit__(self, *exc):
        import os
        import signal
        cls = _JobSignals
        if not _in_main_thread():
            return False
        cls._held += 1  # no _Ended while the handlers go back
        cls._depth -= 1
        if cls._depth > 0:
            cls._held -= 1  # the outer job's __exit__ ends Python if it must
            return False
        for sig, handler in cls._installed.items():
            signal.signal(sig, handler)
        cls._installed = {}
        cls._held -= 1  # the caller's handlers are back: nothing to hold
        if cls._pending is not None:
            # The job is ended and its files are gone: now end Python as
            # the signal would have.
            os.kill(os.getpid(), cls._pending)
        return False

    @staticmethod
    def _handler(signum, frame):
        cls = _JobSignals
        if cls._pending is not None:
            return  # already ending: let the first cleanup finish
        cls._pending = signum
        if cls._held:
            cls._deferred = True
        else:
            raise _Ended(signum)

    class _Hold:
        def __enter__(self):
            cls = _JobSignals
            self.active = False
            if cls._depth == 0:
                return
            # Held before the thread test (a call, where a signal may be
            # handled): raising here would skip the block, a cleanup.
            cls._held += 1
            self.active = _in_main_thread()
            if not self.active:
                cls._held -= 1

        def __exit__(self, *exc):
            cls = _JobSignals
            if not self.active:
                return False
            cls._held -= 1
            # A signal that came while held ends the job now, unless the
            # block is already failing with an exception of its own.
            if not cls._held and cls._deferred:
                cls._deferred = False
                if exc[0] is None:
                    raise _Ended(cls._pending)
            return False

    @classmethod
    def hold(cls):
        return cls._Hold()


def _launch(cmd, timeout, env=None):
    """Runs cmd in a session of its own (environment `env`, or this
    process's); (returncode, stdout, stderr), or RunError when it runs past
    `timeout` seconds (after ending it)."""
    import subprocess
    proc = None
    try:
        with _JobSignals.hold():
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    stdin=subprocess.DEVNULL, text=True, errors="replace",
                                    start_new_session=True, env=env)
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with _JobSignals.hold():
            _kill_session(proc)
        out, err = proc.communicate()
        raise RunError(f"hp-runner ran past the timeout of {timeout} s and was ended "
                       "with its ranks", [out], [err]) from None
    finally:
        if proc is not None and proc.poll() is None:
            with _JobSignals.hold():
                _kill_session(proc)
    return proc.returncode, out, err


def run(module_or_path, np=1, entry="main", timeout=600, extra_args=(), env=None):
    """Runs a program on ``np`` CPU ranks with hp-runner and returns each
    rank's standard output, a list indexed by rank.

    ``module_or_path`` is a :class:`Module` or the path of a ``.mlir`` file
    (dtensor level or already lowered). The entry point takes no arguments
    and returns nothing. ``np`` is at most :data:`MAX_RANKS`; ``extra_args``
    go to hp-runner and must not set the rank count or entry point. Raises
    :class:`RunError` with every rank's error output when the program fails
    or runs past ``timeout`` seconds (hp-runner, mpirun and every rank are
    ended then); ``timeout=None`` waits for as long as the program runs.
    ``env`` adds environment variables (names to strings) for every rank.
    A signal that would end Python (SIGTERM, SIGHUP, ...) ends the job and
    removes its files first, then ends Python (main thread only; see
    :class:`_JobSignals`).
    """
    import os
    import tempfile
    _check_int(np, "np", 1)
    if np > MAX_RANKS:
        raise ValueError(f"np must be at most hp.MAX_RANKS ({MAX_RANKS}), got {np}")
    _check_symbol(entry, "entry")
    if timeout is not None and (isinstance(timeout, bool) or
                                not isinstance(timeout, (int, float)) or not timeout > 0):
        raise ValueError("timeout must be a positive number of seconds or None, "
                         f"got {timeout!r}")
    extra_args = _check_extra_args(extra_args)
    environment = None
    if env is not None:
        if not isinstance(env, dict) or not all(
                isinstance(k, str) and k and "=" not in k and isinstance(v, str)
                for k, v in env.items()):
            raise TypeError("env must be a dict of variable names to strings")
        environment = {**os.environ, **env}
    if not isinstance(module_or_path, (str, os.PathLike, Module)):
        raise TypeError("run() takes a Module or the path of a .mlir file, got "
                        f"{type(module_or_path).__name__}")
    path, cleanup = module_or_path, None
    if not isinstance(module_or_path, Module):
        path = os.fsdecode(os.fspath(module_or_path))
        # hp-runner would take `-x.mlir` for a flag and `-` for stdin.
        if path.startswith("-"):
            path = os.path.join(os.curdir, path)
    with _JobSignals():
        try:
            if isinstance(module_or_path, Module):
                with _JobSignals.hold():  # no file without its cleanup
                    fd, path = tempfile.mkstemp(suffix=".mlir")
                    cleanup = path
                with os.fdopen(fd, "w") as f:
                    f.write(str(module_or_path))
            cmd = [_runner(), "-np", str(np), "--mpirun-args=--tag-output",
                   os.fspath(path), "-e", entry, "--entry-point-result=void", *extra_args]
            returncode, stdout, stderr = _launch(cmd, timeout, environment)
        finally:
            with _JobSignals.hold():
                if cleanup:
                    os.unlink(cleanup)
    outputs = [""] * np
    errors = [""] * np
    untagged = []
    _split_tagged(stdout, np, outputs, errors, untagged)
    _split_tagged(stderr, np, outputs, errors, untagged)
    if returncode != 0:
        raise RunError(f"hp-runner failed (exit {returncode}) on {np} ranks:\n"
                       + _failure_detail(outputs, errors, untagged), outputs, errors)
    return outputs


def collectives(module, function=None):
    """What ``hp-partition`` makes ``module`` (a Module or IR text) move:
    ``{"counts": {kind: n}, "bytes": bytes one rank sends}``, over func
    ``function`` (every function when None). Bytes follow ring algorithms:
    an all_gather sends (n-1)/n of its result, a reduce_scatter or
    all_to_all (n-1)/n of its operand, an all_reduce twice that, a shift its
    block; local slices (all_slice) move nothing and are not counted;
    ``bytes`` is None where a shape is dynamic or an element type's size
    is not known. Counted in C++ (hp-c/Collectives.h), by the formulas the
    planner prices with. Raises ValueError when ``function`` names no
    function."""
    parsed = Module.parse(Context(), str(module))
    parsed.run("builtin.module(hp-partition)")
    return partitioned_collectives(parsed, function)


def partitioned_collectives(module, function=None):
    """:func:`collectives` of ``module`` (a Module or IR text), which
    hp-partition (or another partitioner to the shard dialect) has already
    run on."""
    if function is not None:
        _check_symbol(function, "function")
    if not isinstance(module, Module):
        module = Module.parse(Context(), str(module))
    return _hp.collective_totals(module, function or "")


collective_bytes_sent = _hp.collective_bytes_sent


def yield_(block, values):
    """Terminates a local_region body."""
    return _hp.add_yield(block, list(values))


add_function = _hp.add_function
add_op = _hp.add_op


def _caller_location():
    """(file, line, column) of the innermost frame outside this package: the
    user line that builds an op, which becomes the op's location."""
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if os.path.dirname(path) != here:
            return (frame.f_code.co_filename, frame.f_lineno, 1)
        frame = frame.f_back
    return None


_hp.set_location_provider(_caller_location)
