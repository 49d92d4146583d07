# -*- Python -*-
# lit configuration of the Stride regression tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "STRIDE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "Unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.stride_obj_root, "test")

config.substitutions.append(("%stride_src", config.stride_src_root))
config.substitutions.append(("%stride_obj", config.stride_obj_root))
config.substitutions.append(("%examples", os.path.join(config.stride_src_root, "examples")))
config.substitutions.append(("%stride_bin", config.stride_tools_dir))
# The host C++ compiler, for tests that build emitted device code for the
# CPU with test/Emu/CudaEmulation.h.
config.substitutions.append(("%host_cxx", config.cxx_compiler))
# The folder of the libcuda.so.1 test double (test/Runtime/FakeCuda.cpp).
config.substitutions.append(("%fake_cuda", os.path.join(config.stride_obj_root, "test", "Runtime", "fake-cuda")))

# What a standalone project needs to build against this build's install
# (test/Embed): cmake, and the same compiler and sanitizers as this build.
import shlex

embed_args = ["-G", config.cmake_generator,
              "-DCMAKE_CXX_COMPILER=" + config.cxx_compiler]
if config.stride_sanitizers:
    flags = "-fsanitize=" + ",".join(config.stride_sanitizers.split(";"))
    embed_args += ["-DCMAKE_CXX_FLAGS=" + flags,
                   "-DCMAKE_EXE_LINKER_FLAGS=" + flags]
config.substitutions.append(("%cmake", shlex.quote(config.cmake_command)))
config.substitutions.append(
    ("%embed_cmake_args", " ".join(shlex.quote(a) for a in embed_args)))

llvm_config.with_system_environment(["HOME", "TMPDIR", "XDG_CACHE_HOME"])
llvm_config.use_default_substitutions()
# stridec caches NVRTC output under $XDG_CACHE_HOME/stride/nvrtc: the tests
# keep theirs in the build tree, away from the user's cache.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "xdg-cache")

tool_dirs = [config.stride_tools_dir, config.llvm_tools_dir]
tools = ["stride-opt", "stridec", "stride-run", "stride-run-gpu", "stride-generate", "stride-reduce", "stride-reduce-test", "stride-capi-test", "stride-gen", "FileCheck", "not", "count", "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Tests that need a CUDA driver (and GPU) run only where libcuda.so.1 loads;
# tests of the no-driver path only where it does not.
import ctypes

try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

# The Python package's tests (test/Python) load libstride.so into Python
# with ctypes and need NumPy; a sanitized libstride.so cannot be loaded into
# an interpreter that was not started with the sanitizer runtimes.
import subprocess
import sys

config.substitutions.append(("%python", sys.executable))
if not config.stride_sanitizers and subprocess.run(
        [sys.executable, "-c", "import numpy"], capture_output=True).returncode == 0:
    config.available_features.add("python-numpy")
