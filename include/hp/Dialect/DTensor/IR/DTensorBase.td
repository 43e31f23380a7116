//===- DTensorBase.td - dtensor dialect and enums ----------*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_IR_DTENSORBASE_TD
#define HP_DIALECT_DTENSOR_IR_DTENSORBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def DTensor_Dialect : Dialect {
  let name = "dtensor";
  let cppNamespace = "::hp::dtensor";
  let summary = "Distributed tensors over device meshes, with local regions";
  let description = [{
    The `dtensor` dialect models PyTorch/hyper_parallel DTensor programs in their
    *global view*: a `!dtensor.tensor` value is one logical tensor laid out on a
    `dtensor.mesh` by one placement per mesh dimension (`shard<d>`,
    `replicate`, `partial<op>`). `dtensor.local_region` holds plain local
    computation behind a named, statically checked placement contract.

    See `docs/DTensorDialect.md` for the semantics and the mapping to
    hyper_parallel and PyTorch.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasCanonicalizer = 0;
  // What a shard.grid converted from a dtensor.mesh keeps of it: the axis
  // names (strings) and a non-default device list (row-major ranks); and
  // on the shard.send/shard.recv ops of one planned permute, the group they
  // are issued in together (convert-shard-to-nccl makes it one nccl.group);
  // on an op of a dtensor.global_region body, the strategy
  // dtensor-choose-strategies chose for it. On functions, their arguments
  // and results (a frontend's annotations, dtensor-globalize's input): the
  // mesh, placements, pins, parameter names, FSDP axes and the boundary
  // shardings convert-dtensor-to-shard records. All are verified by the
  // dialect (DiscardableAttrs.cpp).
  let discardableAttrs = (ins
    "::mlir::ArrayAttr":$axis_names,
    "::mlir::DenseI64ArrayAttr":$devices,
    "::mlir::IntegerAttr":$p2p_group,
    "::mlir::Attribute":$strategy,
    "::mlir::FlatSymbolRefAttr":$mesh,
    "::mlir::ArrayAttr":$placements,
    "::mlir::ArrayAttr":$constrain,
    "::mlir::StringAttr":$arg_name,
    "::mlir::DenseI64ArrayAttr":$fsdp_axes,
    "::mlir::Attribute":$sharding
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

def DTensor_ReduceOp : I32EnumAttr<"ReduceOp",
    "reduction that resolves a Partial placement", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Avg", 1, "avg">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">,
  I32EnumAttrCase<"Prod", 4, "prod">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::hp::dtensor";
  // As an op's attribute of its own (dtensor.scan's kind), an IntegerAttr
  // that reads and builds as the enum.
  let returnType = "::hp::dtensor::ReduceOp";
  let convertFromStorage =
      "static_cast<::hp::dtensor::ReduceOp>($_self.getValue().getZExtValue())";
  let constBuilderCall =
      "$_builder.getI32IntegerAttr(static_cast<int32_t>($0))";
}

#endif // HP_DIALECT_DTENSOR_IR_DTENSORBASE_TD
