"""What hp.torch rewrites in torch's graph before torch-mlir imports it.

Each entry replaces an ATen op whose torch-mlir lowering hp cannot place
or that loses precision, by ops torch-mlir lowers to plain linalg, with
torch's own semantics (dtype promotion included). The table is merged into
torch-mlir's own decomposition table (``export_and_import``'s
``decomposition_table``), so that everything else is decomposed as
torch-mlir expects. docs/Torch.md lists them and why.
"""

import math

import torch

aten = torch.ops.aten


# torch's kernels compute sqrt(2/pi) in the tensor's type; torch-mlir writes
# it as 0.797724 (it is 0.7978846), which is off by 4e-5 after a layer.
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _gelu(x, approximate="none"):
    """GELU, with the tanh approximation's constants written exactly."""
    if approximate != "tanh":
        return NotImplemented
    inner = _SQRT_2_OVER_PI * (x + 0.044715 * (x * x * x))
    return 0.5 * x * (1.0 + torch.tanh(inner))


def _cumulative(x, dim, *, dtype=None):
    """cumsum and cumprod of a 0-d tensor (torch-mlir's lowering takes a dim
    of at least one element's rank): the value, promoted as torch promotes
    integers and bools."""
    if x.dim() != 0:
        return NotImplemented
    if dtype is None and not x.is_floating_point():
        dtype = torch.int64
    return x.clone() if dtype is None else x.clone().to(dtype)


