"""hp: distributed tensors to NCCL collectives, in MLIR.

A thin Pythonic layer over the native ``_hp`` extension (itself a binding of
hp's C API). Placements mirror hyper_parallel / PyTorch DTensor:

>>> Shard(0), Replicate(), Partial()
(S(0), R, P)

Errors from MLIR (parse errors, verifier errors, failing passes) are raised
as ``ValueError`` whose message holds MLIR's located diagnostics.
"""

from . import _hp
from ._diagnostics import Diagnostic
from ._hp import Attribute, Block, Context, Module, Operation, Type, Value

__all__ = [
    "Attribute", "Block", "Context", "DeviceMesh", "Diagnostic", "MAX_RANKS", "Module", "Operation",
    "Partial", "Placement", "Replicate", "RunError", "Shard", "StridedShard", "Type",
    "Value", "collective_bytes_sent", "collectives", "constrain", "dtensor_type",
    "from_local", "global_region", "local_call", "local_region",
    "partitioned_collectives", "redistribute", "run", "to_local",
]

# The package's modules: placements and meshes, IR builders, running
# programs; the private names re-exported here are those other hp modules
# and the tests reach as hp._name.
from ._placement import (DeviceMesh, Partial, Placement, Replicate, Shard,  # noqa: F401
                         StridedShard, _check_int, _check_symbol)
from ._build import (_caller_location, _region_placements, add_function,  # noqa: F401
                     add_op, constrain, dtensor_type, from_local, global_region,
                     local_call, local_region, redistribute, to_local, yield_)
from ._process import RunError, _JobSignals, _kill_session  # noqa: F401
from ._run import MAX_RANKS, _failure_detail, _runner, _split_tagged, run  # noqa: F401


def collectives(module, function=None):
    """What ``hp-partition`` makes ``module`` (a Module or IR text) move:
    ``{"counts": {kind: n}, "bytes": bytes one rank sends}``, over func
    ``function`` (every function when None). Bytes follow ring algorithms:
    an all_gather sends (n-1)/n of its result, a reduce_scatter or
    all_to_all (n-1)/n of its operand, an all_reduce twice that, a shift its
    block; local slices (all_slice) move nothing and are not counted;
    ``bytes`` is None where a shape is dynamic or an element type's size
    is not known. Counted in C++ (hp-c/Collectives.h), by the formulas the
    planner prices with. Raises ValueError when ``function`` names no
    function."""
    parsed = Module.parse(Context(), str(module))
    parsed.run("builtin.module(hp-partition)")
    return partitioned_collectives(parsed, function)


def partitioned_collectives(module, function=None):
    """:func:`collectives` of ``module`` (a Module or IR text), which
    hp-partition (or another partitioner to the shard dialect) has already
    run on."""
    if function is not None:
        _check_symbol(function, "function")
    if not isinstance(module, Module):
        module = Module.parse(Context(), str(module))
    return _hp.collective_totals(module, function or "")


collective_bytes_sent = _hp.collective_bytes_sent
