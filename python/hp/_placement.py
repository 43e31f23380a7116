"""Placements (Shard, Replicate, Partial, ...) and device meshes, as hp's
Python API spells them; each becomes the dialect's attribute through _hp."""

import atexit

from . import _hp


def _check_int(value, what, minimum=None):
    """Refuses bools, floats and strings where MLIR wants an integer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{what} must be at least {minimum}, got {value}")
    return value


def _check_symbol(name, what):
    """The type here; the rule itself in C++ (hp/Support/SymbolName.h), the
    one the C API and the builders check."""
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__}")
    _hp.check_symbol_name(name, what)
    return name


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
        _check_int(dim, "shard dim")
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
        _check_int(split_factor, "strided_shard split factor")
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

    OPS = tuple(_hp.reduce_ops())

    def __init__(self, reduce_op="sum"):
        if not isinstance(reduce_op, str) or reduce_op not in self.OPS:
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


def _from_mlir(attr):
    """The Placement of a placement attribute."""
    parts = _hp.placement_parts(attr)
    if parts[0] == "shard":
        return Shard(parts[1])
    if parts[0] == "strided_shard":
        return StridedShard(parts[1], parts[2])
    if parts[0] == "partial":
        return Partial(parts[1])
    return Replicate()


# The placement rules a front end applies before the IR exists are C++'s
# (hp/Dialect/DTensor/Layout/PlacementRules.h, through hp-c/PlacementRules.h),
# so that hp.torch and a C or C++ front end decide alike. They work on
# attributes of a context of their own.
_rules_context = None


def _drop_rules_context():
    global _rules_context
    _rules_context = None


def _rule(fn, placements, *args):
    global _rules_context
    if _rules_context is None:
        # Made once (a context costs milliseconds, a Trainer asks per
        # parameter) and dropped at exit, before nanobind checks for leaks.
        _rules_context = _hp.Context()
        atexit.register(_drop_rules_context)
    ctx = _rules_context
    if placements and isinstance(placements[0], (list, tuple)):
        attrs = [[p.to_mlir(ctx) for p in ps] for ps in placements]
    else:
        attrs = [p.to_mlir(ctx) for p in placements]
    return [_from_mlir(a) for a in fn(ctx, attrs, *args)]


def fsdp_split(placements, rank, mesh_dim):
    """FSDP's split of a parameter of ``rank`` dims: ``Shard(0)`` on
    ``mesh_dim`` where nothing splits or reduces it there (a scalar stays)."""
    return _rule(_hp.fsdp_split, placements, rank, mesh_dim)


def optimizer_state_placements(placements, param_shape, state_shape):
    """An optimizer state tensor's placements: its parameter's where the
    shapes are equal, else replicated."""
    return _rule(_hp.optimizer_state_placements, placements, list(param_shape),
                 list(state_shape))


def placements_from_inputs(inputs, rank, mesh_rank, fixed_dim=-1):
    """A value of ``rank`` dims without a declared layout: on each mesh dim
    the ``Shard(k)`` every input has there when k < rank, else
    ``Replicate()``; ``fixed_dim`` is left for the caller."""
    if not inputs:
        return [Replicate() for _ in range(mesh_rank)]
    return _rule(_hp.placements_from_inputs, inputs, rank, mesh_rank, fixed_dim)


class DeviceMesh:
    """A named n-dimensional device mesh, emitted as ``dtensor.mesh``."""

    def __init__(self, name, shape, mesh_dim_names=None):
        self.name = _check_symbol(name, "mesh name")
        self.shape = tuple(_check_int(s, "mesh size") for s in shape)
        if mesh_dim_names is None:
            mesh_dim_names = tuple(f"d{i}" for i in range(len(self.shape)))
        mesh_dim_names = tuple(mesh_dim_names)
        for n in mesh_dim_names:
            if not isinstance(n, str):
                raise TypeError(f"mesh dim names must be strings, got {n!r}")
        # The rule itself is C++'s (hp/Support/MeshShape.h), the one the
        # mesh op verifies.
        _hp.check_mesh(list(self.shape), list(mesh_dim_names))
        self.mesh_dim_names = mesh_dim_names

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
