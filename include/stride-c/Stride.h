/*===- stride-c/Stride.h - The C API of the compiler and runtime ---*- C -*-===*\
|*                                                                            *|
|* Part of the Stride project, under the Apache License v2.0 with LLVM        *|
|* Exceptions. See LICENSE for license information.                           *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Stride for C and for foreign-function interfaces (Python ctypes, Rust,     *|
|* Go, ...): opaque handles, plain C types, and a status code from every      *|
|* call that can fail. The message of the last failure on the calling thread  *|
|* is stride_last_error_message(). Nothing here prints, exits or aborts;      *|
|* compile diagnostics come back as data.                                     *|
|*                                                                            *|
|*   stride_compiler *compiler;                                               *|
|*   stride_compiler_create(&compiler);                                       *|
|*   stride_compiler_set_arch(compiler, "sm_90");                             *|
|*   stride_compile_result *result;                                           *|
|*   stride_compiler_compile(compiler, text, strlen(text), "graph", &result); *|
|*   if (!stride_compile_result_succeeded(result)) { ...diagnostics... }      *|
|*   stride_module *module;                                                   *|
|*   stride_compile_result_get_module(result, &module);                       *|
|*                                                                            *|
|* Every handle is freed by its stride_*_destroy function (which accepts      *|
|* NULL). Strings returned by accessors belong to the handle and live as      *|
|* long as it does. A handle may be used by one thread at a time; different   *|
|* handles (e.g. one compiler per thread) may be used concurrently, and       *|
|* threads may share a runtime and an executable to create invocations.      *|
|* python-free-docs/embedding.md walks through a complete program.                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef STRIDE_C_STRIDE_H
#define STRIDE_C_STRIDE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Status
 *===----------------------------------------------------------------------===*/

/* In C++ every enum has `int` as its fixed underlying type, so any value a C
   caller passes (say 42) is a valid value that the library refuses with
   STRIDE_INVALID_ARGUMENT, not undefined behaviour. */
#ifdef __cplusplus
#define STRIDE_ENUM(name) enum name : int
#else
#define STRIDE_ENUM(name) enum name
#endif

/* Every failure carries one of these codes, set where it happened; the C++
   API's stride::ErrorCode has the same values. python-free-docs/errors.md lists which
   failures carry which code. */
typedef STRIDE_ENUM(stride_status) {
  STRIDE_OK = 0,
  /** A NULL handle or output pointer, an unknown enum value, a wrong count,
      arrays that do not match the signature, a malformed .npy file. */
  STRIDE_INVALID_ARGUMENT = 1,
  /** The graph did not compile; the compile result holds the diagnostics. */
  STRIDE_COMPILE_FAILED = 2,
  /** Module bytes that are not a valid `.stridemod` (corrupt, truncated,
      inconsistent). */
  STRIDE_INVALID_MODULE = 3,
  /** What running needs is not on this machine: no NVIDIA driver
      (libcuda.so.1), a driver too old for this runtime, no CUDA device. */
  STRIDE_UNAVAILABLE = 4,
  /** A bug in Stride, or an unexpected failure of the CUDA driver. */
  STRIDE_INTERNAL = 5,
  /** A file, a device ordinal or a kernel symbol that does not exist. */
  STRIDE_NOT_FOUND = 6,
  /** Out of device memory, or over an allocator's limit. */
  STRIDE_RESOURCE_EXHAUSTED = 7,
  /** The module does not fit the device or driver: another GPU architecture,
      another module format version, PTX newer than the driver. */
  STRIDE_INCOMPATIBLE = 8,
  /** A kernel faulted (an illegal address, a failed run-time check): the
      CUDA context is unusable; the process must be restarted to use the GPU
      again. */
  STRIDE_DEVICE_FAULT = 9,

  /* Names of release 0.1, kept so that its callers compile: */
  /** No driver is one case of STRIDE_UNAVAILABLE. */
  STRIDE_NO_DRIVER = STRIDE_UNAVAILABLE,
  /** 0.1's status for every other runtime failure; each now has its own
      code, and this value is STRIDE_INTERNAL. */
  STRIDE_RUNTIME_ERROR = STRIDE_INTERNAL,
} stride_status;

