// stride-instantiate-symbols refuses, at the function, a value outside its
// symbol's range or not a multiple of its multiple_of (with the range), a
// name the function does not declare, a value given twice, and an entry
// that is not name=value.
// RUN: not stride-opt %s --stride-instantiate-symbols="values=batch=65,seq=16" 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: instantiate-symbols-errors.mlir:[[@LINE+10]]:1: error: stride-instantiate-symbols: batch = 65 is not a value of the symbol: batch in [1, 64]
// RUN: not stride-opt %s --stride-instantiate-symbols="values=batch=2,seq=33" 2>&1 | FileCheck %s --check-prefix=MULTIPLE
// MULTIPLE: error: stride-instantiate-symbols: seq = 33 is not a value of the symbol: seq in [8, 4096], a multiple of 8
// RUN: not stride-opt %s --stride-instantiate-symbols="values=rows=2" 2>&1 | FileCheck %s --check-prefix=UNDECLARED
// UNDECLARED: error: stride-instantiate-symbols: the function declares no symbol 'rows'
// RUN: not stride-opt %s --stride-instantiate-symbols="values=batch=2,batch=3" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: stride-instantiate-symbols: the symbol 'batch' is given twice
// RUN: not stride-opt %s --stride-instantiate-symbols="values=batch" 2>&1 | FileCheck %s --check-prefix=FORM
// FORM: error: stride-instantiate-symbols: 'batch' is not name=value (an integer value)

func.func @f(%x: !stride.tensor<[batch, seq], f32>) -> !stride.tensor<[batch, seq], f32>
    attributes {stride.symbols = [#stride.symbol<"batch", range = [1, 64]>,
                                  #stride.symbol<"seq", range = [8, 4096], multiple_of = 8>]} {
  return %x : !stride.tensor<[batch, seq], f32>
}
