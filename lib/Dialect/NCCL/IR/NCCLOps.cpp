//===- NCCLOps.cpp - nccl operations --------------------------------------===//

#include "hp/Dialect/NCCL/IR/NCCL.h"

#include "hp/Support/DeviceList.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace hp::nccl;

/// `root = 3` or `root = %r`: a constant group member or an index value.
static ParseResult
parseRoot(OpAsmParser &parser,
          std::optional<OpAsmParser::UnresolvedOperand> &dynamicRoot,
          IntegerAttr &root) {
  OpAsmParser::UnresolvedOperand operand;
  OptionalParseResult value = parser.parseOptionalOperand(operand);
  if (value.has_value()) {
    if (failed(*value))
      return failure();
    dynamicRoot = operand;
    return success();
  }
  int64_t constant;
  if (parser.parseInteger(constant))
    return failure();
  root = parser.getBuilder().getI64IntegerAttr(constant);
  return success();
}

static void printRoot(OpAsmPrinter &printer, Operation *, Value dynamicRoot,
                      IntegerAttr root) {
  if (dynamicRoot)
    printer << dynamicRoot;
  else if (root)
    printer << root.getInt();
}

/// `2x?x4`: the sizes of a grid, `?` for one given at launch.
static ParseResult parseShape(OpAsmParser &parser, DenseI64ArrayAttr &shape) {
  SmallVector<int64_t> sizes;
  if (parser.parseDimensionList(sizes, /*allowDynamic=*/true,
                                /*withTrailingX=*/false))
    return failure();
  shape = parser.getBuilder().getDenseI64ArrayAttr(sizes);
  return success();
}

static void printShape(OpAsmPrinter &printer, Operation *,
                       DenseI64ArrayAttr shape) {
  printer.printDimensionList(shape.asArrayRef());
}

namespace {
/// Communication through a communicator: keeps collectives alive and in
/// order even when their results look unused, since every rank must join.
struct CommunicatorResource
    : SideEffects::Resource::Base<CommunicatorResource> {
  StringRef getName() override { return "nccl.communicator"; }
};
} // namespace

template <typename OpTy>
static void addCollectiveEffects(
    OpTy op, SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &op.getSendMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &op.getRecvMutable());
  effects.emplace_back(MemoryEffects::Write::get(),
                       CommunicatorResource::get());
}

static LogicalResult verifyBuffer(Operation *op, Value buffer, StringRef name,
                                  bool needsRank) {
  auto type = cast<MemRefType>(buffer.getType());
  if (getNCCLDataType(type.getElementType()) < 0)
    return op->emitOpError()
           << name << " element type " << type.getElementType()
           << " has no NCCL data type";
  // A dynamic strided layout is how buffers come out of bufferization;
  // nccl-contiguous-buffers settles them before the lowering to calls.
  if (!type.getLayout().isIdentity() &&
      !isa<StridedLayoutAttr>(type.getLayout()))
    return op->emitOpError()
           << name << " must have an identity or strided layout, got " << type;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (isa<StridedLayoutAttr>(type.getLayout()) &&
      succeeded(type.getStridesAndOffset(strides, offset)) &&
      llvm::none_of(strides, ShapedType::isDynamic) && type.hasStaticShape() &&
      !isProvablyContiguous(type))
    return op->emitOpError() << name << " is not contiguous: " << type;
  if (needsRank && type.getRank() == 0)
    return op->emitOpError() << name << " must have a leading dimension";
  return success();
}

#define GET_OP_CLASSES
#include "hp/Dialect/NCCL/IR/NCCLOps.cpp.inc"

//===----------------------------------------------------------------------===//
// grid
//===----------------------------------------------------------------------===//

LogicalResult GridOp::verify() {
  if (getShape().empty())
    return emitOpError("shape must not be empty");
  for (auto [i, size] : llvm::enumerate(getShape()))
    if (!ShapedType::isDynamic(size) && size < 1)
      return emitOpError() << "axis " << i << " has size " << size
                           << "; sizes must be >= 1 or dynamic";
  if (!getDevices())
    return success();
  if (llvm::any_of(getShape(), ShapedType::isDynamic))
    return emitOpError("devices need a static shape");
  return hp::verifyDeviceList([&] { return emitOpError(); }, "grid",
                              *getDevices(),
                              ShapedType::getNumElements(getShape()));
}

//===----------------------------------------------------------------------===//
// comm
//===----------------------------------------------------------------------===//

int64_t CommOp::getGroupSize() {
  auto grid =
      SymbolTable::lookupNearestSymbolFrom<GridOp>(*this, getGridAttr());
  if (!grid)
    return -1;
  int64_t n = 1;
  for (int64_t axis : getAxes()) {
    if (axis < 0 || axis >= grid.getRank() ||
        ShapedType::isDynamic(grid.getShape()[axis]))
      return -1;
    n *= grid.getShape()[axis];
  }
  return n;
}