/** "STRIDE_OK", "STRIDE_UNAVAILABLE", ... */
const char *stride_status_name(stride_status status);

/** The message of the last failed call on this thread ("" if none), e.g.
    "no CUDA driver found: libcuda.so.1 could not be loaded ...". Valid until
    the next Stride call on this thread. */
const char *stride_last_error_message(void);

/** "0.1.0". */
const char *stride_version(void);

/** The cache directory stridec uses unless told otherwise:
    $XDG_CACHE_HOME/stride/nvrtc, else ~/.cache/stride/nvrtc. */
const char *stride_default_cache_dir(void);

/*===----------------------------------------------------------------------===*
 * Compiler
 *===----------------------------------------------------------------------===*/

typedef struct stride_compiler stride_compiler;
typedef struct stride_compile_result stride_compile_result;

typedef STRIDE_ENUM(stride_emit_kind) {
  STRIDE_EMIT_MODULE = 0, /* a .stridemod module (CUBIN for the arch) */
  STRIDE_EMIT_MLIR = 1,   /* the stride IR after the pipeline, as text */
  STRIDE_EMIT_CUDA = 2,   /* the generated CUDA C++ */
  STRIDE_EMIT_PTX = 3,    /* PTX text for the arch's virtual architecture */
  STRIDE_EMIT_DOT = 4,    /* the kernel graph in Graphviz dot */
} stride_emit_kind;

/** A compiler with the default options: a module for sm_90, fused,
    vectorized, with runtime checks, illegal layouts rejected. */
stride_status stride_compiler_create(stride_compiler **out);
void stride_compiler_destroy(stride_compiler *compiler);

/** "sm_" and the compute capability's digits, e.g. "sm_80" for an A100. */
stride_status stride_compiler_set_arch(stride_compiler *compiler,
                                       const char *arch);
stride_status stride_compiler_set_emit(stride_compiler *compiler,
                                       stride_emit_kind emit);
/** Non-zero: give overlapping functional result layouts a dense layout
    (with a remark) instead of rejecting the graph. Default 0. */
stride_status stride_compiler_set_repair_layouts(stride_compiler *compiler,
                                                 int enable);
/** Optimization switches, each on (1) by default: kernel fusion, 4-wide
    vector accesses, device-side index and division checks. */
stride_status stride_compiler_set_fuse(stride_compiler *compiler, int enable);
stride_status stride_compiler_set_vectorize(stride_compiler *compiler,
                                            int enable);
stride_status stride_compiler_set_runtime_checks(stride_compiler *compiler,
                                                 int enable);
/** Non-zero: float index_add sums each output element's contributions in
    source order, so results are bit-identical run after run; a float
    scatter_add then fails to compile (stridec --deterministic). Default 0. */
stride_status stride_compiler_set_deterministic(stride_compiler *compiler,
                                                int enable);
/** Non-zero (the default): on sm_90 and later each kernel may start while
    the kernel before it drains, and waits for it in its own code
    (programmatic dependent launch, recorded per dispatch in the module;
    stridec --no-dependent-launch is 0). */
stride_status stride_compiler_set_dependent_launch(stride_compiler *compiler,
                                                   int enable);
/** Non-zero: f32 matrix products on TF32 tensor cores (stridec
    --allow-tf32). Default 0: f32 products round as f32. */
stride_status stride_compiler_set_allow_tf32(stride_compiler *compiler,
                                            int enable);
/** Size grids for a GPU of `count` multiprocessors (stridec
    --multiprocessors); 0 (the default): the arch's usual count, 132 for
    sm_90. */
stride_status stride_compiler_set_multiprocessors(stride_compiler *compiler,
                                                  unsigned count);
/** Keep NVRTC's output in `dir`, a content-addressed cache shared safely by
    concurrent compilers (see stride/Target/CUDA/NvrtcCache.h), so that compiling
    the same graph again skips NVRTC; stride_compiler_compile_file also keeps
    whole modules there, as stridec does (stride/Compiler/ModuleCache.h: a
    second compile of the same file's bytes, under the same path, with the
    same options and library, reads the module back without compiling; a
    compile that reported warnings or remarks is not kept). "" (the default)
    caches nothing; `stridec` uses stride_default_cache_dir(). */
