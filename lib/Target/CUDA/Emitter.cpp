//===- Emitter.cpp - CUDA C++ from stride kernels -------------------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// A read-only function of legal IR: every stride.kernel becomes one
// `extern "C" __global__` function. The body of a kernel is evaluated
// backwards from its yielded values, "value v at logical coordinates c":
//
//   * a kernel input, or a view chain rooted at one, is a load at the address
//     its own layout gives, offset + sum_k c_k * stride_k (view layouts are
//     absolute in the storage of the buffer behind the input);
//   * a view of a computed value maps c back to its source's coordinates;
//   * a pointwise op evaluates its operands at c;
//   * slice_scatter/select_scatter are coordinate masks evaluated lazily,
//     `in range ? src[c'] : input[c]`, so neither side is read where it is
//     not needed (and src is never read out of its bounds);
//   * gather/index_select read an index, check it and read the input there;
//   * reductions are the kernel's root: their results are accumulators.
//
// The iteration space is always the logical shape of the yielded values;
// stores go through the layout of the kernel's result buffers.
//
//===----------------------------------------------------------------------===//

#include "stride/Target/CUDA/Emitter.h"
#include "stride/Dialect/Stride/Analysis/KernelContract.h"
#include "stride/Target/CUDA/Schedule.h"

#include "KernelFacts.h"

#include "Prelude.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace stride {
namespace {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// The C++ type of an element in memory.
const char *storageType(DType t) {
  switch (t) {
  case DType::F16: return "__half";
  case DType::BF16: return "__nv_bfloat16";
  case DType::F32: return "float";
  case DType::F64: return "double";
  case DType::I1: return "unsigned char";
  case DType::I8: return "signed char";
  case DType::I32: return "int";
  case DType::I64: return "long long";
  }
  return "?";
}

/// The C++ type values of an element type are computed in.
const char *computeType(DType t) {
  switch (t) {
  case DType::F16:
  case DType::BF16:
  case DType::F32: return "float";
  case DType::F64: return "double";
  case DType::I1: return "bool";
  case DType::I8: return "signed char";
  case DType::I32: return "int";
  case DType::I64: return "long long";
  }
  return "?";
}

/// The C++ type reductions accumulate in.
const char *accumulatorType(DType t) {
  if (t == DType::F64)
    return "double";
  return isFloat(t) ? "float" : "long long";
}

bool isHalfLike(DType t) { return t == DType::F16 || t == DType::BF16; }

/// Wraps a float-valued expression so that it is rounded to `t` (f16/bf16).
std::string roundTo(DType t, const std::string &expr) {
  if (t == DType::F16)
    return "stride_round_f16(" + expr + ")";
  if (t == DType::BF16)
    return "stride_round_bf16(" + expr + ")";
  return expr;
}

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

/// A C++ literal of compute type float (f16/bf16/f32, rounded to `t` first)
/// or double (f64) that denotes exactly `value` rounded to `t`.
std::string floatLiteral(double value, DType t) {
  bool isDouble = t == DType::F64;
  if (t != DType::F64) {
    llvm::APFloat f(value);
    bool lost = false;
    const llvm::fltSemantics &sem =
        t == DType::F16    ? llvm::APFloat::IEEEhalf()
        : t == DType::BF16 ? llvm::APFloat::BFloat()
                           : llvm::APFloat::IEEEsingle();
    f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
    f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
              &lost);
    value = f.convertToDouble();
  }
  if (std::isnan(value))
    return isDouble ? "STRIDE_NAN_D" : "STRIDE_NAN_F";
  if (std::isinf(value))
    return std::string(value < 0 ? "-" : "") +
           (isDouble ? "STRIDE_INF_D" : "STRIDE_INF_F");
  std::string text = isDouble ? fmt::format("{}", value)
                              : fmt::format("{}", static_cast<float>(value));
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  if (!isDouble)
    text += "f";
  if (text[0] == '-')
    text = "(" + text + ")";
  return text;
}

std::string intLiteral(int64_t value, DType t) {
  switch (t) {
  case DType::I1:
    return value ? "true" : "false";
  case DType::I8:
    return fmt::format("((signed char){})", value);
  case DType::I32:
    if (value == std::numeric_limits<int32_t>::min())
      return "(-2147483647 - 1)";
    return value < 0 ? fmt::format("({})", value) : fmt::format("{}", value);
  case DType::I64:
    if (value == std::numeric_limits<int64_t>::min())
      return "(-9223372036854775807LL - 1)";
    return value < 0 ? fmt::format("({}LL)", value)
                     : fmt::format("{}LL", value);
  default:
    return floatLiteral(static_cast<double>(value), t);
  }
}

/// A literal of `t`'s compute type for a value given as a double (integers
/// are exact in it up to 2^53; full's verifier keeps integer values in
/// range).
std::string literalOf(double value, DType t) {
  if (isFloat(t))
    return floatLiteral(value, t);
  return intLiteral(static_cast<int64_t>(value), t);
}

/// A C string literal of `text` (for messages).
std::string cString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

//===----------------------------------------------------------------------===//
// Locations and names
//===----------------------------------------------------------------------===//

/// The first file:line:col inside `loc`.
std::optional<FileLineColLoc> fileLocation(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      found = file;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

/// "seed_forward.mlir:7:17" (the file's name without its directory), or
/// "unknown location".
std::string formatLocation(Location loc) {
  std::optional<FileLineColLoc> file = fileLocation(loc);
  if (!file)
    return "unknown location";
  return fmt::format("{}:{}:{}",
                     llvm::sys::path::filename(file->getFilename().getValue())
                         .str(),
                     file->getLine(), file->getColumn());
}

std::string opName(Operation *op) {
  return op->getName().stripDialect().str();
}

/// `name` as a C identifier that is not a keyword or a prelude name.
std::string cIdentifier(StringRef name) {
  std::string id;
  for (char c : name)
    id += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0])))
    id = "k_" + id;
  static const llvm::StringSet<> reserved = {
      "int", "float", "double", "char", "void", "long", "short", "bool",
      "if", "else", "for", "while", "do", "return", "const", "static",
      "signed", "unsigned", "switch", "case", "default", "break", "continue",
      "struct", "class", "union", "enum", "typedef", "using", "namespace",
      "template", "typename", "auto", "register", "volatile", "extern",
      "inline", "true", "false", "new", "delete", "this", "operator",
      "sizeof", "goto", "main", "atomicAdd", "atomicCAS", "atomicOr"};
  if (reserved.contains(id) || StringRef(id).starts_with("stride_") ||
      StringRef(id).starts_with("__"))
    id = "k_" + id;
  return id;
}

//===----------------------------------------------------------------------===//
// Code
//===----------------------------------------------------------------------===//

class Code {
public:
  template <typename... Args>
  void line(fmt::format_string<Args...> format, Args &&...args) {
    text.append(indent * 2, ' ');
    fmt::format_to(std::back_inserter(text), format,
                   std::forward<Args>(args)...);
    text += '\n';
  }
  void raw(const std::string &lineText) {
    text.append(indent * 2, ' ');
    text += lineText;
    text += '\n';
  }
  /// "header {" and indent.
  void open(const std::string &header) {
    raw(header + " {");
    ++indent;
  }
  void close(const std::string &trailer = "}") {
    --indent;
    raw(trailer);
  }

  std::string text;
  int indent = 0;
};

using Coords = SmallVector<std::string>;

