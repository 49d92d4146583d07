/*===- LibraryRoutine.h - What a library-call step passes a routine -------===*\
|*                                                                            *|
|* Part of the Stride project, under the Apache License v2.0 with LLVM        *|
|* Exceptions. See LICENSE for license information.                           *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* The C interface between the runtime and a routine of its library registry  *|
|* (lib/Runtime/LibraryRegistry.cpp): a library-call step calls the routine's *|
|* symbol with its descriptor fields, its buffers' device addresses in the    *|
|* step's order, and the stream the plan is enqueued on. The routine          *|
|* enqueues its work on that stream and returns a CUresult (0 on success).    *|
|* Everything it is given lives only for the call.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef STRIDE_RUNTIME_LIBRARYROUTINE_H
#define STRIDE_RUNTIME_LIBRARYROUTINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One field of a step's descriptor: its name, integers and text. */
typedef struct StrideDescriptorField {
  const char *name;
  const int64_t *ints;
  size_t numInts;
  const char *text;
} StrideDescriptorField;

typedef struct StrideLibraryCall {
  const StrideDescriptorField *fields;
  size_t numFields;
  const uint64_t *buffers; /* CUdeviceptr, in the step's order */
  size_t numBuffers;
  void *stream; /* CUstream */
} StrideLibraryCall;

typedef int (*StrideLibraryRoutineFn)(const StrideLibraryCall *call);

#ifdef __cplusplus
}
#endif

#endif /* STRIDE_RUNTIME_LIBRARYROUTINE_H */
