"""Bad input to the Python API is a Python exception, never a crash, a hang
or output that does not parse again. Snippets that used to crash the
interpreter run in a subprocess, so a crash fails the test instead of
killing pytest."""

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

import hp
from jobs import processes_of_job, signal_during_a_run

MESH_PROGRAM = """
dtensor.mesh @tp shape = [2] names = ["tp"]
func.func @f(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8xf32, @tp, [replicate]>
  return %r : !dtensor.tensor<8xf32, @tp, [replicate]>
}
"""


def run_snippet(code):
    """Runs `code` in a fresh interpreter; fails on a signal or an error exit."""
    proc = subprocess.run([sys.executable, "-c", "import gc, hp\nfrom hp import _hp\n"
                           + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (
        f"exit {proc.returncode} (negative: killed by a signal)\n{proc.stderr[-3000:]}")
    return proc.stdout


@pytest.fixture()
def ctx():
    return hp.Context()


def test_add_op_with_non_dictionary_attributes():
    out = run_snippet("""
        ctx = hp.Context()
        m = hp.Module.create(ctx)
        entry = hp.add_function(m, "f", [], [])
        f32 = hp.Type.parse(ctx, "f32")
        for text in ["1 : i64", "[1, 2]", "unit"]:
            try:
                hp.add_op(entry, "arith.constant", [], [f32], text)
            except ValueError as e:
                print(e)
        """)
    assert out.count("attributes must be a dictionary") == 3


def test_local_region_on_a_mesh_with_a_zero_size_axis():
    out = run_snippet("""
        ctx = hp.Context()
        m = hp.Module.create(ctx)
        t = hp.Type.parse(ctx, "!dtensor.tensor<8xf32, @m, [shard<0>]>")
        entry = hp.add_function(m, "f", [t], [])
        for shape in ([0], [-2]):
            try:
                _hp.add_local_region(entry, "m", shape, [(entry.arguments[0], "x")])
            except ValueError as e:
                print(e)
            try:
                _hp.local_type(t, shape)
            except ValueError as e:
                print(e)
        """)
    assert out.count("has size 0; sizes must be >= 1") == 2
    assert out.count("has size -2; sizes must be >= 1") == 2
    with pytest.raises(ValueError, match="mesh dim 1 has size 0; sizes must be >= 1"):
        hp.DeviceMesh("m", (2, 0))


def test_ir_handles_keep_their_module_alive():
    out = run_snippet("""
        def build():
            ctx = hp.Context()
            m = hp.Module.create(ctx)
            t = hp.Type.parse(ctx, "tensor<4xf32>")
            entry = hp.add_function(m, "kept", [t], [t])
            op = hp.add_op(entry, "func.return", entry.arguments, [])
            return entry, op
        entry, op = build()
        gc.collect()
        # Another module allocated where the first one was must not show.
        other = hp.Module.parse(hp.Context(), "func.func @other() { return }")
        print(str(op))
        print(entry.arguments[0].type)
        """)
    assert out == "func.return %arg0 : tensor<4xf32>\ntensor<4xf32>\n"


def test_objects_of_two_contexts_are_not_mixed():
    out = run_snippet("""
        ctx = hp.Context()
        m = hp.Module.create(ctx)
        t = hp.Type.parse(hp.Context(), "f32")  # its context lives in t only
        try:
            hp.add_function(m, "f", [t], [])
        except ValueError as e:
            print(e)
        try:
            _hp.dtensor_type(ctx, [8], "f32", "m", [_hp.shard_attr(hp.Context(), 0)])
        except ValueError as e:
            print(e)
        del t
        gc.collect()
        print(m)
        """)
    assert out.count("belongs to a different hp.Context") == 2


def test_values_of_another_module_are_refused(ctx):
    f32 = hp.Type.parse(ctx, "f32")
    a = hp.add_function(hp.Module.create(ctx), "a", [f32], [])
    b = hp.add_function(hp.Module.create(ctx), "b", [], [])
    with pytest.raises(ValueError, match="belongs to a different hp.Module"):
        hp.add_op(b, "func.return", a.arguments, [])


def test_handles_from_before_a_run_are_refused(ctx):
    module = hp.Module.parse(ctx, MESH_PROGRAM)
    entry = module.body
    module.run("hp-partition")
    with pytest.raises(ValueError, match="taken before Module.run changed its module"):
        entry.arguments
    assert "shard.all_gather" in str(module)


def test_run_refuses_a_module_that_does_not_verify(ctx):
    module = hp.Module.create(ctx)
    entry = hp.add_function(module, "f", [], [])
    hp.add_op(entry, "dtensor.redistribute", [], [])
    with pytest.raises(ValueError, match="does not verify; the pipeline was not run"):
        module.run("hp-partition")


@pytest.mark.parametrize("parse", [
    lambda ctx, text: hp.Type.parse(ctx, text),
    lambda ctx, text: hp.Attribute.parse(ctx, text),
    lambda ctx, text: hp.Module.parse(ctx, "func.func @f(%x: " + text + ")"),
    lambda ctx, text: hp.Module.parse(ctx, MESH_PROGRAM).run(
        "func.func(" * 5000 + "cse" + ")" * 5000),
])
def test_deeply_nested_input_is_refused(parse):
    ctx = hp.Context()
    with pytest.raises(ValueError, match="nests deeper than 512 brackets"):
        parse(ctx, "tensor<" * 100000 + "f32" + ">" * 100000)


def test_deeply_nested_type_in_a_subprocess():
    # Without the bound, the parser overflows the stack (SIGSEGV).
    out = run_snippet("""
        try:
            hp.Type.parse(hp.Context(), "tensor<" * 100000 + "f32" + ">" * 100000)
        except ValueError as e:
            print(e)
        """)
    assert "type:1:" in out and "nests deeper than 512 brackets" in out


def test_deeply_nested_local_regions_are_refused(ctx):
    mesh = hp.DeviceMesh("m", (2,))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    block = hp.add_function(module, "f", [], [])
    with pytest.raises(ValueError, match="local_region nests deeper than 256 regions"):
        for _ in range(300):
            block = hp.local_region(ctx, block, mesh, [], [])[1]


@pytest.mark.parametrize("pipeline", ["hp-partition", "builtin.module(hp-partition)",
                                      "  builtin.module( hp-partition )\n"])
def test_anchored_and_bare_pipelines_both_run(ctx, pipeline):
    module = hp.Module.parse(ctx, MESH_PROGRAM)
    module.run(pipeline)
    assert "shard.all_gather" in str(module)
    assert "dtensor.redistribute" not in str(module)


def test_pipeline_that_is_not_one_anchor_is_nested(ctx):
    # `builtin.module(cse),cse` is two module passes, not one anchor.
    module = hp.Module.parse(ctx, MESH_PROGRAM)
    module.run("builtin.module(cse),cse")
    with pytest.raises(ValueError, match="invalid pass pipeline"):
        module.run("builtin.module(")
    # Passes nested on functions, alone or after a module pass, anchored or
    # not (MLIR's parser reads them; nothing counts parentheses).
    for pipeline in ["func.func(canonicalize)", "cse,func.func(canonicalize)",
                     " builtin.module( func.func(cse) ) "]:
        module.run(pipeline)
    with pytest.raises(ValueError, match="invalid pass pipeline"):
        module.run("builtin.module(no-such-pass)")


def test_invalid_symbol_names(ctx):
    for name in ["", "1x", "a b", "@m"]:
        with pytest.raises(ValueError, match="is not a symbol name"):
            hp.DeviceMesh(name, (2,))
        with pytest.raises(ValueError, match="is not a symbol name"):
            hp._hp.add_mesh(hp.Module.create(ctx), name, [2])
        with pytest.raises(ValueError, match="is not a symbol name"):
            hp._hp.dtensor_type(ctx, [8], "f32", name, [hp._hp.replicate_attr(ctx)])
    with pytest.raises(ValueError, match="mesh axis names must not be empty"):
        hp.DeviceMesh("m", (2,), ("",))
    with pytest.raises(ValueError, match="mesh axis name 'a' is used more than once"):
        hp.DeviceMesh("m", (2, 2), ("a", "a"))
    with pytest.raises(ValueError, match="mesh has 1 names for 2 dimensions"):
        hp._hp.add_mesh(hp.Module.create(ctx), "m", [2, 2], ["a"])
    with pytest.raises(ValueError, match="mesh shape must not be empty"):
        hp.DeviceMesh("m", ())
    with pytest.raises(ValueError, match=r"mesh has more than 2147483647 devices"):
        hp.DeviceMesh("m", (2**16, 2**16))
    # Python ints are unbounded: past int64 is a bad size, not a bad type.
    for size in (2**64, -2**70):
        with pytest.raises(ValueError, match=f"mesh size {size} does not fit in 64 bits"):
            hp.DeviceMesh("m", (2, size))
    with pytest.raises(TypeError, match="mesh dim names must be strings"):
        hp.DeviceMesh("m", (2,), (1,))
    with pytest.raises(TypeError, match="mesh size must be an int"):
        hp.DeviceMesh("m", ("2",))


def test_placement_arguments(ctx):
    with pytest.raises(ValueError, match="shard dim must be non-negative, got -1"):
        hp._hp.shard_attr(ctx, -1)
    with pytest.raises(ValueError, match="split factor must be at least 1"):
        hp._hp.strided_shard_attr(ctx, 0, 0)
    with pytest.raises(ValueError, match="unknown reduction 'SUM'"):
        hp._hp.partial_attr(ctx, "SUM")
    with pytest.raises(TypeError, match="shard dim must be an int"):
        hp.Shard("0")
    with pytest.raises(TypeError, match="expected a Placement"):
        hp.dtensor_type(ctx, (8,), "f32", hp.DeviceMesh("m", (2,)), ["shard"])
    with pytest.raises(ValueError, match="2 placements for a mesh of rank 1"):
        hp.dtensor_type(ctx, (8,), "f32", hp.DeviceMesh("m", (2,)),
                        [hp.Shard(0), hp.Replicate()])


def test_run_argument_checks(ctx):
    module = hp.Module.parse(ctx, MESH_PROGRAM)
    with pytest.raises(ValueError, match="at most hp.MAX_RANKS"):
        hp.run(module, np=10**6)
    with pytest.raises(ValueError, match="np must be at least 1"):
        hp.run(module, np=0)
    with pytest.raises(TypeError, match="np must be an int"):
        hp.run(module, np="2")
    with pytest.raises(ValueError, match="must not hold '-np'"):
        hp.run(module, np=1, extra_args=["-np", "3"])
    with pytest.raises(ValueError, match="must not hold '-c'"):
        hp.run(module, extra_args=["--mpirun-args=-c 3"])
    with pytest.raises(TypeError, match="not one string"):
        hp.run(module, extra_args="-np 3")
    # Counts attached to the flag, and --mpirun-args with its words apart.
    for extra, flag in [(["-n4"], "-n"), (["-np4"], "-np"), (["-c4"], "-c"),
                        (["--mpirun-args=-n4"], "-n"),
                        (["--mpirun-args", "-np 4"], "-np"),
                        (["--mpirun-args", "--oversubscribe -c 2"], "-c"),
                        # where the ranks run, and the entry point
                        (["--mpirun-args=--host a,b"], "--host"),
                        (["--mpirun-args", "--bind-to none -rf ranks"], "-rf"),
                        (["--mpirun-args=-npernode 2"], "-npernode"),
                        (["--hostfile", "h"], "--hostfile"),
                        (["-e", "other"], "-e"),
                        (["--entry-point-result=i32"], "--entry-point-result")]:
        with pytest.raises(ValueError, match=f"must not hold '{flag}'"):
            hp.run(module, extra_args=extra)
    with pytest.raises(ValueError, match="timeout must be a positive"):
        hp.run(module, timeout=0)
    with pytest.raises(ValueError, match="timeout must be a positive"):
        hp.run(module, timeout=True)
    with pytest.raises(ValueError, match="entry '' is not a symbol name"):
        hp.run(module, entry="")


def test_tagged_output_of_interleaved_ranks_is_split_per_rank():
    outputs, errors, untagged = [""] * 4, [""] * 4, []
    hp._split_tagged(
        '[1,3]<stderr>:loc([1,3]<stderr>:"p.mlir"[1,3]<stderr>::1:1): error: boom\n'
        "[1,0]<stderr>:err[1,1]<stderr>:loc(\"p.mlir\":1:1): error: boom\n"
        "[1,0]<stderr>:or: x\n"
        "[1,2]<stdout>:( 1, 2 )\n"
        "mpirun noticed that process rank 0 exited\n", 4, outputs, errors, untagged)
    assert errors[3] == 'loc("p.mlir":1:1): error: boom\n'
    assert errors[1] == errors[3]
    assert errors[0] == "error: x\n"
    assert outputs[2] == "( 1, 2 )\n"
    assert untagged == ["mpirun noticed that process rank 0 exited"]
    detail = hp._failure_detail(outputs, errors, untagged)
    assert detail.count("error: boom") == 1
    assert 'ranks 1, 3: loc("p.mlir":1:1): error: boom' in detail
    # Rank 2 printed but did not fail: its output is not a failure's.
    assert "( 1, 2 )" not in detail


PRINT_PROGRAM = """
func.func @main() {
  %c = arith.constant 42 : i64
  vector.print %c : i64
  return
}
"""


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
def test_run_without_a_timeout(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(PRINT_PROGRAM)
    assert hp.run(str(path), timeout=None) == ["42\n"]


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
def test_run_a_path_that_starts_with_a_dash(tmp_path, monkeypatch):
    # hp-runner must see a file, not the flag -p.mlir (or --help).
    (tmp_path / "-p.mlir").write_text(PRINT_PROGRAM)
    monkeypatch.chdir(tmp_path)
    assert hp.run("-p.mlir") == ["42\n"]
    with pytest.raises(hp.RunError, match="no such input file './--help'"):
        hp.run("--help")


def test_local_call_checks_its_mesh_as_local_region_does(ctx):
    module = hp.Module.create(ctx)
    entry = hp.add_function(module, "f", [], [])
    for build in (lambda: hp.local_region(ctx, entry, "m", [], []),
                  lambda: hp.local_call("g", "m")(ctx, entry, results=[])):
        with pytest.raises(TypeError, match="expected a DeviceMesh, got str"):
            build()
    mesh = hp.DeviceMesh("m", (2,))
    with pytest.raises(TypeError, match="in_placements must be a dict"):
        hp.local_call("g", mesh, in_placements=[hp.Shard(0)])(ctx, entry, results=[])
    # Both take out_placements as any iterable, in flat or per-output form;
    # _hp takes the per-output form only: a flat list is one output's.
    ins, outs = hp._region_placements(ctx, mesh, {"x": None}, iter([hp.Shard(0)]))
    assert ins == [("x", None)] and len(outs) == 1
    assert [str(a) for a in outs[0]] == ["#dtensor.shard<0>"]
    ins, outs = hp._region_placements(ctx, mesh, None, ([hp.Replicate()], None))
    assert ins is None and len(outs) == 2 and outs[1] is None
    ins, outs = hp._region_placements(ctx, mesh, None, [])
    assert outs == []


SPIN_PROGRAM = """
func.func @main() {
  scf.while : () -> () {
    %t = arith.constant true
    scf.condition(%t)
  } do {
    // A side effect keeps the endless loop from being folded away.
    llvm.inline_asm has_side_effects "", "" : () -> ()
    scf.yield
  }
  return
}
"""


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
def test_run_timeout_ends_mpirun_and_every_rank(tmp_path, monkeypatch):
    import threading
    path = tmp_path / "spin.mlir"
    path.write_text(SPIN_PROGRAM)
    # A TMPDIR of this job alone marks its processes.
    job_tmp = tmp_path / f"job-{uuid.uuid4().hex}"
    job_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(job_tmp))
    # While it runs, the marker must find both ranks (else the check after
    # the timeout would prove nothing).
    seen, done = set(), threading.Event()

    def watch():
        while not done.is_set():
            seen.update(processes_of_job(job_tmp))
            time.sleep(0.2)
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with pytest.raises(hp.RunError, match="ran past the timeout of 5 s"):
            hp.run(str(path), np=2, timeout=5)
    finally:
        done.set()
        watcher.join()
    ranks = {pid for pid, cmd in seen if "--hp-runner-prelowered" in cmd and
             os.path.basename(cmd.split(" ", 1)[0]) == "hp-runner"}
    assert len(ranks) == 2, seen
    deadline = time.monotonic() + 5
    while processes_of_job(job_tmp) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_of_job(job_tmp) == []


def test_fuzzer_finds_nothing(tmp_path):
    script = pathlib.Path(__file__).parents[2] / "scripts" / "fuzz_python.py"
    proc = subprocess.run([sys.executable, str(script), "--seconds", "20",
                           "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    assert "0 findings" in proc.stdout


@pytest.mark.parametrize("pipeline, message", [
    ("func.func(hp-partition)", "'hp-partition' runs on a whole module"),
    ("func.func(convert-func-to-llvm)", "Can't add pass 'ConvertFuncToLLVMPass'"),
])
def test_module_pass_nested_on_a_function_is_an_exception(pipeline, message):
    out = run_snippet(f"""
        module = hp.Module.parse(hp.Context(), "func.func @f() {{ return }}")
        try:
            module.run({pipeline!r})
        except ValueError as e:
            print(e)
        """)
    assert "invalid pass pipeline" in out and message in out


@pytest.mark.parametrize("builder", ["add_op", "local_region", "local_call", "yield",
                                     "add_function", "add_mesh"])
def test_location_provider_that_erases_the_block(builder):
    # The location provider is arbitrary Python: here it erases @f (and the
    # local_region body inside it) before the op is added. Every builder
    # asks for the location first, then checks its handles: the op is
    # refused instead of appended to freed memory, and what add_function
    # and add_mesh return is usable after the run.
    out = run_snippet(f"""
        ctx = hp.Context()
        f32 = hp.Type.parse(ctx, "f32")
        mesh = hp.DeviceMesh("m", (2,))
        t = hp.dtensor_type(ctx, [4], "f32", mesh, [hp.Replicate()])
        lt = hp.Type.parse(ctx, "tensor<4xf32>")
        m = hp.Module.create(ctx)
        mesh.add_to(m)
        hp.add_op(hp.add_function(m, "g", [lt], [], arg_names=["x"]), "func.return", [], [])
        fn = hp.add_function(m, "f", [t], [])
        (x,) = fn.arguments
        region, body = hp.local_region(ctx, fn, mesh, [(x, "x")], [], body=lambda b, a: [])
        hp.add_op(fn, "func.return", [], [])
        m.verify()
        ran = []
        def provider():
            if not ran:
                ran.append(m.run("symbol-privatize{{exclude=m}},symbol-dce"))
                assert "@f" not in str(m)
            return ("model.py", 1, 1)
        _hp.set_location_provider(provider)
        builder = {builder!r}
        try:
            if builder == "add_op":
                hp.add_op(fn, "arith.constant", [], [f32], "{{value = 1.0 : f32}}")
            elif builder == "local_region":
                hp.local_region(ctx, fn, mesh, [(x, "x")], [])
            elif builder == "local_call":
                hp.local_call("g", mesh)(ctx, fn, x, results=[])
            elif builder == "yield":
                hp.yield_(body, [])
            elif builder == "add_function":
                entry = hp.add_function(m, "h", [f32], [])
                assert len(entry.arguments) == 1
                hp.add_op(entry, "func.return", [], [])
                m.verify()
                print("built")
            else:
                assert "@m2" in str(hp.DeviceMesh("m2", (2,)).add_to(m))
                m.verify()
                print("built")
        except ValueError as e:
            print("refused" if "taken before Module.run" in str(e) else e)
        finally:
            _hp.set_location_provider(None)
        print("ran", ran == [[]])
        """)
    expected = "built" if builder in ("add_function", "add_mesh") else "refused"
    assert out.split() == [expected, "ran", "True"], out


def test_set_location_provider_takes_none():
    out = run_snippet("""
        _hp.set_location_provider(None)
        m = hp.Module.create(hp.Context())
        hp.add_op(hp.add_function(m, "f", [], []), "func.return", [], [])
        _hp.set_location_provider(hp._caller_location)
        m.verify()
        print("ok")
        """)
    assert out.split() == ["ok"]


def test_no_string_ref_into_a_temporary():
    # An MlirStringRef into a temporary std::string dangles once the
    # statement ends; mlirOperationStateGet keeps it until
    # mlirOperationCreate (ASan: stack-use-after-scope). HPModule.h deletes
    # toRef's overloads for temporaries and literals so that the compiler
    # refuses them in every file of the extension; this checks that they
    # stay deleted and that no file passes a literal.
    import re
    here = pathlib.Path(__file__).parents[1]
    header = (here / "HPModule.h").read_text()
    assert "MlirStringRef toRef(std::string &&) = delete;" in header
    assert "MlirStringRef toRef(const char *) = delete;" in header
    sources = sorted(here.glob("HP*.cpp"))
    assert len(sources) >= 3
    for path in sources:
        assert '#include "HPModule.h"' in path.read_text()
        assert not re.search(r'toRef\("', path.read_text()), path


# Calls hp.run on argv[1] (a Module, so hp.run writes a file of its own).
RUN_IN_CHILD = """
import sys, hp
hp.run(hp.Module.parse(hp.Context(), sys.argv[1]), np=2, timeout=None)
"""


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_that_ends_python_ends_the_job_and_removes_its_files(tmp_path, sig):
    status, left, files = signal_during_a_run(tmp_path, RUN_IN_CHILD, [SPIN_PROGRAM], sig)
    # Python still ends by the signal, as it would have without hp.
    assert status == -sig
    assert left == []
    assert files == []


# The caller's own handler (it raises) keeps working during the run; the
# job ends and the handler is the caller's again afterwards.
OWN_HANDLER_IN_CHILD = """
import signal, sys, hp
class Stop(Exception):
    pass
def handler(signum, frame):
    raise Stop()
signal.signal(signal.SIGTERM, handler)
try:
    hp.run(hp.Module.parse(hp.Context(), sys.argv[1]), np=2, timeout=None)
except Stop:
    assert signal.getsignal(signal.SIGTERM) is handler
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_DFL
    sys.exit(7)
"""


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
def test_the_callers_signal_handler_is_kept(tmp_path):
    status, left, files = signal_during_a_run(tmp_path, OWN_HANDLER_IN_CHILD,
                                              [SPIN_PROGRAM], signal.SIGTERM)
    assert (status, left, files) == (7, [], [])


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
def test_run_from_another_thread(tmp_path):
    # Only the main thread may set signal handlers: elsewhere run() leaves
    # them alone and still runs.
    import threading
    path = tmp_path / "p.mlir"
    path.write_text(PRINT_PROGRAM)
    got = []
    worker = threading.Thread(target=lambda: got.append(hp.run(str(path))))
    worker.start()
    worker.join()
    assert got == [["42\n"]]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_handlers_are_put_back_after_a_run(tmp_path):
    # In the main thread run() installs its handlers for the job only: after
    # a run that succeeds and one that fails, the defaults are back and no
    # signal is held or pending.
    path = tmp_path / "p.mlir"
    path.write_text(PRINT_PROGRAM)
    bad = tmp_path / "bad.mlir"
    bad.write_text(ASSERT_PROGRAM)
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    assert hp.run(str(path)) == ["42\n"]
    with pytest.raises(hp.RunError):
        hp.run(str(bad))
    assert {s: signal.getsignal(s) for s in before} == before
    state = hp._JobSignals
    assert (state._depth, state._held, state._pending, state._installed) == (0, 0, None, {})


ASSERT_PROGRAM = """
func.func @main() {
  %c = arith.constant 7 : i64
  vector.print %c : i64
  %f = arith.constant false
  cf.assert %f, "index must be smaller than dim size"
  return
}
"""

OUT_OF_BOUNDS_PROGRAM = """
func.func @main() {
  %m = memref.alloc() : memref<4xi32>
  %i = arith.constant 7 : index
  %v = memref.load %m[%i] : memref<4xi32>
  vector.print %v : i32
  return
}
"""


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
@pytest.mark.parametrize("program, args, text", [
    (ASSERT_PROGRAM, [], "index must be smaller than dim size"),
    (OUT_OF_BOUNDS_PROGRAM, ["--check-bounds"], "out-of-bounds access")])
def test_run_error_holds_the_programs_own_failure_text(tmp_path, program, args, text):
    # The program prints its failure on its standard output (MLIR's
    # cf.assert lowering): the message must hold it, not only the signal.
    path = tmp_path / "p.mlir"
    path.write_text(program)
    with pytest.raises(hp.RunError) as failure:
        hp.run(str(path), np=2, extra_args=args)
    assert "SIGABRT" in str(failure.value)
    assert text in str(failure.value)
