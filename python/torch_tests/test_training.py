"""hp.torch.Trainer: forward, backward and the optimizer's update as one
program on a session, against torch eager training on one device (same
initialisation, same batches): every step's loss and the final parameters
and optimizer state, 20 steps.

The matrix: the Llama-style layer of examples/torch/ (mean squared error)
and a tiny LlamaForCausalLM (one layer, next-token cross-entropy), each on tp=4, dp=4
(DDP), dp=4 (FSDP) and 2x2 dp x tp; SGD with momentum and weight decay and
AdamW alternate so that every mesh configuration runs with both optimizers
(bench/train_compare.py runs all sixteen). The layer also trains on 2x2 with
FSDP on dp (fsdp2tp2), whose parameters carry dtensor.fsdp_axes."""
import copy
import os
import re
import sys

import pytest
import torch
import torch.nn.functional as F

import hp
import hp.torch
from numerics import check_close  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "torch")
sys.path.insert(0, os.path.abspath(EXAMPLES))

import hf_causal_lm  # noqa: E402
import llama_layer  # noqa: E402

STEPS = 20
BATCH = 4


def layer_case():
    torch.manual_seed(0)
    model = llama_layer.DecoderLayer()

    def batch():
        return (torch.randn(BATCH, 16, 64),), (torch.randn(BATCH, 16, 64),)

    return model, lambda out, y: F.mse_loss(out, y), batch, llama_layer.TP_PLAN


def next_token_loss(out, labels):
    logits = out.logits
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1))


def causal_lm_case():
    torch.manual_seed(0)
    model = hf_causal_lm.make_model("llama", layers=1).train()

    def batch():
        ids = torch.randint(0, hf_causal_lm.VOCAB, (BATCH, 17))
        return (ids[:, :-1].contiguous(),), (ids[:, 1:].contiguous(),)

    return model, next_token_loss, batch, "auto"


def mesh_config(name, plan):
    """The mesh and the Trainer's placement arguments of a configuration."""
    if name == "tp4":
        return hp.DeviceMesh("m", [4], mesh_dim_names=("tp",)), dict(plan=plan)
    batch_split = dict(inputs=[[hp.Shard(0)]])
    if name == "ddp4":
        return hp.DeviceMesh("m", [4], mesh_dim_names=("dp",)), batch_split
    if name == "fsdp4":
        return hp.DeviceMesh("m", [4], mesh_dim_names=("dp",)), {**batch_split, "fsdp": "dp"}
    assert name in ("dp2tp2", "fsdp2tp2")
    fsdp = {"fsdp": "dp"} if name == "fsdp2tp2" else {}
    return hp.DeviceMesh("m", [2, 2], mesh_dim_names=("dp", "tp")), dict(
        plan=plan, plan_dim="tp", inputs=[[hp.Shard(0), hp.Replicate()]], **fsdp)


def optimizer(name, model):
    if name == "sgd":
        return torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=0.01)
    return torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)


def close_to_eager(got, expected, what, exact=None):
    """rtol 1e-5, with an atol of 1e-5 of the tensor's largest entry (a
    momentum buffer's or a gradient moment's entries near zero). With
    ``exact`` (the same training in float64), what misses that may still
    pass when hp is no further from the exact value than 4 times torch's
    own float32 training: Adam's lr * m / sqrt(v) turns the rounding of a
    near-zero gradient (whose sum over ranks runs in another order) into a
    difference of up to lr, in torch's training as in hp's."""
    scale = max(float(expected.abs().max()), 1e-3)
    error = float((got - expected).abs().max())
    if torch.allclose(got, expected, rtol=1e-5, atol=1e-5 * scale):
        return
    assert exact is not None, \
        f"{what}: max error {error:.3e} (largest entry {scale:.3e})"
    exact = exact.to(expected.dtype)
    ours, torchs = float((got - exact).abs().max()), float((expected - exact).abs().max())
    assert ours <= 4 * torchs, \
        f"{what}: {ours:.3e} from float64 training, torch's float32 {torchs:.3e}"


