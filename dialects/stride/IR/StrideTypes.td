//===- StrideTypes.td - Types of the stride dialect --------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_TYPES_TD
#define STRIDE_TYPES_TD

include "StrideDialect.td"
include "mlir/IR/CommonTypeConstraints.td"

def Stride_StridedTensorType : TypeDef<Stride_Dialect, "StridedTensor"> {
  let mnemonic = "tensor";
  let summary = "a tensor with a shape, an element type and a strided layout";
  let description = [{
    A tensor of static shape whose logical element `(i_0, ..., i_{n-1})`
    lives at storage address `offset + sum_k i_k * strides[k]`, counted in
    elements.

    Grammar:

    ```
    tensor-type ::= `!stride.tensor<` (dim `x`)* element-type
                    (`,` `strides` `=` `[` stride-list `]`)?
                    (`,` `offset` `=` integer)? `>`
    ```

    A type written without strides is row-major contiguous; without an
    offset, the offset is 0. The printer always prints both, so the printed
    form is explicit and parses back to the same type:

    ```mlir
    !stride.tensor<4x13x33xf32>
    // prints as
    !stride.tensor<4x13x33xf32, strides = [429, 33, 1], offset = 0>
    ```

    Element types: `f16`, `bf16`, `f32`, `f64`, `i1`, `i8`, `i32`, `i64`.
    Dims are non-negative; strides and the offset are non-negative. A stride
    of 0 is a legal layout for a view (that is what `stride.expand` makes);
    functional ops must not produce one on a dim of size > 1 (see
    `stride-legalize-layouts`). Limits, so that a hostile graph cannot
    exhaust memory or overflow size arithmetic: the rank is at most 16, the
    product of the non-zero dims (the number of elements, for a tensor that
    has any) at most 2^40, and every address the layout reaches is below
    2^48.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t">:$strides,
    "int64_t":$offset
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 0;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$elementType,
                                        "const ::stride::Layout &":$layout), [{
      return $_get(elementType.getContext(), layout.shape, elementType,
                   layout.strides, layout.offset);
    }]>
  ];
  let extraClassDeclaration = [{
    /// A row-major contiguous tensor with offset 0.
    static StridedTensorType getContiguous(::llvm::ArrayRef<int64_t> shape,
                                           ::mlir::Type elementType);
    ::stride::Layout getLayout() const;
    int64_t getRank() const { return getShape().size(); }
    /// The element type as a DType (the verifier admits only those).
    ::stride::DType getDType() const;
    int64_t getNumElements() const;
    /// The same tensor with another layout of the same shape.
    StridedTensorType withLayout(const ::stride::Layout &layout) const;
    /// The same element type and the same addresses (stride::sameAddressing:
    /// the strides of dims of size 1 are not compared).
    bool isEquivalentTo(StridedTensorType other) const;
  }];
}

def Stride_AnyTensor : Type<CPred<"::llvm::isa<::stride::StridedTensorType>($_self)">,
    "stride tensor", "::stride::StridedTensorType">;

class Stride_TensorOf<list<Type> allowed, string what>
    : Type<And<[CPred<"::llvm::isa<::stride::StridedTensorType>($_self)">,
                SubstLeaves<"$_self",
                  "::llvm::cast<::stride::StridedTensorType>($_self).getElementType()",
                  AnyTypeOf<allowed>.predicate>]>,
           "stride tensor of " # what, "::stride::StridedTensorType">;

def Stride_FloatTensor : Stride_TensorOf<[F16, BF16, F32, F64],
    "floating-point values (f16, bf16, f32, f64)">;
def Stride_NumericTensor : Stride_TensorOf<[F16, BF16, F32, F64, I8, I32, I64],
    "numbers (f16, bf16, f32, f64, i8, i32, i64)">;
def Stride_IntOrBoolTensor : Stride_TensorOf<[I1, I8, I32, I64],
    "booleans or integers (i1, i8, i32, i64)">;
def Stride_BoolTensor : Stride_TensorOf<[I1], "booleans (i1)">;
def Stride_IndexTensor : Stride_TensorOf<[I32, I64], "indices (i32, i64)">;

/// All of the named stride-tensor operands/results have one element type.
class Stride_SameElementType<list<string> names>
    : AllMatchSameOperatorTrait<names,
        "::llvm::cast<::stride::StridedTensorType>($_self.getType())"
        ".getElementType()", "element type">;

#endif // STRIDE_TYPES_TD
