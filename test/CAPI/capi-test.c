/*===- capi-test.c - The C API, from C --------------------------------------===*\
|*                                                                            *|
|* Part of the Stride project, under the Apache License v2.0 with LLVM        *|
|* Exceptions. See LICENSE for license information.                           *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Written in C (C11) and linked against libstride.so, as an FFI user would.  *|
|* Prints what it sees; capi.test checks the output with FileCheck. Needs no  *|
|* GPU: without a driver it checks that creating a runtime says so; with one  *|
|* it also runs a graph on host arrays and checks the result. With           *|
|* --run MODULE it only loads a module of the add graph, runs it and prints   *|
|* the status of each step: capi.test runs that mode against the CUDA driver  *|
|* test double to see each runtime error's status. --repair FILE prints the   *|
|* diagnostics of a repaired compile with their graph nodes; --cache DIR     *|
|* FILE shows that compile_file keeps whole modules in the cache directory;  *|
|* --train FORWARD BACKWARD compiles a training step's two archives together.*|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* fileno, dup, dup2 */
#define _POSIX_C_SOURCE 200809L

#include "stride-c/Stride.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *kAddGraph =
    "func.func @add(%x: !stride.tensor<2x3xf32>, %y: !stride.tensor<2x3xf32>)\n"
    "    -> !stride.tensor<2x3xf32> {\n"
    "  %z = stride.add %x, %y : !stride.tensor<2x3xf32>,\n"
    "      !stride.tensor<2x3xf32> -> !stride.tensor<2x3xf32>\n"
    "  return %z : !stride.tensor<2x3xf32>\n"
    "}\n";

/* Two kernels: a row sum, then exp and a sum of the 64 row sums. */
static const char *kTwoKernelGraph =
    "func.func @two(%x: !stride.tensor<64x300xf32>) -> !stride.tensor<f32> {\n"
    "  %s = stride.sum %x dims [1] : !stride.tensor<64x300xf32>\n"
    "      -> !stride.tensor<64xf32>\n"
    "  %e = stride.exp %s : !stride.tensor<64xf32> -> !stride.tensor<64xf32>\n"
    "  %t = stride.sum %e dims [0] : !stride.tensor<64xf32>\n"
    "      -> !stride.tensor<f32>\n"
    "  return %t : !stride.tensor<f32>\n"
    "}\n";

/* A backward graph's outputs (None, g, None): two absent. */
static const char *kAbsentOutputsGraph =
    "func.func @backward(%t: !stride.tensor<4xf32>) -> !stride.tensor<4xf32>\n"
    "    attributes {stride.absent_outputs = array<i64: 0, 2>} {\n"
    "  %g = stride.exp %t : !stride.tensor<4xf32> -> !stride.tensor<4xf32>\n"
    "  return %g : !stride.tensor<4xf32>\n"
    "}\n";

/* Returns exp(t) and t itself: output 1 aliases input 0. */
static const char *kAliasGraph =
    "func.func @alias(%t: !stride.tensor<4xf32>)\n"
    "    -> (!stride.tensor<4xf32>, !stride.tensor<4xf32>) {\n"
    "  %g = stride.exp %t : !stride.tensor<4xf32> -> !stride.tensor<4xf32>\n"
    "  return %g, %t : !stride.tensor<4xf32>, !stride.tensor<4xf32>\n"
    "}\n";

/* The result type has 9 columns where exp keeps 8. */
static const char *kMalformedGraph =
    "func.func @bad(%x: !stride.tensor<4x8xf32>) -> !stride.tensor<4x9xf32> {\n"
    "  %y = stride.exp %x : !stride.tensor<4x8xf32> -> !stride.tensor<4x9xf32>\n"
    "  return %y : !stride.tensor<4x9xf32>\n"
    "}\n";

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("FAILED: %s (line %d): %s\n", #cond, __LINE__,                    \
             stride_last_error_message());                                     \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static void printTensor(const char *kind, size_t index,
                        const stride_tensor_info *t) {
  printf("%s %zu: %s %s [", kind, index, t->name, stride_dtype_name(t->dtype));
  for (size_t d = 0; d < t->rank; ++d)
    printf("%s%lld", d ? ", " : "", (long long)t->shape[d]);
  printf("] strides [");
  for (size_t d = 0; d < t->rank; ++d)
    printf("%s%lld", d ? ", " : "", (long long)t->strides[d]);
  printf("] offset %lld, %lld bytes\n", (long long)t->storage_offset,
         (long long)t->storage_bytes);
}