bool isSimple(const std::string &expr) {
  return llvm::all_of(expr, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string paren(const std::string &expr) {
  return isSimple(expr) ? expr : "(" + expr + ")";
}

/// c * k + b with the trivial cases folded.
std::string affine(const std::string &c, int64_t k, int64_t b) {
  std::string term;
  if (k == 0 || c == "0")
    term = "";
  else if (k == 1)
    term = c;
  else
    term = paren(c) + " * " + std::to_string(k);
  if (term.empty())
    return std::to_string(b);
  if (b == 0)
    return term;
  return term + " + " + std::to_string(b);
}

std::string joinCoords(ArrayRef<std::string> coords) {
  std::string s;
  for (size_t i = 0; i < coords.size(); ++i)
    s += (i ? ", " : "") + coords[i];
  return s;
}

std::string shapeText(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

std::string identityOf(ReduceKind kind, DType t) {
  bool isF64 = t == DType::F64;
  bool isF = isFloat(t);
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    return isF ? (isF64 ? "0.0" : "0.0f") : "0LL";
  case ReduceKind::Prod:
    return isF ? (isF64 ? "1.0" : "1.0f") : "1LL";
  case ReduceKind::Max:
    return isF ? (isF64 ? "(-STRIDE_INF_D)" : "(-STRIDE_INF_F)")
               : "(-9223372036854775807LL - 1)";
  case ReduceKind::Min:
    return isF ? (isF64 ? "STRIDE_INF_D" : "STRIDE_INF_F")
               : "9223372036854775807LL";
  }
  return "0";
}

std::string combineOf(ReduceKind kind, const std::string &a,
                      const std::string &b) {
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    return "stride_add(" + a + ", " + b + ")";
  case ReduceKind::Prod:
    return "stride_mul(" + a + ", " + b + ")";
  case ReduceKind::Max:
    return "stride_maximum(" + a + ", " + b + ")";
  case ReduceKind::Min:
    return "stride_minimum(" + a + ", " + b + ")";
  }
  return a;
}

//===----------------------------------------------------------------------===//
// The kernel emitter
//===----------------------------------------------------------------------===//

class KernelEmitter {
public:
  KernelEmitter(KernelOp kernel, std::string name,
                const CudaEmitOptions &options, Code &fileScope,
                unsigned &constantCounter)
      : kernel(kernel), name(std::move(name)), options(options),
        fileScope(fileScope), constantCounter(constantCounter) {}

  FailureOr<CudaKernel> emit(Code &out);

private:
  std::string describe();
  /// Reads the kernel's schedule and checks that it fits the kernel's form.
  LogicalResult readSchedule();
  /// Launch `i` of the schedule.
  LaunchAttr launchAt(unsigned i) {
    return cast<LaunchAttr>(schedule.getLaunches()[i]);
  }

  // Kernel shapes.
  LogicalResult emitPointwise(Code &body);
  LogicalResult emitReduction(Code &body);
  /// Form (d): one row (the reduced elements of one result element) per
  /// warp or block; each reduction of the row in program order, then the
  /// broadcast epilogue over the row.
  LogicalResult emitRowReduction(Code &body);
  /// The unrolled loop over the row elements a thread holds in registers
  /// (scheme row_registers): `count` elements, loop variable `index`;
  /// `header` declares the element's coordinates `coords` (the same names
  /// in every phase) and its validity `valid` (empty when every element is
  /// in the row).
  struct RowLoop {
    std::string index;
    int64_t count = 0;
    std::string header;
    Coords coords;
    std::string valid;
  };
  /// Prints one phase over the row's elements: `fn(code, coords, valid)`
  /// inside `loop`, every value it declares an element of a register array
  /// declared before the loop.
  LogicalResult walkRowRegisters(
      Code &body, const RowLoop &loop,
      function_ref<LogicalResult(Code &, ArrayRef<std::string>, StringRef)>
          fn);
  /// Declares `name` = `expr` of C++ type `type` and returns how to read
  /// it: a constant, or inside a row loop an element of the array `name`.
  std::string declareValue(Code &code, StringRef type, const std::string &name,
                           const std::string &expr);
  /// Declares `name`, assigned later, and returns how to assign and read it.
  std::string declareMutable(Code &code, StringRef type,
                             const std::string &name);
  /// Reports max/min over no elements (undefined, as in PyTorch).
  LogicalResult checkReducesElements(int64_t reducedElements);
  /// The reduction's value from its accumulator, in its compute type.
  std::string finalValue(const ReductionInfo &info, int64_t reducedElements);
  /// Combines `info.acc` across the `threads` threads of a row (a power of
  /// two: one warp, or a whole block through shared array `shared`), so
  /// that every thread of the row holds the row's result.
  void combineAcrossRow(Code &body, const ReductionInfo &info, int64_t threads,
                        const std::string &shared);
  LogicalResult emitScatter(Code &body);

  /// A grid-stride loop over the `n` elements of `shape`: opens the loop,
  /// declares the coordinates and returns them. The caller closes it.
  Coords openGridStrideLoop(Code &code, ArrayRef<int64_t> shape, int64_t n);
  /// Declares the coordinates of row-major `linear` in `shape`.
  Coords delinearize(Code &code, const std::string &linear,
                     ArrayRef<int64_t> shape);
  LogicalResult storeYields(Code &code, ArrayRef<std::string> coords);

  // Evaluation.
  FailureOr<std::string> eval(Value value, ArrayRef<std::string> coords,
                              Code &code);
  FailureOr<std::string> evalUncached(Value value, ArrayRef<std::string> coords,
                                      Code &code);
  FailureOr<Coords> mapThroughView(Operation *view,
                                   ArrayRef<std::string> coords, Code &code);
  FailureOr<std::string> evalOp(Operation *op, ArrayRef<std::string> coords,
                                Code &code);
  FailureOr<std::string> evalPointwise(Operation *op,
                                       ArrayRef<std::string> coords,
                                       Code &code);
  FailureOr<std::string> evalCast(const std::string &value, DType from,
                                  DType to);
  FailureOr<std::string> evalConstant(ConstantOp op,
                                      ArrayRef<std::string> coords);
  FailureOr<std::string> evalSliceScatter(SliceScatterOp scatter,
                                          ArrayRef<std::string> coords,
                                          Code &code);
  FailureOr<std::string> evalSelectScatter(SelectScatterOp scatter,
                                           ArrayRef<std::string> coords,
                                           Code &code);
  /// A coordinate mask: `src` at `srcCoords` where `cond` holds, else
  /// `input` at `coords`, each evaluated only on its side of the branch.
  FailureOr<std::string> evalMasked(Code &code, const std::string &cond,
                                    Value src, ArrayRef<std::string> srcCoords,
                                    Value input, ArrayRef<std::string> coords,
                                    DType dtype);
  /// gather and index_select: `input` at `coords` with the coordinate along
  /// `dim` replaced by `index` read (and checked) at `indexCoords`.
  FailureOr<std::string> evalIndexed(Operation *op, Value input, Value index,
                                     int64_t dim,
                                     ArrayRef<std::string> indexCoords,
                                     ArrayRef<std::string> coords, Code &code);
  /// Reads an index tensor at `coords` and checks it against [0, size):
  /// returns a variable of the index type holding a safe index (0 after a
  /// reported violation).
  FailureOr<std::string> evalIndex(Operation *op, Value index,
                                   ArrayRef<std::string> coords, int64_t size,
                                   Code &code, bool skipOnError);

  /// True when `type` read (or written) at the current lane's coordinates
  /// is element `lane` of an aligned group of 4 consecutive elements: the
  /// coordinates are the lane's own, the innermost stride is 1, and the
  /// offset and every other stride are multiples of 4.
  bool isVectorAccess(StridedTensorType type, ArrayRef<std::string> coords);
  /// The vectorized pointwise loop: each thread computes 4 consecutive
  /// elements of the innermost dim per step.
  LogicalResult emitVectorized(Code &body, int64_t n);
  /// Evaluates every yielded value at the 4 coordinates of `lanes` (vector
  /// accesses where aligned) and stores them.
  LogicalResult evalAndStoreLanes(Code &body);
  /// Stores 4 computed values of result `i` at `lanes` (one 4-element store
  /// where the result's layout allows it).
  void storeLanes(Code &body, unsigned i, ArrayRef<std::string> values);

  /// The tiled transpose scheme (see emitTiled), with the inputs the
  /// schedule stages through shared memory.
  LogicalResult emitTiled(Code &body);

  /// The segmented index_add (see emitSegmentedIndexAdd).
  LogicalResult emitSegmentedIndexAdd(Code &body);

  /// The block argument a value is a view chain of, if any.
  std::optional<unsigned> rootArgument(Value value);
  std::string address(StridedTensorType type, ArrayRef<std::string> coords);

  std::string fresh(StringRef prefix) {
    return (prefix + Twine(counter++)).str();
  }
  std::string memoKey(Value value, ArrayRef<std::string> coords) {
    return fmt::format("{}|{}", value.getAsOpaquePointer(),
                       joinCoords(coords));
  }
  std::optional<std::string> lookup(const std::string &key) {
    for (auto it = memo.rbegin(); it != memo.rend(); ++it) {
      auto found = it->find(key);
      if (found != it->end())
        return found->second;
    }
    return std::nullopt;
  }
  void pushScope() { memo.emplace_back(); }
  void popScope() { memo.pop_back(); }

  InFlightDiagnostic error(Operation *op) {
    return op->emitError() << "cannot emit CUDA for kernel '" << name << "': ";
  }

  KernelOp kernel;
  std::string name;
  const CudaEmitOptions &options;
  Code &fileScope;
  unsigned &constantCounter;

  std::string idx = "idx_t";
  unsigned counter = 0;
  std::vector<llvm::StringMap<std::string>> memo;
  /// The kernel's form, yields, iteration space and roots.
  KernelFacts facts;
  /// The schedule the kernel runs under (stride-schedule-kernels).
  KernelScheduleAttr schedule;
  SmallVector<Value> &yields = facts.yields;
  SmallVector<int64_t> &iterationShape = facts.iterationShape;
  SmallVector<ReductionInfo> &reductions = facts.reductions;
  /// Reduction results and the key of the coordinates they are held at.
  llvm::DenseMap<Value, std::string> reductionKeys;
  /// Form (d): the variable holding each reduction's value for the current
  /// row, once computed; reads of it broadcast back resolve to it.
  llvm::DenseMap<Operation *, std::string> rowValues;
  /// Form (d) in registers: the row loop being printed (null outside), and
  /// the arrays its values were declared in.
  const RowLoop *rowArrays = nullptr;
  SmallVector<std::pair<std::string, std::string>> newArrays;
  /// In a vectorized pointwise loop: the lane being evaluated (-1 outside),
  /// and each lane's coordinates (consecutive in the innermost dim).
  int vectorLane = -1;
  SmallVector<Coords, 4> lanes;
};

std::string KernelEmitter::describe() {
  std::string ops, locs;
  std::string firstFile;
  for (Operation &op : kernel.getBodyBlock().without_terminator()) {
    if (!isFunctional(&op))
      continue;
    ops += (ops.empty() ? "" : " + ") + opName(&op);
    std::string loc = formatLocation(op.getLoc());
    std::string file = loc.substr(0, loc.find(':'));
    if (locs.empty()) {
      firstFile = file;
      locs = loc;
    } else if (file == firstFile && loc != "unknown location") {
      locs += ", " + loc.substr(file.size() + 1);
    } else {
      locs += ", " + loc;
    }
  }
  if (ops.empty())
    ops = "copy";
  return locs.empty() ? ops : ops + " (" + locs + ")";
}

//===----------------------------------------------------------------------===//
// Addresses and coordinates
//===----------------------------------------------------------------------===//

std::optional<unsigned> KernelEmitter::rootArgument(Value value) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == &kernel.getBodyBlock())
        return arg.getArgNumber();
      return std::nullopt;
    }
    auto view = dyn_cast<ViewOpInterface>(value.getDefiningOp());
    if (!view)
      return std::nullopt;
    value = view.getSource();
  }
}

std::string KernelEmitter::address(StridedTensorType type,
                                   ArrayRef<std::string> coords) {
  std::string text;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t size = type.getShape()[d], stride = type.getStrides()[d];
    if (size == 1 || stride == 0 || coords[d] == "0")
      continue;
    text += (text.empty() ? "" : " + ") + affine(coords[d], stride, 0);
  }
  if (type.getOffset() != 0 || text.empty())
    text += (text.empty() ? "" : " + ") + std::to_string(type.getOffset());
  return text;
}

Coords KernelEmitter::delinearize(Code &code, const std::string &linear,
                                  ArrayRef<int64_t> shape) {
  Coords coords(shape.size(), "0");
  int64_t inner = 1;
  // The outermost dim of size > 1 needs no modulo.
  int64_t outermost = -1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (shape[d] != 1) {
      outermost = d;
      break;
    }
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 1)
      continue;
    std::string c = fresh("i");
    std::string quotient =
        inner == 1 ? linear : paren(linear) + " / " + std::to_string(inner);
    if (d == outermost)
      code.line("const {} {} = {};", idx, c, quotient);
    else
      code.line("const {} {} = {} % {};", idx, c, paren(quotient), shape[d]);
    coords[d] = c;
    inner *= shape[d];
  }
  return coords;
}

Coords KernelEmitter::openGridStrideLoop(Code &code, ArrayRef<int64_t> shape,
                                         int64_t n) {
  std::string i = fresh("linear");
  code.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * blockDim.x + "
                        "threadIdx.x; {1} < {2}; {1} += ({0})gridDim.x * "
                        "blockDim.x)",
                        idx, i, n));
  return delinearize(code, i, shape);
}

