//===- StrideOps.td - Ops of the stride dialect ------------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_OPS_TD
#define STRIDE_OPS_TD

include "StrideDialect.td"
include "StrideTypes.td"
include "StrideInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

//===----------------------------------------------------------------------===//
// View ops
//===----------------------------------------------------------------------===//

class Stride_ViewOp<string mnemonic, string operandFormat, list<Trait> traits = []>
    : Stride_Op<mnemonic, traits # [Pure,
        DeclareOpInterfaceMethods<Stride_ViewOpInterface,
                                  ["inferResultLayout", "getIndexMap",
                                   "inferSymbolicResultLayout"]>]> {
  let results = (outs Stride_AnyTensor:$result);
  let assemblyFormat = "$input " # operandFormat #
                       " attr-dict `:` type($input) `->` type($result)";
}

def Stride_ExpandOp : Stride_ViewOp<"expand", ""> {
  let summary = "broadcast dims of size 1 (and new leading dims) with stride 0";
  let description = [{
    `torch.Tensor.expand`. The result shape is the result type's shape. New
    leading dims and operand dims of size 1 get stride 0, so every element
    along them reads the same address; other dims keep size and stride.

    ```mlir
    %e = stride.expand %g : !stride.tensor<4x1x33xf32>
        -> !stride.tensor<4x13x33xf32, strides = [33, 0, 1], offset = 0>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input);
}

def Stride_UnsqueezeOp : Stride_ViewOp<"unsqueeze", "`dim` $dim"> {
  let summary = "insert a dim of size 1";
  let description = [{
    `torch.unsqueeze(input, dim)` with `0 <= dim <= rank`. The new dim's
    stride is `size[dim] * stride[dim]` of the dim it precedes, or 1 at the
    end, as in PyTorch.

    ```mlir
    %u = stride.unsqueeze %g dim 1 : !stride.tensor<4x33xf32>
        -> !stride.tensor<4x1x33xf32, strides = [33, 33, 1], offset = 0>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, I64Attr:$dim);
}

def Stride_SqueezeOp : Stride_ViewOp<"squeeze", "`dims` $dims"> {
  let summary = "remove dims of size 1";
  let description = [{
    `torch.squeeze(input, dims)`. Each listed dim must have size 1 (unlike
    PyTorch, which silently keeps a listed dim of another size: Stride treats
    that as a mistake in the graph).

    ```mlir
    %s = stride.squeeze %x dims [1] : !stride.tensor<4x1x33xf32>
        -> !stride.tensor<4x33xf32, strides = [33, 1], offset = 0>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, DenseI64ArrayAttr:$dims);
}

def Stride_PermuteOp : Stride_ViewOp<"permute", "`dims` $dims"> {
  let summary = "reorder the dims";
  let description = [{
    `torch.permute(input, dims)`: result dim `i` is operand dim `dims[i]`.

    ```mlir
    %t = stride.permute %x dims [0, 2, 1] : !stride.tensor<2x3x4xf32>
        -> !stride.tensor<2x4x3xf32, strides = [12, 1, 4], offset = 0>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, DenseI64ArrayAttr:$dims);
}

/// A #stride.size (StrideAttrs.td, generated apart from the ops).
def Stride_SizeExprAttrRef : Attr<
    CPred<"::llvm::isa<::stride::SizeExprAttr>($_self)">,
    "a size expression of symbols"> {
  let storageType = "::stride::SizeExprAttr";
  let returnType = "::stride::SizeExprAttr";
  let convertFromStorage = "$_self";
}

def Stride_SliceOp : Stride_ViewOp<"slice",
    "`dim` $dim `start` custom<SliceBound>($start, $symbolic_start) "
    "`end` custom<SliceBound>($end, $symbolic_end) `step` $step"> {
  let summary = "take every step-th index of [start, end) on one dim";
  let description = [{
    `input[..., start:end:step, ...]` on `dim`, with
    `0 <= start <= end <= size` and `step >= 1` (no clamping and no negative
    indices: an importer normalizes them). The offset moves by
    `start * stride[dim]` and the stride is multiplied by `step`.

    ```mlir
    %s = stride.slice %x dim 1 start 2 end 8 step 2 : !stride.tensor<4x10xf32>
        -> !stride.tensor<4x3xf32, strides = [10, 2], offset = 2>
    ```

    Over symbolic sizes (python-free-docs/symbolic-sizes.md) a bound may be
    a size expression of the function's symbols, written as in a tensor
    type; `0 <= start <= end <= size` must then hold for every value of the
    symbols in their ranges, and a slice whose length `end - start` is
    symbolic takes step 1. The result's size is `end - start`, its offset
    moves by `start * stride[dim]` as an expression:

    ```mlir
    %s = stride.slice %x dim 1 start 1 end s + 1 step 1
        : !stride.tensor<[b, s + 1], i64>
        -> !stride.tensor<[b, s], i64, strides = [s + 1, 1], offset = 1>
    ```

    A symbolic bound is held in `symbolic_start` / `symbolic_end`, with
    `start` / `end` then `ShapedType::kDynamic`, as the tensor type marks a
    symbolic size; a bound that is a constant is always the static one.
  }];
  let arguments = (ins Stride_AnyTensor:$input, I64Attr:$dim, I64Attr:$start,
                       I64Attr:$end, I64Attr:$step,
                       OptionalAttr<Stride_SizeExprAttrRef>:$symbolic_start,
                       OptionalAttr<Stride_SizeExprAttrRef>:$symbolic_end);
  let builders = [
    // Bounds as expressions: each static where it is a constant.
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$input,
                   "int64_t":$dim, "const ::stride::SizeExpr &":$start,
                   "const ::stride::SizeExpr &":$end, "int64_t":$step)>,
    // Static bounds.
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$input,
                   "::mlir::IntegerAttr":$dim, "::mlir::IntegerAttr":$start,
                   "::mlir::IntegerAttr":$end, "::mlir::IntegerAttr":$step), [{
      build($_builder, $_state, type, input, dim, start, end, step, nullptr,
            nullptr);
    }]>,
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$input,
                   "uint64_t":$dim, "uint64_t":$start, "uint64_t":$end,
                   "uint64_t":$step), [{
      build($_builder, $_state, type, input, dim, start, end, step, nullptr,
            nullptr);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The bounds as expressions (a constant for a static bound).
    ::stride::SizeExpr getStartExpr();
    ::stride::SizeExpr getEndExpr();
    /// Sets the bounds, each static where it is a constant.
    void setBounds(const ::stride::SizeExpr &start,
                   const ::stride::SizeExpr &end);
    /// Whether a bound is an expression of symbols.
    bool hasSymbolicBounds() {
      return getSymbolicStartAttr() || getSymbolicEndAttr();
    }
  }];
  let hasVerifier = 1;
}

