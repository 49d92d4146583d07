//===- Passes.td - Passes over the host plan ---------------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_PLAN_PASSES_TD
#define STRIDE_PLAN_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineExecutable : Pass<"stride-outline-executable", "::mlir::ModuleOp"> {
  let summary = "Move kernels into a plan.executable; the entry becomes a host plan";
  let description = [{
    Runs after `stride-schedule-kernels` on a module whose entry function
    (its only `func.func`) has every functional op inside a
    `stride.kernel`. Moves each kernel into `plan.executable
    @<entry>_kernels` (kernel names made unique there) and rewrites the
    entry into steps over explicit buffers: `plan.input` for each argument,
    one `plan.alloc` per kernel result (sized to its layout's storage,
    rounded up to 16 bytes), one `zeroed` `plan.alloc` per scratch buffer
    of the kernel's schedule, and a `plan.dispatch` per kernel in program
    order. Views outside kernels allocate nothing: a kernel reads its
    input through the view's layout in the buffer of the view's root. A
    returned reshape of a whole kernel result (row-major at both ends, as
    many elements: `isReshapeOfFreshBuffer`) is that result's buffer under
    the returned type. A buffer returned twice (the same value, or two
    shapes of it) gets a buffer of its own for the second result, filled by
    `plan.copy`.

    State (python-free-docs/state.md): an argument with `stride.state`
    becomes a `plan.state` (and leaves the arguments); a result with
    `stride.writes` leaves the results and writes its argument's storage:
    in place when it is the result of a `scatter`-scheme kernel whose index
    scatter reads that argument as its input and nothing later reads the
    argument's old value (the result's buffer is the argument's, and the
    kernel's phase-0 launch, the copy of its input, is dropped: only the
    new positions are written); in place too when it is the result of a
    kernel that does not read that argument at all, of its type, with no
    later reader of the old value (the kernel writes every element); a
    result written back to several arguments goes in place into the
    first; else by a `plan.copy` at the end. A mutated input's
    `plan.input` is `written`.

    A collective (`stride.all_reduce`, `all_gather`, `reduce_scatter`)
    becomes a `plan.collective` step from its input's buffer (at the
    input's byte offset) into a `plan.alloc` of its own, run by the
    runtime through NCCL. NCCL reads and writes contiguous elements, the
    ranks' blocks one after the other: an input or result that is not
    row-major contiguous, or a gather or scatter along a dim inside outer
    dims of more than one element, is an error at the collective.

    ```mlir
    %1 = plan.alloc 256 bytes
    plan.collective all_reduce reduction sum %0[0] to %1 count 64 x f32
        world_size 2
    ```

    ```mlir
    // a decode step: the cache updated in place at one position
    %cache = plan.state "k_cache" init dense<0.0> : tensor<1x2x8x4xf32>
        as !stride.tensor<1x2x8x4xf32> written
    plan.dispatch @step_kernels::@scatter_kernel(%cache, %pos, %k, %cache)
    ```

    Before:

    ```mlir
    func.func @graph(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
      %0 = stride.kernel "neg" ins(%x : !stride.tensor<4xf32>)
          -> (!stride.tensor<4xf32>) attributes {stride.schedule = ...} {...}
      return %0 : !stride.tensor<4xf32>
    }
    ```

    After:

    ```mlir
    plan.executable @graph_kernels {
      stride.kernel "neg" -> (!stride.tensor<4xf32>)
          attributes {stride.schedule = ...} {...}
    }
    func.func @graph(%x: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
      %0 = plan.input %x : !stride.tensor<4xf32>
      %1 = plan.alloc 16 bytes
      plan.dispatch @graph_kernels::@neg(%0, %1)
      %2 = plan.output %1 : !stride.tensor<4xf32>
      return %2 : !stride.tensor<4xf32>
    }
    ```

    Each `stride.matmul` becomes `plan.library_call "cublaslt.matmul"` on
    the buffers of its operands, a `plan.alloc` for its result and the
    library's workspace (32 MiB, allocated at the first call and used by
    all: the steps run in order on one stream), with the descriptor of
    python-free-docs/matmul.md: PyTorch's
    row-major product in cuBLASLt's column-major terms (the operands
    swapped), the transpose flags, leading dimensions and batch strides of
    the op's `lhs_layout` / `rhs_layout` (run `stride-matmul-layout`
    first), the operands' offsets, the epilogue, and the compute type
    (`32f`, `32f_fast_tf32` for f32 with `allow-tf32`, or `64f`):

    ```mlir
    %2 = plan.alloc 80 bytes
    %3 = plan.alloc 33554432 bytes
    plan.library_call "cublaslt.matmul"(%1, %0, %2, %3) descriptor {
        dtype = "f32", compute = "32f", m = 5, n = 4, k = 8, batch = 1,
        transa = 1, transb = 0, lda = 8, ldb = 8, ldd = 5, ...}
    ```

    A functional op outside a kernel, a matmul without its operand
    layouts, or a returned value that no kernel or library call writes (an
    argument, or a view of part of a buffer), is an error at its location.

    **Translation units.** Each `plan.executable` is one translation unit
    for NVRTC, and the compiler runs NVRTC on the units in parallel (one
    thread each, `stridec -j`). With `unit-ops` = N > 0, the graph's T
    kernel ops (the ops inside the kernels' bodies) make k = T / N units,
    rounded down, at least 1 and at most 16, of about T / k ops each: the
    kernels go, in program order, into an executable until it holds its
    share of the ops left (ceil(left / units left)), then into the next. So
    units hold at least N ops, none is a small remainder, and a graph of
    fewer than 2N ops stays one unit: NVRTC spends 0.04-0.1 s of CPU per unit before compiling
    anything, so units are few and large. With several units the executables are
    `@<entry>_kernels_0`, `@<entry>_kernels_1`, ..., kernel names stay
    unique across them, and the split depends only on the IR (never on the
    thread count), so the module is the same however many threads compile
    it. `unit-ops=0` puts every kernel into one executable.

    ```mlir
    // unit-ops=2, kernels of 1, 2, 1 and 1 ops: T = 5, k = 2 units of 3
    plan.executable @graph_kernels_0 { stride.kernel "neg_0" ...
                                       stride.kernel "add_1" ... }
    plan.executable @graph_kernels_1 { stride.kernel "exp_2" ...
                                       stride.kernel "neg_3" ... }
    ```
  }];
  let dependentDialects = ["::stride::plan::PlanDialect"];
  let options = [
    Option<"allowTf32", "allow-tf32", "bool", /*default=*/"false",
           "f32 matrix products may compute with TF32 tensor cores "
           "(compute = \"32f_fast_tf32\"); otherwise full f32, as "
           "PyTorch's default">,
    Option<"unitOps", "unit-ops", "int64_t",
           /*default=*/"::stride::plan::kDefaultUnitOps",
           "Kernel ops per plan.executable (NVRTC translation unit), at "
           "least: a graph of T kernel ops makes T / unit-ops units (at "
           "most 16) of equal size; 0: one unit">,
  ];
}

