"""hp.torch: torch modules exported through torch-mlir, placed by torch's
parallel plans, run on 4 CPU ranks and compared with torch eager on one
device (rtol 1e-4, atol 1e-5); the collectives each plan makes; the errors
a user gets for a bad plan, placement, name or launch.

Run by scripts/test.sh in the environment scripts/torch-env.sh makes.
"""
import inspect
import os
import re
import signal
import subprocess
import sys
import warnings

import pytest
import torch
from torch.distributed.tensor import Shard as TorchShard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel

import hp
import hp.torch
import numerics  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import dp_tp_mlp  # noqa: E402
import hf_llama_layer  # noqa: E402
import llama_layer  # noqa: E402
import mlp  # noqa: E402
import vocab_parallel_loss  # noqa: E402

# python/tests' helpers for tests that end jobs.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from jobs import signal_during_a_run  # noqa: E402

TP4 = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))


def check_close(out, expected):
    numerics.check_close(out, expected, rtol=1e-4)


def forward_signature(prog):
    text = str(prog)
    return re.search(r"func\.func @forward\((.*?)\) ->", text).group(1)


@pytest.fixture(scope="module")
def mlp_model():
    torch.manual_seed(0)
    return mlp.MLP(), torch.randn(8, 32)


def test_mlp_column_row_plan(mlp_model):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN)
    # torch's meaning of the styles: Colwise splits weight and bias by
    # output features, Rowwise the weight by input features.
    sig = forward_signature(prog)
    assert re.findall(r"!dtensor\.tensor<[^[]*\[[^]]*\]>", sig) == [
        "!dtensor.tensor<8x32xf32, @tp, [replicate]>",
        "!dtensor.tensor<128x32xf32, @tp, [shard<0>]>",
        "!dtensor.tensor<128xf32, @tp, [shard<0>]>",
        "!dtensor.tensor<32x128xf32, @tp, [shard<1>]>",
        "!dtensor.tensor<32xf32, @tp, [replicate]>"]
    assert hp.torch.collectives(prog)["counts"] == {"all_reduce": 1}
    out = hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)
    check_close(out, model(x))


def test_params_in_five_lines(mlp_model):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4,
                           params={"up.weight": [hp.Shard(0)], "up.bias": [TorchShard(-1)],
                                   "down.weight": [TorchShard(-1)]},
                           inputs=[[hp.Shard(0)]], outputs=[[hp.Shard(0)]])
    sig = forward_signature(prog)
    assert "!dtensor.tensor<8x32xf32, @tp, [shard<0>]>" in sig
    assert "!dtensor.tensor<32x128xf32, @tp, [shard<1>]>" in sig   # Shard(-1)
    out = hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)
    check_close(out, model(x))


def test_export_places_once_and_later_pipelines_apply_its_choice(mlp_model):
    # The choice is made at export and kept in the program: every op the
    # region places carries a dtensor.strategy, and partitioning the program
    # again takes those (priced "as annotated"), choosing nothing.
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN)
    text = str(prog.module)
    assert text.count("dtensor.strategy = #dtensor.strategy<") >= 2  # the two matmuls
    said = prog.module.clone().run("builtin.module(hp-partition{print-strategies})")
    summaries = [d for d in said if "dtensor-choose-strategies:" in d]
    assert summaries and all("as annotated (dtensor.strategy)" in d for d in summaries)
    # The same collectives as the plan's (one all_reduce after the rows).
    assert hp.torch.collectives(prog)["counts"] == {"all_reduce": 1}


def test_no_plan_moves_nothing(mlp_model):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4)
    assert hp.torch.collectives(prog) == {"counts": {}, "bytes": 0}
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters())), model(x))


@pytest.fixture(scope="module")
def llama():
    torch.manual_seed(0)
    model = llama_layer.DecoderLayer()
    x = torch.randn(2, 16, 64)
    return model, x, model(x)


def test_llama_layer_tensor_parallel(llama):
    model, x, expected = llama
    prog = hp.torch.export(model, (x,), TP4, plan=llama_layer.TP_PLAN)
    # torch's TP plan: one all_reduce after the attention, one after the MLP.
    assert hp.torch.collectives(prog)["counts"] == {"all_reduce": 2}
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4), expected)


