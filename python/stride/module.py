"""Modules, their signatures, and running them through libstride's runtime.

Nothing here needs torch: a Module is a parsed .stridemod and its signature;
an Executable is a module loaded on a GPU; an Invocation runs it, on device
pointers (run_device) or on NumPy arrays (run_host). stride.load wraps these
for torch tensors (stride/torch_module.py).
"""

import ctypes
import threading

from . import _capi
from ._capi import StrideError, call, lib, text


class TensorSpec:
    """One input or output of a module's signature: `dtype` is Stride's
    name ("f32", "i64", ...), `strides` in elements; element (i_0, ...) is at
    `storage_offset + sum(i_k * strides[k])` of a buffer of `storage_bytes`.
    `alias_of_input` (outputs only): the index of the input whose buffer
    that is (an input the graph returns as it is, or a view of one: the
    output shares its memory), or None for a buffer of its own."""

    __slots__ = ("name", "dtype", "shape", "strides", "storage_offset",
                 "storage_bytes", "num_elements", "alias_of_input")

    def __init__(self, info, alias_of_input=None):
        self.name = text(info.name)
        self.dtype = _capi.DTYPE_NAMES[info.dtype]
        self.shape = tuple(info.shape[i] for i in range(info.rank))
        self.strides = tuple(info.strides[i] for i in range(info.rank))
        self.storage_offset = info.storage_offset
        self.storage_bytes = info.storage_bytes
        self.num_elements = info.num_elements
        self.alias_of_input = alias_of_input

    def __repr__(self):
        alias = ("" if self.alias_of_input is None
                 else f", aliases input {self.alias_of_input}")
        return (f"{self.name}: {self.dtype} {list(self.shape)} strides "
                f"{list(self.strides)} offset {self.storage_offset}{alias}")


class StateSpec(TensorSpec):
    """One of a module's states (python-free-docs/state.md): a buffer that
    persists across runs (a KV cache), laid out as a TensorSpec says;
    `initial` is "zeros" or "stored" (the module's bytes)."""

    __slots__ = ("initial",)

    def __init__(self, info, zeroed):
        super().__init__(info)
        self.initial = "zeros" if zeroed else "stored"

    def __repr__(self):
        return f"{super().__repr__()}, initially {self.initial}"


def layout_mismatch(spec, dtype, shape, strides):
    """Why a tensor of `dtype` (Stride's name), `shape` and `strides` (in
    elements) cannot be passed as `spec` without a copy, or None when it
    can. A dim of size 1 addresses nothing, so its stride is not compared."""
    if dtype != spec.dtype:
        return f"dtype {dtype}, expected {spec.dtype}"
    if tuple(shape) != spec.shape:
        return f"shape {list(shape)}, expected {list(spec.shape)}"
    for d, (size, got, want) in enumerate(zip(shape, strides, spec.strides)):
        if size != 1 and got != want:
            return (f"strides {list(strides)}, expected {list(spec.strides)} "
                    f"(dim {d})")
    return None


def signature_text(module):
    """The module's signature, one line per tensor, for error messages."""
    lines = [f"'{module.entry_name}' takes"]
    lines += [f"  input {i}: {s}" for i, s in enumerate(module.inputs)]
    lines += [f"  returns {i}: {s}" for i, s in enumerate(module.outputs)]
    lines += [f"  state {i}: {s}" for i, s in enumerate(module.states)]
    return "\n".join(lines)


class Module:
    """A parsed .stridemod (its code not yet on a GPU) and its signature."""

    def __init__(self, handle, name):
        self._handle = handle
        self.name = name
        L = lib()
        self.entry_name = text(L.stride_module_entry_name(handle))
        self.arch = text(L.stride_module_arch(handle))
        self.inputs = self._specs(L.stride_module_num_inputs(handle),
                                  L.stride_module_get_input)
        self.outputs = [TensorSpec(info, self._output_alias(i)) for i, info in
                        enumerate(self._infos(L.stride_module_num_outputs(handle),
                                              L.stride_module_get_output))]
        self.states = [StateSpec(info, self._starts_zeroed(i)) for i, info in
                       enumerate(self._infos(L.stride_module_num_states(handle),
                                             L.stride_module_get_state))]

    def _infos(self, count, getter):
        infos = []
        for i in range(count):
            info = _capi.TensorInfo()
            call(getter, self._handle, i, ctypes.byref(info))
            infos.append(info)
        return infos

    def _specs(self, count, getter):
        return [TensorSpec(info) for info in self._infos(count, getter)]

    def _output_alias(self, index):
        """The input output `index` aliases, or None."""
        input_index = ctypes.c_int64()
        call(lib().stride_module_get_output_alias, self._handle, index,
             ctypes.byref(input_index))
        return None if input_index.value < 0 else input_index.value

    def _starts_zeroed(self, index):
        zeroed = ctypes.c_int()
        call(lib().stride_module_state_starts_zeroed, self._handle, index,
             ctypes.byref(zeroed))
        return bool(zeroed.value)

    def state(self, name):
        """The StateSpec named `name`, or None."""
        return next((s for s in self.states if s.name == name), None)

    @classmethod
    def from_file(cls, path):
        handle = ctypes.c_void_p()
        call(lib().stride_module_load_file, str(path).encode(), ctypes.byref(handle))
        return cls(handle, str(path))

    @classmethod
    def from_bytes(cls, data, name="module"):
        handle = ctypes.c_void_p()
        buffer = ctypes.create_string_buffer(bytes(data), len(data))
        call(lib().stride_module_load, buffer, len(data), name.encode(),
             ctypes.byref(handle))
        return cls(handle, name)

    def describe(self):
        """What `stridec --inspect` prints."""
        return text(lib().stride_module_describe(self._handle))

    def signature(self):
        return signature_text(self)

    def __del__(self):
        if getattr(self, "_handle", None) and _capi.alive():
            _capi._library.stride_module_destroy(self._handle)
            self._handle = None