FailureOr<Coords> KernelEmitter::mapThroughView(Operation *view,
                                                ArrayRef<std::string> coords,
                                                Code &code) {
  auto sourceType =
      cast<StridedTensorType>(cast<ViewOpInterface>(view).getSource().getType());
  auto resultType = cast<StridedTensorType>(view->getResult(0).getType());
  ArrayRef<int64_t> srcShape = sourceType.getShape();
  int64_t srcRank = sourceType.getRank(), resRank = resultType.getRank();
  Coords src;
  return llvm::TypeSwitch<Operation *, FailureOr<Coords>>(view)
      .Case<ExpandOp>([&](auto) -> FailureOr<Coords> {
        for (int64_t k = 0; k < srcRank; ++k)
          src.push_back(srcShape[k] == 1 ? "0"
                                         : coords[k + resRank - srcRank]);
        return src;
      })
      .Case<UnsqueezeOp>([&](UnsqueezeOp op) -> FailureOr<Coords> {
        for (int64_t k = 0; k < resRank; ++k)
          if (k != static_cast<int64_t>(op.getDim()))
            src.push_back(coords[k]);
        return src;
      })
      .Case<SqueezeOp>([&](SqueezeOp op) -> FailureOr<Coords> {
        ArrayRef<int64_t> dims = op.getDims();
        size_t next = 0;
        for (int64_t k = 0; k < srcRank; ++k) {
          if (llvm::is_contained(dims, k))
            src.push_back("0");
          else
            src.push_back(coords[next++]);
        }
        return src;
      })
      .Case<PermuteOp>([&](PermuteOp op) -> FailureOr<Coords> {
        src.assign(srcRank, "0");
        ArrayRef<int64_t> perm = op.getDims();
        for (int64_t i = 0; i < resRank; ++i)
          src[perm[i]] = coords[i];
        return src;
      })
      .Case<SliceOp>([&](SliceOp op) -> FailureOr<Coords> {
        src.assign(coords.begin(), coords.end());
        int64_t d = op.getDim();
        src[d] = affine(coords[d], op.getStep(), op.getStart());
        return src;
      })
      .Case<SelectOp>([&](SelectOp op) -> FailureOr<Coords> {
        src.assign(coords.begin(), coords.end());
        src.insert(src.begin() + op.getDim(), std::to_string(op.getIndex()));
        return src;
      })
      .Case<ViewOp>([&](auto) -> FailureOr<Coords> {
        // Row-major linear index in the result, delinearized in the source.
        Dims strides = rowMajorStrides(resultType.getShape());
        std::string linear;
        for (int64_t d = 0; d < resRank; ++d) {
          if (resultType.getShape()[d] == 1 || coords[d] == "0")
            continue;
          linear += (linear.empty() ? "" : " + ") +
                    affine(coords[d], strides[d], 0);
        }
        if (linear.empty())
          return Coords(srcRank, "0");
        std::string var = fresh("flat");
        code.line("const {} {} = {};", idx, var, linear);
        return delinearize(code, var, srcShape);
      })
      .Case<AsStridedOp>([&](auto) -> FailureOr<Coords> {
        // The storage address in the source's own layout, mapped back to
        // the source's coordinates; only a dense source layout has an
        // inverse for every address.
        Layout source = sourceType.getLayout();
        if (!isDense(source.shape, source.strides))
          return (error(view)
              << "as_strided of a computed value needs a dense source "
                 "layout to map addresses back to coordinates");
        std::string addr = address(resultType, coords);
        std::string rel = fresh("addr");
        if (source.offset == 0)
          code.line("const {} {} = {};", idx, rel, addr);
        else
          code.line("const {} {} = {} - {};", idx, rel, paren(addr),
                    source.offset);
        src.assign(srcRank, "0");
        for (int64_t d : dimOrderByStride(source.strides)) {
          if (srcShape[d] == 1)
            continue;
          std::string c = fresh("i");
          code.line("const {} {} = ({} / {}) % {};", idx, c, rel,
                    source.strides[d], srcShape[d]);
          src[d] = c;
        }
        return src;
      })
      .Default([&](Operation *op) -> FailureOr<Coords> {
        return (error(op) << "unsupported view op");
      });
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

FailureOr<std::string> KernelEmitter::eval(Value value,
                                           ArrayRef<std::string> coords,
                                           Code &code) {
  std::string key = memoKey(value, coords);
  if (std::optional<std::string> hit = lookup(key))
    return *hit;
  FailureOr<std::string> result = evalUncached(value, coords, code);
  if (succeeded(result))
    memo.back()[key] = *result;
  return result;
}

FailureOr<std::string> KernelEmitter::evalUncached(Value value,
                                                   ArrayRef<std::string> coords,
                                                   Code &code) {
  auto type = cast<StridedTensorType>(value.getType());
  DType dtype = *dtypeOf(type);
  if (facts.isRowForm())
    if (Operation *reduction = viewChainBase(value).getDefiningOp();
        reduction && isa<ReductionOpInterface>(reduction)) {
      auto it = rowValues.find(reduction);
      if (it == rowValues.end() ||
          !isBroadcastBackOf(value, cast<ReductionOpInterface>(reduction)))
        return (error(reduction)
                << "in a broadcast-reduction kernel a reduction's result may "
                   "only be read broadcast back over its row, after it is "
                   "computed");
      return it->second;
    }
  if (std::optional<unsigned> arg = rootArgument(value)) {
    // Loads are shared by address: a broadcast operand read by every lane
    // of a vectorized loop is one load.
    std::string addr = address(type, coords);
    std::string key = fmt::format("load|{}|{}", *arg, addr);
    if (std::optional<std::string> hit = lookup(key))
      return *hit;
    std::string v = fresh("v");
    if (vectorLane >= 0 && isVectorAccess(type, coords)) {
      // Four consecutive elements of the innermost dim, aligned: one
      // 4-element load, each lane takes its element.
      std::string vecKey =
          fmt::format("vec|{}|{}", *arg, address(type, lanes[0]));
      std::optional<std::string> vec = lookup(vecKey);
      if (!vec) {
        vec = fresh("quad");
        code.line("const stride_vec4<{0}> {1} = *reinterpret_cast<const "
                  "stride_vec4<{0}> *>(&in{2}[{3}]);",
                  storageType(dtype), *vec, *arg, address(type, lanes[0]));
        memo.back()[vecKey] = *vec;
      }
      v = declareValue(code, computeType(dtype), v,
                       fmt::format("stride_ld(&{}.v[{}])", *vec, vectorLane));
    } else {
      v = declareValue(code, computeType(dtype), v,
                       fmt::format("stride_ld(&in{}[{}])", *arg, addr));
    }
    memo.back()[key] = v;
    return v;
  }
  Operation *op = value.getDefiningOp();
  if (!op)
    return (error(kernel) << "a value defined outside the kernel");
  if (isa<ViewOpInterface>(op)) {
    FailureOr<Coords> mapped = mapThroughView(op, coords, code);
    if (failed(mapped))
      return failure();
    return eval(cast<ViewOpInterface>(op).getSource(), *mapped, code);
  }
  if (isa<ReductionOpInterface>(op)) {
    auto it = reductionKeys.find(value);
    if (it != reductionKeys.end() && it->second == memoKey(value, coords))
      return lookup(it->second).value();
    return (error(op) << "a reduction's result is read at other "
                                "coordinates than the kernel's own output "
                                "element; only pointwise epilogues are fused");
  }
  return evalOp(op, coords, code);
}

FailureOr<std::string> KernelEmitter::evalCast(const std::string &v,
                                               DType from, DType to) {
  if (from == to)
    return v;
  const char *to_c = computeType(to);
  if (to == DType::I1)
    return "(" + v + " != 0)";
  if (from == DType::I1)
    return isFloat(to) ? fmt::format("({} ? {} : {})", v, literalOf(1, to),
                                     literalOf(0, to))
                       : fmt::format("(({}){} ? 1 : 0)", to_c, v);
  if (isFloat(from) && isFloat(to)) {
    if (isHalfLike(to))
      return roundTo(to, v); // from float or double: one rounding
    if (to == DType::F32)
      return from == DType::F64 ? "(float)" + paren(v) : v;
    return "(double)" + paren(v);
  }
  if (isFloat(from)) // to an integer: truncation toward zero
    return fmt::format("(({})(long long){})", to_c, paren(v));
  if (isFloat(to)) { // from an integer
    if (to == DType::F16)
      return "stride_int_to_f16((long long)" + paren(v) + ")";
    if (to == DType::BF16)
      return "stride_int_to_bf16((long long)" + paren(v) + ")";
    return fmt::format("(({}){})", to_c, paren(v));
  }
  return fmt::format("(({}){})", to_c, paren(v)); // integer to integer: wraps
}

FailureOr<std::string> KernelEmitter::evalIndex(Operation *op, Value index,
                                                ArrayRef<std::string> coords,
                                                int64_t size, Code &code,
                                                bool skipOnError) {
  FailureOr<std::string> raw = eval(index, coords, code);
  if (failed(raw))
    return failure();
  std::string i = fresh("index");
  code.line("{} {} = ({}){};", idx, i, idx, *raw);
  std::string message = fmt::format(
      "stride: {} at {}: index out of range [0, {}) in kernel {}", opName(op),
      formatLocation(op->getLoc()), size, name);
  code.open(fmt::format("if ((long long){} < 0 || (long long){} >= {})", *raw,
                        *raw, size));
  code.line("stride_fail({});", cString(message));
  if (skipOnError)
    code.line("continue;");
  else
    code.line("{} = 0;", i);
  code.close();
  return i;
}

FailureOr<std::string> KernelEmitter::evalConstant(ConstantOp op,
                                                   ArrayRef<std::string> coords) {
  auto type = cast<StridedTensorType>(op.getType());
  DType dtype = *dtypeOf(type);
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return (error(op) << "only dense constants are supported");
  auto valueOf = [&](int64_t i) -> std::string {
    if (isFloat(dtype))
      return floatLiteral(
          APFloat(*(dense.getValues<APFloat>().begin() + i)).convertToDouble(), dtype);
    APInt v = *(dense.getValues<APInt>().begin() + i);
    if (dtype == DType::I1)
      return v.isZero() ? "false" : "true";
    return intLiteral(v.getSExtValue(), dtype);
  };
  if (dense.isSplat())
    return valueOf(0);
  int64_t n = type.getNumElements();
  std::string array = fmt::format("stride_const_{}_{}", name, constantCounter++);
  fileScope.line("// stride.constant at {}", formatLocation(op.getLoc()));
  std::string values;
  for (int64_t i = 0; i < n; ++i) {
    values += (i ? (i % 8 ? ", " : ",\n    ") : "") + valueOf(i);
  }
  fileScope.line("__device__ const {} {}[{}] = {{\n    {}}};",
                 computeType(dtype), array, n, values);
  Dims strides = rowMajorStrides(type.getShape());
  std::string linear;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (type.getShape()[d] == 1 || coords[d] == "0")
      continue;
    linear += (linear.empty() ? "" : " + ") + affine(coords[d], strides[d], 0);
  }
  return array + "[" + (linear.empty() ? "0" : linear) + "]";
}

