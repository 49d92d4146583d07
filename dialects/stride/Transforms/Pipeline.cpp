//===- Pipeline.cpp - The default Stride pipeline -------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The one definition of the pass pipeline, used by stride-opt
// (`--stride-pipeline`), stridec and the embedding API alike.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/Transforms/Passes.h"

#include "dialects/stride/IR/StrideDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

stride::FuseOptions stride::toFuseOptions(const FusionOptions &fusion) {
  FuseOptions options;
  options.broadcastEpilogues = fusion.broadcastEpilogues;
  options.recomputeCasts = fusion.recomputeCasts;
  options.rowInputOutputs = fusion.rowInputOutputs;
  options.siblingScatters = fusion.siblingScatters;
  options.maxKernelOps = fusion.maxKernelOps;
  options.maxKernelRegisters = fusion.maxKernelRegisters;
  return options;
}

LogicalResult stride::instantiateSymbols(ModuleOp module,
                                         ArrayRef<std::string> values) {
  if (values.empty())
    return success();
  PassManager pm(module.getContext());
  InstantiateSymbolsOptions options;
  options.values.assign(values.begin(), values.end());
  pm.addNestedPass<func::FuncOp>(createInstantiateSymbols(options));
  return pm.run(module);
}

void stride::buildStridePipeline(OpPassManager &pm,
                                 const PipelineOptions &options) {
  // Symbolic sizes stop here: the passes below assume static shapes.
  pm.addNestedPass<func::FuncOp>(createCheckSymbolicSizes());
  // Attention spelled out as ops becomes one stride.attention, which the
  // passes below treat as any other.
  if (options.recognizeAttention)
    pm.addNestedPass<func::FuncOp>(createRecognizeAttention());
  // Masks built from index arithmetic become the causal flag or a valid
  // key count, which the library reads instead of a bias.
  pm.addNestedPass<func::FuncOp>(createFoldIndexMasks());
  // Split for tensor parallelism before legalization, which then checks
  // the split graph's layouts.
  if (options.tensorParallel != 1 || options.rank != 0)
    pm.addNestedPass<func::FuncOp>(createTensorParallel(
        TensorParallelOptions{options.tensorParallel, options.rank}));
  // Data parallelism: the gradients averaged across the ranks in buckets.
  if (options.dataParallel != 1)
    pm.addNestedPass<func::FuncOp>(createDataParallel(DataParallelOptions{
        options.dataParallel, options.dataParallelBucketBytes}));
  // The split's row-parallel products in chunks of rows, so that the plan
  // overlaps a chunk's all-reduce with the next chunk's product.
  if (options.tensorParallel > 1 && options.collectiveChunks != 1)
    pm.addNestedPass<func::FuncOp>(createChunkCollectives(
        ChunkCollectivesOptions{options.collectiveChunks, /*minRows=*/1024}));
  // Collectives exchange contiguous blocks along their outermost dim, as
  // the plan's NCCL steps do.
  pm.addNestedPass<func::FuncOp>(createPrepareCollectives());
  // Products of the same activations against constant weights (q/k/v,
  // gate/up) become one product and slices, before legalization checks the
  // slices and the passes below decide how attention and products read them.
  if (options.mergeSiblingProducts)
    pm.addNestedPass<func::FuncOp>(createMergeSiblingProducts());
  // Products of K = 1 (rotary angles) become multiplies that fusion takes
  // into their readers instead of a library call each.
  pm.addNestedPass<func::FuncOp>(createOuterProducts());
  // A tied embedding's two gradients: the scatter accumulates into the
  // product instead of into zeros added to it.
  pm.addNestedPass<func::FuncOp>(createAccumulateIntoScatters());
  LegalizeLayoutsOptions legalize;
  legalize.repair = options.repairLayouts;
  pm.addNestedPass<func::FuncOp>(createLegalizeLayouts(legalize));
  // The attention ops the library takes stay fused (marked
  // stride.keep_fused); the others become products and kernels.
  pm.addNestedPass<func::FuncOp>(createAttentionLibrary(
      AttentionLibraryOptions{options.attentionLibrary,
                              options.splitKvAttention,
                              options.decodeAttention,
                              options.decodeAttentionStagedKeys}));
  pm.addNestedPass<func::FuncOp>(createDecomposeAttention());
  // Pointwise results PyTorch left in a permuted order (a residual stream
  // after a permute) row-major where Stride owns them.
  if (options.rowMajorPointwise)
    pm.addNestedPass<func::FuncOp>(createRowMajorPointwise());
  // Batch norms fold into the convolutions before them; the convolutions
  // cuDNN takes stay whole (a library call each), the others become
  // windows and products.
  if (options.foldIntoConvolutions)
    pm.addNestedPass<func::FuncOp>(createFoldIntoConvolution());
  if (options.decomposeConvolutions) {
    // f16 and bf16 convolutions channels-last where Stride owns the layout,
    // for cuDNN's tensor-core engines.
    if (options.convolutions != "generated")
      pm.addNestedPass<func::FuncOp>(createConvolutionLayout());
    pm.addNestedPass<func::FuncOp>(createConvolutionLibrary(
        ConvolutionLibraryOptions{options.convolutions,
                                  options.convolutionEpilogues}));
    pm.addNestedPass<func::FuncOp>(createDecomposeConvolution());
  }
  // Products of few rows marked for the skinny product kernel; the others'
  // library calls read their operands in place or from copies.
  pm.addNestedPass<func::FuncOp>(
      createMatmulLayout(
          MatmulLayoutOptions{options.skinnyProducts, options.padOperandRows,
                              options.padContraction}));
  // Pointwise results packed in a permuted order (channels-last images)
  // computed along memory.
  pm.addNestedPass<func::FuncOp>(createPointwiseMemoryOrder());
  // What the passes above compute from constants only (folded batch norms,
  // weights copied into channels-last or padded) is computed now, once,
  // instead of by a kernel at every run.
  if (options.foldConstants)
    pm.addNestedPass<func::FuncOp>(createFoldConstants());
  if (options.fuse)
    pm.addNestedPass<func::FuncOp>(createFuse(toFuseOptions(options.fusion)));
  if (options.formKernels) {
    // Over symbolic rows: the skinny product kernel at one row beside the
    // library call, selected at run time.
    pm.addNestedPass<func::FuncOp>(createProductVariants(
        ProductVariantsOptions{options.skinnyProducts}));
    pm.addNestedPass<func::FuncOp>(
        createOutlineKernels(OutlineKernelsOptions{
            options.skinnyPrologue, options.skinnyRowPrologue,
            options.skinnyEpilogue}));
    pm.addNestedPass<func::FuncOp>(createMergeDuplicateKernels());
    // The head of the backend: every kernel, however formed, keeps the
    // kernel contract.
    pm.addNestedPass<func::FuncOp>(createVerifyKernels());
    if (options.keepValues)
      pm.addNestedPass<func::FuncOp>(createKeepValues());
  }
  if (!options.testInjectFault.empty())
    pm.addNestedPass<func::FuncOp>(
        createTestInjectFault(TestInjectFaultOptions{options.testInjectFault}));
}

