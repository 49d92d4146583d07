//===- PlanOps.td - The plan dialect: host programs ---------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The host side of a compiled graph as IR: an executable holding the
// outlined kernels, and the entry function as a program of steps over
// explicit buffers. python-free-docs/plan.md describes the dialect and its passes.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_PLAN_OPS_TD
#define STRIDE_PLAN_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "dialects/stride/IR/StrideCollectiveEnums.td"

def Plan_Dialect : Dialect {
  let name = "plan";
  let cppNamespace = "::stride::plan";
  let summary = "The host program of a compiled graph: steps over explicit buffers";
  let description = [{
    After fusion and scheduling, `stride-outline-executable` moves every
    `stride.kernel` into a `plan.executable` (a symbol table: kernel names
    are unique there) and turns the entry function into a host program:
    buffers (`plan.input`, `plan.alloc`, `plan.constant`, `plan.state`),
    steps over them
    in order (`plan.dispatch`, `plan.library_call`, `plan.collective`,
    `plan.fill`, `plan.copy`, and the events that fork and join the
    collective stream, `plan.record_event` and `plan.wait_event`), and
    `plan.output`, the tensors the function returns. The module file is a
    translation of this IR.
  }];
  let dependentDialects = ["::stride::StrideDialect"];
  let useDefaultTypePrinterParser = 1;
}

class Plan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plan_Dialect, mnemonic, traits>;

def Plan_BufferType : TypeDef<Plan_Dialect, "Buffer"> {
  let mnemonic = "buffer";
  let summary = "bytes of device memory";
  let description = [{
    A device buffer: a graph input's storage, a buffer the plan allocates,
    or a constant. Tensors live in buffers at the layout their type gives
    (element 0 of the storage at the buffer's start); the steps that use a
    buffer say which tensor it holds.
  }];
}

def Plan_EventType : TypeDef<Plan_Dialect, "Event"> {
  let mnemonic = "event";
  let summary = "a point in one of the invocation's streams";
  let description = [{
    What a stream has enqueued up to a `plan.record_event`; a
    `plan.wait_event` makes the other stream wait for it (a CUDA event).
  }];
}

def Plan_ExecutableOp : Plan_Op<"executable", [IsolatedFromAbove, SymbolTable,
    Symbol, NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "the device code of a graph: its outlined kernels";
  let description = [{
    Holds the graph's outlined `stride.kernel` regions, one GPU function
    each. It is a symbol table: each kernel's `sym_name` is unique here,
    and `plan.dispatch` names a kernel as `@executable::@kernel`. An
    outlined kernel has no operands: its body's arguments are its
    parameters, its result types the buffers it writes, its
    `stride.schedule` how it runs.

    ```mlir
    plan.executable @graph_kernels {
      stride.kernel "add" -> (!stride.tensor<4xf32>) attributes {
          stride.schedule = #stride.schedule<...>} {
      ^bb0(%a: !stride.tensor<4xf32>, %b: !stride.tensor<4xf32>):
        %s = stride.add %a, %b : ...
        stride.yield %s : !stride.tensor<4xf32>
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name)>];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def Plan_InputOp : Plan_Op<"input", [Pure]> {
  let summary = "the buffer that holds a graph input";
  let description = [{
    The caller's storage of entry argument `tensor`: element 0 of its
    layout is at the buffer's start. With `written`, the graph mutates the
    input: the plan's steps write the new value into this storage (in
    place, or with a `plan.copy` at the end), so the caller's buffer holds
    it when the run ends.

    ```mlir
    %in = plan.input %arg0 : !stride.tensor<4x13xf32>
    %x = plan.input %arg1 written : !stride.tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyType:$tensor, UnitAttr:$written);
  let results = (outs Plan_BufferType:$buffer);
  let assemblyFormat = "$tensor (`written` $written^)? attr-dict `:` type($tensor)";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$tensor, "bool":$written), [{
    build($_builder, $_state, BufferType::get($_builder.getContext()), tensor,
          written ? $_builder.getUnitAttr() : ::mlir::UnitAttr());
  }]>];
}

