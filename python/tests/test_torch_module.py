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

    def test_stage_inputs(self):
        xt = self.torch.empty_strided((3, 2), (2, 1), self.torch.float32).transpose(0, 1)
        with self.assertRaises(stride.StrideError) as caught:
            self.m.stage_inputs(self.x, xt)
        self.assertIn("load with copy_inputs=True", caught.exception.message)
        with self.assertRaises(stride.StrideError) as caught:
            self.m.stage_inputs(self.x)
        self.assertIn("got 1 inputs", caught.exception.message)
        copying = stride.load(os.path.join(MODULES, "add.stridemod"), copy_inputs=True,
                              tune_library_calls=True, use_cuda_graph=True)
        self.assertEqual(copying.input_dtypes, [self.torch.float32] * 2)
        staged = copying.stage_inputs(self.x, xt)
        self.assertIs(staged[0], self.x)
        self.assertEqual(staged[1].stride(), (3, 1))
        copying(*staged)

    def test_broadcast_input(self):
        # The signature reads input 0 with stride 0 on dim 0; a dense
        # tensor is refused, or, with broadcast_inputs, copied from its row 0.
        path = os.path.join(MODULES, "broadcast-input.stridemod")
        dense = self.torch.empty_strided((2, 3), (3, 1), self.torch.float32)
        dense.array[...] = [[1, 2, 3], [1, 2, 3]]
        refusing = stride.load(path, copy_inputs=True)
        with self.assertRaises(stride.StrideError) as caught:
            refusing(dense, self.x)
        self.assertIn("input 0 ('arg0') is strides [3, 1], expected [0, 1] (dim 0): the "
                      "signature reads it broadcast (stride 0 on dim 0)",
                      caught.exception.message)
        reading = stride.load(path, copy_inputs=True, broadcast_inputs=True)
        staged = reading.stage_inputs(dense, self.x)
        self.assertEqual(staged[0].stride(), (0, 1))
        self.assertEqual(staged[0].array.tolist(), [[1, 2, 3], [1, 2, 3]])

    def test_aliased_outputs_are_views_of_the_input(self):
        # Outputs 1 and 2 alias input 1 (the module returns %w and rows 1
        # and 2 of it): views of the caller's tensor, no buffer, no copy.
        m = stride.load(os.path.join(MODULES, "alias-outputs.stridemod"))
        self.assertEqual([o.alias_of_input for o in m.module.outputs], [None, 1, 1])
        w = self.torch.empty_strided((4, 3), (3, 1), self.torch.float32)
        w.array[...] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]]
        _, same, rows = m(self.x, w)
        self.assertEqual((tuple(same.shape), same.stride()), ((4, 3), (3, 1)))
        self.assertEqual(same.data_ptr(), w.data_ptr())
        self.assertEqual(rows.array.tolist(), [[3, 4, 5], [6, 7, 8]])
        self.assertEqual(rows.data_ptr(), w.data_ptr() + 3 * 4)
        self.assertIn("returns 1: result1: f32 [4, 3] strides [3, 1] offset 0, "
                      "aliases input 1", m.signature)

    def test_matching_input_passes_as_it_is(self):
        keep = []
        m = self.m
        same = m._fix_input(0, self.x, keep)
        self.assertIs(same, self.x)
        self.assertEqual(keep, [])


@unittest.skipIf(REAL_TORCH or not MODULES or os.environ.get("STRIDE_FAKE_CUDA_LAUNCH"),
                 "needs the stand-in torch, STRIDE_TEST_MODULES and the fake driver")
