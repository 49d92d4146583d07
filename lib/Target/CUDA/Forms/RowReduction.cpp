//===- RowReduction.cpp - Broadcast-reduction kernels ---------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// Form (d), schemes row_registers, row_shared and row_reread: one row (the
// reduced elements of one result element) per warp, block or thread-block
// cluster; each reduction of the row in program order, combined across the
// row's threads so that every thread holds it, then the broadcast epilogue
// over the row. In registers, each phase is one unrolled loop over the
// elements a thread holds, and the values a phase computes are register
// arrays the later phases read. In shared memory, each phase is the same
// loop, and the values a later phase reads (rowSharedLayout: the row's
// inputs, exp's results) are stored by the first phase that computes them
// into the block's shared memory, in their storage type, where the later
// phases read them back; everything else each phase computes again. Each
// thread reads back only the elements it stored, so the phases need no
// barrier between them.
//
//===----------------------------------------------------------------------===//

#include "Forms.h"

#include "llvm/ADT/STLExtras.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

int64_t RowReductionPrinter::rowThreads() const {
  return schedule.getThreads() * schedule.getClusterBlocks();
}

void combineAcrossRow(Code &body, const ReductionInfo &info, int64_t threads,
                      const std::string &shared) {
  // A butterfly leaves the combined value in every lane of the warp (of
  // the row's lanes, where a warp holds several rows: offsets below their
  // count stay within them).
  auto butterfly = [&] {
    body.open(fmt::format("for (int offset = {}; offset > 0; offset /= 2)",
                          std::min<int64_t>(threads, 32) / 2));
    body.line("{} = {};", info.acc,
              combineOf(info.kind, info.acc,
                        fmt::format("__shfl_xor_sync(0xffffffffu, {}, offset)",
                                    info.acc)));
    body.close();
  };
  butterfly();
  if (threads <= 32)
    return;
  // The warps' results through shared memory; every thread combines them
  // in the same order, so all hold the same value.
  body.line("if (threadIdx.x % 32 == 0) {}[threadIdx.x / 32] = {};", shared,
            info.acc);
  body.line("__syncthreads();");
  body.line("{} = {}[0];", info.acc, shared);
  body.open(fmt::format("for (int w = 1; w < {}; ++w)", threads / 32));
  body.line("{} = {};", info.acc,
            combineOf(info.kind, info.acc, shared + "[w]"));
  body.close();
  body.line("__syncthreads(); // {} is reused by the next reduction or row",
            shared);
}

void RowReductionPrinter::combineAcrossCluster(Code &body,
                                               const ReductionInfo &info,
                                               const std::string &slot) {
  // Each block's value through its slot, read by every thread from every
  // block of the cluster in rank order, so all hold the same value. The
  // slot is rewritten only for the next row, after the row's last cluster
  // barrier (openRowLoop).
  body.line("if (threadIdx.x == 0) {}[0] = {};", slot, info.acc);
  body.line("stride_cluster_sync();");
  body.line("{} = stride_cluster_read({}, 0u);", info.acc, slot);
  body.open(fmt::format("for (unsigned b = 1; b < {}u; ++b)",
                        schedule.getClusterBlocks()));
  body.line("{} = {};", info.acc,
            combineOf(info.kind, info.acc,
                      fmt::format("stride_cluster_read({}, b)", slot)));
  body.close();
}

std::string RowReductionPrinter::RowLoop::element(int64_t lane) const {
  return width == 1 ? index : fmt::format("{} * {} + {}", index, width, lane);
}

