// Each verifier of the plan dialect, one case each.
// RUN: stride-opt %s -split-input-file -verify-diagnostics

// A kernel directly in a symbol table (here the module) is outlined.
%x = stride.constant dense<1.0> : tensor<4xf32> : !stride.tensor<4xf32>
// expected-error @+1 {{'stride.kernel' op is outlined (in a symbol table) but has 1 inputs; an outlined kernel's parameters are its body's arguments}}
%k = stride.kernel "neg" ins(%x : !stride.tensor<4xf32>) -> (!stride.tensor<4xf32>) {
^bb0(%a: !stride.tensor<4xf32>):
  stride.yield %a : !stride.tensor<4xf32>
}

// -----

// expected-error @+1 {{'plan.executable' op holds 'plan.alloc'; an executable holds only stride.kernel ops}}
plan.executable @k {
  // expected-note @+1 {{this op}}
  %b = plan.alloc 16 bytes
}

// -----

plan.executable @k {
  // expected-note @+1 {{see existing symbol definition here}}
  stride.kernel "neg" -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
  // expected-error @+1 {{redefinition of symbol named 'neg'}}
  stride.kernel "neg" -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
}

// -----

plan.executable @k {
}
func.func @graph(%arg0: !stride.tensor<4xf32>) {
  %in = plan.input %arg0 : !stride.tensor<4xf32>
  // expected-error @+1 {{'plan.dispatch' op dispatches @k::@missing, which is no kernel of a plan.executable}}
  plan.dispatch @k::@missing(%in)
  return
}

// -----

plan.executable @k {
  stride.kernel "neg" -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
}
func.func @graph(%arg0: !stride.tensor<4xf32>) {
  %in = plan.input %arg0 : !stride.tensor<4xf32>
  // expected-error @+1 {{'plan.dispatch' op passes 1 buffers, but kernel @k::@neg takes 2 (1 inputs, 1 results, 0 scratch)}}
  plan.dispatch @k::@neg(%in)
  return
}

// -----

func.func @graph(%arg0: !stride.tensor<4xf32>) {
  %t = plan.alloc 16 bytes
  // expected-error @+1 {{'plan.library_call' op names routine 'matmul'; expected 'library.routine', e.g. 'cublaslt.matmul'}}
  plan.library_call "matmul"(%t) descriptor {}
  return
}

// -----

func.func @graph() {
  %t = plan.alloc 16 bytes
  // expected-error @+1 {{'plan.copy' op copies a buffer onto itself}}
  plan.copy %t to %t size 16
  return
}

// -----

func.func @graph() {
  // expected-error @+1 {{'plan.alloc' op attribute 'size' failed to satisfy constraint}}
  %t = plan.alloc 0 bytes
  return
}

// -----

func.func @graph() {
  // expected-error @+1 {{'plan.alloc' op is zeroed and in the arena; a zeroed buffer keeps its zeros across runs, so it has storage of its own}}
  %t = plan.alloc 64 bytes zeroed at arena 0
  return
}

// -----

func.func @graph() {
  // expected-error @+1 {{'plan.alloc' op has the arena offset 100, which is no multiple of 256}}
  %t = plan.alloc 64 bytes at arena 100
  return
}

// -----

func.func @graph() {
  // expected-error @+1 {{'plan.alloc' op ends past 2^48 bytes of arena (offset 281474976710400, 512 bytes)}}
  %t = plan.alloc 512 bytes at arena 281474976710400
  return
}

// -----

func.func @graph() {
  // expected-error @+1 {{'plan.alloc' op attribute 'arena_offset' failed to satisfy constraint}}
  %t = plan.alloc 64 bytes at arena -256
  return
}

// -----

func.func @graph() {
  // expected-error @+1 {{'plan.constant' op value of type 'tensor<2xf32>' does not match the shape and element type of '!stride.tensor<4xf32, strides = [1], offset = 0>'}}
  %c = plan.constant dense<1.0> : tensor<2xf32> as !stride.tensor<4xf32>
  return
}

// -----

func.func @graph(%arg0: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %c = plan.constant dense<1.0> : tensor<4xf32> as !stride.tensor<4xf32>
  // expected-error @+1 {{'plan.output' op expects a buffer of a plan.alloc (a graph output has storage of its own) or of a plan.input (an aliased output)}}
  %r = plan.output %c : !stride.tensor<4xf32>
  return %r : !stride.tensor<4xf32>
}

// -----

// An aliased output is the input as the caller passed it: never one the
// plan writes.
func.func @graph(%arg0: !stride.tensor<4xf32>) -> !stride.tensor<4xf32> {
  %in = plan.input %arg0 written : !stride.tensor<4xf32>
  // expected-error @+1 {{'plan.output' op returns the storage of an input the plan writes; an aliased output is the input as the caller passed it}}
  %r = plan.output %in : !stride.tensor<4xf32>
  return %r : !stride.tensor<4xf32>
}

// -----

func.func @graph(%arg0: !stride.tensor<4xf32>) -> !stride.tensor<4xi32> {
  %in = plan.input %arg0 : !stride.tensor<4xf32>
  // expected-error @+1 {{'plan.output' op of type '!stride.tensor<4xi32, strides = [1], offset = 0>' aliases an input of type '!stride.tensor<4xf32, strides = [1], offset = 0>', of another element type}}
  %r = plan.output %in : !stride.tensor<4xi32>
  return %r : !stride.tensor<4xi32>
}

// -----

