"""hp.torch: PyTorch modules in, placed by torch's own parallel plans.

>>> prog = hp.torch.export(model, (x,), mesh, plan={"up": ColwiseParallel(),
...                                                 "down": RowwiseParallel()})
>>> out = hp.torch.run(prog, (x,), dict(model.named_parameters()), np=4)

``export`` imports the module through torch-mlir's FX importer (linalg on
tensors) as a function of its inputs, parameters and buffers, annotates it
with placements (``dtensor-globalize``'s attributes) and builds hp's global
view: one ``dtensor.global_region`` that ``dtensor-propagate`` places.
``run`` feeds each rank its shards and returns full torch tensors.
docs/Torch.md has the API, how plans map to placements and what is imported.
"""

import difflib
import fnmatch
import os
import re
import shutil
import tempfile
import warnings

import torch

import hp
from hp import _checkpoint, _decompose

__all__ = ["Program", "Session", "Trainer", "collectives", "export", "run", "time_step"]

# torch.bool travels as i8 (0 or 1: the bytes torch stores); the traced
# program sees an int8 tensor and compares it with 0, so every mask op stays
# an op on bits inside the program (docs/Torch.md).
_DTYPES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
    torch.bfloat16: "bf16", torch.int32: "i32", torch.int64: "i64",
    torch.int8: "i8", torch.bool: "i8",
}


def _to_wire(t):
    return t.to(torch.int8) if t.dtype == torch.bool else t


def _from_wire(t, dtype):
    return t != 0 if dtype == torch.bool else t

# What torch-mlir's output becomes before globalizing: elementwise chains
# fused into one op each, so that i1 masks and other values a DTensor cannot
# hold live inside an op's body instead of between ops (a mask several
# layers share is first copied for each of them). Reshapes are propagated
# too (a matmul and the expand_shape splitting heads become one generic with
# a loop per head dim), which dtensor-propagate places as torch does and the
# BLAS path takes; producers a consumer would recompute (the rotary
# embedding of q inside q k^T) stay apart. The i1 tensors left between ops
# (the mask reductions of SDPA's safe softmax, masks read by several ops)
# are then held as i8, which a DTensor holds and NCCL moves.
_PREPARE = ("builtin.module(func.func(dtensor-clone-unmovable-producers, "
            "fuse-elementwise-producers{propagate-reshapes=true}, canonicalize, "
            "dtensor-widen-bool-tensors, canonicalize))")