/* fds 1 and 2 go to a temporary file while a library call runs, so that
   anything the library printed can be counted. */
typedef struct {
  FILE *file;
  int saved[2];
} capture;

static void captureBegin(capture *c) {
  fflush(stdout);
  fflush(stderr);
  c->file = tmpfile();
  for (int fd = 1; fd <= 2; ++fd) {
    c->saved[fd - 1] = dup(fd);
    dup2(fileno(c->file), fd);
  }
}

static long captureEnd(capture *c) {
  fflush(stdout);
  fflush(stderr);
  for (int fd = 1; fd <= 2; ++fd) {
    dup2(c->saved[fd - 1], fd);
    close(c->saved[fd - 1]);
  }
  fseek(c->file, 0, SEEK_END);
  long size = ftell(c->file);
  fclose(c->file);
  return size;
}

static stride_module *compileAdd(stride_compiler *compiler) {
  stride_compile_result *result = NULL;
  stride_status s = stride_compiler_compile(compiler, kAddGraph,
                                            strlen(kAddGraph), "add.mlir",
                                            &result);
  printf("compile add: %s\n", stride_status_name(s));
  EXPECT(s == STRIDE_OK && stride_compile_result_succeeded(result));
  size_t size = 0;
  const uint8_t *bytes = stride_compile_result_module_bytes(result, &size);
  EXPECT(bytes != NULL && size > 0);

  /* The module of the result, and the same module parsed from its bytes. */
  stride_module *module = NULL, *reparsed = NULL;
  EXPECT(stride_compile_result_get_module(result, &module) == STRIDE_OK);
  EXPECT(stride_module_load(bytes, size, "add.stridemod", &reparsed) ==
         STRIDE_OK);
  EXPECT(strcmp(stride_module_describe(module),
                stride_module_describe(reparsed)) == 0);
  stride_module_destroy(reparsed);
  stride_compile_result_destroy(result);
  return module;
}

/* stride_compiler_set_jobs: any count compiles the same module. */
static void checkJobs(stride_compiler *compiler) {
  EXPECT(stride_compiler_set_jobs(NULL, 2) != STRIDE_OK);
  EXPECT(stride_compiler_set_jobs(compiler, 2) == STRIDE_OK);
  stride_module *two = compileAdd(compiler);
  EXPECT(stride_compiler_set_jobs(compiler, 1) == STRIDE_OK);
  stride_module *one = compileAdd(compiler);
  printf("jobs: %s\n", strcmp(stride_module_describe(two),
                              stride_module_describe(one)) == 0
                           ? "same module"
                           : "different modules");
  stride_module_destroy(two);
  stride_module_destroy(one);
  EXPECT(stride_compiler_set_jobs(compiler, 0) == STRIDE_OK);
}

/* stride_compiler_set_deterministic is recorded in the module. */
static void checkDeterministic(stride_compiler *compiler) {
  EXPECT(stride_compiler_set_deterministic(NULL, 1) != STRIDE_OK);
  EXPECT(stride_compiler_set_deterministic(compiler, 1) == STRIDE_OK);
  stride_module *module = compileAdd(compiler);
  const char *text = stride_module_describe(module);
  const char *line = strstr(text, "deterministic:");
  printf("deterministic: %s\n", line ? "recorded" : "missing");
  stride_module_destroy(module);
  EXPECT(stride_compiler_set_deterministic(compiler, 0) == STRIDE_OK);
}

/* stride_compiler_set_allow_tf32 refuses NULL and takes a compiler;
   stride_default_cache_dir names stridec's cache. */
static void checkTf32AndCacheDir(stride_compiler *compiler) {
  EXPECT(stride_compiler_set_allow_tf32(NULL, 1) == STRIDE_INVALID_ARGUMENT);
  EXPECT(stride_compiler_set_allow_tf32(compiler, 1) == STRIDE_OK);
  stride_module_destroy(compileAdd(compiler));
  EXPECT(stride_compiler_set_allow_tf32(compiler, 0) == STRIDE_OK);
  const char *dir = stride_default_cache_dir();
  printf("default cache dir: %s\n",
         strstr(dir, "stride/nvrtc") ? "ends in stride/nvrtc" : dir);
}

/* The module of `graph` (named `name`), compiled; `*result` keeps it and
   is destroyed by the caller. */