def Stride_SelectOp : Stride_ViewOp<"select", "`dim` $dim `index` $index"> {
  let summary = "take one index of a dim and drop the dim";
  let description = [{
    `torch.select(input, dim, index)` with `0 <= index < size[dim]`.

    ```mlir
    %r = stride.select %x dim 1 index 3 : !stride.tensor<4x16x8xf32>
        -> !stride.tensor<4x8xf32, strides = [128, 1], offset = 24>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, I64Attr:$dim, I64Attr:$index);
}

def Stride_ViewOp : Stride_ViewOp<"view", ""> {
  let summary = "reinterpret the shape without a copy";
  let description = [{
    `torch.Tensor.view(shape)` with the result type's shape: the number of
    elements is kept, and the operand's strides must allow the new shape
    without a copy (PyTorch's rule); otherwise the graph must `clone` first.

    ```mlir
    %v = stride.view %x : !stride.tensor<4x6xf32>
        -> !stride.tensor<2x2x6xf32, strides = [12, 6, 1], offset = 0>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input);
}

def Stride_AsStridedOp : Stride_ViewOp<"as_strided", ""> {
  let summary = "read the operand's storage through an explicit layout";
  let description = [{
    `torch.as_strided(input, size, stride, storage_offset)`, with size,
    stride and offset taken from the result type. The layout is absolute in
    the operand's storage (the offset is not relative to the operand's).
    Every address the result reaches must lie within the addresses the
    operand reaches, `[offset, offset + largest address]`, so the view never
    reads memory the graph does not own. Overlapping results are legal: a
    view may read one address many times.

    ```mlir
    %w = stride.as_strided %x : !stride.tensor<8xf32>
        -> !stride.tensor<3x4xf32, strides = [2, 1], offset = 0>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input);
}

//===----------------------------------------------------------------------===//
// Pointwise ops
//===----------------------------------------------------------------------===//

/// Ops that may fail at run time (an integer division by zero, an index out
/// of range): they have no memory effects, but are not speculatable, so no
/// pass hoists one out of a guard or computes it where the graph does not.
defvar Stride_MayFail = [NoMemoryEffect];

class Stride_FunctionalOp<string mnemonic, list<Trait> traits = [],
                          list<Trait> effects = [Pure]>
    : Stride_Op<mnemonic, traits # effects # [Stride_Functional]> {
  let results = (outs Stride_AnyTensor:$result);
}

class Stride_UnaryOp<string mnemonic, Type operandType, string torchName,
                     list<Trait> traits = []>
    : Stride_FunctionalOp<mnemonic, traits # [Stride_Elementwise,
        Stride_SameElementType<["input", "result"]>]> {
  let summary = "pointwise `" # torchName # "`";
  let description = "Pointwise `" # torchName # "` of each element; the "
    # "result has the operand's shape and element type and a layout of its "
    # "own.\n\n```mlir\n%y = stride." # mnemonic
    # " %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x8xf32>\n```";
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

def Stride_NegOp : Stride_UnaryOp<"neg", Stride_NumericTensor, "torch.neg">;
def Stride_AbsOp : Stride_UnaryOp<"abs", Stride_NumericTensor, "torch.abs">;
def Stride_ExpOp : Stride_UnaryOp<"exp", Stride_FloatTensor, "torch.exp">;
def Stride_LogOp : Stride_UnaryOp<"log", Stride_FloatTensor, "torch.log">;
def Stride_SqrtOp : Stride_UnaryOp<"sqrt", Stride_FloatTensor, "torch.sqrt">;
def Stride_RsqrtOp : Stride_UnaryOp<"rsqrt", Stride_FloatTensor, "torch.rsqrt">;
def Stride_TanhOp : Stride_UnaryOp<"tanh", Stride_FloatTensor, "torch.tanh">;
def Stride_ErfOp : Stride_UnaryOp<"erf", Stride_FloatTensor, "torch.erf">;
def Stride_SigmoidOp : Stride_UnaryOp<"sigmoid", Stride_FloatTensor, "torch.sigmoid">;
def Stride_ReluOp : Stride_UnaryOp<"relu", Stride_NumericTensor, "torch.relu">;
def Stride_GeluOp : Stride_UnaryOp<"gelu", Stride_FloatTensor,
    "torch.nn.functional.gelu (exact, erf form)">;
def Stride_GeluTanhOp : Stride_UnaryOp<"gelu_tanh", Stride_FloatTensor,
    "torch.nn.functional.gelu(approximate='tanh'): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))">;
def Stride_SinOp : Stride_UnaryOp<"sin", Stride_FloatTensor, "torch.sin">;
def Stride_CosOp : Stride_UnaryOp<"cos", Stride_FloatTensor, "torch.cos">;
def Stride_TanOp : Stride_UnaryOp<"tan", Stride_FloatTensor, "torch.tan">;
def Stride_AsinOp : Stride_UnaryOp<"asin", Stride_FloatTensor, "torch.asin">;
def Stride_AcosOp : Stride_UnaryOp<"acos", Stride_FloatTensor, "torch.acos">;
def Stride_AtanOp : Stride_UnaryOp<"atan", Stride_FloatTensor, "torch.atan">;
def Stride_SinhOp : Stride_UnaryOp<"sinh", Stride_FloatTensor, "torch.sinh">;
def Stride_CoshOp : Stride_UnaryOp<"cosh", Stride_FloatTensor, "torch.cosh">;
def Stride_AsinhOp : Stride_UnaryOp<"asinh", Stride_FloatTensor, "torch.asinh">;
def Stride_AcoshOp : Stride_UnaryOp<"acosh", Stride_FloatTensor, "torch.acosh">;
def Stride_AtanhOp : Stride_UnaryOp<"atanh", Stride_FloatTensor, "torch.atanh">;
def Stride_Expm1Op : Stride_UnaryOp<"expm1", Stride_FloatTensor, "torch.expm1">;
def Stride_Log1pOp : Stride_UnaryOp<"log1p", Stride_FloatTensor, "torch.log1p">;
def Stride_Log2Op : Stride_UnaryOp<"log2", Stride_FloatTensor, "torch.log2">;
def Stride_Log10Op : Stride_UnaryOp<"log10", Stride_FloatTensor, "torch.log10">;
def Stride_FloorOp : Stride_UnaryOp<"floor", Stride_FloatTensor, "torch.floor">;
def Stride_CeilOp : Stride_UnaryOp<"ceil", Stride_FloatTensor, "torch.ceil">;
def Stride_RoundOp : Stride_UnaryOp<"round", Stride_FloatTensor,
    "torch.round (halves to even)">;
def Stride_TruncOp : Stride_UnaryOp<"trunc", Stride_FloatTensor, "torch.trunc">;
def Stride_SignOp : Stride_UnaryOp<"sign", Stride_NumericTensor,
    "torch.sign: (0 < x) - (x < 0), so NaN gives 0 as PyTorch's kernels do">;
def Stride_NotOp : Stride_UnaryOp<"not", Stride_IntOrBoolTensor,
    "torch.logical_not on i1, torch.bitwise_not on integers">;

def Stride_CastOp : Stride_FunctionalOp<"cast", [Stride_Elementwise]> {
  let summary = "pointwise conversion to the result's element type";
  let description = [{
    `torch.Tensor.to(dtype)`: float to integer truncates toward zero, any
    value to `i1` is `value != 0`, `i1` to a number is 0 or 1, and float to
    float rounds to nearest even.

    ```mlir
    %y = stride.cast %x : !stride.tensor<4xf32> -> !stride.tensor<4xf16>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

class Stride_BinaryOp<string mnemonic, Type operandType, string torchName,
                      list<Trait> traits = [], list<Trait> effects = [Pure]>
    : Stride_FunctionalOp<mnemonic, traits # [Stride_Elementwise,
        Stride_SameElementType<["lhs", "rhs", "result"]>], effects> {
  let summary = "pointwise `" # torchName # "`";
  let description = "Pointwise `" # torchName # "` of two tensors of one "
    # "shape and element type. There is no implicit broadcasting: broadcast "
    # "with `stride.expand`.\n\n```mlir\n%z = stride." # mnemonic
    # " %x, %y : !stride.tensor<4x8xf32>, !stride.tensor<4x8xf32> -> "
    # "!stride.tensor<4x8xf32>\n```";
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) "
                       "`->` type($result)";
}

def Stride_AddOp : Stride_BinaryOp<"add", Stride_NumericTensor, "torch.add">;
def Stride_SubOp : Stride_BinaryOp<"sub", Stride_NumericTensor, "torch.sub">;
def Stride_MulOp : Stride_BinaryOp<"mul", Stride_NumericTensor, "torch.mul">;
// Integer division by zero is a run-time error: speculatable only on floats.
def Stride_DivOp : Stride_BinaryOp<"div", Stride_NumericTensor,
    "torch.div (integers: rounding_mode='trunc'; division by zero is an error)",
    [], Stride_MayFail # [DeclareOpInterfaceMethods<ConditionallySpeculatable>]>;
def Stride_PowOp : Stride_BinaryOp<"pow", Stride_FloatTensor, "torch.pow">;
def Stride_MaximumOp : Stride_BinaryOp<"maximum", Stride_NumericTensor,
    "torch.maximum (NaN propagates)">;
def Stride_MinimumOp : Stride_BinaryOp<"minimum", Stride_NumericTensor,
    "torch.minimum (NaN propagates)">;
def Stride_AndOp : Stride_BinaryOp<"and", Stride_IntOrBoolTensor,
    "torch.logical_and on i1, torch.bitwise_and on integers">;
def Stride_OrOp : Stride_BinaryOp<"or", Stride_IntOrBoolTensor,
    "torch.logical_or on i1, torch.bitwise_or on integers">;
def Stride_XorOp : Stride_BinaryOp<"xor", Stride_IntOrBoolTensor,
    "torch.logical_xor on i1, torch.bitwise_xor on integers">;
def Stride_Atan2Op : Stride_BinaryOp<"atan2", Stride_FloatTensor, "torch.atan2">;
def Stride_FmodOp : Stride_BinaryOp<"fmod", Stride_FloatTensor,
    "torch.fmod (the remainder has the dividend's sign)">;
def Stride_RemainderOp : Stride_BinaryOp<"remainder", Stride_FloatTensor,
    "torch.remainder (the remainder has the divisor's sign: fmod, plus the "
    "divisor where the signs differ)">;

def Stride_CmpPredicate : I64EnumAttr<"CmpPredicate", "comparison predicate", [
    I64EnumAttrCase<"eq", 0>, I64EnumAttrCase<"ne", 1>,
    I64EnumAttrCase<"lt", 2>, I64EnumAttrCase<"le", 3>,
    I64EnumAttrCase<"gt", 4>, I64EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::stride";
}

def Stride_CmpOp : Stride_FunctionalOp<"cmp", [Stride_Elementwise,
    Stride_SameElementType<["lhs", "rhs"]>]> {
  let summary = "pointwise comparison giving i1";
  let description = [{
    `torch.eq/ne/lt/le/gt/ge`. NaN compares unequal to everything.

    ```mlir
    %m = stride.cmp lt, %x, %y : !stride.tensor<4xf32>, !stride.tensor<4xf32>
        -> !stride.tensor<4xi1>
    ```
  }];
  let arguments = (ins Stride_CmpPredicate:$predicate, Stride_AnyTensor:$lhs,
                       Stride_AnyTensor:$rhs);
  let results = (outs Stride_BoolTensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) "
                       "`,` type($rhs) `->` type($result)";
}

def Stride_WhereOp : Stride_FunctionalOp<"where", [Stride_Elementwise,
    Stride_SameElementType<["lhs", "rhs", "result"]>]> {
  let summary = "pointwise select: condition ? lhs : rhs";
  let description = [{
    `torch.where(condition, lhs, rhs)`.

    ```mlir
    %r = stride.where %m, %x, %y : !stride.tensor<4xi1>, !stride.tensor<4xf32>,
        !stride.tensor<4xf32> -> !stride.tensor<4xf32>
    ```
  }];
  let arguments = (ins Stride_BoolTensor:$condition, Stride_AnyTensor:$lhs,
                       Stride_AnyTensor:$rhs);
  let assemblyFormat = "$condition `,` $lhs `,` $rhs attr-dict `:` "
      "type($condition) `,` type($lhs) `,` type($rhs) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Creation ops
//===----------------------------------------------------------------------===//

def Stride_FullOp : Stride_FunctionalOp<"full"> {
  let summary = "a tensor with every element equal to a value";
  let description = [{
    `torch.full(shape, value)`. For integer element types the value must be
    an integer in the type's range; for `i1`, 0 or 1.

    ```mlir
    %z = stride.full 0.0 : !stride.tensor<4x6x33xf32>
    ```
  }];
  let arguments = (ins F64Attr:$value);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Stride_ConstantOp : Stride_FunctionalOp<"constant"> {
  let summary = "a tensor of given element values";
  let description = [{
    `torch.tensor(values)`: the values are a builtin dense elements attribute
    of the result's shape and element type, in row-major order.

    ```mlir
    %c = stride.constant dense<[1.0, 2.0]> : tensor<2xf32>
        : !stride.tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let assemblyFormat = "$value attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Stride_IotaOp : Stride_FunctionalOp<"iota"> {
  let summary = "each element's index along one dim";
  let description = [{
    `torch.arange(size[dim])` broadcast along the other dims: element
    `(i_0, ..., i_{n-1})` is `i_dim`.

    ```mlir
    %i = stride.iota dim 0 : !stride.tensor<5xi64>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Stride_NumericTensor:$result);
  let assemblyFormat = "`dim` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Stride_CloneOp : Stride_FunctionalOp<"clone", [Stride_Elementwise,
    Stride_SameElementType<["input", "result"]>]> {
  let summary = "copy into a fresh buffer with the result's layout";
  let description = [{
    `torch.clone(input)`, or `.contiguous()` when the result is row-major:
    materializes a view.

    ```mlir
    %c = stride.clone %t : !stride.tensor<4x8xf32, strides = [1, 4], offset = 0>
        -> !stride.tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Scatter and gather ops
//===----------------------------------------------------------------------===//

def Stride_SliceScatterOp : Stride_FunctionalOp<"slice_scatter",
    [Stride_SameElementType<["input", "src", "result"]>]> {
  let summary = "a copy of input with a slice replaced by src";
  let description = [{
    `torch.slice_scatter(input, src, dim, start, end, step)`: the result
    equals `input` except at the indices `start, start+step, ... < end` of
    `dim`, where it equals `src`. `src` has the shape of that slice.

    ```mlir
    %r = stride.slice_scatter %x, %y dim 1 start 0 end 6 step 1
        : !stride.tensor<4x13x33xf32>, !stride.tensor<4x6x33xf32>
        -> !stride.tensor<4x13x33xf32>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, Stride_AnyTensor:$src,
                       I64Attr:$dim, I64Attr:$start, I64Attr:$end,
                       I64Attr:$step);
  let assemblyFormat = "$input `,` $src `dim` $dim `start` $start `end` $end "
      "`step` $step attr-dict `:` type($input) `,` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Stride_CatOp : Stride_FunctionalOp<"cat"> {
  let summary = "the inputs concatenated along one dim";
  let description = [{
    `torch.cat(inputs, dim)`: one or more inputs of one element type and
    rank, equal in every dim but `dim`; the result's `dim` is the sum of
    theirs, and input `i` fills the indices of `dim` that follow the
    inputs before it. In a kernel each input is a mask on that range of
    `dim`, as `slice_scatter`'s `src` is: an element reads only the input
    it comes from.

    ```mlir
    %r = stride.cat %a, %b dim 1
        : !stride.tensor<4x6x33xf32>, !stride.tensor<4x7x33xf32>
        -> !stride.tensor<4x13x33xf32>
    ```
  }];
  let arguments = (ins Variadic<Stride_AnyTensor>:$inputs, I64Attr:$dim);
  let assemblyFormat = "$inputs `dim` $dim attr-dict `:` type($inputs) `->` "
      "type($result)";
  let hasVerifier = 1;
}

def Stride_SelectScatterOp : Stride_FunctionalOp<"select_scatter",
    [Stride_SameElementType<["input", "src", "result"]>]> {
  let summary = "a copy of input with one index of a dim replaced by src";
  let description = [{
    `torch.select_scatter(input, src, dim, index)`: `src` has the shape of
    `input` without `dim`.

    ```mlir
    %r = stride.select_scatter %x, %row dim 1 index 3
        : !stride.tensor<4x16x8xf32>, !stride.tensor<4x8xf32>
        -> !stride.tensor<4x16x8xf32>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, Stride_AnyTensor:$src,
                       I64Attr:$dim, I64Attr:$index);
  let assemblyFormat = "$input `,` $src `dim` $dim `index` $index attr-dict "
      "`:` type($input) `,` type($src) `->` type($result)";
  let hasVerifier = 1;
}

/// An index scatter: `accumulating` and `sliceIndex` are the answers of
/// IndexScatterOpInterface's isAccumulating and isSliceIndex.
class Stride_IndexScatterBase<string mnemonic, bit accumulating,
                              bit sliceIndex>
    : Stride_FunctionalOp<mnemonic,
        [Stride_SameElementType<["input", "src", "result"]>,
         Stride_IndexedOpInterface, Stride_IndexScatterOpInterface],
        Stride_MayFail> {
  let arguments = (ins Stride_AnyTensor:$input, Stride_IndexTensor:$index,
                       Stride_AnyTensor:$src, I64Attr:$dim);
  let assemblyFormat = "$input `,` $index `,` $src `dim` $dim attr-dict `:` "
      "type($input) `,` type($index) `,` type($src) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    bool isAccumulating() { return }] # !if(accumulating, "true", "false") # [{; }
    bool isSliceIndex() { return }] # !if(sliceIndex, "true", "false") # [{; }
  }];
}

class Stride_IndexScatterOp<string mnemonic, string torchName, string rule,
                            bit accumulating>
    : Stride_IndexScatterBase<mnemonic, accumulating, /*sliceIndex=*/0> {
  let summary = "`" # torchName # "` along one dim";
  let description = "`" # torchName # "(input, dim, index, src)`: a copy "
    # "of `input` where, for every index `i` of `index`, the element at `i` "
    # "with dim `dim` replaced by `index[i]` " # rule # " `src[i]`. `index` "
    # "has the rank of `input`, and no dim larger than `src`'s or, except "
    # "`dim`, `input`'s. An index outside `[0, size[dim])` is a run-time "
    # "error.\n\n```mlir\n%r = stride." # mnemonic # " %x, %idx, %src dim 0 "
    # ": !stride.tensor<4x3xf32>, !stride.tensor<2x3xi64>, "
    # "!stride.tensor<2x3xf32> -> !stride.tensor<4x3xf32>\n```";
}

def Stride_ScatterOp : Stride_IndexScatterOp<"scatter", "torch.scatter",
    "is set to (with duplicate indices, one of the writes wins)",
    /*accumulating=*/0>;
def Stride_ScatterAddOp : Stride_IndexScatterOp<"scatter_add",
    "torch.scatter_add", "accumulates", /*accumulating=*/1>;

def Stride_IndexAddOp : Stride_IndexScatterBase<"index_add",
    /*accumulating=*/1, /*sliceIndex=*/1> {
  let summary = "add slices of src into input at the given indices";
  let description = [{
    `torch.index_add(input, dim, index, source)`: `index` is 1-D, `src`
    has the shape of `input` with `dim` of size `len(index)`, and slice `i` of
    `src` is added into slice `index[i]` of the copy. Duplicate indices
    accumulate; an index outside `[0, size[dim])` is a run-time error.

    `sorted_index` says that `index` never decreases, so that the slices
    added into one row are one run of consecutive positions (the importer
    marks an embedding bag's sum, whose bags are a cumulative sum:
    python-free-docs/import.md). A kernel then finds a row's run by binary
    search, with no index analysis, and adds it in an order fixed by the
    run's length (python-free-docs/cuda-backend.md, "Sorted index_add"). It
    is a claim the run checks: an index that decreases is a run-time error,
    as an index out of range is.

    ```mlir
    %r = stride.index_add %w, %idx, %g dim 0
        : !stride.tensor<100x16xf32>, !stride.tensor<8xi64>,
          !stride.tensor<8x16xf32> -> !stride.tensor<100x16xf32>
    %bags = stride.index_add %zeros, %bag, %rows dim 0 {sorted_index}
        : !stride.tensor<4x16xf32>, !stride.tensor<11xi64>,
          !stride.tensor<11x16xf32> -> !stride.tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, Stride_IndexTensor:$index,
                       Stride_AnyTensor:$src, I64Attr:$dim,
                       UnitAttr:$sorted_index);
}

def Stride_GatherOp : Stride_FunctionalOp<"gather",
    [Stride_SameElementType<["input", "result"]>, Stride_IndexedOpInterface],
    Stride_MayFail> {
  let summary = "read input along one dim at the given indices";
  let description = [{
    `torch.gather(input, dim, index)`: the result has `index`'s shape and
    element `i` is `input` at `i` with dim `dim` replaced by `index[i]`.
    `index` has `input`'s rank and no dim, except `dim`, larger than
    `input`'s.

    ```mlir
    %g = stride.gather %x, %idx dim 1 : !stride.tensor<4x5xf32>,
        !stride.tensor<4x2xi64> -> !stride.tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, Stride_IndexTensor:$index,
                       I64Attr:$dim);
  let assemblyFormat = "$input `,` $index `dim` $dim attr-dict `:` "
      "type($input) `,` type($index) `->` type($result)";
  let hasVerifier = 1;
}

def Stride_IndexSelectOp : Stride_FunctionalOp<"index_select",
    [Stride_SameElementType<["input", "result"]>, Stride_IndexedOpInterface],
    Stride_MayFail> {
  let summary = "select slices of input along one dim";
  let description = [{
    `torch.index_select(input, dim, index)`: `index` is 1-D; the result is
    `input` with dim `dim` of size `len(index)`, slice `i` being slice
    `index[i]` of `input` (an embedding lookup with `dim = 0`).

    ```mlir
    %e = stride.index_select %table, %ids dim 0 : !stride.tensor<100x16xf32>,
        !stride.tensor<8xi64> -> !stride.tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$input, Stride_IndexTensor:$index,
                       I64Attr:$dim);
  let assemblyFormat = "$input `,` $index `dim` $dim attr-dict `:` "
      "type($input) `,` type($index) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// A reduction with combiner `combiner` (a ReductionCombiner case), divided
/// by the element count when `average` is set.
class Stride_ReductionOp<string mnemonic, Type operandType, string torchName,
                         string identity, string combiner, bit average = 0>
    : Stride_FunctionalOp<mnemonic, [Stride_SameElementType<["input", "result"]>,
        Stride_ReductionOpInterface]> {
  let summary = "`" # torchName # "` over a list of dims";
  let description = "`" # torchName # "(input, dims, keepdim)`: reduces the "
    # "listed dims (distinct, in range; an empty list reduces nothing), "
    # "keeping them as size 1 when `keepdim` is present. Over an empty dim "
    # "the result is " # identity # ".\n\n```mlir\n%s = stride." # mnemonic
    # " %x dims [1] : !stride.tensor<4x13x33xf32> -> !stride.tensor<4x33xf32>"
    # "\n%k = stride." # mnemonic # " %x dims [2] keepdim : "
    # "!stride.tensor<4x13x33xf32> -> !stride.tensor<4x13x1xf32>\n```";
  let arguments = (ins operandType:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input `dims` $dims (`keepdim` $keepdim^)? attr-dict "
                       "`:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::stride::ReductionCombiner getCombiner() {
      return ::stride::ReductionCombiner::}] # combiner # [{;
    }
    bool isAverage() { return }] # !if(average, "true", "false") # [{; }
  }];
}

def Stride_SumOp : Stride_ReductionOp<"sum", Stride_NumericTensor, "torch.sum",
    "0", "add">;
def Stride_MeanOp : Stride_ReductionOp<"mean", Stride_FloatTensor, "torch.mean",
    "NaN (0/0)", "add", /*average=*/1>;
def Stride_ProdOp : Stride_ReductionOp<"prod", Stride_NumericTensor, "torch.prod",
    "1", "mul">;
def Stride_MaxOp : Stride_ReductionOp<"max", Stride_NumericTensor, "torch.amax",
    "a run-time error (max of no elements is undefined)", "max">;
def Stride_MinOp : Stride_ReductionOp<"min", Stride_NumericTensor, "torch.amin",
    "a run-time error (min of no elements is undefined)", "min">;
def Stride_AnyOp : Stride_ReductionOp<"any", Stride_BoolTensor,
    "torch.any (of booleans: compare with 0 first)", "false", "logical_or">;

/// `torch.argmax` / `torch.argmin` along one dim: a reduction of (value,
/// index) pairs whose result is the index. `extreme` names the element
/// found, `ordered` how two values compare.
class Stride_ArgReductionOp<string mnemonic, string torchName, string extreme,
                            string ordered>
    : Stride_FunctionalOp<mnemonic, [DeclareOpInterfaceMethods<
        Stride_ReductionOpInterface, ["getReducedDims"]>]> {
  let summary = "`" # torchName # "` along one dim: the index of the "
    # extreme # " element";
  let description = "`" # torchName # "(input, dim, keepdim)`: the index "
    # "(i64, counted along `dim` from 0) of the " # extreme # " element of "
    # "each row along `dim`, which the result drops, or keeps as size 1 "
    # "with `keepdim`.\n\nPyTorch's rules, exactly: among equal " # extreme
    # " values the first index wins; NaN counts as " # extreme # " (the "
    # "first NaN of a row wins); -0.0 and +0.0 are equal. As a reduction "
    # "(ReductionOpInterface, combiner `" # mnemonic # "`) it folds (value, "
    # "index) pairs: the pair with the " # ordered # " value wins, equal "
    # "values keep the smaller index, a NaN value wins over any number and "
    # "two NaNs keep the smaller index. A row of no elements is a run-time "
    # "error, as in PyTorch. `torch." # mnemonic # "(input)` without a dim "
    # "is this op over the input viewed as 1-D (`stride.view`).\n\n"
    # "```mlir\n%i = stride." # mnemonic # " %logits dim 1 : "
    # "!stride.tensor<4x32000xf32> -> !stride.tensor<4xi64>\n%k = stride."
    # mnemonic # " %logits dim 1 keepdim : !stride.tensor<4x32000xbf16> -> "
    # "!stride.tensor<4x1xi64>\n```";
  let arguments = (ins Stride_NumericTensor:$input, I64Attr:$dim,
                       UnitAttr:$keepdim);
  let results = (outs Stride_TensorOf<[I64], "indices (i64)">:$result);
  let assemblyFormat = "$input `dim` $dim (`keepdim` $keepdim^)? attr-dict "
                       "`:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Stride_ArgmaxOp : Stride_ArgReductionOp<"argmax", "torch.argmax",
    "largest", "larger">;
def Stride_ArgminOp : Stride_ArgReductionOp<"argmin", "torch.argmin",
    "smallest", "smaller">;

//===----------------------------------------------------------------------===//
// Scans
//===----------------------------------------------------------------------===//

def Stride_CumsumOp : Stride_FunctionalOp<"cumsum",
    [Stride_SameElementType<["input", "result"]>]> {
  let summary = "the running sum along one dim";
  let description = [{
    `torch.cumsum(input, dim)`: element `c` of the result is the sum of the
    input's elements at `c` with `c[dim]` replaced by `0, 1, ..., c[dim]`.
    The result has the input's shape and element type: PyTorch's cumsum of
    an integer or boolean tensor is int64 (or its `dtype` argument), so an
    importer casts the input to the result's element type first. Integer
    sums wrap; float sums are rounded once per element to the element type
    (the reference interpreter sums in f64, the CUDA backend in float for
    f16, bf16 and f32, in double for f64, in a different order than one
    after the other).

    ```mlir
    %c = stride.cumsum %x dim 1 : !stride.tensor<4x13xf32>
        -> !stride.tensor<4x13xf32>
    ```
  }];
  let arguments = (ins Stride_NumericTensor:$input, I64Attr:$dim);
  let results = (outs Stride_NumericTensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input) `->` "
      "type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix products (library calls)
//===----------------------------------------------------------------------===//

def Stride_MatmulEpilogue : I32EnumAttr<"MatmulEpilogue",
    "what a matrix product applies to each element after the bias", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"relu", 1>,
    I32EnumAttrCase<"gelu_tanh", 2>]> {
  let cppNamespace = "::stride";
}

/// A #stride.matmul_operand (StrideAttrs.td, generated apart from the ops).
def Stride_MatmulOperandAttrRef : Attr<
    CPred<"::llvm::isa<::stride::MatmulOperandAttr>($_self)">,
    "how the library reads a matmul operand"> {
  let storageType = "::stride::MatmulOperandAttr";
  let returnType = "::stride::MatmulOperandAttr";
  let convertFromStorage = "$_self";
}

def Stride_MatmulOp : Stride_Op<"matmul", [Pure, Stride_LibraryCall,
    AttrSizedOperandSegments,
    OptionalTypesMatchWith<"the addend has the result's type", "result",
                           "addend", "$_self">]> {
  let summary = "matrix product (`torch.matmul`, `mm`, `bmm`), optionally "
                "with an addend, a bias and an activation";
  let description = [{
    `torch.matmul(lhs, rhs)` for operands of one rank `r >= 2`:
    `lhs` is `[B..., M, K]`, `rhs` is `[B..., K, N]` and the result
    `[B..., M, N]`, where the batch dims `B...` are equal in both operands
    (`mm` for rank 2, `bmm` for rank 3). There is no implicit broadcasting: a
    batch dim is broadcast with `stride.expand`, which gives the operand a
    batch stride of 0. The element types are one of `f16`, `bf16`, `f32`,
    `f64`, the same for both operands and the result; products accumulate in
    f32 (f64 for `f64`). Integer products are not supported.

    The operands may have any layout (transposed, sliced, broadcast); the
    result has offset 0, rows of consecutive elements at a leading
    dimension of at least `N` and its matrices one after the other: the
    dense row-major layout, or rows padded for the library. The op runs as
    a library call (cuBLASLt), or, marked `stride.skinny_product` by
    `stride-matmul-layout` (a 2-D product of few rows against a weight
    contiguous along `K`, a decode step's linear layer), as Stride's skinny
    product kernel, alone in a `stride.kernel` of its own; never inside
    another kernel: see python-free-docs/matmul.md.

    `stride-matmul-layout` records how the library reads each operand in
    place (`lhs_layout`, `rhs_layout`: `#stride.matmul_operand`), copying
    an operand it cannot read so into a dense temporary first. For an
    f16/bf16 result whose rows are not a multiple of 16 bytes it either
    records `row_classes` (below) or pads the product's rows to 16 bytes
    (with a copy into the graph's layout after the product).

    `row_classes = R` (rank 2 only; set by `stride-matmul-layout`) says how
    the library writes a dense result whose rows are not 16-byte aligned:
    as R products, product `j` computing the rows `r` with `r mod R == j`
    (a leading dimension of `R * N`, 16-byte aligned) from the first column
    whose address is a multiple of 16 bytes, as many columns as make a
    multiple of 16 bytes; two more products over all rows write the columns
    left at the rows' two ends. The value is the same product; only the
    library calls differ (python-free-docs/matmul.md, "Row classes"). The lhs must be
    read row-major (a class's rows are then `R * ld` apart), and the result
    dense row-major.

    Optionally (formed by `stride-fuse`, see python-free-docs/matmul.md), an
    `addend` of the result's type (shape, strides and offset: cuBLASLt's C,
    read with D's layout) is added to the product, a `bias` of
    shape `[N]` is added to every row of the product (with the sum rounded
    once to the result type, as PyTorch's `addmm`) and an `epilogue`
    (`relu`, or `gelu_tanh`: GELU's tanh approximation) is applied to each
    element; `f64` products take neither. cuBLASLt's GELU is not exact
    enough, so the pipeline computes a `gelu_tanh` epilogue as a
    `stride.gelu_tanh` after the call.

    ```mlir
    %c = stride.matmul %a, %b : !stride.tensor<4x8xf32>,
        !stride.tensor<8x5xf32> -> !stride.tensor<4x5xf32>
    %y = stride.matmul %x, %wt bias %bias epilogue gelu_tanh
        : !stride.tensor<2x4x8xbf16>, !stride.tensor<2x8x16xbf16, strides = [0, 1, 8]>,
          !stride.tensor<16xbf16> -> !stride.tensor<2x4x16xbf16>
    // relu(x wt + r + bias): a residual added before the activation.
    %z = stride.matmul %x, %w bias %b addend %r epilogue relu
        : !stride.tensor<64x32xbf16>, !stride.tensor<32x16xbf16>,
          !stride.tensor<16xbf16> -> !stride.tensor<64x16xbf16>
    ```

    The addend is read and the result written element by element at the
    same positions, so the addend may share the result's buffer. A product
    with an addend has no `row_classes`; the skinny product kernel adds it
    to the f32 sum as it adds the bias.
  }];
  let arguments = (ins Stride_AnyTensor:$lhs, Stride_AnyTensor:$rhs,
                       Optional<Stride_AnyTensor>:$bias,
                       Optional<Stride_AnyTensor>:$addend,
                       DefaultValuedAttr<Stride_MatmulEpilogue,
                                         "::stride::MatmulEpilogue::none">:$epilogue,
                       OptionalAttr<Stride_MatmulOperandAttrRef>:$lhs_layout,
                       OptionalAttr<Stride_MatmulOperandAttrRef>:$rhs_layout,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>:$row_classes);
  let results = (outs Stride_AnyTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` $bias^)? (`addend` $addend^)?
    (`epilogue` $epilogue^)? attr-dict `:`
    type($lhs) `,` type($rhs) (`,` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention (library calls)
//===----------------------------------------------------------------------===//

include "StrideAttentionOps.td"

//===----------------------------------------------------------------------===//
// Collectives (library calls across ranks)
//===----------------------------------------------------------------------===//

include "StrideCollectiveOps.td"
// Convolution (library calls)
//===----------------------------------------------------------------------===//

include "StrideConvolutionOps.td"

//===----------------------------------------------------------------------===//
// Kernel regions (formed by stride-fuse)
//===----------------------------------------------------------------------===//

/// Ranges of a function's symbols (python-free-docs/symbolic-sizes.md,
/// "Variants selected at run time"): each a `#stride.symbol` whose range is
/// the values named, within the symbol's own.
def Stride_SymbolRangesAttr : TypedArrayAttrBase<
    Attr<CPred<"::llvm::isa<::stride::SymbolAttr>($_self)">,
         "a #stride.symbol range">,
    "ranges of symbols (#stride.symbol)">;

def Stride_KernelOp : Stride_Op<"kernel", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">, Stride_FusedKernel]> {
  let summary = "a fused kernel region: becomes one GPU kernel";
  let description = [{
    A region of fused stride ops that the CUDA backend turns into one
    `__global__` function named `sym_name`. The operands are the buffers the
    kernel reads (the entry block's arguments, with the same types); the
    results are the fresh buffers it writes (the values `stride.yield`
    returns, with dense layouts). Inside, the body is ordinary stride ops:
    views compose into the loads' index expressions, functional ops compute
    in registers, and only the yielded values are stored. The iteration space
    of a kernel is the logical shape of its outputs.

    Outlined into a `plan.executable` (stride-outline-executable), a kernel
    has no operands: its body's arguments are its parameters, bound to
    buffers by each `plan.dispatch` of it.

    A kernel with `when` (ranges of the function's symbols, each a
    `#stride.symbol`) is a variant that runs only where each named symbol
    lies in its range (python-free-docs/symbolic-sizes.md, "Variants
    selected at run time"); its results are read through
    `stride.select_variant`s. Where a range is one value, the body is the
    kernel at that value: its arguments' types are the inputs' types with
    those symbols replaced by their values, and its results are of these
    types too (the skinny product kernel of a product over symbolic rows,
    at one row).

    ```mlir
    %r = stride.kernel "slice_scatter_sum" ins(%x, %y : !stride.tensor<4x13x33xf32>,
        !stride.tensor<4x6x33xf32>) -> !stride.tensor<4x33xf32> {
    ^bb0(%a: !stride.tensor<4x13x33xf32>, %b: !stride.tensor<4x6x33xf32>):
      %s = stride.slice_scatter %a, %b dim 1 start 0 end 6 step 1 : ...
      %t = stride.sum %s dims [1] : ...
      stride.yield %t : !stride.tensor<4x33xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$sym_name, Variadic<Stride_AnyTensor>:$inputs,
                       OptionalAttr<Stride_SymbolRangesAttr>:$when);
  let results = (outs Variadic<Stride_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  // A kernel that runs always (no `when`).
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$results, "::llvm::StringRef":$name,
                   "::mlir::ValueRange":$inputs), [{
      build($_builder, $_state, results, name, inputs, ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::TypeRange":$results, "::mlir::StringAttr":$name,
                   "::mlir::ValueRange":$inputs), [{
      build($_builder, $_state, results, name, inputs, ::mlir::ArrayAttr());
    }]>];
  let assemblyFormat = [{
    $sym_name (`ins` `(` $inputs^ `:` type($inputs) `)`)? attr-dict-with-keyword
    `->` `(` type($results) `)` $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    YieldOp getYield();
    /// True when the kernel sits in a symbol table (a plan.executable):
    /// it has no operands and its body's arguments are its parameters.
    bool isOutlined();
    /// The values of the symbols `when` pins to one value (empty without
    /// `when`): the body's types are the kernel's at these values.
    ::stride::SymbolValues pinnedValues();
  }];
}

def Stride_YieldOp : Stride_Op<"yield", [Pure, Terminator,
    HasParent<"KernelOp">]> {
  let summary = "the values a kernel region writes to its output buffers";
  let description = [{
    Terminates a `stride.kernel` body; its operands become the kernel's
    results (their types may differ from the results' only in layout: the
    result buffer's layout is the kernel result type's).
  }];
  let arguments = (ins Variadic<Stride_AnyTensor>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Stride_SelectVariantOp : Stride_Op<"select_variant",
    [Pure, AllTypesMatch<["otherwise", "result"]>]> {
  let summary = "one value computed two ways, the way selected at run time "
                "by the sizes";
  let description = [{
    `variant` and `otherwise` are the same value computed by two ops, each
    suited to part of the symbols' ranges; the plan runs only one of them
    (python-free-docs/symbolic-sizes.md, "Variants selected at run time"):
    `variant`'s op where every symbol named in `when` lies in its range
    (each a `#stride.symbol` whose range is the values selected, within
    the symbol's own), `otherwise`'s op elsewhere, and both write one
    buffer. `variant`'s type is `otherwise`'s with each symbol that `when`
    pins to one value replaced by it. `stride-product-variants` makes
    them: the skinny product kernel at one row beside the library call of
    a product over symbolic rows.

    The values are equal, so the reference interpreter, which computes
    both, returns `otherwise`; `stride-instantiate-symbols` replaces the op
    by the operand its values select.

    ```mlir
    %y = stride.select_variant %skinny : !stride.tensor<1x3072xbf16>
        when [#stride.symbol<"tokens", range = [1, 1]>] else %library
        : !stride.tensor<[tokens, 3072], bf16>
    ```
  }];
  let arguments = (ins Stride_AnyTensor:$variant, Stride_AnyTensor:$otherwise,
                       Stride_SymbolRangesAttr:$when);
  let results = (outs Stride_AnyTensor:$result);
  let assemblyFormat = [{
    $variant `:` type($variant) `when` $when `else` $otherwise attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
}

#endif // STRIDE_OPS_TD
