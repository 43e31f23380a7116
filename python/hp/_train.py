"""hp.torch.Trainer: a training step (forward, backward and the optimizer's
update) as one program, run on a session.

The step is traced once: ``torch.func.grad_and_value`` over the model's
trained parameters (``functional_call``) gives the joint forward and
backward graph, and the optimizer's update follows as plain tensor ops with
torch's own formulas (docs/Training.md). The traced function takes the
inputs, the targets, one tensor of the optimizer's scalars for the step
(learning rate, bias corrections: computed by the host each step, in
double precision as torch computes them, so that a scheduler's changes
apply) and the state: parameters, buffers and optimizer state. It returns
the loss, then the new parameters and optimizer state, which the session
keeps resident (``Session(state=...)``): only inputs, targets and the
scalars travel per step, only the loss comes back.

Placements: parameters take the plan's (and ``params``'); ``fsdp`` adds
``Shard(0)`` on that mesh dim to every trained parameter (FSDP / ZeRO-3);
optimizer state takes its parameter's. Gradients are intermediate values,
placed by dtensor-propagate with the rest of the step.
"""


import torch

import hp
from hp._optimizer import _Optimizer, _state_name
from hp import _decompose, _placement, _torch_import, _torch_plan, _torch_program
from hp._session import Session
from hp._torch_export import _checked_export_arguments