LogicalResult RowReductionPrinter::walkRowRegisters(Code &body,
                                                    const RowLoop &loop,
                                                    GroupFn fn) {
  // The loop is printed first, then the arrays it declared above it.
  Code code;
  code.indent = body.indent;
  code.line("#pragma unroll");
  code.open(fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", loop.index,
                        loop.count));
  code.text += loop.header;
  rowArrays = &loop;
  lanes.assign(loop.lanes.begin(), loop.lanes.end());
  newArrays.clear();
  // Held in shared memory, what a phase computes is its own: a later
  // phase reads back what the phase stores, and computes the rest again.
  if (isSharedRow())
    pushScope();
  selectLane(0);
  LogicalResult status = fn(code, loop.lanes, loop.valid);
  if (isSharedRow()) {
    if (succeeded(status))
      status = storeHeld(code);
    popScope();
    ++phase;
  }
  selectLane(-1);
  lanes.clear();
  rowArrays = nullptr;
  code.close();
  for (auto [type, name] : newArrays)
    body.line("{} {}[{}];", type, name, loop.elements());
  body.text += code.text;
  return status;
}

void RowReductionPrinter::selectLane(int64_t lane) {
  if (!rowArrays || lane < 0) {
    rowElement.clear();
    vectorLane = -1;
    return;
  }
  rowElement = rowArrays->element(lane);
  vectorLane = rowArrays->width > 1 ? static_cast<int>(lane) : -1;
}

/// What a held value is, for the comment on its buffer.
static std::string describeHeld(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return fmt::format("in{}", arg.getArgNumber());
  Operation *op = value.getDefiningOp();
  return fmt::format("{} at {}", opName(op), formatLocation(op->getLoc()));
}

std::optional<std::string>
RowReductionPrinter::evalHeld(Value value, ArrayRef<std::string> coords,
                              Code &code) {
  const RowSharedLayout::Held *held = sharedLayout.find(value);
  int64_t lane = std::max(vectorLane, 0);
  if (!rowArrays || !held || phase <= held->firstPhase ||
      phase > held->lastPhase ||
      ArrayRef<std::string>(rowArrays->lanes[lane]) != coords)
    return std::nullopt;
  // A group of 4 is one load from shared memory, each lane its element.
  const std::string &buffer = heldBuffers.at(value);
  std::string element = fmt::format("{}[{}]", buffer, rowArrays->position);
  if (rowArrays->width > 1) {
    std::string key = "held|" + element;
    std::optional<std::string> group = lookup(key);
    if (!group) {
      std::string vecType = fmt::format(
          "stride_vec4<{}>", storageType(*dtypeOf(value.getType())));
      group = KernelPrinter::declareValue(
          code, vecType, fresh("quad"),
          fmt::format("*reinterpret_cast<const {} *>(&{})", vecType, element));
      remember(key, *group);
    }
    element = fmt::format("{}.v[{}]", *group, lane);
  }
  return KernelPrinter::declareValue(code,
                                     computeType(*dtypeOf(value.getType())),
                                     fresh("v"),
                                     fmt::format("stride_ld(&{})", element));
}

LogicalResult RowReductionPrinter::storeHeld(Code &code) {
  // Every value is evaluated before the first store: a value stored into
  // the buffer of one this phase reads last may not be read after it.
  SmallVector<std::string> stores;
  for (const RowSharedLayout::Held &held : sharedLayout.values) {
    if (held.firstPhase != phase)
      continue;
    const char *type = storageType(*dtypeOf(held.value.getType()));
    std::string at =
        fmt::format("{}[{}]", heldBuffers.at(held.value), rowArrays->position);
    SmallVector<std::string, 4> values;
    for (int64_t j = 0; j < rowArrays->width; ++j) {
      selectLane(j);
      FailureOr<std::string> v = eval(held.value, rowArrays->lanes[j], code);
      if (failed(v))
        return failure();
      values.push_back(*v);
    }
    if (rowArrays->width == 1) {
      stores.push_back(fmt::format("stride_st(&{}, {});", at, values.front()));
      continue;
    }
    // An argument loaded in groups is stored as loaded.
    std::optional<std::string> group;
    if (auto arg = dyn_cast<BlockArgument>(held.value))
      group = lookup(vectorLoadKey(arg.getArgNumber(),
                                   cast<StridedTensorType>(arg.getType())));
    if (!group) {
      group = fresh("quad");
      code.line("stride_vec4<{}> {};", type, *group);
      for (auto [j, v] : llvm::enumerate(values))
        code.line("stride_st(&{}.v[{}], {});", *group, j, v);
    }
    stores.push_back(fmt::format(
        "*reinterpret_cast<stride_vec4<{}> *>(&{}) = {};", type, at, *group));
  }
  selectLane(0);
  // Only the row's own groups: a clamped group's elements are another
  // thread's.
  std::string guard = rowArrays->valid.empty()
                          ? std::string()
                          : "if (" + rowArrays->valid + ") ";
  for (const std::string &store : stores)
    code.line("{}{}", guard, store);
  return success();
}

