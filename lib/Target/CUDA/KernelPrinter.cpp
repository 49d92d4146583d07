//===- KernelPrinter.cpp - What every kernel printer shares ---------------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// The state and the evaluation every kernel printer shares. The body of a
// kernel is evaluated backwards from its yielded values, "value v at
// logical coordinates c":
//
//   * a kernel input, or a view chain rooted at one, is a load at the address
//     its own layout gives, offset + sum_k c_k * stride_k (view layouts are
//     absolute in the storage of the buffer behind the input);
//   * a view of a computed value maps c back to its source's coordinates;
//   * a pointwise op evaluates its operands at c;
//   * slice_scatter/select_scatter are coordinate masks evaluated lazily,
//     `in range ? src[c'] : input[c]`, so neither side is read where it is
//     not needed (and src is never read out of its bounds); cat is one such
//     mask per input;
//   * gather/index_select read an index, check it and read the input there;
//   * reductions are the kernel's root: their results are accumulators.
//
// The iteration space is always the logical shape of the yielded values;
// stores go through the layout of the kernel's result buffers.
//
//===----------------------------------------------------------------------===//

#include "KernelPrinter.h"
#include "dialects/plan/Transforms/Passes.h"

#include "dialects/stride/Analysis/KernelContract.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <fmt/format.h>

using namespace mlir;

