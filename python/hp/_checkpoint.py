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
import stat
import struct
import sys

import torch

from hp import _runtime_abi

# safetensors' dtype names.
_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16,
    "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
    "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool,
    "F8_E4M3": torch.float8_e4m3fn, "F8_E5M2": torch.float8_e5m2,
}

# What the safetensors format itself knows (its own reader, safe_open,
# accepts a header naming any of these): each dtype's size in bits. hp reads
# the tensors of _DTYPES; a checkpoint may hold others that it never asks for.
_FORMAT_BITS = {
    "BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "U8": 8, "I8": 8,
    "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
    "I16": 16, "U16": 16, "F16": 16,
    "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "F64": 64, "I64": 64, "U64": 64,
    "C64": 64,
}

# The format's limit on a header's length.
_MAX_HEADER = 100_000_000


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


def _entries(path):
    """{name: (file, dtype name, shape, first byte, end byte)} of the
    checkpoint at ``path``: one ``.safetensors`` file, the index of a
    sharded one (``*.safetensors.index.json``: each name read from the file
    its ``weight_map`` names), or a directory holding either (what
    ``save_pretrained`` writes) or several files without an index (a name in
    two of them is refused: nothing says which copy is current)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        index = os.path.join(path, "model.safetensors.index.json")
        single = os.path.join(path, "model.safetensors")
        if os.path.exists(index):
            return _indexed(index)
        if os.path.exists(single):
            return _header(single)
        found = sorted(f for f in os.listdir(path) if f.endswith(".safetensors"))
        if not found:
            raise ValueError(f"params: the directory {path} holds no .safetensors file")
        entries = {}
        for file in found:
            for name, entry in _header(os.path.join(path, file)).items():
                if name in entries:
                    raise ValueError(
                        f"params: '{name}' is in both {entries[name][0]} and {entry[0]}, "
                        f"and {path} has no index (model.safetensors.index.json) saying "
                        f"which holds it")
                entries[name] = entry
        return entries
    if not os.path.exists(path):
        raise ValueError(f"params: no checkpoint at {path}")
    if path.endswith(".json"):
        return _indexed(path)
    return _header(path)


def _indexed(path):
    """The entries of a sharded checkpoint's index: each name from the file
    its ``weight_map`` names, and from no other."""
    _regular_size(path, "a safetensors index")
    try:
        with open(path) as f:
            weight_map = json.load(f)["weight_map"]
        if not isinstance(weight_map, dict) or \
                not all(isinstance(v, str) for v in weight_map.values()):
            raise TypeError("its weight_map is not an object of file names")
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"params: {path} is not a safetensors index "
                         f"(a JSON object with a 'weight_map'): {e}") from None
    base = os.path.dirname(path)
    headers, entries = {}, {}
    for name, file in weight_map.items():
        full = os.path.join(base, file)
        if full not in headers:
            if not os.path.exists(full):
                raise ValueError(f"params: {path} puts '{name}' in {file}, and there is "
                                 f"no {full}")
            headers[full] = _header(full)
        if name not in headers[full]:
            raise ValueError(f"params: {path} puts '{name}' in {file}, which holds no "
                             f"tensor of that name")
        entries[name] = headers[full][name]
    # A tensor a shard holds that the index does not list is read too, as
    # transformers reads every tensor of the shards it names, unless two
    # shards hold it.
    unlisted = {}
    for full, header in headers.items():
        for name, entry in header.items():
            if name in weight_map:
                continue
            if name in unlisted:
                raise ValueError(f"params: '{name}' is in both {unlisted[name][0]} and "
                                 f"{entry[0]}, and {path} does not say which holds it")
            unlisted[name] = entry
    entries.update(unlisted)
    return entries


def _regular_size(path, what):
    """The size of ``path``, a regular file (a FIFO or a device would block
    the read or never end)."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise ValueError(f"params: cannot read {path}: {e.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"params: {path} is not a regular file ({what} must be one)")
    return st.st_size


def _is_u64(x):
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 1 << 64


