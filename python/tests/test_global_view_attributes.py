"""The global view's attributes set through typed setters (no MLIR text),
and the diagnostics of placing it read by kind (no English)."""

import pytest

import hp

GLOBAL = """
dtensor.mesh @m shape = [2] names = ["x"]
func.func @forward(%w: tensor<8x4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = arith.addf %x, %x : tensor<4xf32>
  return %s, %s : tensor<4xf32>, tensor<4xf32>
}
"""


@pytest.fixture()
def ctx():
    return hp.Context()


def test_typed_setters_write_the_dialects_attributes(ctx):
    module = hp.Module.parse(ctx, GLOBAL)
    fn = module.lookup("forward")
    fn.set_mesh("m")
    fn.set_arg_placements(0, [hp.Shard(0).to_mlir(ctx)])
    # Any text is a name: quotes and backslashes need no escaping by the caller.
    fn.set_arg_name(0, 'layer."w"\\0')
    fn.set_arg_fsdp_axes(0, [0])
    fn.set_result_placements(0, [hp.Replicate().to_mlir(ctx)])
    fn.set_result_constrain(1, [hp.Shard(0).to_mlir(ctx)])
    module.verify()
    text = str(module)
    assert "dtensor.mesh = @m" in text
    assert 'dtensor.arg_name = "layer.\\22w\\22\\\\0"' in text
    assert "dtensor.fsdp_axes = array<i64: 0>" in text
    assert "dtensor.placements = [#dtensor.shard<0>]" in text
    assert "dtensor.placements = [#dtensor.replicate]" in text
    assert "dtensor.constrain = [#dtensor.shard<0>]" in text
    # The name survives a round trip through the printed module.
    again = hp.Module.parse(ctx, text)
    assert str(again) == text


def test_typed_setters_refuse_bad_slots_and_values(ctx):
    module = hp.Module.parse(ctx, GLOBAL)
    fn = module.lookup("forward")
    with pytest.raises(ValueError, match="argument 2 is out of range; the function has 2"):
        fn.set_arg_placements(2, [hp.Replicate().to_mlir(ctx)])
    with pytest.raises(ValueError, match="result -1 is out of range"):
        fn.set_result_constrain(-1, [hp.Replicate().to_mlir(ctx)])
    with pytest.raises(ValueError, match="entry #0 is .* not a placement"):
        fn.set_arg_placements(0, [hp.Attribute.parse(ctx, "1 : i64")])
    with pytest.raises(ValueError, match="name must not be empty"):
        fn.set_arg_name(0, "")
    with pytest.raises(ValueError, match="mesh name"):
        fn.set_mesh("not a symbol")
    mesh = module.lookup("m")
    with pytest.raises(ValueError, match="is not a function"):
        mesh.set_arg_fsdp_axes(0, [0])
    # The dialect's verifier checks what a setter cannot: axes that split
    # the argument.
    fn.set_mesh("m")
    fn.set_arg_name(0, "w")
    fn.set_arg_placements(0, [hp.Replicate().to_mlir(ctx)])
    fn.set_arg_fsdp_axes(0, [0])
    with pytest.raises(ValueError, match="fsdp_axes"):
        module.run("builtin.module(dtensor-globalize)")


PLACED = """
dtensor.mesh @m shape = [2] names = ["x"]
func.func @f(%p: !dtensor.tensor<8xf32, @m, [shard<0>]> {dtensor.arg_name = "layer.w"}, %n: index)
    -> (!dtensor.tensor<8xf32, @m, [replicate]>, !dtensor.tensor<8xf32, @m, [replicate]>) {
  %y, %z = dtensor.global_region on @m args(%p, %n) : (!dtensor.tensor<8xf32, @m, [shard<0>]>, index)
      -> (!dtensor.tensor<8xf32, @m, [replicate]>, !dtensor.tensor<8xf32, @m, [replicate]>) {
  ^bb0(%g: tensor<8xf32>, %gn: index):
    %c = dtensor.constrain %g [replicate] : tensor<8xf32>
    %z0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %z0 to %gn step %c1 iter_args(%acc = %c) -> (tensor<8xf32>) {
      %d = arith.addf %acc, %g : tensor<8xf32>
      scf.yield %d : tensor<8xf32>
    }
    dtensor.yield %c, %r : tensor<8xf32>, tensor<8xf32>
  }
  return %y, %z : !dtensor.tensor<8xf32, @m, [replicate]>, !dtensor.tensor<8xf32, @m, [replicate]>
}
"""


def test_placement_diagnostics_say_their_kind_op_and_parameter(ctx):
    module = hp.Module.parse(ctx, PLACED, filename="model.mlir")
    diagnostics = module.run("builtin.module(dtensor-propagate{warn-gather-named-args})")
    by_kind = {}
    for d in diagnostics:
        assert isinstance(d, hp.Diagnostic) and isinstance(d, str)
        by_kind.setdefault(d.kind, []).append(d)
    (loop,) = by_kind["runs-replicated"]
    assert loop.op == "scf.for" and loop.severity == "remark"
    assert loop.location.startswith("model.mlir:")
    gathers = by_kind["gathers-whole"]
    assert gathers and all(g.parameter == "layer.w" and g.severity == "warning"
                           for g in gathers)
    assert {g.op for g in gathers} <= {"dtensor.constrain", "scf.for"}
    # str() is the compiler's line; a pass's other remarks have no kind.
    assert str(loop) == f"{loop.location}: remark: {loop.message}"
    plain = hp.Module.parse(ctx, PLACED).run(
        "builtin.module(dtensor-propagate{print-strategies})")
    assert any(d.kind == "" and "dtensor-choose-strategies:" in d for d in plain)