namespace stride {

std::string KernelPrinter::describe() {
  std::string ops, locs;
  std::string firstFile;
  for (Operation &op : kernel.getBodyBlock().without_terminator()) {
    if (!isFunctional(&op) && !isa<AttentionOp, MatmulOp>(op))
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

LogicalResult KernelPrinter::printCombinePhase(
    Code &body, int64_t slices, const std::string &layout,
    function_ref<LogicalResult(Code &)> combine) {
  if (slices <= 1)
    return success();
  body.line("float *__restrict__ partials = reinterpret_cast<float *>"
            "(scratch0); // {}",
            layout);
  body.open("if (phase == 2)");
  if (failed(combine(body)))
    return failure();
  body.line("return;");
  body.close();
  return success();
}

//===----------------------------------------------------------------------===//
// Addresses and coordinates
//===----------------------------------------------------------------------===//

std::optional<unsigned> KernelPrinter::rootArgument(Value value) {
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

std::string KernelPrinter::address(StridedTensorType type,
                                   ArrayRef<std::string> coords) {
  if (type.isSymbolic())
    return symbolicAddressText(type.getSymbolicLayout(), coords);
  return addressText(type.getLayout(), coords, kernel.getContext());
}

Coords KernelPrinter::delinearize(Code &code, const std::string &linear,
                                  ArrayRef<SizeExpr> shape) {
  Coords coords(shape.size(), "0");
  SizeExpr inner = SizeExpr::constant(1);
  // The outermost dim that may exceed 1 needs no modulo.
  int64_t outermost = -1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (shape[d].getConstant() != 1) {
      outermost = d;
      break;
    }
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d].getConstant() == 1)
      continue;
    std::string c = fresh("i");
    std::string quotient = inner.getConstant() == 1
                               ? linear
                               : paren(linear) + " / " + sizeText(inner);
    if (d == outermost)
      code.line("const {} {} = {};", idx, c, quotient);
    else
      code.line("const {} {} = {} % {};", idx, c, paren(quotient),
                sizeText(shape[d]));
    coords[d] = c;
    inner = *inner.times(shape[d]);
  }
  return coords;
}

Coords KernelPrinter::delinearize(Code &code, const std::string &linear,
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

Coords KernelPrinter::openGridStrideLoop(Code &code, ArrayRef<int64_t> shape,
                                         int64_t n) {
  std::string i = fresh("linear");
  code.open(fmt::format("for ({0} {1} = ({0})blockIdx.x * blockDim.x + "
                        "threadIdx.x; {1} < {2}; {1} += ({0})gridDim.x * "
                        "blockDim.x)",
                        idx, i, n));
  return delinearize(code, i, shape);
}

/// The coordinates in a reshape's operand of its element at `coords` over
/// symbolic sizes: the element's row-major position in the result, split
/// along the operand's sizes (the size parameters' expressions).
static Coords mapThroughSymbolicReshape(ViewOp view,
                                        ArrayRef<std::string> coords) {
  SizeExprs result = view.getType().getSymbolicLayout().shape;
  SizeExprs source = view.getInput().getType().getSymbolicLayout().shape;
  SizeExprs strides = rowMajorStrides(result).value();
  std::string linear = paren(symbolicAddressText(
      SymbolicLayout{result, strides, SizeExpr::constant(0)}, coords));
  Coords mapped(source.size(), "0");
  SizeExpr inner = SizeExpr::constant(1);
  for (int64_t d = static_cast<int64_t>(source.size()) - 1; d >= 0; --d) {
    if (source[d].getConstant() == 1)
      continue;
    std::string quotient = inner.getConstant() == 1
                               ? linear
                               : "(" + linear + " / " + sizeText(inner) + ")";
    mapped[d] = d == 0 ? quotient
                       : "(" + quotient + " % " + sizeText(source[d]) + ")";
    inner = *inner.times(source[d]);
  }
  return mapped;
}

FailureOr<Coords> KernelPrinter::mapThroughView(Operation *view,
                                                ArrayRef<std::string> coords) {
  if (auto reshape = dyn_cast<ViewOp>(view);
      reshape && (reshape.getType().isSymbolic() ||
                  reshape.getInput().getType().isSymbolic()))
    return mapThroughSymbolicReshape(reshape, coords);
  AffineMap map = cast<ViewOpInterface>(view).getIndexMap();
  if (!map)
    return (error(view)
            << "as_strided of a computed value needs a dense source layout "
               "to map addresses back to coordinates");
  return applyIndexMap(
      map, coords,
      cast<StridedTensorType>(view->getResult(0).getType()).getShape());
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

bool KernelPrinter::isRowValue(Value value) const {
  Operation *def = value.getDefiningOp();
  return def && (isa<ReductionOpInterface>(def) ||
                 llvm::is_contained(facts.rowOps, def));
}

bool KernelPrinter::isReadyRowOp(Operation *op) const {
  auto computed = [&](Value operand) {
    Value base = viewChainBase(operand);
    return !isRowValue(base) || rowValues.contains(base.getDefiningOp());
  };
  return !rowValues.contains(op) && llvm::all_of(op->getOperands(), computed);
}

FailureOr<std::string>
KernelPrinter::eval(Value value, ArrayRef<std::string> coords, Code &code) {
  std::string key = memoKey(value, coords);
  if (std::optional<std::string> hit = lookup(key))
    return *hit;
  if (std::optional<std::string> held = evalHeld(value, coords, code)) {
    remember(key, *held);
    return *held;
  }
  FailureOr<std::string> result = evalUncached(value, coords, code);
  if (succeeded(result))
    memo.back()[key] = *result;
  return result;
}

FailureOr<std::string> KernelPrinter::evalUncached(Value value,
                                                   ArrayRef<std::string> coords,
                                                   Code &code) {
  auto type = cast<StridedTensorType>(value.getType());
  DType dtype = *dtypeOf(type);
  if (facts.form == KernelForm::SkinnyProduct && isRowValue(value)) {
    // A row prologue's reduction or per-row op: its register array
    // (printRowReductions), at the row of `coords` in the value's shape.
    auto it = rowValues.find(value.getDefiningOp());
    if (it == rowValues.end())
      return (error(value.getDefiningOp())
              << "is read before the skinny product's row reductions "
                 "compute it");
    std::string row = "0";
    ArrayRef<int64_t> shape = type.getShape();
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] != 1)
        row = row == "0" ? coords[d]
                         : fmt::format("({}) * {} + {}", row, shape[d],
                                       coords[d]);
    return fmt::format("{}[{}]", it->second, row);
  }
  if (facts.isRowForm())
    if (Value base = viewChainBase(value); isRowValue(base)) {
      // Read directly by a per-row op, or broadcast back over the row. A
      // reduction's own result has its own shape (with or without keepdim);
      // a per-row op has the first reduction's result shape.
      Operation *def = base.getDefiningOp();
      auto rows = dyn_cast<ReductionOpInterface>(def);
      if (!rows)
        rows = cast<ReductionOpInterface>(reductions.front().op);
      auto it = rowValues.find(def);
      if (it == rowValues.end() ||
          (value != base && !isBroadcastBackOf(value, base, rows)))
        return (error(def)
                << "in a broadcast-reduction kernel a reduction's result (or "
                   "a value computed once per row from it) may only be read "
                   "broadcast back over its row, after it is computed");
      return it->second;
    }
  if (std::optional<unsigned> arg = rootArgument(value)) {
    // Loads are shared by address: a broadcast operand read by every lane
    // of a vectorized loop is one load. An aligned group of consecutive
    // elements, one per lane, is one load, each lane taking its element.
    std::string addr = address(type, coords);
    std::string key = fmt::format("load|{}|{}", *arg, addr);
    if (std::optional<std::string> hit = lookup(key))
      return *hit;
    std::string v = fresh("v");
    if (vectorLane >= 0 && isVectorAccess(type, coords)) {
      std::string vecKey = vectorLoadKey(*arg, type);
      std::optional<std::string> vec = lookup(vecKey);
      if (!vec) {
        std::string vecType = vectorType(storageType(dtype), lanes.size());
        vec = declareValue(
            code, vecType, fresh(lanes.size() == 4 ? "quad" : "vec"),
            fmt::format("*reinterpret_cast<const {} *>(&in{}[{}])", vecType,
                        *arg, address(type, lanes[0])));
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
    FailureOr<Coords> mapped = mapThroughView(op, coords);
    if (failed(mapped))
      return failure();
    return evalViewSource(op, coords, *mapped, code);
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

FailureOr<std::string> KernelPrinter::evalCast(const std::string &v, DType from,
                                               DType to) {
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

FailureOr<std::string> KernelPrinter::evalIndex(Operation *op, Value index,
                                                ArrayRef<std::string> coords,
                                                const SizeExpr &size,
                                                Code &code, bool skipOnError) {
  FailureOr<std::string> raw = eval(index, coords, code);
  if (failed(raw))
    return failure();
  std::string i = fresh("index");
  code.line("{} {} = ({}){};", idx, i, idx, *raw);
  std::string message =
      fmt::format("stride: {} at {}: index out of range [0, {}) in kernel {}",
                  opName(op), formatLocation(op->getLoc()), size.str(), name);
  code.open(fmt::format("if ((long long){} < 0 || (long long){} >= {})", *raw,
                        *raw, sizeText(size)));
  code.line("stride_fail({});", quoted(message));
  if (skipOnError)
    code.line("continue;");
  else
    code.line("{} = 0;", i);
  code.close();
  return i;
}

FailureOr<std::string>
KernelPrinter::evalConstant(ConstantOp op, ArrayRef<std::string> coords) {
  auto type = cast<StridedTensorType>(op.getType());
  DType dtype = *dtypeOf(type);
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return (error(op) << "only dense constants are supported");
  auto valueOf = [&](int64_t i) -> std::string {
    if (isFloat(dtype))
      return floatLiteral(
          APFloat(*(dense.getValues<APFloat>().begin() + i)).convertToDouble(),
          dtype);
    APInt v = *(dense.getValues<APInt>().begin() + i);
    if (dtype == DType::I1)
      return v.isZero() ? "false" : "true";
    return intLiteral(v.getSExtValue(), dtype);
  };
  if (dense.isSplat())
    return valueOf(0);
  int64_t n = type.getNumElements();
  std::string array =
      fmt::format("stride_const_{}_{}", name, constantCounter++);
  fileScope.line("// stride.constant at {}", formatLocation(op.getLoc()));
  std::string values;
  for (int64_t i = 0; i < n; ++i) {
    values += (i ? (i % 8 ? ", " : ",\n    ") : "") + valueOf(i);
  }
  fileScope.line("__device__ const {} {}[{}] = {{\n    {}}};",
                 computeType(dtype), array, n, values);
  Dims shape(type.getShape().begin(), type.getShape().end());
  return array + "[" +
         addressText(Layout{shape, rowMajorStrides(shape), 0}, coords,
                     op.getContext()) +
         "]";
}

FailureOr<std::string>
KernelPrinter::evalPointwise(Operation *op, ArrayRef<std::string> coords,
                             Code &code) {
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
      .Case<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, ErfOp,
            SigmoidOp, ReluOp, GeluOp, GeluTanhOp, SinOp, CosOp, NotOp, AddOp,
            SubOp, MulOp, PowOp, MaximumOp, MinimumOp, AndOp, OrOp, TanOp,
            AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp,
            Expm1Op, Log1pOp, Log2Op, Log10Op, FloorOp, CeilOp, RoundOp,
            TruncOp, SignOp, XorOp, Atan2Op, FmodOp, RemainderOp>(
          [&](Operation *) -> FailureOr<std::string> {
            return roundTo(result, call(opName(op)));
          })
      .Case<DivOp>([&](DivOp div) -> FailureOr<std::string> {
        // An f16/bf16 quotient by a divisor held once per row (softmax's
        // sum) divides through the row's reciprocal (Prelude.h:
        // stride_div_row). f32 keeps the IEEE division: the reciprocal's
        // refinement made f32 softmax rows 1-4% slower (bench/NOTES.md
        // section 25).
        bool halfPrecision = result == DType::F16 || result == DType::BF16;
        if (halfPrecision && facts.isRowForm() &&
            isRowValue(viewChainBase(div.getRhs()))) {
          std::string quotient = fmt::format(
              "({0}, {1}, 1.0f / {1})", args[0], args[1]);
          // bf16 rounds inside: most quotients skip the Newton steps.
          if (result == DType::BF16)
            return "stride_div_row_bf16" + quotient;
          return roundTo(result, "stride_div_row" + quotient);
        }
        if (isFloat(result))
          return roundTo(result, call("div"));
        std::string message =
            fmt::format("stride: div at {}: integer division by zero in "
                        "kernel {}",
                        formatLocation(op->getLoc()), name);
        return fmt::format("stride_div({}, {}, {})", args[0], args[1],
                           quoted(message));
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

LogicalResult KernelPrinter::assignInScope(Code &code, const std::string &var,
                                          Value value,
                                          ArrayRef<std::string> coords) {
  pushScope();
  FailureOr<std::string> v = eval(value, coords, code);
  popScope();
  if (failed(v))
    return failure();
  code.line("{} = {};", var, *v);
  return success();
}

FailureOr<std::string>
KernelPrinter::evalMasked(Code &code, const std::string &cond, Value src,
                          ArrayRef<std::string> srcCoords, Value input,
                          ArrayRef<std::string> coords, DType dtype) {
  std::string v = declareMutable(code, computeType(dtype), fresh("v"));
  code.open(fmt::format("if ({})", cond));
  if (failed(assignInScope(code, v, src, srcCoords)))
    return failure();
  code.close("} else {");
  ++code.indent;
  if (failed(assignInScope(code, v, input, coords)))
    return failure();
  code.close();
  return v;
}

FailureOr<std::string>
KernelPrinter::evalSliceScatter(SliceScatterOp scatter,
                                ArrayRef<std::string> coords, Code &code) {
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
  srcCoords[d] =
      step == 1 ? (start == 0 ? c : paren(c) + " - " + std::to_string(start))
                : fmt::format("({} - {}) / {}", c, start, step);
  return evalMasked(code, cond, scatter.getSrc(), srcCoords, scatter.getInput(),
                    coords, *dtypeOf(scatter.getType()));
}

FailureOr<std::string>
KernelPrinter::evalSelectScatter(SelectScatterOp scatter,
                                 ArrayRef<std::string> coords, Code &code) {
  int64_t d = scatter.getDim(), index = scatter.getIndex();
  code.line("// select_scatter at {}: index {} of dim {} comes from src",
            formatLocation(scatter.getLoc()), index, d);
  Coords srcCoords(coords.begin(), coords.end());
  srcCoords.erase(srcCoords.begin() + d);
  return evalMasked(code, fmt::format("{} == {}", coords[d], index),
                    scatter.getSrc(), srcCoords, scatter.getInput(), coords,
                    *dtypeOf(scatter.getType()));
}

FailureOr<std::string> KernelPrinter::evalCat(CatOp cat,
                                              ArrayRef<std::string> coords,
                                              Code &code) {
  int64_t d = cat.getDim();
  DType dtype = *dtypeOf(cat.getType());
  // Each non-empty input is a mask on its range of dim d: [offset, end),
  // the bounds size expressions (constants, or sums of the size
  // parameters over symbolic sizes).
  SmallVector<std::pair<Value, SizeExpr>> parts;
  SizeExpr offset = SizeExpr::constant(0);
  for (Value input : cat.getInputs()) {
    SizeExpr size =
        cast<StridedTensorType>(input.getType()).getSymbolicLayout().shape[d];
    if (size.getConstant() != 0)
      parts.push_back({input, offset});
    std::optional<SizeExpr> next = offset.plus(size);
    if (!next)
      return cat.emitOpError()
             << "has inputs whose sizes along dim " << d
             << " overflow 64 bits together";
    offset = *next;
  }
  code.line("// cat at {}: dim {} from {} inputs", formatLocation(cat.getLoc()),
            d, parts.size());
  std::string v = declareMutable(code, computeType(dtype), fresh("v"));
  for (auto [i, part] : llvm::enumerate(parts)) {
    const auto &[input, start] = part;
    bool last = i + 1 == parts.size();
    SizeExpr end = last ? offset : parts[i + 1].second;
    std::string cond = fmt::format("{} < {}", coords[d], sizeText(end));
    if (i == 0 && !last)
      code.open(fmt::format("if ({})", cond));
    else if (!last)
      code.close(fmt::format("}} else if ({}) {{", cond));
    else if (i > 0)
      code.close("} else {");
    if (i > 0)
      ++code.indent;
    Coords inputCoords(coords.begin(), coords.end());
    if (start.getConstant() != 0)
      inputCoords[d] = paren(coords[d]) + " - " + paren(sizeText(start));
    if (failed(assignInScope(code, v, input, inputCoords)))
      return failure();
  }
  if (parts.size() > 1)
    code.close();
  return v;
}

FailureOr<std::string>
KernelPrinter::evalIndexed(Operation *op, Value input, Value index, int64_t dim,
                           ArrayRef<std::string> indexCoords,
                           ArrayRef<std::string> coords, Code &code) {
  auto inType = cast<StridedTensorType>(input.getType());
  code.line("// {} at {} along dim {}", opName(op),
            formatLocation(op->getLoc()), dim);
  FailureOr<std::string> i =
      evalIndex(op, index, indexCoords,
                inType.getSymbolicLayout().shape[dim], code, false);
  if (failed(i))
    return failure();
  Coords inCoords(coords.begin(), coords.end());
  inCoords[dim] = *i;
  return eval(input, inCoords, code);
}

FailureOr<std::string>
KernelPrinter::evalOp(Operation *op, ArrayRef<std::string> coords, Code &code) {
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
      .Case<ConstantOp>(
          [&](ConstantOp constant) { return evalConstant(constant, coords); })
      .Case<SliceScatterOp>([&](SliceScatterOp scatter) {
        return evalSliceScatter(scatter, coords, code);
      })
      .Case<SelectScatterOp>([&](SelectScatterOp scatter) {
        return evalSelectScatter(scatter, coords, code);
      })
      .Case<CatOp>([&](CatOp cat) { return evalCat(cat, coords, code); })
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

LogicalResult KernelPrinter::storeYields(Code &code,
                                         ArrayRef<std::string> coords) {
  for (auto [i, value] : llvm::enumerate(yields)) {
    if (isRowResult(i) || isPrologueResult(i))
      continue;
    FailureOr<std::string> v = eval(value, coords, code);
    if (failed(v))
      return failure();
    auto outType = cast<StridedTensorType>(kernel.getResult(i).getType());
    code.line("stride_st(&out{}[{}], {});", i, address(outType, coords), *v);
  }
  return success();
}

/// Whether every coefficient of `size` is a multiple of `n`, so that its
/// value is one for every value of the symbols.
static bool isMultipleOf(const SizeExpr &size, int64_t n) {
  return llvm::all_of(size.terms(),
                      [&](const auto &term) { return term.second % n == 0; });
}

/// isVectorAccess over symbolic sizes: the same rule, each size, stride and
/// offset a multiple of 4 for every value of the symbols.
static bool isSymbolicVectorAccess(const SymbolicLayout &layout) {
  if (layout.rank() == 0 || !isMultipleOf(layout.shape.back(), 4) ||
      layout.strides.back().getConstant() != 1 ||
      !isMultipleOf(layout.offset, 4))
    return false;
  for (int64_t d = 0; d + 1 < layout.rank(); ++d)
    if (layout.shape[d].getConstant() != 1 &&
        !isMultipleOf(layout.strides[d], 4))
      return false;
  return true;
}

bool KernelPrinter::isVectorAccess(StridedTensorType type,
                                   ArrayRef<std::string> coords) {
  if (vectorLane < 0 || coords != ArrayRef<std::string>(lanes[vectorLane]))
    return false;
  int64_t group = lanes.size();
  if (type.isSymbolic())
    return group == 4 && isSymbolicVectorAccess(type.getSymbolicLayout());
  ArrayRef<int64_t> shape = type.getShape(), strides = type.getStrides();
  if (shape.empty() || (!lanesAlongRows && shape.back() % group != 0) ||
      strides.back() != 1 || type.getOffset() % group != 0)
    return false;
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] % group != 0)
      return false;
  return true;
}

std::string KernelPrinter::vectorType(StringRef storage, size_t count) {
  // The 4-element type keeps its own name (the pointwise, reduction and
  // scatter printers' groups).
  return count == 4 ? fmt::format("stride_vec4<{}>", storage)
                    : fmt::format("stride_vecn<{}, {}>", storage, count);
}

FailureOr<std::string> KernelPrinter::evalViewSource(Operation *view,
                                                     ArrayRef<std::string> coords,
                                                     const Coords &mapped,
                                                     Code &code) {
  Value source = cast<ViewOpInterface>(view).getSource();
  if (!lanesAlongRows || vectorLane < 0 ||
      coords != ArrayRef<std::string>(lanes[vectorLane]))
    return eval(source, mapped, code);
  // The lanes stay a group where each lane's innermost coordinate maps to
  // itself and its other coordinates to lane 0's.
  SmallVector<Coords, 4> sourceLanes;
  for (const Coords &lane : lanes) {
    FailureOr<Coords> m = mapThroughView(view, lane);
    if (failed(m))
      return failure();
    bool group = !m->empty() && m->back() == lane.back() &&
                 (sourceLanes.empty() ||
                  ArrayRef<std::string>(*m).drop_back() ==
                      ArrayRef<std::string>(sourceLanes.front()).drop_back());
    if (!group)
      return eval(source, mapped, code);
    sourceLanes.push_back(std::move(*m));
  }
  std::swap(lanes, sourceLanes);
  FailureOr<std::string> v = eval(source, lanes[vectorLane], code);
  std::swap(lanes, sourceLanes);
  return v;
}

LogicalResult KernelPrinter::evalAndStoreLanes(Code &body) {
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

void KernelPrinter::storeLanes(Code &body, unsigned i,
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

LogicalResult KernelPrinter::checkReducesElements(int64_t reducedElements) {
  if (reducedElements != 0)
    return success();
  for (ReductionInfo &r : reductions)
    if (r.kind == ReduceKind::Max || r.kind == ReduceKind::Min ||
        isArgKind(r.kind))
      return r.op->emitError()
             << "'stride." << opName(r.op)
             << "' over dims with no elements is undefined (input shape "
             << shapeText(cast<StridedTensorType>(r.input.getType()).getShape())
             << ", dims ["
             << dimsText(r.dims)
             << "])";
  return success();
}

std::string KernelPrinter::finalValue(const ReductionInfo &info,
                                      const SizeExpr &reducedElements) {
  std::string value = info.acc;
  if (isArgKind(info.kind))
    return fmt::format("stride_arg_index({})", info.acc);
  if (info.kind == ReduceKind::Mean)
    value = fmt::format("{} / ({}){}", info.acc,
                        accumulatorType(info.kind, info.dtype),
                        sizeText(reducedElements));
  if (isHalfLike(info.dtype))
    return roundTo(info.dtype, value);
  if (!isFloat(info.dtype))
    return fmt::format("({}){}", computeType(info.dtype), info.acc);
  return value;
}

std::string KernelPrinter::declareValue(Code &code, StringRef type,
                                        const std::string &name,
                                        const std::string &expr) {
  code.line("const {} {} = {};", type, name, expr);
  return name;
}

std::string KernelPrinter::declareMutable(Code &code, StringRef type,
                                          const std::string &name) {
  code.line("{} {};", type, name);
  return name;
}

int64_t KernelPrinter::printIterationSpace(Code &body) {
  int64_t n = product(iterationShape);
  body.line("// iteration space: {} elements ({})", n,
            shapeText(iterationShape));
  if (n == 0)
    body.line("// nothing to compute: the kernel is never launched");
  return n;
}

std::string bufferParameters(KernelOp kernel) {
  std::string params;
  for (auto [i, t] : llvm::enumerate(kernel.getBodyBlock().getArgumentTypes()))
    params += fmt::format("{}const {} *__restrict__ in{}", i ? ", " : "",
                          storageType(*dtypeOf(t)), i);
  for (auto [i, t] : llvm::enumerate(kernel.getResultTypes()))
    params +=
        fmt::format("{}{} *__restrict__ out{}", params.empty() ? "" : ", ",
                    storageType(*dtypeOf(t)), i);
  return params;
}

CudaLaunch toCudaLaunch(LaunchAttr launch) {
  CudaLaunch result;
  result.grid = {static_cast<uint32_t>(launch.getGrid()), 1, 1};
  result.block = {static_cast<uint32_t>(launch.getBlock()),
                  static_cast<uint32_t>(launch.getBlockY()), 1};
  result.dynamicSharedBytes = static_cast<uint32_t>(launch.getShared());
  if (launch.getPhase() >= 0)
    result.phase = static_cast<int32_t>(launch.getPhase());
  if (SizeExprAttr elements = launch.getElements())
    result.elements = elements.getValue();
  result.perBlock = launch.getPerBlock();
  return result;
}

FailureOr<CudaKernel> KernelPrinter::print(Code &out) {
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
  pushScope();
  LogicalResult status = printBody(body);
  popScope();
  if (failed(status))
    return failure();
  Code head;
  head.indent = 1;
  head.line("typedef {} idx_t; // {}-bit index arithmetic",
            wide ? "long long" : "int", wide ? 64 : 32);
  printBeforeWait(head);
  // Before any other access to global memory and any return (Prelude.h).
  head.line("stride_begin_kernel();");
  if (kernel->hasAttr(plan::kTriggerDependentsAttrName))
    head.line("stride_trigger_dependents(); // the grid after this one is "
              "small (stride-trigger-small-successors)");

  // The signature: inputs, outputs, phase.
  std::string params = bufferParameters(kernel);
  for (size_t i = 0; i < result.scratchBytes.size(); ++i)
    params += fmt::format(", int *__restrict__ scratch{}", i);
  bool phased = llvm::any_of(result.launches, [](const CudaLaunch &l) {
    return l.phase.has_value();
  });
  result.phaseParameter = !facts.scatters.empty() || phased;
  if (result.phaseParameter)
    params += ", int phase";
  result.sizeParameters = facts.sizeParameters;
  for (const std::string &size : facts.sizeParameters)
    params += ", long long " + sizeParameterName(size);

  // A schedule that asks for `min_blocks` resident blocks bounds the
  // registers by its real block size (so many blocks of it fit); the
  // others leave the compiler room for blocks of up to 256 threads.
  uint32_t maxThreads = schedule.getMinBlocks() > 0 ? 1 : 256;
  for (const CudaLaunch &l : result.launches)
    maxThreads = std::max<uint32_t>(maxThreads, l.block.volume());

  out.line("// Kernel {}{}: {}", name, part ? " (a member of a launch group)" : "",
           result.description);
  for (Operation &op : kernel.getBodyBlock().without_terminator())
    out.line("//   stride.{} at {}", opName(&op), formatLocation(op.getLoc()));
  if (part) {
    out.line("static __device__ __forceinline__ void");
    out.open(fmt::format("{}(const stride_part_index blockIdx, const "
                         "stride_part_index gridDim, {})",
                         name, params));
    out.text += head.text;
    out.text += body.text;
    out.close();
    out.raw("");
    return result;
  }
  // A cluster's size is compiled in, so that a plain launch forms clusters.
  std::string cluster =
      schedule.getClusterBlocks() > 1
          ? fmt::format(" __cluster_dims__({}, 1, 1)", schedule.getClusterBlocks())
          : "";
  std::string minBlocks =
      schedule.getMinBlocks() > 0
          ? fmt::format(", {}", schedule.getMinBlocks())
          : "";
  out.line("extern \"C\" __global__ void __launch_bounds__({}{}){}",
           maxThreads, minBlocks, cluster);
  out.open(fmt::format("{}({})", name, params));
  out.text += head.text;
  out.text += body.text;
  out.close();
  out.raw("");
  return result;
}

} // namespace stride
