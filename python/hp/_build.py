"""Builders of dtensor IR: types, local and global regions, constraints,
local calls and the conversions between local tensors and DTensors, each a
call into _hp (hp's C API); ops are located at the user's line that builds
them."""

from . import _hp
from ._hp import Value
from ._placement import DeviceMesh, Placement


def _placements(ctx, mesh, placements):
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"expected a DeviceMesh, got {type(mesh).__name__}")
    placements = list(placements)
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"expected a Placement (Shard, Replicate, Partial), got {p!r}")
    if len(placements) != mesh.ndim:
        raise ValueError(f"{len(placements)} placements for a mesh of rank {mesh.ndim}")
    return [p.to_mlir(ctx) for p in placements]


def dtensor_type(ctx, shape, element_type, mesh, placements):
    """``!dtensor.tensor<shape x element_type, @mesh, [placements]>``;
    ``element_type`` a scalar type's name (``"f32"``, ``"bf16"``, ``"i64"``,
    ...) or an ``hp.Type``."""
    placements = _placements(ctx, mesh, placements)
    return _hp.dtensor_type(ctx, list(shape), element_type, mesh.name, placements)


def _region_placements(ctx, mesh, in_placements, out_placements):
    """``in_placements`` and ``out_placements`` of local_region and
    local_call as _hp takes them: ``(ins, outs)``, ``outs`` one list or None
    per output (a flat ``out_placements``, one output's placements, is
    wrapped)."""
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"expected a DeviceMesh, got {type(mesh).__name__}")
    ins = None
    if in_placements is not None:
        if not isinstance(in_placements, dict):
            raise TypeError("in_placements must be a dict of name -> placements or None")
        ins = [(name, None if ps is None else _placements(ctx, mesh, ps))
               for name, ps in in_placements.items()]
    outs = None
    if out_placements is not None:
        out_placements = list(out_placements)
        if out_placements and all(isinstance(p, Placement) for p in out_placements):
            out_placements = [out_placements]
        outs = [None if ps is None else _placements(ctx, mesh, ps) for ps in out_placements]
    return ins, outs


def _build_body(body_block, body):
    """Runs ``body(body_block, *arguments)`` and yields what it returns (a
    Value, a list of them, or None for nothing)."""
    values = body(body_block, *body_block.arguments)
    if values is None:
        values = []
    elif isinstance(values, Value):
        values = [values]
    yield_(body_block, list(values))


def local_region(ctx, block, mesh, args, results, in_placements=None,
                 out_placements=None, redistribute_inputs=False, body=None):
    """Appends a ``dtensor.local_region`` to ``block``.

    ``args`` is a list of ``(value, name)``; ``in_placements`` maps names to
    placement lists or ``None``; ``out_placements`` is one placement list
    (flat form) or a list of placement lists / ``None`` (per-output form).
    Returns ``(operation, body)``: append the body's ops to ``body`` (its
    arguments have the local types) and finish with ``yield_``. Or pass
    ``body=fn``: ``fn(body_block, *local_args)`` builds the body and returns
    the values to yield, and the yield is added for you.
    """
    ins, outs = _region_placements(ctx, mesh, in_placements, out_placements)
    op, body_block = _hp.add_local_region(block, mesh.name, list(mesh.shape), list(args),
                                          ins, outs, redistribute_inputs,
                                          list(results))
    if body is not None:
        _build_body(body_block, body)
    return op, body_block


def global_region(block, mesh, args, results, body=None):
    """Appends a ``dtensor.global_region`` on ``mesh`` to ``block``: a whole
    program on global tensors, placed by ``dtensor-propagate``.

    ``args`` are values (DTensors enter the body as their global tensors,
    anything else unchanged); ``results`` are the result types. Returns
    ``(operation, body)``: append the body's ops to ``body`` and finish with
    ``yield_``, or pass ``body=fn`` as for ``local_region``.
    """
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"expected a DeviceMesh, got {type(mesh).__name__}")
    op, body_block = _hp.add_global_region(block, mesh.name, list(args), list(results))
    if body is not None:
        _build_body(body_block, body)
    return op, body_block


def constrain(ctx, block, value, mesh, placements):
    """Appends ``dtensor.constrain value [placements]`` (inside a
    global_region): pins the value's placements; returns the op."""
    return _hp.add_constrain(block, value, _placements(ctx, mesh, placements))


def local_call(func, device_mesh, in_placements=None, out_placements=None,
               redistribute_inputs=False, unchecked=False):
    """The seed's ``local_region(func, device_mesh=..., in_placements=...,
    out_placements=..., redistribute_inputs=...)`` over a named ``func.func``.

    ``func`` is the name of a function whose arguments were named with
    ``add_function(..., arg_names=[...])`` (``dtensor.arg_name``). Returns a
    callable ``call(ctx, block, *args, results=[...])`` that appends a
    ``dtensor.local_call`` of it at one call site and returns the op; many
    call sites share the function.
    """

    def call(ctx, block, *args, results):
        ins, outs = _region_placements(ctx, device_mesh, in_placements,
                                       out_placements)
        return _hp.add_local_call(block, func, device_mesh.name, list(args), ins,
                                  outs, redistribute_inputs, unchecked,
                                  list(results))

    return call


def redistribute(block, value, to_type):
    """Appends ``dtensor.redistribute`` of ``value`` to the DTensor type
    ``to_type`` (same shape and mesh, other placements); returns the result."""
    return _hp.add_op(block, "dtensor.redistribute", [value], [to_type]).results[0]


def from_local(block, local, dtensor_type):
    """Appends ``dtensor.from_local``: this rank's block as a DTensor."""
    return _hp.add_op(block, "dtensor.from_local", [local], [dtensor_type]).results[0]


def to_local(block, dtensor, local_type):
    """Appends ``dtensor.to_local``: this rank's block of a DTensor."""
    return _hp.add_op(block, "dtensor.to_local", [dtensor], [local_type]).results[0]


def yield_(block, values):
    """Terminates a local_region body."""
    return _hp.add_yield(block, list(values))


add_function = _hp.add_function
add_op = _hp.add_op


def _caller_location():
    """(file, line, column) of the innermost frame outside this package: the
    user line that builds an op, which becomes the op's location."""
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if os.path.dirname(path) != here:
            return (frame.f_code.co_filename, frame.f_lineno, 1)
        frame = frame.f_back
    return None


_hp.set_location_provider(_caller_location)