FailureOr<std::string> KernelEmitter::evalPointwise(
    Operation *op, ArrayRef<std::string> coords, Code &code) {
  SmallVector<std::string> args;
  for (Value operand : op->getOperands()) {
    FailureOr<std::string> v = eval(operand, coords, code);
    if (failed(v))
      return failure();
    args.push_back(*v);
  }
  DType result = *dtypeOf(op->getResult(0).getType());
  DType operand = *dtypeOf(op->getOperand(0).getType());
  auto call = [&](StringRef fn) -> std::string {
    std::string s = ("stride_" + fn + "(").str();
    for (size_t i = 0; i < args.size(); ++i)
      s += (i ? ", " : "") + args[i];
    return s + ")";
  };
  return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, SigmoidOp,
            ReluOp, GeluOp, SinOp, CosOp, NotOp, AddOp, SubOp, MulOp, PowOp,
            MaximumOp, MinimumOp, AndOp, OrOp>(
          [&](Operation *) -> FailureOr<std::string> {
            return roundTo(result, call(opName(op)));
          })
      .Case<DivOp>([&](DivOp) -> FailureOr<std::string> {
        if (isFloat(result))
          return roundTo(result, call("div"));
        std::string message =
            fmt::format("stride: div at {}: integer division by zero in "
                        "kernel {}",
                        formatLocation(op->getLoc()), name);
        return fmt::format("stride_div({}, {}, {})", args[0], args[1],
                           cString(message));
      })
      .Case<CmpOp>([&](CmpOp cmp) -> FailureOr<std::string> {
        const char *symbol = "==";
        switch (cmp.getPredicate()) {
        case CmpPredicate::eq: symbol = "=="; break;
        case CmpPredicate::ne: symbol = "!="; break;
        case CmpPredicate::lt: symbol = "<"; break;
        case CmpPredicate::le: symbol = "<="; break;
        case CmpPredicate::gt: symbol = ">"; break;
        case CmpPredicate::ge: symbol = ">="; break;
        }
        return fmt::format("({} {} {})", args[0], symbol, args[1]);
      })
      .Case<WhereOp>([&](WhereOp) -> FailureOr<std::string> {
        return fmt::format("({} ? {} : {})", args[0], args[1], args[2]);
      })
      .Case<CastOp>([&](CastOp) { return evalCast(args[0], operand, result); })
      .Case<CloneOp>([&](CloneOp) -> FailureOr<std::string> { return args[0]; })
      .Default([&](Operation *) -> FailureOr<std::string> {
        return (error(op) << "unsupported pointwise op");
      });
}

FailureOr<std::string> KernelEmitter::evalMasked(
    Code &code, const std::string &cond, Value src,
    ArrayRef<std::string> srcCoords, Value input,
    ArrayRef<std::string> coords, DType dtype) {
  std::string v = declareMutable(code, computeType(dtype), fresh("v"));
  code.open(fmt::format("if ({})", cond));
  pushScope();
  FailureOr<std::string> fromSrc = eval(src, srcCoords, code);
  popScope();
  if (failed(fromSrc))
    return failure();
  code.line("{} = {};", v, *fromSrc);
  code.close("} else {");
  ++code.indent;
  pushScope();
  FailureOr<std::string> fromInput = eval(input, coords, code);
  popScope();
  if (failed(fromInput))
    return failure();
  code.line("{} = {};", v, *fromInput);
  code.close();
  return v;
}

FailureOr<std::string> KernelEmitter::evalSliceScatter(
    SliceScatterOp scatter, ArrayRef<std::string> coords, Code &code) {
  int64_t d = scatter.getDim(), start = scatter.getStart(),
          end = scatter.getEnd(), step = scatter.getStep();
  std::string c = coords[d];
  std::string cond = fmt::format("{} >= {} && {} < {}", c, start, c, end);
  if (start == 0)
    cond = fmt::format("{} < {}", c, end);
  if (step != 1)
    cond += fmt::format(" && ({} - {}) % {} == 0", c, start, step);
  code.line("// slice_scatter at {}: dim {} in [{}, {}) step {} comes from "
            "src",
            formatLocation(scatter.getLoc()), d, start, end, step);
  Coords srcCoords(coords.begin(), coords.end());
  srcCoords[d] = step == 1 ? (start == 0 ? c : paren(c) + " - " +
                                                std::to_string(start))
                           : fmt::format("({} - {}) / {}", c, start, step);
  return evalMasked(code, cond, scatter.getSrc(), srcCoords,
                    scatter.getInput(), coords, *dtypeOf(scatter.getType()));
}

FailureOr<std::string> KernelEmitter::evalSelectScatter(
    SelectScatterOp scatter, ArrayRef<std::string> coords, Code &code) {
  int64_t d = scatter.getDim(), index = scatter.getIndex();
  code.line("// select_scatter at {}: index {} of dim {} comes from src",
            formatLocation(scatter.getLoc()), index, d);
  Coords srcCoords(coords.begin(), coords.end());
  srcCoords.erase(srcCoords.begin() + d);
  return evalMasked(code, fmt::format("{} == {}", coords[d], index),
                    scatter.getSrc(), srcCoords, scatter.getInput(), coords,
                    *dtypeOf(scatter.getType()));
}

FailureOr<std::string> KernelEmitter::evalIndexed(
    Operation *op, Value input, Value index, int64_t dim,
    ArrayRef<std::string> indexCoords, ArrayRef<std::string> coords,
    Code &code) {
  auto inType = cast<StridedTensorType>(input.getType());
  code.line("// {} at {} along dim {}", opName(op),
            formatLocation(op->getLoc()), dim);
  FailureOr<std::string> i = evalIndex(op, index, indexCoords,
                                       inType.getShape()[dim], code, false);
  if (failed(i))
    return failure();
  Coords inCoords(coords.begin(), coords.end());
  inCoords[dim] = *i;
  return eval(input, inCoords, code);
}

FailureOr<std::string> KernelEmitter::evalOp(Operation *op,
                                             ArrayRef<std::string> coords,
                                             Code &code) {
  DType dtype = *dtypeOf(op->getResult(0).getType());
  return llvm::TypeSwitch<Operation *, FailureOr<std::string>>(op)
      .Case<FullOp>([&](FullOp full) -> FailureOr<std::string> {
        return literalOf(full.getValue().convertToDouble(), dtype);
      })
      .Case<IotaOp>([&](IotaOp iota) -> FailureOr<std::string> {
        // The coordinate has the index type: convert it explicitly.
        std::string c = paren(coords[iota.getDim()]);
        if (!isFloat(dtype))
          return fmt::format("(({}){})", computeType(dtype), c);
        return evalCast("(long long)" + c, DType::I64, dtype);
      })
      .Case<ConstantOp>([&](ConstantOp constant) {
        return evalConstant(constant, coords);
      })
      .Case<SliceScatterOp>([&](SliceScatterOp scatter) {
        return evalSliceScatter(scatter, coords, code);
      })
      .Case<SelectScatterOp>([&](SelectScatterOp scatter) {
        return evalSelectScatter(scatter, coords, code);
      })
      .Case<GatherOp>([&](GatherOp gather) {
        return evalIndexed(op, gather.getInput(), gather.getIndex(),
                           gather.getDim(), coords, coords, code);
      })
      .Case<IndexSelectOp>([&](IndexSelectOp select) {
        int64_t d = select.getDim();
        return evalIndexed(op, select.getInput(), select.getIndex(), d,
                           {coords[d]}, coords, code);
      })
      .Case<IndexScatterOpInterface, ReductionOpInterface, KernelOp>(
          [&](Operation *) -> FailureOr<std::string> {
            return (error(op) << "is only supported as the root of a kernel");
          })
      .Default([&](Operation *) -> FailureOr<std::string> {
        // Pointwise ops: the operands first, then one temporary with the
        // op's location.
        for (Value operand : op->getOperands())
          if (failed(eval(operand, coords, code)))
            return failure();
        code.line("// {} at {}", opName(op), formatLocation(op->getLoc()));
        FailureOr<std::string> expr = evalPointwise(op, coords, code);
        if (failed(expr))
          return failure();
        return declareValue(code, computeType(dtype), fresh("v"), *expr);
      });
}

//===----------------------------------------------------------------------===//
// Kernel shapes
//===----------------------------------------------------------------------===//

LogicalResult KernelEmitter::storeYields(Code &code,
                                         ArrayRef<std::string> coords) {
  for (auto [i, value] : llvm::enumerate(yields)) {
    FailureOr<std::string> v = eval(value, coords, code);
    if (failed(v))
      return failure();
    auto outType = cast<StridedTensorType>(kernel.getResult(i).getType());
    code.line("stride_st(&out{}[{}], {});", i, address(outType, coords), *v);
  }
  return success();
}

LogicalResult KernelEmitter::emitPointwise(Code &body) {
  int64_t n = product(iterationShape);
  body.line("// iteration space: {} elements ({})", n,
            shapeText(iterationShape));
  if (n == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }
  if (schedule.getScheme() == KernelScheme::TiledTranspose)
    return emitTiled(body);
  if (schedule.getScheme() == KernelScheme::Vectorized)
    return emitVectorized(body, n);
  Coords coords = openGridStrideLoop(body, iterationShape, n);
  pushScope();
  if (failed(storeYields(body, coords)))
    return failure();
  popScope();
  body.close();
  return success();
}

bool KernelEmitter::isVectorAccess(StridedTensorType type,
                                   ArrayRef<std::string> coords) {
  if (vectorLane < 0 || coords != ArrayRef<std::string>(lanes[vectorLane]))
    return false;
  ArrayRef<int64_t> shape = type.getShape(), strides = type.getStrides();
  if (shape.empty() || shape.back() % 4 != 0 || strides.back() != 1 ||
      type.getOffset() % 4 != 0)
    return false;
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] % 4 != 0)
      return false;
  return true;
}

LogicalResult KernelEmitter::emitVectorized(Code &body, int64_t n) {
  body.line("// 4 consecutive elements of the innermost dim per thread and "
            "step; aligned operands move as one 4-element access");
  std::string q = fresh("quad");
  body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * blockDim.x + "
                        "threadIdx.x; {1} < {2}; {1} += ({0})gridDim.x * "
                        "blockDim.x)",
                        idx, q, n / 4));
  std::string first = fresh("linear");
  body.line("const {} {} = {} * 4;", idx, first, q);
  Coords coords = delinearize(body, first, iterationShape);
  lanes.assign(4, coords);
  for (int k = 1; k < 4; ++k) {
    std::string c = fresh("i");
    body.line("const {} {} = {} + {};", idx, c, coords.back(), k);
    lanes[k].back() = c;
  }
  if (failed(evalAndStoreLanes(body)))
    return failure();
  body.close();
  return success();
}

LogicalResult KernelEmitter::evalAndStoreLanes(Code &body) {
  pushScope();
  SmallVector<SmallVector<std::string, 4>> values;
  for (Value value : yields) {
    values.emplace_back();
    for (int k = 0; k < 4; ++k) {
      vectorLane = k;
      FailureOr<std::string> v = eval(value, lanes[k], body);
      if (failed(v)) {
        vectorLane = -1;
        return failure();
      }
      values.back().push_back(*v);
    }
  }
  for (unsigned i = 0; i < yields.size(); ++i)
    storeLanes(body, i, values[i]);
  vectorLane = -1;
  popScope();
  return success();
}

