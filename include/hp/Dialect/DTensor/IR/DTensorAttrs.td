//===- DTensorAttrs.td - placement attributes --------------*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_IR_DTENSORATTRS_TD
#define HP_DIALECT_DTENSOR_IR_DTENSORATTRS_TD

include "hp/Dialect/DTensor/IR/DTensorBase.td"

def DTensor_PlacementAttrInterface : AttrInterface<"PlacementAttrInterface"> {
  let cppNamespace = "::hp::dtensor";
  let description = [{
    Implemented by the attributes that describe how a tensor is laid out along
    one mesh dimension: `shard<d>`, `replicate` and `partial<op>`.
  }];
}

class DTensor_Placement<string name, string attrMnemonic>
    : AttrDef<DTensor_Dialect, name, [DTensor_PlacementAttrInterface]> {
  let mnemonic = attrMnemonic;
}

def DTensor_ShardAttr : DTensor_Placement<"Shard", "shard"> {
  let summary = "tensor dim split across one mesh dimension (torch `Shard(d)`)";
  let description = [{
    `#dtensor.shard<d>`: tensor dimension `d` is split across the mesh
    dimension in torch.chunk fashion: with global size `G` over `n` parts the
    chunk is `ceil(G/n)` and coordinate `i` holds
    `clamp(G - i*chunk, 0, chunk)` elements. Several mesh dims may shard the
    same tensor dim; they nest in mesh-dim order (mesh dim 0 outermost).

    Constraints: `d >= 0`; `d` is less than the rank of the tensor it
    describes (checked where the tensor is known).
  }];
  let parameters = (ins "int64_t":$dim);
  let assemblyFormat = "`<` $dim `>`";
  let genVerifyDecl = 1;
}

def DTensor_ReplicateAttr : DTensor_Placement<"Replicate", "replicate"> {
  let summary = "full copy on every coordinate (torch `Replicate()`)";
  let description = [{
    `#dtensor.replicate`: every coordinate of the mesh dimension holds the
    whole tensor (along that mesh dimension).
  }];
}

def DTensor_PartialAttr : DTensor_Placement<"Partial", "partial"> {
  let summary = "pending reduction across one mesh dimension (torch `Partial(op)`)";
  let description = [{
    `#dtensor.partial<op>`: every coordinate holds a full-shape partial value;
    the logical tensor is the `op`-reduction of them. `op` is one of
    `sum | avg | max | min | prod`.
  }];
  let parameters = (ins EnumParameter<DTensor_ReduceOp>:$reduceOp);
  let assemblyFormat = "`<` $reduceOp `>`";
}

def DTensor_ShardingAttr : AttrDef<DTensor_Dialect, "Sharding"> {
  let mnemonic = "sharding";
  let summary = "how a local function boundary value is laid out globally";
  let description = [{
    `#dtensor.sharding<@mesh, [shard<0>, replicate], global = [8, 16]>`

    `convert-dtensor-to-shard` attaches it (as `dtensor.sharding`) to every function
    argument and result that was a `!dtensor.tensor`, so that launchers and
    users know which block of the global tensor each rank passes or receives.

    Constraints: at least one placement, each a placement attribute; shard
    dims below the rank of `global`; global sizes non-negative.
  }];
  let parameters = (ins
    "::mlir::FlatSymbolRefAttr":$mesh,
    "::mlir::ArrayAttr":$placements,
    ArrayRefParameter<"int64_t", "global shape">:$globalShape
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // HP_DIALECT_DTENSOR_IR_DTENSORATTRS_TD
