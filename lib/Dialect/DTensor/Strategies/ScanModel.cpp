//===- ScanModel.cpp - the strategies of dtensor.scan ---------------------===//
//
// A scan runs on each piece wherever it is split: along another dim the
// pieces are independent; along its own dim each rank scans its piece
// starting from the totals of the pieces before it (one all_gather of a
// value per row inside the op's local region). A sum scan is linear, so
// partial sums pass through. docs/Propagation.md, "Scans".
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Dialect/DTensor/Strategies/StrategyRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::strategies;

/// `id` with `dim` read at 0: one value per row along dim.
static AffineMap rowMap(AffineMap id, int64_t dim) {
  MLIRContext *ctx = id.getContext();
  return id.replace(getAffineDimExpr(dim, ctx), getAffineConstantExpr(0, ctx),
                    id.getNumDims(), 0);
}

/// `kind` over `dim` of `input` into `init` ([..., 1, ...] along dim, of the
/// carried type): each row's total; with `before` (an index), only the
/// entries at positions below it along dim.
static Value combineAlong(OpBuilder &b, Location loc, ReduceOp kind,
                          Value input, Value init, int64_t dim,
                          Value before = nullptr) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap row = rowMap(id, dim);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[dim] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{input}, ValueRange{init},
      ArrayRef<AffineMap>{id, row}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = ScanOp::buildFloatCast(nb, l, args[1].getType(), args[0]);
        Value combined = ScanOp::buildCombine(nb, l, kind, args[1], x);
        if (before) {
          Value j = linalg::IndexOp::create(nb, l, dim);
          Value earlier = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::ult, j, before);
          combined = arith::SelectOp::create(nb, l, earlier, combined, args[1]);
        }
        linalg::YieldOp::create(nb, l, combined);
      });
  return generic.getResult(0);
}

namespace {

struct ScanModel : StrategyOpInterface::ExternalModel<ScanModel, ScanOp> {
  LogicalResult getStrategies(Operation *op, ArrayRef<int64_t> meshShape,
                              std::vector<Strategy> &strategies,
                              std::string &) const {
    auto scan = cast<ScanOp>(op);
    auto type = cast<RankedTensorType>(scan.getType());
    int64_t rank = type.getRank();
    // As loops: every dim may split (the scan's own through the totals),
    // one flop per element; an init holds one value per row.
    Structure s;
    s.loopSizes.assign(type.getShape().begin(), type.getShape().end());
    s.iterators.assign(rank, utils::IteratorType::parallel);
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, op->getContext());
    s.operandMaps = {id};
    if (scan.getInit())
      s.operandMaps.push_back(rowMap(id, scan.getDimAttr().getInt()));
    s.resultMaps = {id};
    s.initOf.assign(s.operandMaps.size(), -1);
    s.combiners = {std::nullopt};
    // init + cumsum(x) is linear in both jointly.
    if (scan.getKind() == ReduceOp::Sum)
      s.linearSets.push_back(SmallVector<bool>(s.operandMaps.size(), true));
    strategies = structuredStrategies(s, meshShape);
    return success();
  }

  SmallVector<Value> buildLocalResults(Operation *op, OpBuilder &b,
                                       Operation *local, const Strategy &s,
                                       const MeshInfo &mesh,
                                       FlatSymbolRefAttr meshName) const {
    auto scan = cast<ScanOp>(local);
    int64_t dim = scan.getDimAttr().getInt();
    SmallVector<int64_t> axes;
    for (auto [m, loop] : llvm::enumerate(s.loops))
      if (loop == dim)
        axes.push_back(m);
    if (axes.empty())
      return {scan.getResult()};
    // Split along its dim: each piece's total per row, gathered along dim
    // in the pieces' order (nested splits: mesh axes outermost first, as
    // the layout nests them), and the combination of the row's init (if
    // any) and the totals before this rank's piece, which the local scan
    // starts from. Built in front of the scan, which then reads it.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(scan);
    Location loc = scan.getLoc();
    ReduceOp kind = scan.getKind();
    Value x = scan.getInput();
    auto type = cast<RankedTensorType>(x.getType());
    Type carried = ScanOp::getCarriedType(type.getElementType());
    Value identity =
        arith::ConstantOp::create(b, loc, ScanOp::getIdentity(kind, carried));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    sizes[dim] = b.getIndexAttr(1);
    Value empty = tensor::EmptyOp::create(b, loc, sizes, carried);
    Value fresh = linalg::FillOp::create(b, loc, identity, empty).getResult(0);
    Value totals = combineAlong(b, loc, kind, x, fresh, dim);
    int64_t pieces = 1;
    SmallVector<Attribute> names;
    Value piece = arith::ConstantIndexOp::create(b, loc, 0);
    for (int64_t m : axes) {
      pieces *= mesh.shape[m];
      names.push_back(b.getStringAttr(mesh.names[m]));
      Value digit = AxisIndexOp::create(b, loc, b.getIndexType(), meshName,
                                        b.getStringAttr(mesh.names[m]));
      Value size = arith::ConstantIndexOp::create(b, loc, mesh.shape[m]);
      piece = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, piece, size), digit);
    }
    SmallVector<int64_t> gatheredShape(
        cast<RankedTensorType>(totals.getType()).getShape());
    gatheredShape[dim] = pieces;
    Value gathered = AllGatherOp::create(
        b, loc, RankedTensorType::get(gatheredShape, carried), totals, meshName,
        b.getArrayAttr(names), b.getIndexAttr(dim));
    Value start = scan.getInit() ? scan.getInit() : fresh;
    Value prefix = combineAlong(b, loc, kind, gathered, start, dim, piece);
    scan.getInitMutable().assign(prefix);
    return {scan.getResult()};
  }
};

} // namespace

void strategies::registerScanModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, DTensorDialect *) {
    ScanOp::attachInterface<ScanModel>(*ctx);
  });
}
