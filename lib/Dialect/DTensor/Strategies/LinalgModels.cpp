//===- LinalgModels.cpp - the strategies of linalg's ops ------------------===//
//
// Every structured op (LinalgOp: indexing maps and iterator types, read from
// upstream's ShardingInterface where registered) is a Structure, whose rule
// StrategyRules.h gives; a body that reads tensors from above (a lookup, a
// mask) adds the splits of those tables. linalg.softmax, not a structured
// op, has its own model: any dim but the one it normalises may be split.
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "hp/Dialect/DTensor/Strategies/StrategyOpInterface.h"
#include "hp/Dialect/DTensor/Strategies/StrategyRules.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::strategies;
using Placement = plan::Placement;

//===----------------------------------------------------------------------===//
// Tables read from above
//===----------------------------------------------------------------------===//

/// The linalg.index that `v` equals, through the casts and the wrap of
/// negative indices (`i < 0 ? i + n : i`, torch's index semantics) that
/// torch-mlir writes around it: an iteration index is never negative.
static linalg::IndexOp loopIndexOf(Value v) {
  while (true) {
    if (auto i = v.getDefiningOp<linalg::IndexOp>())
      return i;
    if (auto cast = v.getDefiningOp<arith::IndexCastOp>()) {
      v = cast.getIn();
      continue;
    }
    auto select = v.getDefiningOp<arith::SelectOp>();
    if (!select)
      return nullptr;
    auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::slt ||
        cmp.getLhs() != select.getFalseValue() ||
        !matchPattern(cmp.getRhs(), m_Zero()))
      return nullptr;
    v = select.getFalseValue();
    if (!loopIndexOf(v))
      return nullptr;
  }
}

std::optional<TableRead> strategies::tableReadOf(Operation *op, Value table) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  auto type = dyn_cast<RankedTensorType>(table.getType());
  if (!linalgOp || !type || op->getNumRegions() != 1 ||
      !op->getRegion(0).hasOneBlock())
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  tensor::ExtractOp extract;
  for (Operation *user : table.getUsers()) {
    if (!op->isProperAncestor(user))
      continue;
    auto e = dyn_cast<tensor::ExtractOp>(user);
    if (!e || e->getBlock() != &body || extract)
      return std::nullopt;
    extract = e;
  }
  if (!extract)
    return std::nullopt;
  TableRead read{table, extract, /*yielded=*/false, {}};
  // Zeros may stand for the rows a rank lacks only where the value read is
  // yielded as is and the result's old value is not read.
  if (extract.getResult().hasOneUse()) {
    OpOperand &use = *extract.getResult().use_begin();
    int64_t r = use.getOperandNumber();
    read.yielded =
        isa<linalg::YieldOp>(use.getOwner()) && r < linalgOp.getNumDpsInits() &&
        !linalgOp.payloadUsesValueFromOperand(linalgOp.getDpsInitOperand(r));
  }
  SmallVector<int64_t> loopSizes = linalgOp.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  for (auto [k, index] : llvm::enumerate(extract.getIndices())) {
    int64_t loop = -1;
    if (linalg::IndexOp i = loopIndexOf(index)) {
      int64_t d = i.getDim();
      if (iterators[d] == utils::IteratorType::parallel &&
          loopSizes[d] == type.getDimSize(k))
        loop = d;
    }
    read.loopOf.push_back(loop);
  }
  return read;
}

//===----------------------------------------------------------------------===//
// Structured ops
//===----------------------------------------------------------------------===//

/// hp's reduce op for a combiner, when upstream's kind agrees.
static std::optional<ReduceOp>
combinerOf(Operation *combiner, std::optional<shard::ReductionKind> kind) {
  std::optional<ReduceOp> mine;
  if (isa<arith::AddFOp, arith::AddIOp>(combiner))
    mine = ReduceOp::Sum;
  else if (isa<arith::MulFOp, arith::MulIOp>(combiner))
    mine = ReduceOp::Prod;
  else if (isa<arith::MaximumFOp, arith::MaxSIOp>(combiner))
    mine = ReduceOp::Max;
  else if (isa<arith::MinimumFOp, arith::MinSIOp>(combiner))
    mine = ReduceOp::Min;
  if (!mine || !kind)
    return mine;
  // Upstream's table maps some combiners loosely (andi to sum, unsigned
  // max to max); only what both say is used.
  static const std::pair<ReduceOp, shard::ReductionKind> agree[] = {
      {ReduceOp::Sum, shard::ReductionKind::Sum},
      {ReduceOp::Prod, shard::ReductionKind::Product},
      {ReduceOp::Max, shard::ReductionKind::Max},
      {ReduceOp::Min, shard::ReductionKind::Min}};
  for (auto [op, k] : agree)
    if (*mine == op)
      return *kind == k ? mine : std::nullopt;
  return std::nullopt;
}