class Runtime:
    """One CUDA device (its primary context, which PyTorch shares)."""

    def __init__(self, device=0):
        self._handle = ctypes.c_void_p()
        call(lib().stride_runtime_create, int(device), ctypes.byref(self._handle))
        self.device = device
        self.description = text(lib().stride_runtime_describe_device(self._handle))
        self.arch = text(lib().stride_runtime_device_arch(self._handle))
        # Never destroyed: runtime() keeps one per device for the process.


_runtimes = {}
_runtimes_lock = threading.Lock()


def runtime(device=0):
    """The process's Runtime of CUDA device `device`, created once."""
    with _runtimes_lock:
        if device not in _runtimes:
            _runtimes[device] = Runtime(device)
        return _runtimes[device]


class Executable:
    """A module's code loaded on a device; shared by its invocations."""

    def __init__(self, module, device=0):
        self.module = module
        self.runtime = runtime(device)
        self._handle = ctypes.c_void_p()
        call(lib().stride_executable_create, self.runtime._handle,
             module._handle, ctypes.byref(self._handle))

    def __del__(self):
        if getattr(self, "_handle", None) and _capi.alive():
            _capi._library.stride_executable_destroy(self._handle)
            self._handle = None


class Invocation:
    """One caller's buffers and launches of an Executable: one stream (or
    one thread) at a time. It owns the module's states (persistent across
    its runs), or, with `share_states_with` (another Invocation, of this
    module or of one declaring the same states), uses that one's: a
    prefill and a decode module on one KV cache. StrideError
    (STRIDE_INVALID_ARGUMENT) naming the first difference when the states
    differ. `use_cuda_graph`: the plan captured into a CUDA graph on the
    first run and replayed afterwards; `tune_library_calls`: each library
    call's algorithm chosen by timing before the first run (which then
    waits for its stream; python-free-docs/embedding.md, "Tuning library
    calls")."""

    def __init__(self, executable, use_cuda_graph=False, share_states_with=None,
                 tune_library_calls=False):
        self.executable = executable  # kept alive as long as this
        self._handle = ctypes.c_void_p()
        flags = ((_capi.STRIDE_INVOCATION_CUDA_GRAPH if use_cuda_graph else 0)
                 | (_capi.STRIDE_INVOCATION_TUNE_LIBRARY_CALLS
                    if tune_library_calls else 0))
        if share_states_with is None:
            call(lib().stride_invocation_create, executable._handle, flags,
                 ctypes.byref(self._handle))
        else:
            call(lib().stride_invocation_create_sharing_states,
                 executable._handle, flags, share_states_with._handle,
                 ctypes.byref(self._handle))
        module = executable.module
        self._inputs = (ctypes.c_uint64 * max(1, len(module.inputs)))()
        self._outputs = (ctypes.c_uint64 * max(1, len(module.outputs)))()
        self._run_device = lib().stride_invocation_run_device

    def run_device(self, inputs, outputs, stream=None):
        """Enqueues a run on `stream` (a CUstream as an int; None: the legacy
        default stream) over device pointers (ints): each the address of
        storage element 0 of a buffer laid out as the signature says."""
        for i, address in enumerate(inputs):
            self._inputs[i] = address
        for i, address in enumerate(outputs):
            self._outputs[i] = address
        status = self._run_device(self._handle, self._inputs, len(inputs),
                                  self._outputs, len(outputs), stream)
        if status:
            raise StrideError(status, _capi.last_error())

    def bind_input_value(self, index, value):
        """The value input `index` holds for the next run_device calls, where
        the module binds a symbol to it (a decode step's position, which
        chooses its attention: python-free-docs/symbolic-sizes.md, "Symbols
        bound from a value"); run_host reads it itself. It chooses among
        steps that compute the same results, so a wrong value or none costs
        time, never a result. Nothing to do for an input no symbol is bound
        from."""
        call(lib().stride_invocation_bind_input_value, self._handle, index,
             value)

    def run_host(self, arrays):
        """Runs on NumPy arrays (checked against the signature; copied in
        dense C order), waits, and returns the outputs as NumPy arrays."""
        import numpy as np

        module = self.executable.module
        check_count(module, len(arrays))
        dense = []
        for i, (spec, array) in enumerate(zip(module.inputs, arrays)):
            array = np.asarray(array)
            dtype = numpy_dtype_name(array.dtype)
            if dtype != spec.dtype or tuple(array.shape) != spec.shape:
                raise mismatch_error(module, i, f"dtype {dtype}, shape "
                                     f"{list(array.shape)}")
            dense.append(np.ascontiguousarray(array))
        outputs = [np.empty(s.shape, dtype=NUMPY_DTYPES[s.dtype])
                   for s in module.outputs]
        in_ptrs = (ctypes.c_void_p * max(1, len(dense)))(
            *[a.ctypes.data for a in dense])
        out_ptrs = (ctypes.c_void_p * max(1, len(outputs)))(
            *[o.ctypes.data for o in outputs])
        call(lib().stride_invocation_run_host, self._handle, in_ptrs,
             len(dense), out_ptrs, len(outputs))
        return outputs

    def read_state(self, name):
        """State `name`'s value as a dense NumPy array (bf16: its uint16
        bit patterns). The copy is made on the invocation's own stream and
        waited for; runs that run_device enqueued on another stream are
        not: synchronize that stream first."""
        import numpy as np

        spec = self.executable.module.state(name)
        if spec is None:  # the library's message lists the states
            call(lib().stride_invocation_read_state, self._handle,
                 name.encode(), None, 0)
        value = np.empty(spec.shape, dtype=NUMPY_DTYPES[spec.dtype])
        call(lib().stride_invocation_read_state, self._handle, name.encode(),
             value.ctypes.data, value.nbytes)
        return value

    def write_states(self, values):
        """Sets states from {name: array} (anything np.asarray takes; bf16
        as uint16 bit patterns), all or nothing: every name, dtype and shape
        is checked by the library before any state is written."""
        import numpy as np

        arrays = [(name, np.ascontiguousarray(np.asarray(v)))
                  for name, v in values.items()]
        entries = (_capi.StateValue * max(1, len(arrays)))()
        shapes = []  # alive through the call, as `arrays` is
        for entry, (name, array) in zip(entries, arrays):
            shape = (ctypes.c_int64 * max(1, array.ndim))(*array.shape)
            shapes.append(shape)
            entry.name = name.encode()
            entry.dtype = state_dtype(name, array.dtype)
            entry.rank = array.ndim
            entry.shape = shape
            entry.data = array.ctypes.data
            entry.size = array.nbytes
        call(lib().stride_invocation_write_state_values, self._handle,
             len(arrays), entries)

    def reset_states(self):
        """Sets every state back to its initial value (the module's)."""
        call(lib().stride_invocation_reset_states, self._handle)

    def __del__(self):
        if getattr(self, "_handle", None) and _capi.alive():
            _capi._library.stride_invocation_destroy(self._handle)
            self._handle = None


