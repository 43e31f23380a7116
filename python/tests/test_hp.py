"""pytest suite of hp's Python module: parse and print, pipelines and their
diagnostics, placements with hyper_parallel's reprs, meshes, DTensor types
and local_region construction."""

import shutil

import pytest

import hp

TP_REDISTRIBUTE = """
dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @f(%x: !dtensor.tensor<8x6xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x6xf32, @tp, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x6xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x6xf32, @tp, [replicate]>
  return %r : !dtensor.tensor<8x6xf32, @tp, [replicate]>
}
"""


@pytest.fixture()
def ctx():
    return hp.Context()


def test_placement_reprs_mirror_hyper_parallel():
    assert repr(hp.Shard(0)) == "S(0)"
    assert repr(hp.Replicate()) == "R"
    assert repr(hp.Partial()) == "P"
    assert repr(hp.Partial("max")) == "P(max)"
    assert hp.Shard(1) == hp.Shard(1) and hp.Shard(1) != hp.Shard(0)
    assert hp.Shard(2).is_shard() and hp.Shard(2).is_shard(2) and not hp.Shard(2).is_shard(1)
    assert hp.Partial("avg").is_partial() and hp.Replicate().is_replicate()
    with pytest.raises(ValueError, match="unknown reduction 'xor'"):
        hp.Partial("xor")
    # The names come from the dialect's enum through the C API.
    assert hp.Partial.OPS == ("sum", "avg", "max", "min", "prod")
    with pytest.raises(ValueError, match="non-negative"):
        hp.Shard(-1)


def test_placement_attributes(ctx):
    assert str(hp.Shard(1).to_mlir(ctx)) == "#dtensor.shard<1>"
    assert str(hp.Replicate().to_mlir(ctx)) == "#dtensor.replicate"
    assert str(hp.Partial("prod").to_mlir(ctx)) == "#dtensor.partial<prod>"


def test_device_mesh(ctx):
    mesh = hp.DeviceMesh("mesh", (2, 4), ("dp", "tp"))
    assert mesh.ndim == 2 and mesh.size() == 8 and mesh.size(1) == 4
    assert repr(mesh) == "DeviceMesh(mesh: dp=2, tp=4)"
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    assert 'dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]' in str(module)
    assert hp.DeviceMesh("m", (3,)).mesh_dim_names == ("d0",)
    with pytest.raises(ValueError, match="mesh has 1 names for 2 dimensions"):
        hp.DeviceMesh("m", (2, 2), ("a",))


def test_dtensor_type_and_local_type(ctx):
    mesh = hp.DeviceMesh("mesh", (4, 2), ("dp", "tp"))
    t = hp.dtensor_type(ctx, (10, 8), "f32", mesh, [hp.Shard(0), hp.Replicate()])
    assert str(t) == "!dtensor.tensor<10x8xf32, @mesh, [shard<0>, replicate]>"
    assert t.is_dtensor
    # torch.chunk: 10 rows over 4 are 3, 3, 3, 1, so the local dim is dynamic.
    assert str(hp._hp.local_type(t, [4, 2])) == "tensor<?x8xf32>"
    with pytest.raises(ValueError, match="placements for a mesh of rank 2"):
        hp.dtensor_type(ctx, (10, 8), "f32", mesh, [hp.Shard(0)])
    with pytest.raises(ValueError, match="shard dim 3 is out of range for a tensor of rank 2"):
        hp.dtensor_type(ctx, (10, 8), "f32", mesh, [hp.Shard(3), hp.Replicate()])
    # The element type by its name (built, not parsed) or as an hp.Type.
    for name in ("f16", "bf16", "f64", "i8", "i32", "i64"):
        t = hp.dtensor_type(ctx, (2,), name, hp.DeviceMesh("m1", (2,)), [hp.Shard(0)])
        assert str(t) == f"!dtensor.tensor<2x{name}, @m1, [shard<0>]>"
    f8 = hp.Type.parse(ctx, "f8E4M3FN")
    t = hp.dtensor_type(ctx, (2,), f8, hp.DeviceMesh("m1", (2,)), [hp.Replicate()])
    assert str(t) == "!dtensor.tensor<2xf8E4M3FN, @m1, [replicate]>"
    with pytest.raises(ValueError, match="element type 'i16' is not one a DTensor can hold"):
        hp.dtensor_type(ctx, (2,), "i16", hp.DeviceMesh("m1", (2,)), [hp.Shard(0)])
    with pytest.raises(ValueError, match="element type must be one of f16, .* got 'tensor<2xf32>'"):
        hp.dtensor_type(ctx, (2,), "tensor<2xf32>", mesh, [hp.Shard(0), hp.Replicate()])
    with pytest.raises(TypeError, match="element type must be an hp.Type or a name"):
        hp.dtensor_type(ctx, (2,), 32, mesh, [hp.Shard(0), hp.Replicate()])


