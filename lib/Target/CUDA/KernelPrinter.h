//===- KernelPrinter.h - One stride.kernel as CUDA C++ ----------*- C++ -*-===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The interface of the kernel printers: one subclass per kernel form and
// scheme (Forms/), each printing the body of one `extern "C" __global__`
// function from the IR and the kernel's schedule, and this base class with
// what they share: the evaluation of values at coordinates (loads through
// views, ops, masks, checked indices), stores, vector lanes and the pieces
// of reductions. Printers decide nothing: the form comes from the kernel
// contract and everything else from `#stride.schedule`. Private to
// lib/Target/CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef STRIDE_LIB_TARGET_CUDA_KERNELPRINTER_H
#define STRIDE_LIB_TARGET_CUDA_KERNELPRINTER_H

#include "CudaText.h"
#include "KernelFacts.h"

#include "stride/Target/CUDA/Emitter.h"
#include "stride/Target/CUDA/Schedule.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <vector>

namespace stride {

/// What a printer prints from: the kernel, its C name, its facts (form,
/// yields, iteration space, roots) and its schedule
/// (stride-schedule-kernels), and the file scope shared by every kernel of
/// the source (for constant arrays, numbered by `constantCounter`).
struct PrinterSetup {
  KernelOp kernel;
  std::string name;
  const CudaTargetOptions &options;
  Code &fileScope;
  unsigned &constantCounter;
  KernelFacts facts;
  KernelScheduleAttr schedule;
  /// The kernel is a member of a launch group (stride-group-launches): it
  /// is printed as a `__device__` function whose first two parameters,
  /// `blockIdx` and `gridDim`, are the block index and grid size of its
  /// own launch within the group's (python-free-docs/cuda-backend.md,
  /// "Launch groups").
  bool part = false;
};

/// A kernel function's buffer parameters: `const T *__restrict__ inN` for
/// each body argument, then `T *__restrict__ outN` for each result.
std::string bufferParameters(KernelOp kernel);

/// The runtime's form of one launch of a schedule.
CudaLaunch toCudaLaunch(LaunchAttr launch);

class KernelPrinter : protected PrinterSetup {
public:
  explicit KernelPrinter(PrinterSetup setup) : PrinterSetup(std::move(setup)) {}
  virtual ~KernelPrinter() = default;

  /// The whole function: a comment naming the ops it fuses with their
  /// locations, the signature, and the body.
  mlir::FailureOr<CudaKernel> print(Code &out);

protected:
  /// The body of the function: the form's loops, loads, ops and stores.
  virtual mlir::LogicalResult printBody(Code &body) = 0;
  /// What the kernel does before it waits for the grid ahead of it
  /// (stride_begin_kernel): reads of the module's constants, which no step
  /// writes (kReadOnlyInputsAttrName, kPreloadAttrName), printed after
  /// printBody. Nothing by default.
  virtual void printBeforeWait(Code &) {}

  /// Declares `name` = `expr` of C++ type `type` and returns how to read
  /// it (a constant).
  virtual std::string declareValue(Code &code, llvm::StringRef type,
                                   const std::string &name,
                                   const std::string &expr);
  /// Declares `name`, assigned later, and returns how to assign and read it.
  virtual std::string declareMutable(Code &code, llvm::StringRef type,
                                     const std::string &name);

  /// How to read `value` at `coords` where it is held on chip instead of
  /// computed (a row held in shared memory), declaring what the read
  /// needs; std::nullopt: evaluate it.
  virtual std::optional<std::string>
  evalHeld(mlir::Value value, llvm::ArrayRef<std::string> coords, Code &code) {
    return std::nullopt;
  }

  /// With `slices` > 1 (a kernel split into slices whose partial results a
  /// second launch combines): declares `partials`, scratch buffer 0 as
  /// floats (`layout` says their order), and prints phase 2 as `combine`
  /// followed by a return.
  mlir::LogicalResult
  printCombinePhase(Code &body, int64_t slices, const std::string &layout,
                    llvm::function_ref<mlir::LogicalResult(Code &)> combine);

  /// Launch `i` of the schedule.
  LaunchAttr launchAt(unsigned i) {
    return mlir::cast<LaunchAttr>(schedule.getLaunches()[i]);
  }
  /// Prints the iteration space of a pointwise kernel and returns its
  /// element count (0: nothing to compute, the kernel is never launched).
  int64_t printIterationSpace(Code &body);

  // Reductions.
  /// Reports max/min over no elements (undefined, as in PyTorch).
  mlir::LogicalResult checkReducesElements(int64_t reducedElements);
  /// The reduction's value from its accumulator, in its compute type.
  /// `reducedElements`: a symbolic count is the size parameters'
  /// expression.
  std::string finalValue(const ReductionInfo &info,
                         const SizeExpr &reducedElements);

