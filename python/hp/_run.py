"""hp.run: a program on CPU ranks through hp-runner, each rank's output
demultiplexed from mpirun's tagged stream and failures reported per rank."""

import re as _re

from . import _hp
from ._hp import Module
from ._placement import _check_int, _check_symbol
from ._process import RunError, _JobSignals, _launch


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


# The most ranks hp.run launches: each is a process on this machine.
MAX_RANKS = 256

# Open MPI's --tag-output prefix: [job,rank]<stream>:
_TAG = _re.compile(r"\[\d+,(\d+)\]<(stdout|stderr|stddiag)>:")


def _check_extra_args(extra_args):
    if isinstance(extra_args, (str, bytes)):
        raise TypeError("extra_args must be a list of strings, not one string")
    extra_args = list(extra_args)
    for arg in extra_args:
        if not isinstance(arg, str):
            raise TypeError(f"extra_args must be strings, got {arg!r}")
    # Which flags those are is hp-runner's rule (hp/Support/LaunchFlags.h).
    flag = _hp.launcher_owned_flag(extra_args)
    if flag:
        raise ValueError(f"extra_args must not hold '{flag}': hp.run sets the rank count, "
                         "where the ranks run and the entry point itself (np=, entry=)")
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
            if cleanup:  # a temporary file: named the same each time, so cached
                cmd.append("--input-name=module.mlir")
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