static std::optional<Structure> structureOf(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return std::nullopt;
  Structure s;
  SmallVector<AffineMap> maps;
  SmallVector<shard::ReductionKind> kinds;
  if (auto si = dyn_cast<shard::ShardingInterface>(op.getOperation())) {
    s.iterators = si.getLoopIteratorTypes();
    maps = si.getIndexingMaps(); // operands, then results
    // Upstream reads the first output's combiner without checking there is
    // one: a generic with no outputs (torch-mlir's index checks, bodies of
    // cf.assert only) would read past its block arguments.
    if (op.getNumDpsInits() > 0)
      kinds = si.getReductionLoopIteratorKinds();
  } else {
    s.iterators = op.getIteratorTypesArray();
    maps = op.getIndexingMapsArray();
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&init));
  }
  if (maps.size() != op->getNumOperands() + op->getNumResults())
    return std::nullopt;
  s.loopSizes = op.getStaticLoopRanges();
  if (llvm::any_of(s.loopSizes, ShapedType::isDynamic))
    return std::nullopt;
  Block *body = op.getBlock();
  SmallVector<bool> isTensor;
  for (OpOperand &operand : op->getOpOperands()) {
    bool tensor = isa<RankedTensorType>(operand.get().getType());
    isTensor.push_back(tensor);
    if (!tensor)
      continue;
    s.operandMaps.push_back(maps[operand.getOperandNumber()]);
    s.initOf.push_back(op.isDpsInit(&operand)
                           ? static_cast<int64_t>(
                                 op.getTiedOpResult(&operand).getResultNumber())
                           : int64_t(-1));
  }
  for (int64_t r = 0, e = op->getNumResults(); r < e; ++r)
    s.resultMaps.push_back(maps[op->getNumOperands() + r]);

  // Combiners of reduction results.
  bool hasReduction = llvm::any_of(s.iterators, [](utils::IteratorType t) {
    return t == utils::IteratorType::reduction;
  });
  // Upstream's one kind per loop describes a single result (it reads the
  // first combiner) and says `Generic` where it does not know; with several
  // results, or no kind, each result's own combiner decides.
  std::optional<shard::ReductionKind> kind;
  if (op->getNumResults() == 1 && !kinds.empty() && llvm::all_equal(kinds) &&
      kinds.front() != shard::ReductionKind::Generic)
    kind = kinds.front();
  for (int64_t r = 0, e = op->getNumResults(); r < e; ++r) {
    std::optional<ReduceOp> c;
    if (hasReduction) {
      SmallVector<Operation *> combinerOps;
      if (matchReduction(op.getRegionOutputArgs(), r, combinerOps) &&
          combinerOps.size() == 1)
        c = combinerOf(combinerOps.front(), kind);
    }
    s.combiners.push_back(c);
  }

  // Linear sets: subsets of the tensor inputs, with every init the body
  // reads (an init held constant would be counted once per rank).
  SmallVector<int64_t> inputs, readInits;
  int64_t t = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isTensor[operand.getOperandNumber()])
      continue;
    if (op.isDpsInit(&operand)) {
      if (op.payloadUsesValueFromOperand(&operand))
        readInits.push_back(t);
    } else {
      inputs.push_back(t);
    }
    ++t;
  }
  if (inputs.size() <= 4) {
    for (int64_t mask = 1; mask < (int64_t(1) << inputs.size()); ++mask) {
      SmallVector<bool> set(t, false), args(body->getNumArguments(), false);
      for (auto [k, i] : llvm::enumerate(inputs))
        set[i] = (mask >> k) & 1;
      for (int64_t i : readInits)
        set[i] = true;
      // Strategy operand i is block argument (operand number) of the i-th
      // tensor operand.
      int64_t ti = 0;
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isTensor[operand.getOperandNumber()])
          continue;
        // linalg.map's body has no argument for its init.
        if (operand.getOperandNumber() < body->getNumArguments())
          args[operand.getOperandNumber()] = set[ti];
        ++ti;
      }
      if (isLinearIn(*body, args))
        s.linearSets.push_back(set);
    }
  }
  int64_t ops = 0;
  for (Operation &inner : body->without_terminator())
    if (!isa<linalg::IndexOp>(inner))
      ++ops;
  s.flopsPerPoint = std::max<int64_t>(ops, 1);
  return s;
}

/// The options of a linalg op whose body reads `tables` from above (after
/// its own operands in a strategy): its own options with every table
/// replicated; with a table split alike along a dim its loop's index reads;
/// and, with nothing else split, a table split along a dim read at a
/// computed index, which leaves the result a partial sum.
static SmallVector<AxisOption> tableOptions(const Structure &s,
                                            ArrayRef<TableRead> tables) {
  int64_t own = s.operandMaps.size();
  SmallVector<AxisOption> options;
  for (AxisOption o : axisOptions(s)) {
    o.operands.resize(own + tables.size(), Placement::replicate());
    options.push_back(o);
    for (auto [t, read] : llvm::enumerate(tables))
      for (auto [k, loop] : llvm::enumerate(read.loopOf))
        if (loop >= 0 && loop == o.loop) {
          AxisOption split = o;
          split.operands[own + t] = Placement::shard(k);
          options.push_back(std::move(split));
        }
  }
  if (s.resultMaps.size() == 1)
    for (auto [t, read] : llvm::enumerate(tables))
      for (auto [k, loop] : llvm::enumerate(read.loopOf))
        if (loop < 0 && read.yielded) {
          AxisOption rows;
          rows.operands.assign(own + tables.size(), Placement::replicate());
          rows.operands[own + t] = Placement::shard(k);
          rows.results = {Placement::partial(ReduceOp::Sum)};
          options.push_back(std::move(rows));
        }
  return options;
}

