"""The package's runtime binding against the CUDA driver test double
(test/Runtime/FakeCuda.cpp: "device memory" is host memory, kernels do
nothing), without torch: load a module, read its signature, run it on NumPy
arrays and on pointers, refuse mismatched inputs, and turn each runtime
failure into a StrideError with Stride's status code and message.

Run with the double first on the loader's path and the modules compiled
before (NVRTC does not start with the double on the path):

  STRIDE_TEST_MODULES=DIR LD_LIBRARY_PATH=build/test/Runtime/fake-cuda \\
    STRIDE_LIBRARY=build/lib/libstride.so python3 -m unittest test_runtime

DIR holds add.stridemod and add100.stridemod (the add graph of
test_compiler.py, for sm_90 and sm_100). test/Python/python-package.test
runs it. With STRIDE_FAKE_CUDA_LAUNCH set, only DeviceFaultTest runs.
"""

import ctypes
import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE)))

import stride  # noqa: E402
from stride.module import Executable, Invocation, Module, runtime  # noqa: E402

MODULES = os.environ.get("STRIDE_TEST_MODULES", "")
FAULT = os.environ.get("STRIDE_FAKE_CUDA_LAUNCH")


def add_module():
    return Module.from_file(os.path.join(MODULES, "add.stridemod"))