def GroupLaunches : Pass<"stride-group-launches", "::mlir::ModuleOp"> {
  let summary = "Launch independent small kernels together, as one grid";
  let description = [{
    Runs after `stride-outline-executable` (once the in-place state writes
    have dropped their copy launches) and before `stride-reuse-buffers`.
    A kernel launch costs about 2.7 us of a CUDA graph's chain of
    dependent launches on an H200 even when it does almost nothing
    (bench/NOTES.md section 75): a decode step's position, mask and angle
    kernels, or its two rotary kernels, each a few blocks, are such
    launches. This pass puts several of them into one launch: a *launch
    group* is a `stride.kernel` of scheme `launch_group` in the
    executable whose body holds the member kernels (each unchanged, with
    its own schedule) and yields their results; its one launch has the
    members' grids one after another (member 0 takes blocks
    `[0, g0)`, member 1 `[g0, g0 + g1)`, ...), and each block runs its
    member's code with the block index and grid size of its own launch
    (python-free-docs/plan.md and cuda-backend.md, "Launch groups"). One
    `plan.dispatch` of the group replaces the members' dispatches: its
    buffers are the members' inputs, in member order, then their results.

    A dispatch may join a group when its kernel has one launch (a scatter
    written in place has only its update launch), no scratch, no cluster,
    no `min_blocks`, no symbolic sizes and no `when` guard, is of a scheme
    that declares little static shared memory (`grid_stride`,
    `vectorized`, `scatter`, `reduction_inner`, `reduction_outer`,
    `row_registers`, `row_reread`: the members' `__shared__` arrays add up
    in the group's launch, which may hold 48 KiB), has the
    block shape of the group's members, and the group's blocks stay
    within `max-blocks` (one wave: every block of the group runs at once).
    The group sits where its first member was, and a later dispatch joins
    it only if it can run there: no step between the two writes a buffer
    it reads, or reads or writes a buffer it writes, and none is a step
    the pass does not look into (a library call, a collective, a copy, a
    fill, an event). The members of a group are so independent of each
    other, and each reads what it read before. A dispatch joins the
    earliest group it can; at most `max-kernels` share one.

    ```mlir
    // before: two kernels that read only the step's position
    plan.dispatch @step_kernels::@iota_add(%pos, %3)
    plan.dispatch @step_kernels::@rotary(%qkv, %cos, %sin, %4)
    plan.dispatch @step_kernels::@full_add(%pos, %5)
    // after
    plan.dispatch @step_kernels::@launch_group(%pos, %pos, %3, %5)
    plan.dispatch @step_kernels::@rotary(%qkv, %cos, %sin, %4)
    ```
  }];
  let dependentDialects = ["::stride::plan::PlanDialect"];
  let options = [
    Option<"maxBlocks", "max-blocks", "int64_t", /*default=*/"132",
           "The most blocks of one group's launch (the GPU's "
           "multiprocessors: one wave)">,
    Option<"maxKernels", "max-kernels", "int64_t", /*default=*/"8",
           "The most kernels in one group">,
  ];
}

