"""Compiling graphs with libstride's compiler (stride_compiler_*): graph
text or files (a .mlir graph, a torch.export .pt2 archive) to modules, with
the diagnostics as data. Nothing here needs torch."""

import ctypes

from . import _capi
from ._capi import StrideError, call, lib, text
from .module import Module

# Options of Compiler, each a stride_compiler_set_* function of the C API.
FLAG_OPTIONS = {
    "repair_layouts": "stride_compiler_set_repair_layouts",
    "fuse": "stride_compiler_set_fuse",
    "vectorize": "stride_compiler_set_vectorize",
    "runtime_checks": "stride_compiler_set_runtime_checks",
    "deterministic": "stride_compiler_set_deterministic",
    "dependent_launch": "stride_compiler_set_dependent_launch",
    "allow_tf32": "stride_compiler_set_allow_tf32",
}
NUMBER_OPTIONS = {
    "multiprocessors": "stride_compiler_set_multiprocessors",
    "jobs": "stride_compiler_set_jobs",
}
TEXT_OPTIONS = {
    "arch": "stride_compiler_set_arch",
    "cache_dir": "stride_compiler_set_cache_dir",
}
OPTIONS = tuple(FLAG_OPTIONS) + tuple(NUMBER_OPTIONS) + tuple(TEXT_OPTIONS)


def default_cache_dir():
    """The cache stridec uses: $XDG_CACHE_HOME/stride/nvrtc."""
    return text(lib().stride_default_cache_dir())


class Diagnostic:
    """An error, warning, note or remark of a compile: `severity` is
    "error", "warning", "note" or "remark"; `node` the imported graph node
    it is about ("" if none); `line` and `column` 0 without a location."""

    def __init__(self, raw, node="", notes=()):
        self.severity = _capi.SEVERITY_NAMES[raw.severity]
        self.file = text(raw.file)
        self.line = raw.line
        self.column = raw.column
        self.message = text(raw.message)
        self.node = node
        self.notes = list(notes)

    def __str__(self):
        where = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        node = f"node '{self.node}': " if self.node else ""
        return f"{where}: {self.severity}: {node}{self.message}"

    def __repr__(self):
        return f"Diagnostic({str(self)!r})"


class CompileError(StrideError):
    """STRIDE_COMPILE_FAILED, with the compile's diagnostics."""

    def __init__(self, message, diagnostics):
        super().__init__(_capi.STRIDE_COMPILE_FAILED, message)
        self.diagnostics = diagnostics


class CompileResult:
    """A module (bytes and parsed) and the diagnostics of its compile."""

    def __init__(self, module_bytes, module, diagnostics):
        self.module_bytes = module_bytes
        self.module = module
        self.diagnostics = diagnostics

    def remarks(self):
        return [d for d in self.diagnostics if d.severity == "remark"]


def _diagnostics(result):
    L = lib()
    found = []
    for i in range(L.stride_compile_result_num_diagnostics(result)):
        raw = _capi.Diagnostic()
        call(L.stride_compile_result_get_diagnostic, result, i, ctypes.byref(raw))
        notes = []
        for n in range(raw.num_notes):
            note = _capi.Diagnostic()
            call(L.stride_compile_result_get_note, result, i, n, ctypes.byref(note))
            notes.append(Diagnostic(note))
        node = text(L.stride_compile_result_diagnostic_node(result, i))
        found.append(Diagnostic(raw, node, notes))
    return found


class Compiler:
    """A compiler with options (keyword arguments, each one of OPTIONS):
    repair_layouts, fuse, vectorize, runtime_checks, deterministic,
    dependent_launch, allow_tf32 (booleans), multiprocessors, jobs (ints),
    arch ("sm_90"), cache_dir (a directory: NVRTC's output and, for
    compile_file, whole modules, as stridec keeps them)."""

    def __init__(self, **options):
        self._handle = ctypes.c_void_p()
        call(lib().stride_compiler_create, ctypes.byref(self._handle))
        self.options = {}
        for name, value in options.items():
            self.set(name, value)

    def set(self, name, value):
        L = lib()
        if name in FLAG_OPTIONS:
            call(getattr(L, FLAG_OPTIONS[name]), self._handle, int(bool(value)))
        elif name in NUMBER_OPTIONS:
            call(getattr(L, NUMBER_OPTIONS[name]), self._handle, int(value))
        elif name in TEXT_OPTIONS:
            call(getattr(L, TEXT_OPTIONS[name]), self._handle, str(value).encode())
        else:
            raise StrideError(_capi.STRIDE_INVALID_ARGUMENT,
                              f"unknown compile option '{name}': expected one "
                              f"of {', '.join(OPTIONS)}")
        self.options[name] = value

    def compile(self, source, name="<graph>"):
        """Compiles graph text (the stride dialect) to a module."""
        data = source.encode() if isinstance(source, str) else bytes(source)
        result = ctypes.c_void_p()
        status = lib().stride_compiler_compile(self._handle, data, len(data),
                                               name.encode(), ctypes.byref(result))
        return self._finish(status, result, name)

    def compile_file(self, path):
        """Compiles a graph file or a torch.export archive (.pt2)."""
        result = ctypes.c_void_p()
        status = lib().stride_compiler_compile_file(
            self._handle, str(path).encode(), ctypes.byref(result))
        return self._finish(status, result, str(path))

    def compile_training_step(self, forward, backward):
        """Compiles a training step's forward and backward graph files
        together (stridec FORWARD --backward=BACKWARD): eager attention is
        fused across them, and the saved tensors the modules name change
        to match (python-free-docs/attention.md, "Training graphs spelled
        out"). Returns the two CompileResults; raises as compile_file, the
        backward's error named so."""
        results = (ctypes.c_void_p(), ctypes.c_void_p())
        status = lib().stride_compiler_compile_training_step(
            self._handle, str(forward).encode(), str(backward).encode(),
            ctypes.byref(results[0]), ctypes.byref(results[1]))
        if status != _capi.STRIDE_OK:
            # The forward's result says why where it failed, else the backward's.
            message = _capi.last_error()
            failed = 0 if not lib().stride_compile_result_succeeded(results[0]) else 1
            lib().stride_compile_result_destroy(results[1 - failed])
            return self._finish(status, results[failed], (forward, backward)[failed],
                                message)
        return (self._finish(status, results[0], str(forward)),
                self._finish(status, results[1], str(backward)))

    def _finish(self, status, result, name, message=None):
        L = lib()
        message = _capi.last_error() if message is None else message
        try:
            if status not in (_capi.STRIDE_OK, _capi.STRIDE_COMPILE_FAILED):
                raise StrideError(status, message)
            diagnostics = _diagnostics(result)
            if status != _capi.STRIDE_OK:
                raise CompileError(
                    message + "".join(f"\n{d}" for d in diagnostics[1:]),
                    diagnostics)
            size = ctypes.c_size_t()
            data = L.stride_compile_result_module_bytes(result, ctypes.byref(size))
            module_bytes = ctypes.string_at(data, size.value)
            handle = ctypes.c_void_p()
            call(L.stride_compile_result_get_module, result, ctypes.byref(handle))
            return CompileResult(module_bytes, Module(handle, name), diagnostics)
        finally:
            L.stride_compile_result_destroy(result)

    def __del__(self):
        if getattr(self, "_handle", None) and _capi.alive():
            _capi._library.stride_compiler_destroy(self._handle)
            self._handle = None