class TorchStatesTest(unittest.TestCase):
    """The states of decode.stridemod (test/Import/Torch/Inputs/state/
    decode.pt2: k_cache and v_cache, f32 [1, 2, 8, 4]) from torch: read as
    CUDA tensors, written from tensors, reset, one storage for every
    stream's invocation and for a module loaded to share them."""

    def setUp(self):
        import torch

        self.torch = torch
        self.path = os.path.join(MODULES, "decode.stridemod")
        self.m = stride.load(self.path)
        self.ones = torch.tensor([[[[1.0] * 4] * 8] * 2])

    def inputs(self):
        from stride.torch_module import TORCH_DTYPES

        return [self.torch.empty_strided(s.shape, s.strides, TORCH_DTYPES[s.dtype])
                for s in self.m.module.inputs]

    def test_read_state_is_a_cuda_copy(self):
        self.assertEqual([(s.name, s.initial) for s in self.m.states],
                         [("k_cache", "zeros"), ("v_cache", "stored")])
        synchronized = self.torch.cuda.synchronized
        k = self.m.read_state("k_cache")
        self.assertEqual((tuple(k.shape), k.dtype, str(k.device)),
                         ((1, 2, 8, 4), self.torch.float32, "cuda:0"))
        self.assertFalse(k.array.any())
        self.assertEqual(self.torch.cuda.synchronized, synchronized + 1)

    def test_write_run_reset(self):
        self.m.write_states({"k_cache": self.ones})
        self.m(*self.inputs())  # the double's kernels write nothing
        self.assertTrue((self.m.read_state("k_cache").array == 1).all())
        self.m.reset_states()
        self.assertFalse(self.m.read_state("k_cache").array.any())

    def test_every_stream_shares_the_states(self):
        self.m(*self.inputs())
        self.m.write_states({"k_cache": self.ones})
        side = self.m._invocation(7)  # a second stream's invocation
        self.assertIsNot(side, self.m._invocation(0))
        self.assertTrue((side.read_state("k_cache") == 1).all())

    def test_share_states_with(self):
        decode = stride.load(self.path, share_states_with=self.m)
        self.m.write_states({"v_cache": self.ones})
        self.assertTrue((decode.read_state("v_cache").array == 1).all())
        decode.reset_states()
        self.assertFalse((self.m.read_state("v_cache").array == 1).all())

    def test_bf16(self):
        # A bf16 state (Inputs/bf16-state.mlir, initially 1 .. 8) is a
        # bfloat16 tensor; bfloat16 tensors write it.
        torch = self.torch
        m = stride.load(os.path.join(MODULES, "bf16-state.stridemod"))
        value = m.read_state("cache")
        self.assertIs(value.dtype, torch.bfloat16)
        self.assertEqual(value.array[0].tolist(), [0x3F80, 0x4000, 0x4040, 0x4080])
        m.write_states({"cache": value.view(torch.int16).view(torch.bfloat16)})
        with self.assertRaises(stride.StrideError) as caught:
            m.write_states({"cache": self.ones})
        self.assertIn("state 'cache' expects bf16 of shape [2, 4], but was given "
                      "f32 of shape [1, 2, 8, 4]", caught.exception.message)

    def test_refusals(self):
        cases = [
            (lambda: stride.load(os.path.join(MODULES, "add.stridemod"),
                                 share_states_with=self.m),
             "cannot share the states of"),
            (lambda: stride.load(self.path, share_states_with=self.path),
             "can share the states only of a module loaded by stride.load"),
            (lambda: self.m.write_states({"kv": self.ones}),
             "the module has no state named 'kv' (its states: 'k_cache', 'v_cache')"),
            (lambda: self.m.write_states({"k_cache": self.ones.transpose(0, 1)}),
             "state 'k_cache' expects f32 of shape [1, 2, 8, 4], but was given f32 of shape [2, 1, 8, 4]"),
            (lambda: self.m.write_states({"k_cache": 1.0}),
             "state 'k_cache' was given a float, not a tensor"),
            (lambda: self.m.read_state("kv"), "no state named 'kv'"),
        ]
        for make_error, said in cases:
            with self.assertRaises(stride.StrideError) as caught:
                make_error()
            self.assertEqual(caught.exception.code, "STRIDE_INVALID_ARGUMENT")
            self.assertIn(said, caught.exception.message)


if __name__ == "__main__":
    unittest.main()
