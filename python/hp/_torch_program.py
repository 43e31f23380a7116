"""hp.torch's Program (an exported module and its driver) and running it:
each rank's arguments written as files, the driver run by hp-runner, the
results read back as torch tensors."""

import difflib
import math
import os
import shutil
import tempfile

import numpy
import torch

import hp
from hp import _checkpoint, _decompose, _runtime_abi


# torch.bool travels as i8 (0 or 1: the bytes torch stores); the traced
# program sees an int8 tensor and compares it with 0, so every mask op stays
# an op on bits inside the program (docs/Torch.md).
_DTYPES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
    torch.bfloat16: "bf16", torch.int32: "i32", torch.int64: "i64",
    torch.int8: "i8", torch.bool: "i8",
}


def _distinct(tensors):
    """``tensors`` with every one that shares its memory with an earlier one
    (the same tensor passed twice: ``export(model, (x, x))``, a target that
    is the input) copied. torch.export and make_fx trace one tensor given
    for two inputs as one input, and the program would then read the first
    input's value for both."""
    seen, out = set(), []
    for t in tensors:
        key = t.untyped_storage().data_ptr() if t.numel() else id(t)
        if key in seen:
            t = t.clone()
            key = t.untyped_storage().data_ptr() if t.numel() else id(t)
        seen.add(key)
        out.append(t)
    return out


def _to_wire(t):
    return t.to(torch.int8) if t.dtype == torch.bool else t


def _from_wire(t, dtype):
    return t != 0 if dtype == torch.bool else t


class Program:
    """An exported module: ``module`` (an hp.Module) holds ``@forward``, the
    global-view program whose arguments are the inputs and then the state
    (parameters and buffers) as DTensors, and ``@main``, a driver that reads
    every argument from ``$HP_TENSOR_DIR``, calls it and writes each result
    back replicated (so ``hp-runner`` runs the saved file too)."""

    def __init__(self, forward, mesh, input_specs, state_specs, output_specs,
                 buffers, remarks, aliases=None, target_checks=()):
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
        self.target_checks = list(target_checks)  # _decompose.target_checks

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
        slots = range(len(self.output_specs)) if slots is None else slots
        outs = self.result_buffers(slots)
        self.read_results_into(directory, slots, outs)
        return [t for t, _ in outs]

    def result_buffers(self, slots):
        """``(tensor, bytes)`` for each result of ``slots``: a new tensor of
        its shape and dtype and a writable view of its bytes, for
        :meth:`read_results_into` (a session makes them before it waits)."""
        outs = []
        for slot in slots:
            shape, dtype, _ = self.output_specs[slot]
            buffer = numpy.empty(math.prod(shape) * dtype.itemsize, numpy.uint8)
            # (An empty array's stride is 0, which view() refuses.)
            tensor = torch.from_numpy(buffer).view(dtype).reshape(shape) if buffer.size \
                else torch.empty(shape, dtype=dtype)
            outs.append((tensor, memoryview(buffer)))
        return outs

    @staticmethod
    def read_results_into(directory, slots, outs):
        """Reads each result of ``slots`` into its bytes of ``outs``, with
        bare system calls (a session call's latency counts each call)."""
        for slot, (_, view) in zip(slots, outs):
            path = f"{directory}/{_runtime_abi.result_file(slot)}"
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                size = os.fstat(fd).st_size
                if size != len(view):
                    raise RuntimeError(f"{path} holds {size} bytes, result {slot} "
                                       f"{len(view)}")
                got = 0
                while got < size:
                    n = os.readv(fd, [view[got:]])
                    if not n:
                        raise RuntimeError(f"{path} ended early")
                    got += n
            finally:
                os.close(fd)

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
        values = [_checked_tensor(t, shape, dtype, f"input {i}")
                  for i, (t, (shape, dtype, _)) in enumerate(zip(args, self.input_specs))]
        _decompose.check_targets(values, self.target_checks)
        return values

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


# dtypes whose tensors numpy views as they are (bfloat16 and the 8-bit
# floats go through uint8).
_NUMPY_VIEWABLE = {torch.float64, torch.float32, torch.float16, torch.int64, torch.int32,
                   torch.int16, torch.int8, torch.uint8, torch.bool, torch.complex64,
                   torch.complex128}


def _tensor_bytes(t):
    """``t``'s bytes, row-major: a view without a copy when it is contiguous
    on the CPU already (the view keeps the tensor alive; few torch calls, as
    a session call's latency counts each one)."""
    if t.device.type != "cpu" or not t.is_contiguous():
        t = t.detach().to("cpu").contiguous()
    if not t.numel():
        return b""
    if t.dtype in _NUMPY_VIEWABLE:
        return memoryview(t.detach().numpy()).cast("B")
    return memoryview(t.detach().reshape(-1).view(torch.uint8).numpy())


def _unknown_name(name, names, what):
    close = difflib.get_close_matches(name, list(names), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    return f"'{name}' matches no {what} of the module{hint}"


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
            # The same name for every launch: the compiled program is cached.
            hp.run(path, np=np, timeout=timeout,
                   extra_args=[*extra_args, "--input-name=program.mlir"],
                   env={_runtime_abi.ENV_TENSOR_DIR: tmp})
            outs = prog.read_results(tmp)
            step = None
            if repeat > 1:
                with open(os.path.join(tmp, _runtime_abi.result_file(len(outs))), "rb") as f:
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
