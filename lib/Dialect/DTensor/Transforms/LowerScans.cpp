//===- LowerScans.cpp - dtensor.scan on local tensors as a loop -----------===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "RowLoops.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORLOWERSCANS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

/// `scan` as loops: the other dims outside, its own innermost, carrying the
/// running value (in the carried type, from the row's init or the kind's
/// identity) and the result being written.
static Value lowerScan(OpBuilder &b, ScanOp scan) {
  Location loc = scan.getLoc();
  Value x = scan.getInput();
  Value init = scan.getInit();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t dim = scan.getDimAttr().getInt();
  ReduceOp kind = scan.getKind();
  Type element = type.getElementType();
  Type carried = ScanOp::getCarriedType(element);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value empty = tensor::EmptyOp::create(b, loc, sizes, element);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value identity =
      arith::ConstantOp::create(b, loc, ScanOp::getIdentity(kind, carried));
  RowLoops rowLoops(b, loc, sizes, dim);
  Value length = getValueOrCreateConstantIndexOp(b, loc, sizes[dim]);
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, rowLoops.lbs, rowLoops.ubs, rowLoops.steps, ValueRange{empty},
      [&](OpBuilder &nb, Location l, ValueRange ivs,
          ValueRange written) -> scf::ValueVector {
        auto indexAt = [&](Value i) { return RowLoops::at(ivs, dim, i); };
        Value start =
            init ? tensor::ExtractOp::create(nb, l, init, indexAt(zero))
                 : identity;
        auto inner = scf::ForOp::create(
            nb, l, zero, length, one, ValueRange{start, written[0]},
            [&](OpBuilder &ib, Location il, Value i, ValueRange running) {
              SmallVector<Value> at = indexAt(i);
              Value v = ScanOp::buildFloatCast(
                  ib, il, carried, tensor::ExtractOp::create(ib, il, x, at));
              Value acc = ScanOp::buildCombine(ib, il, kind, running[0], v);
              Value out = ScanOp::buildFloatCast(ib, il, element, acc);
              Value t = tensor::InsertOp::create(ib, il, out, running[1], at);
              scf::YieldOp::create(ib, il, ValueRange{acc, t});
            });
        return {inner.getResult(1)};
      });
  return nest.results.front();
}

namespace {

struct DTensorLowerScansPass
    : hp::dtensor::impl::DTensorLowerScansBase<DTensorLowerScansPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<ScanOp> scans;
    getOperation()->walk([&](ScanOp s) { scans.push_back(s); });
    for (ScanOp scan : scans) {
      if (gpu) {
        scan.emitOpError()
            << "has no GPU kernel yet: hp-lower-to-gpu refuses scans (torch's "
               "cumsum and cumprod); hp-lower-to-cpu runs them";
        signalPassFailure();
        continue;
      }
      OpBuilder b(scan);
      scan.replaceAllUsesWith(lowerScan(b, scan));
      scan.erase();
    }
  }
};

} // namespace