def exact_copy(model):
    """``model`` in float64: the training torch and hp approximate."""
    return copy.deepcopy(model).double()


def to_double(ts):
    return tuple(t.double() if t.is_floating_point() else t for t in ts)


MATRIX = [("layer", "tp4", "sgd"), ("layer", "ddp4", "adamw"), ("layer", "fsdp4", "sgd"),
          ("layer", "dp2tp2", "adamw"), ("causal_lm", "tp4", "adamw"),
          ("causal_lm", "ddp4", "sgd"), ("causal_lm", "fsdp4", "adamw"),
          ("causal_lm", "dp2tp2", "sgd"), ("layer", "fsdp2tp2", "adamw")]


@pytest.mark.parametrize("model_name,config,opt_name", MATRIX,
                         ids=["-".join(m) for m in MATRIX])
def test_training_matches_eager(model_name, config, opt_name):
    model, loss_fn, batch, plan = (layer_case if model_name == "layer" else causal_lm_case)()
    reference = copy.deepcopy(model)
    ref_opt = optimizer(opt_name, reference)
    exact = exact_copy(model)
    exact_opt = optimizer(opt_name, exact)
    mesh, placement = mesh_config(config, plan)
    torch.manual_seed(1)
    batches = [batch() for _ in range(STEPS)]
    with hp.torch.Trainer(model, loss_fn, *batches[0], mesh,
                          optimizer=optimizer(opt_name, model), **placement) as tr:
        for i, (xs, ys) in enumerate(batches):
            loss = tr.step(xs, ys)
            ref_opt.zero_grad()
            expected = loss_fn(reference(*xs), *ys)
            expected.backward()
            ref_opt.step()
            exact_opt.zero_grad()
            loss_fn(exact(*to_double(xs)), *to_double(ys)).backward()
            exact_opt.step()
            assert loss == pytest.approx(expected.item(), rel=1e-5), f"step {i}"
        params = tr.state_dict()
        state = tr.optimizer_state_dict()
        moved = tr.collectives()
        text = str(tr.program.module)
    # FSDP marks the parameters it splits (and nothing else) for the
    # chooser: gathering them along dp is the step's, not a memory cost.
    marked = set(re.findall(r'dtensor.arg_name = "([^"]+)", dtensor.fsdp_axes = '
                            r'array<i64: 0>', text))
    if "fsdp" in config:
        assert marked == {n for n, p in model.named_parameters() if p.dim() > 0}
    else:
        assert not marked and "dtensor.fsdp_axes" not in text
    exact_params = exact.state_dict()
    for name, value in reference.state_dict().items():
        close_to_eager(params[name], value, name, exact_params[name])
    # The optimizer's state comes back as torch's optimizer holds it.
    ref_state = ref_opt.state_dict()
    exact_state = exact_opt.state_dict()["state"]
    assert state["param_groups"] == ref_state["param_groups"]
    assert state["state"].keys() == ref_state["state"].keys()
    for index, entry in ref_state["state"].items():
        for key, value in entry.items():
            close_to_eager(state["state"][index][key], value, f"state {index} {key}",
                           exact_state[index][key])
    # What a step moves, against the least torch moves for the same training
    # (ring bytes one rank sends): DDP all_reduces every gradient, FSDP2
    # all_gathers every parameter and reduce_scatters every gradient, each
    # 2 (n - 1) / n of the parameters' bytes. hp may move other values
    # (activations where the batch is small), never more; the loss's own
    # all_reduce (a scalar) aside.
    param_bytes = sum(p.numel() * p.element_size() for p in reference.parameters())
    if config in ("ddp4", "fsdp4"):
        assert moved["bytes"] <= 2 * 3 / 4 * param_bytes + 64, moved
    if config == "fsdp4":
        assert moved["counts"].get("all_gather", 0) > 0  # parameters gathered for use


