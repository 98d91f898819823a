# -*- Python -*-
# Lit configuration for TGC's regression tests (test/) — FileCheck tests of
# tgc-opt and tgc-translate, and integration tests that compile and run
# functions on the CPU through tgc-run (test/Integration). Unit tests live
# under test/Unit with their own configuration (lit's GoogleTest format).

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TGC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tgc_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tgc_src_root", config.tgc_src_root))
config.substitutions.append(("%tgc_obj_root", config.tgc_obj_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# FileCheck, not, count, split-file come from LLVM's tools directory; the
# TGC tools from the build.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tgc_tools_dir, append_path=True)

tools = [
    "tgc-opt",
    "tgc-translate",
    "tgc-run",
    ToolSubst("%python", config.python_executable, unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, [config.tgc_tools_dir,
                                           config.llvm_tools_dir])

# ptxas, searched in tgc-translate's order ($CUDA_HOME, $CUDA_PATH, the
# configured TGC_CUDA_PATH, then PATH). Tests that compile to cubin say
# `REQUIRES: ptxas`.
def find_ptxas():
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
             config.tgc_cuda_path]
    for root in roots:
        if root:
            candidate = os.path.join(root, "bin", "ptxas")
            if os.access(candidate, os.X_OK):
                return candidate
    return shutil.which("ptxas")


if find_ptxas():
    config.available_features.add("ptxas")

# A usable NVIDIA GPU: a driver library and a device node. GPU execution
# tests say `REQUIRES: cuda-gpu` and are skipped everywhere else (CI).
if os.path.exists("/dev/nvidia0") and (
    os.path.exists("/usr/lib/x86_64-linux-gnu/libcuda.so.1")
    or shutil.which("nvidia-smi")
):
    config.available_features.add("cuda-gpu")
