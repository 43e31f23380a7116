//===- DTensorTypes.cpp - the !dtensor.tensor type ------------------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace hp::dtensor;

static_assert(
    kDynamicSize == ShapedType::kDynamic,
    "the layout model and MLIR must agree on the dynamic size marker");

#define GET_TYPEDEF_CLASSES
#include "hp/Dialect/DTensor/IR/DTensorTypes.cpp.inc"

bool hp::dtensor::isMovableElementType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64() ||
      isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  return integer && llvm::is_contained({8u, 32u, 64u}, integer.getWidth());
}

bool hp::dtensor::isPlaceableTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() &&
         isMovableElementType(tensor.getElementType());
}

void DTensorDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "hp/Dialect/DTensor/IR/DTensorTypes.cpp.inc"
      >();
}

// !dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>
Type DTensorType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  FlatSymbolRefAttr mesh;
  ArrayAttr placements;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parseMeshSymbol(parser, mesh) || parser.parseComma() ||
      parsePlacementList(parser, placements) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), shape, elementType, mesh, placements);
}

void DTensorType::print(AsmPrinter &printer) const {
  printer << '<';
  for (int64_t d : getShape()) {
    if (ShapedType::isDynamic(d))
      printer << '?';
    else
      printer << d;
    printer << 'x';
  }
  printer << getElementType() << ", " << getMesh() << ", ";
  printPlacementList(printer, getPlacements());
  printer << '>';
}

LogicalResult DTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  FlatSymbolRefAttr mesh,
                                  ArrayAttr placements) {
  for (int64_t d : shape) {
    if (d < 0 && !ShapedType::isDynamic(d))
      return emitError() << "dtensor dims must be non-negative or '?', got "
                         << d;
    if (d > kMaxDimSize)
      return emitError() << "dtensor dim " << d << " exceeds the limit of "
                         << kMaxDimSize << " elements";
  }
  if (!elementType || !isMovableElementType(elementType))
    return emitError()
           << "dtensor element type " << elementType
           << " is not one a DTensor can hold (f16, bf16, f32, f64, "
              "f8E4M3FN, f8E5M2, or 8-, 32- or 64-bit integers)";
  if (!mesh)
    return emitError() << "dtensor needs a mesh symbol";
  if (placements.empty())
    return emitError() << "dtensor needs at least one placement";
  return verifyPlacements(emitError, "dtensor type", placements,
                          /*meshRank=*/-1, shape.size());
}

SmallVector<PlacementAttrInterface> DTensorType::getPlacementList() const {
  return llvm::map_to_vector(getPlacements(), [](Attribute a) {
    return cast<PlacementAttrInterface>(a);
  });
}

DTensorType DTensorType::withPlacements(ArrayAttr placements) const {
  return get(getContext(), getShape(), getElementType(), getMesh(), placements);
}

RankedTensorType hp::dtensor::getLocalType(ArrayRef<int64_t> globalShape,
                                           Type elementType,
                                           ArrayRef<int64_t> meshShape,
                                           ArrayAttr placements) {
  // Local sizes do not depend on the nesting order: a strided split is
  // even (verifyStridedShards) or lays out like a shard.
  return RankedTensorType::get(
      Layout::ofShardDims(globalShape, meshShape, getShardedDims(placements))
          .localShape(),
      elementType);
}

RankedTensorType hp::dtensor::getLocalType(DTensorType type,
                                           const MeshInfo &mesh) {
  return getLocalType(type.getShape(), type.getElementType(), mesh.getShape(),
                      type.getPlacements());
}