stride_status stride_compiler_set_cache_dir(stride_compiler *compiler,
                                            const char *dir);
/** Run NVRTC on up to `jobs` translation units at once (stridec -j); 0 (the
    default): one per hardware thread. The module is the same for any count. */
stride_status stride_compiler_set_jobs(stride_compiler *compiler,
                                       unsigned jobs);

/** Compiles `length` bytes of graph text; `name` stands for the file in
    diagnostics (NULL: "<graph>"). On STRIDE_OK and on STRIDE_COMPILE_FAILED
    `*out` is a result to destroy; on other statuses it is NULL. */
stride_status stride_compiler_compile(const stride_compiler *compiler,
                                      const char *source, size_t length,
                                      const char *name,
                                      stride_compile_result **out);
/** Compiles the graph file at `path`; as stride_compiler_compile. */
stride_status stride_compiler_compile_file(const stride_compiler *compiler,
                                           const char *path,
                                           stride_compile_result **out);
/** Compiles a training step's two graph files together, as `stridec
    FORWARD --backward=BACKWARD` does: eager attention is fused across them,
    and the saved tensors the two modules name change to match (the
    forward returns each attention's logsumexp, output and mask instead of
    its probabilities; python-free-docs/attention.md, "Training graphs
    spelled out"). `*forward_out` and `*backward_out` are as `*out` of
    stride_compiler_compile; an error before the pipeline (reading,
    parsing, pairing) is in the forward's result, and the backward is
    compiled only once the forward has been: its result then reports no
    success and no diagnostics. The module cache is not used. */
stride_status stride_compiler_compile_training_step(
    const stride_compiler *compiler, const char *forward_path,
    const char *backward_path, stride_compile_result **forward_out,
    stride_compile_result **backward_out);

void stride_compile_result_destroy(stride_compile_result *result);
int stride_compile_result_succeeded(const stride_compile_result *result);
/** The text output (MLIR, CUDA, PTX, DOT); "" for a module. */
const char *stride_compile_result_text(const stride_compile_result *result);
/** The module file's bytes (NULL and 0 unless a module was compiled). */
const uint8_t *stride_compile_result_module_bytes(
    const stride_compile_result *result, size_t *size);

typedef STRIDE_ENUM(stride_severity) {
  STRIDE_SEVERITY_ERROR = 0,
  STRIDE_SEVERITY_WARNING = 1,
  STRIDE_SEVERITY_NOTE = 2,
  STRIDE_SEVERITY_REMARK = 3,
} stride_severity;

/** One diagnostic. `line` and `column` are 1-based, 0 when the diagnostic
    has no source location (then `file` names what it is about). */
typedef struct stride_diagnostic {
  stride_severity severity;
  const char *file;
  unsigned line;
  unsigned column;
  const char *message;
  size_t num_notes;
} stride_diagnostic;

size_t stride_compile_result_num_diagnostics(
    const stride_compile_result *result);
/** Diagnostic `index`, in the order they were reported. */
stride_status stride_compile_result_get_diagnostic(
    const stride_compile_result *result, size_t index, stride_diagnostic *out);
/** The graph node diagnostic `index` is about: an imported op's name in
    its torch.export archive (e.g. "slice_scatter_1"); "" when it has none or
    `index` is out of range. */
const char *stride_compile_result_diagnostic_node(
    const stride_compile_result *result, size_t index);
/** Note `note` of diagnostic `index`. */
stride_status stride_compile_result_get_note(const stride_compile_result *result,
                                             size_t index, size_t note,
                                             stride_diagnostic *out);
/** Every diagnostic as "file:line:col: error: message" lines, for a log. */
const char *stride_compile_result_format_diagnostics(
    const stride_compile_result *result);

/*===----------------------------------------------------------------------===*
 * Module: a parsed .stridemod and its signature (no GPU needed)
 *===----------------------------------------------------------------------===*/

typedef struct stride_module stride_module;

/** The module a successful STRIDE_EMIT_MODULE compile produced. */
stride_status stride_compile_result_get_module(
    const stride_compile_result *result, stride_module **out);
/** Parses module bytes (untrusted: a corrupt or foreign file is refused with
    STRIDE_INVALID_MODULE). `name` starts error messages (NULL: "module"). */
