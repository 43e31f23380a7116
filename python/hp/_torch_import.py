"""A torch module traced by torch.export, imported by torch-mlir (linalg on
tensors) and annotated with placements: the global view that hp's
propagation places."""

import os
import re

import torch

import hp
from hp import _decompose, _hp, _runtime_abi
from hp._torch_plan import _pin_hook, _placements
from hp._torch_program import _DTYPES, _distinct, _from_wire, _to_wire


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


def _import(importer, model, args, state, planned):
    """The model traced by torch.export and imported by torch-mlir's
    ``importer`` (linalg on tensors) as @forward: its text, the outputs,
    the plan's pins and the inputs to check as loss targets
    (``_decompose.target_checks``)."""
    names = list(state)
    values = [t.detach() for t in state.values()]
    args = _distinct(args)
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
    checks = [c for c in _decompose.target_checks(program) if c[0] < len(args)]
    return _lower(importer, program, len(exported.outs) + len(exported.pins)), \
        exported.outs, exported.pins, checks


def _lower(importer, program, n_results):
    """The exported ``program`` imported by torch-mlir's ``importer``
    (linalg on tensors) as @forward with ``n_results`` results: its text,
    with locations (each op at its torch op and the user's line)."""
    _decompose.views_as_reshapes(program)
    lowered = importer(program, output_type="linalg-on-tensors", func_name="forward",
                       decomposition_table=_decompose.decomposition_table(),
                       fx_importer=_located_importer())
    from torch_mlir import ir

    ops = list(_nested_ops(lowered.operation))
    # Each rewrite erases the ops it replaces: the list is read afresh.
    for rewrite in (_scans_as_dtensor, _sorts_as_dtensor):
        if rewrite(lowered.context, ops):
            ops = list(_nested_ops(lowered.operation))
    _refuse_unsupported({op.name for op in ops})
    # torch-mlir returns what functionalization found written as extra results.
    forward = next(op for op in ops if op.name == "func.func"
                   and ir.StringAttr(op.attributes["sym_name"]).value == "forward")
    returned = len(ir.FunctionType(ir.TypeAttr(forward.attributes["function_type"]).value)
                   .results)
    if returned != n_results:
        raise ValueError(f"torch-mlir returned {returned} results where "
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


def _global_view(ctx, imported, mesh, arg_ps, output_ps, pins, pin, arg_names,
                 fsdp_axes=None):
    """torch-mlir's @forward prepared, annotated with the placements of its
    arguments and outputs, the plan's pins (its results after the outputs)
    and the names of its parameters and buffers (``dtensor.arg_name``, which
    gather warnings quote), and globalized. ``fsdp_axes`` maps an argument's
    index to the mesh dims FSDP splits it along (``dtensor.fsdp_axes``)."""
    module = hp.Module.parse(ctx, imported, "torch-mlir")
    module.run(_PREPARE)
    mesh.add_to(module)
    fn = module.lookup("forward")
    fn.set_mesh(mesh.name)

    def attrs(ps):
        return [p.to_mlir(ctx) for p in ps]

    for i, ps in enumerate(arg_ps):
        fn.set_arg_placements(i, attrs(ps))
    for i, name in enumerate(arg_names):
        if name is not None:
            fn.set_arg_name(i, name)
    for i, axes in (fsdp_axes or {}).items():
        fn.set_arg_fsdp_axes(i, list(axes))
    for i, ps in enumerate(output_ps):
        fn.set_result_placements(i, attrs(ps))
    for k, (t, layout, what) in enumerate(pins):
        fn.set_result_constrain(len(output_ps) + k, attrs(pin(layout, t, what)))
    module.run("builtin.module(dtensor-globalize)")
    return module


# Symbols the program defines itself: hp.torch's function, the driver's
# entry point and the runtime functions it calls.
_RESERVED = ("forward", "main") + _runtime_abi.DRIVER_FUNCTIONS


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


def _nested_ops(op):
    """Every op nested in ``op`` (torch-mlir's IR), in order, but those in
    the bodies of linalg ops (scalar code, and most of the module)."""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                inner = inner.operation
                yield inner
                if not inner.name.startswith("linalg."):
                    yield from _nested_ops(inner)


# The combiners of torch-mlir's scans (cumsum, cumprod) as dtensor.scan kinds.
_SCAN_KINDS = {"arith.addf": "sum", "arith.addi": "sum",
               "arith.mulf": "prod", "arith.muli": "prod"}


def _scan_kind(scan):
    """The dtensor.scan kind of torch-mlir's ``tm_tensor.scan`` op ``scan``:
    an inclusive scan of one input whose body combines its two arguments by
    one op of _SCAN_KINDS and whose final accumulator is unused; else
    None (the op is then refused by name)."""
    from torch_mlir import ir

    block = scan.regions[0].blocks[0]
    body = [op.operation for op in block.operations]
    if len(scan.operands) != 3 or len(body) != 2 or \
            not ir.BoolAttr(scan.attributes["inclusive"]).value or \
            list(scan.results[1].uses) or scan.operands[0].type != scan.results[0].type:
        return None
    combine, yielded = body
    arguments = set(block.arguments)
    if combine.name not in _SCAN_KINDS or set(combine.operands) != arguments or \
            list(yielded.operands) != [combine.results[0]]:
        return None
    return _SCAN_KINDS[combine.name]


def _scans_as_dtensor(context, ops):
    """Rewrites each ``tm_tensor.scan`` among ``ops`` that :func:`_scan_kind`
    names as hp's ``dtensor.scan`` (in place; whether any was), which hp
    places and lowers in linear time (torch-mlir's is a sequential loop
    hp does not take). torch-mlir's context does not know hp's dialect: the
    op is built by name, its kind as the reduce op's integer value, and
    prints in the generic form, which hp parses."""
    from torch_mlir import ir

    rewritten = False
    # Chosen before any is erased (ops also lists the erased ops' bodies).
    for scan in [op for op in ops if op.name == "tm_tensor.scan"]:
        kind = _scan_kind(scan)
        if not kind:
            continue
        context.allow_unregistered_dialects = True
        dim = ir.IntegerAttr(scan.attributes["dimension"]).value
        with ir.InsertionPoint(scan), scan.location:
            op = ir.Operation.create(
                "dtensor.scan", results=[scan.results[0].type], operands=[scan.operands[0]],
                attributes={"dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim),
                            "kind": ir.IntegerAttr.get(ir.IntegerType.get_signless(32),
                                                       _hp.reduce_op_value(kind))})
        scan.results[0].replace_all_uses_with(op.results[0])
        scan.erase()
        rewritten = True
    return rewritten


# torch-mlir's sort comparators (arith.cmpf / cmpi predicates, by their
# enum values): whether each sorts descending. Integers compare signed
# (uint8 is widened first, _decompose._sort); a boolean sort comes as
# sle / sge on i1, and dtensor.sort orders booleans as torch does.
_CMPF_DESCENDING = {2: True, 3: True, 9: True, 10: True,     # ogt oge ugt uge
                    4: False, 5: False, 11: False, 12: False}  # olt ole ult ule
_CMPI_DESCENDING = {4: True, 5: True, 2: False, 3: False}      # sgt sge slt sle


def _sort_order(sort):
    """Whether torch-mlir's ``tm_tensor.sort`` op ``sort`` sorts descending:
    two outputs, the values and their positions along the dim (a
    linalg.generic of linalg.index of that dim), and a comparator that is
    one comparison of the two values; None for any other sort."""
    from torch_mlir import ir

    if len(sort.operands) != 2 or len(sort.regions[0].blocks) != 1 or \
            sort.operands[0].type != sort.results[0].type:
        return None
    block = sort.regions[0].blocks[0]
    body = [op.operation for op in block.operations]
    if len(body) != 2 or len(block.arguments) != 4:
        return None
    compare, yielded = body
    if list(compare.operands) != list(block.arguments)[:2] or \
            list(yielded.operands) != [compare.results[0]]:
        return None
    order = {"arith.cmpf": _CMPF_DESCENDING, "arith.cmpi": _CMPI_DESCENDING}.get(compare.name)
    if order is None:
        return None
    predicate = ir.IntegerAttr(compare.attributes["predicate"]).value
    dim = ir.IntegerAttr(sort.attributes["dimension"]).value
    positions = sort.operands[1].owner
    if isinstance(positions, ir.Block) or positions.operation.name != "linalg.generic":
        return None
    inner = [op.operation for op in positions.operation.regions[0].blocks[0].operations]
    if [op.name for op in inner] != ["linalg.index", "arith.index_cast", "linalg.yield"] or \
            ir.IntegerAttr(inner[0].attributes["dim"]).value != dim:
        return None
    return order.get(predicate)


def _sorts_as_dtensor(context, ops):
    """Rewrites each ``tm_tensor.sort`` among ``ops`` that :func:`_sort_order`
    reads as hp's ``dtensor.sort`` (in place; whether any was): torch's
    ``sort`` and ``topk`` (a slice of the sort), which hp places by rows and
    lowers to a radix sort, linear in time and memory. The values' order is
    torch's (NaN largest), stable among equals."""
    from torch_mlir import ir

    rewritten = False
    # Chosen before any is erased (ops also lists the erased ops' bodies).
    for sort in [op for op in ops if op.name == "tm_tensor.sort"]:
        descending = _sort_order(sort)
        if descending is None:
            continue
        context.allow_unregistered_dialects = True
        attributes = {"dim": ir.IntegerAttr.get(
            ir.IntegerType.get_signless(64, context=context),
            ir.IntegerAttr(sort.attributes["dimension"]).value)}
        if descending:
            attributes["descending"] = ir.UnitAttr.get(context=context)
        with ir.InsertionPoint(sort), sort.location:
            op = ir.Operation.create(
                "dtensor.sort", results=[sort.results[0].type, sort.results[1].type],
                operands=[sort.operands[0]], attributes=attributes)
        sort.results[0].replace_all_uses_with(op.results[0])
        sort.results[1].replace_all_uses_with(op.results[1])
        sort.erase()
        rewritten = True
    return rewritten


def _refuse_unsupported(names):
    """What torch-mlir emits outside linalg on tensors (``names``: the op
    names of the module), named for the user."""
    if any(n.startswith("ml_program.") for n in names):
        raise ValueError("the module draws random numbers (dropout in training mode?): "
                         "hp exports deterministic programs; export it in eval mode")
    extra = sorted(n for n in names if n.startswith("tm_tensor."))
    if extra:
        raise ValueError(f"torch-mlir lowered part of the module to {', '.join(extra)} "
                         "(index_put, index_add, ...), which hp does not take yet")
