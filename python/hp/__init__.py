"""hp: distributed tensors to NCCL collectives, in MLIR.

A thin Pythonic layer over the native ``_hp`` extension (itself a binding of
hp's C API). Placements mirror hyper_parallel / PyTorch DTensor:

>>> Shard(0), Replicate(), Partial()
(S(0), R, P)

Errors from MLIR (parse errors, verifier errors, failing passes) are raised
as ``ValueError`` whose message holds MLIR's located diagnostics.
"""

from . import _hp
from ._hp import Attribute, Block, Context, Module, Operation, Type, Value

__all__ = [
    "Attribute", "Block", "Context", "DeviceMesh", "Module", "Operation",
    "Partial", "Placement", "Replicate", "Shard", "StridedShard", "Type", "Value",
    "RunError", "dtensor_type", "from_local", "local_call", "local_region",
    "redistribute", "run", "to_local",
]


class Placement:
    """How a tensor is laid out along one mesh dimension."""

    def to_mlir(self, ctx):
        raise NotImplementedError

    def is_shard(self, dim=None):
        return False

    def is_replicate(self):
        return False

    def is_partial(self):
        return False


class Shard(Placement):
    """Tensor dim ``dim`` split across the mesh dimension (torch.chunk)."""

    def __init__(self, dim):
        if dim < 0:
            raise ValueError(f"shard dim must be non-negative, got {dim}")
        self.dim = dim

    def to_mlir(self, ctx):
        return _hp.shard_attr(ctx, self.dim)

    def is_shard(self, dim=None):
        return dim is None or dim == self.dim

    def __eq__(self, other):
        return type(other) is Shard and other.dim == self.dim

    def __hash__(self):
        return hash(("S", self.dim))

    def __repr__(self):
        return f"S({self.dim})"


class StridedShard(Shard):
    """Torch's ``_StridedShard(dim, split_factor)``: on a mesh dim of size n,
    ``dim`` is cut into ``n * split_factor`` chunks and coordinate i holds
    chunks i, i + n, ... (the FSDP-over-TP layout)."""

    def __init__(self, dim, split_factor):
        super().__init__(dim)
        if split_factor < 1:
            raise ValueError(f"strided_shard split factor must be at least 1, got {split_factor}")
        self.split_factor = split_factor

    def to_mlir(self, ctx):
        return _hp.strided_shard_attr(ctx, self.dim, self.split_factor)

    def __eq__(self, other):
        return (isinstance(other, StridedShard) and other.dim == self.dim
                and other.split_factor == self.split_factor)

    def __hash__(self):
        return hash(("SS", self.dim, self.split_factor))

    def __repr__(self):
        return f"SS({self.dim}, {self.split_factor})"


class Replicate(Placement):
    """A full copy on every coordinate of the mesh dimension."""

    def to_mlir(self, ctx):
        return _hp.replicate_attr(ctx)

    def is_replicate(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Replicate)

    def __hash__(self):
        return hash("R")

    def __repr__(self):
        return "R"


class Partial(Placement):
    """Pending reduction across the mesh dimension: sum, avg, max, min, prod."""

    OPS = ("sum", "avg", "max", "min", "prod")

    def __init__(self, reduce_op="sum"):
        if reduce_op not in self.OPS:
            raise ValueError(f"unknown reduction '{reduce_op}' ({', '.join(self.OPS)})")
        self.reduce_op = reduce_op

    def to_mlir(self, ctx):
        return _hp.partial_attr(ctx, self.reduce_op)

    def is_partial(self):
        return True

    def __eq__(self, other):
        return isinstance(other, Partial) and other.reduce_op == self.reduce_op

    def __hash__(self):
        return hash(("P", self.reduce_op))

    def __repr__(self):
        return "P" if self.reduce_op == "sum" else f"P({self.reduce_op})"


class DeviceMesh:
    """A named n-dimensional device mesh, emitted as ``dtensor.mesh``."""

    def __init__(self, name, shape, mesh_dim_names=None):
        self.name = name
        self.shape = tuple(shape)
        if mesh_dim_names is None:
            mesh_dim_names = tuple(f"d{i}" for i in range(len(self.shape)))
        if len(mesh_dim_names) != len(self.shape):
            raise ValueError("one name per mesh dimension")
        self.mesh_dim_names = tuple(mesh_dim_names)

    @property
    def ndim(self):
        return len(self.shape)

    def size(self, dim=None):
        if dim is None:
            n = 1
            for s in self.shape:
                n *= s
            return n
        return self.shape[dim]

    def add_to(self, module):
        """Appends ``dtensor.mesh`` to a Module."""
        return _hp.add_mesh(module, self.name, list(self.shape), list(self.mesh_dim_names))

    def __repr__(self):
        dims = ", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, self.shape))
        return f"DeviceMesh({self.name}: {dims})"


def _placements(ctx, mesh, placements):
    placements = list(placements)
    if len(placements) != mesh.ndim:
        raise ValueError(f"{len(placements)} placements for a mesh of rank {mesh.ndim}")
    return [p.to_mlir(ctx) for p in placements]