stride_status stride_module_load(const void *data, size_t size,
                                 const char *name, stride_module **out);
stride_status stride_module_load_file(const char *path, stride_module **out);
void stride_module_destroy(stride_module *module);

/** "sm_90". */
const char *stride_module_arch(const stride_module *module);
/** The graph's entry function, e.g. "seed_backward". */
const char *stride_module_entry_name(const stride_module *module);
size_t stride_module_num_inputs(const stride_module *module);
size_t stride_module_num_outputs(const stride_module *module);
/** The program's outputs that are None (a backward graph's gradients of
    inputs that need none): no buffer, not among the module's outputs. */
size_t stride_module_num_absent_outputs(const stride_module *module);
/** `*position`: where absent output `index` (0 <= index <
    stride_module_num_absent_outputs) stands among the program's outputs,
    the module's outputs filling the other positions in order; positions
    increase with `index`. */
stride_status stride_module_get_absent_output(const stride_module *module,
                                              size_t index, size_t *position);
/** A multi-line dump for a person (what `stridec --inspect` prints). */
const char *stride_module_describe(const stride_module *module);

typedef STRIDE_ENUM(stride_dtype) {
  STRIDE_DTYPE_F16 = 0,
  STRIDE_DTYPE_BF16 = 1,
  STRIDE_DTYPE_F32 = 2,
  STRIDE_DTYPE_F64 = 3,
  STRIDE_DTYPE_I1 = 4,
  STRIDE_DTYPE_I8 = 5,
  STRIDE_DTYPE_I32 = 6,
  STRIDE_DTYPE_I64 = 7,
} stride_dtype;

/** "f32", "bf16", "i1", ... */
const char *stride_dtype_name(stride_dtype dtype);
/** Bytes per element (i1 takes one byte). */
size_t stride_dtype_size(stride_dtype dtype);

/** One input or output of the signature. `shape` and `strides` (in
    elements) have `rank` entries; element (i_0, ..., i_n-1) lives at
    `storage_offset + sum_k i_k * strides[k]` of its buffer. */
typedef struct stride_tensor_info {
  const char *name;
  stride_dtype dtype;
  size_t rank;
  const int64_t *shape;
  const int64_t *strides;
  int64_t storage_offset;
  /** Bytes of device storage the layout reaches (what to allocate). */
  int64_t storage_bytes;
  /** Elements of the logical shape (1 for a scalar). */
  int64_t num_elements;
} stride_tensor_info;

stride_status stride_module_get_input(const stride_module *module,
                                      size_t index, stride_tensor_info *out);
stride_status stride_module_get_output(const stride_module *module,
                                       size_t index, stride_tensor_info *out);
/** `*input`: the input whose storage output `index` is, or -1. An aliased
    output (an input the graph returns as it is, or a view of one) has no
    buffer of its own: its layout (stride_module_get_output) addresses that
    input's buffer, the run writes nothing into it, and
    stride_invocation_run_device ignores its output pointer (pass 0). It
    shares memory with the input: a caller that writes either sees the
    change in the other (python-free-docs/embedding.md, "Aliased
    outputs"). */
stride_status stride_module_get_output_alias(const stride_module *module,
                                             size_t index, int64_t *input);

/*===----------------------------------------------------------------------===*
 * Runtime: running a module on a GPU
 *===----------------------------------------------------------------------===*/

typedef struct stride_runtime stride_runtime;
typedef struct stride_executable stride_executable;
typedef struct stride_invocation stride_invocation;

/** Opens CUDA device `device`. Without an NVIDIA driver or a device:
    STRIDE_UNAVAILABLE; an ordinal the machine does not have:
    STRIDE_NOT_FOUND. */
stride_status stride_runtime_create(int device, stride_runtime **out);
/** Destroy only after every executable and invocation made on it. */
void stride_runtime_destroy(stride_runtime *runtime);
/** e.g. "device 0 (NVIDIA H100 80GB HBM3, sm_90)". */
const char *stride_runtime_describe_device(const stride_runtime *runtime);
/** The device's arch, e.g. "sm_90": what to pass to
    stride_compiler_set_arch to compile for this device. */