@unittest.skipIf(not MODULES or FAULT, "needs STRIDE_TEST_MODULES and the fake driver")
class RuntimeTest(unittest.TestCase):
    def setUp(self):
        self.module = add_module()
        self.invocation = Invocation(Executable(self.module))

    def test_device(self):
        self.assertIn("Stride fake GPU", runtime().description)
        self.assertEqual(runtime().arch, "sm_90")

    def test_flags(self):
        # Library tuning and a CUDA graph: the add graph has no library
        # call, so the run is the plain one (the C API refuses unknown bits,
        # capi.test).
        tuned = Invocation(Executable(self.module), use_cuda_graph=True,
                           tune_library_calls=True)
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        self.assertEqual(tuned.run_host([x, x])[0].tolist(),
                         self.invocation.run_host([x, x])[0].tolist())

    def test_run_host(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        outputs = self.invocation.run_host([x, x])
        self.assertEqual(len(outputs), 1)
        self.assertEqual((outputs[0].shape, outputs[0].dtype), ((2, 3), np.float32))

    def test_mismatched_input_names_the_signature(self):
        x = np.zeros((2, 3), dtype=np.float32)
        with self.assertRaises(stride.StrideError) as caught:
            self.invocation.run_host([x, np.zeros((3, 2), dtype=np.float32)])
        error = caught.exception
        self.assertEqual(error.code, "STRIDE_INVALID_ARGUMENT")
        self.assertIn("input 1 ('arg1') is dtype f32, shape [3, 2], expected "
                      "arg1: f32 [2, 3] strides [3, 1] offset 0", error.message)
        self.assertIn("'add' takes", error.message)
        with self.assertRaises(stride.StrideError) as caught:
            self.invocation.run_host([x, x.astype(np.float64)])
        self.assertIn("dtype f64", caught.exception.message)
        with self.assertRaises(stride.StrideError) as caught:
            self.invocation.run_host([x])
        self.assertIn("got 1 inputs", caught.exception.message)

    def test_run_device_on_pointers(self):
        # The double's device memory is host memory: NumPy buffers serve.
        x = np.zeros((2, 3), dtype=np.float32)
        z = np.zeros((2, 3), dtype=np.float32)
        self.invocation.run_device([x.ctypes.data, x.ctypes.data], [z.ctypes.data])

    def test_run_device_errors(self):
        x = np.zeros((2, 3), dtype=np.float32)
        with self.assertRaises(stride.StrideError) as caught:
            self.invocation.run_device([x.ctypes.data, 0], [x.ctypes.data])
        self.assertEqual(caught.exception.code, "STRIDE_INVALID_ARGUMENT")
        self.assertIn("null pointer for input 'arg1'", caught.exception.message)
        with self.assertRaises(stride.StrideError) as caught:
            self.invocation.run_device([x.ctypes.data], [x.ctypes.data])
        self.assertIn("got 1 input and 1 output pointers", caught.exception.message)

    def test_bind_input_value(self):
        # add.mlir binds no symbol from a value: nothing to do; an index
        # past the signature is refused.
        self.invocation.bind_input_value(0, 5)
        with self.assertRaises(stride.StrideError) as caught:
            self.invocation.bind_input_value(9, 5)
        self.assertEqual(caught.exception.code, "STRIDE_INVALID_ARGUMENT")
        self.assertIn("bindInputValue(9) past the signature's 2 inputs",
                      caught.exception.message)

    def test_module_for_another_arch(self):
        other = Module.from_file(os.path.join(MODULES, "add100.stridemod"))
        with self.assertRaises(stride.StrideError) as caught:
            Executable(other)
        self.assertEqual(caught.exception.code, "STRIDE_INCOMPATIBLE")
        self.assertIn("compiled to a CUBIN for sm_100", caught.exception.message)


def decode_invocation(share_states_with=None):
    module = Module.from_file(os.path.join(MODULES, "decode.stridemod"))
    return Invocation(Executable(module), share_states_with=share_states_with)


CACHE = (1, 2, 8, 4)


def bf16_bits(values):
    """bf16 bit patterns of `values` (exact in bf16): f32's high half."""
    return (np.asarray(values, np.float32).view(np.uint32) >> 16).astype(np.uint16)


@unittest.skipIf(not MODULES or FAULT, "needs STRIDE_TEST_MODULES and the fake driver")
class StatesTest(unittest.TestCase):
    """The states of test/Import/Torch/Inputs/state/decode.pt2's module:
    k_cache (zeros) and v_cache (the module's bytes), f32 [1, 2, 8, 4]."""

    def setUp(self):
        self.invocation = decode_invocation()

    def test_signature(self):
        module = self.invocation.executable.module
        self.assertEqual([(s.name, s.dtype, s.shape, s.initial) for s in module.states],
                         [("k_cache", "f32", CACHE, "zeros"),
                          ("v_cache", "f32", CACHE, "stored")])
        self.assertIn("state 1: v_cache: f32 [1, 2, 8, 4] strides [64, 32, 4, 1] "
                      "offset 0, initially stored", module.signature())
        self.assertIsNone(module.state("pos"))
        self.assertEqual(add_module().states, [])

    def test_read_write_reset(self):
        k = self.invocation.read_state("k_cache")
        v = self.invocation.read_state("v_cache")
        self.assertEqual((k.shape, k.dtype), (CACHE, np.float32))
        self.assertFalse(k.any())
        self.assertTrue(v.any())
        new = np.arange(64, dtype=np.float32).reshape(CACHE)
        self.invocation.write_states({"k_cache": new, "v_cache": new + 1})
        np.testing.assert_array_equal(self.invocation.read_state("k_cache"), new)
        np.testing.assert_array_equal(self.invocation.read_state("v_cache"), new + 1)
        self.invocation.reset_states()
        self.assertFalse(self.invocation.read_state("k_cache").any())
        np.testing.assert_array_equal(self.invocation.read_state("v_cache"), v)

    def test_write_is_all_or_nothing(self):
        good = np.ones(CACHE, dtype=np.float32)
        cases = [
            ({"k_cache": good, "kv": good},
             "the module has no state named 'kv' (its states: 'k_cache', 'v_cache')"),
            ({"k_cache": good, "v_cache": good.reshape(2, 1, 8, 4)},
             "state 'v_cache' expects f32 of shape [1, 2, 8, 4], but was given f32 of shape [2, 1, 8, 4]"),
            ({"k_cache": good, "v_cache": good.astype(np.int32)},
             "state 'v_cache' expects f32 of shape [1, 2, 8, 4], but was given i32 of shape [1, 2, 8, 4]"),
            ({"k_cache": good, "v_cache": good.astype(np.uint8)},
             "state 'v_cache' was given values of dtype uint8, which Stride has no dtype"),
        ]
        for values, said in cases:
            with self.assertRaises(stride.StrideError) as caught:
                self.invocation.write_states(values)
            self.assertEqual(caught.exception.code, "STRIDE_INVALID_ARGUMENT")
            self.assertIn(said, caught.exception.message)
            self.assertFalse(self.invocation.read_state("k_cache").any())

    def test_read_unknown_state(self):
        with self.assertRaises(stride.StrideError) as caught:
            self.invocation.read_state("kv")
        self.assertEqual(caught.exception.code, "STRIDE_INVALID_ARGUMENT")
        self.assertIn("no state named 'kv' (its states: 'k_cache', 'v_cache')",
                      caught.exception.message)

    def test_bf16_as_bit_patterns(self):
        # Inputs/bf16-state.mlir: state 'cache', bf16 [2, 4], initially 1 .. 8.
        module = Module.from_file(os.path.join(MODULES, "bf16-state.stridemod"))
        invocation = Invocation(Executable(module))
        value = invocation.read_state("cache")
        self.assertEqual(value.dtype, np.uint16)
        np.testing.assert_array_equal(value, bf16_bits(np.arange(1, 9).reshape(2, 4)))
        invocation.write_states({"cache": bf16_bits(np.ones((2, 4)))})
        np.testing.assert_array_equal(invocation.read_state("cache"),
                                      np.full((2, 4), 0x3F80, np.uint16))

    def test_sharing_states(self):
        other = decode_invocation(share_states_with=self.invocation)
        new = np.full(CACHE, 3, dtype=np.float32)
        self.invocation.write_states({"k_cache": new})
        np.testing.assert_array_equal(other.read_state("k_cache"), new)
        other.reset_states()
        self.assertFalse(self.invocation.read_state("k_cache").any())
        del self.invocation  # the storage lives on with `other`
        other.write_states({"k_cache": new})
        np.testing.assert_array_equal(other.read_state("k_cache"), new)

    def test_sharing_refused_when_the_states_differ(self):
        with self.assertRaises(stride.StrideError) as caught:
            Invocation(Executable(add_module()), share_states_with=self.invocation)
        self.assertEqual(caught.exception.code, "STRIDE_INVALID_ARGUMENT")
        message = caught.exception.message
        self.assertRegex(message, "add.stridemod cannot share the states of "
                         ".*decode.stridemod: state 'k_cache' of .*decode.stridemod "
                         "is not a state of .*add.stridemod; invocations share")


@unittest.skipIf(not MODULES or not FAULT, "needs STRIDE_FAKE_CUDA_LAUNCH")
class DeviceFaultTest(unittest.TestCase):
    def test_fault_is_an_exception(self):
        invocation = Invocation(Executable(add_module()))
        x = np.zeros((2, 3), dtype=np.float32)
        with self.assertRaises(stride.StrideError) as caught:
            invocation.run_host([x, x])
        self.assertEqual(caught.exception.code, "STRIDE_DEVICE_FAULT")
        self.assertEqual(caught.exception.status, 9)
        self.assertIn("CUDA_ERROR_ILLEGAL_ADDRESS", caught.exception.message)


class NoDriverTest(unittest.TestCase):
    @unittest.skipIf(MODULES, "runs without the double")
    def test_no_driver(self):
        try:
            ctypes.CDLL("libcuda.so.1")
            self.skipTest("a CUDA driver is installed")
        except OSError:
            pass
        with self.assertRaises(stride.StrideError) as caught:
            stride.module.Runtime(0)
        self.assertEqual(caught.exception.code, "STRIDE_UNAVAILABLE")
        self.assertIn("no CUDA driver found", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
