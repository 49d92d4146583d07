"""ctypes declarations of libstride's C API (include/stride-c/Stride.h).

This module is the package's only contact with the library: it finds
libstride.so, declares each function it calls with its C types, and turns a
failed status into a StrideError. Nothing here needs torch or numpy.
"""

import atexit
import ctypes
import os

# stride_status, as Stride.h numbers it.
STATUS_NAMES = (
    "STRIDE_OK",
    "STRIDE_INVALID_ARGUMENT",
    "STRIDE_COMPILE_FAILED",
    "STRIDE_INVALID_MODULE",
    "STRIDE_UNAVAILABLE",
    "STRIDE_INTERNAL",
    "STRIDE_NOT_FOUND",
    "STRIDE_RESOURCE_EXHAUSTED",
    "STRIDE_INCOMPATIBLE",
    "STRIDE_DEVICE_FAULT",
)
STRIDE_OK = 0
STRIDE_INVALID_ARGUMENT = 1
STRIDE_COMPILE_FAILED = 2

# stride_dtype, in Stride.h's order.
DTYPE_NAMES = ("f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64")

# stride_emit_kind.
EMIT_MODULE = 0

# stride_invocation_create's flags.
STRIDE_INVOCATION_CUDA_GRAPH = 1
STRIDE_INVOCATION_TUNE_LIBRARY_CALLS = 2

# stride_severity.
SEVERITY_NAMES = ("error", "warning", "note", "remark")


class StrideError(RuntimeError):
    """A failure reported by Stride: `code` is the status's name
    ("STRIDE_INVALID_ARGUMENT", ...), `status` its number, `message` the
    library's message (or the package's, for a check the package makes
    before calling the library)."""

    def __init__(self, status, message):
        self.status = int(status)
        self.code = (STATUS_NAMES[self.status]
                     if 0 <= self.status < len(STATUS_NAMES) else
                     f"STRIDE_STATUS_{self.status}")
        self.message = message
        super().__init__(f"{self.code}: {message}")


class TensorInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_size_t),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("storage_offset", ctypes.c_int64),
        ("storage_bytes", ctypes.c_int64),
        ("num_elements", ctypes.c_int64),
    ]


class StateValue(ctypes.Structure):
    """stride_state_value: a state's new value, dense C order."""
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_size_t),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("data", ctypes.c_void_p),
        ("size", ctypes.c_size_t),
    ]


class Diagnostic(ctypes.Structure):
    _fields_ = [
        ("severity", ctypes.c_int),
        ("file", ctypes.c_char_p),
        ("line", ctypes.c_uint),
        ("column", ctypes.c_uint),
        ("message", ctypes.c_char_p),
        ("num_notes", ctypes.c_size_t),
    ]


_p = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_status = ctypes.c_int
_str = ctypes.c_char_p
_size = ctypes.c_size_t
_u64p = ctypes.POINTER(ctypes.c_uint64)

