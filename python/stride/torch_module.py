"""stride.load: a compiled module called with torch CUDA tensors.

Zero-copy: each input's data pointer goes to the runtime as it is, after its
dtype, shape and strides are checked against the module's signature; each
output is allocated by PyTorch's caching allocator with the signature's
layout and written in place; the module runs on PyTorch's current CUDA
stream, without synchronizing. An aliased output (an input the graph
returns as it is, or a view of one: TensorSpec.alias_of_input) is a view of
the tensor passed for that input, as eager PyTorch and torch.compile return
it: it shares that tensor's memory (or, for an input copied with
copy_inputs, the copy's).

States (a KV cache, python-free-docs/state.md): one storage per module,
shared by its invocations on every stream, or with another module's
(share_states_with); read_state, write_states and reset_states go through
host memory, as the C API does, and synchronize the device first.
"""

import torch

from . import _capi
from .module import (Executable, Invocation, Module, StrideError,
                     layout_mismatch, signature_text)

TORCH_DTYPES = {
    "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
    "f64": torch.float64, "i1": torch.bool, "i8": torch.int8,
    "i32": torch.int32, "i64": torch.int64,
}
STRIDE_DTYPES = {v: k for k, v in TORCH_DTYPES.items()}



def unsupported_inputs(args):
    """What in `args` a Stride module cannot take, as text (a type name, or
    a tensor's dtype); empty when it takes them all."""
    said = []
    for a in args:
        if not isinstance(a, torch.Tensor):
            said.append(type(a).__name__)
        elif a.dtype not in STRIDE_DTYPES:
            said.append(str(a.dtype))
    return said


# The runtime's matrix products need 256-byte aligned buffers
# (python-free-docs/embedding.md); an input that is not is copied.
ALIGNMENT = 256

try:  # what inductor's generated code calls: a few hundred ns
    from torch._C import _cuda_getCurrentRawStream as _raw_stream
except ImportError:  # pragma: no cover - older torch
    def _raw_stream(device):
        return torch.cuda.current_stream(device).cuda_stream


class _Input:
    """An input's expectation, in the form the hot path compares."""

    __slots__ = ("spec", "dtype", "shape", "strides", "offset_bytes")

    def __init__(self, spec):
        self.spec = spec
        self.dtype = TORCH_DTYPES[spec.dtype]
        self.shape = torch.Size(spec.shape)
        self.strides = spec.strides
        self.offset_bytes = spec.storage_offset * self.dtype.itemsize


