"""hp.torch.Session: ranks that stay up between calls.

The request loop is the C++ runtime's (dtensor-add-driver{session-inputs=K},
lib/Runtime/Sessions.cpp); this is one client of its protocol
(docs/Runtime.md, "Sessions"): a session directory holding the program,
the parameters as argument files read once, and two FIFOs; each call's
inputs go into a directory of their own, announced by a line on
``requests``; rank 0 writes the results there and answers on ``replies``.
Those per-call directories live on a RAM file system when one has room
(``_calls_directory``).
"""

import fcntl
import json
import math
import os
import select
import shutil
import struct
import subprocess
import tempfile
import termios
import threading
import time

import hp
from hp import _checkpoint
from hp import _runtime_abi as abi
from hp import _torch_import, _torch_program

# hp-runner --compile-report=FILE's JSON object, in the session's directory.
_COMPILE_REPORT = "compile-report.json"

# Seconds the ranks wait for the next call before they end the session,
# unless HP_TIMEOUT_S says otherwise: the runtime's own default (60 s, for
# a collective) is short for a person between calls.
DEFAULT_IDLE_S = 600


# Room /dev/shm keeps free besides a session's calls: other programs use
# it too, and so do the ranks' MPI (its shared-memory segments, a few MiB
# per rank, made after the choice).
SHM_SPARE_BYTES = 16 << 20
SHM_SPARE_BYTES_PER_RANK = 8 << 20


def _calls_directory(need, ranks):
    """A new directory on /dev/shm for a session's per-call directories
    when it has room for ``need`` bytes twice over (and some to spare),
    else None (the session directory). On a disk, creating and removing a
    call's files leaves the kernel work (journal, writeback) that slows the
    ranks' next step by a third on a small model; in RAM it costs nothing
    and the parameters stay on disk."""
    shm = "/dev/shm"
    try:
        stats = os.statvfs(shm)
        spare = SHM_SPARE_BYTES + ranks * SHM_SPARE_BYTES_PER_RANK
        if stats.f_bavail * stats.f_frsize < 2 * need + spare or \
                not os.access(shm, os.W_OK | os.X_OK):
            return None
        return tempfile.mkdtemp(prefix="hp-session-calls-", dir=shm)
    except OSError:
        return None


def _spec_bytes(specs):
    return sum(math.prod(shape) * dtype.itemsize for shape, dtype, _ in specs)


def _remove_call(directory, names=()):
    """Removes a call's directory, holding the files ``names`` (any others
    are found): bare system calls, as this runs on every call."""
    try:
        for name in names:
            os.unlink(f"{directory}/{name}")
        os.rmdir(directory)
    except OSError:
        shutil.rmtree(directory, ignore_errors=True)


