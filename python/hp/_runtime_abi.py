"""The names of hp's runtime ABI (include/hp/Runtime/Runtime.h), read from
the C++ header through ``_hp``: the functions a driver calls (reserved
symbols of a module), the files of tensor and session directories and the
environment variables. Python never spells them itself."""

from hp import _hp

_ABI = _hp.runtime_abi()

DRIVER_FUNCTIONS = tuple(_ABI["driver_functions"])
REQUESTS = _ABI["requests"]
REPLIES = _ABI["replies"]
STAGING_SUFFIX = _ABI["staging_suffix"]
PEAK_MEMORY_FILE = _ABI["peak_memory_file"]
ENV_TENSOR_DIR = _ABI["env_tensor_dir"]
ENV_SESSION_CALLS = _ABI["env_session_calls"]
ENV_SESSION_CLIENT = _ABI["env_session_client"]
ENV_SESSION_REMOVE_DIR = _ABI["env_session_remove_dir"]


def argument_file(slot):
    """Argument ``slot``'s file: the tensor's bytes, row-major."""
    return f"{_ABI['argument_prefix']}{slot}{_ABI['tensor_suffix']}"


def argument_reference(slot):
    """Argument ``slot``'s reference: one line ``<offset> <path>``."""
    return f"{_ABI['argument_prefix']}{slot}{_ABI['reference_suffix']}"


def result_file(slot):
    """Result ``slot``'s file, as rank 0 writes it."""
    return f"{_ABI['result_prefix']}{slot}{_ABI['tensor_suffix']}"
