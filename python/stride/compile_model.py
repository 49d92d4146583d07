"""stride.compile: a PyTorch model to a loaded module, through torch.export
and libstride's compiler, cached by content."""

import hashlib
import os

from .compiler import Compiler, OPTIONS, default_cache_dir
from .export import archive_bytes, export_program, flat_tensors, use_torchs_cudnn
from .module import runtime
from .torch_module import TorchModule, cuda_device


def archive_path(cache_dir, data):
    """Where an archive's bytes are kept for the compiler: a file named by
    their hash, so that the module cache (which keys on the file's bytes
    and path) finds a module compiled from the same bytes before."""
    folder = os.path.join(cache_dir, "archives")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha256(data).hexdigest() + ".pt2")
    if not os.path.exists(path):
        temporary = f"{path}.{os.getpid()}.tmp"
        with open(temporary, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    return path


def compile_archive(data, device, options):
    """Compiles a .pt2 archive's bytes for `device`'s arch with `options`
    (Compiler's; cache_dir defaults to stridec's cache, None or "" caches
    nothing); returns the CompileResult."""
    options = dict(options)
    options.setdefault("arch", runtime(device.index).arch)
    cache_dir = options.pop("cache_dir", default_cache_dir())
    if cache_dir:
        path = archive_path(cache_dir, data)
        return Compiler(cache_dir=cache_dir, **options).compile_file(path)
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "graph.pt2")
        with open(path, "wb") as f:
            f.write(data)
        return Compiler(**options).compile_file(path)


def compile(model, example_inputs, device=None, copy_inputs=False,
            attention="fused", **options):  # noqa: A001 - stride.compile
    """Exports `model` at `example_inputs` (a tuple of tensors) with
    torch.export and Stride's decompositions, compiles the archive with
    libstride's compiler (keyword options: stride.compiler.OPTIONS, e.g.
    repair_layouts=True, allow_tf32=True, cache_dir=...) for the CUDA
    device's arch and loads it there. Returns a TorchModule: call it with
    tensors laid out as the example inputs; it returns the model's output
    tensors, flattened. The weights are constants of the module; the
    module's file is `.module_bytes` (stride.load takes it), its compile's
    remarks and warnings `.diagnostics`."""
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise TypeError(f"stride.compile got unknown options {sorted(unknown)}; "
                        f"the compiler's are {', '.join(OPTIONS)}")
    device = cuda_device(device)
    inputs = tuple(example_inputs)
    program = export_program(model, inputs, attention)
    result = compile_archive(archive_bytes(program), device, options)
    use_torchs_cudnn()  # the cuDNN PyTorch loaded, for attention
    compiled = TorchModule(result.module, device, copy_inputs)
    compiled.diagnostics = result.diagnostics
    compiled.module_bytes = result.module_bytes
    expected = len(flat_tensors(inputs))
    if len(result.module.inputs) != expected:
        from ._capi import STRIDE_INVALID_ARGUMENT, StrideError

        raise StrideError(STRIDE_INVALID_ARGUMENT,
                          f"the module takes {len(result.module.inputs)} inputs "
                          f"where the model takes {expected} tensors\n"
                          + compiled.signature)
    return compiled