def _sort(x, dim=-1, descending=False):
    """sort as torch-mlir lowers it (``tm_tensor.sort``, which hp writes as
    ``dtensor.sort``, a stable sort whatever was asked:
    _torch_import._sorts_as_dtensor), but for what its lowering would get
    wrong: a 0-d tensor (refused there) and uint8, which torch-mlir compares
    signed (values from 128 up would sort first), sorted as int16."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    if x.dtype == torch.uint8:
        values, indices = aten.sort.default(x.to(torch.int16), dim, descending)
        return values.to(torch.uint8), indices
    return NotImplemented


def _sort_stable(x, *, stable=None, dim=-1, descending=False):
    """sort(stable=True) as the default sort, which torch-mlir lowers."""
    return aten.sort.default(x, dim, descending)


def _topk(x, k, dim=-1, largest=True, sorted=True):
    """topk as torch-mlir lowers it (the first k of a ``tm_tensor.sort``),
    but for a 0-d tensor and uint8, as :func:`_sort`."""
    if x.dim() == 0:
        return x.clone(), torch.zeros((), dtype=torch.int64, device=x.device)
    if x.dtype == torch.uint8:
        values, indices = aten.topk.default(x.to(torch.int16), k, dim, largest, sorted)
        return values.to(torch.uint8), indices
    return NotImplemented


def _hits(index, dim, n):
    """[..., m, n] over index's shape with dim moved last: whether index
    entry m writes position n of its row."""
    row = index.movedim(dim, -1)
    return row.unsqueeze(-1) == torch.arange(n, device=index.device)


def _spread(x, dim, index, src):
    """What scatter writes onto x: for each position of x along dim, the
    sum of the src entries whose index names it (torch leaves the value
    undefined where several do, for a plain scatter), and whether any
    does; both shaped like x (index may cover less of x)."""
    dim = dim % x.dim()
    hits = _hits(index, dim, x.shape[dim])
    if not isinstance(src, torch.Tensor):
        src = torch.full(index.shape, src, dtype=x.dtype, device=x.device)
    src = src[tuple(slice(0, s) for s in index.shape)].movedim(dim, -1)
    sums = torch.where(hits, src.unsqueeze(-1), torch.zeros((), dtype=x.dtype)).sum(-2)
    written = hits.any(-2)
    # index covers a corner of x in the other dims: pad up to x's shape.
    pad = []
    for have, want in reversed(list(zip(index.movedim(dim, -1).shape[:-1],
                                        x.movedim(dim, -1).shape[:-1]))):
        pad += [0, want - have]
    if any(pad):
        pad = [0, 0] + pad
        sums = torch.nn.functional.pad(sums, pad)
        written = torch.nn.functional.pad(written, pad)
    return sums.movedim(-1, dim), written.movedim(-1, dim)


def _scatter_src(x, dim, index, src):
    """scatter as masked sums over the index (``tm_tensor.scatter``
    otherwise): out = src where an index names the position, else x."""
    sums, written = _spread(x, dim, index, src)
    return torch.where(written, sums.to(x.dtype), x)


def _scatter_value(x, dim, index, value):
    return _scatter_src(x, dim, index, value)


def _scatter_add(x, dim, index, src):
    sums, _ = _spread(x, dim, index, src)
    return x + sums.to(x.dtype)


def _embedding_dense_backward(grad, indices, num_weights, padding_idx,
                              scale_grad_by_freq):
    """An embedding's gradient as the one-hot rows of the indices times the
    output's gradient (``index_put`` with accumulation otherwise, a
    ``tm_tensor.scatter``): each row of the table sums the gradients of the
    tokens that read it; a contraction, which splits by vocabulary or by
    model dim as the table does."""
    flat = indices.reshape(-1, 1)
    hits = flat == torch.arange(num_weights, device=indices.device)
    if padding_idx >= 0:
        hits = hits & (flat != padding_idx)
    rows = grad.reshape(-1, grad.shape[-1])
    out = hits.to(grad.dtype).transpose(0, 1) @ rows
    if scale_grad_by_freq:
        counts = hits.sum(0).clamp(min=1).to(grad.dtype)
        out = out / counts.unsqueeze(1)
    return out


def _nll_loss_forward(x, target, weight, reduction, ignore_index):
    """The negative log-likelihood as a select of each row's target class and
    a sum over the classes (torch-mlir's lowering reads each row's class by
    a data-dependent index, which no split can follow, so the log-softmax
    is gathered whole): a sum over classes splits by vocabulary like the
    LM head, and rows by the batch. ``where`` rather than a product with the
    one-hot rows, so that a -inf log-probability of another class stays out
    of the sum. Returns (loss, total weight) as the aten op does."""
    rows = x if x.dim() == 2 else x.unsqueeze(0)
    t = target.reshape(-1, 1)
    # Each target is looked up in a table of zeros as an embedding's index
    # is (torch-mlir's lookup asserts that it lies in the table), and the
    # zero added to it: a target outside [0, classes) other than
    # ignore_index stops the program, where the select below would quietly
    # give it no loss.
    looked_up = torch.where(t == ignore_index, 0, t).reshape(-1)
    zeros = torch.zeros(rows.shape[-1], 1, dtype=t.dtype, device=t.device)
    t = t + aten.embedding(zeros, looked_up)
    hits = (t == torch.arange(rows.shape[-1], device=x.device)) & (t != ignore_index)
    weights = hits.to(x.dtype)
    if weight is not None:
        weights = weights * weight
    picked = torch.where(hits, rows, torch.zeros((), dtype=x.dtype)) * weights
    per_row = -picked.sum(-1)
    row_weight = weights.sum(-1)
    total = row_weight.sum()
    if reduction == 0:  # none
        return (per_row if x.dim() == 2 else per_row.reshape(())), total
    if reduction == 2:  # sum
        return per_row.sum(), total
    return per_row.sum() / total, total


# Ops that hand their first argument's values on unchanged (the path from
# an input to a loss's target), and the losses that read class indices
# (each takes input, target, weight, reduction, ignore_index).
_SAME_VALUES = {aten.view.default, aten.reshape.default, aten._unsafe_view.default,
                aten.flatten.using_ints, aten.clone.default, aten.alias.default,
                aten.contiguous.default, aten.squeeze.dim, aten.squeeze.default,
                aten.unsqueeze.default, aten.detach.default}
_CLASS_LOSSES = (aten.cross_entropy_loss.default, aten.nll_loss.default,
                 aten.nll_loss_nd.default, aten.nll_loss_forward.default)


def target_checks(program):
    """[(input index, classes, ignore_index)] for each class-index loss
    (cross entropy, nll) of ``program`` (an ExportedProgram whose
    placeholders are its inputs in order) whose target is an input as it
    is (through views): the client checks those targets before a call, as
    torch does (``IndexError: Target 6 is out of bounds.``), and the call
    is refused with the session going on. Targets computed in the program
    are checked there (``_nll_loss_forward``)."""
    graph = program.graph_module.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    checks = []
    for node in graph.nodes:
        if node.op != "call_function" or node.target not in _CLASS_LOSSES:
            continue
        x, target = node.args[0], node.args[1]
        ignore = node.args[4] if len(node.args) > 4 else node.kwargs.get("ignore_index", -100)
        while target.op == "call_function" and target.target in _SAME_VALUES:
            target = target.args[0]
        value, logits = target.meta.get("val"), x.meta.get("val")
        if target.op != "placeholder" or value is None or logits is None or \
                value.dtype.is_floating_point:
            continue  # probabilities, or a target the program computes
        classes = logits.shape[1] if logits.dim() > 1 else logits.shape[0]
        checks.append((placeholders.index(target), int(classes), int(ignore)))
    return checks


def check_targets(values, checks):
    """Raises torch's IndexError for the first target of ``checks`` (from
    :func:`target_checks`) outside [0, classes) that is not ignore_index."""
    for index, classes, ignore in checks:
        t = values[index]
        bad = (t != ignore) & ((t < 0) | (t >= classes))
        if bool(bad.any()):
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")


HP_DECOMPOSITIONS = {
    aten.embedding_dense_backward.default: _embedding_dense_backward,
    aten.nll_loss_forward.default: _nll_loss_forward,
    aten.cumsum.default: _cumulative,
    aten.cumprod.default: _cumulative,
    aten.gelu.default: _gelu,
    aten.sort.default: _sort,
    aten.sort.stable: _sort_stable,
    aten.topk.default: _topk,
    aten.scatter.src: _scatter_src,
    aten.scatter.value: _scatter_value,
    aten.scatter_add.default: _scatter_add,
}


def decomposition_table():
    """torch-mlir's decomposition table with hp's entries over it."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table
    table = dict(get_decomposition_table())
    table.update(HP_DECOMPOSITIONS)
    return table


def views_as_reshapes(program):
    """Rewrites every ``aten.view`` of ``program``'s graph as ``aten.reshape``
    (in place), before the decompositions run.

    torch.export drops a ``.contiguous()`` that is a no-op on the strides it
    traced; a decomposition (SDPA's) may then give the tensor other strides,
    and the ``view`` after it, which eager could take, fails ("Cannot view a
    tensor with shape ... and strides ..."): GPT-2's ``Conv1D`` views its
    input so. A reshape is a view wherever a view is possible and copies
    otherwise; the values are the same. A graph that writes any tensor in
    place is left alone: there a copy could miss a write its view would see.
    """
    calls = [n for n in program.graph_module.graph.nodes if n.op == "call_function"]
    if any(getattr(n.target, "_schema", None) is not None and n.target._schema.is_mutable
           for n in calls):
        return
    views = [n for n in calls if n.target == aten.view.default]
    for node in views:
        node.target = aten.reshape.default
    if views:
        program.graph_module.recompile()
