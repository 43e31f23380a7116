"""torch's parallel plans (``parallelize_module``'s styles, transformers'
plan strings) and placements, as hp's placements of parameters, inputs and
the values a plan pins."""

import fnmatch

import torch

import hp
from hp import _placement as _placement_rules
from hp._torch_program import _DTYPES, _unknown_name


def _placement(p, rank, what):
    """An hp placement from an hp or torch placement, dims normalised
    against a tensor of rank `rank` (torch's Shard(-1) means the last dim)."""
    from torch.distributed.tensor import placement_types as tp
    split_factor = None
    if isinstance(p, hp.Placement):
        if not isinstance(p, hp.Shard):
            return p
        dim = p.dim
        split_factor = getattr(p, "split_factor", None)
    elif isinstance(p, getattr(tp, "_StridedShard", ())):
        dim, split_factor = p.dim, p.split_factor
    elif isinstance(p, tp.Shard):
        dim = p.dim
    elif isinstance(p, tp.Replicate):
        return hp.Replicate()
    elif isinstance(p, tp.Partial):
        op = str(p.reduce_op)
        return hp.Partial({"product": "prod"}.get(op, op))
    else:
        raise TypeError(f"{what}: {p!r} is not a placement (hp or torch)")
    if not -rank <= dim < rank:
        raise ValueError(f"{what}: Shard({dim}) does not fit a tensor of rank {rank}")
    if split_factor is not None:
        return hp.StridedShard(dim % rank, split_factor)
    return hp.Shard(dim % rank)


def _placements(ps, rank, mesh, what):
    if not isinstance(ps, (list, tuple)):
        raise TypeError(f"{what}: expected a list of placements (one per mesh dim), "
                        f"got {ps!r}")
    ps = list(ps)
    if len(ps) != mesh.ndim:
        raise ValueError(f"{what}: {len(ps)} placements for a mesh of {mesh.ndim} dims "
                         f"{mesh.mesh_dim_names}")
    return [_placement(p, rank, what) for p in ps]


class _Style:
    """What a ParallelStyle means for hp: placements of the module's own
    parameters (on the plan's mesh dim) and pins at its boundary, each a
    chain of layouts (torch's input_layouts then desired_input_layouts)."""

    def __init__(self, params, inputs, outputs):
        self.params = params      # {param name: torch placement}
        self.inputs = inputs      # per positional input: [layouts] (None: free)
        self.outputs = outputs    # per output: [layouts]


def _is_conv1d(module):
    try:
        from transformers.pytorch_utils import Conv1D
    except ImportError:
        return False
    return isinstance(module, Conv1D)


def _style_meaning(style, module, path):
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (
        ColwiseParallel, PrepareModuleInput, PrepareModuleOutput, RowwiseParallel,
        SequenceParallel)
    try:
        from torch.distributed.tensor.parallel import PrepareModuleInputOutput
    except ImportError:  # older torch
        PrepareModuleInputOutput = ()
    if isinstance(style, tuple) and style[:1] == ("outputs",):
        return _Style({}, [], [[style[1]]])
    # transformers' Conv1D (GPT-2) is a linear layer whose weight is stored
    # transposed, [in, out]: column-wise splits its dim 1, row-wise its dim 0.
    conv1d = _is_conv1d(module)
    linear = isinstance(module, torch.nn.Linear) or conv1d
    embedding = isinstance(module, torch.nn.Embedding)
    name = type(style).__name__
    if isinstance(style, (ColwiseParallel, RowwiseParallel)) and not (linear or embedding):
        raise ValueError(f"plan['{path}']: {name} applies to nn.Linear, nn.Embedding and "
                         f"transformers' Conv1D, not {type(module).__name__} (as in torch)")
    if isinstance(style, ColwiseParallel):
        params = {"weight": Shard(1) if embedding or conv1d else Shard(0)}
        if linear and module.bias is not None:
            params["bias"] = Shard(0)
        return _Style(params, [[style.input_layouts[0], style.desired_input_layouts[0]]],
                      [[style.output_layouts[0]]])
    if isinstance(style, RowwiseParallel):
        params = {"weight": Shard(0) if embedding or conv1d else Shard(1)}
        if linear and module.bias is not None:
            params["bias"] = Replicate()
        desired = Replicate() if embedding else Shard(-1)
        return _Style(params, [[style.input_layouts[0], desired]],
                      [[style.output_layouts[0]]])
    if isinstance(style, SequenceParallel):
        seq = style.sequence_sharding[0]
        return _Style({n: Replicate() for n, _ in module.named_parameters(recurse=False)},
                      [[seq]], [[seq]])
    if PrepareModuleInputOutput and isinstance(style, PrepareModuleInputOutput):
        return _Style({}, _prepare_inputs(style.prepare_module_input),
                      _prepare_outputs(style.prepare_module_output))
    if isinstance(style, PrepareModuleInput):
        return _Style({}, _prepare_inputs(style), [])
    if isinstance(style, PrepareModuleOutput):
        return _Style({}, [], _prepare_outputs(style))
    raise ValueError(f"plan['{path}']: {name} is not a parallel style hp knows "
                     "(ColwiseParallel, RowwiseParallel, SequenceParallel, "
                     "PrepareModuleInput, PrepareModuleOutput, PrepareModuleInputOutput)")


