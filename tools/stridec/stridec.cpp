//===- stridec.cpp - The Stride compiler driver ---------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A thin client of the compiler library (stride/Compiler/Compiler.h): parses
// the command line, calls compileFile, prints the diagnostics it returns and
// writes the output. `--inspect` prints a module file for a person.
//
//===----------------------------------------------------------------------===//

#include "stride/Compiler/Compiler.h"
#include "stride/Import/Torch/Importer.h"
#include "stride/Target/CUDA/NvrtcCache.h"
#include "stride/Module/Module.h"
#include "stride/Target/CUDA/NVRTC.h"
#include "stride/Compiler/ModuleCache.h"
#include "dialects/plan/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

cl::OptionCategory stridecCategory("stridec options");
cl::OptionCategory mlirCategory("MLIR options (for the pipeline)");

/// MLIR's options that --help shows; the others (and LLVM's) still work
/// and are listed by --help-hidden.
constexpr const char *kShownMlirOptions[] = {
    "mlir-print-ir-after-all",     "mlir-print-ir-before-all",
    "mlir-print-ir-after-failure", "mlir-print-ir-after-change",
    "mlir-print-ir-module-scope",  "mlir-print-debuginfo",
    "mlir-timing",                 "mlir-timing-display",
};

cl::opt<std::string> inputPath(cl::Positional,
                               cl::desc("<graph.mlir | model.pt2>"),
                               cl::init("-"), cl::cat(stridecCategory));

cl::opt<std::string> outputPath(
    "o", cl::value_desc("file"),
    cl::desc("Where to write the output ('-' is standard output). Default: "
             "standard output for text, <graph>.stridemod in the current "
             "directory for --emit=module"),
    cl::cat(stridecCategory));

cl::opt<std::string> backwardPath(
    "backward", cl::value_desc("backward.pt2"),
    cl::desc("Compile a training step: the input is its forward graph and "
             "this its backward (the export helper's train mode writes "
             "both). Eager attention is then fused across the two "
             "(stride-pair-training-attention): the forward saves each "
             "attention's logsumexp, output and mask for the backward "
             "instead of its probabilities, and both modules name them "
             "so (python-free-docs/attention.md, \"Training graphs "
             "spelled out\"). The backward's output goes to "
             "--backward-output"),
    cl::cat(stridecCategory));

cl::opt<std::string> backwardOutputPath(
    "backward-output", cl::value_desc("file"),
    cl::desc("With --backward: where to write the backward's output. "
             "Default: <backward>.stridemod in the current directory for "
             "--emit=module, else standard output (after the forward's)"),
    cl::cat(stridecCategory));

cl::opt<stride::EmitKind> emitKind(
    "emit", cl::desc("What to produce:"), cl::init(stride::EmitKind::Module),
    cl::values(
        clEnumValN(stride::EmitKind::Mlir, "mlir",
                   "the stride IR after the pipeline (layouts legalized, "
                   "kernels formed)"),
        clEnumValN(stride::EmitKind::Cuda, "cuda",
                   "the generated CUDA C++ (one __global__ per launched "
                   "kernel, a launch group's members __device__ functions "
                   "of it; one "
                   "translation unit per executable, each after a '// ==== "
                   "Stride translation unit I of N' line when there are "
                   "several)"),
        clEnumValN(stride::EmitKind::Ptx, "ptx",
                   "PTX for the virtual arch of --arch, compiled by NVRTC"),
        clEnumValN(stride::EmitKind::Module, "module",
                   "a loadable .stridemod module: CUBIN for --arch, the "
                   "launch plan and the graph signature (default)"),
        clEnumValN(stride::EmitKind::Dot, "dot",
                   "the kernel graph in Graphviz dot"),
        clEnumValN(stride::EmitKind::Graph, "graph",
                   "the graph as read, before the pipeline (a .pt2 archive "
                   "as imported into the stride dialect)")),
    cl::cat(stridecCategory));

cl::opt<std::string> arch(
    "arch", cl::value_desc("sm_XX"), cl::init("sm_90"),
    cl::desc("GPU architecture to compile for, e.g. sm_90 for an H100 or "
             "H200, sm_80 for an A100 (default sm_90); any arch this NVRTC "
             "supports"),
    cl::cat(stridecCategory));

cl::opt<int> multiprocessors(
    "multiprocessors", cl::value_desc("N"), cl::init(0),
    cl::desc("Size grids for a GPU with N multiprocessors (default 0: the "
             "arch's usual count, 132 for sm_90, 108 for sm_80). Grid-stride "
             "kernels launch at most a few blocks per multiprocessor and "
             "loop; a smaller N gives each block (or cluster) more work"),
    cl::cat(stridecCategory));