def Plan_StateOp : Plan_Op<"state"> {
  let summary = "a buffer that persists across runs: the graph's state";
  let description = [{
    The storage of state `name` (a KV cache, say), a tensor of type
    `tensor_type` (a `!stride.tensor`) at that layout. The invocation owns
    it: it holds `init` (row-major elements, like `plan.constant`'s) before
    the first run and keeps what the steps leave in it from one run to the
    next. With `written`, steps write it: a kernel that updates it in place
    (a scatter of the new positions, binding it as its result), or a
    `plan.copy` of its new value at the end.

    ```mlir
    %cache = plan.state "k_cache" init dense<0.0> : tensor<1x2x16x4xf32>
        as !stride.tensor<1x2x16x4xf32> written
    ```
  }];
  let arguments = (ins StrAttr:$name, ElementsAttr:$init, TypeAttr:$tensor_type,
                       UnitAttr:$written);
  let results = (outs Plan_BufferType:$buffer);
  let assemblyFormat = "$name `init` $init `as` $tensor_type (`written` $written^)? "
                       "attr-dict";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::ElementsAttr":$init,
                                 "::mlir::Type":$tensorType, "bool":$written), [{
    build($_builder, $_state, BufferType::get($_builder.getContext()),
          $_builder.getStringAttr(name), init,
          ::mlir::TypeAttr::get(tensorType),
          written ? $_builder.getUnitAttr() : ::mlir::UnitAttr());
  }]>];
}

/// A `#stride.size` (stride::SizeExprAttr): a byte count over symbolic
/// sizes.
def Plan_SizeExprAttr : Attr<CPred<"::llvm::isa<::stride::SizeExprAttr>($_self)">,
                             "a #stride.size expression"> {
  let storageType = "::stride::SizeExprAttr";
  let returnType = "::stride::SizeExprAttr";
  let convertFromStorage = "$_self";
}

/// A step guard (python-free-docs/symbolic-sizes.md, "Variants selected at
/// run time"): ranges of the function's symbols, each a `#stride.symbol`
/// whose range is the values the guard names.
def Plan_GuardAttr : TypedArrayAttrBase<
    Attr<CPred<"::llvm::isa<::stride::SymbolAttr>($_self)">,
         "a #stride.symbol range">,
    "ranges of symbols (#stride.symbol)">;

def Plan_AllocOp : Plan_Op<"alloc"> {
  let summary = "a buffer the plan allocates";
  let description = [{
    `size` bytes of device memory, owned by the invocation. With `zeroed`
    it holds zeros when the plan first runs and the steps that use it
    leave it zeroed when the plan ends (a kernel's scratch that it returns
    to zero); without, its contents are undefined until a step writes
    them.

    With `at arena <offset>` (set by `stride-reuse-buffers`) the buffer is
    the bytes `[offset, offset + size)` of the invocation's arena, one
    allocation as large as the largest `offset + size` of the function.
    Buffers whose lifetimes do not overlap may share arena bytes; a
    `zeroed` buffer is never in the arena. The offset is a multiple of
    256 bytes (kArenaAlignment).

    Over symbolic sizes (python-free-docs/symbolic-sizes.md), `size` is
    the bytes at the symbols' largest values, which the arena is planned
    for, and `sized` the bytes at run time:

    ```mlir
    %t = plan.alloc 256 bytes
    %u = plan.alloc 4096 bytes at arena 512
    %heads = plan.alloc 4096 bytes zeroed
    %rows = plan.alloc 262144 bytes sized #stride.size<rows*256>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<1>]>:$size,
                       OptionalAttr<Plan_SizeExprAttr>:$symbolic_size,
                       UnitAttr:$zeroed,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$arena_offset);
  let results = (outs Plan_BufferType:$buffer);
  let assemblyFormat = "$size `bytes` (`sized` $symbolic_size^)? "
                       "(`zeroed` $zeroed^)? "
                       "(`at` `arena` $arena_offset^)? attr-dict";
  let builders = [OpBuilder<(ins "int64_t":$size, "bool":$zeroed), [{
    build($_builder, $_state, BufferType::get($_builder.getContext()), size,
          /*symbolic_size=*/nullptr, zeroed,
          /*arena_offset=*/::mlir::IntegerAttr());
  }]>, OpBuilder<(ins "int64_t":$size, "::stride::SizeExprAttr":$symbolic_size), [{
    build($_builder, $_state, BufferType::get($_builder.getContext()), size,
          symbolic_size, /*zeroed=*/false,
          /*arena_offset=*/::mlir::IntegerAttr());
  }]>];
  let hasVerifier = 1;
}

def Plan_ConstantOp : Plan_Op<"constant", [Pure]> {
  let summary = "a buffer that holds constant data";
  let description = [{
    The tensor of type `tensor_type` (a `!stride.tensor`) whose elements
    are `value` (in row-major order, like `stride.constant`'s), stored in
    the module at that type's layout and uploaded once when it loads
    (`stride-place-constants` makes large `stride.constant`s such
    buffers).

    ```mlir
    %w = plan.constant dense<1.0> : tensor<1024x1024xf32>
        as !stride.tensor<1024x1024xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value, TypeAttr:$tensor_type);
  let results = (outs Plan_BufferType:$buffer);
  let assemblyFormat = "$value `as` $tensor_type attr-dict";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::ElementsAttr":$value,
                                 "::mlir::Type":$tensorType), [{
    build($_builder, $_state, BufferType::get($_builder.getContext()), value,
          ::mlir::TypeAttr::get(tensorType));
  }]>];
}