  // Coordinates and stores.
  /// A grid-stride loop over the `n` elements of `shape`: opens the loop,
  /// declares the coordinates and returns them. The caller closes it.
  Coords openGridStrideLoop(Code &code, llvm::ArrayRef<int64_t> shape,
                            int64_t n);
  /// Declares the coordinates of row-major `linear` in `shape`.
  Coords delinearize(Code &code, const std::string &linear,
                     llvm::ArrayRef<int64_t> shape);
  /// The same over symbolic sizes, dividing by the kernel's size
  /// parameters (python-free-docs/symbolic-sizes.md).
  Coords delinearize(Code &code, const std::string &linear,
                     llvm::ArrayRef<SizeExpr> shape);
  /// Evaluates and stores each yielded value at `coords`, but those
  /// stored once per row (isRowResult) and a skinny product's prologue
  /// results (stored as its row reductions read them).
  mlir::LogicalResult storeYields(Code &code,
                                  llvm::ArrayRef<std::string> coords);
  /// Whether yielded value `i` is stored once per row of a form (d)
  /// kernel, not per element (KernelFacts::rowResults).
  bool isRowResult(unsigned i) const {
    return llvm::is_contained(facts.rowResults, i);
  }
  /// Whether yielded value `i` is a skinny product's prologue result
  /// (KernelFacts::prologueResults), not the product's or its epilogue's.
  bool isPrologueResult(unsigned i) const {
    return llvm::is_contained(facts.prologueResults, i);
  }
  /// The block argument a value is a view chain of, if any.
  std::optional<unsigned> rootArgument(mlir::Value value);
  std::string address(StridedTensorType type,
                      llvm::ArrayRef<std::string> coords);

  // Evaluation.
  mlir::FailureOr<std::string>
  eval(mlir::Value value, llvm::ArrayRef<std::string> coords, Code &code);
  /// Reads an index tensor at `coords` and checks it against [0, size)
  /// (a symbolic size: the size parameters' expression): returns a
  /// variable of the index type holding a safe index (0 after a reported
  /// violation).
  mlir::FailureOr<std::string> evalIndex(mlir::Operation *op, mlir::Value index,
                                         llvm::ArrayRef<std::string> coords,
                                         const SizeExpr &size, Code &code,
                                         bool skipOnError);

  // Vector lanes (the vectorized loop, the tiled transpose, the segmented
  // index_add).
  /// True when `type` read (or written) at the current lane's coordinates
  /// is element `lane` of an aligned group of consecutive elements, one per
  /// lane (4, or the skinny product's vector width): the coordinates are
  /// the lane's own, the innermost size is a multiple of the group (but
  /// with lanesAlongRows), the innermost stride is 1, and the offset and
  /// every other stride are multiples of the group.
  bool isVectorAccess(StridedTensorType type,
                      llvm::ArrayRef<std::string> coords);
  /// The C++ type of a group of `count` elements of `storage` type.
  static std::string vectorType(llvm::StringRef storage, size_t count);
  /// Evaluates every yielded value at the 4 coordinates of `lanes` (vector
  /// accesses where aligned) and stores them.
  mlir::LogicalResult evalAndStoreLanes(Code &body);
  /// Stores 4 computed values of result `i` at `lanes` (one 4-element store
  /// where the result's layout allows it).
  void storeLanes(Code &body, unsigned i, llvm::ArrayRef<std::string> values);

  std::string fresh(llvm::StringRef prefix) {
    return (prefix + llvm::Twine(counter++)).str();
  }
  /// The memo key of argument `arg`'s 4-element load at the group of the
  /// current `lanes`, read through `type`.
  std::string vectorLoadKey(unsigned arg, StridedTensorType type) {
    return fmt::format("vec|{}|{}", arg, address(type, lanes[0]));
  }
  std::string memoKey(mlir::Value value, llvm::ArrayRef<std::string> coords) {
    return fmt::format("{}|{}", value.getAsOpaquePointer(), joinCoords(coords));
  }
  std::optional<std::string> lookup(const std::string &key) {
    for (auto it = memo.rbegin(); it != memo.rend(); ++it) {
      auto found = it->find(key);
      if (found != it->end())
        return found->second;
    }
    return std::nullopt;
  }
  /// Records that `key` (a value at coordinates, or a load) is held in
  /// `variable` in the innermost scope.
  void remember(const std::string &key, std::string variable) {
    memo.back()[key] = std::move(variable);
  }
  void pushScope() { memo.emplace_back(); }
  void popScope() { memo.pop_back(); }

  mlir::InFlightDiagnostic error(mlir::Operation *op) {
    return op->emitError() << "cannot emit CUDA for kernel '" << name << "': ";
  }

  llvm::SmallVector<mlir::Value> &yields = facts.yields;
  llvm::SmallVector<int64_t> &iterationShape = facts.iterationShape;
  llvm::SmallVector<ReductionInfo> &reductions = facts.reductions;