static stride_module *compileGraph(stride_compiler *compiler,
                                   const char *graph, const char *name,
                                   stride_compile_result **result) {
  stride_module *module = NULL;
  EXPECT(stride_compiler_compile(compiler, graph, strlen(graph), name,
                                 result) == STRIDE_OK);
  EXPECT(stride_compile_result_get_module(*result, &module) == STRIDE_OK);
  return module;
}

/* The two dispatch steps of kTwoKernelGraph's module, as
   stride_module_describe prints them, each after `what`. */
static void printDispatches(stride_compiler *compiler, const char *what) {
  stride_compile_result *result = NULL;
  stride_module *module =
      compileGraph(compiler, kTwoKernelGraph, "two.mlir", &result);
  const char *text = module ? stride_module_describe(module) : "";
  for (const char *step = strstr(text, "dispatch "); step;
       step = strstr(step + 1, "dispatch ")) {
    const char *end = strchr(step, '\n');
    int length = end ? (int)(end - step) : (int)strlen(step);
    printf("%s: %.*s\n", what, length, step);
  }
  stride_module_destroy(module);
  stride_compile_result_destroy(result);
}

/* stride_compiler_set_dependent_launch and _set_multiprocessors change the
   plan: the second kernel's launch is dependent or not, the first's grid
   sized for 132 multiprocessors or for one. */
static void checkLaunchOptions(stride_compiler *compiler) {
  EXPECT(stride_compiler_set_dependent_launch(NULL, 0) != STRIDE_OK);
  EXPECT(stride_compiler_set_multiprocessors(NULL, 1) != STRIDE_OK);
  printDispatches(compiler, "default");
  EXPECT(stride_compiler_set_dependent_launch(compiler, 0) == STRIDE_OK);
  printDispatches(compiler, "no dependent launch");
  EXPECT(stride_compiler_set_dependent_launch(compiler, 1) == STRIDE_OK);
  EXPECT(stride_compiler_set_multiprocessors(compiler, 1) == STRIDE_OK);
  printDispatches(compiler, "one multiprocessor");
  EXPECT(stride_compiler_set_multiprocessors(compiler, 0) == STRIDE_OK);
}

