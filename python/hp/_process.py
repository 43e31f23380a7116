"""The processes of a job (hp-runner, mpirun and the ranks): started in a
session of their own, ended together on a timeout or when a signal would end
Python, so that no rank and no file outlives the call."""


class RunError(RuntimeError):
    """A program failed on some ranks (or ran past its timeout); ``outputs``
    and ``errors`` hold each rank's standard output and standard error."""

    def __init__(self, message, outputs, errors):
        super().__init__(message)
        self.outputs, self.errors = outputs, errors


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
    stops the ranks, and then removes its files (the compiled object, Open
    MPI's session directory); signalling every process at once races
    hp-runner's removal against mpirun's own clean-up. What is left after
    that gets SIGTERM, then SIGKILL."""
    import os
    import signal
    import time
    # A stopped process (SIGSTOP, a debugger let go) would hold a signal
    # until it runs again: every member runs, to end.
    for pid in _session_members(proc.pid):
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass
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