void RowReductionPrinter::declareSharedRows(Code &body) {
  sharedLayout = rowSharedLayout(facts, rowLength);
  body.line("STRIDE_DYNAMIC_SHARED(rowShared); // {} bytes: the rows of the "
            "values later phases read",
            sharedLayout.bytes);
  for (const RowSharedLayout::Held &held : sharedLayout.values) {
    std::string name = fresh("held");
    const char *type = storageType(*dtypeOf(held.value.getType()));
    body.line("{0} *const {1} = reinterpret_cast<{0} *>(rowShared + {2}); // "
              "{3}, stored by phase {4}, read up to phase {5}",
              type, name, held.offset, describeHeld(held.value),
              held.firstPhase, held.lastPhase);
    heldBuffers[held.value] = name;
  }
}

std::string RowReductionPrinter::declareValue(Code &code, StringRef type,
                                              const std::string &name,
                                              const std::string &expr) {
  if (!rowArrays || isSharedRow())
    return KernelPrinter::declareValue(code, type, name, expr);
  newArrays.push_back({type.str(), name});
  std::string element = name + "[" + rowElement + "]";
  code.line("{} = {};", element, expr);
  return element;
}

std::string RowReductionPrinter::declareMutable(Code &code, StringRef type,
                                                const std::string &name) {
  if (!rowArrays || isSharedRow())
    return KernelPrinter::declareMutable(code, type, name);
  newArrays.push_back({type.str(), name});
  return name + "[" + rowElement + "]";
}

LogicalResult RowReductionPrinter::printBody(Code &body) {
  ArrayRef<int64_t> dims = reductions.front().dims;
  SizeExprs sizes = facts.iterationSizes();
  for (int64_t d = 0; d < static_cast<int64_t>(iterationShape.size()); ++d)
    (llvm::is_contained(dims, d) ? reducedShape : keptShape)
        .push_back(sizes[d]);
  SizeExpr m = facts.rowCount();
  rowSize = facts.rowLength();
  // A symbolic length is at least 1 (stride-check-symbolic-sizes), and only
  // the re-read form takes one (-1 here).
  rowLength = rowSize.getConstant().value_or(-1);
  if (rowSize.isConstant() && failed(checkReducesElements(rowLength)))
    return failure();

  // Over symbolic sizes the row count is the size parameters' expression.
  body.line("// broadcast reduction over dims [{}] of {}: {} rows of {} "
            "elements; each row's reductions, then the epilogue over the row",
            dimsText(dims),
            facts.isSymbolic() ? formatSizes(sizes) : shapeText(iterationShape),
            m.str(), rowSize.str());
  for (ReductionInfo &r : reductions)
    body.line("// {} at {}", opName(r.op), formatLocation(r.op->getLoc()));
  if (m.getConstant() == 0 || rowLength == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }

  // A block's partial results of each reduction, one per warp, and with a
  // cluster, the block's for the other blocks.
  for (auto [i, r] : llvm::enumerate(reductions)) {
    r.acc = "acc" + std::to_string(i);
    if (schedule.getThreads() > 32)
      body.line("STRIDE_SHARED({}, shared{}, {});",
                accumulatorType(r.kind, r.dtype),
                i, schedule.getThreads() / 32);
    if (schedule.getClusterBlocks() > 1)
      body.line("STRIDE_SHARED({}, cluster{}, 1);",
                accumulatorType(r.kind, r.dtype),
                i);
  }
  if (isSharedRow())
    declareSharedRows(body);
  openRowLoop(body, m);
  pushScope();
  if (schedule.getScheme() != KernelScheme::RowReread)
    rowLoop = registerLoop(body);
  if (rowLoop && !isSharedRow() && failed(printPreloads()))
    return failure();
  for (auto [i, info] : llvm::enumerate(reductions))
    if (failed(printReduction(body, info, std::to_string(i))) ||
        failed(printReadyRowOps(body)))
      return failure();
  storeRowResults(body);
  LogicalResult stored = printEpilogue(body);
  popScope();
  if (schedule.getClusterBlocks() > 1)
    body.line("stride_cluster_sync(); // no block rewrites its slots or "
              "leaves while another reads them");
  body.close(); // the loop over rows
  rowValues.clear();
  return stored;
}