OpFoldResult CommSizeOp::fold(FoldAdaptor) {
  if (auto comm = getComm().getDefiningOp<CommOp>())
    if (int64_t n = comm.getGroupSize(); n > 0)
      return IntegerAttr::get(IndexType::get(getContext()), n);
  return {};
}

LogicalResult CommOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto grid = symbolTable.lookupNearestSymbolFrom<GridOp>(*this, getGridAttr());
  if (!grid)
    return emitOpError() << "'" << getGridAttr()
                         << "' does not name an nccl.grid";
  llvm::SmallSet<int16_t, 4> seen;
  for (int16_t axis : getAxes()) {
    if (axis < 0 || axis >= grid.getRank())
      return emitOpError() << "axis " << axis << " is out of range for grid "
                           << getGridAttr() << " of rank " << grid.getRank();
    if (!seen.insert(axis).second)
      return emitOpError() << "axis " << axis << " is listed more than once";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Buffer ops
//===----------------------------------------------------------------------===//

static int64_t groupSizeOf(Value comm) {
  if (auto op = comm.getDefiningOp<CommOp>())
    return op.getGroupSize();
  return -1;
}

static bool sameOrDynamic(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// send/recv checks shared by the collectives; `leadingRatio` relates the
/// leading dims (recv = send * ratio for gather, send = recv * ratio for
/// scatter) and is 1 for shape-preserving collectives.
static LogicalResult verifyPair(Operation *op, Value send, Value recv,
                                Value comm, bool recvIsLarger,
                                bool scalesLeading) {
  bool needsRank = scalesLeading;
  if (failed(verifyBuffer(op, send, "send", needsRank)) ||
      failed(verifyBuffer(op, recv, "recv", needsRank)))
    return failure();
  auto s = cast<MemRefType>(send.getType());
  auto r = cast<MemRefType>(recv.getType());
  if (s.getElementType() != r.getElementType())
    return op->emitOpError("send and recv must have the same element type");
  if (s.getRank() != r.getRank())
    return op->emitOpError("send and recv must have the same rank");
  for (int64_t d = scalesLeading ? 1 : 0; d < s.getRank(); ++d)
    if (!sameOrDynamic(s.getDimSize(d), r.getDimSize(d)))
      return op->emitOpError() << "send and recv differ in dim " << d;
  int64_t n = groupSizeOf(comm);
  if (!scalesLeading || n < 0)
    return success();
  int64_t small = recvIsLarger ? s.getDimSize(0) : r.getDimSize(0);
  int64_t large = recvIsLarger ? r.getDimSize(0) : s.getDimSize(0);
  if (!ShapedType::isDynamic(small) && !ShapedType::isDynamic(large) &&
      small * n != large)
    return op->emitOpError()
           << (recvIsLarger ? "recv" : "send") << " leading dim " << large
           << " must be " << n << " (the group size) times "
           << (recvIsLarger ? "send's" : "recv's") << " " << small;
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyPair(*this, getSend(), getRecv(), getComm(),
                    /*recvIsLarger=*/true, /*scalesLeading=*/true);
}

LogicalResult ReduceScatterOp::verify() {
  return verifyPair(*this, getSend(), getRecv(), getComm(),
                    /*recvIsLarger=*/false, /*scalesLeading=*/true);
}

LogicalResult AllReduceOp::verify() {
  return verifyPair(*this, getSend(), getRecv(), getComm(),
                    /*recvIsLarger=*/false, /*scalesLeading=*/false);
}

LogicalResult AllToAllOp::verify() {
  if (failed(verifyPair(*this, getSend(), getRecv(), getComm(),
                        /*recvIsLarger=*/false, /*scalesLeading=*/false)))
    return failure();
  int64_t n = groupSizeOf(getComm());
  auto s = cast<MemRefType>(getSend().getType());
  if (s.getRank() == 0)
    return emitOpError("send must have a leading dimension");
  if (n > 0 && !ShapedType::isDynamic(s.getDimSize(0)) &&
      s.getDimSize(0) % n != 0)
    return emitOpError() << "leading dim " << s.getDimSize(0)
                         << " must divide by the group size " << n;
  return success();
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifyPair(*this, getSend(), getRecv(), getComm(),
                        /*recvIsLarger=*/false, /*scalesLeading=*/false)))
    return failure();
  if (getRoot().has_value() == static_cast<bool>(getDynamicRoot()))
    return emitOpError() << "needs exactly one root: a constant or a value";
  if (!getRoot())
    return success();
  int64_t n = groupSizeOf(getComm());
  int64_t root = static_cast<int64_t>(*getRoot());
  if (root < 0 || (n > 0 && root >= n))
    return emitOpError() << "root " << root << " is not a rank of the group";
  return success();
}

LogicalResult GroupOp::verifyRegions() {
  for (Operation &op : getBody().front()) {
    if (isa<SendOp, RecvOp>(op) ||
        op.getName().getDialectNamespace() == "arith")
      continue;
    return op.emitOpError("is not allowed in nccl.group; it holds only "
                          "nccl.send, nccl.recv and index arithmetic");
  }
  return success();
}
