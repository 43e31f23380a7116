//===- DTensorAttrs.td - placement attributes --------------*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_IR_DTENSORATTRS_TD
#define HP_DIALECT_DTENSOR_IR_DTENSORATTRS_TD

include "hp/Dialect/DTensor/IR/DTensorBase.td"

def DTensor_PlacementAttrInterface : AttrInterface<"PlacementAttrInterface"> {
  let cppNamespace = "::hp::dtensor";
  let description = [{
    Implemented by the attributes that describe how a tensor is laid out along
    one mesh dimension: `shard<d>`, `strided_shard<d, f>`, `replicate` and
    `partial<op>`. Code asks a placement what it does through these methods
    rather than by casting to each kind.
  }];
  let methods = [
    InterfaceMethod<[{
        The tensor dim this placement splits (`shard`, `strided_shard`), or
        none.
      }], "std::optional<int64_t>", "getShardedDim", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The split factor of a `strided_shard`, or none for the other kinds
        (a `shard` included).
      }], "std::optional<int64_t>", "getStridedSplitFactor", (ins), "",
      [{ return std::nullopt; }]>,
    InterfaceMethod<[{
        The reduction a `partial` placement is pending, or none.
      }], "std::optional<::hp::dtensor::ReduceOp>", "getPendingReduceOp",
      (ins), "", [{ return std::nullopt; }]>,
    InterfaceMethod<"Whether this is `replicate`.", "bool", "isReplicate",
      (ins), "", [{ return false; }]>,
  ];
  let extraClassDeclaration = [{
    bool isSharded() { return getShardedDim().has_value(); }
    bool isStridedShard() { return getStridedSplitFactor().has_value(); }
    bool isPartial() { return getPendingReduceOp().has_value(); }
  }];
}

/// A list of placements, one per mesh dimension; checked by ODS wherever an
/// op attribute or an attribute/type parameter is one.
def DTensor_PlacementArrayAttr
    : TypedArrayAttrBase<DTensor_PlacementAttrInterface, "list of placements"> {
  string cppType = "::mlir::ArrayAttr";
}

/// A declaration of `in_placements` or `out_placements`: a placement list,
/// or `none`.
def DTensor_PlacementListOrNone
    : AnyAttrOf<[DTensor_PlacementArrayAttr, UnitAttr],
                "placement list or none">;

/// `in_placements` of local_region and local_call: argument names to a
/// placement list or `none`.
def DTensor_InPlacementsAttr
    : DictionaryAttrBase<
          And<[CPred<"::llvm::isa<::mlir::DictionaryAttr>($_self)">,
               Concat<"::llvm::all_of(::llvm::cast<::mlir::DictionaryAttr>("
                      "$_self), [&](::mlir::NamedAttribute entry) { "
                      "::mlir::Attribute attr = entry.getValue(); return (",
                      SubstLeaves<"$_self", "attr",
                                  DTensor_PlacementListOrNone.predicate>,
                      "); })">]>,
          "dictionary of names to placement lists or none">;

/// `out_placements` of local_region and local_call: one placement list or
/// `none` per output. The flat form of the syntax (`[shard<0>]` for a single
/// output, as hyper_parallel writes it) is stored as `[[shard<0>]]`.
def DTensor_OutPlacementsAttr
    : TypedArrayAttrBase<DTensor_PlacementListOrNone,
                         "one placement list or none per output">;

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
  let extraClassDeclaration = [{
    std::optional<int64_t> getShardedDim() const { return getDim(); }
  }];
}

def DTensor_StridedShardAttr
    : DTensor_Placement<"StridedShard", "strided_shard"> {
  let summary = "tensor dim split in strided chunks (torch `_StridedShard`)";
  let description = [{
    `#dtensor.strided_shard<d, f>` (`strided_shard<d, f>` in placement
    lists): on a mesh dimension of size `n`, tensor dimension `d` of the
    block held so far is cut into `n * f` chunks (torch.chunk rules) and
    coordinate `i` holds chunks `i, i + n, ..., i + (f - 1) * n`,
    concatenated in that order. Later mesh dimensions that shard `d` split
    that block as usual. On `(dp, tp)`, `[strided_shard<0, |tp|>, shard<0>]`
    is the layout FSDP builds over a tensor-parallel shard: device `(i, j)`
    holds chunk `i + j * |dp|`, as if `tp` split the dim first.

    hp reads it as a nesting order: `f` must be the product of the sizes of
    the later mesh dimensions that shard `d`, and the strided axis then
    splits inside them (right to left). Where `f > 1`, the global size of
    `d` must divide evenly over all the mesh dimensions that shard it: on
    uneven sizes torch's own definitions of this layout disagree (its
    chunking puts `arange(5)` on a 2x2 mesh as `[0,1] [4] [2] [3]`, the
    right-to-left layout FSDP builds and gathers back is
    `[0,1] [3] [2] [4]`), so hp refuses them with an error.

    Constraints: `d >= 0`, `f >= 1`; the rules above are checked where the
    mesh and the tensor are known. `strided_shard<d, 1>` lays out like
    `shard<d>`.
  }];
  let parameters = (ins "int64_t":$dim, "int64_t":$splitFactor);
  let assemblyFormat = "`<` $dim `,` $splitFactor `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    std::optional<int64_t> getShardedDim() const { return getDim(); }
    std::optional<int64_t> getStridedSplitFactor() const {
      return getSplitFactor();
    }
  }];
}

def DTensor_ReplicateAttr : DTensor_Placement<"Replicate", "replicate"> {
  let summary = "full copy on every coordinate (torch `Replicate()`)";
  let description = [{
    `#dtensor.replicate`: every coordinate of the mesh dimension holds the
    whole tensor (along that mesh dimension).
  }];
  let extraClassDeclaration = [{
    bool isReplicate() const { return true; }
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
  let extraClassDeclaration = [{
    std::optional<ReduceOp> getPendingReduceOp() const {
      return getReduceOp();
    }
  }];
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
    DTensor_PlacementArrayAttr:$placements,
    ArrayRefParameter<"int64_t", "global shape">:$globalShape
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def DTensor_StrategyAttr : AttrDef<DTensor_Dialect, "Strategy"> {
  let mnemonic = "strategy";
  let summary = "the strategy chosen for an op of a dtensor.global_region";
  let description = [{
    `#dtensor.strategy<[[shard<0>, replicate], [replicate, replicate]] -> [[shard<0>, replicate]], loops = [0, -1]>`

    `dtensor-choose-strategies` leaves one on every op of a
    `dtensor.global_region` body that it places (as the `dtensor.strategy`
    attribute), and a user may write one to pin an op;
    `dtensor-apply-strategies` rewrites by it. The lists are the
    placements of the op's tensor operands, then of its tensor results, one
    placement per mesh axis; `loops` gives, per mesh axis, the loop the op
    shards there (for shape ops the result dim) or -1 for none. An
    annotation is checked, not trusted: both passes take it only if it is
    one of the op's strategies, and then keep it (the chooser places the
    other ops given it).

    Constraints: at least one mesh axis (`loops`), every list a placement
    list of that many placements, every loop at least -1.
  }];
  let parameters = (ins
    "::mlir::ArrayAttr":$operands,
    "::mlir::ArrayAttr":$results,
    ArrayRefParameter<"int64_t", "the loop sharded per mesh axis">:$loops
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // HP_DIALECT_DTENSOR_IR_DTENSORATTRS_TD
