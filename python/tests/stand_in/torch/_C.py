"""The stand-in's torch._C: the current stream (0, the legacy default)."""


def _cuda_getCurrentRawStream(index):
    return 0
