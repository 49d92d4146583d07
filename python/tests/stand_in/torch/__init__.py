"""A stand-in for the few parts of torch that stride.torch_module uses, over
NumPy arrays, for CI machines without PyTorch. With the CUDA driver test
double, whose "device memory" is host memory, a "CUDA tensor" here is a
NumPy array whose address the runtime reads and writes. Not torch: only
what test_torch_module.py needs."""

import numpy as _np


class dtype:
    def __init__(self, name, numpy_name):
        self.name = name
        self.numpy = _np.dtype(numpy_name)
        self.itemsize = self.numpy.itemsize

    def __repr__(self):
        return f"torch.{self.name}"


float16 = dtype("float16", "float16")
bfloat16 = dtype("bfloat16", "uint16")
float32 = dtype("float32", "float32")
float64 = dtype("float64", "float64")
bool = dtype("bool", "bool")  # noqa: A001 - torch's name
int8 = dtype("int8", "int8")
int16 = dtype("int16", "int16")
int32 = dtype("int32", "int32")
int64 = dtype("int64", "int64")
_DTYPES = [float16, bfloat16, float32, float64, bool, int8, int16, int32, int64]


class Size(tuple):
    pass


class device:
    def __init__(self, kind, index=None):
        if isinstance(kind, device):
            kind, index = kind.type, kind.index
        elif ":" in kind:
            kind, index = kind.split(":")[0], int(kind.split(":")[1])
        self.type, self.index = kind, index

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self.type, self.index))

    def __repr__(self):
        return f"{self.type}:{self.index}" if self.index is not None else self.type


class Tensor:
    def __init__(self, array, on):
        self.array = array
        self.device = on
        self.dtype = next(d for d in _DTYPES if d.numpy == array.dtype)

    @property
    def shape(self):
        return Size(self.array.shape)

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def data_ptr(self):
        return self.array.__array_interface__["data"][0]

    def storage_offset(self):
        return 0  # as_strided's offsets count from this tensor's element 0

    def copy_(self, other):
        _np.copyto(self.array, other.array)
        return self

    def as_strided(self, shape, strides, offset=0):
        size = self.array.itemsize
        base = self.array.reshape(-1)[offset:]
        return Tensor(_np.lib.stride_tricks.as_strided(
            base, shape, [s * size for s in strides]), self.device)

    def narrow(self, dim, start, length):
        index = [slice(None)] * self.array.ndim
        index[dim] = slice(start, start + length)
        return Tensor(self.array[tuple(index)], self.device)

    def transpose(self, a, b):
        return Tensor(self.array.swapaxes(a, b), self.device)

    def view(self, to):
        return Tensor(self.array.view(to.numpy), self.device)

    def to(self, where):
        return Tensor(self.array.copy(), _device(where))

    def detach(self):
        return self

    def cpu(self):
        return self.to("cpu")

    def numpy(self):
        if self.device.type != "cpu":
            raise TypeError("can't convert cuda:0 device type tensor to numpy")
        return self.array


def from_numpy(array):
    return Tensor(array, device("cpu"))


def tensor(values, dtype=float32, device=None):  # noqa: A002
    return Tensor(_np.array(values, dtype=dtype.numpy), _device(device))


def _device(d):
    return globals()["device"](d if d is not None else "cuda:0")


def empty(n, dtype=float32, device=None):  # noqa: A002
    """n elements at a 256-byte aligned address, as the caching allocator's."""
    raw = _np.zeros(n * dtype.itemsize + 256, dtype=_np.uint8)
    skip = -raw.__array_interface__["data"][0] % 256
    return Tensor(raw[skip:skip + n * dtype.itemsize].view(dtype.numpy),
                  _device(device))


def empty_strided(shape, strides, dtype=float32, device=None):  # noqa: A002
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    return empty(extent, dtype, device).as_strided(shape, strides)


class cuda:
    synchronized = 0  # how many times synchronize was called

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def synchronize(device=None):
        cuda.synchronized += 1


from . import _C  # noqa: E402,F401