def Plan_DispatchOp : Plan_Op<"dispatch",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "run an outlined kernel on buffers";
  let description = [{
    Runs kernel `kernel` (`@executable::@kernel`) with its launches as its
    `stride.schedule` says. The buffers bind, in order, the kernel body's
    arguments (its inputs: each holds the tensor of the argument's type),
    its results, then its scratch buffers (as many as the schedule's
    `scratch`).

    ```mlir
    plan.dispatch @graph_kernels::@add(%a, %b, %sum)
    ```

    Over symbolic sizes a step may be one of two variants the plan selects
    at run time (python-free-docs/symbolic-sizes.md, "Variants selected at
    run time"): with `when`, it runs only where every symbol named lies in
    its range; with `unless`, only where some symbol named lies outside
    it. A dispatch and a library call that write one buffer under the
    same ranges, one `when` and one `unless`, are alternatives.

    ```mlir
    plan.dispatch @graph_kernels::@matmul_skinny(%x, %w, %y)
        {when = [#stride.symbol<"tokens", range = [1, 1]>]}
    plan.library_call "cublaslt.matmul"(%w, %x, %y, %ws) descriptor {...}
        {unless = [#stride.symbol<"tokens", range = [1, 1]>]}
    ```

    With `l2_resident_operand` and `l2_resident_bytes` (set by
    `stride-keep-weights-in-l2`; both or neither), the first
    `l2_resident_bytes` bytes of buffer `l2_resident_operand` (an index
    into `buffers`, a `plan.constant`) are to stay in the GPU's L2 cache
    from one run of the plan to the next: the launch carries an L2
    access-policy window over them whose hits persist, in the part of L2
    the runtime sets aside for persisting lines
    (python-free-docs/plan.md, "Weights kept in L2"). It changes where
    the bytes are read from, never what the kernel computes.

    ```mlir
    plan.dispatch @graph_kernels::@matmul_skinny(%x, %w, %y)
        {l2_resident_operand = 1, l2_resident_bytes = 33554432}
    ```
  }];
  let arguments = (ins SymbolRefAttr:$kernel, Variadic<Plan_BufferType>:$buffers,
                       OptionalAttr<Plan_GuardAttr>:$when,
                       OptionalAttr<Plan_GuardAttr>:$unless,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$l2_resident_operand,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$l2_resident_bytes);
  // A dispatch that runs always.
  let builders = [OpBuilder<(ins "::mlir::SymbolRefAttr":$kernel,
                                 "::mlir::ValueRange":$buffers), [{
    build($_builder, $_state, kernel, buffers, ::mlir::ArrayAttr(),
          ::mlir::ArrayAttr(), ::mlir::IntegerAttr(), ::mlir::IntegerAttr());
  }]>];
  let assemblyFormat = "$kernel `(` $buffers `)` attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The dispatched kernel, looked up from `symbols`; null when missing.
    ::stride::KernelOp lookupKernel(::mlir::SymbolTableCollection &symbols);
  }];
}