def TriggerSmallSuccessors
    : Pass<"stride-trigger-small-successors", "::mlir::ModuleOp"> {
  let summary = "Let a kernel launch the small grid after it as it starts";
  let description = [{
    With dependent launches (sm_90) the grid after a kernel is launched
    once the kernel's blocks have all exited, unless they trigger it
    earlier (`griddepcontrol.launch_dependents`); it then waits in its
    code (`griddepcontrol.wait`) until the kernel has ended and its writes
    are visible, so an early trigger changes when the next grid is placed,
    never what it reads. This pass marks (`plan.trigger_dependents`) each
    kernel of one launch whose every dispatch is followed, as the next
    step, by the dispatch of a kernel whose launches have at most
    `max-blocks` blocks: the small grid (a norm, a rotary kernel, a launch
    group) is then resident and waiting when the kernel ends, instead of
    being launched then. Large successors are not triggered early: their
    waiting blocks would hold the multiprocessors the running kernel needs
    (`stridec --early-launch`, which triggers every grid early, made a
    decode step slower; bench/NOTES.md section 63). The CUDA backend
    prints `stride_trigger_dependents()` at the start of a marked kernel
    (python-free-docs/cuda-backend.md, "The kernel ABI").

    ```mlir
    plan.dispatch @k::@matmul_2(%x, %w, %y)   // @matmul_2 gets plan.trigger_dependents
    plan.dispatch @k::@norm(%y, %z)           // one block
    ```
  }];
  let dependentDialects = ["::stride::plan::PlanDialect"];
  let options = [
    Option<"maxBlocks", "max-blocks", "int64_t", /*default=*/"32",
           "The most blocks of a launch that a kernel lets start early">,
  ];
}

def KeepWeightsInL2 : Pass<"stride-keep-weights-in-l2", "::mlir::ModuleOp"> {
  let summary = "Keep the first weights of the skinny products in L2 from one run to the next";
  let description = [{
    A decode step reads every weight of the model once a run, far more
    bytes than the GPU's L2 holds, so without help nothing of one run's
    weights is left in L2 for the next. A launch may carry an L2
    access-policy window whose hits persist: those lines then stay in
    the part of L2 the runtime sets aside for persisting lines while the
    other weights stream through the rest, and every run after the first
    reads them from L2 (python-free-docs/plan.md, "Weights kept in L2").

    This pass spends a budget of `bytes` on the weights of the plan's
    skinny products (kernels of scheme `skinny_matmul`, whose largest
    constant operand is the weight they stream), in the plan's order: each
    such dispatch, until the budget is spent, gets a window over its
    weight's first bytes (all of it where the budget allows,
    `l2_resident_operand` and `l2_resident_bytes`). A kernel dispatched
    twice over one constant gets one window. With `bytes` 0 (the
    default) it marks nothing.

    Every byte kept saves the same DRAM read, whichever weight it is; the
    plan's order keeps the choice simple to predict (bench/decode's step:
    the first layer's Q/K/V weight). The runtime sets the L2 aside and
    scales the windows' hit ratio to what the device allows.

    ```mlir
    plan.dispatch @k::@matmul_3(%x, %wqkv, %qkv)
        {l2_resident_operand = 1 : i64, l2_resident_bytes = 33554432 : i64}
    ```
  }];
  let dependentDialects = ["::stride::plan::PlanDialect"];
  let options = [
    Option<"bytes", "bytes", "int64_t", /*default=*/"0",
           "The weight bytes to keep in L2 across runs (0: none)">,
  ];
}

