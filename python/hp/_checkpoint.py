"""Parameters from a safetensors checkpoint, read in place.

A safetensors file is an 8-byte little-endian header length, a JSON header
naming each tensor's dtype, shape and byte range, then the raw elements
(little-endian, row-major). hp never loads the tensors: each parameter
becomes a :class:`FileRange`, written for the driver as ``arg<k>.ref``
(``<offset> <path>``, docs/Runtime.md), from which every rank reads only
its own block. Only the headers are read here.
"""

import json
import os
import struct
import sys

import torch

# safetensors' dtype names.
_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
    "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
    "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool,
    "F8_E4M3": torch.float8_e4m3fn, "F8_E5M2": torch.float8_e5m2,
}

# A header larger than this is not a safetensors header (the format's own
# limit is 100 MB).
_MAX_HEADER = 100 << 20


class FileRange:
    """``nbytes`` bytes of a tensor at ``offset`` in the file ``path``."""

    def __init__(self, path, offset, nbytes, shape, dtype, name):
        self.path, self.offset, self.nbytes = path, offset, nbytes
        self.shape, self.dtype, self.name = tuple(shape), dtype, name

    def __repr__(self):
        return f"FileRange({self.path!r}, {self.offset}, {self.nbytes})"


class Checkpoint:
    """``hp.torch.Checkpoint(path, prefix="")``: the safetensors checkpoint
    at ``path`` (a ``.safetensors`` file, the ``.safetensors.index.json`` of
    a sharded one, or the directory ``save_pretrained`` wrote) for a program
    whose parameter names are the checkpoint's with ``prefix`` in front (a
    model exported inside a wrapper module whose attribute ``model`` holds
    it: ``prefix="model."``). A plain path means ``prefix=""``."""

    def __init__(self, path, prefix=""):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Checkpoint: path must be a str or os.PathLike, got "
                            f"{type(path).__name__}")
        if not isinstance(prefix, str):
            raise TypeError(f"Checkpoint: prefix must be a str, got {type(prefix).__name__}")
        self.path, self.prefix = os.fspath(path), prefix

    def __repr__(self):
        return f"Checkpoint({self.path!r}, prefix={self.prefix!r})"


def is_checkpoint(params):
    """Whether ``params`` names a checkpoint rather than giving tensors."""
    return isinstance(params, (str, os.PathLike, Checkpoint))


def _files(path):
    """The ``.safetensors`` files ``path`` names: one file, the index of a
    sharded checkpoint (``*.safetensors.index.json``), or a directory
    holding either (what ``save_pretrained`` writes)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        index = os.path.join(path, "model.safetensors.index.json")
        single = os.path.join(path, "model.safetensors")
        if os.path.exists(index):
            path = index
        elif os.path.exists(single):
            path = single
        else:
            found = sorted(f for f in os.listdir(path) if f.endswith(".safetensors"))
            if not found:
                raise ValueError(f"params: the directory {path} holds no .safetensors file")
            return [os.path.join(path, f) for f in found]
    if not os.path.exists(path):
        raise ValueError(f"params: no checkpoint at {path}")
    if path.endswith(".json"):
        try:
            with open(path) as f:
                weight_map = json.load(f)["weight_map"]
            files = sorted(set(weight_map.values()))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"params: {path} is not a safetensors index "
                             f"(a JSON object with a 'weight_map'): {e}") from None
        base = os.path.dirname(path)
        return [os.path.join(base, f) for f in files]
    return [path]


def _header(path):
    """{name: (dtype, shape, first byte, end byte)} of one safetensors file,
    offsets from the file's start."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ValueError(f"params: {path} is not a safetensors file (too short)")
        (n,) = struct.unpack("<Q", head)
        if n > min(_MAX_HEADER, size - 8):
            raise ValueError(f"params: {path} is not a safetensors file (its header "
                             f"length, {n} bytes, does not fit the file)")
        try:
            header = json.loads(f.read(n))
        except ValueError as e:
            raise ValueError(f"params: {path} is not a safetensors file (its header "
                             f"is not JSON: {e})") from None
    if not isinstance(header, dict):
        raise ValueError(f"params: {path} is not a safetensors file (its header is "
                         f"not a JSON object)")
    entries = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = _DTYPES[info["dtype"]]
            shape = [int(d) for d in info["shape"]]
            begin, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"params: {path}: the entry for '{name}' is not a "
                             f"tensor entry this reader knows ({e!r})") from None
        begin, end = begin + 8 + n, end + 8 + n
        if not 8 + n <= begin <= end <= size:
            raise ValueError(f"params: {path}: '{name}' lies outside the file")
        entries[name] = (dtype, shape, begin, end)
    return entries


def parameters(params, state_specs, aliases, buffers):
    """The values of ``state_specs`` (``{name: (shape, dtype, placements)}``)
    from the checkpoint ``params`` (a path or a :class:`Checkpoint`): a
    :class:`FileRange` per name found under it or a name tied to it
    (``aliases``: tied name -> canonical), else the export-time buffer.
    Shapes and dtypes must match exactly."""
    ckpt = params if isinstance(params, Checkpoint) else Checkpoint(params)
    path, prefix = ckpt.path, ckpt.prefix
    if sys.byteorder != "little":
        raise ValueError("params: safetensors checkpoints are little-endian and this "
                         "host is not; pass the tensors instead")
    found = {}
    for file in _files(path):
        for name, entry in _header(file).items():
            found.setdefault(prefix + name, (os.path.abspath(file),) + entry)
    names_of = {}
    for tied, canonical in aliases.items():
        names_of.setdefault(canonical, []).append(tied)
    values, missing = [], []
    for name, (shape, dtype, _) in state_specs.items():
        key = next((n for n in [name] + names_of.get(name, []) if n in found), None)
        if key is None:
            if name in buffers:
                values.append(buffers[name])
                continue
            missing.append(name)
            continue
        file, have_dtype, have_shape, begin, end = found[key]
        key = key[len(prefix):]
        if tuple(have_shape) != tuple(shape) or have_dtype != dtype:
            raise ValueError(f"params: '{key}' in {file} is {tuple(have_shape)} "
                             f"{have_dtype}; the program was exported for {tuple(shape)} "
                             f"{dtype} (export the model in the checkpoint's dtype)")
        nbytes = dtype.itemsize
        for d in shape:
            nbytes *= d
        if end - begin != nbytes:
            raise ValueError(f"params: '{key}' in {file} holds {end - begin} bytes, "
                             f"not the {nbytes} of its shape and dtype")
        values.append(FileRange(file, begin, nbytes, shape, dtype, key))
    if missing:
        shown = ", ".join(f"'{n}'" for n in missing[:3])
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        hint = f", with the prefix '{prefix}'" if prefix else ""
        raise ValueError(f"params: the checkpoint {path} has no tensor for "
                         f"parameter {shown}{more} (its names are the module's "
                         f"state_dict names{hint}; hp.torch.Checkpoint(path, "
                         f"prefix=...) adds a prefix)")
    return values


def write_argument(directory, slot, value, tensor_bytes):
    """Writes argument ``slot`` for the driver: a tensor as ``arg<k>.bin``,
    a :class:`FileRange` as ``arg<k>.ref``."""
    if isinstance(value, FileRange):
        with open(os.path.join(directory, f"arg{slot}.ref"), "w") as f:
            f.write(f"{value.offset} {value.path}\n")
        return
    with open(os.path.join(directory, f"arg{slot}.bin"), "wb") as f:
        f.write(tensor_bytes(value))