def test_parse_print_and_pipeline(ctx):
    module = hp.Module.parse(ctx, TP_REDISTRIBUTE)
    assert "dtensor.redistribute" in str(module)
    module.run("hp-partition")
    text = str(module)
    assert "shard.all_gather" in text
    assert "#dtensor.sharding<@tp, [shard<0>], global = [8, 6]>" in text
    assert "dtensor.redistribute" not in text


def test_parse_error_is_an_exception_with_the_diagnostic(ctx):
    with pytest.raises(ValueError) as err:
        hp.Module.parse(ctx, "dtensor.mesh @m shape = [2, 0]")
    assert "mesh dim 1 has size 0; sizes must be >= 1" in str(err.value)


def test_failing_pass_reports_its_diagnostic(ctx):
    module = hp.Module.parse(ctx, """
dtensor.mesh @m shape = [2]
func.func @f(%x: !dtensor.tensor<?xf32, @m, [shard<0>]>) -> !dtensor.tensor<?xf32, @m, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<?xf32, @m, [shard<0>]> -> !dtensor.tensor<?xf32, @m, [replicate]>
  return %r : !dtensor.tensor<?xf32, @m, [replicate]>
}
""")
    with pytest.raises(ValueError) as err:
        module.run("convert-dtensor-to-shard")
    assert "cannot lower a redistribute of a dynamic global shape" in str(err.value)
    with pytest.raises(ValueError, match="invalid pass pipeline"):
        module.run("no-such-pass")