class Program:
    """An exported module: ``module`` (an hp.Module) holds ``@forward``, the
    global-view program whose arguments are the inputs and then the state
    (parameters and buffers) as DTensors, and ``@main``, a driver that reads
    every argument from ``$HP_TENSOR_DIR``, calls it and writes each result
    back replicated (so ``hp-runner`` runs the saved file too)."""

    def __init__(self, forward, mesh, input_specs, state_specs, output_specs,
                 buffers, remarks, aliases=None):
        self._forward = forward  # @forward alone, for other drivers
        self.module = forward.clone()
        self.module.run("builtin.module(dtensor-add-driver)")
        self.mesh = mesh
        self.input_specs = input_specs      # [(shape, dtype, placements)]
        self.state_specs = state_specs      # {name: (shape, dtype, placements)}
        self.output_specs = output_specs    # [(shape, dtype, placements)]
        self.buffers = buffers              # export-time buffer values
        self.remarks = remarks
        self.aliases = aliases or {}        # tied names -> the argument's name

    def __str__(self):
        return str(self.module)

    def save(self, path, repeat=1):
        """Writes the program and its driver as a ``.mlir`` file; with
        ``repeat`` > 1 the driver calls ``@forward`` that many times (the
        results are the last call's), for timing a step."""
        hp._check_int(repeat, "repeat", 1)
        module = self.module
        if repeat > 1:
            module = self._forward.clone()
            module.run(f"builtin.module(dtensor-add-driver{{repeat={repeat}}})")
        with open(path, "w") as f:
            f.write(str(module))

    def write_arguments(self, directory, args, params=None):
        """Writes every argument file the driver reads into ``directory``:
        ``args`` then the state (``params`` over the export-time buffers;
        parameters from a checkpoint as references to it)."""
        for slot, t in enumerate(self._arguments(args, params)):
            _checkpoint.write_argument(directory, slot, t, _tensor_bytes)

    def read_results(self, directory, slots=None):
        """The results the driver wrote into ``directory`` (those of
        ``slots``, by default all), as torch tensors."""
        outs = []
        for slot in range(len(self.output_specs)) if slots is None else slots:
            shape, dtype, _ = self.output_specs[slot]
            path = os.path.join(directory, f"result{slot}.bin")
            with open(path, "rb") as f:
                data = bytearray(f.read())
            flat = torch.frombuffer(data, dtype=dtype) if data else \
                torch.empty(0, dtype=dtype)
            outs.append(flat.reshape(shape).clone())
        return outs

    def _ranks(self, np):
        """``np`` checked against the mesh (default: its size)."""
        devices = self.mesh.size()
        if np is None:
            np = devices
        hp._check_int(np, "np", 1)
        if devices != np:
            raise ValueError(f"the mesh {self.mesh} has {devices} devices but np={np}: "
                             f"a program runs with one rank per device (np={devices})")
        return np

    def _arguments(self, args, params):
        return self._inputs(args) + self._state(params)

    def _inputs(self, args):
        args = _as_tuple(args, "args")
        if len(args) != len(self.input_specs):
            raise ValueError(f"the program takes {len(self.input_specs)} inputs, got "
                             f"{len(args)}")
        return [_checked_tensor(t, shape, dtype, f"input {i}")
                for i, (t, (shape, dtype, _)) in enumerate(zip(args, self.input_specs))]

    def _state(self, params):
        """The state's values in argument order: tensors, or for ``params``
        naming a safetensors checkpoint, ranges of it that the ranks read
        in place (hp._checkpoint)."""
        if _checkpoint.is_checkpoint(params):
            return _checkpoint.parameters(params, self.state_specs, self.aliases,
                                          self.buffers)
        if params is not None and not isinstance(params, dict):
            raise TypeError(f"params must be a dict of name -> tensor or the path of a "
                            f"safetensors checkpoint, got {type(params).__name__}")
        params = {self.aliases.get(n, n): t for n, t in (params or {}).items()}
        unknown = [n for n in params if n not in self.state_specs]
        if unknown:
            raise ValueError(_unknown_name(unknown[0], self.state_specs, "parameter"))
        values = []
        for name, (shape, dtype, _) in self.state_specs.items():
            if name in params:
                values.append(_checked_tensor(params[name], shape, dtype, f"'{name}'"))
            elif name in self.buffers:
                values.append(self.buffers[name])
            else:
                raise ValueError(f"no value for parameter '{name}': pass "
                                 "dict(model.named_parameters())")
        return values


def _as_tuple(args, what):
    if isinstance(args, torch.Tensor):
        return (args,)
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"{what} must be a tensor or a tuple of tensors, got "
                        f"{type(args).__name__}")
    return tuple(args)


def _checked_tensor(t, shape, dtype, what):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{what} must be a torch.Tensor, got {type(t).__name__}")
    if tuple(t.shape) != tuple(shape) or t.dtype != dtype:
        raise ValueError(f"{what} is {tuple(t.shape)} {t.dtype}; the program was "
                         f"exported for {tuple(shape)} {dtype}")
    return t


def _tensor_bytes(t):
    t = t.detach().to("cpu").contiguous().reshape(-1)
    return t.view(torch.uint8).numpy().tobytes() if t.numel() else b""