void KernelEmitter::storeLanes(Code &body, unsigned i,
                               ArrayRef<std::string> values) {
  auto outType = cast<StridedTensorType>(kernel.getResult(i).getType());
  int savedLane = vectorLane;
  vectorLane = 0;
  bool vectorStore = isVectorAccess(outType, lanes[0]);
  vectorLane = savedLane;
  const char *st = storageType(*dtypeOf(outType));
  if (vectorStore) {
    std::string o = fresh("quad");
    body.line("stride_vec4<{}> {};", st, o);
    for (int k = 0; k < 4; ++k)
      body.line("stride_st(&{}.v[{}], {});", o, k, values[k]);
    body.line("*reinterpret_cast<stride_vec4<{}> *>(&out{}[{}]) = {};", st, i,
              address(outType, lanes[0]), o);
  } else {
    for (int k = 0; k < 4; ++k)
      body.line("stride_st(&out{}[{}], {});", i, address(outType, lanes[k]),
                values[k]);
  }
}

//===----------------------------------------------------------------------===//
// The tiled transpose scheme
//===----------------------------------------------------------------------===//

/// An input that the tiled transpose scheme stages through shared memory
/// (see emitTiled): read at the kernel's own coordinates through `type`,
/// whose stride is not 1 along the innermost dim but 1 along the
/// schedule's transpose dim.
struct StagedLoad {
  unsigned arg;
  StridedTensorType type;
  /// Staged with 4-element loads along the transpose dim (aligned).
  bool vector;
  std::string tile;
};

LogicalResult KernelEmitter::emitTiled(Code &body) {
  const int64_t tileSize = schedule.getTile(),
                blockThreads = launchAt(0).getBlock();
  SmallVector<StagedLoad> staged;
  for (auto [i, attr] : llvm::enumerate(schedule.getStaged()
                                            .getAsRange<StagedLoadAttr>()))
    staged.push_back({attr.getArg(), attr.getType(),
                      attr.getVectorWidth() == 4, fmt::format("smem{}", i)});
  int64_t t = schedule.getTransposeDim(), l = iterationShape.size() - 1;
  int64_t sizeT = iterationShape[t], sizeL = iterationShape[l];
  int64_t tilesT = ceilDiv(sizeT, tileSize), tilesL = ceilDiv(sizeL, tileSize);
  SmallVector<int64_t> outerShape(iterationShape);
  outerShape[t] = outerShape[l] = 1;
  int64_t tiles = product(outerShape) * tilesT * tilesL;
  bool vectorB = schedule.getVectorWidth() == 4;

  body.line("// tiled transpose scheme: {} tiles of {}x{} elements of dims "
            "({}, {}); the inputs read with unit stride along dim {} but not",
            tiles, tileSize, tileSize, t, l, t);
  body.line("// along the innermost dim {} are staged through shared memory "
            "(dim {} fastest), then every value is computed and stored with "
            "dim {} fastest",
            l, t, l);
  for (const StagedLoad &s : staged) {
    std::string strides;
    for (int64_t st : s.type.getStrides())
      strides += (strides.empty() ? "" : ", ") + std::to_string(st);
    if (s.type.getOffset() != 0)
      strides += fmt::format("], offset {}", s.type.getOffset());
    else
      strides += "]";
    body.line("__shared__ {} {}[{}][{}]; // in{} read through strides [{}",
              computeType(*dtypeOf(s.type)), s.tile, tileSize, tileSize + 1, s.arg,
              strides);
  }
  std::string tile = fresh("tile");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, tile, tiles));
  std::string l0 = fresh("l0"), t0 = fresh("t0");
  body.line("const {} {} = {};", idx, l0,
            tilesL == 1 ? std::string("0")
                        : fmt::format("({} % {}) * {}", tile, tilesL, tileSize));
  body.line("const {} {} = {};", idx, t0,
            tilesT == 1 ? std::string("0")
                        : fmt::format("({} / {} % {}) * {}", tile, tilesL,
                                      tilesT, tileSize));
  Coords outer(iterationShape.size(), "0");
  if (product(outerShape) > 1) {
    std::string rest = fresh("outer");
    body.line("const {} {} = {} / {};", idx, rest, tile, tilesT * tilesL);
    outer = delinearize(body, rest, outerShape);
  }

  // One pass of `threads along the fast dim` x `rows`: returns the fast and
  // slow offsets in the tile and the guard of the element.
  auto openPass = [&](int64_t vector, int64_t fastDim, int64_t slowDim,
                      const std::string &fast0, const std::string &slow0,
                      Coords &coords, std::string &fastOff,
                      std::string &slowOff) {
    int64_t across = tileSize / vector, rows = blockThreads / across;
    std::string pass = fresh("pass");
    body.line("#pragma unroll");
    body.open(fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", pass,
                          tileSize / rows));
    fastOff = fresh("f");
    slowOff = fresh("s");
    if (vector == 1)
      body.line("const int {} = threadIdx.x % {};", fastOff, across);
    else
      body.line("const int {} = threadIdx.x % {} * {};", fastOff, across,
                vector);
    body.line("const int {} = threadIdx.x / {} + {} * {};", slowOff, across,
              pass, rows);
    std::string cf = fresh("i"), cs = fresh("i");
    body.line("const {} {} = {} + {};", idx, cf, fast0, fastOff);
    body.line("const {} {} = {} + {};", idx, cs, slow0, slowOff);
    coords = outer;
    coords[fastDim] = cf;
    coords[slowDim] = cs;
    std::string guard;
    int64_t fastSize = iterationShape[fastDim],
            slowSize = iterationShape[slowDim];
    if (fastSize % tileSize != 0)
      guard = fmt::format("{} < {}", cf, fastSize);
    if (slowSize % tileSize != 0)
      guard += fmt::format("{}{} < {}", guard.empty() ? "" : " && ", cs,
                           slowSize);
    if (guard.empty()) {
      body.raw("{");
      ++body.indent;
    } else {
      body.open(fmt::format("if ({})", guard));
    }
  };

  // Phase A: the staged inputs, dim t fastest (coalesced for them).
  for (const StagedLoad &s : staged) {
    DType dtype = *dtypeOf(s.type);
    Coords a;
    std::string fastOff, slowOff;
    openPass(s.vector ? 4 : 1, t, l, t0, l0, a, fastOff, slowOff);
    std::string addr = address(s.type, a);
    if (s.vector) {
      std::string q = fresh("quad");
      body.line("const stride_vec4<{0}> {1} = *reinterpret_cast<const "
                "stride_vec4<{0}> *>(&in{2}[{3}]);",
                storageType(dtype), q, s.arg, addr);
      for (int k = 0; k < 4; ++k)
        body.line("{}[{}][{} + {}] = stride_ld(&{}.v[{}]);", s.tile, slowOff,
                  fastOff, k, q, k);
    } else {
      body.line("{}[{}][{}] = stride_ld(&in{}[{}]);", s.tile, slowOff, fastOff,
                s.arg, addr);
    }
    body.close();
    body.close();
  }
  body.line("__syncthreads();");

  // Phase B: every yielded value, dim l fastest; the staged inputs come
  // from the tiles.
  {
    Coords b;
    std::string fastOff, slowOff;
    openPass(vectorB ? 4 : 1, l, t, l0, t0, b, fastOff, slowOff);
    pushScope();
    auto stage = [&](ArrayRef<std::string> coords, const std::string &lOff) {
      for (const StagedLoad &s : staged) {
        std::string v = fresh("v");
        body.line("const {} {} = {}[{}][{}];", computeType(*dtypeOf(s.type)),
                  v, s.tile, lOff, slowOff);
        memo.back()[fmt::format("load|{}|{}", s.arg,
                                address(s.type, coords))] = v;
      }
    };
    if (vectorB) {
      lanes.assign(4, b);
      for (int k = 1; k < 4; ++k) {
        std::string c = fresh("i");
        body.line("const {} {} = {} + {};", idx, c, b[l], k);
        lanes[k][l] = c;
      }
      for (int k = 0; k < 4; ++k)
        stage(lanes[k], fmt::format("{} + {}", fastOff, k));
      if (failed(evalAndStoreLanes(body)))
        return failure();
    } else {
      stage(b, fastOff);
      if (failed(storeYields(body, b)))
        return failure();
    }
    popScope();
    body.close();
    body.close();
  }
  body.line("__syncthreads();");
  body.close();
  return success();
}

//===----------------------------------------------------------------------===//
// The segmented index_add
//===----------------------------------------------------------------------===//

