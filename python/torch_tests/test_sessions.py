"""hp.torch.Session: ranks, the compiled program and the parameters kept
between calls (the request loop of the C++ runtime, docs/Runtime.md
"Sessions"), on CPU ranks against torch eager; and every fault a client
can meet: bad inputs, a rank that fails, a client killed, ranks left idle,
a call after close.

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import glob
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

import pytest
import torch

import hp
import hp.torch
from numerics import check_close  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import llama_layer  # noqa: E402
from test_torch_frontend import Lookup  # noqa: E402  (an embedding of 10 rows)

TP4 = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))


def sessions_left():
    return glob.glob(os.path.join(tempfile.gettempdir(), "hp-session-*")) + \
        glob.glob("/dev/shm/hp-session-calls-*")


@pytest.fixture(scope="module")
def llama():
    torch.manual_seed(0)
    model = llama_layer.DecoderLayer()
    x = torch.randn(2, 16, 64)
    prog = hp.torch.export(model, (x,), TP4, plan=llama_layer.TP_PLAN)
    return model, prog


def test_calls_on_one_session_match_eager(llama):
    model, prog = llama
    before = sessions_left()
    with hp.torch.Session(prog, dict(model.named_parameters())) as sess:
        for i in range(20):
            torch.manual_seed(100 + i)
            x = torch.randn(2, 16, 64)
            with torch.no_grad():
                check_close(sess(x), model(x))
    assert sess.closed
    sess.close()  # twice: nothing
    assert sessions_left() == before


@pytest.fixture(scope="module")
def lookup():
    torch.manual_seed(0)
    model = Lookup()
    prog = hp.torch.export(model, (torch.tensor([1, 2, 3, 4]),), hp.DeviceMesh("tp", [2]))
    return model, prog


@pytest.mark.parametrize("room", [True, False])
def test_calls_go_through_ram_when_it_has_room(lookup, monkeypatch, room):
    # Each call's files go to /dev/shm (no disk work to slow the ranks'
    # next step), or, without room there, to the session directory.
    from hp import _session
    # No spare room asked for (a small /dev/shm, as in a container, still
    # holds two tiny calls), or more than any machine has.
    monkeypatch.setattr(_session, "SHM_SPARE_BYTES", 0 if room else 1 << 62)
    monkeypatch.setattr(_session, "SHM_SPARE_BYTES_PER_RANK", 0)
    model, prog = lookup
    before = sessions_left()
    seen = []
    with hp.torch.Session(prog, dict(model.named_parameters())) as sess:
        real = sess._wait_for

        def watched(n):
            seen.append("arg0.bin" in os.listdir(os.path.join(sess._calls_dir, str(n))))
            real(n)

        monkeypatch.setattr(sess, "_wait_for", watched)
        for ids in ([1, 2, 3, 4], [4, 3, 2, 1]):
            ids = torch.tensor(ids)
            check_close(sess(ids), model(ids).detach())
        calls = sess._calls_dir
        assert calls.startswith("/dev/shm/hp-session-calls-") if room else calls == sess._dir
    assert seen == [True, True]
    assert sessions_left() == before


def test_bad_inputs_are_refused_and_the_session_goes_on(lookup):
    model, prog = lookup
    ids = torch.tensor([1, 2, 3, 4])
    with hp.torch.Session(prog, dict(model.named_parameters())) as sess:
        with pytest.raises(ValueError, match="input 0"):
            sess(torch.tensor([1, 2, 3]))
        with pytest.raises(ValueError, match="input 0"):
            sess(ids.to(torch.int32))
        with pytest.raises(ValueError, match="takes 1 inputs, got 2"):
            sess(ids, ids)
        check_close(sess(ids), model(ids).detach())


def test_a_failing_rank_ends_the_session_with_its_message(lookup):
    model, prog = lookup
    before = sessions_left()
    sess = hp.torch.Session(prog, dict(model.named_parameters()))
    check_close(sess(torch.tensor([1, 2, 3, 4])), model(torch.tensor([1, 2, 3, 4])).detach())
    with pytest.raises(hp.RunError, match="index must be smaller than dim size"):
        sess(torch.tensor([1, 2, 30, 4]))
    assert sess.closed
    assert sessions_left() == before
    with pytest.raises(RuntimeError, match="the hp.torch.Session is closed"):
        sess(torch.tensor([1, 2, 3, 4]))


def test_session_arguments_are_checked(lookup):
    model, prog = lookup
    with pytest.raises(ValueError, match="np=4"):
        hp.torch.Session(prog, dict(model.named_parameters()), np=4)
    with pytest.raises(ValueError, match="matches no parameter"):
        hp.torch.Session(prog, {"tabel.weight": torch.zeros(10, 4)})
    with pytest.raises(TypeError, match="expected an hp.torch.Program"):
        hp.torch.Session("program.mlir")


def test_ranks_left_idle_end_the_session(lookup, monkeypatch):
    model, prog = lookup
    monkeypatch.setenv("HP_TIMEOUT_S", "1")
    before = sessions_left()
    sess = hp.torch.Session(prog, dict(model.named_parameters()))
    time.sleep(3)
    with pytest.raises(hp.RunError, match="the session was idle that long"):
        sess(torch.tensor([1, 2, 3, 4]))
    assert sess.closed and sessions_left() == before


CLIENT = textwrap.dedent("""
    import sys, time, torch, hp, hp.torch
    sys.path.insert(0, {test_dir!r})
    from test_torch_frontend import Lookup
    torch.manual_seed(0)
    model = Lookup()
    prog = hp.torch.export(model, (torch.tensor([1, 2, 3, 4]),), hp.DeviceMesh("tp", [2]))
    sess = hp.torch.Session(prog, dict(model.named_parameters()))
    sess(torch.tensor([1, 2, 3, 4]))
    print(sess._dir, sess._calls_dir, sess._proc.pid, flush=True)
    time.sleep(600)