class Trainer:
    """``Trainer(model, loss_fn, example_inputs, example_targets, mesh,
    optimizer=opt, plan=None, params=None, inputs=None, targets=None,
    fsdp=None, np=None, plan_dim=None)``: ``model``'s training step under
    ``opt`` (torch.optim.SGD, Adam or AdamW over the model's parameters),
    compiled once as one program on ``mesh`` and run on a session.

    ``loss_fn(output, *targets)`` returns the scalar loss. ``plan``,
    ``params``, ``inputs`` and ``plan_dim`` place as :func:`hp.torch.export`
    does; ``targets`` gives one placement list per target (default: the
    placement every input shares on each mesh dim, such as the batch split
    of data parallel). ``fsdp`` (a mesh dim's name or index) splits every
    trained parameter's dim 0 over that mesh dim as well (FSDP / ZeRO-3;
    otherwise parameters replicated there are replicated, as in DDP), and
    marks those parameters ``dtensor.fsdp_axes``: gathering them along that
    dim is the step's, not a memory cost the placement avoids.

    ``tr.step(inputs, targets)`` runs one step (forward, backward, the
    optimizer's update of every parameter it holds) and returns the loss as
    a float; the optimizer's hyperparameters are read at each step.
    ``tr.state_dict()`` returns the parameters and buffers as full tensors
    (``model.load_state_dict`` takes it), ``tr.optimizer_state_dict()`` the
    optimizer's state as ``opt.load_state_dict`` takes it. ``tr.close()``
    (or leaving a ``with`` block) stops the ranks. ``tr.collectives()``
    says what one step moves, ``tr.peak_memory()`` each rank's peak
    resident bytes. The model and optimizer passed in are read, never
    changed.
    """

    def __init__(self, model, loss_fn, example_inputs, example_targets, mesh,
                 optimizer=None, plan=None, params=None, inputs=None, targets=None,
                 fsdp=None, np=None, plan_dim=None):
        self._session = None
        if not callable(loss_fn):
            raise TypeError(f"loss_fn must be callable, got {type(loss_fn).__name__}")
        if optimizer is None:
            raise TypeError("hp.torch.Trainer needs optimizer= (a torch.optim.SGD, Adam or "
                            "AdamW over the model's parameters)")
        xs = _checked_export_arguments(model, example_inputs, mesh, params, inputs,
                                       None, plan, None)
        ts = _checked_targets(example_targets, targets)
        # A target that is the input (an autoencoder) is traced as its own
        # argument.
        flat = _torch_program._distinct([*xs, *ts])
        xs, ts = tuple(flat[:len(xs)]), tuple(flat[len(xs):])
        state, canonical = _torch_plan._state(model)
        params_by_id = {id(t): n for n, t in model.named_parameters()}
        opt = _Optimizer(optimizer, params_by_id)
        self._opt = opt
        # torch steps the parameters that get a gradient: those that
        # require one.
        requires = {n for n, p in model.named_parameters() if p.requires_grad}
        trained = [n for n in state if n in opt.group_of and n in requires]
        for n in trained:
            if not state[n].dtype.is_floating_point:
                raise ValueError(f"optimizer: '{n}' is {state[n].dtype}; hp trains floating "
                                 "point parameters")
        dim = _torch_plan._plan_dim(mesh, plan_dim)
        if plan == "auto":
            plan = _torch_plan._auto_plan(model)
        planned = _torch_plan._plan_modules(model, plan or {})
        placed = _torch_plan._state_placements(mesh, dim, state, canonical, planned, params)
        fsdp_dim = None if fsdp is None else _torch_plan._plan_dim(mesh, fsdp)
        fsdp_split = set() if fsdp is None else _split_rows(placed, trained, state, fsdp_dim)
        keys = opt.state_keys()
        opt_names = [_state_name(k, n) for n in trained for k in keys]
        input_ps = _torch_plan._input_placements(mesh, xs, inputs)
        target_ps = _target_placements(mesh, xs, input_ps, ts, targets)
        rep = [hp.Replicate()] * mesh.ndim
        # The scalars in double for a double model, as torch applies them.
        self._scalar_dtype = torch.float64 if trained and all(
            state[n].dtype == torch.float64 for n in trained) else torch.float32
        hyper = opt.scalars(1, self._scalar_dtype)
        names = list(state) + opt_names
        init = self._initial_state(state, trained, keys)
        for n in trained:
            for k in keys:
                placed[_state_name(k, n)] = _placement.optimizer_state_placements(
                    placed[n], state[n].shape, init[_state_name(k, n)].shape)
        self._step_count = init.pop(None)

        gm, pins = _trace(model, loss_fn, xs, ts, hyper, state, trained, opt, keys,
                          [init[n] for n in names], names, planned)
        program = torch.export.export(gm, tuple(_torch_program._to_wire(t) for t in
                                                (*xs, *ts, hyper, *[init[n] for n in names])),
                                      strict=False)
        from torch_mlir import fx
        n_out = 1 + len(trained) + len(opt_names)
        checks = [c for c in _decompose.target_checks(program)
                  if len(xs) <= c[0] < len(xs) + len(ts)]
        text = _torch_import._lower(fx.export_and_import, program, n_out + len(pins))
        pin = _torch_plan._Pin(mesh, dim, input_ps)
        updated = trained + opt_names
        output_ps = [list(rep)] + [placed[n] for n in updated]
        ctx = hp.Context()
        first = len(xs) + len(ts) + 1
        # The parameters FSDP splits: each step gathers them along that dim,
        # which the chooser then does not count against their memory.
        fsdp_axes = {first + i: [fsdp_dim] for i, n in enumerate(names) if n in fsdp_split}
        module = _torch_import._global_view(ctx, text, mesh, input_ps + target_ps + [list(rep)] +
                                  [placed[n] for n in names], output_ps, pins, pin,
                                  [None] * first + names, fsdp_axes)
        # Placed once, here (the choice stays in the module as dtensor.strategy
        # annotations): the ops that run replicated are said now. What a step
        # moves (collectives()) is a partitioning of a copy, applying that
        # choice, made when it is first asked for: the session's launcher
        # lowers the same program, and a second lowering on the same cores
        # would only delay the first step.
        remarks = [d for d in module.run("builtin.module(dtensor-choose-strategies)")
                   if d.kind == "runs-replicated"]
        self._placed_text = str(module)
        self._moved = None
        input_specs = [(tuple(t.shape), t.dtype, ps) for t, ps in
                       zip((*xs, *ts, hyper), input_ps + target_ps + [rep])]
        state_specs = {n: (tuple(init[n].shape), init[n].dtype, placed[n]) for n in names}
        loss_dtype = _loss_dtype(gm)
        output_specs = [((), loss_dtype, rep)] + [state_specs[n] for n in updated]
        buffers = {n: b.detach().clone() for n, b in model.named_buffers()}
        self.program = _torch_program.Program(module, mesh, input_specs, state_specs, output_specs,
                                   buffers, remarks,
                                   {a: c for a, c in canonical.items() if a != c}, checks)
        self._keys = keys
        self._targets = len(ts)
        self._trained_set = set(trained)
        self._aliases = canonical
        self._param_names = params_by_id
        self._fixed = {n: init[n] for n in state if n not in trained}
        self._model_names = list(model.state_dict(keep_vars=True))
        self._session = Session(self.program, params={n: init[n] for n in names},
                                np=np, state={n: 1 + i for i, n in enumerate(updated)})

    def _initial_state(self, state, trained, keys):
        """Every argument's first value (the model's parameters and buffers,
        the optimizer's state: zeros, or what the optimizer already holds)
        by name, and under ``None`` the steps already taken."""
        init = {n: t.detach().clone() for n, t in state.items()}
        steps = set()
        by_name = {n: p for n, p in state.items() if n in trained}
        for n in trained:
            held = self._opt.opt.state.get(by_name[n], {})
            for k in keys:
                t = held.get(k)
                init[_state_name(k, n)] = torch.zeros_like(init[n]) if t is None else \
                    t.detach().clone()
            if self._opt.kind == "adam":
                steps.add(int(float(held["step"])) if "step" in held else 0)
            else:
                steps.add(1 if held.get("momentum_buffer") is not None else 0)
        if len(steps) > 1:
            raise ValueError("optimizer: its parameters have taken different numbers of "
                             "steps; hp steps them together")
        init[None] = steps.pop() if steps else 0
        return init

    def step(self, inputs, targets):
        """One training step on ``inputs`` and ``targets`` (tensors shaped as
        the examples); the loss, a float."""
        if self.closed:
            raise RuntimeError("the hp.torch.Trainer is closed")
        xs = _torch_program._as_tuple(inputs, "inputs")
        ts = _torch_program._as_tuple(targets, "targets")
        # Checked here so that errors name the user's inputs and targets,
        # not the program's (which has the optimizer's scalars among them).
        specs = self.program.input_specs
        for what, given, want in (("inputs", xs, specs[:len(specs) - 1 - self._targets]),
                                  ("targets", ts, specs[len(specs) - 1 - self._targets:-1])):
            if len(given) != len(want):
                raise ValueError(f"Trainer.step takes {len(want)} {what}, got {len(given)}")
            for i, (t, (shape, dtype, _)) in enumerate(zip(given, want)):
                _torch_program._checked_tensor(t, shape, dtype, f"{what}[{i}]")
        self._opt.check_shape()
        hyper = self._opt.scalars(self._step_count + 1, self._scalar_dtype)
        loss = self._session(*xs, *ts, hyper)
        self._step_count += 1
        return float(loss)

    def state_dict(self):
        """The parameters and buffers now, as full tensors by the model's
        ``state_dict`` names."""
        values = self._resident()
        return {n: values[self._aliases.get(n, n)] for n in self._model_names}

    def optimizer_state_dict(self):
        """The optimizer's state now, as torch's ``state_dict`` of the
        optimizer passed in holds it (``opt.load_state_dict`` takes it)."""
        values = self._resident()
        opt = self._opt.opt
        names = self._param_names
        out_state, groups, index = {}, [], 0
        for group in opt.param_groups:
            ids = []
            for p in group["params"]:
                n = names[id(p)]
                if n not in self._trained_set:
                    # Not stepped (no gradient): what torch's optimizer held.
                    held = opt.state.get(p)
                    if held:
                        out_state[index] = {k: v.clone() if torch.is_tensor(v) else v
                                            for k, v in held.items()}
                    ids.append(index)
                    index += 1
                    continue
                entry = {k: values[_state_name(k, n)] for k in self._keys}
                if self._opt.kind == "adam":
                    entry["step"] = torch.tensor(float(self._step_count))
                if entry and self._step_count > 0:
                    out_state[index] = entry
                ids.append(index)
                index += 1
            groups.append({**{k: v for k, v in group.items() if k != "params"},
                           "params": ids})
        return {"state": out_state, "param_groups": groups}

    def _resident(self):
        if self.closed:
            raise RuntimeError("the hp.torch.Trainer is closed")
        values = dict(self._fixed)
        values.update(self._session.state())
        return values

    def collectives(self):
        """What one step moves: as :func:`hp.torch.collectives` says."""
        if self._moved is None:
            copy = hp.Module.parse(hp.Context(), self._placed_text, "step")
            copy.run("builtin.module(hp-partition)")
            self._moved = hp.partitioned_collectives(copy, "forward")
        return {k: dict(v) if isinstance(v, dict) else v for k, v in self._moved.items()}

    def peak_memory(self):
        """Every rank's peak resident memory so far, in bytes (rank 0
        first)."""
        if self.closed:
            raise RuntimeError("the hp.torch.Trainer is closed")
        return self._session.peak_memory()

    @property
    def compile_report(self):
        """How hp-runner came by the step's compiled program
        (:attr:`hp.torch.Session.compile_report`), once a step has run."""
        return None if self._session is None else self._session.compile_report

    @property
    def closed(self):
        return self._session is None or self._session.closed

    def close(self):
        if self._session is not None:
            self._session.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _split_rows(placed, trained, state, d):
    """FSDP: every trained parameter also split by rows on mesh dim ``d``
    where nothing splits it there yet (the rule is C++'s,
    _placement.fsdp_split). (A column-parallel weight's rows are
    then split by "dp" outside "tp"'s blocks; torch's FSDP2 splits them
    inside, ``_StridedShard``. hp takes both, and measured the plain split
    cheaper on its planner: docs/Training.md.) Returns the names it split."""
    split = set()
    for n in trained:
        ps = _placement.fsdp_split(placed[n], state[n].dim(), d)
        if ps != placed[n]:
            placed[n] = ps
            split.add(n)
    return split