/// index_add along `dim` as a gather: out[c] = input[c] + the sum of
/// source[c with c[dim] = k] over the k whose index is c[dim]. Five launches
/// of one function, with int scratch: counts[rows + 1] (the last is the
/// running total), first[rows], end[rows], order[updates].
///   phase 0  counts = 0
///   phase 1  histogram: counts[index[k]] += 1 (out-of-range indices are
///            reported here, with the message of the atomic scheme)
///   phase 2  ranges: each block scans its 256 counts in shared memory and
///            takes its base from the total with one atomicAdd, so bucket
///            r is [first[r], end[r]) (buckets are disjoint but not in
///            row order)
///   phase 3  fill: order[first[r] + (--counts[r])] = k
///   phase 4  each output element once: the input, plus its bucket's
///            source elements; one store, no atomics on the output
/// The output is written exactly once and the source read exactly once.
/// The order of a bucket's additions depends on the atomics of phase 3.
LogicalResult KernelEmitter::emitSegmentedIndexAdd(Code &body) {
  auto op = cast<IndexAddOp>(facts.scatterRoot);
  Value input = op.getInput(), index = op.getIndex(), src = op.getSrc();
  int64_t dim = op.getDim();
  auto outType = cast<StridedTensorType>(kernel.getResult(0).getType());
  DType dtype = *dtypeOf(outType);
  const char *ct = computeType(dtype);
  auto srcType = cast<StridedTensorType>(src.getType());
  int64_t rows = iterationShape[dim], updates = srcType.getShape()[dim];
  int64_t outN = product(iterationShape);
  std::string where = formatLocation(op->getLoc());


  body.line("// index_add at {} along dim {}, segmented: each of the {} rows "
            "gets the list of the source positions (of {}) that select it,",
            where, dim, rows, updates);
  body.line("// then each output element ({} elements, {}) is computed once "
            "from the input and the source elements on its row's list",
            outN, shapeText(iterationShape));
  body.line("// scratch0: each row's list head (position + 1; 0 = empty); "
            "scratch1: the next position + 1");
  body.line("// Temporaries start zeroed (the runtime zeroes them when it "
            "allocates them); phase 2 empties every head it has read");

  // Phase 1: push every source position onto its row's list; reports
  // out-of-range indices.
  body.open("if (phase == 1)");
  {
    Coords k = openGridStrideLoop(body, {updates}, updates);
    pushScope();
    FailureOr<std::string> i = evalIndex(op, index, k, rows, body, true);
    if (failed(i))
      return failure();
    body.line("scratch1[{}] = atomicExch(&scratch0[{}], (int){} + 1);", k[0],
              *i, k[0]);
    popScope();
    body.close();
  }

  // Phase 2: every output element once, a block per row.
  body.close("} else {");
  ++body.indent;
  // A block takes a row (all elements with coordinate `row` along dim) and
  // its threads take its elements in units of the schedule's elements per
  // thread: `groups` aligned groups of 4 consecutive elements of the
  // innermost dim when vectorized, else one element. When every thread has
  // read the row's head, one of them empties it for the next run, so the
  // heads are zero again when the plan ends.
  bool vector = schedule.getVectorWidth() == 4;
  int width = vector ? 4 : 1;
  int64_t perUnit = schedule.getElementsPerThread();
  int groups = static_cast<int>(perUnit / width);
  SmallVector<int64_t> rowShape(iterationShape.begin(), iterationShape.end());
  rowShape.erase(rowShape.begin() + dim);
  int64_t unitsPerRow = product(rowShape) / perUnit;
  int64_t threads = schedule.getThreads();
  body.line("// a block of {} threads per row of {} elements; {} element{} "
            "per thread and step",
            threads, product(rowShape), perUnit, perUnit == 1 ? "" : "s");
  std::string row = fresh("row"), head = fresh("head");
  body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                        "gridDim.x)",
                        idx, row, rows));
  body.line("const int {} = scratch0[{}];", head, row);
  std::string u = fresh("unit");
  body.open(fmt::format("for ({0} {1} = threadIdx.x; {1} < {2}; {1} += "
                        "blockDim.x)",
                        idx, u, unitsPerRow));
  std::string first = fresh("linear");
  body.line("const {} {} = {} * {};", idx, first, u, perUnit);
  Coords coords = delinearize(body, first, rowShape);
  coords.insert(coords.begin() + dim, row);
  SmallVector<SmallVector<Coords, 4>, 2> groupLanes;
  for (int g = 0; g < groups; ++g) {
    groupLanes.emplace_back(width, coords);
    for (int k = (g == 0 ? 1 : 0); k < width; ++k) {
      std::string c = fresh("i");
      body.line("const {} {} = {} + {};", idx, c, coords.back(), 4 * g + k);
      groupLanes[g][k].back() = c;
    }
  }
  // Evaluates `value` at each lane of each group, with the coordinate along
  // dim replaced by `atRow` when given, and passes each result to `use`.
  auto forEachLane =
      [&](Value value, std::optional<std::string> atRow,
          function_ref<void(int, int, const std::string &)> use)
      -> LogicalResult {
    for (int g = 0; g < groups; ++g) {
      lanes.assign(groupLanes[g].begin(), groupLanes[g].end());
      if (atRow)
        for (Coords &lane : lanes)
          lane[dim] = *atRow;
      for (int w = 0; w < width; ++w) {
        vectorLane = vector ? w : -1;
        FailureOr<std::string> v = eval(value, lanes[w], body);
        vectorLane = -1;
        if (failed(v))
          return failure();
        use(g, w, *v);
      }
    }
    return success();
  };
  pushScope();
  SmallVector<SmallVector<std::string, 4>, 2> acc(groups);
  if (failed(forEachLane(input, std::nullopt,
                         [&](int g, int, const std::string &v) {
                           acc[g].push_back(fresh("acc"));
                           body.line("{} {} = {};", ct, acc[g].back(), v);
                         })))
    return failure();
  // Adds the source elements at source row `k` to the accumulators.
  auto accumulate = [&](const std::string &k) -> LogicalResult {
    pushScope();
    LogicalResult status =
        forEachLane(src, k, [&](int g, int w, const std::string &v) {
          body.line("{} = stride_add({}, {});", acc[g][w], acc[g][w], v);
        });
    popScope();
    return status;
  };
  // Walk the row's list: the source row and the next position load
  // together, so each source row is one dependent load after the last. A
  // list holds each source position at most once; the bound only matters
  // if the heads were ever corrupted, and turns a hang into a wrong result.
  std::string k = fresh("k"), next = fresh("next");
  body.open(fmt::format("for (int {0} = {1}, steps = 0; {0} != 0 && "
                        "steps < {2}; ++steps)",
                        next, head, updates));
  body.line("const {} {} = {} - 1;", idx, k, next);
  body.line("{} = scratch1[{}];", next, k);
  if (failed(accumulate(k)))
    return failure();
  body.close();
  for (int g = 0; g < groups; ++g) {
    lanes.assign(groupLanes[g].begin(), groupLanes[g].end());
    if (vector)
      storeLanes(body, 0, acc[g]);
    else
      body.line("stride_st(&out0[{}], {});", address(outType, lanes[0]),
                acc[g][0]);
  }
  popScope();
  body.close(); // the row's units
  body.line("__syncthreads(); // every thread has read the head");
  body.line("if (threadIdx.x == 0) scratch0[{}] = 0;", row);
  body.close(); // the rows
  body.close();
  return success();
}

LogicalResult KernelEmitter::emitScatter(Code &body) {
  if (schedule.getScheme() == KernelScheme::SegmentedIndexAdd)
    return emitSegmentedIndexAdd(body);
  auto scatter = cast<IndexScatterOpInterface>(facts.scatterRoot);
  Operation *op = facts.scatterRoot;
  Value input = scatter.getInput(), index = scatter.getIndex(),
        src = scatter.getSrc();
  int64_t dim = scatter.getDim();
  auto outType = cast<StridedTensorType>(kernel.getResult(0).getType());
  auto srcType = cast<StridedTensorType>(src.getType());
  auto indexType = cast<StridedTensorType>(index.getType());
  bool accumulate = scatter.isAccumulating();
  // scatter/scatter_add iterate over the index tensor, index_add over the
  // source.
  bool isIndexAdd = scatter.isSliceIndex();
  SmallVector<int64_t> updateShape(isIndexAdd ? srcType.getShape()
                                              : indexType.getShape());
  int64_t outN = product(iterationShape), updateN = product(updateShape);
  std::string where = formatLocation(op->getLoc());

  body.line("// {} at {} along dim {}: phase 0 copies the input ({} elements, "
            "{}),",
            opName(op), where, dim, outN, shapeText(iterationShape));
  body.line("// phase 1 {} the {} ({} elements, {})",
            accumulate ? "accumulates atomically" : "writes",
            isIndexAdd ? "source" : "index", updateN, shapeText(updateShape));

  body.open("if (phase == 0)");
  if (outN > 0) {
    Coords c = openGridStrideLoop(body, iterationShape, outN);
    pushScope();
    FailureOr<std::string> v = eval(input, c, body);
    if (failed(v))
      return failure();
    body.line("stride_st(&out0[{}], {});", address(outType, c), *v);
    popScope();
    body.close();
  }
  body.close("} else {");
  ++body.indent;
  if (updateN > 0 && outN > 0) {
    Coords c = openGridStrideLoop(body, updateShape, updateN);
    pushScope();
    FailureOr<std::string> i =
        isIndexAdd ? evalIndex(op, index, {c[dim]}, outType.getShape()[dim],
                               body, true)
                   : evalIndex(op, index, c, outType.getShape()[dim], body,
                               true);
    if (failed(i))
      return failure();
    FailureOr<std::string> v = eval(src, c, body);
    if (failed(v))
      return failure();
    Coords outCoords(c.begin(), c.end());
    outCoords[dim] = *i;
    if (accumulate)
      body.line("stride_atomic_add(&out0[{}], {});",
                address(outType, outCoords), *v);
    else
      body.line("stride_st(&out0[{}], {});", address(outType, outCoords), *v);
    popScope();
    body.close();
  } else if (updateN > 0) {
    body.line("// the output has no elements: nothing to scatter");
  }
  body.close();
  return success();
}