def dtensor_type(ctx, shape, element_type, mesh, placements):
    """``!dtensor.tensor<shape x element_type, @mesh, [placements]>``."""
    return _hp.dtensor_type(ctx, list(shape), element_type, mesh.name,
                            _placements(ctx, mesh, placements))


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
    ins = None
    if in_placements is not None:
        ins = [(name, None if ps is None else _placements(ctx, mesh, ps))
               for name, ps in in_placements.items()]
    outs, flat = None, False
    if out_placements is not None:
        flat = len(out_placements) > 0 and all(isinstance(p, Placement) for p in out_placements)
        if flat:
            outs = [_placements(ctx, mesh, out_placements)]
        else:
            outs = [None if ps is None else _placements(ctx, mesh, ps) for ps in out_placements]
    op, body_block = _hp.add_local_region(block, mesh.name, list(mesh.shape), list(args),
                                          ins, outs, flat, redistribute_inputs,
                                          list(results))
    if body is not None:
        values = body(body_block, *body_block.arguments)
        if values is None:
            values = []
        elif isinstance(values, Value):
            values = [values]
        yield_(body_block, list(values))
    return op, body_block


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
        ins = None
        if in_placements is not None:
            ins = [(name, None if ps is None else _placements(ctx, device_mesh, ps))
                   for name, ps in in_placements.items()]
        outs, flat = None, False
        if out_placements is not None:
            flat = len(out_placements) > 0 and all(
                isinstance(p, Placement) for p in out_placements)
            if flat:
                outs = [_placements(ctx, device_mesh, out_placements)]
            else:
                outs = [None if ps is None else _placements(ctx, device_mesh, ps)
                        for ps in out_placements]
        return _hp.add_local_call(block, func, device_mesh.name, list(args), ins,
                                  outs, flat, redistribute_inputs, unchecked,
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


def _runner():
    """hp-runner next to this package: <build>/bin or <prefix>/bin, or
    HP_TOOLS_DIR."""
    import os
    import shutil
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if os.environ.get("HP_TOOLS_DIR"):
        candidates.append(os.path.join(os.environ["HP_TOOLS_DIR"], "hp-runner"))
    candidates += [os.path.join(here, "..", "..", "bin", "hp-runner"),       # build
                   os.path.join(here, "..", "..", "..", "bin", "hp-runner")]  # prefix/lib/python
    for c in candidates:
        if os.path.exists(c):
            return os.path.normpath(c)
    found = shutil.which("hp-runner")
    if not found:
        raise RuntimeError("hp-runner not found: set HP_TOOLS_DIR")
    return found


class RunError(RuntimeError):
    """A program failed on some ranks; ``outputs`` and ``errors`` hold each
    rank's standard output and standard error."""

    def __init__(self, message, outputs, errors):
        super().__init__(message)
        self.outputs, self.errors = outputs, errors


def run(module_or_path, np=1, entry="main", timeout=600, extra_args=()):
    """Runs a program on ``np`` CPU ranks with hp-runner and returns each
    rank's standard output, a list indexed by rank.

    ``module_or_path`` is a :class:`Module` or the path of a ``.mlir`` file
    (dtensor level or already lowered). The entry point takes no arguments
    and returns nothing. Raises :class:`RunError` with every rank's error
    output when the program fails.
    """
    import os
    import re
    import subprocess
    import tempfile
    if np < 1:
        raise ValueError(f"np must be a positive number of ranks, got {np}")
    path, cleanup = module_or_path, None
    if not isinstance(module_or_path, (str, os.PathLike)):
        fd, path = tempfile.mkstemp(suffix=".mlir")
        with os.fdopen(fd, "w") as f:
            f.write(str(module_or_path))
        cleanup = path
    try:
        cmd = [_runner(), "-np", str(np), "--mpirun-args=--tag-output", str(path),
               "-e", entry, "--entry-point-result=void", *extra_args]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    finally:
        if cleanup:
            os.unlink(cleanup)
    outputs = [""] * np
    errors = [""] * np
    untagged = []
    tag = re.compile(r"^\[\d+,(\d+)\]<(stdout|stderr)>:(.*)$")
    for stream, text in (("stdout", proc.stdout), ("stderr", proc.stderr)):
        for line in text.splitlines():
            m = tag.match(line)
            if m and int(m.group(1)) < np:
                target = outputs if m.group(2) == "stdout" else errors
                target[int(m.group(1))] += m.group(3) + "\n"
            elif line.strip():
                untagged.append(line)
    if proc.returncode != 0:
        ranks = [f"rank {r}: {e.strip()}" for r, e in enumerate(errors) if e.strip()]
        detail = "\n".join(ranks + untagged[-20:])
        raise RunError(f"hp-runner failed (exit {proc.returncode}) on {np} ranks:\n{detail}",
                       outputs, errors)
    return outputs


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