def _prepare_inputs(style):
    if getattr(style, "input_kwarg_layouts", None):
        raise ValueError("PrepareModuleInput's input_kwarg_layouts are not supported: pass "
                         "those inputs positionally")
    desired = style.desired_input_layouts or (None,) * len(style.input_layouts or ())
    return [[l for l in (given, want) if l is not None]
            for given, want in zip(style.input_layouts or (), desired)]


def _prepare_outputs(style):
    return [[l for l in (given, want) if l is not None]
            for given, want in zip(style.output_layouts, style.desired_output_layouts)]


# transformers' plan strings (config.base_model_tp_plan and the model's
# _tp_plan, which transformers applies under tp_plan="auto"), as torch
# styles with the meaning transformers gives them. None: nothing is split
# (parameters stay replicated); a pair: outputs pinned to that layout with
# the parameters as they are (the output's all_reduce or all_gather).
def _transformers_styles():
    from torch.distributed.tensor import Replicate
    from torch.distributed.tensor.parallel import (
        ColwiseParallel, RowwiseParallel, SequenceParallel)
    return {
        "colwise": ColwiseParallel(),
        "rowwise": RowwiseParallel(),
        "colwise_rep": ColwiseParallel(output_layouts=Replicate()),
        "colwise_gather_output": ColwiseParallel(output_layouts=Replicate()),
        "rowwise_rep": RowwiseParallel(input_layouts=Replicate()),
        "rowwise_split_input": RowwiseParallel(input_layouts=Replicate()),
        "local_colwise": ColwiseParallel(),
        "local_rowwise": RowwiseParallel(),
        "embedding_rowwise": RowwiseParallel(input_layouts=Replicate()),
        "embedding_colwise": ColwiseParallel(output_layouts=Replicate()),
        "sequence_parallel": SequenceParallel(),
        "replicate": None, "local": None, "replicated_with_grad_allreduce": None,
        "gather": ("outputs", Replicate()), "all_reduce": ("outputs", Replicate()),
    }


def _auto_plan(model):
    """plan="auto": the tensor-parallel plan transformers keeps for each
    outermost transformers model inside ``model`` (its ``_tp_plan``: the
    base model's ``config.base_model_tp_plan`` under its prefix, and the
    head's), keys prefixed with the model's path, each string as a style."""
    try:
        from transformers import PreTrainedModel
    except ImportError:
        raise ValueError('plan="auto" reads the plans of transformers models, and '
                         'transformers is not installed') from None
    def inside(path, outer):
        return outer == "" or path.startswith(outer + ".")

    found = []  # named_modules goes outside in
    for path, m in model.named_modules():
        if isinstance(m, PreTrainedModel) and not any(inside(path, f) for f, _ in found):
            found.append((path, m))
    if not found:
        raise ValueError(f'plan="auto": {type(model).__name__} holds no transformers model '
                         "(PreTrainedModel) whose plan could be read")
    styles = _transformers_styles()
    plan = {}
    for path, m in found:
        entries = dict(getattr(m, "_tp_plan", None) or {})
        if not entries:
            base = getattr(m.config, "base_model_tp_plan", None) or {}
            prefix = getattr(m, "base_model_prefix", "")
            inner = prefix if prefix and hasattr(m, prefix) else ""
            entries = {f"{inner}.{k}" if inner else k: v for k, v in base.items()}
            entries.update(type(m).__dict__.get("_tp_plan", None) or {})
        if not entries:
            raise ValueError(f'plan="auto": {type(m).__name__}' + (f" at '{path}'" if path else "")
                             + " has no tensor-parallel plan in transformers "
                             "(config.base_model_tp_plan is empty): give plan as a dict")
        for key, name in entries.items():
            full = f"{path}.{key}" if path else key
            if not isinstance(name, str) or name not in styles:
                raise ValueError(f"plan=\"auto\": '{name}' for module '{full}' is not a "
                                 f"transformers plan string hp knows ({', '.join(styles)})")
            if styles[name] is not None:
                plan[full] = styles[name]
    return plan


def _plan_modules(model, plan):
    """(path, module, style) for every plan entry; keys are module paths
    with fnmatch wildcards per component, as parallelize_module takes."""
    if not isinstance(plan, dict):
        raise TypeError(f"plan must be a dict of module path -> parallel style, got "
                        f"{type(plan).__name__}")
    modules = dict(model.named_modules(remove_duplicate=False))
    found = []
    matched = {}
    for key, style in plan.items():
        if not isinstance(key, str):
            raise TypeError(f"plan keys are module paths, got {key!r}")
        hits = [p for p in modules if p == key or (
            any(c in key for c in "*?[") and len(p.split(".")) == len(key.split("."))
            and all(fnmatch.fnmatchcase(a, b) for a, b in zip(p.split("."), key.split("."))))]
        if not hits:
            raise ValueError("plan: " + _unknown_name(key, [p for p in modules if p], "submodule"))
        for path in hits:
            if path in matched:
                raise ValueError(f"plan: module '{path}' is matched by both '{matched[path]}' "
                                 f"and '{key}'")
            matched[path] = key
            found.append((path, modules[path], _style_meaning(style, modules[path], key)))
    return found


