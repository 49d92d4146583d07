"""Stride from Python: modules called with torch tensors, stride.compile,
and the torch.compile backend "stride".

User-side Python over libstride's C API (ctypes); the compiler and the
runtime have no Python. python/README.md documents it.

  stride.load(path)                  a .stridemod, called with CUDA tensors
  stride.compile(model, inputs)      export, compile, load
  torch.compile(m, backend="stride") Dynamo and AOTAutograd graphs compiled
  stride.StrideError                 Stride's status code name and message

libstride.so is found through STRIDE_LIBRARY, a build of the repository
the package sits in, or the loader's path (stride._capi.candidate_paths).
"""

import sys

from ._capi import StrideError, version
from .compiler import CompileError, Compiler, default_cache_dir
from .module import Invocation, Executable, Module, StateSpec, TensorSpec

__all__ = ["load", "compile", "StrideError", "CompileError", "Compiler",
           "Module", "Executable", "Invocation", "TensorSpec", "StateSpec",
           "version", "default_cache_dir"]


def load(path_or_bytes, device=None, copy_inputs=False, use_cuda_graph=False,
         share_states_with=None, tune_library_calls=False, broadcast_inputs=False):
    """A .stridemod (a path or its bytes) loaded on a CUDA device, called
    with torch tensors (stride.torch_module.load and TorchModule say what
    each option does)."""
    from .torch_module import load as load_torch

    return load_torch(path_or_bytes, device, copy_inputs, use_cuda_graph,
                      share_states_with, tune_library_calls, broadcast_inputs)


def compile(model, example_inputs, **options):  # noqa: A001
    """stride.compile_model.compile: export, compile, load."""
    from .compile_model import compile as compile_torch

    return compile_torch(model, example_inputs, **options)


# With torch imported, the backend is registered now; otherwise the
# package's entry point (torch_dynamo_backends) lets torch find it, or
# stride.dynamo.register() does.
if "torch" in sys.modules:
    try:
        from . import dynamo

        dynamo.register()
    except Exception as error:  # noqa: BLE001 - the rest of the package works
        import warnings

        warnings.warn(f"stride: the torch.compile backend is not registered: "
                      f"{type(error).__name__}: {error}")
