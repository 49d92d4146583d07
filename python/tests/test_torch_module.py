"""stride.load's torch layer (stride/torch_module.py) without PyTorch: the
stand-in of tests/stand_in/torch (tensors over NumPy arrays) and the CUDA
driver test double (whose device memory is host memory) run its real code:
the checks of each input against the signature, the refusal naming the
expectation, copy_inputs, the outputs' allocation, one invocation per
stream. Run as test_runtime.py is (STRIDE_TEST_MODULES, the double first
on LD_LIBRARY_PATH); skipped where the real torch is installed."""

import importlib.util
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = os.environ.get("STRIDE_TEST_MODULES", "")
REAL_TORCH = importlib.util.find_spec("torch") is not None
if not REAL_TORCH:
    sys.path.insert(0, os.path.join(HERE, "stand_in"))
sys.path.insert(0, os.path.dirname(HERE))

import stride  # noqa: E402


@unittest.skipIf(REAL_TORCH or not MODULES or os.environ.get("STRIDE_FAKE_CUDA_LAUNCH"),
                 "needs the stand-in torch, STRIDE_TEST_MODULES and the fake driver")
class TorchModuleTest(unittest.TestCase):
    def setUp(self):
        import torch

        self.torch = torch
        self.m = stride.load(os.path.join(MODULES, "add.stridemod"))
        self.x = torch.empty_strided((2, 3), (3, 1), torch.float32)

    def test_call(self):
        z = self.m(self.x, self.x)
        self.assertEqual((tuple(z.shape), z.stride(), z.dtype), ((2, 3), (3, 1),
                                                                  self.torch.float32))
        self.assertEqual(len(self.m.run(self.x, self.x)), 1)
        self.assertEqual(list(self.m._invocations), [0])

    def test_refuses_a_layout_naming_the_expectation(self):
        xt = self.torch.empty_strided((3, 2), (2, 1), self.torch.float32).transpose(0, 1)
        with self.assertRaises(stride.StrideError) as caught:
            self.m(self.x, xt)
        error = caught.exception
        self.assertEqual(error.code, "STRIDE_INVALID_ARGUMENT")
        self.assertIn("input 1 ('arg1') is strides [1, 2], expected [3, 1] (dim 0); "
                      "pass a tensor of the expected layout, or load with "
                      "copy_inputs=True", error.message)
        self.assertIn("input 0: arg0: f32 [2, 3] strides [3, 1] offset 0", error.message)

    def test_unsupported_inputs(self):
        # What the torch.compile backend falls back for (the backend keyed
        # its check by Stride's dtype names, not torch's dtypes, and so fell
        # back for every graph on the H200).
        from stride.torch_module import unsupported_inputs

        self.assertEqual(unsupported_inputs([self.x, self.x]), [])
        self.assertEqual(unsupported_inputs([self.x, 3]), ["int"])

    def test_refuses_dtype_shape_device_count(self):
        torch = self.torch
        cases = [
            (torch.empty_strided((2, 3), (3, 1), torch.float64), "dtype f64, expected f32"),
            (torch.empty_strided((3, 2), (2, 1), torch.float32), "shape [3, 2], expected [2, 3]"),
            (torch.empty_strided((2, 3), (3, 1), torch.float32, device="cpu"),
             "on cpu, expected cuda:0"),
        ]
        for bad, said in cases:
            with self.assertRaises(stride.StrideError) as caught:
                self.m(self.x, bad)
            self.assertIn(said, caught.exception.message)
        with self.assertRaises(stride.StrideError) as caught:
            self.m(self.x)
        self.assertIn("got 1 inputs", caught.exception.message)

    def test_copy_inputs(self):
        copying = stride.load(os.path.join(MODULES, "add.stridemod"), copy_inputs=True)
        xt = self.torch.empty_strided((3, 2), (2, 1), self.torch.float32).transpose(0, 1)
        xt.array[...] = [[1, 2, 3], [4, 5, 6]]
        keep = []
        copy = copying._fix_input(1, xt, keep)
        self.assertEqual(copy.stride(), (3, 1))
        self.assertEqual(copy.array.tolist(), [[1, 2, 3], [4, 5, 6]])
        self.assertIs(keep[0], copy)
        copying(self.x, xt)
        # dtype and shape are never copied into.
        with self.assertRaises(stride.StrideError):
            copying(self.x, self.torch.empty_strided((2, 3), (3, 1), self.torch.float64))

    def test_matching_input_passes_as_it_is(self):
        keep = []
        m = self.m
        same = m._fix_input(0, self.x, keep)
        self.assertIs(same, self.x)
        self.assertEqual(keep, [])


if __name__ == "__main__":
    unittest.main()