def _plan_dim(mesh, plan_dim):
    if plan_dim is None:
        return mesh.mesh_dim_names.index("tp") if "tp" in mesh.mesh_dim_names \
            else mesh.ndim - 1
    if isinstance(plan_dim, str):
        if plan_dim not in mesh.mesh_dim_names:
            raise ValueError(f"plan_dim '{plan_dim}' is not a dim of {mesh}")
        return mesh.mesh_dim_names.index(plan_dim)
    hp._check_int(plan_dim, "plan_dim", 0)
    if plan_dim >= mesh.ndim:
        raise ValueError(f"plan_dim {plan_dim} is not a dim of {mesh}")
    return plan_dim


def _check_placement_lists(value, what):
    """``value`` (``inputs``, ``outputs``, ``targets``) is None or a list."""
    if value is not None and not isinstance(value, (list, tuple)):
        raise TypeError(f"{what} must be a list of placement lists (one per "
                        f"{what[:-1]}), got {type(value).__name__}")


def _state(model):
    """The module's parameters and buffers by name, and for every name torch
    gives one (tied ones too) the name of its argument."""
    state = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    for name, t in state.items():
        if t.dtype not in _DTYPES:
            raise ValueError(f"'{name}': dtype {t.dtype} is not one hp holds")
    # A tied parameter (one tensor under two names) is one argument, under
    # the first name torch gives it; the other names mean the same.
    canonical = {}
    for name, t in [*model.named_parameters(remove_duplicate=False),
                    *model.named_buffers(remove_duplicate=False)]:
        canonical[name] = next((n for n in state if state[n] is t), name)
    return state, canonical


def _state_placements(mesh, dim, state, canonical, planned, params):
    """Placements of the state, in ``state``'s order: the plan's, then params'."""
    placed = {n: [hp.Replicate()] * mesh.ndim for n in state}
    by = {}  # a parameter the plan places -> (its name there, the module path)
    for path, _, style in planned:
        for pname, p in style.params.items():
            given = f"{path}.{pname}" if path else pname
            full = canonical.get(given)
            if full not in placed:
                continue
            placement = _placement(p, state[full].dim(), f"'{full}'")
            if full in by and placed[full][dim] != placement:
                # One tensor (a tied LM head and embedding) split two ways.
                raise ValueError(
                    f"plan: '{given}' and '{by[full][0]}' are one tied parameter, which the "
                    f"styles of '{path}' and '{by[full][1]}' split differently "
                    f"({placement} and {placed[full][dim]}): give both modules styles that "
                    "split it alike (embedding rowwise with head colwise, or embedding "
                    "colwise with head rowwise)")
            by.setdefault(full, (given, path))
            placed[full][dim] = placement
    for given, ps in (params or {}).items():
        name = canonical.get(given)
        if name not in state:
            raise ValueError("params: " + _unknown_name(given, list(state),
                                                        "parameter or buffer"))
        placed[name] = _placements(ps, state[name].dim(), mesh, f"params['{given}']")
    return placed


def _input_placements(mesh, args, inputs, what="inputs"):
    """The placement lists ``inputs`` gives ``args`` (None: replicated),
    checked; errors name the argument ``what``."""
    rep = [hp.Replicate()] * mesh.ndim
    if inputs is None:
        return [list(rep) for _ in args]
    inputs = list(inputs)
    if len(inputs) != len(args):
        raise ValueError(f"{what}: {len(inputs)} placement lists for {len(args)} {what}")
    return [list(rep) if ps is None else _placements(ps, a.dim(), mesh, f"{what}[{i}]")
            for i, (ps, a) in enumerate(zip(inputs, args))]


class _Pin:
    """The placements of a pin: it fixes the plan's mesh dim; on the others
    C++'s rule for a value without a layout, as a loss target's
    (_placement.placements_from_inputs: the shard all inputs agree on, the
    batch dim of data parallel, else replicate)."""

    def __init__(self, mesh, dim, input_ps):
        self.mesh, self.dim, self.input_ps = mesh, dim, input_ps

    def __call__(self, layout, t, what):
        ps = _placement_rules.placements_from_inputs(self.input_ps, t.dim(), self.mesh.ndim,
                                                     self.dim)
        ps[self.dim] = _placement(layout, t.dim(), what)
        return ps


def _pin_hook(pins, path, chains, what):
    """A forward pre-hook (``what`` "input") or hook ("output") that appends
    (value, layout, name) to ``pins`` for each layout of the plan's chain
    on each of the module's inputs or outputs."""
    def hook(module, hook_args, *out):
        values = hook_args
        if out:
            values = out[0] if isinstance(out[0], (tuple, list)) else (out[0],)
        for i, chain in enumerate(chains):
            if i < len(values) and isinstance(values[i], torch.Tensor):
                for layout in chain:
                    pins.append((values[i], layout, f"plan['{path}'] {what} {i}"))
    return hook