namespace {
struct PipelineCLOptions : public PassPipelineOptions<PipelineCLOptions> {
  Option<bool> repairLayouts{
      *this, "repair-layouts",
      llvm::cl::desc("Give illegal functional result layouts a dense layout "
                     "instead of rejecting the graph"),
      llvm::cl::init(false)};
  Option<bool> fuse{*this, "fuse",
                    llvm::cl::desc("Fuse ops into stride.kernel regions"),
                    llvm::cl::init(true)};
  Option<bool> fuseBroadcastEpilogues{
      *this, "fuse-broadcast-epilogues",
      llvm::cl::desc("With fuse: also fuse broadcast epilogues (kernel "
                     "contract form (d))"),
      llvm::cl::init(true)};
  Option<bool> recognizeAttention{
      *this, "recognize-attention",
      llvm::cl::desc("Rewrite attention spelled out as ops into "
                     "stride.attention (stride-recognize-attention)"),
      llvm::cl::init(true)};
  Option<std::string> attentionLibrary{
      *this, "attention-library",
      llvm::cl::desc("The library that runs fused attention: cudnn, or none "
                     "(no library: decode steps as the split-KV kernel, "
                     "every other attention op decomposed)"),
      llvm::cl::init("cudnn")};
  Option<bool> splitKvAttention{
      *this, "split-kv-attention",
      llvm::cl::desc("Run attention ops with few query rows (decode steps) "
                     "as the split-KV kernel"),
      llvm::cl::init(true)};
  Option<std::string> decodeAttention{
      *this, "decode-attention",
      llvm::cl::desc("How decode steps that both cuDNN and Stride's kernel "
                     "take run: auto (cuDNN, and the staged kernel up to "
                     "decode-attention-staged-keys valid keys where the "
                     "count is read from an input, chosen at run time), "
                     "staged or split-kv (Stride's kernel), or library "
                     "(cuDNN)"),
      llvm::cl::init("auto")};
  Option<int64_t> decodeAttentionStagedKeys{
      *this, "decode-attention-staged-keys",
      llvm::cl::desc("With decode-attention=auto: the most valid keys at "
                     "which the staged kernel runs instead of cuDNN (0: "
                     "cuDNN always)"),
      llvm::cl::init(2048)};
  Option<std::string> skinnyProducts{
      *this, "skinny-products",
      llvm::cl::desc("Which products of few rows run as the skinny product "
                     "kernel instead of cuBLASLt: auto (1 row), "
                     "generated (up to 32) or library (none)"),
      llvm::cl::init("auto")};
  Option<bool> skinnyPrologue{
      *this, "skinny-prologue",
      llvm::cl::desc("With form-kernels: compute a skinny product's rows in "
                     "its kernel where a pointwise kernel computes them for "
                     "it alone (stride-outline-kernels)"),
      llvm::cl::init(false)};
  Option<bool> skinnyRowPrologue{
      *this, "skinny-row-prologue",
      llvm::cl::desc("With form-kernels: compute the broadcast-reduction "
                     "kernel (an RMSNorm) whose result a skinny product alone "
                     "reads in the product's kernel (stride-outline-kernels)"),
      llvm::cl::init(false)};
  Option<bool> skinnyEpilogue{
      *this, "skinny-epilogue",
      llvm::cl::desc("With form-kernels: compute the pointwise kernel that "
                     "alone reads a skinny product's result in the product's "
                     "kernel (stride-outline-kernels)"),
      llvm::cl::init(true)};
  Option<bool> padOperandRows{
      *this, "pad-operand-rows",
      llvm::cl::desc("Copy f16/bf16 product operands whose rows are not "
                     "16-byte multiples into aligned rows"),
      llvm::cl::init(true)};
  Option<bool> padContraction{
      *this, "pad-contraction",
      llvm::cl::desc("With pad-operand-rows: pad an unaligned K read from "
                     "such rows with zeros"),
      llvm::cl::init(true)};
  Option<bool> decomposeConvolutions{
      *this, "decompose-convolutions",
      llvm::cl::desc("Rewrite convolutions into windows and matrix products "
                     "(stride-decompose-convolution)"),
      llvm::cl::init(true)};
  Option<std::string> convolutions{
      *this, "convolutions",
      llvm::cl::desc("With decompose-convolutions: which convolutions run as "
                     "cuDNN calls (stride-convolution-library): auto, "
                     "library or generated"),
      llvm::cl::init("auto")};
  Option<bool> convolutionEpilogues{
      *this, "convolution-epilogues",
      llvm::cl::desc("With convolutions other than generated: fold a "
                     "residual add and a relu into the cuDNN call where its "
                     "runtime-fusion engines take them"),
      llvm::cl::init(true)};
  Option<bool> foldIntoConvolutions{
      *this, "fold-into-convolutions",
      llvm::cl::desc("Fold per-channel affine ops (inference batch norms) "
                     "into the convolutions before them "
                     "(stride-fold-into-convolution)"),
      llvm::cl::init(true)};
  Option<bool> rowMajorPointwise{
      *this, "row-major-pointwise",
      llvm::cl::desc("Make pointwise results packed in a permuted order "
                     "row-major where Stride owns their layout "
                     "(stride-row-major-pointwise)"),
      llvm::cl::init(true)};
  Option<bool> mergeSiblingProducts{
      *this, "merge-sibling-products",
      llvm::cl::desc("Merge products of the same activations against "
                     "constant weights into one product over the weights "
                     "concatenated (stride-merge-sibling-products)"),
      llvm::cl::init(true)};
  Option<bool> foldConstants{
      *this, "fold-constants",
      llvm::cl::desc("Compute the ops whose operands are all constants at "
                     "compile time (stride-fold-constants)"),
      llvm::cl::init(true)};
  Option<bool> formKernels{
      *this, "form-kernels",
      llvm::cl::desc("Put every functional op into a stride.kernel, as the "
                     "CUDA backend needs"),
      llvm::cl::init(false)};
};
} // namespace