def ReuseBuffers : Pass<"stride-reuse-buffers", "::mlir::func::FuncOp"> {
  let summary = "Place the plan's buffers in one arena, sharing bytes by lifetime";
  let description = [{
    Every `plan.alloc` that is not `zeroed` (the temporaries and the graph
    outputs) gets an offset in the invocation's arena (`at arena N`). A
    buffer is live from the first step that uses it to the last one, a
    graph output to the end of the plan. The largest buffer is placed
    first, each at the lowest offset (a multiple of 256 bytes) where it
    meets no placed buffer whose lifetime overlaps its own (greedy by
    size, as TensorFlow Lite's arena planner and XLA's heap simulator
    do). So buffers of disjoint lifetimes share bytes whatever their
    sizes, a graph output takes the bytes of temporaries that died before
    it was written (a model's logits, the attention scores' bytes), and
    no step ever reads and writes one byte through two buffers. The arena
    is one allocation of the largest `offset + size`; a `zeroed` buffer
    (scratch whose zeros carry across runs) keeps storage of its own.

    With `collective-lifetimes` (set where `stride-overlap-collectives`
    runs after it), a `plan.collective`'s input lives on to the first step
    after it that reads its output (to the end of the plan when none
    does): the collective may then still be reading it on the collective
    stream, so no step in between takes its bytes.

    Records the function's `plan.reuse` attribute (`temporaries` and
    their `bytes`, `outputs` in the arena and their `output_bytes`,
    `arena_bytes`); `stridec --inspect` shows the arena.

    ```mlir
    %0 = plan.alloc 64 bytes at arena 0
    plan.dispatch @k::@a(%in, %0)
    %1 = plan.alloc 64 bytes at arena 256
    plan.dispatch @k::@b(%0, %1)
    %2 = plan.alloc 64 bytes at arena 0    // %0's bytes: %0 is dead
    plan.dispatch @k::@c(%1, %2)
    ```
  }];
  let dependentDialects = ["::stride::plan::PlanDialect"];
  let options = [
    Option<"collectiveLifetimes", "collective-lifetimes", "bool",
           /*default=*/"false",
           "A collective's input lives until the first step that reads its "
           "output (the collective may run beside the steps in between)">,
  ];
}