def tiny_case():
    torch.manual_seed(0)
    model = Tiny()

    def batch():
        return (torch.randn(BATCH, 8),), (torch.randn(BATCH, 8),)

    return model, lambda out, y: F.mse_loss(out, y), batch, None


def test_resumed_training_continues_eager():
    """The optimizer state a Trainer returns, loaded into torch's optimizer,
    and torch's state loaded into a second Trainer, continue the same run."""
    model, loss_fn, batch, _ = tiny_case()
    reference = copy.deepcopy(model)
    ref_opt = optimizer("adamw", reference)
    mesh, placement = mesh_config("ddp4", None)
    torch.manual_seed(1)
    batches = [batch() for _ in range(6)]
    for xs, ys in batches[:3]:
        ref_opt.zero_grad()
        loss_fn(reference(*xs), *ys).backward()
        ref_opt.step()
    resumed = copy.deepcopy(reference)
    opt = optimizer("adamw", resumed)
    opt.load_state_dict(ref_opt.state_dict())
    with hp.torch.Trainer(resumed, loss_fn, *batches[0], mesh, optimizer=opt,
                          **placement) as tr:
        for xs, ys in batches[3:]:
            loss = tr.step(xs, ys)
            ref_opt.zero_grad()
            expected = loss_fn(reference(*xs), *ys)
            expected.backward()
            ref_opt.step()
            assert loss == pytest.approx(expected.item(), rel=1e-5)
        params = tr.state_dict()
        state = tr.optimizer_state_dict()
    for name, value in reference.state_dict().items():
        close_to_eager(params[name], value, name)
    assert float(state["state"][0]["step"]) == 6


# The optimizer hp steps is not torch's: torch warns that the scheduler
# steps before it.
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler:UserWarning")
def test_learning_rate_changes_apply_at_the_next_step():
    """A scheduler (or the user) changing lr between steps: hp reads the
    optimizer's groups at every step, as torch does."""
    model, loss_fn, batch, _ = tiny_case()
    reference = copy.deepcopy(model)
    ref_opt = optimizer("sgd", reference)
    opt = optimizer("sgd", model)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    ref_sched = torch.optim.lr_scheduler.StepLR(ref_opt, step_size=2, gamma=0.5)
    mesh, placement = mesh_config("tp4", None)
    torch.manual_seed(1)
    batches = [batch() for _ in range(5)]
    with hp.torch.Trainer(model, loss_fn, *batches[0], mesh, optimizer=opt,
                          **placement) as tr:
        for xs, ys in batches:
            loss = tr.step(xs, ys)
            sched.step()
            ref_opt.zero_grad()
            expected = loss_fn(reference(*xs), *ys)
            expected.backward()
            ref_opt.step()
            ref_sched.step()
            assert loss == pytest.approx(expected.item(), rel=1e-5)
        params = tr.state_dict()
    for name, value in reference.state_dict().items():
        close_to_eager(params[name], value, name)


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.lin(x)


TP4 = hp.DeviceMesh("tp", [4], mesh_dim_names=("tp",))


