// Stub for CPU emulation: CudaEmulation.h (force-included) defines __half.