def OverlapCollectives
    : Pass<"stride-overlap-collectives", "::mlir::func::FuncOp"> {
  let summary = "Run the plan's collectives on a second stream, beside the "
                "steps that do not depend on them";
  let description = [{
    Runs after `stride-reuse-buffers` (it reads the arena's offsets). Each
    `plan.collective` moves to the invocation's collective stream (`on
    collective stream`), which runs the collectives in plan order (the
    same order on every rank, as NCCL needs), and the two streams are
    ordered by events:

    - **Fork**: the collective waits (`plan.wait_event ... on collective
      stream`) for an event recorded on the invocation's stream right after
      the last step before it that writes bytes of its input, or reads or
      writes bytes of its output, unless the collective stream already
      waited for a later point. The collective stream's first wait is for
      an event recorded at the plan's start when no step conflicts.
    - **Completion**: after each collective, `plan.record_event on
      collective stream`.
    - **Join**: the first step after the collective (on the invocation's
      stream) that reads or writes bytes of its output, or writes bytes of
      its input, first waits (`plan.wait_event`) for the completion event
      of the latest collective it conflicts with (the earlier ones are
      complete by then: one stream runs them in order). The end of the
      plan waits for the last collective that no step waited for.

    Two buffers conflict when they are the same buffer, or both in the
    arena with overlapping bytes (`at arena`): a later tenant of a
    collective's bytes waits for it. A dispatch reads its kernel's inputs
    and writes its results and scratch; a library call is taken to read
    and write all its buffers; a copy reads its source and writes its
    target; a fill writes its buffer.

    ```mlir
    // before
    plan.dispatch @k::@grad0(%x, %g0)
    plan.collective all_reduce reduction avg %g0[0] to %r0 count 64 x f32
        world_size 2
    plan.dispatch @k::@grad1(%x, %g1)      // independent of the all-reduce
    plan.copy %r0 to %out size 256         // reads its output

    // after
    plan.dispatch @k::@grad0(%x, %g0)
    %0 = plan.record_event
    plan.wait_event %0 on collective stream
    plan.collective all_reduce reduction avg %g0[0] to %r0 count 64 x f32
        world_size 2 on collective stream
    %1 = plan.record_event on collective stream
    plan.dispatch @k::@grad1(%x, %g1)
    plan.wait_event %1
    plan.copy %r0 to %out size 256
    ```

    `stridec --no-overlap-collectives` leaves it out of the pipeline: the
    collectives then run on the invocation's stream between the steps
    around them.
  }];
  let dependentDialects = ["::stride::plan::PlanDialect"];
}

def ShareIndexAnalysis
    : Pass<"stride-share-index-analysis", "::mlir::ModuleOp"> {
  let summary = "Index_adds over one index tensor share one index analysis";
  let description = [{
    A default-mode `segmented_index_add` kernel (python-free-docs/cuda-backend.md)
    first analyses its index: phase 1 counts each row's source positions,
    keeps the first `bucket` of them in the row's bucket and the others in
    the row's pages, in its first scratch buffers (counts, buckets, and,
    where a row can outgrow its bucket, the pages' hash table and the
    pages); its phase 2 reads them and zeroes the counts, cursors and
    table. Two or more such
    dispatches of one function whose index is a kernel input bound to the
    same buffer, read at the same type, with the same row count and
    bucket, need the same analysis: the first keeps it (`index_analysis =
    first`: it ranks, and leaves the counts), the others bind its buffers
    in place of their own (whose allocs go) and run no phase 1 (`reused`,
    or `last` for the last one, which zeroes the counts, cursors and table
    as it reads them), so the scratch is zeroed again when the plan ends. Each
    keeps its own partial sums and progress counters. A kernel dispatched
    more than once, a deterministic one (whose sort is not shared) and one
    whose index is computed in the kernel keep their own analysis.

    Runs after `stride-place-constants` (an index that is a large constant
    is then a `plan.constant`, one buffer per distinct constant) and
    before `stride-reuse-buffers` (until then a buffer holds one value, so
    one buffer means one index).

    ```mlir
    %c0 = plan.alloc 200 bytes zeroed      // counts and buckets of @a
    %c1 = plan.alloc 6400 bytes zeroed
    plan.dispatch @k::@a(%idx, %src, %x, %out0, %c0, %c1)  // first
    plan.dispatch @k::@b(%idx, %src2, %y, %out1, %c0, %c1) // last
    ```
  }];
  let dependentDialects = ["::stride::plan::PlanDialect"];
}

def PlaceConstants : Pass<"stride-place-constants", "::mlir::ModuleOp"> {
  let summary = "Move large constants out of kernels into the plan's constants";
  let description = [{
    A `stride.constant` inside an outlined kernel with more than
    `max-inline-elements` elements, or one the kernel only writes out (a
    bias that `stride-fold-constants` computed, whatever its size), becomes
    an input of the kernel (a new body argument of its type, after the
    others) and a `plan.constant` of the host plan, passed by every
    dispatch of the kernel; equal constants share one buffer. Other small
    constants stay in the kernel, where the CUDA printer makes them
    literals. A constant marked `stride.preload` (stride-schedule-kernels:
    the kernel loads it before its wait) becomes an input listed in the
    kernel's `stride.read_only_inputs`.

    A kernel left with nothing but its yield of such constants (a weight
    that no fusion took in) is not dispatched: its results' readers read
    the constant buffers, which no step writes, so the weight is neither
    copied on every run nor held twice. A result the graph returns keeps
    its copy, since a returned value owns its buffer.

    ```mlir
    // in the kernel:  %w = stride.constant dense<...> : tensor<4096xf32> : ...
    // in the plan:    %c = plan.constant dense<...> : tensor<4096xf32>
    //                 plan.dispatch @k::@scale(%in, %c, %out)
    ```
  }];
  let dependentDialects = ["::stride::plan::PlanDialect"];
  let options = [
    Option<"maxInlineElements", "max-inline-elements", "int64_t",
           /*default=*/"64",
           "Constants with more elements than this leave their kernel "
           "(a constant the kernel only yields leaves it at any size)">,
  ];
}

#endif // STRIDE_PLAN_PASSES_TD