def _unknown_name(name, names, what):
    close = difflib.get_close_matches(name, list(names), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"'{name}' matches no {what} of the module{hint}"


#===------------------------------------------------------------------------===#
# Placements: hp's, torch's, negative dims
#===------------------------------------------------------------------------===#

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


#===------------------------------------------------------------------------===#
# torch's parallel styles
#===------------------------------------------------------------------------===#

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
    from torch.distributed.tensor import Replicate, Shard
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


#===------------------------------------------------------------------------===#
# export
#===------------------------------------------------------------------------===#

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
        imported, outs, pins = _import(fx.export_and_import, model, args, state, planned)
    output_ps = _output_placements(mesh, outs, pins, outputs, pin)

    ctx = context or hp.Context()
    module = _global_view(ctx, imported, mesh, input_ps + [placed[n] for n in state],
                          output_ps, pins, pin, [None] * len(args) + list(state))
    # What placing it will say: ops that run replicated, whole tensors
    # gathered. Reported now, where the user is, not at run time.
    gathers = ("warn-gather-named-args" if warn_gather_bytes is None
               else f"warn-gather-bytes={warn_gather_bytes}")
    remarks = [d for d in module.clone().run(f"builtin.module(dtensor-propagate{{{gathers}}})")
        if "runs replicated" in d or ": warning:" in d]
    for r in remarks:
        warnings.warn(f"hp.torch.export: {r}", stacklevel=2)

    input_specs = [(tuple(a.shape), a.dtype, ps) for a, ps in zip(args, input_ps)]
    state_specs = {n: (tuple(t.shape), t.dtype, placed[n]) for n, t in state.items()}
    output_specs = [(tuple(o.shape), o.dtype, ps) for o, ps in zip(outs, output_ps)]
    buffers = {n: b.detach().clone() for n, b in model.named_buffers()}
    return Program(module, mesh, input_specs, state_specs, output_specs, buffers, remarks,
                   {a: c for a, c in canonical.items() if a != c})


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


def _check_placement_lists(value, what):
    """``value`` (``inputs``, ``outputs``, ``targets``) is None or a list."""
    if value is not None and not isinstance(value, (list, tuple)):
        raise TypeError(f"{what} must be a list of placement lists (one per "
                        f"{what[:-1]}), got {type(value).__name__}")


def _checked_tensors(values, what):
    """``values``, each a tensor of a dtype hp holds; errors name ``what``
    and the index."""
    for i, a in enumerate(values):
        if not isinstance(a, torch.Tensor):
            raise TypeError(f"{what} {i} must be a torch.Tensor, got {type(a).__name__}")
        if a.dtype not in _DTYPES:
            raise ValueError(f"{what} {i}: dtype {a.dtype} is not one hp holds "
                             f"({', '.join(str(d) for d in _DTYPES)})")
    return values


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
    it takes the inputs' placement where all inputs agree (data parallel:
    the batch dim), else replicate."""

    def __init__(self, mesh, dim, input_ps):
        self.mesh, self.dim, self.input_ps = mesh, dim, input_ps

    def __call__(self, layout, t, what):
        ps = [hp.Replicate()] * self.mesh.ndim
        for d in range(self.mesh.ndim):
            if d != self.dim and self.input_ps:
                same = {repr(ip[d]) for ip in self.input_ps}
                p = self.input_ps[0][d]
                if len(same) == 1 and not p.is_partial() and (
                        not p.is_shard() or p.dim < t.dim()):
                    ps[d] = p
        ps[self.dim] = _placement(layout, t.dim(), what)
        return ps


class _Exported(torch.nn.Module):
    """forward(*inputs, *state) -> (*outputs, *pinned values). The model is
    not a submodule: its state comes in as arguments only (torch.export
    would otherwise look its non-persistent buffers up in a state_dict)."""

    def __init__(self, model, num_inputs, names, planned, dtypes):
        super().__init__()

        def call_model(flat):
            flat = [_from_wire(t, d) for t, d in zip(flat, dtypes)]
            return torch.func.functional_call(
                model, dict(zip(names, flat[num_inputs:])), tuple(flat[:num_inputs]))
        self.call_model = call_model
        self.planned = planned
        self.bad = None

    def forward(self, *flat):
        pins = []
        handles = []
        for path, module, style in self.planned:
            handles.append(module.register_forward_pre_hook(
                _pin_hook(pins, path, style.inputs, "input")))
            handles.append(module.register_forward_hook(
                _pin_hook(pins, path, style.outputs, "output")))
        try:
            out = self.call_model(flat)
        finally:
            for h in handles:
                h.remove()
        outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
        for i, o in enumerate(outs):
            if not isinstance(o, torch.Tensor):
                self.bad = f"output {i} is a {type(o).__name__}; hp exports tensors only"
            elif o.dtype not in _DTYPES:
                self.bad = f"output {i}: dtype {o.dtype} is not one hp holds"
            if self.bad:
                raise ValueError(self.bad)
        self.pins = pins
        self.outs = outs
        return (*[_to_wire(o) for o in outs], *[_to_wire(t) for t, _, _ in pins])


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


def _import(importer, model, args, state, planned):
    """The model traced by torch.export and imported by torch-mlir's
    ``importer`` (linalg on tensors) as @forward: its text, the outputs and
    the plan's pins."""
    names = list(state)
    values = [t.detach() for t in state.values()]
    exported = _Exported(model, len(args), names, planned,
                         [t.dtype for t in (*args, *values)])
    try:
        program = torch.export.export(exported, tuple(_to_wire(t) for t in (*args, *values)),
                                      strict=False)
    except Exception:
        if exported.bad:
            raise ValueError(exported.bad) from None
        raise
    _refuse_mutation(program, [f"input {i}" for i in range(len(args))] + names)
    return _lower(importer, program, len(exported.outs) + len(exported.pins)), \
        exported.outs, exported.pins