def _checked_targets(example_targets, targets):
    _torch_plan._check_placement_lists(targets, "targets")
    return _torch_program._checked_tensors(_torch_program._as_tuple(example_targets, "example_targets"), "target")


def _target_placements(mesh, xs, input_ps, ts, targets):
    """``targets``' placements; where absent, C++'s rule for a value without
    a layout (_placement.placements_from_inputs): on each mesh dim the shard
    every input shares there when the target can take it, else replicate."""
    if targets is not None:
        return _torch_plan._input_placements(mesh, ts, targets, "targets")
    return [_placement.placements_from_inputs(input_ps, t.dim(), mesh.ndim) for t in ts]


def _trace(model, loss_fn, xs, ts, hyper, state, trained, opt, keys, values, names,
           planned):
    """The step as an FX graph of aten ops (make_fx over grad_and_value;
    functionalized, so the graph writes nothing in place) of the wire
    values of (*xs, *ts, hyper, *values), and the plan's pins: its results
    are the loss, the new trained parameters, the new optimizer state (by
    parameter, then key) and the pinned values."""
    from torch.fx.experimental.proxy_tensor import make_fx

    dtypes = [t.dtype for t in (*xs, *ts, hyper, *values)]
    n_x, n_t = len(xs), len(ts)
    # The plan's pins (what its styles fix of module inputs and outputs):
    # (value, layout, name), the values returned after the rest.
    pins = []

    def step(*flat):
        flat = [_torch_program._from_wire(t, d) for t, d in zip(flat, dtypes)]
        x, t, h = flat[:n_x], flat[n_x:n_x + n_t], flat[n_x + n_t]
        held = dict(zip(names, flat[n_x + n_t + 1:]))
        fixed = {n: held[n] for n in state if n not in trained}

        def loss_of(ws):
            pins.clear()  # a trace that is retried starts afresh
            handles = []
            for path, module, style in planned:
                handles.append(module.register_forward_pre_hook(
                    _torch_plan._pin_hook(pins, path, style.inputs, "input")))
                handles.append(module.register_forward_hook(
                    _torch_plan._pin_hook(pins, path, style.outputs, "output")))
            try:
                out = torch.func.functional_call(
                    model, {**fixed, **dict(zip(trained, ws))}, tuple(x))
            finally:
                for handle in handles:
                    handle.remove()
            loss = loss_fn(out, *t)
            if not isinstance(loss, torch.Tensor) or loss.numel() != 1 or \
                    not loss.dtype.is_floating_point:
                raise ValueError("loss_fn must return a scalar floating point tensor, got "
                                 f"{_describe(loss)}")
            # Pinned values leave the gradient transform as its aux outputs.
            return loss.reshape(()), tuple(v for v, _, _ in pins)

        grads, (loss, pinned) = torch.func.grad_and_value(loss_of, has_aux=True)(
            [held[n] for n in trained])
        new_params, new_state = [], []
        for n, g in zip(trained, grads):
            group = opt.group_of[n]
            p, st = opt.update(group, held[n], g, [held[_state_name(k, n)] for k in keys],
                               h[group])
            new_params.append(p)
            new_state += st
        return (loss, *new_params, *new_state, *[_torch_program._to_wire(v) for v in pinned])

    # Traced as torch.export traces (its compiling and exporting flags set):
    # libraries that skip host-side checks under export (transformers'
    # packed-sequence test on position ids) skip them here too.
    # Attention through SDPA's math backend: plain matmuls and a softmax,
    # whose backward is theirs, where the fused CPU kernel's backward is one
    # opaque op torch-mlir cannot lower.
    from torch._export.utils import _compiling_state_context
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with _compiling_state_context(), sdpa_kernel(SDPBackend.MATH):
        gm = make_fx(torch.func.functionalize(step, remove="mutations"),
                     tracing_mode="fake")(
            *[_torch_program._to_wire(v) for v in (*xs, *ts, hyper, *values)])
    return gm, [(torch.empty(v.shape, device="meta"), layout, what)
                for v, layout, what in pins]


def _describe(v):
    if isinstance(v, torch.Tensor):
        return f"a {v.dtype} tensor of shape {tuple(v.shape)}"
    return f"a {type(v).__name__}"


def _loss_dtype(gm):
    out = next(n for n in gm.graph.nodes if n.op == "output").args[0][0]
    return out.meta["val"].dtype
