//===- ShapeGraphs.h - Captured CUDA graphs per bound shape ------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A module with symbolic sizes runs one plan per value of its symbols (its
// grids and size arguments differ), so an invocation keeps the CUDA graph
// it captured for each of the last kShapeGraphs shapes it ran, the least
// recently used evicted (python-free-docs/symbolic-sizes.md, "At run
// time"). The invocation holds the graph of the current shape; on a change
// of shape it stashes that graph here and takes the new shape's, if any.
// Private to lib/Runtime.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_RUNTIME_SHAPEGRAPHS_H
#define STRIDE_LIB_RUNTIME_SHAPEGRAPHS_H

#include "CudaDriver.h"

#include "stride/Support/SizeExpr.h"

#include <list>
#include <vector>

namespace stride {

/// Captured graphs kept per invocation beside the current shape's.
inline constexpr size_t kShapeGraphs = 8;

/// A captured plan: its graph, the instantiated graph and the buffer
/// addresses it was captured over.
struct CapturedGraph {
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<CUdeviceptr> addresses;
};

/// Destroys `c`'s graphs, if any, and empties it.
inline void destroyCapturedGraph(const CudaDriver &cu, CapturedGraph &c) {
  if (c.exec)
    cu.cuGraphExecDestroy(c.exec);
  if (c.graph)
    cu.cuGraphDestroy(c.graph);
  c = {};
}

class ShapeGraphs {
public:
  explicit ShapeGraphs(const CudaDriver &cu) : cu(cu) {}
  ShapeGraphs(const ShapeGraphs &) = delete;
  ShapeGraphs &operator=(const ShapeGraphs &) = delete;
  ~ShapeGraphs() {
    for (Entry &e : entries)
      destroyCapturedGraph(cu, e.captured);
  }

  /// Keeps `captured` (if any) for `values`, evicting the least recently
  /// used beyond kShapeGraphs.
  void stash(const SymbolValues &values, CapturedGraph captured) {
    if (!captured.exec && !captured.graph)
      return;
    entries.push_front({values, std::move(captured)});
    if (entries.size() > kShapeGraphs) {
      destroyCapturedGraph(cu, entries.back().captured);
      entries.pop_back();
    }
  }

  /// The graph kept for `values`, taken out of the cache; an empty one
  /// when none is.
  CapturedGraph take(const SymbolValues &values) {
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (it->values == values) {
        CapturedGraph found = std::move(it->captured);
        entries.erase(it);
        return found;
      }
    return {};
  }

private:
  struct Entry {
    SymbolValues values;
    CapturedGraph captured;
  };

  const CudaDriver &cu;
  /// Most recently used first.
  std::list<Entry> entries;
};

} // namespace stride

#endif // STRIDE_LIB_RUNTIME_SHAPEGRAPHS_H