def _write_file(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def _timeout_s(text):
    """HP_TIMEOUT_S as seconds; a value the runtime refuses (its ranks
    then fail at once, saying why) counts as the default here."""
    try:
        value = float(text)
    except ValueError:
        return DEFAULT_IDLE_S
    return value if 0 < value < float("inf") else DEFAULT_IDLE_S


class Session:
    """``Session(prog, params=None, np=None, state=None)``: ``prog`` (an
    :class:`hp.torch.Program`) compiled once on ``np`` ranks (default and
    only value: the mesh's size), its parameters and buffers (``params``
    over the export-time buffers, as :func:`hp.torch.run` takes them) read
    once; then ``sess(*inputs)`` returns what ``hp.torch.run`` would, sending
    only the inputs. ``params`` may instead name a safetensors checkpoint
    (a ``.safetensors`` file, the index of a sharded one, or the directory
    ``save_pretrained`` wrote), read in place: each rank reads only its own
    block of every split parameter, and no process holds the whole model.
    Every rank reads only its block from tensors passed too. ``sess.close()`` (or leaving a ``with`` block) stops the
    ranks and removes the session's files.

    Inputs of another shape or dtype are refused before anything is sent,
    and the session goes on. A rank that fails ends the session with
    :class:`hp.RunError` (every rank's message). A client that ends without
    closing (killed, or exiting) is seen by the ranks, which end and remove
    the session directory. Ranks idle longer than ``HP_TIMEOUT_S`` seconds
    (default here 600) end the session, saying so; the next call raises
    :class:`hp.RunError` with that message.

    ``entries`` maps names to other programs exported from the same module
    and plan (the same parameters, buffers and placements; a prefill step
    beside a decode step): the session serves them too, on the same ranks,
    parameters and state, through ``sess.call(name, *inputs)``.

    ``state`` maps parameter or buffer names to output indices: that output
    of each call is the name's value for the next call (a KV cache, a step
    counter), kept on the ranks (each rank its piece) instead of returned;
    calls return the other outputs, and ``sess.state()`` fetches the
    current values as a dict of full tensors.
    """

    def __init__(self, prog, params=None, np=None, state=None, entries=None):
        if not isinstance(prog, _torch_program.Program):
            raise TypeError(f"expected an hp.torch.Program, got {type(prog).__name__}")
        self._prog = prog
        self._np = prog._ranks(np)
        self._calls = 0
        # One request at a time: calls from several threads take turns.
        self._lock = threading.RLock()
        # Requests whose caller stopped waiting (Ctrl-C): their directories
        # go when their answers come.
        self._abandoned = set()
        self._answered = False  # a call was answered: the ranks are up
        self._compile_report = None
        self._proc = None
        self._fds = []
        self._dir = None
        self._calls_dir = None
        self._entries = self._checked_entries(prog, entries)
        values = prog._state(params)  # checked before anything starts
        n_inputs = len(prog.input_specs)
        self._resident = self._checked_state(prog, state)
        for extra in self._entries.values():
            self._checked_state(extra, state)
        slots = [n_inputs + list(prog.state_specs).index(n) for n in self._resident]
        options = f"session-inputs={n_inputs}"
        if self._resident:
            options += (f" state-args={','.join(map(str, slots))}"
                        f" state-results={','.join(map(str, self._resident.values()))}")
        module = prog._forward.clone()
        for name, extra in self._entries.items():
            source = extra._forward
            if source.context is not module.context:
                # Exported apart (hp.torch.export(context=...) shares one):
                # the same IR, read into this module's context.
                source = hp.Module.parse(module.context, str(source), f"entry {name}")
            module.import_function(source, "forward", name)
        if self._entries:
            options += f" extra-entries={','.join(self._entries)}"
        module.run(f"builtin.module(dtensor-add-driver{{{options}}})")
        try:
            self._dir = tempfile.mkdtemp(prefix="hp-session-")
            for slot, t in enumerate(values, start=n_inputs):
                _checkpoint.write_argument(self._dir, slot, t, _torch_program._tensor_bytes)
            program = os.path.join(self._dir, "program.mlir")
            with open(program, "w") as f:
                f.write(str(module))
            for name in (abi.REQUESTS, abi.REPLIES):
                os.mkfifo(os.path.join(self._dir, name))
            env = dict(os.environ)
            env.update({abi.ENV_TENSOR_DIR: self._dir, abi.ENV_SESSION_CLIENT: str(os.getpid()),
                        abi.ENV_SESSION_REMOVE_DIR: "1"})
            env.pop(abi.ENV_SESSION_CALLS, None)
            self._calls_dir = _calls_directory(self._request_bytes(prog), self._np)
            if self._calls_dir:
                env[abi.ENV_SESSION_CALLS] = self._calls_dir
            else:
                self._calls_dir = self._dir
            env.setdefault("HP_TIMEOUT_S", str(DEFAULT_IDLE_S))
            self._timeout = _timeout_s(env["HP_TIMEOUT_S"])
            self._out = open(os.path.join(self._dir, "stdout"), "w+")
            self._err = open(os.path.join(self._dir, "stderr"), "w+")
            self._proc = subprocess.Popen(
                [hp._runner(), "-np", str(self._np), "--mpirun-args=--tag-output",
                 f"--compile-report={os.path.join(self._dir, _COMPILE_REPORT)}",
                 "--input-name=program.mlir", program],
                stdout=self._out, stderr=self._err, stdin=subprocess.DEVNULL,
                start_new_session=True, env=env)
            self._fds = [os.open(os.path.join(self._dir, name), os.O_RDWR | os.O_CLOEXEC)
                         for name in (abi.REQUESTS, abi.REPLIES)]
        except BaseException:
            self._end()
            raise

    def _request_bytes(self, prog):
        """The most bytes one request's directory holds: a call's inputs and
        results, or the resident state."""
        calls = [_spec_bytes(p.input_specs) + _spec_bytes(p.output_specs)
                 for p in [prog, *self._entries.values()]]
        state = _spec_bytes(prog.state_specs[n] for n in self._resident)
        return max(calls + [state])

    @staticmethod
    def _checked_entries(prog, entries):
        """``entries`` as {name: Program}, each on the same mesh with the same
        parameters, buffers and placements as ``prog``."""
        if entries is None:
            return {}
        if not isinstance(entries, dict):
            raise TypeError(f"entries must be a dict of names to hp.torch.Program, got "
                            f"{type(entries).__name__}")
        for name, extra in entries.items():
            if not isinstance(name, str) or not name.isidentifier() or \
                    name in _torch_import._RESERVED:
                raise ValueError(f"entries: {name!r} is not a name an entry can take (an "
                                 f"identifier other than {', '.join(_torch_import._RESERVED)})")
            if not isinstance(extra, _torch_program.Program):
                raise TypeError(f"entries['{name}']: expected an hp.torch.Program, got "
                                f"{type(extra).__name__}")
            if str(extra.mesh) != str(prog.mesh):
                raise ValueError(f"entries['{name}'] runs on {extra.mesh}, the session's "
                                 f"program on {prog.mesh}")
            if extra.state_specs != prog.state_specs:
                raise ValueError(f"entries['{name}'] has other parameters, buffers or "
                                 f"placements than the session's program: an entry shares "
                                 f"them (export it from the same module and plan)")
        return dict(entries)

    @staticmethod
    def _checked_state(prog, state):
        """``state`` as {argument name: output index}, checked."""
        if state is None:
            return {}
        if not isinstance(state, dict):
            raise TypeError(f"state must be a dict of parameter or buffer names to output "
                            f"indices, got {type(state).__name__}")
        resident = {}
        for name, out in state.items():
            canonical = prog.aliases.get(name, name)
            if canonical not in prog.state_specs:
                raise ValueError("state: " + _torch_program._unknown_name(name, prog.state_specs,
                                                               "parameter or buffer"))
            if isinstance(out, bool) or not isinstance(out, int) or \
                    not 0 <= out < len(prog.output_specs):
                raise ValueError(f"state['{name}']: {out!r} is not an output index of the "
                                 f"program (0 to {len(prog.output_specs) - 1})")
            if out in resident.values() or canonical in resident:
                raise ValueError(f"state['{name}']: output {out} or '{name}' is named twice")
            have, want = prog.output_specs[out][:2], prog.state_specs[canonical][:2]
            if have != want:
                raise ValueError(f"state['{name}']: output {out} is {have[1]} {list(have[0])}, "
                                 f"'{name}' is {want[1]} {list(want[0])}: it cannot update it")
            resident[canonical] = out
        return resident

    def peak_memory(self):
        """Every rank's peak resident memory so far, in bytes (a list, rank
        0 first): what the rank's process has held at most, the compiled
        program and the runtime included."""
        with self._lock:
            where = self._request([], "memory {n}")
            try:
                with open(os.path.join(where, abi.PEAK_MEMORY_FILE)) as f:
                    return [int(line) for line in f]
            finally:
                _remove_call(where, [abi.PEAK_MEMORY_FILE])

    def state(self):
        """The resident state now, as {name: full tensor}."""
        with self._lock:
            where = self._request([], "state {n}")
            try:
                values = self._prog.read_results(where, self._resident.values())
                return dict(zip(self._resident, values))
            finally:
                _remove_call(where, [abi.result_file(k) for k in self._resident.values()])

    def _request(self, values, line, meanwhile=None):
        """Writes the next request's arguments into its own directory, sends
        ``line`` (``{n}`` standing for the request's number), calls
        ``meanwhile`` and waits for the answer; the directory. The caller
        holds the lock."""
        if self.closed:
            raise RuntimeError("the hp.torch.Session is closed")
        n = self._calls
        self._calls += 1
        work = f"{self._calls_dir}/{n}{abi.STAGING_SUFFIX}"
        where = f"{self._calls_dir}/{n}"
        try:
            os.mkdir(work)
            for slot, t in enumerate(values):
                _write_file(f"{work}/{abi.argument_file(slot)}",
                            _torch_program._tensor_bytes(t))
            os.rename(work, where)  # the ranks never see half a request
        except BaseException:
            _remove_call(work)
            raise
        try:
            self._send(line.format(n=n) + "\n")
            if meanwhile:
                meanwhile()
            self._wait_for(n)
        except BaseException:
            if self._dir is not None:
                # Interrupted (Ctrl-C): the ranks may be reading or writing
                # the directory (even a line cut short may have reached
                # them); it goes when the answer comes.
                self._abandoned.add(n)
            raise
        return where

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self._end()
        except Exception:  # pylint: disable=broad-except
            pass

    @property
    def closed(self):
        return self._proc is None

    def __call__(self, *args):
        return self._call(self._prog, 0, args)

    def call(self, entry, *args):
        """Calls the extra entry ``entry`` (a name of ``entries``) on the
        same ranks, parameters and state; returns what it would return."""
        if entry not in self._entries:
            names = ", ".join(self._entries) or "none"
            raise ValueError(f"'{entry}' is not an entry of this session (entries: {names})")
        index = 1 + list(self._entries).index(entry)
        return self._call(self._entries[entry], index, args)

    def _call(self, prog, index, args):
        if self.closed:
            raise RuntimeError("the hp.torch.Session is closed")
        values = prog._inputs(args)
        results = [k for k in range(len(prog.output_specs))
                   if k not in self._resident.values()]
        files = [abi.argument_file(k) for k in range(len(values))] + \
            [abi.result_file(k) for k in results]
        outs = []
        with self._lock:
            # The results' tensors are made while the ranks compute: after
            # the answer, only the reads are left.
            call = self._request(values, f"{{n}} {index}" if index else "{n}",
                                 lambda: outs.extend(prog.result_buffers(results)))
            try:
                prog.read_results_into(call, results, outs)
            finally:
                _remove_call(call, files)
        outs = [t for t, _ in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def close(self):
        """Stops the ranks (they finish the call in flight first: a call
        another thread makes ends before) and removes the session's files.
        Closing twice does nothing."""
        with self._lock:
            if self.closed:
                return
            try:
                os.write(self._fds[0], b"stop\n")
                self._proc.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._end()

    def _send(self, line):
        try:
            os.write(self._fds[0], line.encode())
        except OSError as e:
            self._fail(f"cannot send the call: {e}")

    def _wait_for(self, n):
        """Reads answers until the one for request ``n`` (an interrupted
        earlier request's answer may come first: its directory goes then); a
        job that ends instead fails, and so does a rank 0 that has not taken
        the request off the FIFO after HP_TIMEOUT_S (stopped or hung: the
        other ranks wait for it without a bound while idle)."""
        pending = b""
        start = time.monotonic()
        while True:
            ready, _, _ = select.select([self._fds[1]], [], [], 0.2)
            if ready:
                pending += os.read(self._fds[1], 4096)
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.isdigit() and int(line) in self._abandoned:
                        self._abandoned.discard(int(line))
                        _remove_call(os.path.join(self._calls_dir, line.decode()))
                        start = time.monotonic()  # rank 0 turns to this call now
                if str(n).encode() in lines:
                    if not self._answered:
                        self._compile_report = self._read_compile_report()
                    self._answered = True
                    return
            elif self._proc.poll() is not None:
                self._fail("the ranks ended during the call")
            # Rank 0 takes a request at once when idle: after it has
            # answered one (before, it may still be compiling) and with no
            # interrupted call of its own still running.
            elif self._answered and not self._abandoned and \
                    time.monotonic() - start > self._timeout and self._unread_requests():
                self._fail(f"rank 0 has not taken request {n} in {self._timeout:g} s "
                           f"(HP_TIMEOUT_S): rank 0 is stopped or hung", ending=False)

    @property
    def compile_report(self):
        """How hp-runner came by the compiled program, once the ranks have
        answered a call (None before): a dict with ``cache`` ("hit", "miss"
        or "off", docs/Runtime.md "Compiled once, cached"), the object's
        ``bytes`` and the seconds of each stage, ``parse_s``, ``lower_s`` and
        ``codegen_s`` (0.0 on a hit), and ``total_s``."""
        return self._compile_report

    def _read_compile_report(self):
        try:
            with open(os.path.join(self._dir, _COMPILE_REPORT)) as f:
                report = json.load(f)
        except (OSError, ValueError):
            return None
        report.pop("stored", None)
        return report

    def _unread_requests(self):
        """Bytes the client wrote to the requests FIFO that rank 0 has not
        read."""
        buf = fcntl.ioctl(self._fds[0], termios.FIONREAD, b"\0" * 4)
        return struct.unpack("i", buf)[0]

    def _fail(self, what, ending=True):
        """Ends the session with :class:`hp.RunError` saying ``what`` and
        every rank's output; ``ending``: the job is ending by itself, and is
        given 10 s to say why before it is ended."""
        try:
            self._proc.wait(timeout=10 if ending else 0)
        except subprocess.TimeoutExpired:
            hp._kill_session(self._proc)
        outputs, errors, untagged = [""] * self._np, [""] * self._np, []
        for f, stream in ((self._out, "out"), (self._err, "err")):
            f.seek(0)
            text = "".join(line for line in f.read().splitlines(keepends=True)
                           if not line.startswith(_COMPILE_REPORT))
            hp._split_tagged(text, self._np, outputs, errors, untagged)
        code = self._proc.returncode
        self._end()
        raise hp.RunError(f"hp.torch.Session: {what} (hp-runner exit {code}) on "
                          f"{self._np} ranks:\n" + hp._failure_detail(outputs, errors, untagged),
                          outputs, errors)

    def _end(self):
        """Ends the job if it still runs and removes every file."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            hp._kill_session(proc)
        for fd in self._fds:
            os.close(fd)
        self._fds = []
        for f in (getattr(self, "_out", None), getattr(self, "_err", None)):
            if f is not None:
                f.close()
        if self._calls_dir and self._calls_dir != self._dir:
            shutil.rmtree(self._calls_dir, ignore_errors=True)
        self._calls_dir = None
        if self._dir:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
        self._abandoned.clear()
