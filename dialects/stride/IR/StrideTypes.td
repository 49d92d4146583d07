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

    **Symbolic sizes.** A size, a stride or the offset may be an expression
    of named symbols (`batch`, `seq`), a polynomial with integer
    coefficients (`#stride.size`): a stride is a product of sizes. The
    shape is then written as a bracketed list, and strides and the offset
    stay explicit:

    ```
    tensor-type ::= `!stride.tensor<` `[` size-expr-list `]` `,` element-type
                    (`,` `strides` `=` `[` size-expr-list `]`)?
                    (`,` `offset` `=` size-expr)? `>`
    size-expr   ::= term ((`+` | `-`) term)*
    term        ::= factor (`*` factor)*
    factor      ::= integer | symbol-name | `(` size-expr `)`
    ```

    ```mlir
    !stride.tensor<[batch, seq, 768], f32>
    // prints as
    !stride.tensor<[batch, seq, 768], f32, strides = [seq*768, 768, 1], offset = 0>
    ```

    A type whose every expression is a constant is the static type (and
    prints as one). The function that uses a symbol declares it with its
    range in `stride.symbols`; `getShape()`, `getStrides()` and
    `getOffset()` hold `ShapedType::kDynamic` where an entry is symbolic,
    and passes that assume static shapes run only after
    `stride-check-symbolic-sizes` (python-free-docs/symbolic-sizes.md).
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t">:$strides,
    "int64_t":$offset,
    // Symbolic sizes: every size, stride and the offset as an expression
    // (constants included); empty and null for a static type.
    OptionalArrayRefParameter<"::stride::SizeExprAttr">:$symbolicShape,
    OptionalArrayRefParameter<"::stride::SizeExprAttr">:$symbolicStrides,
    OptionalParameter<"::stride::SizeExprAttr">:$symbolicOffset
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "::mlir::Type":$elementType,
                     "::llvm::ArrayRef<int64_t>":$strides,
                     "int64_t":$offset), [{
      return $_get($_ctxt, shape, elementType, strides, offset,
                   ::llvm::ArrayRef<::stride::SizeExprAttr>(),
                   ::llvm::ArrayRef<::stride::SizeExprAttr>(),
                   ::stride::SizeExprAttr());
    }]>,
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$elementType,
                                        "const ::stride::Layout &":$layout), [{
      return $_get(elementType.getContext(), layout.shape, elementType,
                   layout.strides, layout.offset,
                   ::llvm::ArrayRef<::stride::SizeExprAttr>(),
                   ::llvm::ArrayRef<::stride::SizeExprAttr>(),
                   ::stride::SizeExprAttr());
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

    /// True when a size, a stride or the offset is a symbol expression.
    bool isSymbolic() const;
    /// The layout with every entry as an expression (constants for a
    /// static type).
    ::stride::SymbolicLayout getSymbolicLayout() const;
    /// The type of `layout`: the static type where every expression is a
    /// constant (so a type has one form), else a symbolic one.
    static StridedTensorType get(::mlir::Type elementType,
                                 const ::stride::SymbolicLayout &layout);
    static StridedTensorType
    getChecked(::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
               ::mlir::Type elementType,
               const ::stride::SymbolicLayout &layout);
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
