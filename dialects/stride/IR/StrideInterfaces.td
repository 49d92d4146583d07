//===- StrideInterfaces.td - Interfaces and traits --------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_INTERFACES_TD
#define STRIDE_INTERFACES_TD

include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Stride_ViewOpInterface : OpInterface<"ViewOpInterface"> {
  let cppNamespace = "::stride";
  let description = [{
    A view op aliases its operand: its result reads the operand's storage
    through a layout computed from the operand's layout. The computation is
    `inferResultLayout`, shared by the verifier (which rejects a declared
    result type that differs) and by passes that change an operand's layout
    and must re-infer the views built on it. The same view as a map of
    coordinates (which operand element a result element is, independent of
    layouts) is `getIndexMap`.
  }];
  let methods = [
    InterfaceMethod<"The result layout this view gives a source of layout "
                    "`source`, or an error message.",
      "::stride::ViewResult", "inferResultLayout",
      (ins "const ::stride::Layout &":$source)>,
    InterfaceMethod<"The operand this view aliases.",
      "::mlir::TypedValue<::stride::StridedTensorType>", "getSource", (ins),
      [{ return $_op.getInput(); }]>,
    InterfaceMethod<[{The view's index map: result element `c` is operand
      element `map(c)`. Its dims are the result's coordinates, its results
      the operand's; with the operand's layout it gives the result's
      (`address(result, c) == address(operand, map(c))`, which
      IndexMapsTest checks for every view). Null where no map exists:
      `as_strided` of an operand whose layout is not dense, where an
      address has no unique coordinates. Chains of views compose through
      `indexMapToBase` (IndexMaps.h); the kernel contract, the scheduler
      and the CUDA printer read coordinates through views only this way.}],
      "::mlir::AffineMap", "getIndexMap">,
    InterfaceMethod<[{The result layout this view gives a source whose
      sizes are symbolic (`stride/Support/SymbolicLayout.h`), proven for
      every value of the symbols in `table`, or an error message naming
      the values where it fails.}],
      "::stride::SymbolicViewResult", "inferSymbolicResultLayout",
      (ins "const ::stride::SymbolicLayout &":$source,
           "const ::stride::SymbolRanges &":$table)>,
  ];
  let verify = [{ return ::stride::detail::verifyViewOp($_op); }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Stride_ReductionCombiner : I32Enum<"ReductionCombiner",
    "how a reduction combines two elements", [
    I32EnumCase<"add", 0>, I32EnumCase<"mul", 1>,
    I32EnumCase<"max", 2>, I32EnumCase<"min", 3>,
    I32EnumCase<"logical_or", 4>, I32EnumCase<"argmax", 5>,
    I32EnumCase<"argmin", 6>]> {
  let cppNamespace = "::stride";
}

def Stride_ReductionOpInterface : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::stride";
  let description = [{
    A reduction (`sum`, `mean`, `prod`, `max`, `min`, `any`, `argmax`,
    `argmin`) folds the elements of `input` along the reduced dims with a
    combiner, starting from the combiner's identity; `mean` then divides by
    the number of elements folded. `argmax` and `argmin` fold (value,
    index) pairs and keep the index (their i64 result): the combiner's
    rule is in their op's description. The result drops the reduced dims,
    or keeps them as size 1 with `keepdim`. Passes, the kernel contract, the interpreter and the CUDA
    backend read reductions only through this interface.
  }];
  let methods = [
    InterfaceMethod<"The reduced tensor.",
      "::mlir::TypedValue<::stride::StridedTensorType>", "getInput", (ins),
      [{ return $_op.getInput(); }]>,
    InterfaceMethod<"The reduced dims, sorted ascending (by default, the "
                    "op's `dims` attribute sorted; argmax's and argmin's "
                    "one `dim`).",
      "::llvm::SmallVector<int64_t>", "getReducedDims", (ins), [{}],
      [{ return ::stride::detail::sortedDims($_op.getDims()); }]>,
    InterfaceMethod<"True when the reduced dims stay in the result with "
                    "size 1.",
      "bool", "getKeepdim", (ins), [{ return $_op.getKeepdim(); }]>,
    InterfaceMethod<"How two elements combine.",
      "::stride::ReductionCombiner", "getCombiner">,
    InterfaceMethod<"True when the folded value is divided by the number "
                    "of elements folded (`mean`).",
      "bool", "isAverage">,
    InterfaceMethod<"The combiner's identity for elements of type "
                    "`elementType`: the result over no elements (before "
                    "`mean`'s division). 0 for add, 1 for mul, the lowest "
                    "value (-inf for floats) for max, the highest (+inf) for "
                    "min, false for logical_or; for argmax and argmin, "
                    "max's and min's, the identity of the value half of "
                    "their (value, index) pairs.",
      "::mlir::TypedAttr", "getIdentity", (ins "::mlir::Type":$elementType),
      [{ return ::stride::reductionIdentity($_op.getCombiner(),
                                            elementType); }]>,
  ];
}

//===----------------------------------------------------------------------===//
// Indexed ops and index scatters
//===----------------------------------------------------------------------===//

def Stride_IndexedOpInterface : OpInterface<"IndexedOpInterface"> {
  let cppNamespace = "::stride";
  let description = [{
    An indexed op (`gather`, `index_select`, `scatter`, `scatter_add`,
    `index_add`) reads or writes `input` along `dim` at coordinates read
    from the tensor `index`. An index outside `[0, size(input, dim))` is a
    run-time error, so these ops are not speculatable: they have no memory
    effects, but a pass must not hoist one out of a guard.
  }];
  let methods = [
    InterfaceMethod<"The tensor indexed along `dim`.",
      "::mlir::TypedValue<::stride::StridedTensorType>", "getInput", (ins),
      [{ return $_op.getInput(); }]>,
    InterfaceMethod<"The tensor of indices (i32 or i64).",
      "::mlir::TypedValue<::stride::StridedTensorType>", "getIndex", (ins),
      [{ return $_op.getIndex(); }]>,
    InterfaceMethod<"The operand that holds the indices.",
      "::mlir::OpOperand &", "getIndexMutable", (ins),
      [{ return $_op.getIndexMutable(); }]>,
    InterfaceMethod<"The dim of `input` the indices select along.",
      "int64_t", "getDim", (ins), [{ return $_op.getDim(); }]>,
  ];
}

def Stride_IndexScatterOpInterface : OpInterface<"IndexScatterOpInterface",
    [Stride_IndexedOpInterface]> {
  let cppNamespace = "::stride";
  let description = [{
    An index scatter (`scatter`, `scatter_add`, `index_add`) is a copy of
    `input` into which the elements of `src` are written (or added) at
    coordinates whose `dim` is read from `index`. With an element index
    (`scatter`, `scatter_add`), `index` has `src`'s rank and element `i` of
    `src` goes to `i` with dim `dim` replaced by `index[i]`; with a slice
    index (`index_add`), `index` is 1-D and slice `k` of `src` along `dim`
    goes to slice `index[k]`.
  }];
  let methods = [
    InterfaceMethod<"The tensor whose elements are scattered.",
      "::mlir::TypedValue<::stride::StridedTensorType>", "getSrc", (ins),
      [{ return $_op.getSrc(); }]>,
    InterfaceMethod<"True when elements written to one position add up "
                    "(`scatter_add`, `index_add`); false when one of them "
                    "wins (`scatter`).",
      "bool", "isAccumulating">,
    InterfaceMethod<"True when `index` is 1-D and selects whole slices "
                    "along `dim` (`index_add`); false when it has one entry "
                    "per element of `src`.",
      "bool", "isSliceIndex">,
  ];
}

//===----------------------------------------------------------------------===//
// Traits
//===----------------------------------------------------------------------===//

/// Pointwise ops: every tensor operand and the result have one shape.
def Stride_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::stride";
}

/// Functional ops compute a fresh buffer from their operands; the layout
/// legalization pass checks their result layouts and fusion groups them.
def Stride_Functional : NativeOpTrait<"Functional"> {
  let cppNamespace = "::stride";
}

/// The op is a fused kernel (`stride.kernel`): a region of stride ops that
/// becomes one GPU kernel. Like a functional op's, its results are fresh
/// buffers; unlike one, it is not fused or outlined again.
def Stride_FusedKernel : NativeOpTrait<"FusedKernel"> {
  let cppNamespace = "::stride";
}

/// The op runs as a call of a vendor library routine (`stride.matmul`:
/// cuBLASLt). Like a functional op's, its result is a fresh buffer; unlike
/// one, it never joins a kernel: fusion treats it as a kernel boundary and
/// the plan turns it into a `plan.library_call`.
def Stride_LibraryCall : NativeOpTrait<"LibraryCall"> {
  let cppNamespace = "::stride";
}

#endif // STRIDE_INTERFACES_TD