def _lower(importer, program, n_results):
    """The exported ``program`` imported by torch-mlir's ``importer``
    (linalg on tensors) as @forward with ``n_results`` results: its text,
    with locations (each op at its torch op and the user's line)."""
    _decompose.views_as_reshapes(program)
    lowered = importer(program, output_type="linalg-on-tensors", func_name="forward",
                       decomposition_table=_decompose.decomposition_table(),
                       fx_importer=_located_importer())
    imported = str(lowered)
    _refuse_unsupported(imported)
    # torch-mlir returns what functionalization found written as extra results.
    head = re.search(r"func\.func @forward\(.*\) -> (.*) \{", imported)
    if head and head.group(1).count("tensor<") != n_results:
        raise ValueError(f"torch-mlir returned {head.group(1).count('tensor<')} results where "
                         f"{n_results} were expected (outputs and plan pins): the module most "
                         "likely writes to an input or a buffer (an in-place update, or a "
                         "layer in training mode); hp exports functions, so export it in "
                         "eval mode or without in-place updates")
    return lowered.operation.get_asm(enable_debug_info=True)


class _static_experts:
    """transformers' mixture-of-experts layers (Mixtral, Qwen2-MoE, ...:
    the classes under ``use_experts_implementation``) exported with the
    library's own ``batched_mm`` experts instead of its default
    (``grouped_mm``, an opaque custom op over offsets the routing computes)
    or its ``eager`` loop over the experts hit (``nonzero``, ``torch.where``:
    shapes that depend on the routing): each token's k experts' weights are
    read by index (a table read that stays split by experts), the same values
    up to the order of the k-term sum. The config is restored afterwards."""

    def __init__(self, model):
        self.configs = {}
        for m in model.modules():
            config = getattr(m, "config", None)
            if hasattr(m, "_is_expert_parallel") and \
                    hasattr(config, "_experts_implementation"):
                self.configs[id(config)] = (config, config._experts_implementation)

    def __enter__(self):
        for config, _ in self.configs.values():
            config._experts_implementation = "batched_mm"

    def __exit__(self, *exc):
        for config, old in self.configs.values():
            config._experts_implementation = old
        return False