def _refuse_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs):
    """A JSON object whose keys are all different (the format's reader
    refuses a key given twice)."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


# The format's reader nests objects and arrays at most this deep.
_MAX_DEPTH = 127


def _check_json_values(header):
    """What Python's JSON reader takes and the format's does not: nesting
    past _MAX_DEPTH, and strings that are not Unicode text (a lone
    surrogate escaped as \\ud800)."""
    todo = [(header, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, (dict, list)):
            if depth > _MAX_DEPTH:
                raise ValueError(f"it nests deeper than {_MAX_DEPTH}")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                todo.append((key, depth))
                todo.append((item, depth + 1))
        elif isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"the string {value!r} is not Unicode text") from None


def _header(path):
    """{name: (file, dtype name, shape, first byte, end byte)} of one
    safetensors file, offsets from the file's start. The header is checked
    as the format's own reader (safetensors' safe_open) checks it: JSON in
    UTF-8; each entry a known dtype, a shape and two offsets, all integers;
    the tensors end to end from the first byte after the header to the
    file's last, each exactly as long as its shape and dtype say."""
    size = _regular_size(path, "a safetensors file")

    def bad(why):
        return ValueError(f"params: {path} is not a safetensors file ({why})")

    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise bad("too short")
        (n,) = struct.unpack("<Q", head)
        if n > min(_MAX_HEADER, size - 8):
            raise bad(f"its header length, {n} bytes, does not fit the file")
        raw = f.read(n)
    try:
        header = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant,
                            object_pairs_hook=_unique_keys)
        _check_json_values(header)
    except RecursionError:
        raise bad(f"its header nests deeper than {_MAX_DEPTH}") from None
    except ValueError as e:
        raise bad(f"its header is not a JSON object: {e}") from None
    if not isinstance(header, dict):
        raise bad("its header is not a JSON object")
    meta = header.pop("__metadata__", None)
    if meta is not None and not (isinstance(meta, dict) and
                                 all(isinstance(v, str) for v in meta.values())):
        raise bad("its __metadata__ is not an object of strings")
    listed = []
    for name, info in header.items():
        if not isinstance(info, dict):
            raise bad(f"the entry for '{name}' is not an object")
        dtype, shape, offsets = (info.get(k) for k in ("dtype", "shape", "data_offsets"))
        if dtype not in _FORMAT_BITS:
            raise bad(f"'{name}' has the dtype {dtype!r}, which the format does not know")
        if not isinstance(shape, list) or not all(_is_u64(d) for d in shape):
            raise bad(f"the shape of '{name}', {shape!r}, is not a list of non-negative "
                      f"integers")
        if not isinstance(offsets, list) or len(offsets) != 2 or \
                not all(_is_u64(x) for x in offsets):
            raise bad(f"the data_offsets of '{name}', {offsets!r}, are not two "
                      f"non-negative integers")
        listed.append((offsets[0], offsets[1], name, dtype, shape))
    listed.sort(key=lambda e: (e[0], e[1]))
    at, entries = 0, {}
    for begin, end, name, dtype, shape in listed:
        if begin != at or end < begin:
            raise bad(f"the data_offsets of '{name}', [{begin}, {end}], do not start where "
                      f"the tensor before it ends ({at}): tensors lie end to end, without "
                      f"gaps or overlaps")
        count = 1
        for d in shape:
            count *= d
            if count >= 1 << 64:
                raise bad(f"the shape of '{name}' overflows")
        bits = count * _FORMAT_BITS[dtype]
        if bits >= 1 << 64 or bits % 8:
            raise bad(f"'{name}' is not a whole number of bytes")
        if end - begin != bits // 8:
            raise bad(f"'{name}' spans {end - begin} bytes, not the {bits // 8} of its "
                      f"shape and dtype")
        at = end
        entries[name] = (os.path.abspath(path), dtype, shape, begin + 8 + n, end + 8 + n)
    if at + 8 + n != size:
        raise bad(f"its tensors end at byte {at + 8 + n}, the file at byte {size}")
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
    found = {prefix + name: entry for name, entry in _entries(path).items()}
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
        file, format_dtype, have_shape, begin, end = found[key]
        key = key[len(prefix):]
        have_dtype = _DTYPES.get(format_dtype)
        if have_dtype is None:
            raise ValueError(f"params: '{key}' in {file} is {format_dtype}, a dtype hp does "
                             f"not read")
        if tuple(have_shape) != tuple(shape) or have_dtype != dtype:
            raise ValueError(f"params: '{key}' in {file} is {tuple(have_shape)} "
                             f"{have_dtype}; the program was exported for {tuple(shape)} "
                             f"{dtype} (export the model in the checkpoint's dtype)")
        nbytes = end - begin
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
        with open(os.path.join(directory, _runtime_abi.argument_reference(slot)), "w") as f:
            f.write(f"{value.offset} {value.path}\n")
        return
    with open(os.path.join(directory, _runtime_abi.argument_file(slot)), "wb") as f:
        f.write(tensor_bytes(value))
