// Malformed tensor types are rejected with a message at the type.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{dim 1 has negative stride -33; strides must be non-negative (a stride of 0 broadcasts)}}
func.func @f(%x: !stride.tensor<4x13xf32, strides = [13, -33]>) { return }

// -----

// expected-error @+1 {{the shape has rank 2 but 3 strides are given}}
func.func @f(%x: !stride.tensor<4x13xf32, strides = [13, 1, 1]>) { return }

// -----

// expected-error @+1 {{unsupported element type 'i16'; a stride tensor holds f16, bf16, f32, f64, i1, i8, i32 or i64}}
func.func @f(%x: !stride.tensor<4xi16>) { return }

// -----

// Integers are signless: si32 and ui8 are not stride element types.
// expected-error @+1 {{unsupported element type 'si32'; a stride tensor holds f16, bf16, f32, f64, i1, i8, i32 or i64}}
func.func @f(%x: !stride.tensor<4xsi32>) { return }

// -----

// expected-error @+1 {{unsupported element type 'ui8'; a stride tensor holds f16, bf16, f32, f64, i1, i8, i32 or i64}}
func.func @f(%x: !stride.tensor<4xui8>) { return }

// -----

// expected-error @+1 {{expected 'strides = [...]' or 'offset = N' (each at most once), got 'stride'}}
func.func @f(%x: !stride.tensor<4xf32, stride = [1]>) { return }

// -----

// expected-error @+1 {{the storage offset -1 is negative}}
func.func @f(%x: !stride.tensor<4xf32, offset = -1>) { return }

// -----

// expected-error @+1 {{the tensor has more than 2^40 elements}}
func.func @f(%x: !stride.tensor<4294967296x4294967296xf32>) { return }

// -----

// expected-error @+1 {{rank 17 exceeds the limit of 16}}
func.func @f(%x: !stride.tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1xf32>) { return }

// -----

// expected-error @+1 {{the layout reaches beyond storage address 2^48}}
func.func @f(%x: !stride.tensor<4xf32, strides = [4611686018427387904]>) { return }