cl::opt<bool> repairLayouts(
    "repair-layouts",
    cl::desc("Give a functional op whose result layout overlaps (e.g. "
             "stride 0 copied from an expand) a dense layout, with a remark, "
             "instead of rejecting the graph"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> weightsAsInputs(
    "weights-as-inputs",
    cl::desc("For a .pt2 archive: make its parameters, buffers and constants "
             "graph inputs named after them (one module, many checkpoints) "
             "instead of constants stored in the module"),
    cl::init(false), cl::cat(stridecCategory));

cl::list<std::string> instantiateSymbols(
    "instantiate-symbols", cl::CommaSeparated, cl::value_desc("NAME=N,..."),
    cl::desc("Instantiate a graph of symbolic sizes at these values of its "
             "symbols as soon as it is read (e.g. batch=7,seq=33): a static "
             "module of that one shape; each value must lie in its symbol's "
             "range (python-free-docs/symbolic-sizes.md)"),
    cl::cat(stridecCategory));

cl::opt<int64_t> worldSize(
    "world-size",
    cl::desc("For a .pt2 archive with PyTorch's functional collectives: the "
             "number of ranks of their group (_c10d_functional.all_reduce "
             "records the group's name, not its size); see "
             "python-free-docs/distributed.md"),
    cl::init(0), cl::cat(stridecCategory));

cl::opt<int64_t> tensorParallel(
    "tensor-parallel",
    cl::desc("Split the graph for N ranks (stride-tensor-parallel: "
             "Megatron-style column- and row-parallel products, heads split "
             "across ranks, all-reduces and all-gathers) and compile rank "
             "--rank's program; python-free-docs/distributed.md"),
    cl::init(1), cl::cat(stridecCategory));

cl::opt<int64_t> tensorParallelRank(
    "rank",
    cl::desc("With --tensor-parallel=N: the rank, in [0, N), whose program "
             "to compile (one module per rank)"),
    cl::init(0), cl::cat(stridecCategory));

cl::opt<int64_t> dataParallel(
    "data-parallel",
    cl::desc("For a backward graph run by N data-parallel ranks, each on its "
             "shard of the batch: average the gradients (the floating-point "
             "results) across the ranks with all-reduces in buckets, each "
             "placed as soon as its gradients are complete "
             "(stride-data-parallel); python-free-docs/distributed.md"),
    cl::init(1), cl::cat(stridecCategory));

cl::opt<int64_t> dataParallelBucketMb(
    "data-parallel-bucket-mb",
    cl::desc("With --data-parallel=N: close a bucket of gradients once it "
             "holds this many MiB (DDP's bucket_cap_mb; default 25)"),
    cl::init(25), cl::cat(stridecCategory));

cl::opt<bool> noOverlapCollectives(
    "no-overlap-collectives",
    cl::desc("Run the plan's collectives (NCCL) on the invocation's stream, "
             "between the steps around them, instead of on a second stream "
             "beside the steps that do not depend on them "
             "(stride-overlap-collectives); python-free-docs/distributed.md"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<int64_t> collectiveChunks(
    "collective-chunks",
    cl::desc("With --tensor-parallel: split each product that is only "
             "all-reduced across the ranks (the output and down projections) "
             "into N chunks of rows, so that each chunk's all-reduce runs "
             "beside the next chunk's product (stride-chunk-collectives; "
             "products of at least 1,024 rows; default 2, 1 turns it off); "
             "python-free-docs/distributed.md"),
    cl::init(2), cl::cat(stridecCategory));

cl::opt<bool> noFuse(
    "no-fuse",
    cl::desc("Do not fuse: every functional op becomes a kernel of its own "
             "(views are still free)"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> keepValues(
    "keep-values",
    cl::desc("Make every buffer a kernel or library call writes an extra "
             "output, value.0, value.1, ... in program order, for "
             "stride-run --compare-values (python-free-docs/debugging.md)"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<std::string> testInjectFault(
    "test-inject-fault", cl::value_desc("op"), cl::Hidden,
    cl::desc("TEST ONLY: miscompile every floating-point op of this kind "
             "(add, sub, mul, div, maximum, minimum) into its counterpart, to "
             "test the debugging tools"),
    cl::cat(stridecCategory));

cl::opt<bool> noRuntimeChecks(
    "no-runtime-checks",
    cl::desc("Do not stop a kernel on an out-of-range gather/scatter index "
             "or an integer division by zero (the access is still guarded, "
             "the result unspecified)"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noVectorize(
    "no-vectorize",
    cl::desc("Compute one element per thread and step in pointwise kernels "
             "instead of 4 with vector loads and stores (for debugging)"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> allowTf32(
    "allow-tf32",
    cl::desc("Let f32 matrix products compute with TF32 tensor cores "
             "(faster, about 10 bits of mantissa per product; recorded in "
             "the module). Without it they compute in full f32, as "
             "PyTorch's default"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> deterministic(
    "deterministic",
    cl::desc("Sum each output element's contributions to a float index_add "
             "in source order, so that results are bit-identical run after "
             "run (recorded in the module; a float scatter_add is then an "
             "error). Without it the order varies"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<std::string> attentionLibrary(
    "attention-library", cl::value_desc("cudnn|none"),
    cl::desc("How attention ops run: cudnn (default: one cuDNN flash-attention "
             "call for each op in f16 or bf16 with head dims that are "
             "multiples of 8 up to 128, on sm_80 and later; decode steps "
             "it does not take run as Stride's split-KV kernel, the others "
             "decomposed) or none (no cuDNN: decode steps as the split-KV "
             "kernel, every other op decomposed into matrix products and "
             "kernels, the tokens x tokens scores in memory)"),
    cl::init("cudnn"), cl::cat(stridecCategory));

cl::opt<bool> noSplitKvAttention(
    "no-split-kv-attention",
    cl::desc("Run attention ops with few query rows (decode steps) as cuDNN "
             "calls or decomposed, like the others, instead of Stride's "
             "split-KV kernel (python-free-docs/attention.md, \"Decode "
             "attention\")"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<std::string> decodeAttention(
    "decode-attention", cl::value_desc("auto|staged|split-kv|library"),
    cl::desc("How decode steps (few query rows) that both cuDNN and Stride's "
             "kernel take run: auto (default: cuDNN, but where the staged "
             "kernel takes the step and its valid length is read from an "
             "input such as cache_position, the staged kernel up to "
             "--decode-attention-staged-keys valid keys, chosen at run time "
             "by the input's value), staged "
             "(Stride's kernel, its staged scheme where it applies: few "
             "key/value heads, f16/bf16 caches and a valid length), "
             "split-kv (Stride's kernel, its split-KV scheme), or library "
             "(cuDNN) "
             "(python-free-docs/attention.md, \"Decode attention\", has "
             "the rule)"),
    cl::init("auto"), cl::cat(stridecCategory));

cl::opt<int64_t> decodeAttentionStagedKeys(
    "decode-attention-staged-keys", cl::value_desc("keys"),
    cl::desc("With --decode-attention=auto: the most valid keys at which a "
             "decode step runs the staged kernel instead of cuDNN, chosen at "
             "run time from the position input (default 2048, where an H200 "
             "measured the two alike in bench/decode's batch-1 step; 0: "
             "cuDNN always)"),
    cl::init(2048), cl::cat(stridecCategory));

cl::opt<std::string> skinnyProducts(
    "skinny-products", cl::value_desc("auto|library|generated"),
    cl::desc("How matrix products of few rows (a decode step's linear "
             "layers) run: auto (default: Stride's skinny product kernel for "
             "2-D f16/bf16/f32 products of 1 row whose weight and "
             "activations are contiguous along K, cuBLASLt for the rest), "
             "generated (the kernel up to 32 rows) or library (every product "
             "a cuBLASLt call); python-free-docs/matmul.md, \"Skinny "
             "products\""),
    cl::init("auto"), cl::cat(stridecCategory));

cl::opt<bool> padOperandRows(
    "pad-operand-rows",
    cl::desc("Copy f16/bf16 product operands whose rows are not a multiple "
             "of 16 bytes (GPT-2's 50,257 logits read by the LM head's "
             "backward products) into aligned rows, fused into their "
             "producer (python-free-docs/matmul.md, \"Padded operand "
             "rows\"); on by default, --pad-operand-rows=false turns it "
             "off"),
    cl::init(true), cl::cat(stridecCategory));

cl::opt<bool> padContraction(
    "pad-contraction",
    cl::desc("With --pad-operand-rows: run a 2-D f16/bf16 product whose "
             "contraction dim K is such an unaligned row (GPT-2's LM head "
             "input gradient, K = 50,257) over K padded to 16 bytes with "
             "zeros: the copy's pad columns zero-filled, the other operand "
             "given zero rows; where the padded operand has at least 256 "
             "rows (python-free-docs/matmul.md, \"Padded K\"); on by "
             "default, --pad-contraction=false turns it off"),
    cl::init(true), cl::cat(stridecCategory));

cl::opt<int> skinnyColumnsPerWarp(
    "skinny-columns-per-warp", cl::value_desc("N"), cl::init(0),
    cl::desc("Tuning: the output columns each warp of the skinny product "
             "kernel takes, for products of at most 8 rows (default 0: the "
             "scheduler's choice; bench/decode/skinny_sweep.py times them)"),
    cl::cat(stridecCategory));

cl::opt<int> skinnyLoadsPerLane(
    "skinny-loads-per-lane", cl::value_desc("N"), cl::init(0),
    cl::desc("Tuning: the 16-byte weight loads each lane of the skinny "
             "product kernel issues per column before using any (default 0: "
             "the scheduler's choice)"),
    cl::cat(stridecCategory));

cl::opt<int> skinnyColumnWarps(
    "skinny-column-warps", cl::value_desc("N"), cl::init(0),
    cl::desc("Tuning: the warps of a block that share each column group of "
             "the skinny product kernel, each taking every N-th 512-byte step "
             "of the weight rows (1 or 4; default 0: the scheduler's "
             "choice)"),
    cl::cat(stridecCategory));

cl::opt<int64_t> l2ResidentBytes(
    "l2-resident-bytes", cl::value_desc("N"), cl::init(0),
    cl::desc("Keep the first N bytes of the skinny products' weights (in "
             "the plan's order) in the GPU's L2 cache from one run to the "
             "next: their launches carry an L2 access-policy window whose "
             "hits persist, in L2 the runtime sets aside "
             "(stride-keep-weights-in-l2; python-free-docs/plan.md, "
             "\"Weights kept in L2\"). Default 0: none"),
    cl::cat(stridecCategory));

cl::opt<std::string> convolutions(
    "convolutions", cl::value_desc("auto|library|generated"),
    cl::desc("How convolutions run: auto (default: one cuDNN call each for "
             "f16, bf16 and f32 convolutions, 1-D to 3-D, transposed ones "
             "as cuDNN's data gradient; f64 ones decomposed into windows "
             "and matrix products), library (every convolution a cuDNN "
             "call; one cuDNN does not take is an error) or generated "
             "(every convolution decomposed); python-free-docs/"
             "convolution.md"),
    cl::init("auto"), cl::cat(stridecCategory));

cl::opt<bool> noRecognizeAttention(
    "no-recognize-attention",
    cl::desc("Leave attention that the graph spells out as ops (matrix "
             "product, scale, mask, softmax, matrix product) as those ops "
             "instead of rewriting it into one attention op"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noConvolutionEpilogues(
    "no-convolution-epilogues",
    cl::desc("Run the residual add and the relu after a cuDNN convolution "
             "as Stride kernels instead of in the cuDNN call (the way "
             "around a cuDNN that has no engine for the fused graph)"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noRowMajorPointwise(
    "no-row-major-pointwise",
    cl::desc("Keep the orders the graph gives pointwise results instead of "
             "making permuted ones row-major where Stride owns them "
             "(stride-row-major-pointwise)"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> skinnyPrologue(
    "skinny-prologue",
    cl::desc("Compute a skinny product's rows in its kernel where a "
             "pointwise kernel computes them for it alone (a decoder's SwiGLU "
             "before its down projection, with --no-skinny-epilogue: by "
             "default the gate/up product takes the SwiGLU first), instead "
             "of that kernel; off by default, measured slower on an H200 "
             "(python-free-docs/matmul.md, \"Skinny products\")"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> skinnyRowPrologue(
    "skinny-row-prologue",
    cl::desc("Compute the broadcast-reduction kernel whose result a skinny "
             "product alone reads (a decoder's RMSNorm before its Q/K/V, "
             "gate/up and LM head products) in the product's kernel, each "
             "block reducing the rows before it stages them, instead of as a "
             "kernel of its own; off by default, measured slower on an H200 "
             "(python-free-docs/matmul.md, \"Skinny products\")"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noSkinnyEpilogue(
    "no-skinny-epilogue",
    cl::desc("Run the pointwise kernel that alone reads a skinny product's "
             "result (a decoder's SwiGLU after its merged gate and up "
             "projections) as a kernel of its own instead of in the "
             "product's kernel, each warp evaluating it from its own sums "
             "(python-free-docs/matmul.md, \"Skinny products\")"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noMergeSiblingProducts(
    "no-merge-sibling-products",
    cl::desc("Keep the products that read the same activations against "
             "constant weights (a layer's query, key and value projections; "
             "an MLP's gate and up) separate instead of merging them into "
             "one product over the weights concatenated, each former "
             "product a view of its columns"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noFoldConstants(
    "no-fold-constants",
    cl::desc("Compute the ops whose operands are all constants (a batch "
             "norm folded into a convolution's weight) by kernels at every "
             "run instead of once at compile time"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noDependentLaunch(
    "no-dependent-launch",
    cl::desc("On sm_90 and later, launch every kernel only after the one "
             "before it ends, as below sm_90. Without it each kernel waits "
             "for its predecessor in its own code and may start while that "
             "one drains (programmatic dependent launch, recorded per "
             "dispatch in the module)"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noStagedTensorCores(
    "no-staged-tensor-cores",
    cl::desc("Run the staged decode attention's chunks on the CUDA cores "
             "(scheme staged_kv_attention). Without it they run on the "
             "tensor cores wherever their shapes allow "
             "(staged_kv_mma_attention; python-free-docs/attention.md, "
             "\"Decode attention\")"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noLaunchGroups(
    "no-launch-groups",
    cl::desc("Launch every kernel on its own. Without it independent small "
             "kernels (a decode step's position, mask and rotary kernels) "
             "a few steps apart run as one launch, each on its own blocks "
             "(stride-group-launches; python-free-docs/cuda-backend.md, "
             "\"Launch groups\")"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> noEarlyTriggers(
    "no-early-triggers",
    cl::desc("Launch every grid once the kernel before it has exited. "
             "Without it (sm_90 and later, with dependent launches) a kernel "
             "followed by a small grid (at most 32 blocks: a norm, a rotary "
             "kernel) lets that grid launch as it starts, so that it waits "
             "resident (stride-trigger-small-successors; "
             "python-free-docs/cuda-backend.md, \"The kernel ABI\")"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<bool> earlyLaunch(
    "early-launch",
    cl::desc("With dependent launches (sm_90 and later): let each kernel's "
             "successor launch as soon as the kernel's blocks start, and "
             "have skinny products fetch the first lines of their constant "
             "weights into L2 before they wait for the kernel ahead"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<std::string> cacheDir(
    "cache-dir", cl::value_desc("dir"),
    cl::desc("Keep NVRTC's output and whole modules in this directory. "
             "NVRTC's output is keyed on the SHA-256 of the CUDA source, "
             "arch, options and NVRTC's file (path, size, mtime), so that a "
             "kernel compiled before never loads NVRTC; a module on the "
             "graph file's bytes and name, the options, stridec's own file "
             "and NVRTC's, so that compiling the same file again only hashes "
             "it and links the module (a hard link where the directory and "
             "the output share a file system). Default: "
             "$XDG_CACHE_HOME/stride/nvrtc, else ~/.cache/stride/nvrtc"),
    cl::cat(stridecCategory));

cl::opt<unsigned> jobs(
    "j", cl::Prefix, cl::value_desc("N"),
    cl::desc("Run NVRTC on N translation units at once, in child "
             "processes that hand their code over through the cache (a "
             "private one under --no-cache) (-j4; default: one per hardware "
             "thread). The module is the same for any N"),
    cl::init(0), cl::cat(stridecCategory));

const std::string kUnitOpsHelp =
    "Kernel ops per translation unit (executable), at least: a graph of T "
    "kernel ops is compiled as T/N units of equal size, at most " +
    std::to_string(stride::plan::kMaxUnits) + " (default " +
    std::to_string(stride::plan::kDefaultUnitOps) +
    ": few large units, since NVRTC costs 0.04-0.1 s of CPU per unit); 0: "
    "one unit";

cl::opt<int64_t> unitOps("unit-ops", cl::value_desc("N"),
                         cl::desc(kUnitOpsHelp), cl::cat(stridecCategory));

cl::opt<bool> noCache(
    "no-cache",
    cl::desc("Always compile: read and write no cache (neither NVRTC's "
             "output nor whole modules)"),
    cl::init(false), cl::cat(stridecCategory));

cl::opt<std::string> inspectPath(
    "inspect", cl::value_desc("module.stridemod"),
    cl::desc("Print the contents of a module file (arch, signature, code, "
             "kernels, buffers, launches), or of a .pt2 archive (inputs, "
             "weights by parameter name, outputs), instead of compiling"),
    cl::cat(stridecCategory));

cl::opt<bool> listTorchOps(
    "list-torch-ops",
    cl::desc("Print every op of a torch.export archive that Stride imports "
             "(\"torch.ops.aten.add.Tensor\"), one per line, and exit; "
             "python-free-docs/generated/CoreAtenOps.md compares them with "
             "PyTorch's core ATen set"),
    cl::init(false), cl::cat(stridecCategory));

constexpr const char *kOverview = R"(Stride compiler: graph file -> GPU module

  stridec graph.mlir -o graph.stridemod       compile for sm_90
  stridec model.pt2 -o model.stridemod        compile a torch.export archive
  stridec model.pt2 --emit=graph              print the imported graph
  stridec forward.pt2 --backward=backward.pt2 compile a training step's two graphs
  stridec graph.mlir --emit=cuda              print the generated CUDA C++
  stridec graph.mlir --emit=ptx --arch=sm_80  print PTX for an A100
  stridec --inspect graph.stridemod           print a module for a person
  stridec --inspect model.pt2                 print an archive's inputs and weights

The pipeline: parse and verify the graph, legalize layouts (an overlapping
functional result layout is an error unless --repair-layouts), form kernels,
emit CUDA C++, compile it with NVRTC, and plan the module (buffers, launches,
signature). Errors print as file:line:col: error: ... and exit with status 1.

NVRTC (libnvrtc.so.13, CUDA 13) is loaded when a compile needs it, from the
loader's paths or /usr/local/cuda; STRIDE_NVRTC=PATH names the file instead.
--emit=mlir, --emit=dot and --inspect work without it, and so does a compile
whose code is in the cache (only --arch's form is checked then).

MLIR's options apply to the pipeline, among them:
  --mlir-print-ir-after-all    print the IR after every pass (to stderr)
  --mlir-print-ir-before-all   print the IR before every pass
  --mlir-timing                report the time of each stage and pass
)";

/// A .pt2 archive's signature and weights, or an error; nullopt for a file
/// that is not an archive.
std::optional<int> inspectArchive(const std::string &path) {
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  if (!buffer || !stride::torch::isTorchArchive((*buffer)->getBuffer(), path))
    return std::nullopt;
  stride::Result<std::string> text =
      stride::torch::describeArchive((*buffer)->getBuffer().str());
  if (!text) {
    errs() << path << ": error: " << text.error().message << "\n";
    return 1;
  }
  outs() << *text;
  return 0;
}

int inspect(const std::string &path) {
  if (std::optional<int> status = inspectArchive(path))
    return *status;
  stride::Result<stride::ModuleDesc> module = stride::readModuleFile(path);
  if (!module) {
    errs() << "stridec: error: " << module.error().message << "\n";
    return 1;
  }
  outs() << stride::describeModule(*module);
  return 0;
}

/// True when the command line names one of MLIR's options (timing,
/// printing IR, crash reproducers): they ask for output that a module
/// from the cache would not give.
bool hasMlirOptions(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    StringRef arg(argv[i]);
    if (arg.starts_with("--mlir-") || arg.starts_with("-mlir-"))
      return true;
  }
  return false;
}

/// The module cache's entry for compiling the input with `options`, or ""
/// when the cache does not apply: no module output, --no-cache, standard
/// input, MLIR's options, or an input that cannot be read (the compile
/// then says why).
std::string moduleCacheEntryFor(const stride::CompileOptions &options,
                                int argc, char **argv) {
  if (emitKind != stride::EmitKind::Module || options.nvrtcCacheDir.empty() ||
      inputPath == "-" || hasMlirOptions(argc, argv))
    return {};
  ErrorOr<std::unique_ptr<MemoryBuffer>> input = MemoryBuffer::getFile(
      inputPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!input)
    return {};
  ArrayRef<uint8_t> bytes(
      reinterpret_cast<const uint8_t *>((*input)->getBufferStart()),
      (*input)->getBufferSize());
  return stride::moduleCacheEntry(
      options.nvrtcCacheDir,
      stride::moduleCacheKey(bytes, inputPath, options));
}

/// Streams the module to `path` through a temporary file renamed into place
/// ("-": standard output), never into an existing file, which may be a
/// hard link to a cache entry (or mapped by a runtime reading it).
bool writeModule(StringRef path, const stride::ModuleDesc &module) {
  Error error = writeToOutput(path, [&](raw_ostream &os) {
    stride::streamModule(module, [&](const uint8_t *data, uint64_t size) {
      os.write(reinterpret_cast<const char *>(data), size);
      return true;
    });
    return Error::success();
  });
  if (!error)
    return true;
  errs() << "stridec: error: cannot write '" << path
         << "': " << toString(std::move(error)) << "\n";
  return false;
}

std::string defaultOutputPath(const std::string &input) {
  if (emitKind != stride::EmitKind::Module)
    return "-";
  if (input == "-")
    return "graph.stridemod";
  return sys::path::stem(input).str() + ".stridemod";
}

/// Writes a successful compile's text to `path` ("-": standard output).
bool writeText(StringRef path, const std::string &text) {
  std::error_code ec;
  ToolOutputFile out(path, ec, sys::fs::OF_TextWithCRLF);
  if (ec) {
    errs() << "stridec: error: cannot write '" << path << "': " << ec.message()
           << "\n";
    return false;
  }
  out.os() << text;
  out.keep();
  return true;
}

/// Writes a compile's module or text to `path`.
bool writeResult(StringRef path, const stride::CompileResult &result) {
  if (emitKind == stride::EmitKind::Module)
    return writeModule(path, result.module);
  return writeText(path, result.text);
}

/// --backward: the training step's two graphs compiled together, each
/// written to its own output.
int compileTrainingStep(const stride::CompileOptions &options,
                        const std::string &forwardOutput) {
  stride::TrainingCompileResult both =
      stride::compileTrainingStep(inputPath, backwardPath, options);
  for (const stride::CompileResult *result : {&both.forward, &both.backward})
    for (const stride::Diagnostic &d : result->diagnostics)
      errs() << d.format();
  if (!both.forward.success || !both.backward.success)
    return 1;
  std::string backwardOutput = backwardOutputPath.empty()
                                   ? defaultOutputPath(backwardPath)
                                   : backwardOutputPath.getValue();
  if (backwardOutput == forwardOutput && forwardOutput != "-") {
    errs() << "stridec: error: the forward and the backward would both be "
              "written to '"
           << forwardOutput << "': give --backward-output another file\n";
    return 1;
  }
  return writeResult(forwardOutput, both.forward) &&
                 writeResult(backwardOutput, both.backward)
             ? 0
             : 1;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "stridec 0.1.0 (MLIR 22, " << stride::nvrtcVersionString() << ")\n";
  });
  auto &registered = cl::getRegisteredOptions();
  for (const char *name : kShownMlirOptions)
    if (cl::Option *option = registered.lookup(name))
      option->addCategory(mlirCategory);
  cl::HideUnrelatedOptions({&stridecCategory, &mlirCategory});
  cl::ParseCommandLineOptions(argc, argv, kOverview);
  for (auto [name, value] :
       {std::pair{"skinny-columns-per-warp", skinnyColumnsPerWarp.getValue()},
        {"skinny-loads-per-lane", skinnyLoadsPerLane.getValue()}})
    if (value < 0 || value > 16) {
      errs() << "stridec: error: --" << name << "=" << value
             << ": expected 1 to 16, or 0 for the scheduler's choice\n";
      return 1;
    }
  if (l2ResidentBytes < 0) {
    errs() << "stridec: error: --l2-resident-bytes=" << l2ResidentBytes
           << ": expected 0 (none) or more bytes\n";
    return 1;
  }
  if (skinnyColumnWarps != 0 && skinnyColumnWarps != 1 &&
      skinnyColumnWarps != 4) {
    errs() << "stridec: error: --skinny-column-warps=" << skinnyColumnWarps
           << ": expected 1 (a warp a column group) or 4 (a block of 4 warps "
              "a group), or 0 for the scheduler's choice\n";
    return 1;
  }
  if (collectiveChunks < 1) {
    errs() << "stridec: error: --collective-chunks=" << collectiveChunks
           << ": expected 1 or more (1: no split)\n";
    return 1;
  }
  if (multiprocessors < 0) {
    errs() << "stridec: error: --multiprocessors=" << multiprocessors
           << ": expected a count of multiprocessors, or 0 for the arch's "
              "usual count\n";
    return 1;
  }

  if (!inspectPath.empty())
    return inspect(inspectPath);
  if (listTorchOps) {
    for (const std::string &target : stride::torch::importedTargets())
      outs() << target << "\n";
    return 0;
  }

  mlir::DefaultTimingManager timingManager;
  mlir::applyDefaultTimingManagerCLOptions(timingManager);
  mlir::TimingScope rootTiming = timingManager.getRootScope();

  stride::CompileOptions options;
  options.emit = emitKind;
  options.pipeline.repairLayouts = repairLayouts;
  options.import.weightsAsInputs = weightsAsInputs;
  options.import.worldSize = worldSize;
  options.instantiateSymbols.assign(instantiateSymbols.begin(),
                                    instantiateSymbols.end());
  options.pipeline.tensorParallel = tensorParallel;
  options.pipeline.rank = tensorParallelRank;
  options.pipeline.dataParallel = dataParallel;
  options.pipeline.dataParallelBucketBytes = dataParallelBucketMb << 20;
  options.pipeline.overlapCollectives = !noOverlapCollectives;
  options.pipeline.collectiveChunks = collectiveChunks;
  options.pipeline.fuse = !noFuse;
  options.pipeline.keepValues = keepValues;
  options.pipeline.attentionLibrary = attentionLibrary;
  options.pipeline.splitKvAttention = !noSplitKvAttention;
  options.pipeline.decodeAttention = decodeAttention;
  options.pipeline.decodeAttentionStagedKeys = decodeAttentionStagedKeys;
  options.pipeline.skinnyProducts = skinnyProducts;
  options.pipeline.skinnyPrologue = skinnyPrologue;
  options.pipeline.skinnyRowPrologue = skinnyRowPrologue;
  options.pipeline.skinnyEpilogue = !noSkinnyEpilogue;
  options.pipeline.padOperandRows = padOperandRows;
  options.pipeline.padContraction = padContraction;
  options.pipeline.convolutions = convolutions;
  options.pipeline.recognizeAttention = !noRecognizeAttention;
  options.pipeline.foldConstants = !noFoldConstants;
  options.pipeline.rowMajorPointwise = !noRowMajorPointwise;
  options.pipeline.mergeSiblingProducts = !noMergeSiblingProducts;
  options.pipeline.convolutionEpilogues = !noConvolutionEpilogues;
  options.pipeline.testInjectFault = testInjectFault;
  options.cuda.arch = arch;
  options.cuda.multiprocessorCount = multiprocessors;
  options.cuda.runtimeChecks = !noRuntimeChecks;
  options.cuda.vectorize = !noVectorize;
  options.cuda.allowTf32 = allowTf32;
  options.cuda.skinnyColumnsPerWarp = skinnyColumnsPerWarp;
  options.cuda.skinnyLoadsPerLane = skinnyLoadsPerLane;
  options.cuda.skinnyColumnWarps = skinnyColumnWarps;
  options.cuda.deterministic = deterministic;
  options.cuda.dependentLaunch = !noDependentLaunch;
  options.cuda.earlyLaunch = earlyLaunch;
  options.cuda.launchGroups = !noLaunchGroups;
  options.cuda.stagedKvTensorCores = !noStagedTensorCores;
  options.cuda.triggerSmallSuccessors = !noEarlyTriggers;
  options.cuda.l2ResidentBytes = l2ResidentBytes;
  options.jobs = jobs;
  options.nvrtcInChildProcesses = true;
  // The module is streamed to its file from result.module.
  options.keepModuleBytes = false;
  if (unitOps.getNumOccurrences())
    options.unitOps = unitOps;
  if (!noCache)
    options.nvrtcCacheDir =
        cacheDir.empty() ? stride::defaultNvrtcCacheDir() : cacheDir;
  options.configurePassManager = [](mlir::PassManager &pm) {
    (void)mlir::applyPassManagerCLOptions(pm);
  };
  if (timingManager.isEnabled())
    options.timing = &rootTiming;

  std::string path =
      outputPath.empty() ? defaultOutputPath(inputPath) : outputPath.getValue();
  if (!backwardPath.empty()) {
    int status = compileTrainingStep(options, path);
    rootTiming.stop();
    return status;
  }
  if (!backwardOutputPath.empty()) {
    errs() << "stridec: error: --backward-output needs --backward (a "
              "training step's backward graph)\n";
    return 1;
  }
  std::string cached = timingManager.isEnabled()
                           ? std::string()
                           : moduleCacheEntryFor(options, argc, argv);
  if (!cached.empty() && path != "-" &&
      stride::placeCachedModule(cached, path))
    return 0;

  stride::CompileResult result = stride::compileFile(inputPath, options);
  for (const stride::Diagnostic &d : result.diagnostics)
    errs() << d.format();
  if (!result.success)
    return 1;

  if (emitKind == stride::EmitKind::Module) {
    // Into the cache first, then linked to the output: one copy of the
    // module on disk, and a later hit replaces a link, not a file whose
    // blocks the file system must free (0.4 s for GPT-2's 500 MB). A
    // compile that reported warnings or remarks is not cached, so that
    // every compile of that graph prints them.
    if (!cached.empty() && result.diagnostics.empty()) {
      stride::storeCachedModule(cached, result.module);
      if (path != "-" && stride::placeCachedModule(cached, path)) {
        rootTiming.stop();
        return 0;
      }
    }
  }
  if (!writeResult(path, result))
    return 1;
  rootTiming.stop();
  return 0;
}