def _located_importer():
    """torch-mlir's FxImporter, locating each op at the torch op the graph
    node was traced from (before decomposition) and at the innermost frame
    of its stack outside torch and hp: the line of the model that called
    it. Remarks of hp's passes then point there (docs/Torch.md)."""
    from torch_mlir import ir
    from torch_mlir.dialects import torch as torch_d
    from torch_mlir.extras.fx_importer import ContextCache, FxImporter

    context = ir.Context()
    torch_d.register_dialect(context)
    importer = FxImporter(context=context)
    libraries = tuple(os.path.dirname(m.__file__) + os.sep for m in (torch, hp))

    # torch-mlir asks its context cache for every node's location
    # (torch-mlir 20261001); the cache has slots, so the answer is a
    # subclass's, with no fields of its own.
    class Located(ContextCache):
        __slots__ = ()

        def get_node_location(self, node):
            frames = re.findall(r'File "([^"]+)", line ([0-9]+)',
                                node.meta.get("stack_trace") or "")
            outside = [f for f in frames if not f[0].startswith(libraries)]
            where = (outside or frames)[-1:]
            child = ir.Location.file(where[0][0], int(where[0][1]), 0, context=context) \
                if where else ir.Location.unknown(context=context)
            op = node.meta.get("original_aten") or node.target
            return ir.Location.name(str(op), childLoc=child, context=context)

    importer._cc.__class__ = Located
    return importer


def _output_placements(mesh, outs, pins, outputs, pin):
    output_ps = []
    for i, o in enumerate(outs):
        given = None if outputs is None or i >= len(outputs) else outputs[i]
        if given is not None:
            output_ps.append(_placements(given, o.dim(), mesh, f"outputs[{i}]"))
            continue
        # The last pin on this very value, as torch returns it.
        last = [p for p in pins if p[0] is o]
        output_ps.append(pin(last[-1][1] if last else hp.Replicate(), o,
                             last[-1][2] if last else f"output {i}"))
    if outputs is not None and len(outputs) > len(outs):
        raise ValueError(f"outputs: {len(outputs)} placement lists for {len(outs)} outputs")
    return output_ps


def _global_view(ctx, imported, mesh, arg_ps, output_ps, pins, pin, arg_names):
    """torch-mlir's @forward prepared, annotated with the placements of its
    arguments and outputs, the plan's pins (its results after the outputs)
    and the names of its parameters and buffers (``dtensor.arg_name``, which
    gather warnings quote), and globalized."""
    module = hp.Module.parse(ctx, imported, "torch-mlir")
    module.run(_PREPARE)
    mesh.add_to(module)
    fn = module.lookup("forward")
    fn.set_attribute("dtensor.mesh", hp.Attribute.parse(ctx, f"@{mesh.name}"))

    def attr(ps):
        return hp.Attribute.parse(ctx, "[" + ", ".join(str(p.to_mlir(ctx)) for p in ps) + "]")

    for i, ps in enumerate(arg_ps):
        fn.set_arg_attribute(i, "dtensor.placements", attr(ps))
    for i, name in enumerate(arg_names):
        if name is not None:
            fn.set_arg_attribute(i, "dtensor.arg_name", hp.Attribute.parse(ctx, f'"{name}"'))
    for i, ps in enumerate(output_ps):
        fn.set_result_attribute(i, "dtensor.placements", attr(ps))
    for k, (t, layout, what) in enumerate(pins):
        fn.set_result_attribute(len(output_ps) + k, "dtensor.constrain",
                                attr(pin(layout, t, what)))
    module.run("builtin.module(dtensor-globalize)")
    return module


# Symbols the program defines itself.
_RESERVED = ("forward", "main", "hp_read_tensor", "hp_read_tensor_block", "hp_write_tensor",
             "rtclock", "hp_session_next", "hp_session_done", "hp_session_entry")


def _refuse_mutation(program, flat_names):
    """hp programs are functions: a module that writes to a buffer or an
    input (BatchNorm in training mode, an in-place update of an argument)
    is refused, naming what it writes."""
    signature = program.graph_signature
    user_inputs = list(signature.user_inputs)
    written = list(getattr(signature, "user_inputs_to_mutate", {}).values()) + \
        list(getattr(signature, "buffers_to_mutate", {}).values())
    if written:
        what = [flat_names[user_inputs.index(w)] if w in user_inputs else w for w in written]
        raise ValueError(f"the module writes to {', '.join(what)} (an in-place update, or a "
                         "layer in training mode): hp exports functions; export it in eval "
                         "mode or without in-place updates")


