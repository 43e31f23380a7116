# lit configuration for a project that tests its own programs' lowering with
# hp. Copy this directory into your project and point it at hp's tools:
#
#   lit --param hp_tools_dir=/path/to/hp/bin path/to/lit-template
#
# (or set HP_TOOLS_DIR). FileCheck comes from LLVM 22.
import os
import shutil

import lit.formats

config.name = "my-project-on-hp"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
# Temporary files go to --param build_dir=... (default: ./Output here).
config.test_exec_root = lit_config.params.get(
    "build_dir", os.path.join(config.test_source_root, "Output"))
config.excludes = ["lit.cfg.py"]

tools = lit_config.params.get("hp_tools_dir", os.environ.get("HP_TOOLS_DIR", ""))
if not tools or not os.path.exists(os.path.join(tools, "hp-opt")):
    lit_config.fatal("set --param hp_tools_dir=<dir with hp-opt> or HP_TOOLS_DIR")
llvm_bin = lit_config.params.get("llvm_bin", "/usr/lib/llvm-22/bin")
config.substitutions.append(("%hp-opt", os.path.join(tools, "hp-opt")))
config.substitutions.append(("%hp-runner", os.path.join(tools, "hp-runner")))
config.substitutions.append(("%FileCheck", os.path.join(llvm_bin, "FileCheck")))
config.environment["PATH"] = os.pathsep.join([llvm_bin, os.environ.get("PATH", "")])
# Ranks that hang fail instead of waiting.
config.environment["HP_TIMEOUT_S"] = "120"
if shutil.which("mpirun"):
    config.available_features.add("mpi")