/// `text`'s lines at indentation level `indent`.
static std::string reindented(StringRef text, int indent) {
  std::string result;
  SmallVector<StringRef> lines;
  text.split(lines, '\n', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    result += std::string(indent * 2, ' ') + line.ltrim(' ').str() + "\n";
  return result;
}

LogicalResult RowReductionPrinter::printPreloads() {
  // The computing ops' reads of the marked inputs and constants, each
  // value once.
  auto marked =
      kernel->getAttrOfType<DenseI64ArrayAttr>(kReadOnlyInputsAttrName);
  auto isMarked = [&](Value value) {
    if (std::optional<unsigned> arg = rootArgument(value))
      return marked && llvm::is_contained(marked.asArrayRef(), int64_t(*arg));
    Operation *base = viewChainBase(value).getDefiningOp();
    return base && isa<ConstantOp>(base) && base->hasAttr(kPreloadAttrName);
  };
  SmallVector<Value> values;
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    if (!isa<ViewOpInterface, ConstantOp>(op))
      for (Value operand : op.getOperands())
        if (isMarked(operand) && !llvm::is_contained(values, operand))
          values.push_back(operand);
  if (values.empty())
    return success();
  // Evaluated at row 0, since the row is not known before the wait; the
  // values are the same in every row (the schedule's rule), so each is
  // then remembered as the value at the row loop's own coordinates, which
  // the phases inside the loop look up.
  RowLoop loop = *rowLoop;
  preWait.indent = 1;
  loop.header = reindented(loop.header, preWait.indent + 1);
  ArrayRef<int64_t> reduced = reductions.front().dims;
  for (Coords &coords : loop.lanes)
    for (auto [d, coord] : llvm::enumerate(coords))
      if (!llvm::is_contained(reduced, int64_t(d)))
        coord = "0";
  preWait.line("// {} value(s) of the row's constants of the module, read "
               "alike in every row, loaded before the wait (nothing writes "
               "them)",
               values.size());
  return walkRowRegisters(
      preWait, loop,
      [&](Code &code, ArrayRef<Coords> group, StringRef) -> LogicalResult {
        for (auto [j, coords] : llvm::enumerate(group)) {
          selectLane(j);
          for (Value value : values) {
            FailureOr<std::string> v = eval(value, coords, code);
            if (failed(v))
              return failure();
            // An input's element is loaded into a register array already;
            // a constant's is an expression over its array.
            std::string held =
                rootArgument(value)
                    ? *v
                    : declareValue(code, computeType(*dtypeOf(value.getType())),
                                   fresh("pre"), *v);
            remember(memoKey(value, rowLoop->lanes[j]), held);
          }
        }
        return success();
      });
}

void RowReductionPrinter::printBeforeWait(Code &head) {
  head.text += preWait.text;
}

void RowReductionPrinter::openRowLoop(Code &body, const SizeExpr &rows) {
  // A warp, a block or a cluster of blocks per row; the elements each thread
  // holds are kept in registers across the phases (each input element is
  // loaded once) or re-read in each phase.
  int64_t threads = schedule.getThreads();
  int64_t perThread = schedule.getElementsPerThread();
  int64_t blocks = schedule.getClusterBlocks();
  bool inRegisters = schedule.getScheme() == KernelScheme::RowRegisters;
  std::string row = fresh("row");
  if (!rowSize.isConstant())
    body.line("// rows of {} elements, a size parameter: at most {} elements "
              "per thread at the largest length, re-read in each phase",
              rowSize.str(), perThread);
  if (blocks > 1) {
    // The cluster's blocks are consecutive in the grid; block rank b of
    // the cluster holds the row's threads b * threads on.
    body.line("// one row per cluster of {} blocks of {} threads, {} "
              "elements per thread{}",
              blocks, threads, perThread,
              inRegisters ? ", kept in registers" : "");
    body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x / {2}; {1} < {3}; "
                          "{1} += ({0})gridDim.x / {2})",
                          idx, row, blocks, sizeText(rows)));
    lane = fmt::format("(({0})blockIdx.x % {1} * {2} + ({0})threadIdx.x)",
                       idx, blocks, threads);
  } else if (threads <= 32) {
    // A warp per row, or several rows per warp: the loop walks the warp's
    // first row, the same in every lane, so that the whole warp takes part
    // in every shuffle; a row past the last (rows not a multiple of the
    // warp's) is the last row again, evaluated and not stored (rowValid).
    int64_t rowsPerWarp = 32 / threads;
    int64_t rowsPerBlock = launchAt(0).getBlock() / threads;
    if (rowsPerWarp == 1)
      body.line("// one row per warp ({} rows per block), {} element{} per "
                "lane{}",
                rowsPerBlock, perThread, perThread == 1 ? "" : "s",
                inRegisters ? ", kept in registers" : "");
    else
      body.line("// {} rows per warp, {} lanes each ({} rows per block), {} "
                "elements per lane{}",
                rowsPerWarp, threads, rowsPerBlock, perThread,
                inRegisters ? ", kept in registers" : "");
    std::string first = rowsPerWarp == 1 ? row : fresh("first");
    body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * {2} + "
                          "threadIdx.x / 32{3}; {1} < {4}; {1} += "
                          "({0})gridDim.x * {2})",
                          idx, first, rowsPerBlock,
                          rowsPerWarp == 1
                              ? ""
                              : fmt::format(" * {}", rowsPerWarp),
                          sizeText(rows)));
    if (rowsPerWarp > 1) {
      std::string own = fmt::format("{} + threadIdx.x % 32 / {}", first,
                                    threads);
      // A symbolic count fills the last warp for some values only.
      std::optional<int64_t> count = rows.getConstant();
      if (count && *count % rowsPerWarp == 0) {
        body.line("const {} {} = {};", idx, row, own);
      } else {
        rowValid = fresh("rowOk");
        body.line("const bool {} = {} < {};", rowValid, own, sizeText(rows));
        body.line("const {} {} = {} ? {} : {};", idx, row, rowValid, own,
                  sizeText(*rows.minus(SizeExpr::constant(1))));
      }
    }
    lane = fmt::format("(({})threadIdx.x % {})", idx, threads);
  } else {
    body.line("// one row per block of {} threads, {} elements per thread{}",
              threads, perThread,
              inRegisters   ? ", kept in registers"
              : isSharedRow() ? ", the values later phases read kept in "
                                "shared memory"
                              : "");
    body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                          "gridDim.x)",
                          idx, row, sizeText(rows)));
    lane = "((" + idx + ")threadIdx.x)";
  }
  kept = delinearize(body, row, keptShape);
}