LogicalResult KernelEmitter::emitReduction(Code &body) {
  ReductionInfo &first = reductions.front();
  auto inType = cast<StridedTensorType>(first.input.getType());
  ArrayRef<int64_t> inShape = inType.getShape();
  ArrayRef<int64_t> dims = first.dims;
  SmallVector<int64_t> reducedShape;
  for (int64_t d : dims)
    reducedShape.push_back(inShape[d]);
  int64_t m = product(iterationShape), l = product(reducedShape);

  if (failed(checkReducesElements(l)))
    return failure();

  // Inner reductions give each output element a group of threads striding
  // along the reduced elements; outer reductions give adjacent threads
  // adjacent output elements, each looping over the reduced elements.
  bool inner = schedule.getScheme() == KernelScheme::ReductionInner;

  body.line("// reduction of {} over dims [{}]: {} outputs ({}) x {} reduced "
            "elements = {} elements read",
            shapeText(inShape),
            joinCoords(llvm::to_vector(llvm::map_range(
                dims, [](int64_t d) { return std::to_string(d); }))),
            m, shapeText(iterationShape), l, m * l);
  for (ReductionInfo &r : reductions)
    body.line("// {} at {}", opName(r.op), formatLocation(r.op->getLoc()));
  if (m == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }

  // Threads per output (T) and, for outer reductions, the slices of the
  // reduced range (Y).
  int64_t threads = schedule.getThreads(), slices = schedule.getSlices();
  LaunchAttr launch = launchAt(0);
  int64_t block = launch.getBlock() * launch.getBlockY();
  int64_t groups = inner ? block / threads : 32; // outputs per block pass

  // Accumulators and shared memory.
  int warpsPerBlock = static_cast<int>(block / 32);
  bool blockReduce = inner && threads > 32;
  for (auto [i, r] : llvm::enumerate(reductions)) {
    r.acc = "acc" + std::to_string(i);
    const char *at = accumulatorType(r.dtype);
    if (blockReduce)
      body.line("__shared__ {} shared{}[{}];", at, i, warpsPerBlock);
    else if (!inner && slices > 1)
      body.line("__shared__ {} shared{}[{}][32];", at, i, slices);
  }

  std::string o = fresh("o");
  std::string lane;
  if (inner) {
    if (threads > 32) {
      body.line("// one output element per block of {} threads", threads);
      body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                            "gridDim.x)",
                            idx, o, m));
      body.line("const bool active = true;");
      lane = "(" + idx + ")threadIdx.x";
    } else {
      body.line("// one output element per {} thread{} ({} per block)",
                threads, threads == 1 ? "" : "s", groups);
      std::string base = fresh("base");
      body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * {2}; {1} < {3}; "
                            "{1} += ({0})gridDim.x * {2})",
                            idx, base, groups, m));
      body.line("const {} {} = {} + ({})threadIdx.x / {};", idx, o, base, idx,
                threads);
      body.line("const bool active = {} < {};", o, m);
      lane = threads == 1 ? "0" : fmt::format("(({})threadIdx.x % {})", idx,
                                                threads);
    }
  } else {
    body.line("// adjacent threads take adjacent output elements; {} "
              "thread{} per output split the reduced range",
              slices, slices == 1 ? "" : "s");
    std::string tile = fresh("tile");
    body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                          "gridDim.x)",
                          idx, tile, ceilDiv(m, 32)));
    body.line("const {} {} = {} * 32 + ({})threadIdx.x;", idx, o, tile, idx);
    body.line("const bool active = {} < {};", o, m);
    lane = slices == 1 ? "0" : "(" + idx + ")threadIdx.y";
  }
  int64_t stride = inner ? threads : slices;

  for (ReductionInfo &r : reductions)
    body.line("{} {} = {};", accumulatorType(r.dtype), r.acc,
              identityOf(r.kind, r.dtype));
  Coords outCoords = delinearize(body, o, iterationShape);

  // The reduction loop: input coordinates from the output's and the
  // reduced ones.
  body.open("if (active)");
  std::string r = fresh("r");
  body.open(fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4})", idx, r,
                        lane, l, stride));
  Coords reduced = delinearize(body, r, reducedShape);
  Coords inCoords;
  size_t nextKept = 0, nextReduced = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(inShape.size()); ++d) {
    if (llvm::is_contained(dims, d)) {
      inCoords.push_back(reduced[nextReduced++]);
      if (first.keepdim)
        ++nextKept;
    } else {
      inCoords.push_back(outCoords[nextKept++]);
    }
  }
  pushScope();
  for (ReductionInfo &info : reductions) {
    FailureOr<std::string> v = eval(info.input, inCoords, body);
    if (failed(v))
      return failure();
    std::string asAcc = isFloat(info.dtype)
                            ? *v
                            : "(long long)" + paren(*v);
    body.line("{} = {};", info.acc, combineOf(info.kind, info.acc, asAcc));
  }
  popScope();
  body.close();
  body.close();

  // Combine the partial results of the threads of one output.
  auto shuffle = [&](int width) {
    body.open(fmt::format("for (int offset = {}; offset > 0; offset /= 2)",
                          width / 2));
    for (ReductionInfo &info : reductions)
      body.line("{} = {};", info.acc,
                combineOf(info.kind, info.acc,
                          fmt::format("__shfl_xor_sync(0xffffffffu, {}, "
                                      "offset, {})",
                                      info.acc, width)));
    body.close();
  };
  std::string leader;
  if (inner && threads > 1 && threads <= 32) {
    shuffle(static_cast<int>(threads));
    leader = lane + " == 0";
  } else if (blockReduce) {
    shuffle(32);
    body.open("if (threadIdx.x % 32 == 0)");
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("shared{}[threadIdx.x / 32] = {};", i, info.acc);
    body.close();
    body.line("__syncthreads();");
    body.open("if (threadIdx.x < 32)");
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("{} = threadIdx.x < {} ? shared{}[threadIdx.x] : {};",
                info.acc, warpsPerBlock, i,
                identityOf(info.kind, info.dtype));
    shuffle(32);
    body.close();
    body.line("__syncthreads();");
    leader = "threadIdx.x == 0";
  } else if (!inner && slices > 1) {
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("shared{}[threadIdx.y][threadIdx.x] = {};", i, info.acc);
    body.line("__syncthreads();");
    body.open("if (threadIdx.y == 0)");
    body.open(fmt::format("for (int k = 1; k < {}; ++k)", slices));
    for (auto [i, info] : llvm::enumerate(reductions))
      body.line("{} = {};", info.acc,
                combineOf(info.kind, info.acc,
                          fmt::format("shared{}[k][threadIdx.x]", i)));
    body.close();
    body.close();
    body.line("__syncthreads();");
    leader = "threadIdx.y == 0";
  }

  body.open(leader.empty() ? "if (active)"
                           : fmt::format("if (active && {})", leader));
  pushScope();
  for (ReductionInfo &info : reductions) {
    std::string v = fresh("v");
    body.line("const {} {} = {}; // {} at {}", computeType(info.dtype), v,
              finalValue(info, l), opName(info.op),
              formatLocation(info.op->getLoc()));
    std::string key = memoKey(info.op->getResult(0), outCoords);
    memo.back()[key] = v;
    reductionKeys[info.op->getResult(0)] = key;
  }
  if (failed(storeYields(body, outCoords)))
    return failure();
  popScope();
  body.close();
  body.close(); // the loop over outputs
  return success();
}

LogicalResult KernelEmitter::checkReducesElements(int64_t reducedElements) {
  if (reducedElements != 0)
    return success();
  for (ReductionInfo &r : reductions)
    if (r.kind == ReduceKind::Max || r.kind == ReduceKind::Min)
      return r.op->emitError()
             << "'stride." << opName(r.op)
             << "' over dims with no elements is undefined (input shape "
             << shapeText(cast<StridedTensorType>(r.input.getType()).getShape())
             << ", dims ["
             << joinCoords(llvm::to_vector(llvm::map_range(
                    r.dims, [](int64_t d) { return std::to_string(d); })))
             << "])";
  return success();
}

std::string KernelEmitter::finalValue(const ReductionInfo &info,
                                      int64_t reducedElements) {
  std::string value = info.acc;
  if (info.kind == ReduceKind::Mean)
    value = fmt::format("{} / ({}){}", info.acc, accumulatorType(info.dtype),
                        reducedElements);
  if (isHalfLike(info.dtype))
    return roundTo(info.dtype, value);
  if (!isFloat(info.dtype))
    return fmt::format("({}){}", computeType(info.dtype), info.acc);
  return value;
}

void KernelEmitter::combineAcrossRow(Code &body, const ReductionInfo &info,
                                     int64_t threads,
                                     const std::string &shared) {
  // A butterfly leaves the combined value in every lane of the warp.
  auto butterfly = [&] {
    body.open("for (int offset = 16; offset > 0; offset /= 2)");
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

LogicalResult KernelEmitter::walkRowRegisters(
    Code &body, const RowLoop &loop,
    function_ref<LogicalResult(Code &, ArrayRef<std::string>, StringRef)> fn) {
  // The loop is printed first, then the arrays it declared above it.
  Code code;
  code.indent = body.indent;
  code.line("#pragma unroll");
  code.open(fmt::format("for (int {0} = 0; {0} < {1}; ++{0})", loop.index,
                        loop.count));
  code.text += loop.header;
  rowArrays = &loop;
  newArrays.clear();
  LogicalResult status = fn(code, loop.coords, loop.valid);
  rowArrays = nullptr;
  code.close();
  for (auto [type, name] : newArrays)
    body.line("{} {}[{}];", type, name, loop.count);
  body.text += code.text;
  return status;
}

std::string KernelEmitter::declareValue(Code &code, StringRef type,
                                        const std::string &name,
                                        const std::string &expr) {
  if (!rowArrays) {
    code.line("const {} {} = {};", type, name, expr);
    return name;
  }
  newArrays.push_back({type.str(), name});
  std::string element = name + "[" + rowArrays->index + "]";
  code.line("{} = {};", element, expr);
  return element;
}

std::string KernelEmitter::declareMutable(Code &code, StringRef type,
                                          const std::string &name) {
  if (!rowArrays) {
    code.line("{} {};", type, name);
    return name;
  }
  newArrays.push_back({type.str(), name});
  return name + "[" + rowArrays->index + "]";
}

LogicalResult KernelEmitter::emitRowReduction(Code &body) {
  ArrayRef<int64_t> dims = reductions.front().dims;
  ArrayRef<int64_t> inShape = iterationShape;
  SmallVector<int64_t> keptShape, reducedShape;
  for (int64_t d = 0; d < static_cast<int64_t>(inShape.size()); ++d)
    (llvm::is_contained(dims, d) ? reducedShape : keptShape)
        .push_back(inShape[d]);
  int64_t m = product(keptShape), l = product(reducedShape);
  if (failed(checkReducesElements(l)))
    return failure();

  body.line("// broadcast reduction over dims [{}] of {}: {} rows of {} "
            "elements; each row's reductions, then the epilogue over the row",
            joinCoords(llvm::to_vector(llvm::map_range(
                dims, [](int64_t d) { return std::to_string(d); }))),
            shapeText(inShape), m, l);
  for (ReductionInfo &r : reductions)
    body.line("// {} at {}", opName(r.op), formatLocation(r.op->getLoc()));
  if (m * l == 0) {
    body.line("// nothing to compute: the kernel is never launched");
    return success();
  }

  // A warp or a block per row; the elements each thread holds are kept in
  // registers across the phases (each input element is loaded once) or
  // re-read in each phase.
  int64_t threads = schedule.getThreads();
  int64_t block = launchAt(0).getBlock();
  int64_t rowsPerBlock = block / threads;
  int64_t perThread = schedule.getElementsPerThread();
  bool inRegisters = schedule.getScheme() == KernelScheme::RowRegisters;

  for (auto [i, r] : llvm::enumerate(reductions)) {
    r.acc = "acc" + std::to_string(i);
    if (threads > 32)
      body.line("__shared__ {} shared{}[{}];", accumulatorType(r.dtype), i,
                threads / 32);
  }
  std::string row = fresh("row"), lane;
  if (threads == 32) {
    body.line("// one row per warp ({} rows per block), {} element{} per "
              "lane{}",
              rowsPerBlock, perThread, perThread == 1 ? "" : "s",
              inRegisters ? ", kept in registers" : "");
    body.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * {2} + "
                          "threadIdx.x / 32; {1} < {3}; {1} += "
                          "({0})gridDim.x * {2})",
                          idx, row, rowsPerBlock, m));
    lane = "((" + idx + ")threadIdx.x % 32)";
  } else {
    body.line("// one row per block of {} threads, {} elements per thread{}",
              threads, perThread, inRegisters ? ", kept in registers" : "");
    body.open(fmt::format("for ({0} {1} = blockIdx.x; {1} < {2}; {1} += "
                          "gridDim.x)",
                          idx, row, m));
    lane = "((" + idx + ")threadIdx.x)";
  }
  Coords kept = delinearize(body, row, keptShape);
  // The input coordinates of reduced element `r` of the row.
  auto elementCoords = [&](Code &code, const std::string &r) {
    Coords reduced = delinearize(code, r, reducedShape);
    Coords coords;
    size_t nextKept = 0, nextReduced = 0;
    for (int64_t d = 0; d < static_cast<int64_t>(inShape.size()); ++d)
      coords.push_back(llvm::is_contained(dims, d) ? reduced[nextReduced++]
                                                   : kept[nextKept++]);
    return coords;
  };

  // In registers: element k of this thread is reduced element
  // lane + k * threads, clamped to the row (a clamped element is evaluated,
  // which is safe, and neither reduced nor stored). Each phase walks the
  // elements with the same unrolled loop, whose header names the element's
  // coordinates identically each time, so a value computed in one phase is
  // an element of a register array the later phases read.
  RowLoop rowLoop;
  pushScope();
  if (inRegisters) {
    rowLoop.index = fresh("k");
    rowLoop.count = perThread;
    Code header;
    header.indent = body.indent + 1;
    std::string position =
        fmt::format("{} + {} * {}", lane, rowLoop.index, threads);
    std::string r = fresh("r");
    int64_t full = l / threads; // elements every thread has in every row
    if (full >= perThread) {
      header.line("const {} {} = {};", idx, r, position);
    } else {
      rowLoop.valid = fresh("ok");
      if (full > 0)
        header.line("const bool {} = {} < {} || {} < {};", rowLoop.valid,
                    rowLoop.index, full, position, l);
      else
        header.line("const bool {} = {} < {};", rowLoop.valid, position, l);
      header.line("const {} {} = {} ? {} : {};", idx, r, rowLoop.valid,
                  position, l - 1);
    }
    rowLoop.coords = elementCoords(header, r);
    rowLoop.header = std::move(header.text);
  }
  // Runs `fn(code, coords, valid)` on each element of the row this thread
  // holds.
  auto forEachElement =
      [&](function_ref<LogicalResult(Code &, ArrayRef<std::string>, StringRef)>
              fn) -> LogicalResult {
    if (inRegisters)
      return walkRowRegisters(body, rowLoop, fn);
    std::string r = fresh("r");
    body.open(fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4})", idx, r,
                          lane, l, threads));
    pushScope();
    LogicalResult status = fn(body, elementCoords(body, r), "");
    popScope();
    body.close();
    return status;
  };

  for (auto [i, info] : llvm::enumerate(reductions)) {
    body.line("{} {} = {};", accumulatorType(info.dtype), info.acc,
              identityOf(info.kind, info.dtype));
    LogicalResult status = forEachElement(
        [&](Code &code, ArrayRef<std::string> coords,
            StringRef ok) -> LogicalResult {
          FailureOr<std::string> v = eval(info.input, coords, code);
          if (failed(v))
            return failure();
          std::string asAcc =
              isFloat(info.dtype) ? *v : "(long long)" + paren(*v);
          std::string combined = combineOf(info.kind, info.acc, asAcc);
          if (ok.empty())
            code.line("{} = {};", info.acc, combined);
          else
            code.line("{} = {} ? {} : {};", info.acc, ok, combined, info.acc);
          return success();
        });
    if (failed(status))
      return failure();
    combineAcrossRow(body, info, threads, "shared" + std::to_string(i));
    std::string v = fresh("v");
    body.line("const {} {} = {}; // {} at {}", computeType(info.dtype), v,
              finalValue(info, l), opName(info.op),
              formatLocation(info.op->getLoc()));
    rowValues[info.op] = v;
  }

  LogicalResult stored = forEachElement(
      [&](Code &code, ArrayRef<std::string> coords,
          StringRef ok) -> LogicalResult {
        if (ok.empty())
          return storeYields(code, coords);
        // Evaluated outside the guard, so later elements may reuse it.
        for (Value value : yields)
          if (failed(eval(value, coords, code)))
            return failure();
        code.open(fmt::format("if ({})", ok));
        LogicalResult status = storeYields(code, coords);
        code.close();
        return status;
      });
  popScope();
  body.close(); // the loop over rows
  rowValues.clear();
  return stored;
}