def test_llama_layer_sequence_parallel(llama):
    model, x, expected = llama
    prog = hp.torch.export(model, (x,), TP4, plan=llama_layer.TP_SP_PLAN,
                           inputs=[[hp.Shard(1)]], outputs=[[hp.Shard(1)]])
    text = str(prog)
    # SequenceParallel and PrepareModuleInput pin the norms' sequence shards.
    assert "dtensor.constrain" in text and "[shard<1>]" in text
    assert hp.torch.collectives(prog)["counts"] == {"all_gather": 2, "reduce_scatter": 2}
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4), expected)


def test_two_layers_sharing_a_mask_under_a_wildcard_plan():
    torch.manual_seed(0)

    class Stack(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = torch.nn.ModuleList([llama_layer.DecoderLayer() for _ in range(2)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    model = Stack()
    x = torch.randn(2, 16, 64)
    plan = {f"layers.*.{k}": v for k, v in llama_layer.TP_PLAN.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # nothing may run replicated
        prog = hp.torch.export(model, (x,), TP4, plan=plan)
    # The layers' causal masks are one i1 value after the import; each layer
    # gets its own copy to fuse, so both stay tensor parallel.
    assert hp.torch.collectives(prog)["counts"] == {"all_reduce": 4}
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4), model(x))


def test_ops_that_run_replicated_are_reported_at_export():
    class Rolled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = torch.nn.Linear(32, 64)

        def forward(self, x):
            y = self.up(x)
            # torch-mlir writes roll with a dynamic shape between its ops,
            # which no DTensor holds: the whole program runs replicated.
            return torch.roll(y, 1, 0)

    torch.manual_seed(0)
    model = Rolled()
    x = torch.randn(8, 32)
    with pytest.warns(UserWarning) as caught:
        prog = hp.torch.export(model, (x,), TP4, plan={"up": ColwiseParallel()})
    # At the user's line, naming the torch op and the value that forced it.
    line = inspect.getsourcelines(Rolled.forward)[1] + 4
    said = [str(w.message) for w in caught]
    assert any(f"{__file__}:{line}:0: remark: aten.roll.default: runs replicated" in m
               and "result #0 of 'tensor.cast' (tensor<?x64xf32>)" in m for m in said), said
    assert any(r.kind == "runs-replicated" and "runs replicated" in str(r)
               for r in prog.remarks)
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters())), model(x))


def test_transformers_llama_decoder_layer():
    torch.manual_seed(0)
    model = hf_llama_layer.make_layer()
    x = torch.randn(2, 16, 64)
    prog = hp.torch.export(model, (x,), TP4, plan=hf_llama_layer.PLAN)
    assert hp.torch.collectives(prog)["counts"] == {"all_reduce": 2}
    with torch.no_grad():
        expected = model(x)
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4), expected)


def test_dp_by_tp_block():
    torch.manual_seed(0)
    model = dp_tp_mlp.Block()
    x = torch.randn(8, 6, 32)
    mesh = hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp"))
    prog = hp.torch.export(model, (x,), mesh, plan=dp_tp_mlp.PLAN,
                           inputs=[[hp.Shard(0), hp.Replicate()]])
    # The output keeps the batch split on dp; the plan's all_reduce is on tp.
    assert "-> !dtensor.tensor<8x6x32xf32, @m, [shard<0>, replicate]>" in str(prog)
    assert hp.torch.collectives(prog)["counts"] == {"all_reduce": 1}
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4), model(x))


def test_vocab_parallel_loss_without_gathering_the_logits():
    torch.manual_seed(0)
    model = vocab_parallel_loss.HeadLoss()
    h, labels = vocab_parallel_loss.make_inputs()
    prog = hp.torch.export(model, (h, labels), TP4, plan=vocab_parallel_loss.PLAN)
    moved = hp.torch.collectives(prog)
    # torch's dispatch all_gathers the 8x16x512 f32 logits for log_softmax
    # (3/4 of 256 KiB per rank); hp moves less (one all_to_all under the
    # default costs).
    assert "all_gather" not in moved["counts"]
    assert moved["bytes"] < 3 / 4 * 8 * 16 * 512 * 4
    out = hp.torch.run(prog, (h, labels), dict(model.named_parameters()), np=4)
    check_close(out, model(h, labels))