Coords RowReductionPrinter::elementCoords(Code &code, const std::string &r) {
  ArrayRef<int64_t> dims = reductions.front().dims;
  Coords reduced = delinearize(code, r, reducedShape);
  Coords coords;
  size_t nextKept = 0, nextReduced = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(iterationShape.size()); ++d)
    coords.push_back(llvm::is_contained(dims, d) ? reduced[nextReduced++]
                                                 : kept[nextKept++]);
  return coords;
}

RowReductionPrinter::RowLoop RowReductionPrinter::registerLoop(Code &body) {
  // Group k of this thread is group lane + k * threads of the row, `width`
  // consecutive elements of the innermost dim (one load each where the
  // layout is aligned), clamped to the row's last group (a clamped group
  // is evaluated, which is safe, and neither reduced nor stored). Each
  // phase walks the groups with the same unrolled loop, whose header names
  // the elements' coordinates identically each time, so a value computed in
  // one phase is an element of a register array the later phases read.
  int64_t threads = rowThreads();
  RowLoop loop;
  loop.index = fresh("k");
  loop.width = schedule.getVectorWidth();
  loop.count = schedule.getElementsPerThread() / loop.width;
  Code header;
  header.indent = body.indent + 1;
  int64_t groups = rowLength / loop.width;
  std::string group = fmt::format("{} + {} * {}", lane, loop.index, threads);
  std::string position =
      loop.width == 1 ? group : fmt::format("({}) * {}", group, loop.width);
  std::string r = fresh("r");
  int64_t full = groups / threads; // groups every thread has in every row
  if (full >= loop.count) {
    header.line("const {} {} = {};", idx, r, position);
  } else {
    loop.valid = fresh("ok");
    if (full > 0)
      header.line("const bool {} = {} < {} || {} < {};", loop.valid,
                  loop.index, full, group, groups);
    else
      header.line("const bool {} = {} < {};", loop.valid, group, groups);
    header.line("const {} {} = {} ? {} : {};", idx, r, loop.valid, position,
                rowLength - loop.width);
  }
  // The schedule vectorizes only where the last reduced dim is the
  // innermost and holds whole groups: lane j is j elements along it.
  Coords first = elementCoords(header, r);
  loop.lanes.assign(loop.width, first);
  for (int64_t j = 1; j < loop.width; ++j) {
    std::string c = fresh("i");
    header.line("const {} {} = {} + {};", idx, c, first.back(), j);
    loop.lanes[j].back() = c;
  }
  loop.header = std::move(header.text);
  loop.position = r;
  return loop;
}