def test_build_local_region(ctx):
    mesh = hp.DeviceMesh("tp", (2,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    global_t = hp.dtensor_type(ctx, (8, 4), "f32", mesh, [hp.Shard(0)])
    replicated = hp.dtensor_type(ctx, (8, 4), "f32", mesh, [hp.Replicate()])
    bias_t = hp.Type.parse(ctx, "tensor<4xf32>")
    entry = hp.add_function(module, "f", [global_t, bias_t], [replicated])
    x, bias = entry.arguments
    region, body = hp.local_region(
        ctx, entry, mesh, args=[(x, "hidden_states"), (bias, "bias")],
        results=[replicated],
        in_placements={"hidden_states": [hp.Replicate()], "optional": None},
        out_placements=[hp.Replicate()], redistribute_inputs=True)
    local, b = body.arguments
    # The body sees the declared (replicated) layout: the full 8x4 block.
    assert str(local.type) == "tensor<8x4xf32>"
    assert str(b.type) == "tensor<4xf32>"
    doubled = hp.add_op(body, "arith.addf", [local, local], [local.type])
    hp.yield_(body, doubled.results)
    hp.add_op(entry, "func.return", region.results, [])
    module.verify()
    text = str(module)
    assert 'args(%arg0 as "hidden_states", %arg1 as "bias")' in text
    assert "in_placements = {hidden_states = [replicate], optional = none}" in text
    assert "out_placements = [replicate] redistribute_inputs" in text
    module.run("hp-partition")
    assert "shard.all_gather" in str(module)


def test_build_global_region(ctx):
    mesh = hp.DeviceMesh("tp", (2,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    sharded = hp.dtensor_type(ctx, (8, 4), "f32", mesh, [hp.Shard(0)])
    entry = hp.add_function(module, "f", [sharded], [sharded])
    (x,) = entry.arguments

    def body(block, whole):
        # The body sees the global tensor, not a block.
        assert str(whole.type) == "tensor<8x4xf32>"
        pinned = hp.constrain(ctx, block, whole, mesh, [hp.Replicate()])
        return hp.add_op(block, "arith.addf", [pinned.results[0]] * 2,
                         [whole.type]).results

    region, _ = hp.global_region(entry, mesh, [x], [sharded], body=body)
    hp.add_op(entry, "func.return", region.results, [])
    module.verify()
    text = str(module)
    assert "dtensor.global_region on @tp args(%arg0)" in text
    assert "dtensor.constrain %arg1 [replicate] : tensor<8x4xf32>" in text
    module.run("hp-partition")
    # Propagation adds each rank's block: the gather the constraint asks for
    # and the chunk back to a block cancel.
    assert "shard.all_gather" not in str(module)
    assert "arith.addf %arg0, %arg0 : tensor<4x4xf32>" in str(module)
    assert "global_region" not in str(module)


def test_global_region_builders_refuse_bad_input(ctx):
    mesh = hp.DeviceMesh("tp", (2,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    sharded = hp.dtensor_type(ctx, (8, 4), "f32", mesh, [hp.Shard(0)])
    entry = hp.add_function(module, "f", [sharded], [])
    (x,) = entry.arguments
    with pytest.raises(TypeError):
        hp.global_region(entry, "tp", [x], [])
    _, body = hp.global_region(entry, mesh, [x], [])
    (whole,) = body.arguments
    with pytest.raises(ValueError):
        hp.constrain(ctx, body, whole, mesh, [hp.Replicate(), hp.Replicate()])
    with pytest.raises(ValueError):  # a DTensor is not a global tensor
        hp.constrain(ctx, entry, x, mesh, [hp.Replicate()])


def test_empty_in_placements_key_is_refused(ctx):
    # The text parser refuses it; a builder can make it, and the verifier
    # refuses it then (its generic form would not re-parse).
    mesh = hp.DeviceMesh("tp", (2,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    global_t = hp.dtensor_type(ctx, (8, 4), "f32", mesh, [hp.Shard(0)])
    entry = hp.add_function(module, "f", [global_t], [])
    region, body = hp.local_region(
        ctx, entry, mesh, args=[(entry.arguments[0], "x")], results=[],
        in_placements={"": None})
    hp.yield_(body, [])
    hp.add_op(entry, "func.return", [], [])
    with pytest.raises(ValueError, match="in_placements keys must not be empty"):
        module.verify()


def test_contract_violation_is_reported(ctx):
    mesh = hp.DeviceMesh("tp", (2,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    sharded = hp.dtensor_type(ctx, (8,), "f32", mesh, [hp.Shard(0)])
    entry = hp.add_function(module, "f", [sharded], [])
    (x,) = entry.arguments
    _, body = hp.local_region(ctx, entry, mesh, args=[(x, "x")], results=[],
                              in_placements={"x": [hp.Replicate()]})
    hp.yield_(body, [])
    hp.add_op(entry, "func.return", [], [])
    with pytest.raises(ValueError) as err:
        module.verify()
    assert "set redistribute_inputs to redistribute it at entry" in str(err.value)


def test_documented_example_runs():
    """docs/Embedding.md shows python/examples/build_and_partition.py."""
    import pathlib
    import subprocess
    import sys
    example = pathlib.Path(__file__).parents[1] / "examples" / "build_and_partition.py"
    out = subprocess.run([sys.executable, str(example)], capture_output=True, text=True,
                         check=True).stdout
    assert "shard.all_gather" in out
    assert "func.func @f(%arg0: tensor<4x8xf32>" in out


def test_local_call_shares_a_local_function(ctx):
    # The seed's local_region(func, device_mesh=..., ...) over a named
    # func.func: two call sites of one local function.
    mesh = hp.DeviceMesh("tp", (4,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    local_t = hp.Type.parse(ctx, "tensor<2x8xf32>")
    f32 = hp.Type.parse(ctx, "f32")
    body = hp.add_function(module, "scale", [local_t, f32], [local_t],
                           arg_names=["x", "scale"])
    x, s = body.arguments
    splat = hp.add_op(body, "tensor.splat", [s], [local_t])
    y = hp.add_op(body, "arith.mulf", [x, splat.results[0]], [local_t])
    hp.add_op(body, "func.return", y.results, [])

    sharded = hp.dtensor_type(ctx, (8, 8), "f32", mesh, [hp.Shard(0)])
    replicated = hp.dtensor_type(ctx, (8, 8), "f32", mesh, [hp.Replicate()])
    entry = hp.add_function(module, "f", [sharded, replicated, f32], [sharded, sharded])
    a, r, k = entry.arguments
    scale = hp.local_call("scale", mesh, in_placements={"x": [hp.Shard(0)]},
                          out_placements=[hp.Shard(0)], redistribute_inputs=True)
    first = scale(ctx, entry, a, k, results=[sharded])
    second = scale(ctx, entry, r, k, results=[sharded])
    hp.add_op(entry, "func.return", first.results + second.results, [])
    module.verify()
    text = str(module)
    assert 'func.func @scale(%arg0: tensor<2x8xf32> {dtensor.arg_name = "x"}' in text
    assert text.count("dtensor.local_call @scale(") == 2
    assert "in_placements = {x = [shard<0>]} out_placements = [shard<0>] redistribute_inputs" in text
    module.run("hp-partition")
    lowered = str(module)
    assert lowered.count("call @scale(") == 2
    assert "shard.all_slice" in lowered  # the replicated operand, at entry


RUN_PROGRAM = """
dtensor.mesh @m shape = [2]
func.func @main() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %x = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = dtensor.from_local %x : tensor<4xf32> -> !dtensor.tensor<4xf32, @m, [replicate]>
  %s = dtensor.redistribute %d : !dtensor.tensor<4xf32, @m, [replicate]> -> !dtensor.tensor<4xf32, @m, [shard<0>]>
  %l = dtensor.to_local %s : !dtensor.tensor<4xf32, @m, [shard<0>]> -> tensor<2xf32>
  %v = vector.transfer_read %l[%c0], %f0 : tensor<2xf32>, vector<2xf32>
  vector.print %v : vector<2xf32>
  return
}
"""


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
def test_run_returns_each_ranks_output(ctx, tmp_path):
    module = hp.Module.parse(ctx, RUN_PROGRAM)
    outputs = hp.run(module, np=2)
    assert [o.strip() for o in outputs] == ["( 1, 2 )", "( 3, 4 )"]
    path = tmp_path / "p.mlir"
    path.write_text(RUN_PROGRAM)
    assert hp.run(str(path), np=2) == outputs


@pytest.mark.skipif(shutil.which("mpirun") is None, reason="needs Open MPI")
def test_run_raises_with_each_ranks_errors(ctx):
    # Launched on 1 rank, the 2-device mesh fails on every rank with hp's message.
    module = hp.Module.parse(ctx, RUN_PROGRAM)
    with pytest.raises(hp.RunError, match="grid @m has 2 devices but the job has 1 ranks"):
        hp.run(module, np=1)


def test_remarks_and_warnings_reach_python_with_locations(ctx):
    module = hp.Module.parse(ctx, """
dtensor.mesh @m shape = [2]
func.func @f(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate]>
  return %r : !dtensor.tensor<8xf32, @m, [replicate]>
}
""", filename="model.mlir")
    diagnostics = module.run("hp-partition{print-plans}")
    plans = [d for d in diagnostics if "remark: plan [S(0)] -> [R]" in d]
    assert plans and plans[0].startswith("model.mlir:4:")
    assert module.verify() == []


def test_diagnostics_at_named_call_site_and_fused_locations(ctx):
    # hp.torch names each op's location after its torch op, around the
    # user's line: diagnostics print that line and the name, whatever wraps
    # it (a call site's callee, a fusion's first located part).
    module = hp.Module.parse(ctx, """
dtensor.mesh @m shape = [2]
func.func @f(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> (!dtensor.tensor<8xf32, @m, [replicate]>, !dtensor.tensor<8xf32, @m, [replicate]>) {
  %r = dtensor.redistribute %x : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate]> loc("aten.relu.default"("model.py":12:0))
  %s = dtensor.redistribute %x : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate]> loc(fused[unknown, callsite("aten.add.Tensor"("lib.py":3:0) at "model.py":20:0)])
  return %r, %s : !dtensor.tensor<8xf32, @m, [replicate]>, !dtensor.tensor<8xf32, @m, [replicate]>
}
""")
    copy = module.clone()
    remarks = copy.run("hp-partition{print-plans}")
    assert any(r.startswith("model.py:12:0: remark: aten.relu.default: plan [S(0)] -> [R]")
               for r in remarks), remarks
    assert any(r.startswith("lib.py:3:0: remark: aten.add.Tensor: plan [S(0)] -> [R]")
               for r in remarks), remarks
    # The copy ran the pipeline; the original still holds its redistributes.
    assert "dtensor.redistribute" in str(module)
    assert "dtensor.redistribute" not in str(copy)


def test_parse_errors_name_the_file(ctx):
    with pytest.raises(ValueError, match="model.mlir:1:"):
        hp.Module.parse(ctx, "func.func @f( {", filename="model.mlir")


def test_redistribute_from_local_to_local_builders(ctx):
    mesh = hp.DeviceMesh("tp", (2,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    local_t = hp.Type.parse(ctx, "tensor<4xf32>")
    half_t = hp.Type.parse(ctx, "tensor<2xf32>")
    replicated = hp.dtensor_type(ctx, (4,), "f32", mesh, [hp.Replicate()])
    sharded = hp.dtensor_type(ctx, (4,), "f32", mesh, [hp.Shard(0)])
    entry = hp.add_function(module, "f", [local_t], [half_t])
    d = hp.from_local(entry, entry.arguments[0], replicated)
    s = hp.redistribute(entry, d, sharded)
    l = hp.to_local(entry, s, half_t)
    hp.add_op(entry, "func.return", [l], [])
    module.verify()
    text = str(module)
    assert "dtensor.redistribute" in text and "dtensor.to_local" in text
    module.run("hp-partition")
    assert "shard.all_slice" in str(module)
    # A wrong local type is the verifier's error.
    bad = hp.Module.create(ctx)
    mesh.add_to(bad)
    e2 = hp.add_function(bad, "g", [local_t], [])
    hp.from_local(e2, e2.arguments[0], sharded)
    hp.add_op(e2, "func.return", [], [])
    with pytest.raises(ValueError, match="does not match the local type"):
        bad.verify()


def test_local_region_body_from_a_callback(ctx):
    mesh = hp.DeviceMesh("tp", (2,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    sharded = hp.dtensor_type(ctx, (8,), "f32", mesh, [hp.Shard(0)])
    entry = hp.add_function(module, "f", [sharded], [sharded])

    def double(body, x):
        return hp.add_op(body, "arith.addf", [x, x], [x.type]).results[0]

    region, _ = hp.local_region(ctx, entry, mesh, args=[(entry.arguments[0], "x")],
                                results=[sharded], out_placements=[hp.Shard(0)],
                                body=double)
    hp.add_op(entry, "func.return", region.results, [])
    module.verify()
    assert "arith.addf %arg1, %arg1 : tensor<4xf32>" in str(module)
    assert "dtensor.yield" in str(module)


def test_ops_built_from_python_carry_the_building_line(ctx):
    import inspect
    mesh = hp.DeviceMesh("tp", (2,), ("tp",))
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    local_t = hp.Type.parse(ctx, "tensor<4xf32>")
    sharded = hp.dtensor_type(ctx, (4,), "f32", mesh, [hp.Shard(0)])
    entry = hp.add_function(module, "g", [local_t], [])
    line = inspect.currentframe().f_lineno + 1
    hp.from_local(entry, entry.arguments[0], sharded)  # wrong local type
    hp.add_op(entry, "func.return", [], [])
    with pytest.raises(ValueError) as error:
        module.verify()
    assert f"test_hp.py:{line}:1: error:" in str(error.value)
    assert "does not match the local type" in str(error.value)

    # print-plans remarks point at the redistribute's line as well.
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    replicated = hp.dtensor_type(ctx, (4,), "f32", mesh, [hp.Replicate()])
    entry = hp.add_function(module, "f", [replicated], [sharded])
    line = inspect.currentframe().f_lineno + 1
    s = hp.redistribute(entry, entry.arguments[0], sharded)
    hp.add_op(entry, "func.return", [s], [])
    remarks = module.run("hp-partition{print-plans}")
    assert any(f"test_hp.py:{line}:1: remark: plan [R] -> [S(0)]" in r for r in remarks), remarks


def test_strided_shard_fsdp_over_tp(ctx):
    """torch's _StridedShard: the FSDP-over-TP layout, its attribute, its
    rules, and one permute back to the default nesting."""
    assert repr(hp.StridedShard(0, 4)) == "SS(0, 4)"
    assert hp.StridedShard(0, 4) != hp.Shard(0) and hp.Shard(0) != hp.StridedShard(0, 4)
    assert hp.StridedShard(0, 4).is_shard(0)
    assert str(hp.StridedShard(1, 2).to_mlir(ctx)) == "#dtensor.strided_shard<1, 2>"
    with pytest.raises(ValueError, match="at least 1"):
        hp.StridedShard(0, 0)
    mesh = hp.DeviceMesh("m", (2, 4), ("dp", "tp"))
    fsdp = hp.dtensor_type(ctx, (16, 8), "f32", mesh, [hp.StridedShard(0, 4), hp.Shard(0)])
    assert str(fsdp) == "!dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>"
    assert str(hp._hp.local_type(fsdp, [2, 4])) == "tensor<2x8xf32>"
    default = hp.dtensor_type(ctx, (16, 8), "f32", mesh, [hp.Shard(0), hp.Shard(0)])
    module = hp.Module.create(ctx)
    mesh.add_to(module)
    entry = hp.add_function(module, "f", [fsdp], [default])
    r = hp.redistribute(entry, entry.arguments[0], default)
    hp.add_op(entry, "func.return", [r], [])
    module.verify()
    remarks = module.run("convert-dtensor-to-shard{print-plans verify-plans latency-bytes=0}")
    assert any("permute" in str(r) and "64 B sent per rank" in str(r) for r in remarks)
    assert "shard.send" in str(module) and "shard.all_gather" not in str(module)
    # The split factor must be the later tp size.
    bad = hp.Module.create(ctx)
    mesh.add_to(bad)
    wrong = hp.dtensor_type(ctx, (16, 8), "f32", mesh, [hp.StridedShard(0, 2), hp.Shard(0)])
    hp.add_function(bad, "g", [wrong], [])
    with pytest.raises(ValueError, match="needs split factor 4"):
        bad.verify()


ANNOTATE = """
dtensor.mesh @tp shape = [2]
func.func @f(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %e = tensor.empty() : tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %n = arith.negf %m : tensor<8x32xf32>
  return %n, %m : tensor<8x32xf32>, tensor<8x32xf32>
}
"""


def test_annotate_a_function_for_dtensor_globalize(ctx):
    # What hp.torch does with torch-mlir's output, through the bindings.
    module = hp.Module.parse(ctx, ANNOTATE)
    fn = module.lookup("f")
    assert fn.name == "func.func"
    fn.set_attribute("dtensor.mesh", hp.Attribute.parse(ctx, "@tp"))
    fn.set_arg_attribute(1, "dtensor.placements", hp.Attribute.parse(ctx, "[#dtensor.shard<1>]"))
    fn.set_result_attribute(0, "dtensor.placements", hp.Attribute.parse(ctx, "[#dtensor.shard<1>]"))
    fn.set_result_attribute(1, "dtensor.constrain", hp.Attribute.parse(ctx, "[#dtensor.shard<1>]"))
    module.run("builtin.module(dtensor-globalize)")
    text = str(module)
    assert "func.func @f(%arg0: !dtensor.tensor<8x16xf32, @tp, [replicate]>, " \
           "%arg1: !dtensor.tensor<16x32xf32, @tp, [shard<1>]>) -> " \
           "!dtensor.tensor<8x32xf32, @tp, [shard<1>]>" in text
    assert "dtensor.constrain" in text
    # The program is placed as annotated: the column split needs no collective.
    assert hp.collectives(module) == {"counts": {}, "bytes": 0}


def test_annotation_bindings_refuse_bad_input(ctx):
    module = hp.Module.parse(ctx, ANNOTATE)
    with pytest.raises(KeyError, match="no symbol @g"):
        module.lookup("g")
    fn = module.lookup("f")
    mesh = module.lookup("tp")
    attr = hp.Attribute.parse(ctx, "[#dtensor.replicate]")
    # Inherent attributes cannot be replaced (function_type read as a type
    # afterwards would crash).
    for name in ("function_type", "sym_name", "", ".x", "x."):
        with pytest.raises(ValueError, match="not a dialect attribute name"):
            fn.set_attribute(name, attr)
    with pytest.raises(ValueError, match="for func.func, not dtensor.mesh"):
        mesh.set_arg_attribute(0, "dtensor.placements", attr)
    with pytest.raises(IndexError, match="argument 2 of a function with 2"):
        fn.set_arg_attribute(2, "dtensor.placements", attr)
    with pytest.raises(IndexError, match="result -1 of a function with 2"):
        fn.set_result_attribute(-1, "dtensor.placements", attr)
    with pytest.raises(ValueError, match="must not be empty"):
        fn.set_arg_attribute(0, "", attr)
    with pytest.raises(ValueError, match="different hp.Context"):
        fn.set_attribute("dtensor.mesh", hp.Attribute.parse(hp.Context(), "@tp"))
    module.run("builtin.module(canonicalize)")
    with pytest.raises(ValueError, match="taken before Module.run"):
        fn.set_attribute("dtensor.mesh", attr)


def test_collectives_count_kinds_and_ring_bytes(ctx):
    # A [shard<0>] -> [replicate] f32 8-vector on 2 ranks is one all_gather
    # sending half of its 32-byte result.
    from test_robustness import MESH_PROGRAM
    assert hp.collectives(hp.Module.parse(ctx, MESH_PROGRAM)) == {
        "counts": {"all_gather": 1}, "bytes": 16.0}
    assert hp.collectives(MESH_PROGRAM, function="f")["counts"] == {"all_gather": 1}
    with pytest.raises(ValueError, match="no function @nothing in the module"):
        hp.collectives(MESH_PROGRAM, function="nothing")


PARTITIONED = """
shard.grid @g(shape = 2x4)
func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xi16>) {
  %0 = shard.all_gather %x on @g grid_axes = [1] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  %1 = shard.all_reduce %y on @g grid_axes = [0, 1] : tensor<4x8xi16> -> tensor<4x8xi16>
  %2 = shard.all_slice %0 on @g grid_axes = [1] slice_axis = 0 : tensor<16x8xf32> -> tensor<4x8xf32>
  return
}
"""


def test_partitioned_collectives_count_what_is_there(ctx):
    # Worked by hand: the all_gather sends 3/4 of its 16x8xf32 result (384
    # bytes), the all_reduce on all 8 ranks 2 * 7/8 of its 4x8xi16 operand
    # (112); the all_slice is local.
    expected = {"counts": {"all_gather": 1, "all_reduce": 1}, "bytes": 496.0}
    assert hp.partitioned_collectives(PARTITIONED) == expected
    assert hp.partitioned_collectives(hp.Module.parse(ctx, PARTITIONED), "f") == expected
    with pytest.raises(ValueError, match="no function @g in the module"):
        hp.partitioned_collectives(PARTITIONED, "g")
    with pytest.raises(ValueError, match="function '' is not a symbol name"):
        hp.partitioned_collectives(PARTITIONED, "")
    dynamic = PARTITIONED.replace("tensor<4x8xi16>", "tensor<?x8xi16>")
    assert hp.partitioned_collectives(dynamic)["bytes"] is None


def test_collective_bytes_sent_is_the_ring_formula():
    # n = 4, operand 100 bytes, result 400: worked by hand.
    assert hp.collective_bytes_sent("all_gather", 4, 100, 400) == 300
    assert hp.collective_bytes_sent("all_reduce", 4, 100, 100) == 150
    assert hp.collective_bytes_sent("reduce_scatter", 4, 100, 25) == 75
    assert hp.collective_bytes_sent("all_to_all", 4, 100, 100) == 75
    assert hp.collective_bytes_sent("send", 1, 100, 100) == 100
    assert hp.collective_bytes_sent("recv", 2, 100, 100) == 0
    assert hp.collective_bytes_sent("all_reduce", 1, 100, 100) == 0
    with pytest.raises(ValueError, match="unknown collective 'gossip'"):
        hp.collective_bytes_sent("gossip", 4, 1, 1)
    with pytest.raises(ValueError, match="at least one rank, got 0"):
        hp.collective_bytes_sent("all_gather", 0, 1, 1)
    for bad in (-1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="finite and >= 0"):
            hp.collective_bytes_sent("all_gather", 2, bad, 1)


IMPORT_SOURCE = """
dtensor.mesh @tp shape = [2]
func.func @forward(%x: !dtensor.tensor<4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<4xf32, @tp, [shard<0>]> {
  return %x : !dtensor.tensor<4xf32, @tp, [shard<0>]>
}
"""


def test_import_function_brings_a_function_and_its_mesh(ctx):
    # Into an empty module: the mesh comes along; into one that has the
    # same mesh: it is shared, not doubled.
    dest = hp.Module.create(ctx)
    source = hp.Module.parse(ctx, IMPORT_SOURCE)
    dest.import_function(source, "forward", "prefill")
    dest.import_function(source, "forward", "decode")
    text = str(dest)
    assert text.count("dtensor.mesh @tp") == 1
    assert "func.func @prefill" in text and "func.func @decode" in text
    dest.verify()
    assert "func.func @forward" in str(source)  # the source is unchanged


def test_import_function_errors(ctx):
    source = hp.Module.parse(ctx, IMPORT_SOURCE)
    dest = hp.Module.parse(ctx, IMPORT_SOURCE)
    with pytest.raises(ValueError, match="no function @absent"):
        dest.import_function(source, "absent", "x")
    with pytest.raises(ValueError, match="@forward is already in the module"):
        dest.import_function(source, "forward", "forward")
    other = hp.Module.parse(ctx, IMPORT_SOURCE.replace("[2]", "[4]").replace(
        "shard<0>", "replicate"))
    with pytest.raises(ValueError, match="@tp differs from the source module's mesh"):
        dest.import_function(other, "forward", "wide")
    calls = hp.Module.parse(ctx, """
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
""")
    with pytest.raises(ValueError, match="refers to @helper, which import does not bring"):
        dest.import_function(calls, "forward", "g")
    with pytest.raises(ValueError, match="another hp.Context"):
        dest.import_function(hp.Module.parse(hp.Context(), IMPORT_SOURCE), "forward", "h")
    assert "func.func @g" not in str(dest) and "@wide" not in str(dest)


def test_runtime_names_come_from_the_runtime_header(ctx):
    # The driver functions Python reserves (from _hp, which reads
    # hp/Runtime/Runtime.h) are exactly those dtensor-add-driver declares:
    # a session over a split argument, timed, declares all of them but the
    # clock, a timed run the clock.
    from hp import _runtime_abi as abi
    source = """
      dtensor.mesh @tp shape = [2]
      func.func @forward(%x: tensor<4xf32>, %w: !dtensor.tensor<4xf32, @tp, [shard<0>]>)
          -> tensor<4xf32> {
        return %x : tensor<4xf32>
      }"""
    declared = set()
    for options in ("session-inputs=1", "repeat=3"):
        module = hp.Module.parse(ctx, source)
        module.run(f"builtin.module(dtensor-add-driver{{{options}}})")
        declared |= {line.split("@")[1].split("(")[0] for line in str(module).splitlines()
                     if "func.func private @" in line}
    assert declared == set(abi.DRIVER_FUNCTIONS)
    assert (abi.argument_file(3), abi.argument_reference(3), abi.result_file(0)) == \
        ("arg3.bin", "arg3.ref", "result0.bin")