def _refuse_unsupported(text):
    """What torch-mlir emits outside linalg on tensors, named for the user."""
    if "ml_program." in text:
        raise ValueError("the module draws random numbers (dropout in training mode?): "
                         "hp exports deterministic programs; export it in eval mode")
    extra = sorted(set(re.findall(r"\b(tm_tensor\.\w+)", text)))
    if extra:
        raise ValueError(f"torch-mlir lowered part of the module to {', '.join(extra)} "
                         "(index_put, index_add, a sort of rows longer than "
                         f"{_decompose.MAX_RANKED}, ...), which hp does not take yet")


#===------------------------------------------------------------------------===#
# run
#===------------------------------------------------------------------------===#

def run(prog, args, params=None, np=None, timeout=600, extra_args=(), repeat=1):
    """Runs ``prog`` on ``np`` CPU ranks (default and only value: the mesh's
    size) and returns its outputs as full torch tensors (a tuple when there
    are several). ``params`` maps parameter names to tensors (buffers default
    to their export-time values). Raises ValueError for an ``np`` other than
    the mesh's size or arguments that do not match the export, and
    hp.RunError when a rank fails. ``repeat`` > 1 runs the forward pass
    that many times in one launch (:func:`time_step` reports the time)."""
    outs, _ = _launch(prog, args, params, np, timeout, extra_args, repeat)
    return outs[0] if len(outs) == 1 else tuple(outs)


def time_step(prog, args, params=None, steps=10, np=None, timeout=600, extra_args=()):
    """Runs the forward pass ``steps`` (at least 2) times in one launch and
    returns ``(outputs, seconds)``: the last call's outputs, as :func:`run`
    returns them, and the wall-clock seconds per call on rank 0 over all but
    the first (warm-up) call, measured inside the program, so neither the
    launch nor compilation counts."""
    hp._check_int(steps, "steps", 2)
    outs, step = _launch(prog, args, params, np, timeout, extra_args, steps)
    return (outs[0] if len(outs) == 1 else tuple(outs)), step


def _launch(prog, args, params, np, timeout, extra_args, repeat):
    """Runs ``prog``'s driver; returns the outputs and, with ``repeat`` > 1,
    the seconds per timed step (else None)."""
    if not isinstance(prog, Program):
        raise TypeError(f"expected an hp.torch.Program, got {type(prog).__name__}")
    np = prog._ranks(np)
    # A signal that ends Python ends the job and removes the argument
    # (weight) files too (hp._JobSignals); it waits while the directory is
    # made or removed, so that neither is left half done.
    with hp._JobSignals():
        tmp = None
        try:
            with hp._JobSignals.hold():
                tmp = tempfile.mkdtemp(prefix="hp-torch-")
            prog.write_arguments(tmp, args, params)
            path = os.path.join(tmp, "program.mlir")
            prog.save(path, repeat)
            hp.run(path, np=np, timeout=timeout, extra_args=extra_args,
                   env={"HP_TENSOR_DIR": tmp})
            outs = prog.read_results(tmp)
            step = None
            if repeat > 1:
                with open(os.path.join(tmp, f"result{len(outs)}.bin"), "rb") as f:
                    step = float(torch.frombuffer(bytearray(f.read()),
                                                  dtype=torch.float64)[0])
        finally:
            with hp._JobSignals.hold():
                if tmp:
                    shutil.rmtree(tmp, ignore_errors=True)
    return outs, step


def collectives(prog):
    """What ``prog``'s ``@forward`` moves on its mesh: ``{"counts": {kind: n},
    "bytes": bytes one rank sends}`` (see :func:`hp.collectives`)."""
    return hp.collectives(prog.module, "forward")


from hp._session import Session  # noqa: E402  (it uses Program)
from hp._checkpoint import Checkpoint  # noqa: E402
from hp._generate import Generator, generate  # noqa: E402  (they use export and Session)


from hp._train import Trainer  # noqa: E402  (it builds on this module)