LogicalResult RowReductionPrinter::forEachGroup(Code &body, GroupFn fn) {
  if (rowLoop)
    return walkRowRegisters(body, *rowLoop, fn);
  std::string r = fresh("r");
  body.open(fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4})", idx, r,
                        lane, sizeText(rowSize), rowThreads()));
  pushScope();
  Coords coords = elementCoords(body, r);
  LogicalResult status = fn(body, ArrayRef<Coords>(coords), "");
  popScope();
  body.close();
  return status;
}

LogicalResult RowReductionPrinter::forEachElement(Code &body,
                                                  ElementFn fn) {
  return forEachGroup(
      body,
      [&](Code &code, ArrayRef<Coords> group, StringRef ok) -> LogicalResult {
        for (auto [j, coords] : llvm::enumerate(group)) {
          selectLane(j);
          if (failed(fn(code, coords, ok)))
            return failure();
        }
        return success();
      });
}

LogicalResult RowReductionPrinter::printReduction(Code &body,
                                                  const ReductionInfo &info,
                                                  const std::string &index) {
  body.line("{} {} = {};", accumulatorType(info.kind, info.dtype), info.acc,
            identityOf(info.kind, info.dtype));
  LogicalResult status = forEachElement(
      body,
      [&](Code &code, ArrayRef<std::string> coords,
          StringRef ok) -> LogicalResult {
        FailureOr<std::string> v = eval(info.input, coords, code);
        if (failed(v))
          return failure();
        std::string combined = accumulated(info, *v, coords);
        if (ok.empty())
          code.line("{} = {};", info.acc, combined);
        else
          code.line("{} = {} ? {} : {};", info.acc, ok, combined, info.acc);
        return success();
      });
  if (failed(status))
    return failure();
  combineAcrossRow(body, info, schedule.getThreads(), "shared" + index);
  if (schedule.getClusterBlocks() > 1)
    combineAcrossCluster(body, info, "cluster" + index);
  std::string v = fresh("v");
  body.line("const {} {} = {}; // {} at {}", computeType(info.dtype), v,
            finalValue(info, rowSize), opName(info.op),
            formatLocation(info.op->getLoc()));
  rowValues[info.op] = v;
  return success();
}

