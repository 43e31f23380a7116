"""hp.torch.export and its argument checks: a PyTorch module in, an
:class:`hp.torch.Program` out (hp.torch re-exports it; Session, Trainer and
Generator build on it from here, below hp.torch)."""

import warnings

import torch

import hp
from hp._torch_import import (_RESERVED, _global_view, _import, _output_placements,
                              _static_experts)
from hp._torch_plan import (_auto_plan, _check_placement_lists, _input_placements, _Pin,
                            _plan_dim, _plan_modules, _state, _state_placements)
from hp._torch_program import Program, _as_tuple, _checked_tensors


def export(model, args, mesh, params=None, inputs=None, outputs=None, plan=None,
           plan_dim=None, context=None, warn_gather_bytes=None):
    """Imports ``model`` called on ``args`` as an hp :class:`Program` on ``mesh``.

    ``params`` maps parameter and buffer names (torch's fully qualified
    names) to placement lists (hp's or torch's placements, one per mesh dim;
    replicated when absent). ``inputs`` and ``outputs`` give one placement
    list per positional input and per output (when absent: an input is
    replicated; an output takes the pin a plan puts on it, else replicate on
    the plan's dim; on other mesh dims, pins and outputs take the placement
    all inputs share there, as data parallel does with the batch). ``plan`` is torch's
    ``parallelize_module`` dictionary (module path -> ColwiseParallel,
    RowwiseParallel, SequenceParallel, PrepareModuleInput,
    PrepareModuleOutput), applied on mesh dim ``plan_dim`` (default: the dim
    named "tp", else the last); ``params`` entries win over the plan's.
    ``plan="auto"`` takes the plan transformers keeps for the model
    (``config.base_model_tp_plan`` and the head's ``_tp_plan``).
    ``warn_gather_bytes``: warn about every whole-tensor gather of at least
    this many bytes (0: none); by default every gather of a whole parameter
    or buffer is reported, whatever its size, and others from 64 MiB.
    """
    from torch_mlir import fx

    args = _checked_export_arguments(model, args, mesh, params, inputs, outputs,
                                     plan, context)
    state, canonical = _state(model)
    dim = _plan_dim(mesh, plan_dim)
    if warn_gather_bytes is not None:
        hp._check_int(warn_gather_bytes, "warn_gather_bytes", 0)
        if warn_gather_bytes >= 2**64:
            raise ValueError(f"warn_gather_bytes must be below 2**64, got {warn_gather_bytes}")
    if plan == "auto":
        plan = _auto_plan(model)
    planned = _plan_modules(model, plan or {})
    placed = _state_placements(mesh, dim, state, canonical, planned, params)
    input_ps = _input_placements(mesh, args, inputs)
    pin = _Pin(mesh, dim, input_ps)
    with _static_experts(model):
        imported, outs, pins, checks = _import(fx.export_and_import, model, args, state,
                                               planned)
    output_ps = _output_placements(mesh, outs, pins, outputs, pin)

    ctx = context or hp.Context()
    module = _global_view(ctx, imported, mesh, input_ps + [placed[n] for n in state],
                          output_ps, pins, pin, [None] * len(args) + list(state))
    # Placed once, here: the choice stays in the program (dtensor.strategy
    # on each op), so every later pipeline (the ranks' lowering, a
    # partitioning for collectives()) applies it instead of choosing again.
    # What placing says (ops that run replicated, whole tensors gathered)
    # is reported now, where the user is, not at run time.
    remarks = [d for d in module.run("builtin.module(dtensor-choose-strategies)")
               if d.kind == "runs-replicated"]
    gathers = ("warn-gather-named-args" if warn_gather_bytes is None
               else f"warn-gather-bytes={warn_gather_bytes}")
    remarks += [d for d in module.clone().run(
        f"builtin.module(dtensor-apply-strategies{{{gathers}}})") if d.kind == "gathers-whole"]
    for r in remarks:
        warnings.warn(f"hp.torch.export: {r}", stacklevel=2)

    input_specs = [(tuple(a.shape), a.dtype, ps) for a, ps in zip(args, input_ps)]
    state_specs = {n: (tuple(t.shape), t.dtype, placed[n]) for n, t in state.items()}
    output_specs = [(tuple(o.shape), o.dtype, ps) for o, ps in zip(outs, output_ps)]
    buffers = {n: b.detach().clone() for n, b in model.named_buffers()}
    return Program(module, mesh, input_specs, state_specs, output_specs, buffers, remarks,
                   {a: c for a, c in canonical.items() if a != c}, checks)


def _checked_export_arguments(model, args, mesh, params, inputs, outputs, plan,
                              context):
    """export's arguments checked for kind, with ``args`` as a tuple."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if not isinstance(mesh, hp.DeviceMesh):
        raise TypeError(f"mesh must be an hp.DeviceMesh, got {type(mesh).__name__}")
    if mesh.name in _RESERVED:
        raise ValueError(f"mesh name '{mesh.name}' is taken by the program's own "
                         f"functions ({', '.join(sorted(_RESERVED))}): choose another")
    if context is not None and not isinstance(context, hp.Context):
        raise TypeError(f"context must be an hp.Context, got {type(context).__name__}")
    if isinstance(plan, str) and plan != "auto":
        raise ValueError(f'plan must be a dict or "auto", got {plan!r}')
    for what, value in (("plan", None if plan == "auto" else plan), ("params", params)):
        if value is not None and not isinstance(value, dict):
            raise TypeError(f"{what} must be a dict, got {type(value).__name__}")
    for what, value in (("inputs", inputs), ("outputs", outputs)):
        _check_placement_lists(value, what)
    return _checked_tensors(_as_tuple(args, "args"), "input")