""")


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_client_that_dies_ends_its_ranks_and_leaves_no_files(sig):
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT.format(test_dir=os.path.dirname(__file__))],
        stdout=subprocess.PIPE, text=True, env=os.environ)
    directory, calls, runner = client.stdout.readline().split()
    assert os.path.isdir(directory) and os.path.isdir(calls)
    client.send_signal(sig)
    client.wait()
    deadline = time.monotonic() + 30
    while (alive(int(runner)) or os.path.exists(directory) or os.path.exists(calls)) and \
            time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(int(runner)), "hp-runner outlived its client"
    assert not os.path.exists(directory) and not os.path.exists(calls)


class Accumulate(torch.nn.Module):
    """Returns twice its input and the running sum of its inputs (a buffer
    the caller keeps: here, on the ranks)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.arange(32.0).reshape(8, 4))

    def forward(self, x):
        return x * 2, self.acc + x


@pytest.mark.parametrize("placement", [[hp.Replicate()], [hp.Shard(0)], [hp.Shard(1)]])
def test_resident_state_stays_on_the_ranks(placement):
    model = Accumulate()
    prog = hp.torch.export(model, (torch.zeros(8, 4),), hp.DeviceMesh("tp", [2]),
                           params={"acc": placement})
    expected = model.acc.clone()
    with hp.torch.Session(prog, state={"acc": 1}) as sess:
        check_close(sess.state()["acc"], expected)
        for i in range(4):
            x = torch.randn(8, 4)
            check_close(sess(x), x * 2)  # the state output is not returned
            expected += x
        check_close(sess.state()["acc"], expected)
        x = torch.randn(8, 4)
        sess(x)
        check_close(sess.state()["acc"], expected + x)


def test_state_is_checked():
    model = Accumulate()
    prog = hp.torch.export(model, (torch.zeros(8, 4),), hp.DeviceMesh("tp", [2]))
    with pytest.raises(ValueError, match="'acx' matches no parameter or buffer"):
        hp.torch.Session(prog, state={"acx": 1})
    with pytest.raises(ValueError, match=r"state\['acc'\]: 2 is not an output index"):
        hp.torch.Session(prog, state={"acc": 2})
    with pytest.raises(TypeError, match="state must be a dict"):
        hp.torch.Session(prog, state=["acc"])


def test_state_of_another_shape_is_refused():
    class Shrink(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("acc", torch.zeros(8, 4))

        def forward(self, x):
            return self.acc[:4] + x

    prog = hp.torch.export(Shrink(), (torch.zeros(4, 4),), hp.DeviceMesh("tp", [2]))
    with pytest.raises(ValueError, match=r"output 0 is torch.float32 \[4, 4\], 'acc' is "
                                         r"torch.float32 \[8, 4\]: it cannot update it"):
        hp.torch.Session(prog, state={"acc": 0})


def test_a_second_entry_serves_other_shapes_on_the_same_session():
    # An MLP exported for batches of 4 and of 2: the second an entry of the
    # same session (same parameters), called by name.
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                torch.nn.Linear(128, 64))
    plan = {"0": ColwiseParallel(), "2": RowwiseParallel()}
    prog = hp.torch.export(model, (torch.randn(4, 64),), TP4, plan=plan)
    small = hp.torch.export(model, (torch.randn(2, 64),), TP4, plan=plan)
    with hp.torch.Session(prog, dict(model.named_parameters()),
                          entries={"small": small}) as sess:
        for batch in (4, 2, 4, 2):
            x = torch.randn(batch, 64)
            out = sess(x) if batch == 4 else sess.call("small", x)
            with torch.no_grad():
                check_close(out, model(x))
        with pytest.raises(ValueError, match="'large' is not an entry of this session "
                                             "\\(entries: small\\)"):
            sess.call("large", x)