def test_saved_program_runs_with_hp_runner(mlp_model, tmp_path):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN)
    path = tmp_path / "mlp.mlir"
    prog.save(path)
    prog.write_arguments(tmp_path, (x,), dict(model.named_parameters()))
    subprocess.run([hp._runner(), "-np", "4", str(path)], check=True, timeout=300,
                   env={**os.environ, "HP_TENSOR_DIR": str(tmp_path)})
    check_close(prog.read_results(tmp_path)[0], model(x))


def test_repeated_steps_give_the_same_result(mlp_model, tmp_path):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN)
    prog.save(tmp_path / "p.mlir", repeat=3)
    text = (tmp_path / "p.mlir").read_text()
    assert text.count("call @forward") == 3  # warm-up + timed loop + last
    assert text.count("call @rtclock") == 2
    out = hp.torch.run(prog, (x,), dict(model.named_parameters()), repeat=3)
    check_close(out, model(x))
    with pytest.raises(ValueError, match="repeat must be at least 1"):
        prog.save(tmp_path / "q.mlir", repeat=0)


def test_time_step_measures_inside_the_program(mlp_model):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN)
    params = dict(model.named_parameters())
    out, seconds = hp.torch.time_step(prog, (x,), params, steps=3)
    check_close(out, model(x))
    # A step of this MLP takes some microseconds to milliseconds; the
    # launch (about a second) must not be in it.
    assert 0 < seconds < 0.5
    with pytest.raises(ValueError, match="steps must be at least 2"):
        hp.torch.time_step(prog, (x,), params, steps=1)
    with pytest.raises(TypeError, match="expected an hp.torch.Program"):
        hp.torch.time_step("prog", (x,), params)


def test_new_parameter_values_are_used(mlp_model):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN)
    other = mlp.MLP()
    check_close(hp.torch.run(prog, (x,), dict(other.named_parameters())), other(x))


#===------------------------------------------------------------------------===#
# Errors
#===------------------------------------------------------------------------===#

def test_placement_that_does_not_fit(mlp_model):
    model, x = mlp_model
    with pytest.raises(ValueError, match=r"params\['up.weight'\]: Shard\(2\) does not fit "
                                         r"a tensor of rank 2"):
        hp.torch.export(model, (x,), TP4, params={"up.weight": [hp.Shard(2)]})
    with pytest.raises(ValueError, match=r"2 placements for a mesh of 1 dims"):
        hp.torch.export(model, (x,), TP4, params={"up.weight": [hp.Shard(0), hp.Shard(1)]})


def test_unknown_names_suggest_the_nearest(mlp_model):
    model, x = mlp_model
    with pytest.raises(ValueError, match=r"'up.wieght' matches no parameter or buffer of the "
                                         r"module \(did you mean 'up.weight'\?\)"):
        hp.torch.export(model, (x,), TP4, params={"up.wieght": [hp.Shard(0)]})
    with pytest.raises(ValueError, match=r"'dwn' matches no submodule .*did you mean 'down'"):
        hp.torch.export(model, (x,), TP4, plan={"dwn": RowwiseParallel()})
    prog = hp.torch.export(model, (x,), TP4)
    with pytest.raises(ValueError, match=r"did you mean 'down.bias'"):
        hp.torch.run(prog, (x,), {"down.bais": torch.zeros(32)})


def test_style_on_a_module_it_does_not_fit(mlp_model):
    model, x = mlp_model
    with pytest.raises(ValueError, match=r"ColwiseParallel applies to nn.Linear, "
                                         r"nn.Embedding and transformers' Conv1D, not MLP"):
        hp.torch.export(model, (x,), TP4, plan={"": ColwiseParallel()})


def test_mesh_bigger_than_np(mlp_model):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN)
    with pytest.raises(ValueError, match=r"has 4 devices but np=2"):
        hp.torch.run(prog, (x,), dict(model.named_parameters()), np=2)


