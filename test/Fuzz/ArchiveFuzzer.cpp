//===- ArchiveFuzzer.cpp - libFuzzer target: .pt2 bytes -> importer -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Any bytes must be imported or refused with a diagnostic: never a crash, a
// hang, or an out-of-bounds access. Bytes that begin like a zip are the
// archive; other bytes are taken as the archive's models/model.json (wrapped
// into a stored zip here, so that mutations of the JSON are not all stopped
// by the entry's CRC). An imported graph goes through the Stride pipeline
// with layout repair, as `stridec --repair-layouts` runs it.
//
//===----------------------------------------------------------------------===//

#include "dialects/stride/IR/StrideDialect.h"
#include "dialects/stride/Transforms/Passes.h"
#include "stride/Import/GraphParser.h"
#include "stride/Import/Torch/Archive.h"
#include "stride/Import/Torch/Importer.h"

#include "FuzzContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  if (!stride::looksLikeZip(bytes))
    bytes = stride::torch::makeStoredZip({{"fuzz/models/model.json", bytes}});
  MLIRContext &context =
      fuzzContext<stride::StrideDialect, func::FuncDialect>();
  for (bool weightsAsInputs : {false, true}) {
    stride::torch::ImportOptions options;
    options.weightsAsInputs = weightsAsInputs;
    OwningOpRef<ModuleOp> module =
        stride::torch::importArchive(bytes, "fuzz.pt2", &context, options);
    if (!module)
      return 0;
    PassManager pm(&context);
    stride::PipelineOptions pipeline;
    pipeline.repairLayouts = true;
    stride::buildStridePipeline(pm, pipeline);
    (void)pm.run(*module);
  }
  return 0;
}