class _Output:
    __slots__ = ("shape", "strides", "dtype", "offset", "storage_elements",
                 "alias")

    def __init__(self, spec):
        self.dtype = TORCH_DTYPES[spec.dtype]
        self.shape = spec.shape
        self.strides = spec.strides
        self.offset = spec.storage_offset
        self.storage_elements = -(-spec.storage_bytes // self.dtype.itemsize)
        self.alias = spec.alias_of_input  # None, or the input it is a view of


def cuda_device(device=None):
    """A torch.device of type cuda with an index (None: the current one)."""
    if isinstance(device, int):
        return torch.device("cuda", device)
    device = torch.device("cuda") if device is None else torch.device(device)
    if device.type != "cuda":
        raise StrideError(_capi.STRIDE_INVALID_ARGUMENT,
                          f"Stride runs modules on CUDA devices, not {device}")
    if device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device


class TorchModule:
    """A loaded module, called with torch CUDA tensors: `m(x, y)` returns
    the output tensor, or a tuple when the module has several (m.run(...)
    always returns a list). Inputs whose layout differs from the signature
    are refused with StrideError (STRIDE_INVALID_ARGUMENT) naming the
    expectation, or, with copy_inputs=True, copied into it (also from
    another device). Runs on torch.cuda.current_stream(); one invocation
    (buffers for the module's temporaries) per stream it meets, all on one
    storage of the module's states (`states`): a run on any stream reads
    and updates the same KV cache. With `share_states_with` (another
    TorchModule on the same device, whose module declares the same
    states), that storage is the other module's: a prefill and a decode
    module on one cache."""

    def __init__(self, module, device=None, copy_inputs=False,
                 use_cuda_graph=False, share_states_with=None,
                 tune_library_calls=False, broadcast_inputs=False):
        self.device = cuda_device(device)
        self.module = module
        self.copy_inputs = copy_inputs
        # With copy_inputs: an input the signature reads broadcast (stride 0
        # along a dim of size > 1) is copied from its values at index 0
        # along those dims, for callers whose tensors are constant along
        # them (the torch.compile backend: AOTAutograd's saved expands,
        # which Stride's forward modules return materialized). Without it,
        # such an input is refused.
        self.broadcast_inputs = broadcast_inputs
        self.use_cuda_graph = use_cuda_graph
        self.executable = Executable(module, self.device.index)
        self._inputs = [_Input(s) for s in module.inputs]
        self._outputs = [_Output(s) for s in module.outputs]
        # The invocation that holds the states (the first stream's); the
        # others share its storage. Only it tunes: the choice it makes
        # serves every invocation of the executable.
        self._state_holder = Invocation(self.executable, use_cuda_graph,
                                        self._state_owner(share_states_with),
                                        tune_library_calls)
        self._invocations = {}

    def _state_owner(self, other):
        """The invocation whose states this module uses (None: its own)."""
        if other is None:
            return None
        if not isinstance(other, TorchModule) or other.device != self.device:
            raise StrideError(
                _capi.STRIDE_INVALID_ARGUMENT,
                f"{self.module.name} can share the states only of a module "
                f"loaded by stride.load on {self.device}, not of "
                f"{getattr(other, 'device', type(other).__name__)}")
        return other._state_holder

    @property
    def signature(self):
        return signature_text(self.module)

    @property
    def input_dtypes(self):
        """The torch dtype of each input, in the signature's order."""
        return [i.dtype for i in self._inputs]

    @property
    def states(self):
        """The module's states: StateSpecs (name, dtype, shape, strides,
        initial: "zeros" or "stored")."""
        return self.module.states

    def _invocation(self, stream):
        invocation = self._invocations.get(stream)
        if invocation is None:
            invocation = (Invocation(self.executable, self.use_cuda_graph,
                                     self._state_holder)
                          if self._invocations else self._state_holder)
            self._invocations[stream] = invocation
        return invocation

    def read_state(self, name):
        """A copy of state `name` as a dense tensor on the module's device,
        after every run enqueued on the device so far (synchronizes it: the
        C API copies a state to host memory, and its copy is not ordered
        with PyTorch's streams)."""
        torch.cuda.synchronize(self.device)
        array = self._state_holder.read_state(name)  # refuses an unknown name
        return device_tensor(array, self.module.state(name).dtype, self.device)

    def write_states(self, values):
        """Sets states from {name: tensor} (any device, dense or not), all
        or nothing: StrideError naming the first unknown name, dtype or
        shape, and nothing written. Synchronizes the device first."""
        arrays = {name: host_array(name, value) for name, value in values.items()}
        torch.cuda.synchronize(self.device)
        self._state_holder.write_states(arrays)

    def reset_states(self):
        """Sets every state back to its initial value (zeros or the
        module's stored bytes). Synchronizes the device first."""
        torch.cuda.synchronize(self.device)
        self._state_holder.reset_states()

    def _fix_input(self, index, tensor, keep):
        """An input the fast check refused: the tensor to pass (a copy in
        the signature's layout, kept alive in `keep`), or StrideError."""
        expected = self._inputs[index]
        if not isinstance(tensor, torch.Tensor):
            raise self._mismatch(index, f"a {type(tensor).__name__}, not a tensor")
        dtype = STRIDE_DTYPES.get(tensor.dtype, str(tensor.dtype))
        why = layout_mismatch(expected.spec, dtype, tuple(tensor.shape),
                              tensor.stride())
        if why and (not self.copy_inputs or dtype != expected.spec.dtype
                    or tuple(tensor.shape) != expected.spec.shape):
            raise self._mismatch(index, why)
        if tensor.device != self.device and not self.copy_inputs:
            raise self._mismatch(index, f"on {tensor.device}, expected {self.device}")
        aligned = (tensor.data_ptr() - expected.offset_bytes) % ALIGNMENT == 0
        if not why and tensor.device == self.device and aligned:
            return tensor  # strides differ only on size-1 dims
        spec = expected.spec
        storage = torch.empty(-(-spec.storage_bytes // expected.dtype.itemsize),
                              dtype=expected.dtype, device=self.device)
        copy = storage.as_strided(spec.shape, spec.strides, spec.storage_offset)
        written, source = copy, tensor
        broadcast = [d for d, (size, stride) in enumerate(zip(spec.shape, spec.strides))
                     if stride == 0 and size > 1]
        if broadcast and not self.broadcast_inputs:
            raise self._mismatch(index, f"{why}: the signature reads it broadcast "
                                 f"(stride 0 on dim {broadcast[0]}), so a copy "
                                 "cannot hold it")
        for d in broadcast:  # the values at index 0 along each broadcast dim
            written, source = written.narrow(d, 0, 1), source.narrow(d, 0, 1)
        try:
            written.copy_(source)
        except RuntimeError as error:  # a layout no copy can be written into
            raise self._mismatch(index, f"{why}: the signature's layout overlaps "
                                 f"({error})") from None
        keep.append(copy)
        return copy

    def stage_inputs(self, *tensors):
        """`tensors` as this module takes them, checked as a call checks
        them: each one that matches the signature as it is, the others
        copied into the signature's layout on the module's device when the
        module was loaded with copy_inputs=True (StrideError otherwise).
        For calling many times on the same inputs without a copy per call
        (a benchmark loop, a server's staged batch)."""
        if len(tensors) != len(self._inputs):
            raise StrideError(_capi.STRIDE_INVALID_ARGUMENT,
                              f"{self.module.name}: got {len(tensors)} inputs\n"
                              + self.signature)
        keep = []
        return [self._fix_input(i, t, keep) for i, t in enumerate(tensors)]

    def _mismatch(self, index, why):
        spec = self.module.inputs[index]
        return StrideError(
            _capi.STRIDE_INVALID_ARGUMENT,
            f"{self.module.name}: input {index} ('{spec.name}') is {why}; "
            "pass a tensor of the expected layout, or load with "
            "copy_inputs=True to copy it\n" + self.signature)

    def _allocate(self, inputs):
        """Each output: a new tensor and its address, or for an aliased
        output a view of the input it aliases (`inputs`, as passed to the
        runtime) at the signature's layout, and no address."""
        outputs, addresses = [], []
        for o in self._outputs:
            if o.alias is not None:
                t = inputs[o.alias]
                start = t.storage_offset() - self._inputs[o.alias].spec.storage_offset
                outputs.append(t.as_strided(o.shape, o.strides, start + o.offset))
                addresses.append(0)
                continue
            if o.offset == 0:
                t = torch.empty_strided(o.shape, o.strides, dtype=o.dtype,
                                        device=self.device)
                addresses.append(t.data_ptr())
            else:
                storage = torch.empty(o.storage_elements, dtype=o.dtype,
                                      device=self.device)
                t = storage.as_strided(o.shape, o.strides, o.offset)
                addresses.append(storage.data_ptr())
            outputs.append(t)
        return outputs, addresses

    def run(self, *tensors):
        """Runs on `tensors`; returns the outputs as a list."""
        if len(tensors) != len(self._inputs):
            raise StrideError(_capi.STRIDE_INVALID_ARGUMENT,
                              f"{self.module.name}: got {len(tensors)} inputs\n"
                              + self.signature)
        addresses, passed, keep = [], [], []
        device = self.device
        for i, (t, e) in enumerate(zip(tensors, self._inputs)):
            if (type(t) is not torch.Tensor and not isinstance(t, torch.Tensor)) \
                    or t.dtype is not e.dtype or t.shape != e.shape \
                    or t.stride() != e.strides or t.device != device \
                    or (t.data_ptr() - e.offset_bytes) % ALIGNMENT:
                t = self._fix_input(i, t, keep)
            addresses.append(t.data_ptr() - e.offset_bytes)
            passed.append(t)
        outputs, output_addresses = self._allocate(passed)
        stream = _raw_stream(device.index)
        self._invocation(stream).run_device(addresses, output_addresses, stream)
        return outputs

    def __call__(self, *tensors):
        outputs = self.run(*tensors)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)


def device_tensor(array, dtype, device):
    """A NumPy array of Stride dtype `dtype` (bf16: its uint16 bit
    patterns) as a tensor on `device`."""
    if dtype == "bf16":  # through int16, which every torch views as bf16
        return torch.from_numpy(array.view("int16")).view(torch.bfloat16).to(device)
    return torch.from_numpy(array).to(device)


def host_array(name, value):
    """A torch tensor given for state `name` as a NumPy array in host
    memory (bf16 as its bit patterns, which module.Invocation takes)."""
    if not isinstance(value, torch.Tensor):
        raise StrideError(_capi.STRIDE_INVALID_ARGUMENT,
                          f"state '{name}' was given a {type(value).__name__}, "
                          "not a tensor")
    value = value.detach()
    if value.dtype is torch.bfloat16:
        return value.view(torch.int16).cpu().numpy().view("uint16")
    return value.cpu().numpy()


def load(path_or_bytes, device=None, copy_inputs=False, use_cuda_graph=False,
         share_states_with=None, tune_library_calls=False, broadcast_inputs=False):
    """Loads a .stridemod (a path, or its bytes) onto a CUDA device (default:
    torch's current one) and returns a TorchModule; `share_states_with`, a
    TorchModule whose states this one uses (same names, dtypes, shapes and
    layouts, or StrideError naming the first difference);
    `tune_library_calls`, each library call's algorithm chosen by timing
    before the first call (stride-run-gpu --tune-library-calls);
    `broadcast_inputs` (with copy_inputs), an input the signature reads
    broadcast copied from its values at index 0 along the broadcast dims
    (TorchModule)."""
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        module = Module.from_bytes(bytes(path_or_bytes))
    else:
        module = Module.from_file(path_or_bytes)
    return TorchModule(module, device, copy_inputs, use_cuda_graph,
                       share_states_with, tune_library_calls, broadcast_inputs)
