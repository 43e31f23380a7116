//===- DTensor.h - dtensor dialect, attributes, types and ops ---*- C++ -*-===//

#ifndef HP_DIALECT_DTENSOR_IR_DTENSOR_H
#define HP_DIALECT_DTENSOR_IR_DTENSOR_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// Order matters: the attribute interfaces use the reduce op.
#include "hp/Dialect/DTensor/IR/DTensorDialect.h.inc"
#include "hp/Dialect/DTensor/Layout/ReduceOp.h"
// clang-format off
#include "hp/Dialect/DTensor/IR/DTensorAttrInterfaces.h.inc"
// clang-format on

#define GET_ATTRDEF_CLASSES
#include "hp/Dialect/DTensor/IR/DTensorAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "hp/Dialect/DTensor/IR/DTensorTypes.h.inc"

#define GET_OP_CLASSES
#include "hp/Dialect/DTensor/IR/DTensorOps.h.inc"

namespace mlir::shard {
enum class ReductionKind : uint32_t;
} // namespace mlir::shard

namespace hp::dtensor {

/// Parses the mesh symbol of a DTensor type or sharding (`@mesh`).
mlir::ParseResult parseMeshSymbol(mlir::AsmParser &parser,
                                  mlir::FlatSymbolRefAttr &mesh);
/// Prints a placement without the `#dtensor.` prefix (`shard<0>`).
void printPlacement(mlir::AsmPrinter &printer, mlir::Attribute placement);
/// Prints `[shard<0>, replicate]`.
void printPlacementList(mlir::AsmPrinter &printer, mlir::ArrayAttr list);
/// Parses a placement with or without the `#dtensor.` prefix.
mlir::ParseResult parsePlacement(mlir::AsmParser &parser,
                                 mlir::Attribute &placement);
/// Parses `[placement, ...]`.
mlir::ParseResult parsePlacementList(mlir::AsmParser &parser,
                                     mlir::ArrayAttr &list);
/// `[shard<0>, replicate]` as a string, for diagnostics.
std::string placementListToString(mlir::ArrayAttr list);

/// What dtensor ops need of a mesh symbol. It names a `dtensor.mesh`, or the
/// static `shard.grid` (a program written against upstream grids).
struct MeshInfo {
  mlir::Operation *op = nullptr;
  llvm::SmallVector<int64_t> shape;
  /// Axis names: given, or d0, d1, ...
  llvm::SmallVector<std::string> names;

  int64_t getRank() const { return shape.size(); }
  /// The index of the axis called `name`, or -1.
  int64_t getAxisIndex(llvm::StringRef name) const {
    for (auto [i, n] : llvm::enumerate(names))
      if (n == name)
        return i;
    return -1;
  }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  explicit operator bool() const { return op != nullptr; }
};

/// Whether a DTensor may hold elements of `type`: f16, bf16, f32, f64,
/// f8E4M3FN, f8E5M2 and 8-, 32- and 64-bit integers, the element types the
/// dialect's collectives move whole (its own documented rule). A lowering
/// with a narrower list checks that itself, as convert-shard-to-nccl does.
bool isMovableElementType(mlir::Type type);

/// Whether the passes that place values (dtensor-globalize,
/// dtensor-propagate) can make a value of `type` a DTensor: a ranked tensor
/// of static shape with an element type a DTensor holds. The one rule both
/// follow: what one pass makes a DTensor, the next can place.
bool isPlaceableTensorType(mlir::Type type);

/// Checks every DTensor type in `scope` that no dtensor op verifies (function
/// signatures, block arguments, results of other dialects' ops) against its
/// mesh: the mesh exists and has one placement per dim.
mlir::LogicalResult verifyDTensorTypesOutsideDTensorOps(mlir::Operation *scope);

/// The mesh `symbolOp` describes, or a null MeshInfo.
MeshInfo getMeshInfo(mlir::Operation *symbolOp);

/// Looks up the mesh a DTensor-using op refers to; emits an error on `op`
/// and returns a null MeshInfo if `mesh` names no mesh.
MeshInfo lookupMesh(mlir::Operation *op, mlir::FlatSymbolRefAttr mesh,
                    mlir::SymbolTableCollection &symbolTable);

/// The local tensor type one rank holds of `type` on `mesh`.
mlir::RankedTensorType getLocalType(DTensorType type, const MeshInfo &mesh);
mlir::RankedTensorType getLocalType(llvm::ArrayRef<int64_t> globalShape,
                                    mlir::Type elementType,
                                    llvm::ArrayRef<int64_t> meshShape,
                                    mlir::ArrayAttr placements);

/// Checks `placements` against a mesh of rank `meshRank` and a tensor of rank
/// `tensorRank`; on failure emits `what`-prefixed errors through `emitError`.
mlir::LogicalResult
verifyPlacements(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                 llvm::StringRef what, mlir::ArrayAttr placements,
                 int64_t meshRank, int64_t tensorRank);

/// Per mesh dim, the tensor dim its placement splits, or kNotSharded: the
/// layout model's view of a placement list.
llvm::SmallVector<int64_t> getShardedDims(mlir::ArrayAttr placements);

/// Per tensor dim, the mesh dims that split it, outermost first: mesh-dim
/// order, except that a strided_shard splits inside the later mesh dims
/// sharding the same tensor dim.
llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4>
getSplitOrder(mlir::ArrayAttr placements, int64_t tensorRank);

/// The strided_shard rules that need the mesh shape and the global shape
/// (placements already checked by verifyPlacements): the split factor is
/// the product of the later mesh dims sharding the same tensor dim, and a
/// strided dim with split factor > 1 is static and splits evenly.
mlir::LogicalResult
verifyStridedShards(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                    llvm::StringRef what, mlir::ArrayAttr placements,
                    llvm::ArrayRef<int64_t> meshShape,
                    llvm::ArrayRef<int64_t> globalShape);

/// Whether a redistribute from `from` to `to` is legal (no P(a)->P(b)).
/// On failure, `badMeshDim` is the first offending mesh dim.
bool isLegalRedistribute(mlir::ArrayAttr from, mlir::ArrayAttr to,
                         int64_t *badMeshDim = nullptr);

/// The upstream shard reduction of a reduce op.
mlir::shard::ReductionKind toShardReduction(ReduceOp op);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_IR_DTENSOR_H