// Elements 2 to 5 of a 4-element input: past its end.
func.func @graph(%arg0: !stride.tensor<4xf32>) -> !stride.tensor<4xf32, strides = [1], offset = 2> {
  %in = plan.input %arg0 : !stride.tensor<4xf32>
  // expected-error @+1 {{'plan.output' op of type '!stride.tensor<4xf32, strides = [1], offset = 2>' reaches past the end of the storage of the input it aliases, of type '!stride.tensor<4xf32, strides = [1], offset = 0>'}}
  %r = plan.output %in : !stride.tensor<4xf32, strides = [1], offset = 2>
  return %r : !stride.tensor<4xf32, strides = [1], offset = 2>
}

// -----

func.func @graph() -> !stride.tensor<4xf32> {
  %t = plan.alloc 16 bytes
  // expected-error @+1 {{'plan.output' op is used by 'stride.neg'; only func.return uses a graph output}}
  %r = plan.output %t : !stride.tensor<4xf32>
  %n = stride.neg %r : !stride.tensor<4xf32> -> !stride.tensor<4xf32>
  return %n : !stride.tensor<4xf32>
}

// -----

func.func @graph() {
  %c = stride.constant dense<1.0> : tensor<4xf32> : !stride.tensor<4xf32>
  // expected-error @+1 {{'plan.input' op expects an argument of the enclosing function}}
  %in = plan.input %c : !stride.tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{'plan.state' op initial value of type 'tensor<4xf32>' does not match the shape and element type of '!stride.tensor<8xf32, strides = [1], offset = 0>'}}
%s = plan.state "cache" init dense<0.0> : tensor<4xf32> as !stride.tensor<8xf32>

// -----

// expected-error @+1 {{'plan.state' op expects a non-empty name}}
%s = plan.state "" init dense<0.0> : tensor<4xf32> as !stride.tensor<4xf32>

// -----

func.func @gather_with_reduction(%a: !plan.buffer, %b: !plan.buffer) {
  // expected-error @+1 {{'plan.collective' op is an all_gather, which takes no reduction}}
  plan.collective all_gather reduction sum %a[0] to %b count 4 x f32 world_size 2
  return
}

// -----

func.func @reduce_without_reduction(%a: !plan.buffer, %b: !plan.buffer) {
  // expected-error @+1 {{'plan.collective' op needs a reduction (sum, avg, max or min)}}
  plan.collective all_reduce %a[0] to %b count 4 x f32 world_size 2
  return
}

// -----

func.func @i16(%a: !plan.buffer, %b: !plan.buffer) {
  // expected-error @+1 {{'plan.collective' op exchanges elements of type 'i16'; NCCL takes f16, bf16, f32, f64 and integers of 8, 32 and 64 bits (and i1 in an all_gather)}}
  plan.collective all_reduce reduction sum %a[0] to %b count 4 x i16 world_size 2
  return
}

// -----

func.func @integer_avg(%a: !plan.buffer, %b: !plan.buffer) {
  // expected-error @+1 {{'plan.collective' op averages elements of type 'i32'; avg takes floating-point elements}}
  plan.collective all_reduce reduction avg %a[0] to %b count 4 x i32 world_size 2
  return
}

// -----

func.func @wait_on_own_stream() {
  %e = plan.record_event on collective stream
  // expected-error @+1 {{'plan.wait_event' op waits on the collective stream for an event that stream recorded; a stream waits for the other stream's events (its own steps run in order)}}
  plan.wait_event %e on collective stream
  return
}

// -----

func.func @wait_for_an_argument(%e: !plan.event) {
  // expected-error @+1 {{'plan.wait_event' op waits for an event that no plan.record_event in this function records}}
  plan.wait_event %e
  return
}

// -----

plan.executable @k {
  stride.kernel "neg" -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
}
func.func @graph(%arg0: !stride.tensor<4xf32>) {
  %in = plan.input %arg0 : !stride.tensor<4xf32>
  %out = plan.alloc 16 bytes
  // expected-error @+1 {{'plan.dispatch' op has l2_resident_bytes without l2_resident_operand; an L2 window needs both}}
  plan.dispatch @k::@neg(%in, %out) {l2_resident_bytes = 16 : i64}
  return
}

// -----

plan.executable @k {
  stride.kernel "neg" -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
}
func.func @graph(%arg0: !stride.tensor<4xf32>) {
  %in = plan.input %arg0 : !stride.tensor<4xf32>
  %out = plan.alloc 16 bytes
  // expected-error @+1 {{'plan.dispatch' op keeps operand 0 in L2, which is no plan.constant; only a module constant is the same bytes at every run}}
  plan.dispatch @k::@neg(%in, %out) {l2_resident_operand = 0 : i64, l2_resident_bytes = 16 : i64}
  return
}

// -----

plan.executable @k {
  stride.kernel "neg" -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
}
func.func @graph() {
  %c = plan.constant dense<1.0> : tensor<4xf32> as !stride.tensor<4xf32>
  %out = plan.alloc 16 bytes
  // expected-error @+1 {{'plan.dispatch' op keeps 32 bytes of operand 0 in L2, but the constant has 16 bytes}}
  plan.dispatch @k::@neg(%c, %out) {l2_resident_operand = 0 : i64, l2_resident_bytes = 32 : i64}
  return
}

// -----

plan.executable @k {
  stride.kernel "neg" -> (!stride.tensor<4xf32>) {
  ^bb0(%a: !stride.tensor<4xf32>):
    stride.yield %a : !stride.tensor<4xf32>
  }
}
func.func @graph() {
  %c = plan.constant dense<1.0> : tensor<4xf32> as !stride.tensor<4xf32>
  %out = plan.alloc 16 bytes
  // expected-error @+1 {{'plan.dispatch' op keeps operand 2 in L2, but has 2 buffers}}
  plan.dispatch @k::@neg(%c, %out) {l2_resident_operand = 2 : i64, l2_resident_bytes = 16 : i64}
  return
}