const char *stride_runtime_device_arch(const stride_runtime *runtime);

/** Loads `module`'s code onto the runtime's device (the module may be
    destroyed afterwards): STRIDE_INCOMPATIBLE if the device cannot run the
    module's arch; STRIDE_NOT_FOUND if a library call needs a routine this
    runtime lacks or a shared library that is not installed (the message
    names it and what to install: cuBLASLt, libcublasLt.so.13, for a matrix
    product, looked up as STRIDE_CUBLASLT says), STRIDE_INCOMPATIBLE if that
    library lacks a symbol the runtime needs or cuBLASLt has no algorithm
    for a matrix product, STRIDE_INVALID_MODULE if a library call's
    descriptor is refused. An executable is immutable and may be shared by
    threads: each thread runs it through an invocation of its own. */
stride_status stride_executable_create(stride_runtime *runtime,
                                       const stride_module *module,
                                       stride_executable **out);
/** Destroy after the executable's invocations. */
void stride_executable_destroy(stride_executable *executable);

/** Runs on host memory through the executable's own invocation (one thread
    at a time; see stride_invocation_run_host). */
stride_status stride_executable_run_host(stride_executable *executable,
                                         const void *const *inputs,
                                         size_t num_inputs,
                                         void *const *outputs,
                                         size_t num_outputs);

/** Zero-copy through the executable's own invocation (one thread at a time;
    see stride_invocation_run_device). */
stride_status stride_executable_run_device(stride_executable *executable,
                                           const uint64_t *inputs,
                                           size_t num_inputs,
                                           const uint64_t *outputs,
                                           size_t num_outputs, void *stream);

/** The value input `input` holds for the next stride_invocation_run_device
    calls, where a symbol is bound from it (a decode step's position
    choosing its attention: python-free-docs/symbolic-sizes.md, "Symbols
    bound from a value"); stride_invocation_run_host reads it itself. The
    value chooses among steps that compute the same results: a value that
    differs from the buffer's, or none, costs time, never a result.
    STRIDE_INVALID_ARGUMENT for an index past the signature; nothing to do
    for an input no symbol is bound from. */
stride_status stride_invocation_bind_input_value(stride_invocation *invocation,
                                                 size_t input, int64_t value);

/*===----------------------------------------------------------------------===*
 * Invocation: one caller's buffers, stream and CUDA graph
 *===----------------------------------------------------------------------===*/

/** Options of a new invocation, or-ed together into the `flags` of
    stride_invocation_create (0: none). */
enum {
  /** Capture the plan into a CUDA graph on the first run and replay the
      graph afterwards: one driver call per run. */
  STRIDE_INVOCATION_CUDA_GRAPH = 1,
  /** Before the first run, time the candidate algorithms of each library
      call over the invocation's own buffers and keep the fastest: a
      matrix product's for every later run of any invocation of the
      executable, a cuDNN attention step's execution plan for the
      invocation's own runs (the C++ API's
      InvocationOptions::tuneLibraryCalls; python-free-docs/embedding.md,
      "Tuning library calls"). The first run then waits for its stream:
      do not set it for an invocation whose first run is captured into the
      caller's own CUDA graph. */
  STRIDE_INVOCATION_TUNE_LIBRARY_CALLS = 2,
};

/** What one thread (or request) needs to run an executable: its device
    buffers, a CUDA stream and its kernels' arguments. Invocations of one
    executable may run concurrently on different threads; one invocation is
    used by one thread at a time. `flags`: STRIDE_INVOCATION_* values or-ed
    together (1, STRIDE_INVOCATION_CUDA_GRAPH, is what earlier versions
    called use_cuda_graph); another bit is STRIDE_INVALID_ARGUMENT. */
stride_status stride_invocation_create(stride_executable *executable,
                                       int flags,
                                       stride_invocation **out);
/** As stride_invocation_create, but the new invocation uses the states of
    `share_states_with` (an invocation of this executable or another, on
    the same runtime) instead of states of its own: both read and write the
    same device storage, with no copy (a prefill module fills the KV cache
    a decode module goes on with; python-free-docs/state.md, "Sharing
    states"). The two modules must declare the same states (names, dtypes,
    shapes, layouts), or STRIDE_INVALID_ARGUMENT names the first difference
    and nothing is created. The storage lives until both are destroyed, in
    either order; either's stride_invocation_reset_states resets it. The
    two must not run at the same time (use one stream, or synchronize). */