# Stride's dtypes as NumPy's (bf16 has none: its values travel as their
# uint16 bit patterns).
NUMPY_DTYPES = {"f16": "float16", "bf16": "uint16", "f32": "float32",
                "f64": "float64", "i1": "bool", "i8": "int8", "i32": "int32",
                "i64": "int64"}


def state_dtype(name, dtype):
    """Stride's stride_dtype number for a value of state `name` of NumPy
    `dtype`; StrideError when Stride has no such dtype."""
    stride_name = numpy_dtype_name(dtype)
    if stride_name not in _capi.DTYPE_NAMES:
        raise StrideError(_capi.STRIDE_INVALID_ARGUMENT,
                          f"state '{name}' was given values of dtype {dtype}, "
                          "which Stride has no dtype for (its dtypes: "
                          + ", ".join(_capi.DTYPE_NAMES) + ")")
    return _capi.DTYPE_NAMES.index(stride_name)


def numpy_dtype_name(dtype):
    for name, np_name in NUMPY_DTYPES.items():
        if str(dtype) == np_name:
            return name
    return str(dtype)


def check_count(module, count):
    if count != len(module.inputs):
        raise StrideError(_capi.STRIDE_INVALID_ARGUMENT,
                          f"{module.name}: got {count} inputs\n"
                          + signature_text(module))


def mismatch_error(module, index, what):
    spec = module.inputs[index]
    return StrideError(_capi.STRIDE_INVALID_ARGUMENT,
                       f"{module.name}: input {index} ('{spec.name}') is "
                       f"{what}, expected {spec}\n" + signature_text(module))