def Plan_LibraryCallOp : Plan_Op<"library_call"> {
  let summary = "call a routine of a vendor library on buffers";
  let description = [{
    Calls `routine` (a name of the runtime's registry of library
    routines, e.g. `cublaslt.matmul`) with the buffers, as `descriptor`
    (the routine's parameters: shapes, layouts, epilogue) says. The runtime
    loads the routine's library when it loads the module. Over symbolic
    sizes an integer parameter may be a `#stride.size` expression of the
    function's symbols, evaluated at every run
    (python-free-docs/symbolic-sizes.md), and the call may be a variant
    selected at run time (`when`, `unless`: as `plan.dispatch`'s).

    ```mlir
    plan.library_call "cublaslt.matmul"(%a, %b, %c) descriptor {m = 64 : i64}
    plan.library_call "cublaslt.matmul"(%a, %b, %c)
        descriptor {n = #stride.size<rows>, stride_d = #stride.size<rows*256>}
    ```
  }];
  let arguments = (ins StrAttr:$routine, DictionaryAttr:$descriptor,
                       Variadic<Plan_BufferType>:$buffers,
                       OptionalAttr<Plan_GuardAttr>:$when,
                       OptionalAttr<Plan_GuardAttr>:$unless);
  // A call that runs always.
  let builders = [OpBuilder<(ins "::llvm::StringRef":$routine,
                                 "::mlir::DictionaryAttr":$descriptor,
                                 "::mlir::ValueRange":$buffers), [{
    build($_builder, $_state, routine, descriptor, buffers,
          ::mlir::ArrayAttr(), ::mlir::ArrayAttr());
  }]>];
  let assemblyFormat = "$routine `(` $buffers `)` `descriptor` $descriptor attr-dict";
  let hasVerifier = 1;
}

def Plan_CollectiveOp : Plan_Op<"collective"> {
  let summary = "exchange a buffer with the other ranks of the group (NCCL)";
  let description = [{
    One NCCL collective, `kind`, over the group of `world_size` ranks, one process
    per GPU (python-free-docs/distributed.md): `all_reduce` (`count`
    elements, combined by `reduction`), `all_gather` (`count` elements from
    each rank, written in rank order: `world_size * count` elements), or
    `reduce_scatter` (`world_size * count` elements combined by
    `reduction`, of which rank `r` receives block `r`, `count` elements).
    `input` is read from its byte `input_offset` (a row-major view of a
    buffer), `output` is written from its start; both hold elements of
    `element_type`. The runtime runs it on the invocation's stream, or,
    with `on collective stream` (set by `stride-overlap-collectives`), on
    the invocation's collective stream, beside the other steps, and bounds
    its completion by the collective timeout.

    ```mlir
    plan.collective all_reduce reduction sum %x[0] to %y count 64 x f32
        world_size 2
    plan.collective all_gather %x[256] to %y count 16 x bf16 world_size 4
        on collective stream
    ```
  }];
  let arguments = (ins Stride_CollectiveOperation:$kind,
                       OptionalAttr<Stride_CollectiveReduction>:$reduction,
                       Plan_BufferType:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$input_offset,
                       Plan_BufferType:$output,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$count,
                       TypeAttr:$element_type,
                       ConfinedAttr<I64Attr, [IntMinValue<1>]>:$world_size,
                       UnitAttr:$collective_stream);
  let assemblyFormat = [{
    $kind (`reduction` $reduction^)? $input `[` $input_offset `]` `to`
    $output `count` $count `x` $element_type `world_size` $world_size
    (`on` `collective` `stream` $collective_stream^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The elements the step reads from `input` and writes to `output`.
    int64_t inputElements();
    int64_t outputElements();
  }];
}

def Plan_RecordEventOp : Plan_Op<"record_event"> {
  let summary = "mark what a stream has enqueued so far";
  let description = [{
    Records an event on the invocation's stream, or, with `on collective
    stream`, on its collective stream: the event completes when the steps
    enqueued on that stream before it have. With `plan.wait_event`, the
    fork and join of the collective stream (`stride-overlap-collectives`;
    python-free-docs/plan.md, "Streams").

    ```mlir
    %e = plan.record_event
    %done = plan.record_event on collective stream
    ```
  }];
  let arguments = (ins UnitAttr:$collective_stream);
  let results = (outs Plan_EventType:$event);
  let assemblyFormat = "(`on` `collective` `stream` $collective_stream^)? attr-dict";
  let builders = [OpBuilder<(ins "bool":$collectiveStream), [{
    build($_builder, $_state, EventType::get($_builder.getContext()),
          collectiveStream ? $_builder.getUnitAttr() : ::mlir::UnitAttr());
  }]>];
}

def Plan_WaitEventOp : Plan_Op<"wait_event"> {
  let summary = "make a stream wait for an event of the other";
  let description = [{
    The invocation's stream (or, with `on collective stream`, its
    collective stream) runs the steps after this one only once `event`
    has completed. The event is the other stream's: a stream waits for
    its own events by running in order.

    ```mlir
    %e = plan.record_event
    plan.wait_event %e on collective stream
    plan.collective all_reduce reduction avg %g[0] to %r count 64 x f32
        world_size 2 on collective stream
    %done = plan.record_event on collective stream
    plan.wait_event %done
    ```
  }];
  let arguments = (ins Plan_EventType:$event, UnitAttr:$collective_stream);
  let assemblyFormat = "$event (`on` `collective` `stream` $collective_stream^)? attr-dict";
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$event, "bool":$collectiveStream), [{
    build($_builder, $_state, event,
          collectiveStream ? $_builder.getUnitAttr() : ::mlir::UnitAttr());
  }]>];
}

def Plan_FillOp : Plan_Op<"fill"> {
  let summary = "set every byte of a buffer";
  let description = [{
    ```mlir
    plan.fill %t with 0
    ```
  }];
  let arguments = (ins Plan_BufferType:$buffer,
                       ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<255>]>:$byte);
  let assemblyFormat = "$buffer `with` $byte attr-dict";
}

def Plan_CopyOp : Plan_Op<"copy"> {
  let summary = "copy bytes from one buffer to another";
  let description = [{
    Copies the first `size` bytes of `source` to `target` (two different
    buffers); over symbolic sizes, `size` at the symbols' largest values
    and `sized` at run time.

    ```mlir
    plan.copy %a to %b size 64
    plan.copy %a to %b size 262144 sized #stride.size<rows*256>
    ```
  }];
  let arguments = (ins Plan_BufferType:$source, Plan_BufferType:$target,
                       ConfinedAttr<I64Attr, [IntMinValue<0>]>:$size,
                       OptionalAttr<Plan_SizeExprAttr>:$symbolic_size);
  let assemblyFormat = "$source `to` $target `size` $size "
                       "(`sized` $symbolic_size^)? attr-dict";
  let hasVerifier = 1;
}

def Plan_OutputOp : Plan_Op<"output", [Pure]> {
  let summary = "the tensor a buffer holds when the plan ends, to return";
  let description = [{
    The graph output that the entry function returns: the tensor of type
    `type` stored in `buffer` (element 0 of its layout at the buffer's
    start). Used only by `func.return`. The buffer is a `plan.alloc` of its
    own, or a `plan.input` that no step writes: an aliased output, the
    caller's input (or a view of it: the type's layout addresses the
    input's storage) handed back without a copy. An aliased output has the
    input's element type and reaches no element past the input's storage.

    ```mlir
    %r = plan.output %out : !stride.tensor<4x33xf32>
    %in = plan.input %arg0 : !stride.tensor<4x33xf32>
    %t = plan.output %in : !stride.tensor<33x4xf32, strides = [1, 33]>
    return %r, %t : !stride.tensor<4x33xf32>, !stride.tensor<33x4xf32, strides = [1, 33]>
    ```
  }];
  let arguments = (ins Plan_BufferType:$buffer);
  let results = (outs AnyType:$tensor);
  let assemblyFormat = "$buffer attr-dict `:` type($tensor)";
  let hasVerifier = 1;
}

#endif // STRIDE_PLAN_OPS_TD
