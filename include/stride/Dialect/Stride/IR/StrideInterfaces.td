//===- StrideInterfaces.td - Interfaces and traits --------*- tablegen -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_INTERFACES_TD
#define STRIDE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Stride_ViewOpInterface : OpInterface<"ViewOpInterface"> {
  let cppNamespace = "::stride";
  let description = [{
    A view op aliases its operand: its result reads the operand's storage
    through a layout computed from the operand's layout. The computation is
    `inferResultLayout`, shared by the verifier (which rejects a declared
    result type that differs) and by passes that change an operand's layout
    and must re-infer the views built on it.
  }];
  let methods = [
    InterfaceMethod<"The result layout this view gives a source of layout "
                    "`source`, or an error message.",
      "::stride::ViewResult", "inferResultLayout",
      (ins "const ::stride::Layout &":$source)>,
    InterfaceMethod<"The operand this view aliases.",
      "::mlir::TypedValue<::stride::StridedTensorType>", "getSource", (ins),
      [{ return $_op.getInput(); }]>,
  ];
  let verify = [{ return ::stride::detail::verifyViewOp($_op); }];
}

/// Pointwise ops: every tensor operand and the result have one shape.
def Stride_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::stride";
}

/// Functional ops write a fresh buffer; the layout legalization pass checks
/// their result layouts.
def Stride_Functional : NativeOpTrait<"Functional"> {
  let cppNamespace = "::stride";
}

#endif // STRIDE_INTERFACES_TD