# name: (result type, argument types). Functions returning a status are
# checked by `call`.
PROTOTYPES = {
    "stride_status_name": (_str, [_status]),
    "stride_last_error_message": (_str, []),
    "stride_version": (_str, []),
    "stride_default_cache_dir": (_str, []),
    "stride_compiler_create": (_status, [_pp]),
    "stride_compiler_destroy": (None, [_p]),
    "stride_compiler_set_arch": (_status, [_p, _str]),
    "stride_compiler_set_emit": (_status, [_p, ctypes.c_int]),
    "stride_compiler_set_repair_layouts": (_status, [_p, ctypes.c_int]),
    "stride_compiler_set_fuse": (_status, [_p, ctypes.c_int]),
    "stride_compiler_set_vectorize": (_status, [_p, ctypes.c_int]),
    "stride_compiler_set_runtime_checks": (_status, [_p, ctypes.c_int]),
    "stride_compiler_set_deterministic": (_status, [_p, ctypes.c_int]),
    "stride_compiler_set_dependent_launch": (_status, [_p, ctypes.c_int]),
    "stride_compiler_set_allow_tf32": (_status, [_p, ctypes.c_int]),
    "stride_compiler_set_multiprocessors": (_status, [_p, ctypes.c_uint]),
    "stride_compiler_set_cache_dir": (_status, [_p, _str]),
    "stride_compiler_set_jobs": (_status, [_p, ctypes.c_uint]),
    "stride_compiler_compile": (_status, [_p, _str, _size, _str, _pp]),
    "stride_compiler_compile_file": (_status, [_p, _str, _pp]),
    "stride_compiler_compile_training_step": (_status, [_p, _str, _str, _pp, _pp]),
    "stride_compile_result_destroy": (None, [_p]),
    "stride_compile_result_succeeded": (ctypes.c_int, [_p]),
    "stride_compile_result_module_bytes": (
        ctypes.POINTER(ctypes.c_uint8), [_p, ctypes.POINTER(ctypes.c_size_t)]),
    "stride_compile_result_num_diagnostics": (_size, [_p]),
    "stride_compile_result_get_diagnostic": (
        _status, [_p, _size, ctypes.POINTER(Diagnostic)]),
    "stride_compile_result_diagnostic_node": (_str, [_p, _size]),
    "stride_compile_result_get_note": (
        _status, [_p, _size, _size, ctypes.POINTER(Diagnostic)]),
    "stride_compile_result_format_diagnostics": (_str, [_p]),
    "stride_compile_result_get_module": (_status, [_p, _pp]),
    "stride_module_load": (_status, [_p, _size, _str, _pp]),
    "stride_module_load_file": (_status, [_str, _pp]),
    "stride_module_destroy": (None, [_p]),
    "stride_module_arch": (_str, [_p]),
    "stride_module_entry_name": (_str, [_p]),
    "stride_module_num_inputs": (_size, [_p]),
    "stride_module_num_outputs": (_size, [_p]),
    "stride_module_describe": (_str, [_p]),
    "stride_module_get_input": (_status, [_p, _size, ctypes.POINTER(TensorInfo)]),
    "stride_module_get_output": (_status, [_p, _size, ctypes.POINTER(TensorInfo)]),
    "stride_module_get_output_alias": (
        _status, [_p, _size, ctypes.POINTER(ctypes.c_int64)]),
    "stride_module_num_states": (_size, [_p]),
    "stride_module_get_state": (_status, [_p, _size, ctypes.POINTER(TensorInfo)]),
    "stride_module_state_starts_zeroed": (
        _status, [_p, _size, ctypes.POINTER(ctypes.c_int)]),
    "stride_runtime_create": (_status, [ctypes.c_int, _pp]),
    "stride_runtime_destroy": (None, [_p]),
    "stride_runtime_describe_device": (_str, [_p]),
    "stride_runtime_device_arch": (_str, [_p]),
    "stride_executable_create": (_status, [_p, _p, _pp]),
    "stride_executable_destroy": (None, [_p]),
    "stride_invocation_create": (_status, [_p, ctypes.c_int, _pp]),
    "stride_invocation_create_sharing_states": (
        _status, [_p, ctypes.c_int, _p, _pp]),
    "stride_invocation_destroy": (None, [_p]),
    "stride_invocation_read_state": (_status, [_p, _str, _p, _size]),
    "stride_invocation_write_state_values": (
        _status, [_p, _size, ctypes.POINTER(StateValue)]),
    "stride_invocation_reset_states": (_status, [_p]),
    "stride_invocation_run_host": (_status, [_p, _pp, _size, _pp, _size]),
    "stride_invocation_run_device": (_status, [_p, _u64p, _size, _u64p, _size, _p]),
    "stride_invocation_bind_input_value": (
        _status, [_p, _size, ctypes.c_int64]),
}

LIBRARY_NAMES = ("libstride.so", "libstride.so.0.1")


def candidate_paths():
    """Where libstride.so is looked for, in order: the file STRIDE_LIBRARY
    names; a build of the repository this package sits in (build/lib, then
    build/portable/lib); the loader's search path."""
    named = os.environ.get("STRIDE_LIBRARY")
    if named:
        return [named]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    found = [os.path.join(repo, "build", sub, "libstride.so")
             for sub in ("lib", os.path.join("portable", "lib"))]
    return [p for p in found if os.path.exists(p)] + list(LIBRARY_NAMES)


def open_library():
    """Loads libstride and declares its functions; StrideError
    (STRIDE_NOT_FOUND) naming every place it looked when none loads."""
    tried = []
    for path in candidate_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError as error:
            tried.append(f"{path} ({error})")
            continue
        for name, (restype, argtypes) in PROTOTYPES.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        return lib
    raise StrideError(6, "libstride.so could not be loaded; set STRIDE_LIBRARY "
                      "to its path (build/lib/libstride.so, or "
                      "build/portable/lib/libstride.so on a GPU machine). Tried: "
                      + "; ".join(tried))


_library = None
# Set when the interpreter exits: handles are then left to the process's
# end, whatever order Python tears objects down in.
exiting = False


def _at_exit():
    global exiting
    exiting = True


atexit.register(_at_exit)


def alive():
    """Whether destroying a handle is safe now."""
    return _library is not None and not exiting


def lib():
    """The loaded library (loaded on first use)."""
    global _library
    if _library is None:
        _library = open_library()
    return _library


def text(value):
    return value.decode("utf-8", "replace") if value is not None else ""


def last_error():
    return text(lib().stride_last_error_message())


def call(function, *args):
    """Calls a status-returning function; raises StrideError on failure."""
    status = function(*args)
    if status != STRIDE_OK:
        raise StrideError(status, last_error())


def version():
    return text(lib().stride_version())