void stride::registerStridePipeline() {
  PassPipelineRegistration<PipelineCLOptions>(
      "stride-pipeline", "The default Stride pipeline (legalization first)",
      [](OpPassManager &pm, const PipelineCLOptions &cl) {
        PipelineOptions options;
        options.repairLayouts = cl.repairLayouts;
        options.fuse = cl.fuse;
        options.fusion.broadcastEpilogues = cl.fuseBroadcastEpilogues;
        options.formKernels = cl.formKernels;
        options.attentionLibrary = cl.attentionLibrary;
        options.recognizeAttention = cl.recognizeAttention;
        options.splitKvAttention = cl.splitKvAttention;
        options.decodeAttention = cl.decodeAttention;
        options.decodeAttentionStagedKeys = cl.decodeAttentionStagedKeys;
        options.skinnyProducts = cl.skinnyProducts;
        options.skinnyPrologue = cl.skinnyPrologue;
        options.skinnyRowPrologue = cl.skinnyRowPrologue;
        options.skinnyEpilogue = cl.skinnyEpilogue;
        options.padOperandRows = cl.padOperandRows;
        options.padContraction = cl.padContraction;
        options.decomposeConvolutions = cl.decomposeConvolutions;
        options.foldIntoConvolutions = cl.foldIntoConvolutions;
        options.foldConstants = cl.foldConstants;
        options.rowMajorPointwise = cl.rowMajorPointwise;
        options.mergeSiblingProducts = cl.mergeSiblingProducts;
        options.convolutions = cl.convolutions;
        options.convolutionEpilogues = cl.convolutionEpilogues;
        buildStridePipeline(pm, options);
      });
}