def test_entry_errors(llama):
    model, prog = llama
    params = dict(model.named_parameters())
    other = hp.torch.export(torch.nn.Linear(64, 64), (torch.randn(2, 64),), TP4)
    with pytest.raises(ValueError, match="has other parameters, buffers or placements"):
        hp.torch.Session(prog, params, entries={"other": other})
    with pytest.raises(ValueError, match="'main' is not a name an entry can take"):
        hp.torch.Session(prog, params, entries={"main": prog})
    with pytest.raises(TypeError, match="expected an hp.torch.Program"):
        hp.torch.Session(prog, params, entries={"x": 3})


def rank_pids(sess):
    """{rank: pid} of the session's ranks (hp-runner's children under
    mpirun, each with its Open MPI rank in its environment)."""
    ranks = {}
    from hp._process import _session_members
    for pid in _session_members(sess._proc.pid):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
        except OSError:
            continue
        if b"OMPI_COMM_WORLD_RANK" in env and b"HP_SESSION_CLIENT" in env:
            ranks.setdefault(int(env[b"OMPI_COMM_WORLD_RANK"]), pid)
    return ranks


def test_calls_from_two_threads_take_turns(lookup):
    model, prog = lookup
    failures = []

    def caller(seed):
        try:
            g = torch.Generator().manual_seed(seed)
            for _ in range(15):
                ids = torch.randint(0, 10, (4,), generator=g)
                check_close(sess(ids), model(ids).detach())
        except BaseException as e:  # pylint: disable=broad-except
            failures.append(e)

    with hp.torch.Session(prog, dict(model.named_parameters())) as sess:
        threads = [threading.Thread(target=caller, args=(s,)) for s in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not any(t.is_alive() for t in threads), "a call hung"
        assert not failures, failures
        check_close(sess(torch.tensor([1, 2, 3, 4])), model(torch.tensor([1, 2, 3, 4])).detach())


@pytest.mark.parametrize("stopped", [0, 1])
def test_a_stopped_rank_fails_the_call_within_the_timeout(lookup, monkeypatch, stopped):
    # Rank 0 stopped while idle never takes the request; rank 1 stopped
    # never joins the call's collectives. Either way the call fails within
    # about HP_TIMEOUT_S, naming the rank, and nothing is left behind.
    model, prog = lookup
    monkeypatch.setenv("HP_TIMEOUT_S", "5")
    before = sessions_left()
    sess = hp.torch.Session(prog, dict(model.named_parameters()))
    ids = torch.tensor([1, 2, 3, 4])
    check_close(sess(ids), model(ids).detach())
    pid = rank_pids(sess)[stopped]
    os.kill(pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        # Rank 0 is named; with rank 1 stopped, the ranks that waited say
        # what they waited for.
        with pytest.raises(hp.RunError, match="rank 0 is stopped" if stopped == 0
                           else "timed out after"):
            sess(ids)
        assert time.monotonic() - start < 5 + 15
    finally:
        try:
            os.kill(pid, signal.SIGCONT)
        except OSError:
            pass
    assert sess.closed and sessions_left() == before


def test_an_interrupted_call_leaves_no_request_behind(lookup, monkeypatch):
    # Ctrl-C while a call waits: the ranks still finish it, and its
    # directory goes when its answer arrives (here during the next call).
    model, prog = lookup
    ids = torch.tensor([1, 2, 3, 4])
    with hp.torch.Session(prog, dict(model.named_parameters())) as sess:
        wait = sess._wait_for

        def interrupted(n):
            monkeypatch.setattr(sess, "_wait_for", wait)
            raise KeyboardInterrupt

        monkeypatch.setattr(sess, "_wait_for", interrupted)
        with pytest.raises(KeyboardInterrupt):
            sess(ids)
        check_close(sess(ids), model(ids).detach())
        left = [e for e in os.listdir(sess._calls_dir) if e[0].isdigit()]
        assert left == [], left


def test_a_second_session_takes_the_program_from_the_cache(lookup, tmp_path, monkeypatch):
    """hp-runner compiles once per job and keeps the object in a cache per
    node (docs/Runtime.md "Compiled once, cached"): a second Session of the
    same exported program generates no code, and computes the same."""
    monkeypatch.setenv("HP_CACHE_DIR", str(tmp_path))
    model, prog = lookup
    ids = torch.tensor([1, 2, 3, 4])
    reports = []
    for _ in range(2):
        with hp.torch.Session(prog, dict(model.named_parameters())) as sess:
            assert sess.compile_report is None  # nothing answered yet
            check_close(sess(ids), model(ids).detach())
            reports.append(sess.compile_report)
    assert [r["cache"] for r in reports] == ["miss", "hit"], reports
    assert reports[0]["lower_s"] > 0 and reports[0]["codegen_s"] > 0
    assert reports[1]["codegen_s"] == 0.0 and reports[1]["bytes"] == reports[0]["bytes"]
    assert len(list(tmp_path.glob("llvmcache-hp-*"))) == 1
    monkeypatch.setenv("HP_CACHE", "0")
    with hp.torch.Session(prog, dict(model.named_parameters())) as sess:
        check_close(sess(ids), model(ids).detach())
        assert sess.compile_report["cache"] == "off"