/// Whether `s` splits some table dim both ways (by a loop on one axis, by
/// rows on another): the local index and the rows each rank holds would
/// disagree.
static bool mixesTableSplits(const Strategy &s, int64_t own,
                             ArrayRef<TableRead> tables) {
  for (auto [t, read] : llvm::enumerate(tables)) {
    SmallVector<int> ways(read.loopOf.size(), 0);
    for (auto [m, p] : llvm::enumerate(s.operands[own + t]))
      if (p.kind == Placement::Shard)
        ways[p.dim] |= s.loops[m] == Strategy::kNoLoop ? 1 : 2;
    if (llvm::is_contained(ways, 3))
      return true;
  }
  return false;
}

namespace {

/// The rule of every structured op.
template <typename OpT>
struct StructuredModel
    : StrategyOpInterface::ExternalModel<StructuredModel<OpT>, OpT> {
  LogicalResult getStrategies(Operation *op, ArrayRef<int64_t> meshShape,
                              std::vector<Strategy> &strategies,
                              std::string &why) const {
    std::optional<Structure> s = structureOf(cast<linalg::LinalgOp>(op));
    SmallVector<Value> operands = strategyOperands(op);
    bool captures = static_cast<int64_t>(operands.size()) !=
                    llvm::count_if(op->getOperandTypes(), [](Type t) {
                      return isa<RankedTensorType>(t);
                    });
    if (!s) {
      why = captures ? "a region that reads tensors from above"
                     : "no sharding rule for this op";
      return failure();
    }
    int64_t own = s->operandMaps.size();
    if (own == static_cast<int64_t>(operands.size())) {
      strategies = structuredStrategies(*s, meshShape);
      return success();
    }
    // A body that reads whole tensors from above (a lookup or a mask built
    // by index arithmetic): its loops split as usual with those tensors
    // replicated, since the lowering shifts each linalg.index to the global
    // index the body computes its reads from.
    SmallVector<TableRead> tables;
    for (Value v : ArrayRef(operands).drop_front(own)) {
      std::optional<TableRead> read = tableReadOf(op, v);
      if (!read) // read some other way: replicated
        read = TableRead{v, nullptr, false, {}};
      tables.push_back(std::move(*read));
    }
    strategies = structuredStrategies(*s, meshShape, tableOptions(*s, tables),
                                      operands.size());
    llvm::erase_if(strategies, [&](const Strategy &st) {
      return mixesTableSplits(st, own, tables);
    });
    return success();
  }
};

/// linalg.softmax: every dim but the one it normalises may be split (each
/// rank normalises whole rows of its own); about five flops per element.
/// The structured-op rule gives exactly that.
struct SoftmaxModel
    : StrategyOpInterface::ExternalModel<SoftmaxModel, linalg::SoftmaxOp> {
  LogicalResult getStrategies(Operation *op, ArrayRef<int64_t> meshShape,
                              std::vector<Strategy> &strategies,
                              std::string &why) const {
    auto softmax = cast<linalg::SoftmaxOp>(op);
    if (!softmax.hasPureTensorSemantics()) {
      why = "linalg.softmax on buffers";
      return failure();
    }
    // As loops: identity maps for the input, the init and the result, the
    // normalised dim a reduction with no combiner (so it is never split).
    ArrayRef<int64_t> shape = softmax.getInputOperandType().getShape();
    int64_t rank = shape.size();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, op->getContext());
    Structure s;
    s.loopSizes.assign(shape.begin(), shape.end());
    s.iterators.assign(rank, utils::IteratorType::parallel);
    s.iterators[softmax.getDimension()] = utils::IteratorType::reduction;
    s.operandMaps = {id, id};
    s.initOf = {-1, 0};
    s.resultMaps = {id};
    s.combiners = {std::nullopt};
    s.flopsPerPoint = 5;
    strategies = structuredStrategies(s, meshShape);
    return success();
  }
};

template <typename... OpTs> void attachStructured(MLIRContext *ctx) {
  (OpTs::template attachInterface<StructuredModel<OpTs>>(*ctx), ...);
}

} // namespace

void strategies::registerLinalgModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachStructured<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
    linalg::SoftmaxOp::attachInterface<SoftmaxModel>(*ctx);
  });
}
