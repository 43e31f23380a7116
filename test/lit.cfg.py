# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "HP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hp_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "gen_redistribute.py", "gen_shard_programs.py", "gen_global.py",
                   "gen_contractions.py", "gen_elementwise.py", "gen_scan.py",
                   "gen_sort.py"]

# Every FileCheck variable is scoped to its CHECK-LABEL block (StableHLO habit).
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%hp_src_root", config.hp_src_root))
config.substitutions.append(("%hp_obj_root", config.hp_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# End-to-end tests run real ranks; a hung collective fails instead of waiting.
config.environment["HP_TIMEOUT_S"] = "120"
# Every NCCL call is compared across its ranks (docs/Runtime.md): a
# mismatched collective fails the test instead of completing silently.
config.environment["HP_CHECK_COLLECTIVES"] = "1"
# Compiled programs are cached in the build tree, not in the user's cache;
# a test of the cache itself names its own directory.
config.environment["HP_CACHE_DIR"] = os.path.join(config.hp_obj_root, "test", "hp-cache")
config.substitutions.append(
    ("%hp-runner", os.path.join(config.hp_tools_dir, "hp-runner")))
# The generated programs (thousands of cases) spend most of their time in
# each rank's JIT code generation, not in running: they build with LLVM's
# fast instruction selection and register allocation. The hand-written
# tests keep hp-runner's default (optimized) code generation.
config.substitutions.append(
    ("%hp-quick-runner", os.path.join(config.hp_tools_dir, "hp-runner")
     + " -O0 --fast-isel --regalloc=fast"))
# hp-runner -march must name the host's architecture (LLVM's names).
import platform
host_arch = {"x86_64": "x86-64", "aarch64": "aarch64"}.get(platform.machine(), platform.machine())
config.substitutions.append(("%host_arch", host_arch))
# x86 (32-bit) shares the native target of x86-64 hosts: a real other
# architecture, not an unknown one.
config.substitutions.append(("%other_arch", "x86" if host_arch == "x86-64" else "x86-64"))
config.substitutions.append(("%hp_lib_dir", os.path.join(config.hp_obj_root, "lib")))
if shutil.which("mpirun"):
    config.available_features.add("mpi")

tool_dirs = [config.hp_tools_dir, config.llvm_tools_dir]
tools = ["hp-opt", "hp-lsp-server", "mlir-opt", "mlir-translate", "hp-capi-test", "hp-capi-errors-test", "hp-capi-collectives-test", "llc", "llvm-nm", "llvm-objcopy"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

if config.hp_have_cuda:
    config.available_features.add("cuda")
    config.substitutions.append(("%cuda_bin", os.path.join(config.hp_cuda_root, "bin")))
    config.substitutions.append(("%cuda_stubs", os.path.join(config.hp_cuda_root, "lib64", "stubs")))
    config.substitutions.append(("%cuda_lib", os.path.join(config.hp_cuda_root, "lib64")))
if config.hp_have_gpu_runtime:
    config.available_features.add("gpu-runtime")
    config.substitutions.append(
        ("%nccl_lib_dir", os.path.dirname(config.hp_nccl_library)))
    # GPU end-to-end tests need a visible GPU and its driver.
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            listed = subprocess.run([smi, "-L"], capture_output=True, text=True,
                                    timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            listed = ""
        gpus = listed.count("GPU ")
        if gpus:
            config.available_features.add("cuda-device")
        # NCCL takes one GPU per rank: multi-rank GPU tests need that many.
        for ranks in (2, 4):
            if gpus >= ranks:
                config.available_features.add(f"cuda-devices-{ranks}")

# Inputs/ holds helper modules, not tests.
config.excludes.append("Inputs")
config.excludes.append("external-project")
