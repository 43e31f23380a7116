//===- DTensorTypes.td - the !dtensor.tensor type ----------*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_IR_DTENSORTYPES_TD
#define HP_DIALECT_DTENSOR_IR_DTENSORTYPES_TD

include "hp/Dialect/DTensor/IR/DTensorAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def DTensor_DTensorType : TypeDef<DTensor_Dialect, "DTensor"> {
  let mnemonic = "tensor";
  let summary = "a global tensor laid out on a device mesh";
  let description = [{
    `!dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>` holds the
    *global* shape, the element type, the mesh symbol and one placement per
    mesh dimension (the `#dtensor.` prefix is dropped inside the list).

    Constraints checked by the type: the element type is one a DTensor can
    hold (f16, bf16, f32, f64, f8E4M3FN, f8E5M2, or an 8-, 32- or 64-bit
    integer: the types its collectives move as whole elements); at least one
    placement; every entry is a placement attribute (an ODS constraint);
    every `shard<d>` has `d < rank`. Checked by the ops
    that use the type (the mesh is a symbol, so types cannot see it): the mesh
    exists and the number of placements equals the mesh rank.

    The local type per rank follows torch.chunk (see `shard`); a dim whose
    chunks differ across coordinates is dynamic (`?`) in the local type.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "global shape">:$shape,
    "::mlir::Type":$elementType,
    "::mlir::FlatSymbolRefAttr":$mesh,
    DTensor_PlacementArrayAttr:$placements
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRank() const { return getShape().size(); }
    /// Placements as typed attributes, one per mesh dim.
    ::llvm::SmallVector<::hp::dtensor::PlacementAttrInterface> getPlacementList() const;
    /// The same global tensor with other placements.
    DTensorType withPlacements(::mlir::ArrayAttr placements) const;
  }];
}

#endif // HP_DIALECT_DTENSOR_IR_DTENSORTYPES_TD