/// The kernel form a scheme belongs to.
KernelForm formOfScheme(KernelScheme scheme) {
  switch (scheme) {
  case KernelScheme::GridStride:
  case KernelScheme::Vectorized:
  case KernelScheme::TiledTranspose: return KernelForm::Pointwise;
  case KernelScheme::ReductionInner:
  case KernelScheme::ReductionOuter: return KernelForm::Reduction;
  case KernelScheme::RowRegisters:
  case KernelScheme::RowReread: return KernelForm::BroadcastReduction;
  case KernelScheme::Scatter:
  case KernelScheme::SegmentedIndexAdd: return KernelForm::IndexScatter;
  }
  return KernelForm::Pointwise;
}

CudaLaunch toCudaLaunch(LaunchAttr launch) {
  CudaLaunch result;
  result.grid = {static_cast<uint32_t>(launch.getGrid()), 1, 1};
  result.block = {static_cast<uint32_t>(launch.getBlock()),
                  static_cast<uint32_t>(launch.getBlockY()), 1};
  result.dynamicSharedBytes = static_cast<uint32_t>(launch.getShared());
  if (launch.getPhase() >= 0)
    result.phase = static_cast<int32_t>(launch.getPhase());
  return result;
}

LogicalResult KernelEmitter::readSchedule() {
  schedule = getSchedule(kernel);
  if (!schedule)
    return error(kernel) << "it has no '" << KernelScheduleAttr::kAttrName
                         << "' attribute; run stride-schedule-kernels first";
  if (formOfScheme(schedule.getScheme()) != facts.form)
    return error(kernel) << "its schedule's scheme '"
                         << stringifyKernelScheme(schedule.getScheme())
                         << "' is not one of a "
                         << stringifyKernelForm(facts.form) << " kernel";
  return success();
}

FailureOr<CudaKernel> KernelEmitter::emit(Code &out) {
  FailureOr<KernelFacts> read = readKernelFacts(kernel, name);
  if (failed(read))
    return failure();
  facts = std::move(*read);
  if (failed(readSchedule()))
    return failure();
  idx = "idx_t";
  bool wide = schedule.getIndexBits() == 64;

  CudaKernel result;
  result.op = kernel;
  result.name = name;
  result.description = describe();
  for (LaunchAttr launch : schedule.getLaunches().getAsRange<LaunchAttr>())
    result.launches.push_back(toCudaLaunch(launch));
  if (DenseI64ArrayAttr scratch = schedule.getScratch())
    result.scratchBytes.assign(scratch.asArrayRef().begin(),
                               scratch.asArrayRef().end());

  Code body;
  body.indent = 1;
  body.line("typedef {} idx_t; // {}-bit index arithmetic", wide ? "long long" : "int",
            wide ? 64 : 32);
  pushScope();
  LogicalResult status = failure();
  switch (facts.form) {
  case KernelForm::Pointwise: status = emitPointwise(body); break;
  case KernelForm::Reduction: status = emitReduction(body); break;
  case KernelForm::BroadcastReduction: status = emitRowReduction(body); break;
  case KernelForm::IndexScatter: status = emitScatter(body); break;
  }
  popScope();
  if (failed(status))
    return failure();

  // The signature: inputs, outputs, phase.
  std::string params;
  for (auto [i, t] : llvm::enumerate(kernel.getBodyBlock().getArgumentTypes()))
    params += fmt::format("{}const {} *__restrict__ in{}", i ? ", " : "",
                          storageType(*dtypeOf(t)), i);
  for (auto [i, t] : llvm::enumerate(kernel.getResultTypes()))
    params += fmt::format("{}{} *__restrict__ out{}",
                          params.empty() ? "" : ", ", storageType(*dtypeOf(t)),
                          i);
  for (size_t i = 0; i < result.scratchBytes.size(); ++i)
    params += fmt::format(", int *__restrict__ scratch{}", i);
  if (facts.scatterRoot)
    params += ", int phase";

  uint32_t maxThreads = 256;
  for (const CudaLaunch &l : result.launches)
    maxThreads = std::max<uint32_t>(maxThreads, l.block.volume());

  out.line("// Kernel {}: {}", name, result.description);
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    out.line("//   stride.{} at {}", opName(&op), formatLocation(op.getLoc()));
  out.line("extern \"C\" __global__ void __launch_bounds__({})", maxThreads);
  out.open(fmt::format("{}({})", name, params));
  out.text += body.text;
  out.close();
  out.raw("");
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

FailureOr<func::FuncOp> findEntryFunction(ModuleOp module) {
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  if (funcs.size() == 1)
    return funcs.front();
  if (funcs.empty())
    return (module.emitError()
                   << "expected one func.func (the graph), found none");
  InFlightDiagnostic diag = funcs[1].emitError()
                            << "expected one func.func (the graph), found "
                            << funcs.size();
  diag.attachNote(funcs[0].getLoc()) << "the first is here";
  return failure();
}

FailureOr<CudaSource> emitCuda(func::FuncOp entry,
                               const CudaEmitOptions &options) {
  CudaSource result;
  Code fileScope, kernels;
  unsigned constantCounter = 0;
  llvm::StringSet<> names;
  bool failedAny = false;

  for (Operation &op : entry.getBody().getOps()) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      std::string name = cIdentifier(kernel.getSymName());
      if (names.contains(name)) {
        int suffix = 1;
        while (names.contains(name + "_" + std::to_string(suffix)))
          ++suffix;
        name += "_" + std::to_string(suffix);
      }
      names.insert(name);
      KernelEmitter emitter(kernel, name, options, fileScope,
                            constantCounter);
      FailureOr<CudaKernel> emitted = emitter.emit(kernels);
      if (failed(emitted)) {
        failedAny = true;
        continue;
      }
      result.kernels.push_back(std::move(*emitted));
      continue;
    }
    if (isFunctional(&op)) {
      op.emitError() << "cannot emit CUDA for '" << op.getName()
                     << "' outside a stride.kernel; run the pipeline with "
                        "kernel formation (stride-outline-kernels) first";
      failedAny = true;
    }
  }
  if (failedAny)
    return failure();

  // A value returned twice needs a copy in a second output buffer.
  llvm::SmallPtrSet<Value, 8> returned;
  bool duplicateReturn = false;
  for (Value v : entry.getBody().front().getTerminator()->getOperands())
    duplicateReturn |= !returned.insert(v).second;
  if (duplicateReturn) {
    result.copyKernel = "stride_copy_bytes";
    kernels.line("// Kernel stride_copy_bytes: copies a value the graph "
                 "returns more than once into its other output buffers");
    kernels.line("extern \"C\" __global__ void __launch_bounds__(256)");
    kernels.open("stride_copy_bytes(const unsigned char *__restrict__ in0, "
                 "unsigned char *__restrict__ out0, long long n)");
    kernels.open("for (long long i = (long long)blockIdx.x * blockDim.x + "
                 "threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)");
    kernels.line("out0[i] = in0[i];");
    kernels.close();
    kernels.close();
    kernels.raw("");
  }

  std::string source;
  source += fmt::format("// CUDA C++ generated by Stride from @{} ({}).\n",
                        entry.getSymName().str(),
                        formatLocation(entry.getLoc()));
  source += "// Each kernel iterates over the logical shape of its outputs.\n";
  source += fmt::format("#define STRIDE_RUNTIME_CHECKS {}\n",
                        options.runtimeChecks ? 1 : 0);
  source += cuda::kPrelude;
  source += "\n";
  if (!fileScope.text.empty())
    source += fileScope.text + "\n";
  source += kernels.text;
  result.source = std::move(source);
  return result;
}

} // namespace stride