def test_arguments_that_do_not_match_the_export(mlp_model):
    model, x = mlp_model
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN)
    params = dict(model.named_parameters())
    with pytest.raises(ValueError, match=r"input 0 is \(4, 32\) torch.float32; the program "
                                         r"was exported for \(8, 32\)"):
        hp.torch.run(prog, (x[:4],), params)
    with pytest.raises(ValueError, match=r"no value for parameter 'up.weight'"):
        hp.torch.run(prog, (x,), {})
    with pytest.raises(ValueError, match=r"takes 1 inputs, got 2"):
        hp.torch.run(prog, (x, x), params)


def test_bad_inputs_to_export(mlp_model):
    model, x = mlp_model
    with pytest.raises(TypeError, match="model must be a torch.nn.Module"):
        hp.torch.export(lambda t: t, (x,), TP4)
    with pytest.raises(TypeError, match="mesh must be an hp.DeviceMesh"):
        hp.torch.export(model, (x,), "tp")
    with pytest.raises(ValueError, match="dtype torch.complex64 is not one hp holds"):
        hp.torch.export(torch.nn.Identity(), (x.to(torch.complex64),), TP4)
    with pytest.raises(ValueError, match=r"inputs: 2 placement lists for 1 inputs"):
        hp.torch.export(model, (x,), TP4, inputs=[[hp.Shard(0)], [hp.Shard(0)]])


def test_non_persistent_buffers_and_tied_weights():
    class Tied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = torch.nn.Linear(16, 32, bias=False)
            self.out = torch.nn.Linear(32, 16, bias=False)
            self.out.weight = torch.nn.Parameter(self.tok.weight.detach().t().contiguous())
            self.back = torch.nn.Linear(16, 32, bias=False)
            self.back.weight = self.tok.weight          # tied: one tensor, two names
            self.register_buffer("scale", torch.full((32,), 0.5), persistent=False)

        def forward(self, x):
            return self.back(self.out(self.tok(x) * self.scale))

    torch.manual_seed(0)
    model = Tied()
    x = torch.randn(4, 16)
    # The plan names the tied weight by its second name.
    prog = hp.torch.export(model, (x,), TP4, plan={"back": ColwiseParallel()})
    assert "!dtensor.tensor<32x16xf32, @tp, [shard<0>]>" in forward_signature(prog)
    params = dict(model.named_parameters(remove_duplicate=False))
    check_close(hp.torch.run(prog, (x,), params), model(x))


def test_prepare_module_input_output_and_strided_shard():
    from torch.distributed.tensor import Replicate as TR
    from torch.distributed.tensor.parallel import PrepareModuleInputOutput
    from torch.distributed.tensor.placement_types import _StridedShard
    torch.manual_seed(0)
    model = mlp.MLP()
    x = torch.randn(8, 32)
    mesh = hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp"))
    prog = hp.torch.export(
        model, (x,), mesh,
        plan={"up": PrepareModuleInputOutput(input_layouts=TorchShard(0),
                                             desired_input_layouts=TR(),
                                             output_layouts=TR(),
                                             desired_output_layouts=TorchShard(0))},
        params={"down.weight": [_StridedShard(1, split_factor=2), TorchShard(1)]})
    assert "strided_shard<1, 2>" in str(prog)
    check_close(hp.torch.run(prog, (x,), dict(model.named_parameters())), model(x))