static void printSignature(const stride_module *module) {
  printf("module: @%s for %s, %zu inputs, %zu outputs\n",
         stride_module_entry_name(module), stride_module_arch(module),
         stride_module_num_inputs(module), stride_module_num_outputs(module));
  stride_tensor_info t;
  for (size_t i = 0; i < stride_module_num_inputs(module); ++i)
    if (stride_module_get_input(module, i, &t) == STRIDE_OK)
      printTensor("input", i, &t);
  for (size_t i = 0; i < stride_module_num_outputs(module); ++i)
    if (stride_module_get_output(module, i, &t) == STRIDE_OK)
      printTensor("output", i, &t);
  stride_status s = stride_module_get_input(module, 7, &t);
  printf("input 7: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  /* States and mutated inputs: a graph without state has none. */
  int mutated = -1;
  EXPECT(stride_module_input_is_mutated(module, 0, &mutated) == STRIDE_OK);
  s = stride_module_get_state(module, 0, &t);
  printf("states: %zu, input 0 mutated: %d, state 0: %s: %s\n",
         stride_module_num_states(module), mutated, stride_status_name(s),
         stride_last_error_message());
  EXPECT(stride_invocation_reset_states(NULL) == STRIDE_INVALID_ARGUMENT);
  int zeroed = -1;
  s = stride_module_state_starts_zeroed(module, 0, &zeroed);
  printf("state 0 starts zeroed: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  EXPECT(stride_invocation_write_state_values(NULL, 0, NULL) ==
         STRIDE_INVALID_ARGUMENT);
}

/* The absent outputs' positions, and an index past them. */
static void checkAbsentOutputs(stride_compiler *compiler) {
  stride_compile_result *result = NULL;
  stride_module *module =
      compileGraph(compiler, kAbsentOutputsGraph, "backward.mlir", &result);
  printf("absent outputs: %zu of %zu\n",
         stride_module_num_absent_outputs(module),
         stride_module_num_absent_outputs(module) +
             stride_module_num_outputs(module));
  size_t position = 0;
  for (size_t i = 0; i < stride_module_num_absent_outputs(module); ++i)
    if (stride_module_get_absent_output(module, i, &position) == STRIDE_OK)
      printf("absent output %zu: position %zu\n", i, position);
  stride_status s = stride_module_get_absent_output(module, 2, &position);
  printf("absent output 2: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  EXPECT(stride_module_num_absent_outputs(NULL) == 0);
  stride_module_destroy(module);
  stride_compile_result_destroy(result);
}

/* Which input each output aliases (-1: none), and an index past them. */
static void checkOutputAliases(stride_compiler *compiler) {
  stride_compile_result *result = NULL;
  stride_module *module =
      compileGraph(compiler, kAliasGraph, "alias.mlir", &result);
  int64_t input = 0;
  for (size_t i = 0; i < stride_module_num_outputs(module); ++i)
    if (stride_module_get_output_alias(module, i, &input) == STRIDE_OK)
      printf("output %zu aliases input %lld\n", i, (long long)input);
  stride_status s = stride_module_get_output_alias(module, 2, &input);
  printf("output 2 alias: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  EXPECT(stride_module_get_output_alias(module, 0, NULL) ==
         STRIDE_INVALID_ARGUMENT);
  stride_module_destroy(module);
  stride_compile_result_destroy(result);
}

static void checkMalformedGraph(stride_compiler *compiler) {
  stride_compile_result *result = NULL;
  capture c;
  captureBegin(&c);
  stride_status s = stride_compiler_compile(
      compiler, kMalformedGraph, strlen(kMalformedGraph), "bad.mlir", &result);
  long printed = captureEnd(&c);
  printf("compile bad: %s, %ld bytes printed by the library\n",
         stride_status_name(s), printed);
  EXPECT(result != NULL && !stride_compile_result_succeeded(result));
  size_t n = stride_compile_result_num_diagnostics(result);
  for (size_t i = 0; i < n; ++i) {
    stride_diagnostic d;
    EXPECT(stride_compile_result_get_diagnostic(result, i, &d) == STRIDE_OK);
    printf("diagnostic %zu: severity %d at %s:%u:%u, %zu notes: %s\n", i,
           (int)d.severity, d.file, d.line, d.column, d.num_notes, d.message);
  }
  stride_diagnostic d;
  s = stride_compile_result_get_diagnostic(result, n, &d);
  printf("diagnostic %zu: %s\n", n, stride_status_name(s));
  stride_compile_result_destroy(result);
}

static void checkIllegalLayoutNotes(stride_compiler *compiler,
                                    const char *path) {
  stride_compile_result *result = NULL;
  stride_status s = stride_compiler_compile_file(compiler, path, &result);
  printf("compile fx: %s\n", stride_status_name(s));
  stride_diagnostic d, note;
  EXPECT(stride_compile_result_get_diagnostic(result, 0, &d) == STRIDE_OK);
  EXPECT(d.num_notes > 0);
  EXPECT(stride_compile_result_get_note(result, 0, 0, &note) == STRIDE_OK);
  printf("fx error at line %u: %s\n", d.line, d.message);
  printf("fx note severity %d: %s\n", (int)note.severity, note.message);
  stride_compile_result_destroy(result);
}

static void checkBadInputs(stride_compiler *compiler) {
  static const unsigned char junk[32] = {1, 2, 3};
  stride_module *module = (stride_module *)1;
  stride_status s = stride_module_load(junk, sizeof junk, "junk.stridemod",
                                       &module);
  printf("load junk: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  EXPECT(module == NULL);
  s = stride_compiler_set_emit(compiler, (stride_emit_kind)42);
  printf("emit 42: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  s = stride_compiler_compile(NULL, "", 0, NULL, NULL);
  printf("null out: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  s = stride_module_load_file("/nonexistent/m.stridemod", &module);
  printf("load missing: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
}

/* With a GPU: z = x + y on host arrays, through the executable's own
   invocation and through one that replays a CUDA graph. */
static void runAdd(stride_runtime *runtime, const stride_module *module) {
  stride_executable *exe = NULL;
  EXPECT(stride_executable_create(runtime, module, &exe) == STRIDE_OK);
  float x[6] = {0, 1, 2, 3, 4, 5}, y[6] = {10, 20, 30, 40, 50, 60}, z[6];
  const void *inputs[2] = {x, y};
  void *outputs[1] = {z};
  stride_status s = stride_executable_run_host(exe, inputs, 2, outputs, 1);
  printf("run: %s, z = %g %g %g %g %g %g\n", stride_status_name(s), z[0], z[1],
         z[2], z[3], z[4], z[5]);
  stride_invocation *inv = NULL;
  EXPECT(stride_invocation_create(exe, STRIDE_INVOCATION_CUDA_GRAPH, &inv) ==
         STRIDE_OK);
  memset(z, 0, sizeof z);
  s = stride_invocation_run_host(inv, inputs, 2, outputs, 1);
  printf("run with a CUDA graph: %s, z = %g %g %g %g %g %g\n",
         stride_status_name(s), z[0], z[1], z[2], z[3], z[4], z[5]);
  stride_invocation_destroy(inv);
  stride_executable_destroy(exe);
}

/* One run of the add graph's invocation `inv` on zeros. */
static stride_status runOnZeros(stride_invocation *inv) {
  float x[6] = {0}, y[6] = {0}, z[6];
  const void *inputs[2] = {x, y};
  void *outputs[1] = {z};
  return stride_invocation_run_host(inv, inputs, 2, outputs, 1);
}

/* A second invocation of `exe` on the states of `inv` (the add graph has
   none, so they match), run once; and one sharing with NULL. */
static stride_status runSharingStates(stride_executable *exe,
                                      stride_invocation *inv) {
  stride_invocation *shared = NULL;
  stride_status s = stride_invocation_create_sharing_states(exe, 1, NULL, &shared);
  printf("sharing with NULL: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  s = stride_invocation_create_sharing_states(exe, 1, inv, &shared);
  printf("invocation sharing states: %s\n", stride_status_name(s));
  if (s == STRIDE_OK) {
    int64_t shape[1] = {4};
    float zeros[4] = {0};
    stride_state_value value = {"k_cache", STRIDE_DTYPE_F32, 1, shape,
                                zeros, sizeof zeros};
    stride_status w = stride_invocation_write_state_values(shared, 1, &value);
    printf("write state values: %s: %s\n", stride_status_name(w),
           stride_last_error_message());
    s = stride_invocation_reset_states(shared);
  }
  if (s == STRIDE_OK) {
    s = runOnZeros(shared);
    printf("run sharing states: %s\n", stride_status_name(s));
  }
  stride_invocation_destroy(shared);
  return s;
}

/* Invocations of `exe` with an unknown flag (refused) and with library
   tuning and a CUDA graph (created and run once). */
static stride_status runWithFlags(stride_executable *exe) {
  stride_invocation *inv = NULL;
  stride_status s = stride_invocation_create(exe, 4, &inv);
  printf("unknown flags: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  s = stride_invocation_create(exe,
                               STRIDE_INVOCATION_CUDA_GRAPH |
                                   STRIDE_INVOCATION_TUNE_LIBRARY_CALLS,
                               &inv);
  if (s == STRIDE_OK)
    s = runOnZeros(inv);
  printf("tuned, with a CUDA graph: %s\n", stride_status_name(s));
  stride_invocation_destroy(inv);
  return s;
}

/* The value of an input for device runs: nothing to do for an input no
   symbol is bound from (kAddGraph binds none), refused past the
   signature. */
static void bindInputValues(stride_invocation *inv) {
  stride_status s = stride_invocation_bind_input_value(inv, 0, 5);
  printf("bind input 0's value: %s\n", stride_status_name(s));
  s = stride_invocation_bind_input_value(inv, 9, 5);
  printf("bind input 9's value: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  EXPECT(stride_invocation_bind_input_value(NULL, 0, 5) ==
         STRIDE_INVALID_ARGUMENT);
}

/* --run MODULE (of kAddGraph): each step's status, until one fails. */
static int runSteps(const char *path) {
  stride_module *module = NULL;
  stride_status s = stride_module_load_file(path, &module);
  printf("module: %s\n", stride_status_name(s));
  stride_runtime *runtime = NULL;
  if (s == STRIDE_OK) {
    s = stride_runtime_create(0, &runtime);
    printf("runtime: %s\n", stride_status_name(s));
  }
  stride_executable *exe = NULL;
  if (s == STRIDE_OK) {
    s = stride_executable_create(runtime, module, &exe);
    printf("executable: %s\n", stride_status_name(s));
  }
  stride_invocation *inv = NULL;
  if (s == STRIDE_OK) {
    s = stride_invocation_create(exe, 0, &inv);
    printf("invocation: %s\n", stride_status_name(s));
  }
  if (s == STRIDE_OK) {
    s = runOnZeros(inv);
    printf("run: %s\n", stride_status_name(s));
  }
  if (s == STRIDE_OK)
    bindInputValues(inv);
  if (s == STRIDE_OK)
    s = runSharingStates(exe, inv);
  if (s == STRIDE_OK)
    s = runWithFlags(exe);
  if (s != STRIDE_OK)
    printf("message: %s\n", stride_last_error_message());
  stride_invocation_destroy(inv);
  stride_executable_destroy(exe);
  stride_runtime_destroy(runtime);
  stride_module_destroy(module);
  return 0;
}

/* --repair FILE: compiles FILE (a torch.export archive) with layout repair
   and prints each diagnostic with the graph node it names. */
static int printRepairs(const char *path) {
  stride_compiler *compiler = NULL;
  EXPECT(stride_compiler_create(&compiler) == STRIDE_OK);
  EXPECT(stride_compiler_set_repair_layouts(compiler, 1) == STRIDE_OK);
  EXPECT(stride_compiler_set_emit(compiler, STRIDE_EMIT_MLIR) == STRIDE_OK);
  stride_compile_result *result = NULL;
  stride_status s = stride_compiler_compile_file(compiler, path, &result);
  printf("compile: %s\n", stride_status_name(s));
  size_t n = stride_compile_result_num_diagnostics(result);
  for (size_t i = 0; i < n; ++i) {
    stride_diagnostic d;
    EXPECT(stride_compile_result_get_diagnostic(result, i, &d) == STRIDE_OK);
    printf("diagnostic %zu: severity %d, node '%s': %s\n", i, (int)d.severity,
           stride_compile_result_diagnostic_node(result, i), d.message);
  }
  printf("node of diagnostic %zu: '%s'\n", n,
         stride_compile_result_diagnostic_node(result, n));
  stride_compile_result_destroy(result);
  stride_compiler_destroy(compiler);
  printf("%d failures\n", failures);
  return failures != 0;
}

/* The one .stridemod file in `dir` (a module cache holding one module), as
   a path in `path`; 0 if there is not exactly one. */
static int onlyModuleIn(const char *dir, char *path, size_t size) {
  DIR *d = opendir(dir);
  int count = 0;
  for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
    const char *dot = strrchr(e->d_name, '.');
    if (dot && strcmp(dot, ".stridemod") == 0 && ++count == 1)
      snprintf(path, size, "%s/%s", dir, e->d_name);
  }
  if (d)
    closedir(d);
  return count == 1;
}

/* Compiles `path` to a module and prints its entry function's name. */
static void compileCached(stride_compiler *compiler, const char *path,
                          const char *what) {
  stride_compile_result *result = NULL;
  stride_module *module = NULL;
  stride_status s = stride_compiler_compile_file(compiler, path, &result);
  EXPECT(stride_compile_result_get_module(result, &module) == STRIDE_OK);
  printf("%s: %s, @%s\n", what, stride_status_name(s),
         module ? stride_module_entry_name(module) : "?");
  stride_module_destroy(module);
  stride_compile_result_destroy(result);
}

/* --cache DIR FILE: stride_compiler_compile_file keeps whole modules in the
   cache directory. The second compile of FILE reads its entry back: with
   the entry replaced by another module (the add graph's), it returns that
   module. */
static int checkModuleCache(const char *dir, const char *path) {
  stride_compiler *compiler = NULL;
  EXPECT(stride_compiler_create(&compiler) == STRIDE_OK);
  EXPECT(stride_compiler_set_cache_dir(compiler, dir) == STRIDE_OK);
  compileCached(compiler, path, "first compile");
  char entry[4096];
  int one = onlyModuleIn(dir, entry, sizeof entry);
  printf("cache: %s\n", one ? "one module" : "not one module");
  if (one) {
    stride_compile_result *result = NULL;
    stride_compiler_compile(compiler, kAddGraph, strlen(kAddGraph), "add.mlir",
                            &result);
    size_t size = 0;
    const uint8_t *bytes = stride_compile_result_module_bytes(result, &size);
    FILE *f = fopen(entry, "wb");
    EXPECT(f && fwrite(bytes, 1, size, f) == size);
    if (f)
      fclose(f);
    stride_compile_result_destroy(result);
    compileCached(compiler, path, "second compile");
  }
  stride_compiler_destroy(compiler);
  printf("%d failures\n", failures);
  return failures != 0;
}

/* The inputs of `result`'s module whose names end in `suffix`. */
static void printInputsEndingIn(const stride_compile_result *result,
                                const char *suffix) {
  stride_module *module = NULL;
  if (stride_compile_result_get_module(result, &module) != STRIDE_OK)
    return;
  stride_tensor_info t;
  for (size_t i = 0; i < stride_module_num_inputs(module); ++i) {
    EXPECT(stride_module_get_input(module, i, &t) == STRIDE_OK);
    size_t n = strlen(t.name), k = strlen(suffix);
    if (n >= k && strcmp(t.name + n - k, suffix) == 0)
      printTensor("backward input", i, &t);
  }
  stride_module_destroy(module);
}

/* --train FORWARD BACKWARD: compiles a training step's two archives
   together (stride_compiler_compile_training_step), prints both statuses
   and the backward's paired inputs; then the same with a backward that
   does not exist, whose error is the forward's result's. */
static int compileTrainingStep(const char *forward, const char *backward) {
  stride_compiler *compiler = NULL;
  EXPECT(stride_compiler_create(&compiler) == STRIDE_OK);
  stride_compile_result *f = NULL, *b = NULL;
  stride_status s =
      stride_compiler_compile_training_step(compiler, forward, backward, &f, &b);
  printf("training step: %s, forward %d, backward %d\n", stride_status_name(s),
         stride_compile_result_succeeded(f), stride_compile_result_succeeded(b));
  printInputsEndingIn(b, "_logsumexp");
  stride_compile_result_destroy(f);
  stride_compile_result_destroy(b);
  s = stride_compiler_compile_training_step(compiler, forward, "missing.pt2", &f,
                                            &b);
  printf("missing backward: %s: %s\n", stride_status_name(s),
         stride_last_error_message());
  printf("results: forward %d (%zu diagnostics), backward %d (%zu)\n",
         stride_compile_result_succeeded(f),
         stride_compile_result_num_diagnostics(f),
         stride_compile_result_succeeded(b),
         stride_compile_result_num_diagnostics(b));
  stride_compile_result_destroy(f);
  stride_compile_result_destroy(b);
  EXPECT(stride_compiler_compile_training_step(compiler, forward, backward,
                                               NULL, &b) ==
         STRIDE_INVALID_ARGUMENT);
  stride_compiler_destroy(compiler);
  printf("%d failures\n", failures);
  return failures != 0;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--run") == 0)
    return runSteps(argv[2]);
  if (argc == 3 && strcmp(argv[1], "--repair") == 0)
    return printRepairs(argv[2]);
  if (argc == 4 && strcmp(argv[1], "--cache") == 0)
    return checkModuleCache(argv[2], argv[3]);
  if (argc == 4 && strcmp(argv[1], "--train") == 0)
    return compileTrainingStep(argv[2], argv[3]);
  if (argc != 2) {
    fprintf(stderr,
            "usage: %s seed_backward_fx.mlir | --run MODULE | --repair FILE | "
            "--cache DIR FILE | --train FORWARD BACKWARD\n",
            argv[0]);
    return 2;
  }
  printf("stride %s\n", stride_version());
  stride_compiler *compiler = NULL;
  EXPECT(stride_compiler_create(&compiler) == STRIDE_OK);

  /* The GPU, if any, decides the arch; sm_90 otherwise. */
  stride_runtime *runtime = NULL;
  stride_status s = stride_runtime_create(0, &runtime);
  printf("runtime: %s: %s\n", stride_status_name(s),
         s == STRIDE_OK ? stride_runtime_describe_device(runtime)
                        : stride_last_error_message());
  if (runtime)
    EXPECT(stride_compiler_set_arch(compiler,
                                    stride_runtime_device_arch(runtime)) ==
           STRIDE_OK);

  stride_module *module = compileAdd(compiler);
  printSignature(module);
  checkAbsentOutputs(compiler);
  checkOutputAliases(compiler);
  checkMalformedGraph(compiler);
  checkIllegalLayoutNotes(compiler, argv[1]);
  checkBadInputs(compiler);
  checkDeterministic(compiler);
  checkTf32AndCacheDir(compiler);
  checkLaunchOptions(compiler);
  checkJobs(compiler);
  if (runtime)
    runAdd(runtime, module);

  stride_module_destroy(module);
  stride_runtime_destroy(runtime);
  stride_compiler_destroy(compiler);
  printf("%d failures\n", failures);
  return failures != 0;
}