Coords RowReductionPrinter::rowResultCoords() const {
  const ReductionInfo &rows = reductions.front();
  Coords coords;
  size_t nextKept = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(iterationShape.size()); ++d) {
    if (!llvm::is_contained(rows.dims, d))
      coords.push_back(kept[nextKept++]);
    else if (rows.keepdim)
      coords.push_back("0");
  }
  return coords;
}

LogicalResult RowReductionPrinter::printReadyRowOps(Code &body) {
  Coords coords = rowResultCoords();
  for (Operation *op : facts.rowOps) {
    if (!isReadyRowOp(op))
      continue;
    FailureOr<std::string> v = evalOp(op, coords, body);
    if (failed(v))
      return failure();
    rowValues[op] = *v;
  }
  return success();
}

void RowReductionPrinter::storeRowResults(Code &body) {
  if (facts.rowResults.empty())
    return;
  // Every thread of the row holds the row's values; the first stores them
  // (not for a row repeated to fill a warp: openRowLoop).
  std::string first = lane + " == 0";
  body.open(fmt::format("if ({}{})", rowValid.empty() ? "" : rowValid + " && ",
                        first));
  Coords coords = rowResultCoords();
  for (unsigned i : facts.rowResults) {
    auto outType = cast<StridedTensorType>(kernel.getResult(i).getType());
    body.line("stride_st(&out{}[{}], {});", i, address(outType, coords),
              rowValues.lookup(yields[i].getDefiningOp()));
  }
  body.close();
}

LogicalResult RowReductionPrinter::printEpilogue(Code &body) {
  return forEachGroup(body, [&](Code &code, ArrayRef<Coords> group,
                                StringRef elementOk) -> LogicalResult {
    // A row repeated to fill a warp (openRowLoop) is not stored.
    std::string ok = elementOk.str();
    if (!rowValid.empty())
      ok = ok.empty() ? rowValid : rowValid + " && " + ok;
    if (group.size() == 1 && ok.empty())
      return storeYields(code, group.front());
    // Evaluated outside the guard, so later elements may reuse it.
    SmallVector<SmallVector<std::string, 4>> values(yields.size());
    for (auto [j, coords] : llvm::enumerate(group)) {
      selectLane(j);
      for (auto [i, value] : llvm::enumerate(yields)) {
        if (isRowResult(i))
          continue;
        FailureOr<std::string> v = eval(value, coords, code);
        if (failed(v))
          return failure();
        values[i].push_back(*v);
      }
    }
    if (!ok.empty())
      code.open(fmt::format("if ({})", ok));
    LogicalResult status = success();
    if (group.size() == 1)
      status = storeYields(code, group.front());
    else
      for (unsigned i = 0; i < yields.size(); ++i)
        if (!isRowResult(i))
          storeLanes(code, i, values[i]);
    if (!ok.empty())
      code.close();
    return status;
  });
}

} // namespace stride