def tiny_trainer(**kw):
    model = Tiny()
    args = dict(model=model, loss_fn=lambda out, y: F.mse_loss(out, y),
                example_inputs=(torch.randn(4, 8),), example_targets=(torch.randn(4, 8),),
                mesh=TP4, optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    args.update(kw)
    return hp.torch.Trainer(**args)


@pytest.mark.parametrize("change,error,match", [
    (dict(optimizer=None), TypeError, "needs optimizer="),
    (dict(optimizer="sgd"), TypeError, "takes torch.optim.SGD, Adam or AdamW, got str"),
    (dict(loss_fn=3), TypeError, "loss_fn must be callable"),
    (dict(example_targets=("y",)), TypeError, "target 0 must be a torch.Tensor"),
    (dict(targets=[hp.Shard(0)]), TypeError, r"targets\[0\]: expected a list of placements"),
    (dict(targets=[None, None]), ValueError, "targets: 2 placement lists for 1 targets"),
    (dict(targets="dp"), TypeError, "targets must be a list of placement lists"),
    (dict(example_targets=(torch.zeros(4, 8, dtype=torch.complex64),)), ValueError,
     "target 0: dtype torch.complex64 is not one hp holds"),
    (dict(loss_fn=lambda out, y: out), ValueError, "loss_fn must return a scalar"),
    (dict(fsdp="nope"), ValueError, "nope"),
])
def test_bad_arguments_are_refused(change, error, match):
    with pytest.raises(error, match=match):
        tiny_trainer(**change)


def test_optimizers_hp_cannot_run_are_refused():
    model = Tiny()
    other = Tiny()
    cases = [
        (torch.optim.Adam(model.parameters(), amsgrad=True), "amsgrad=True"),
        (torch.optim.RMSprop(model.parameters()), "got RMSprop"),
        (torch.optim.SGD(other.parameters(), lr=0.1), "not a parameter of the model"),
        (torch.optim.SGD([{"params": [model.lin.weight], "momentum": 0.9},
                          {"params": [model.lin.bias]}], lr=0.1),
         "every group must use momentum or none does"),
    ]
    for opt, match in cases:
        with pytest.raises((TypeError, ValueError), match=match):
            tiny_trainer(model=model, optimizer=opt)


def test_a_closed_trainer_refuses_steps():
    tr = tiny_trainer()
    tr.close()
    assert tr.closed
    with pytest.raises(RuntimeError, match="closed"):
        tr.step((torch.randn(4, 8),), (torch.randn(4, 8),))
    with pytest.raises(RuntimeError, match="closed"):
        tr.state_dict()


def test_a_second_trainer_generates_no_code(tmp_path, monkeypatch):
    """The step's program is the same for a second Trainer of the same model
    (the parameters travel as arguments, not in the program), so hp-runner
    takes it from the cache: no lowering, no code generation, the same
    losses."""
    monkeypatch.setenv("HP_CACHE_DIR", str(tmp_path))
    x, y = torch.randn(4, 8), torch.randn(4, 8)
    losses, reports = [], []
    for seed in (0, 0, 1):
        torch.manual_seed(seed)
        with tiny_trainer() as tr:
            losses.append([float(tr.step((x,), (y,))) for _ in range(2)])
            reports.append(tr.compile_report)
    assert [r["cache"] for r in reports] == ["miss", "hit", "hit"], reports
    assert reports[1]["lower_s"] == reports[1]["codegen_s"] == 0.0
    assert losses[0] == losses[1] and losses[2] != losses[0]
    assert len(list(tmp_path.glob("llvmcache-hp-*"))) == 1


def test_parameters_that_require_no_gradient_are_not_stepped():
    """torch steps only parameters with a gradient: a frozen one keeps its
    value under AdamW's decay and has no optimizer state."""
    model = Tiny()
    model.lin.bias.requires_grad_(False)
    bias = model.lin.bias.detach().clone()
    opt = torch.optim.AdamW(model.parameters(), lr=0.1, weight_decay=0.5)
    with tiny_trainer(model=model, optimizer=opt) as tr:
        tr.step((torch.randn(4, 8),), (torch.randn(4, 8),))
        params = tr.state_dict()
        state = tr.optimizer_state_dict()
    assert torch.equal(params["lin.bias"], bias)
    assert list(state["state"]) == [0]  # the weight's entry only
    opt.load_state_dict(state)


def test_changing_what_the_step_computes_is_refused():
    """Momentum turned off after the step was traced: torch would take
    another formula; hp says so rather than run the old one."""
    model = Tiny()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with tiny_trainer(model=model, optimizer=opt) as tr:
        tr.step((torch.randn(4, 8),), (torch.randn(4, 8),))
        opt.param_groups[0]["momentum"] = 0.0
        with pytest.raises(ValueError, match="momentum on or off.*build a new Trainer"):
            tr.step((torch.randn(4, 8),), (torch.randn(4, 8),))


@pytest.mark.parametrize("dtype,betas,wd,tol", [
    (torch.float64, (0.9, 0.999), 1e-5, 1e-12),   # 1 - lr * wd is not 1 in double
    (torch.float32, (0.5, 0.999), 0.01, 1e-6),    # torch's other lerp form
])
def test_adam_details_match_torch(dtype, betas, wd, tol):
    torch.manual_seed(0)
    model = Tiny().to(dtype)
    reference = copy.deepcopy(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=betas, weight_decay=wd)
    ref_opt = torch.optim.AdamW(reference.parameters(), lr=1e-3, betas=betas, weight_decay=wd)
    batches = [(torch.randn(4, 8, dtype=dtype), torch.randn(4, 8, dtype=dtype))
               for _ in range(3)]
    with tiny_trainer(model=model, optimizer=opt, example_inputs=(batches[0][0],),
                      example_targets=(batches[0][1],)) as tr:
        for x, y in batches:
            tr.step((x,), (y,))
            ref_opt.zero_grad()
            F.mse_loss(reference(x), y).backward()
            ref_opt.step()
        params = tr.state_dict()
    for name, value in reference.state_dict().items():
        assert params[name].dtype == dtype
        assert torch.allclose(params[name], value, rtol=tol, atol=tol), name


def test_parameters_outside_the_optimizer_stay_fixed():
    """Only what the optimizer holds is trained (a frozen bias stays)."""
    model = Tiny()
    bias = model.lin.bias.detach().clone()
    tr = tiny_trainer(model=model, optimizer=torch.optim.SGD([model.lin.weight], lr=0.1))
    with tr:
        tr.step((torch.randn(4, 8),), (torch.randn(4, 8),))
        params = tr.state_dict()
    assert torch.equal(params["lin.bias"], bias)
    assert not torch.equal(params["lin.weight"], model.lin.weight)


@pytest.mark.parametrize("padding_idx,scale", [(-1, False), (2, False), (-1, True), (3, True)])
def test_embedding_backward_is_torchs(padding_idx, scale):
    """hp's decomposition of an embedding's backward (one-hot rows times the
    gradient, docs/Training.md) against torch's own kernel."""
    from hp import _decompose
    torch.manual_seed(0)
    indices = torch.randint(0, 6, (3, 5))
    grad = torch.randn(3, 5, 4)
    expected = torch.ops.aten.embedding_dense_backward(grad, indices, 6, padding_idx, scale)
    got = _decompose._embedding_dense_backward(grad, indices, 6, padding_idx, scale)
    check_close(got, expected)


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("weighted,ignore_index,rank", [
    (False, -100, 2), (True, -100, 2), (False, 1, 2), (True, 3, 2), (False, -100, 1)])
def test_nll_loss_is_torchs(reduction, weighted, ignore_index, rank):
    """hp's decomposition of the negative log-likelihood (a select of the
    target class and a sum over classes) against torch's own kernel."""
    from hp import _decompose
    torch.manual_seed(0)
    x = torch.randn(6, 5).log_softmax(-1) if rank == 2 else torch.randn(5).log_softmax(-1)
    target = torch.tensor([0, 1, 3, 1, 4, 2]) if rank == 2 else torch.tensor(3)
    weight = torch.rand(5) if weighted else None
    expected = torch.ops.aten.nll_loss_forward(x, target, weight, reduction, ignore_index)
    got = _decompose._nll_loss_forward(x, target, weight, reduction, ignore_index)
    check_close(got[0], expected[0])
    if reduction != 0:  # torch leaves the total weight unset without a reduction
        check_close(got[1], expected[1])


def classifier_trainer(ignore_index=-100):
    torch.manual_seed(0)
    model = Tiny()
    reference = copy.deepcopy(model)

    def loss_fn(out, t):
        return F.cross_entropy(out, t, ignore_index=ignore_index)

    tr = hp.torch.Trainer(model, loss_fn, (torch.randn(4, 8),),
                          (torch.tensor([0, 1, 2, 3]),), DDP2,
                          optimizer=torch.optim.SGD(model.parameters(), lr=0.1),
                          inputs=[[hp.Shard(0)]])
    return tr, reference, loss_fn


DDP2 = hp.DeviceMesh("dp", [2], mesh_dim_names=("dp",))


def test_targets_outside_the_classes_are_refused_as_torch_refuses_them():
    # torch: IndexError "Target 9 is out of bounds." (and for -5); hp the
    # same, before the step runs: the weights are untouched and the Trainer
    # goes on. ignore_index is no class and takes no loss, as in torch.
    tr, reference, loss_fn = classifier_trainer(ignore_index=7)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    x = torch.randn(4, 8)
    with tr:
        for bad in (9, -5, 8):
            t = torch.tensor([0, bad, 2, 3])
            with pytest.raises(IndexError) as torch_error:
                loss_fn(reference(x), t)
            with pytest.raises(IndexError, match=f"^{torch_error.value}$"):
                tr.step((x,), (t,))
        for t in (torch.tensor([0, 7, 2, 3]), torch.tensor([1, 1, 5, 0])):
            loss = tr.step((x,), (t,))
            ref_opt.zero_grad()
            expected = loss_fn(reference(x), t)
            expected.backward()
            ref_opt.step()
            assert loss == pytest.approx(expected.item(), rel=1e-5)
        params = tr.state_dict()
    for name, value in reference.state_dict().items():
        close_to_eager(params[name], value, name)


def test_a_target_the_program_computes_is_checked_on_the_ranks():
    # The target is an input reversed: the client cannot check it, the
    # program does (the lookup of each target in a table of the classes).
    class Loss(torch.nn.Module):
        def forward(self, x, t):
            return F.cross_entropy(x, t.flip(0))

    x = torch.randn(4, 6)
    prog = hp.torch.export(Loss(), (x, torch.tensor([0, 1, 2, 3])), DDP2)
    good = torch.tensor([5, 0, 3, 1])
    check_close(hp.torch.run(prog, (x, good)), Loss()(x, good))
    for bad in (6, -5):
        t = torch.tensor([1, bad, 2, 3])
        with pytest.raises(IndexError):
            Loss()(x, t)
        with pytest.raises(hp.RunError, match="index must be (smaller than dim size|larger "
                                              "or equal to 0)"):
            hp.torch.run(prog, (x, t))


def test_step_errors_name_the_users_inputs_and_targets():
    with tiny_trainer() as tr:
        x, y = torch.randn(4, 8), torch.randn(4, 8)
        with pytest.raises(ValueError, match=r"^targets\[0\] is \(4, 9\) torch.float32"):
            tr.step((x,), (torch.randn(4, 9),))
        with pytest.raises(ValueError, match=r"^inputs\[0\] is \(4,\) torch.float32"):
            tr.step((torch.randn(4),), (y,))
        with pytest.raises(ValueError, match="^Trainer.step takes 1 targets, got 0"):
            tr.step((x,), ())
        with pytest.raises(ValueError, match="^Trainer.step takes 1 inputs, got 2"):
            tr.step((x, x), (y,))
        with pytest.raises(TypeError, match=r"^targets\[0\] must be a torch.Tensor"):
            tr.step((x,), ("y",))
        tr.step((x,), (y,))  # and the Trainer goes on


def test_a_target_that_is_the_input_stays_its_own_argument():
    # An autoencoder's examples: the target tensor is the input tensor.
    # Traced as one argument, every later step would compare the output
    # with the input, whatever target it is given.
    torch.manual_seed(0)
    model = Tiny()
    reference = copy.deepcopy(model)
    x = torch.randn(4, 8)
    with tiny_trainer(model=model, example_inputs=(x,), example_targets=(x,),
                      optimizer=torch.optim.SGD(model.parameters(), lr=0.1)) as tr:
        a, b = torch.randn(4, 8), torch.randn(4, 8)
        loss = tr.step((a,), (b,))
    assert loss == pytest.approx(F.mse_loss(reference(a), b).item(), rel=1e-5)