  std::string idx = "idx_t";
  /// Reduction results and the key of the coordinates they are held at.
  llvm::DenseMap<mlir::Value, std::string> reductionKeys;
  /// Form (d): the variable holding each reduction's value (and each per-row
  /// op's) for the current row, once computed; reads of it broadcast back
  /// resolve to it. Form (g)'s row prologue: the register array holding it
  /// for each row, indexed by the row.
  llvm::DenseMap<mlir::Operation *, std::string> rowValues;
  /// Form (d): whether `value` is computed once per row (a reduction's
  /// result or a per-row op's), held in rowValues once printed.
  bool isRowValue(mlir::Value value) const;
  /// Whether per-row op `op` is not yet computed (in rowValues) and every
  /// row value it reads is.
  bool isReadyRowOp(mlir::Operation *op) const;
  /// In a loop over vector lanes: the lane being evaluated (-1 outside),
  /// and each lane's coordinates (consecutive in the innermost dim).
  int vectorLane = -1;
  llvm::SmallVector<Coords, 4> lanes;
  /// Whether the lanes are groups of K elements of the skinny product's
  /// rows (its prologue), which start at multiples of the group and never
  /// cross the end of a row: an access of them needs no innermost size that
  /// is a multiple of the group (isVectorAccess), and a view of a computed
  /// value read at the current lane's coordinates passes the lanes on where
  /// its index map sends each lane's innermost coordinate to itself and the
  /// other coordinates alike for every lane, so that the inputs under it
  /// (through the views between the prologue and the lhs) are still read a
  /// group at a time.
  bool lanesAlongRows = false;

  /// `op`'s result at `coords`, its operands evaluated there (no memo).
  mlir::FailureOr<std::string>
  evalOp(mlir::Operation *op, llvm::ArrayRef<std::string> coords, Code &code);

private:
  std::string describe();
  mlir::FailureOr<std::string> evalUncached(mlir::Value value,
                                            llvm::ArrayRef<std::string> coords,
                                            Code &code);
  /// The coordinates in `view`'s operand of its element at `coords`
  /// (its index map, printed).
  mlir::FailureOr<Coords> mapThroughView(mlir::Operation *view,
                                         llvm::ArrayRef<std::string> coords);
  /// `view`'s source at the coordinates `mapped` of its element at
  /// `coords`; with lanesAlongRows, at the lanes mapped through it
  /// where they stay a group (see there).
  mlir::FailureOr<std::string> evalViewSource(mlir::Operation *view,
                                              llvm::ArrayRef<std::string> coords,
                                              const Coords &mapped, Code &code);
  mlir::FailureOr<std::string> evalPointwise(mlir::Operation *op,
                                             llvm::ArrayRef<std::string> coords,
                                             Code &code);
  mlir::FailureOr<std::string> evalCast(const std::string &value, DType from,
                                        DType to);
  mlir::FailureOr<std::string> evalConstant(ConstantOp op,
                                            llvm::ArrayRef<std::string> coords);
  mlir::FailureOr<std::string>
  evalSliceScatter(SliceScatterOp scatter, llvm::ArrayRef<std::string> coords,
                   Code &code);
  mlir::FailureOr<std::string>
  evalSelectScatter(SelectScatterOp scatter, llvm::ArrayRef<std::string> coords,
                    Code &code);
  /// `var = value at coords;`, with what evaluating it declares in a scope
  /// of its own (a branch of a mask).
  mlir::LogicalResult assignInScope(Code &code, const std::string &var,
                                    mlir::Value value,
                                    llvm::ArrayRef<std::string> coords);
  /// An if-else chain on coords[dim]: each element reads the one input
  /// whose range of dim holds it.
  mlir::FailureOr<std::string> evalCat(CatOp cat,
                                       llvm::ArrayRef<std::string> coords,
                                       Code &code);
  /// A coordinate mask: `src` at `srcCoords` where `cond` holds, else
  /// `input` at `coords`, each evaluated only on its side of the branch.
  mlir::FailureOr<std::string>
  evalMasked(Code &code, const std::string &cond, mlir::Value src,
             llvm::ArrayRef<std::string> srcCoords, mlir::Value input,
             llvm::ArrayRef<std::string> coords, DType dtype);
  /// gather and index_select: `input` at `coords` with the coordinate along
  /// `dim` replaced by `index` read (and checked) at `indexCoords`.
  mlir::FailureOr<std::string>
  evalIndexed(mlir::Operation *op, mlir::Value input, mlir::Value index,
              int64_t dim, llvm::ArrayRef<std::string> indexCoords,
              llvm::ArrayRef<std::string> coords, Code &code);

  unsigned counter = 0;
  std::vector<llvm::StringMap<std::string>> memo;
};

} // namespace stride

#endif // STRIDE_LIB_TARGET_CUDA_KERNELPRINTER_H