def test_what_cannot_be_exported_is_named():
    x = torch.randn(4, 8)

    class Writes(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.zeros(8))

        def forward(self, x):
            self.count.add_(1)
            return x + self.count

    with pytest.raises(ValueError, match="writes to an input or a buffer .*export it in eval"):
        hp.torch.export(Writes(), (x,), TP4)

    class Dropout(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.dropout(x, 0.5, training=True)

    with pytest.raises(ValueError, match="draws random numbers"):
        hp.torch.export(Dropout(), (x,), TP4)

    class IndexAdd(torch.nn.Module):
        def forward(self, x, i):
            return x.index_add(0, i, x)

    # index_add stays torch-mlir's tm_tensor.scatter, named.
    with pytest.raises(ValueError, match="tm_tensor.scatter.*\\(index_put, index_add"):
        hp.torch.export(IndexAdd(), (torch.randn(4, 3), torch.tensor([0, 1, 1, 3])), TP4)

    class NoTensor(torch.nn.Module):
        def forward(self, x):
            return x, None

    with pytest.raises(ValueError, match="output 1 is a NoneType"):
        hp.torch.export(NoTensor(), (x,), TP4)

    class Complex(torch.nn.Module):
        def forward(self, x):
            return x.to(torch.complex64)

    with pytest.raises(ValueError, match="output 0: dtype torch.complex64 is not one hp holds"):
        hp.torch.export(Complex(), (x,), TP4)


def test_bad_plans_meshes_and_launches(mlp_model):
    model, x = mlp_model
    with pytest.raises(TypeError, match="plan must be a dict"):
        hp.torch.export(model, (x,), TP4, plan=[ColwiseParallel()])
    with pytest.raises(TypeError, match="params must be a dict"):
        hp.torch.export(model, (x,), TP4, params=[("up.weight", [hp.Shard(0)])])
    with pytest.raises(TypeError, match="expected a list of placements"):
        hp.torch.export(model, (x,), TP4, inputs=[hp.Shard(0)])
    with pytest.raises(ValueError, match="'up' is matched by both 'u[*]' and 'up'"):
        hp.torch.export(model, (x,), TP4, plan={"u*": ColwiseParallel(), "up": RowwiseParallel()})
    with pytest.raises(ValueError, match="mesh name 'forward' is taken"):
        hp.torch.export(model, (x,), hp.DeviceMesh("forward", [4]))
    prog = hp.torch.export(model, (x,), hp.DeviceMesh("tp", [2]), plan=mlp.PLAN)
    with pytest.raises(ValueError, match="has 2 devices but np=4: a program runs with one "
                                         "rank per device"):
        hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)


def test_an_empty_batch_through_a_plan():
    torch.manual_seed(0)
    model = mlp.MLP()
    x = torch.randn(0, 32)
    prog = hp.torch.export(model, (x,), TP4, plan=mlp.PLAN, inputs=[[TorchShard(1)]])
    out = hp.torch.run(prog, (x,), dict(model.named_parameters()))
    assert out.shape == (0, 32)


# An MLP under the column/row plan on 2 ranks, its forward pass repeated
# until the signal comes.
RUN_IN_CHILD = """
import sys, torch, hp, hp.torch
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Linear(16, 8))
x = torch.randn(4, 8)
prog = hp.torch.export(model, (x,), hp.DeviceMesh("tp", [2], mesh_dim_names=("tp",)),
                       plan={"0": ColwiseParallel(), "1": RowwiseParallel()})
hp.torch.run(prog, (x,), dict(model.named_parameters()), timeout=None, repeat=10**9)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_that_ends_python_ends_the_job_and_removes_the_weights(tmp_path, sig):
    status, left, files = signal_during_a_run(tmp_path, RUN_IN_CHILD, [], sig, timeout=300)
    assert status == -sig
    assert left == []
    # hp's files are gone, the argument (weight) files' directory too;
    # torch's compile cache (torchinductor_<user>) is torch's.
    assert [f for f in files if not f.startswith("torchinductor_")] == []


class Lookup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(10, 4)

    def forward(self, ids):
        return self.table(ids)


def test_run_error_holds_the_programs_own_failure_text():
    # An index past the table: torch-mlir's assert fails on the ranks; its
    # text (on their standard output) must be in the message.
    torch.manual_seed(0)
    model = Lookup()
    ids = torch.tensor([1, 2, 3, 4])
    prog = hp.torch.export(model, (ids,), hp.DeviceMesh("tp", [2]))
    params = dict(model.named_parameters())
    check_close(hp.torch.run(prog, (ids,), params), model(ids))
    with pytest.raises(hp.RunError, match="index must be smaller than dim size"):
        hp.torch.run(prog, (torch.tensor([1, 2, 30, 4]),), params)


def test_one_tensor_given_for_two_inputs_stays_two_inputs():
    # torch.export traces one tensor passed twice as one input: exported so,
    # the program read the first input for both (a silent wrong number).
    class Difference(torch.nn.Module):
        def forward(self, x, y):
            return x - 2 * y

    x = torch.randn(4, 3)
    for example in ((x, x), (x, x[:])):
        prog = hp.torch.export(Difference(), example, hp.DeviceMesh("tp", [2]))
        a, b = torch.randn(4, 3), torch.randn(4, 3)
        check_close(hp.torch.run(prog, (a, b)), a - 2 * b)