stride_status stride_invocation_create_sharing_states(
    stride_executable *executable, int flags,
    stride_invocation *share_states_with, stride_invocation **out);
void stride_invocation_destroy(stride_invocation *invocation);

/** Runs on host memory: `inputs[i]` points to input i's elements in dense
    C order (num_elements of its dtype), `outputs[i]` to room for output i's
    elements in dense C order. Copies in, runs, synchronizes, copies out. */
stride_status stride_invocation_run_host(stride_invocation *invocation,
                                         const void *const *inputs,
                                         size_t num_inputs,
                                         void *const *outputs,
                                         size_t num_outputs);

/** Zero-copy: `inputs[i]` and `outputs[i]` are CUdeviceptr values of
    buffers (storage_bytes each) laid out as the signature says; an aliased
    output's pointer is ignored (stride_module_get_output_alias). Launches on
    `stream` (a CUstream; NULL is the legacy default stream) and returns
    without synchronizing. The invocation's temporaries serve one run at a
    time: use one invocation per stream. */
stride_status stride_invocation_run_device(stride_invocation *invocation,
                                           const uint64_t *inputs,
                                           size_t num_inputs,
                                           const uint64_t *outputs,
                                           size_t num_outputs, void *stream);

/*===----------------------------------------------------------------------===*
 * State: persistent buffers and mutated inputs (python-free-docs/state.md)
 *===----------------------------------------------------------------------===*/

/** The module's states: buffers that persist across the runs of an
    invocation (a KV cache), each initialized from the module (or zeroed)
    and updated in place by the plan. */
size_t stride_module_num_states(const stride_module *module);
stride_status stride_module_get_state(const stride_module *module,
                                      size_t index, stride_tensor_info *out);
/** `*out` is 1 when the graph mutates input `index`: the plan writes its
    new value into the input's storage (with stride_invocation_run_device,
    the caller's buffer). */
stride_status stride_module_input_is_mutated(const stride_module *module,
                                             size_t index, int *out);
/** `*out` is 1 when state `index` starts as zeros, 0 when it starts as
    the bytes the module stores for it (what `stridec --inspect` prints as
    "initially zeros" or "initially the module's N bytes"). */
stride_status stride_module_state_starts_zeroed(const stride_module *module,
                                                size_t index, int *out);

/** Copies state `name`'s value, dense C order, into `data` (`size` bytes:
    num_elements times the dtype's size). */
stride_status stride_invocation_read_state(stride_invocation *invocation,
                                           const char *name, void *data,
                                           size_t size);
/** Sets `count` states, all or nothing: state names[i] to data[i] (dense C
    order, sizes[i] bytes). Every name, size and value is checked before any
    state is written; STRIDE_INVALID_ARGUMENT names the first bad one. */
stride_status stride_invocation_write_states(stride_invocation *invocation,
                                             size_t count,
                                             const char *const *names,
                                             const void *const *data,
                                             const size_t *sizes);
/** One value for stride_invocation_write_state_values: state `name` set to
    `size` bytes at `data`, `rank` dims of `shape` of `dtype`, dense C
    order. */
typedef struct stride_state_value {
  const char *name;
  stride_dtype dtype;
  size_t rank;
  const int64_t *shape;
  const void *data;
  size_t size;
} stride_state_value;
/** As stride_invocation_write_states, with each value's dtype and shape
    checked against its state's too (a value of the right size but another
    shape or dtype is refused: STRIDE_INVALID_ARGUMENT, "state 'k_cache'
    expects f32 of shape [1, 2, 8, 4], but was given f32 of shape
    [2, 1, 8, 4]"); all or nothing. */
stride_status
stride_invocation_write_state_values(stride_invocation *invocation,
                                     size_t count,
                                     const stride_state_value *values);
/** Sets every state back to its initial value. */
stride_status stride_invocation_reset_states(stride_invocation *invocation);

#ifdef __cplusplus
}
#endif

#endif /* STRIDE_C_STRIDE_H */
