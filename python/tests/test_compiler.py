"""The package's compiler and module binding, without a GPU or torch:
compile graphs through libstride's C API, read signatures, get errors as
StrideError with Stride's status code and message.

Run: STRIDE_LIBRARY=build/lib/libstride.so python3 -m unittest discover
python/tests (test/Python/python-package.test runs it in the suite).
"""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

import stride  # noqa: E402
from stride.module import Module, layout_mismatch  # noqa: E402

ADD = """func.func @add(%x: !stride.tensor<2x3xf32>, %y: !stride.tensor<2x3xf32>)
    -> !stride.tensor<2x3xf32> {
  %z = stride.add %x, %y : !stride.tensor<2x3xf32>, !stride.tensor<2x3xf32>
      -> !stride.tensor<2x3xf32>
  return %z : !stride.tensor<2x3xf32>
}
"""

# exp keeps 8 columns; the result type claims 9.
MALFORMED = """func.func @bad(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x9xf32> {
  %y = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x9xf32>
  return %y : !stride.tensor<4x9xf32>
}
"""

SEED_FX = os.path.join(REPO, "examples", "seed_backward_fx.mlir")
SEED_BACKWARD_PT2 = os.path.join(REPO, "test", "Import", "Torch", "fixtures",
                                 "seed_train_4x13x33", "backward.pt2")


class CompileTest(unittest.TestCase):
    def test_version(self):
        self.assertRegex(stride.version(), r"^\d+\.\d+\.\d+$")

    def test_signature(self):
        result = stride.Compiler(arch="sm_90").compile(ADD, "add.mlir")
        module = result.module
        self.assertEqual(module.entry_name, "add")
        self.assertEqual(module.arch, "sm_90")
        self.assertEqual([s.name for s in module.inputs], ["arg0", "arg1"])
        x = module.inputs[0]
        self.assertEqual((x.dtype, x.shape, x.strides, x.storage_offset,
                          x.storage_bytes, x.num_elements),
                         ("f32", (2, 3), (3, 1), 0, 24, 6))
        self.assertEqual(len(module.outputs), 1)
        self.assertIn("'add' takes", module.signature())
        self.assertIn("input 1: arg1: f32 [2, 3] strides [3, 1] offset 0",
                      module.signature())
        # The bytes parse back into the same module.
        again = Module.from_bytes(result.module_bytes, "add.stridemod")
        self.assertEqual(again.describe(), module.describe())

    def test_compile_error_carries_diagnostics(self):
        with self.assertRaises(stride.CompileError) as caught:
            stride.Compiler().compile(MALFORMED, "bad.mlir")
        error = caught.exception
        self.assertEqual(error.code, "STRIDE_COMPILE_FAILED")
        self.assertEqual(error.status, 2)
        self.assertIn("bad.mlir:2:8", error.message)
        first = error.diagnostics[0]
        self.assertEqual((first.severity, first.file, first.line),
                         ("error", "bad.mlir", 2))
        self.assertIn("'stride.exp' op", first.message)

    def test_illegal_layout_is_refused_then_repaired(self):
        with self.assertRaises(stride.CompileError) as caught:
            stride.Compiler().compile_file(SEED_FX)
        self.assertIn("overlapping layout: dim 1 has size 13 and stride 0",
                      caught.exception.message)
        self.assertTrue(caught.exception.diagnostics[0].notes)
        result = stride.Compiler(repair_layouts=True).compile_file(SEED_FX)
        self.assertEqual([d.severity for d in result.diagnostics], ["remark"])
        self.assertIn("repaired the layout of result #0", result.remarks()[0].message)

    def test_repair_names_the_imported_node(self):
        result = stride.Compiler(repair_layouts=True).compile_file(SEED_BACKWARD_PT2)
        remark = result.remarks()[0]
        self.assertEqual(remark.node, "slice_scatter_1")
        self.assertIn("strides [33, 0, 1] overlap", remark.message)
        self.assertIn("node 'slice_scatter_1'", str(remark))

    def test_unknown_option(self):
        with self.assertRaises(stride.StrideError) as caught:
            stride.Compiler(fusion=False)
        self.assertEqual(caught.exception.code, "STRIDE_INVALID_ARGUMENT")
        self.assertIn("unknown compile option 'fusion'", caught.exception.message)

    def test_corrupt_and_missing_modules(self):
        with self.assertRaises(stride.StrideError) as caught:
            Module.from_bytes(b"\x01\x02\x03" + bytes(29), "junk.stridemod")
        self.assertEqual(caught.exception.code, "STRIDE_INVALID_MODULE")
        self.assertIn("junk.stridemod", caught.exception.message)
        with self.assertRaises(stride.StrideError) as caught:
            Module.from_file("/nonexistent/m.stridemod")
        self.assertEqual(caught.exception.code, "STRIDE_NOT_FOUND")
        self.assertIn("cannot open the module file", str(caught.exception))

    def test_training_step(self):
        fixture = os.path.join(REPO, "test", "Import", "Torch", "fixtures",
                               "encoder_layer_train")
        forward, backward = stride.Compiler().compile_training_step(
            os.path.join(fixture, "forward.pt2"), os.path.join(fixture, "backward.pt2"))
        # The attention's logsumexp and output saved in place of its
        # probabilities ("alias"), and read by the backward by those names.
        saved = [t.name for t in forward.module.outputs][-2:]
        self.assertEqual(saved, ["alias_logsumexp", "alias_output"])
        self.assertNotIn("alias", [t.name for t in forward.module.outputs])
        self.assertEqual([t.name for t in backward.module.inputs][-2:], saved)
        with self.assertRaises(stride.CompileError) as caught:
            stride.Compiler().compile_training_step(
                os.path.join(fixture, "forward.pt2"), "/nonexistent/backward.pt2")
        self.assertIn("cannot read the graph file", caught.exception.message)

    def test_module_cache(self):
        with tempfile.TemporaryDirectory() as cache:
            compiler = stride.Compiler(cache_dir=cache)
            first = compiler.compile_file(os.path.join(REPO, "examples", "softmax.mlir"))
            entries = [f for f in os.listdir(cache) if f.endswith(".stridemod")]
            self.assertEqual(len(entries), 1)
            second = compiler.compile_file(os.path.join(REPO, "examples", "softmax.mlir"))
            self.assertEqual(first.module_bytes, second.module_bytes)


class LayoutTest(unittest.TestCase):
    """The check stride.load makes on each input (stride.module.layout_mismatch)."""

    def setUp(self):
        self.spec = stride.Compiler().compile(ADD, "add.mlir").module.inputs[0]

    def test_matching(self):
        self.assertIsNone(layout_mismatch(self.spec, "f32", (2, 3), (3, 1)))

    def test_mismatches_say_what_was_expected(self):
        self.assertEqual(layout_mismatch(self.spec, "f64", (2, 3), (3, 1)),
                         "dtype f64, expected f32")
        self.assertEqual(layout_mismatch(self.spec, "f32", (3, 2), (2, 1)),
                         "shape [3, 2], expected [2, 3]")
        self.assertEqual(layout_mismatch(self.spec, "f32", (2, 3), (1, 2)),
                         "strides [1, 2], expected [3, 1] (dim 0)")

    def test_size_one_dims_are_not_compared(self):
        spec = stride.Compiler().compile(ADD.replace("2x3", "1x3"), "a.mlir").module.inputs[0]
        self.assertIsNone(layout_mismatch(spec, "f32", (1, 3), (99, 1)))


if __name__ == "__main__":
    unittest.main()
