//===- PrintLayouts.cpp - which device holds which block, as a picture ----===//
//
// torch's visualize_sharding and jax.debug.visualize_array_sharding for
// dtensor IR: for every DTensor function argument and op result of rank 1
// or 2 with a static shape, a remark draws the global tensor as a grid of
// blocks, each cell naming the devices (linear mesh indices) that hold it.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORPRINTLAYOUTS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

namespace {

/// Devices drawn at most; larger meshes get a one-line summary.
constexpr int64_t kMaxDrawnDevices = 256;

std::string range(int64_t offset, int64_t size) {
  if (size == 0)
    return "(empty)";
  if (size == 1)
    return std::to_string(offset);
  return std::to_string(offset) + "-" + std::to_string(offset + size - 1);
}

/// The picture of `type` on a mesh of `meshShape`.
std::string draw(DTensorType type, ArrayRef<int64_t> meshShape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "layout of " << type << ":";
  int64_t devices = 1;
  for (int64_t n : meshShape)
    devices *= n;
  if (devices > kMaxDrawnDevices) {
    os << " " << devices << " devices, too many to draw";
    return text;
  }
  bool partial =
      llvm::any_of(type.getPlacementList(),
                   [](PlacementAttrInterface p) { return p.isPartial(); });
  ArrayRef<int64_t> shape = type.getShape();
  Layout layout{llvm::to_vector<4>(shape), llvm::to_vector<4>(meshShape),
                getSplitOrder(type.getPlacements(), type.getRank())};
  IntArith a;
  bool matrix = shape.size() == 2;
  // Block (row range, column range) -> the devices holding it.
  std::map<std::pair<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>,
           std::vector<int64_t>>
      blocks;
  std::set<std::pair<int64_t, int64_t>> rows, cols;
  for (int64_t d = 0; d < devices; ++d) {
    LocalBlock b = layout.block(delinearize(a, d, meshShape));
    std::pair<int64_t, int64_t> row{b.offsets[0], b.sizes[0]};
    std::pair<int64_t, int64_t> col =
        matrix ? std::make_pair(b.offsets[1], b.sizes[1])
               : std::make_pair(int64_t(0), int64_t(1));
    rows.insert(row);
    cols.insert(col);
    blocks[{row, col}].push_back(d);
  }
  auto cell = [&](std::pair<int64_t, int64_t> row,
                  std::pair<int64_t, int64_t> col) -> std::string {
    auto it = blocks.find({row, col});
    if (it == blocks.end())
      return "";
    std::string s = "dev ";
    llvm::raw_string_ostream cs(s);
    llvm::interleave(it->second, cs, ",");
    return s;
  };
  size_t width = 8;
  for (auto &[key, devs] : blocks)
    width = std::max(width, cell(key.first, key.second).size() + 2);
  std::string header = matrix ? "rows \\ cols" : "elements";
  size_t first = header.size() + 2;
  for (auto row : rows)
    first = std::max(first, range(row.first, row.second).size() + 2);
  // Lines are padded into columns, then their trailing blanks dropped.
  auto line = [&](std::string s) { os << "\n  " << StringRef(s).rtrim(); };
  {
    std::string s;
    llvm::raw_string_ostream ls(s);
    ls << llvm::left_justify(header, first);
    if (matrix)
      for (auto col : cols)
        ls << llvm::left_justify(range(col.first, col.second), width);
    else
      ls << "devices";
    line(s);
  }
  for (auto row : rows) {
    std::string s;
    llvm::raw_string_ostream ls(s);
    ls << llvm::left_justify(range(row.first, row.second), first);
    for (auto col : cols)
      ls << llvm::left_justify(cell(row, col), width);
    line(s);
  }
  if (partial)
    os << "\n  (partial: the devices of a cell hold parts that reduce to "
          "the block)";
  return text;
}

struct DTensorPrintLayoutsPass
    : hp::dtensor::impl::DTensorPrintLayoutsBase<DTensorPrintLayoutsPass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    auto report = [&](Operation *anchor, Location loc, Type t) {
      auto type = dyn_cast<DTensorType>(t);
      if (!type || type.getRank() < 1 || type.getRank() > 2 ||
          llvm::any_of(type.getShape(), ShapedType::isDynamic))
        return;
      MeshInfo mesh = getMeshInfo(
          symbols.lookupNearestSymbolFrom(anchor, type.getMesh().getAttr()));
      if (!mesh ||
          mesh.getRank() != static_cast<int64_t>(type.getPlacements().size()))
        return;
      mlir::emitRemark(loc) << draw(type, mesh.getShape());
    };
    getOperation()->walk([&](Operation *op) {
      if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
        if (!fn.isExternal())
          for (BlockArgument arg : fn.getArguments())
            report(op, arg.getLoc(), arg.getType());
        return;
      }
      for (Value result : op->getResults())
        report(op, op->getLoc(), result.getType());
    });
  }
};

} // namespace
