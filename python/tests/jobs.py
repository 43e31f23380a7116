"""The processes and files of one hp job, for tests that end jobs: shared
by python/tests and python/torch_tests."""
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid


def processes_of_job(tmpdir):
    """The processes of a job run with TMPDIR=tmpdir: hp-runner, mpirun and
    the ranks all inherit it (the ranks run a lowered file inside it, so
    only the top hp-runner names the program)."""
    marker = f"TMPDIR={tmpdir}".encode() + b"\0"
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read() + b"\0"
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{entry}/stat") as f:
                zombie = f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if not zombie and (b"\0" + marker in b"\0" + environ or
                           str(tmpdir).encode() in cmdline):
            found.append((int(entry), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


def signal_during_a_run(tmp_path, code, args, sig, timeout=120):
    """Starts `code` in a Python child whose job marks its processes by a
    TMPDIR of its own, sends `sig` to the child once both ranks run, and
    returns (the child's exit status, the job's processes left running,
    the files left in its TMPDIR). Whatever survives is ended here."""
    job_tmp = tmp_path / f"job-{uuid.uuid4().hex}"
    job_tmp.mkdir()
    child = subprocess.Popen([sys.executable, "-c", code, *args],
                             env={**os.environ, "TMPDIR": str(job_tmp)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + timeout
        while len([pid for pid, cmd in processes_of_job(job_tmp)
                   if "--hp-runner-prelowered" in cmd]) < 2:
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the ranks never started"
            time.sleep(0.2)
        child.send_signal(sig)
        child.communicate(timeout=60)
        deadline = time.monotonic() + 10
        while processes_of_job(job_tmp) and time.monotonic() < deadline:
            time.sleep(0.1)
        # Every rank's JIT leaves a perf jitdump under $TMPDIR/.debug/jit
        # (MLIR's ExecutionEngine), after any run, killed or not: not this
        # check's concern.
        return child.returncode, processes_of_job(job_tmp), sorted(
            str(p.relative_to(job_tmp)) for p in job_tmp.rglob("*")
            if p.relative_to(job_tmp).parts[0] != ".debug")
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
        for pid, _ in processes_of_job(job_tmp):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(job_tmp, ignore_errors=True)
