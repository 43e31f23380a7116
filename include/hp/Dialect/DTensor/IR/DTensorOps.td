//===- DTensorOps.td - dtensor operations ------------------*- tablegen -*-===//

#ifndef HP_DIALECT_DTENSOR_IR_DTENSOROPS_TD
#define HP_DIALECT_DTENSOR_IR_DTENSOROPS_TD

include "hp/Dialect/DTensor/IR/DTensorBase.td"
include "hp/Dialect/DTensor/IR/DTensorAttrs.td"
include "hp/Dialect/DTensor/IR/DTensorTypes.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"

class DTensor_Op<string mnemonic, list<Trait> traits = []>
    : Op<DTensor_Dialect, mnemonic, traits>;

def DTensor_AnyDTensor : Type<CPred<"::llvm::isa<::hp::dtensor::DTensorType>($_self)">,
    "dtensor", "::hp::dtensor::DTensorType">;

//===----------------------------------------------------------------------===//
// mesh
//===----------------------------------------------------------------------===//

def DTensor_MeshOp : DTensor_Op<"mesh", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "a named device mesh";
  let description = [{
    ```mlir
    dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
    dtensor.mesh @tp shape = [4]                              // names d0, d1, ...
    dtensor.mesh @odd shape = [2, 2] devices = [0, 2, 1, 3]  // row-major ranks
    ```
    A module-level symbol describing an n-dimensional grid of devices.

    Constraints: the op sits directly in a `builtin.module`; `shape` is
    non-empty and every size is >= 1; `names`, when given, has one entry per
    dimension, each non-empty and unique (default `d0, d1, ...`); `devices`,
    when given, lists one rank per mesh coordinate in row-major order and is a
    permutation of a contiguous rank range `[b, b + prod(shape))`, `b >= 0`
    (default: the iota `0 .. prod(shape)-1`).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       DenseI64ArrayAttr:$shape,
                       OptionalAttr<StrArrayAttr>:$names,
                       OptionalAttr<DenseI64ArrayAttr>:$devices);
  let assemblyFormat = [{
    $sym_name `shape` `=` $shape (`names` `=` $names^)? (`devices` `=` $devices^)?
    attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getRank() { return getShape().size(); }
    int64_t getNumDevices();
    /// Axis names, defaulted to d0, d1, ... when not given.
    ::llvm::SmallVector<std::string> getAxisNames();
    /// Rank of the device at a row-major linear mesh index.
    int64_t getDeviceRank(int64_t linearIndex);
  }];
}

//===----------------------------------------------------------------------===//
// from_local / to_local / redistribute
//===----------------------------------------------------------------------===//

def DTensor_FromLocalOp : DTensor_Op<"from_local",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "wrap this rank's local tensor as a DTensor";
  let description = [{
    ```mlir
    %d = dtensor.from_local %t : tensor<4x16xf32> -> !dtensor.tensor<8x16xf32, @tp2, [shard<0>]>
    ```
    The inverse of `to_local`, as torch `DTensor.from_local(..., run_check=False)`.

    Constraints: the mesh exists and has one placement per dimension; the
    input type is exactly the local type of the result (torch.chunk sizes,
    dynamic where chunks differ across ranks).
  }];
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs DTensor_AnyDTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasFolder = 1;
}

def DTensor_ToLocalOp : DTensor_Op<"to_local",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "this rank's local tensor of a DTensor";
  let description = [{
    ```mlir
    %t = dtensor.to_local %d : !dtensor.tensor<8x16xf32, @tp2, [shard<0>]> -> tensor<4x16xf32>
    ```
    Constraints: as for `from_local`, the result type is exactly the local
    type of the input.
  }];
  let arguments = (ins DTensor_AnyDTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasFolder = 1;
}

def DTensor_RedistributeOp : DTensor_Op<"redistribute",
    [Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "change the placements of a DTensor";
  let description = [{
    ```mlir
    %r = dtensor.redistribute %d : !dtensor.tensor<8x16xf32, @m, [shard<0>, replicate]>
                                 -> !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>
    ```
    Same global value, other layout. Per mesh dim: S(d)->R all_gather,
    P->R all_reduce, P->S reduce_scatter, S(a)->S(b) all_to_all, R->S local
    chunk, R->P local (coordinate 0 keeps the value for sum/prod), S->P via R.

    Constraints: same global shape, element type and mesh on both sides; the
    mesh exists with one placement per dimension; no mesh dim goes from
    `partial<a>` to `partial<b>` with `a != b`.

    Folds when the types are equal; a chain of two redistributes becomes one
    when the combined step is legal.
  }];
  let arguments = (ins DTensor_AnyDTensor:$input);
  let results = (outs DTensor_AnyDTensor:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// local_region
//===----------------------------------------------------------------------===//

def DTensor_LocalRegionOp : DTensor_Op<"local_region", [
    IsolatedFromAbove, SingleBlock, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "local computation behind a named placement contract";
  let description = [{
    ```mlir
    %y, %n = dtensor.local_region on @mesh
        args(%x as "hidden_states", %b as "bias")
        in_placements = {hidden_states = [replicate, replicate]}
        out_placements = [[partial<sum>, replicate], none]
        redistribute_inputs
        : (!dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>, tensor<16xf32>)
       -> (!dtensor.tensor<8x16xf32, @mesh, [partial<sum>, replicate]>, i64) {
    ^bb0(%hs: tensor<8x16xf32>, %bias: tensor<16xf32>):
      ...
      dtensor.yield %out, %count : tensor<8x16xf32>, i64
    }
    ```
    hyper_parallel's `local_region` / torch's `local_map` as an op. Every
    operand has a unique name. `in_placements` maps names to a placement list
    or `none` (no declaration); a name with no operand is an optional argument
    that was not passed.

    * A non-DTensor operand enters the body unchanged; a DTensor operand
      enters as its local tensor, under its declared placement when
      `redistribute_inputs` is set. Without `redistribute_inputs`, a declared
      placement that differs from the operand's is an error.
    * If no operand is a DTensor, or `out_placements` is absent, the results
      are exactly the yielded values.
    * Otherwise each yielded tensor is wrapped with its `out_placements`
      entry; a yielded DTensor is never re-wrapped; a `none` entry passes a
      non-tensor value through.
    * `out_placements` has one placement list or `none` per output. A
      single output's list may be written *flat*, `[shard<0>, replicate]`
      for `[[shard<0>, replicate]]` (hyper_parallel's form); it is stored
      and printed per output, except that one output's list prints flat.

    The body is isolated from above; block arguments have the local types.

    `out_placements` is checked, not trusted: `dtensor-check-contracts` (the
    first pass of every hp pipeline) refuses a `replicate` claim over a mesh
    axis the yielded value varies over. `unchecked` (printed after
    `redistribute_inputs`) turns that check off for bodies the analysis
    cannot see through.
  }];
  let arguments = (ins Variadic<AnyType>:$args,
                       FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$arg_names,
                       OptionalAttr<DTensor_InPlacementsAttr>:$in_placements,
                       OptionalAttr<DTensor_OutPlacementsAttr>:$out_placements,
                       UnitAttr:$redistribute_inputs,
                       UnitAttr:$unchecked);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `on` $mesh `args` `` custom<NamedArgs>($args, $arg_names)
    (`in_placements` `=` custom<InPlacements>($in_placements)^)?
    (`out_placements` `=` custom<OutPlacements>($out_placements)^)?
    (`redistribute_inputs` $redistribute_inputs^)?
    (`unchecked` $unchecked^)?
    attr-dict-with-keyword `:` functional-type($args, results) $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The out_placements entry of output `i`: a placement list, or null for
    /// `none`. Requires out_placements to be present.
    ::mlir::ArrayAttr getOutPlacementsFor(unsigned i);
    /// The in_placements entry declared for operand `i`, or null.
    ::mlir::ArrayAttr getDeclaredInPlacements(unsigned i);
    /// Whether the region wraps its outputs (some operand is a DTensor, or
    /// the region is in global view, and out_placements is present).
    bool wrapsOutputs();
    /// Whether the region sits in a dtensor.global_region body (not inside
    /// another local_region there): its tensor operands and results are
    /// global values laid out as in_placements and out_placements declare.
    bool isGlobalView();
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
  }];
}

def DTensor_LocalCallOp : DTensor_Op<"local_call", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<CallOpInterface>]> {
  let summary = "a call of a local function behind a named placement contract";
  let description = [{
    ```mlir
    func.func @scale_add(%a: tensor<2x8xf32> {dtensor.arg_name = "x"},
                         %s: f32 {dtensor.arg_name = "scale"}) -> tensor<2x8xf32>
    %y = dtensor.local_call @scale_add(%r, %k) on @tp
        in_placements = {x = [shard<0>]} out_placements = [shard<0>]
        redistribute_inputs
        : (!dtensor.tensor<8x8xf32, @tp, [replicate]>, f32)
       -> !dtensor.tensor<8x8xf32, @tp, [shard<0>]>
    ```
    The decorator form of `dtensor.local_region` (hyper_parallel's
    `local_region(fn, ...)`, torch's `local_map(fn, ...)`): many call sites
    share one local function. The callee's arguments are named by their
    `dtensor.arg_name` attributes, as `inspect.signature` names a Python
    function's parameters; an argument without one can be matched by no
    `in_placements` entry and passes through. Every local_region rule applies,
    with the callee's signature in place of the body's block arguments and
    yield: its argument types must be the local types, its results are
    wrapped by `out_placements`. `unchecked` turns off
    `dtensor-check-contracts`, which checks the callee's body.

    It is a `CallOpInterface` op, so the call graph and interprocedural
    analyses see the callee as called from here. Its operands are the call's
    arguments as they are given, before the contract's unwrapping (a DTensor
    operand enters the callee as its local tensor), and a wrapped result is
    not the callee's value itself. `dtensor` has no inliner interface, so the
    inliner leaves the call alone. `arg_attrs` and `res_attrs` are the
    interface's per-argument and per-result attributes, unused by hp.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyType>:$args,
                       FlatSymbolRefAttr:$mesh,
                       OptionalAttr<DTensor_InPlacementsAttr>:$in_placements,
                       OptionalAttr<DTensor_OutPlacementsAttr>:$out_placements,
                       UnitAttr:$redistribute_inputs,
                       UnitAttr:$unchecked,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` `on` $mesh
    (`in_placements` `=` custom<InPlacements>($in_placements)^)?
    (`out_placements` `=` custom<OutPlacements>($out_placements)^)?
    (`redistribute_inputs` $redistribute_inputs^)?
    (`unchecked` $unchecked^)?
    attr-dict `:` functional-type($args, results)
  }];
  let extraClassDeclaration = [{
    /// The `dtensor.arg_name` attribute that names callee arguments.
    static ::llvm::StringRef getArgNameAttrName() {
      return DTensorDialect::ArgNameAttrHelper::getNameStr();
    }
  }];
}

//===----------------------------------------------------------------------===//
// global_region and constrain
//===----------------------------------------------------------------------===//

def DTensor_GlobalRegionOp : DTensor_Op<"global_region", [
    IsolatedFromAbove, SingleBlock, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a whole program on global tensors, placed by propagation";
  let description = [{
    ```mlir
    %y = dtensor.global_region on @tp args(%x, %w1, %w2)
        : (!dtensor.tensor<16x32xf32, @tp, [shard<0>]>,
           !dtensor.tensor<32x128xf32, @tp, [shard<1>]>,
           !dtensor.tensor<128x32xf32, @tp, [shard<0>]>)
       -> !dtensor.tensor<16x32xf32, @tp, [shard<0>]> {
    ^bb0(%gx: tensor<16x32xf32>, %gw1: tensor<32x128xf32>, %gw2: tensor<128x32xf32>):
      ... ordinary ops on global tensors (linalg, tensor, arith, math) ...
      %hr = dtensor.constrain %h [replicate] : tensor<16x128xf32>
      dtensor.yield %out : tensor<16x32xf32>
    }
    ```
    The mirror of `dtensor.local_region`: the body sees each DTensor operand
    as its **global** tensor (same shape and element type, no placements) and
    yields global tensors, which take the result types' placements. Other
    operands (scalars, plain tensors) enter unchanged; a non-DTensor result is
    the yielded value itself. The body with every mesh of size 1 is the
    single-device program.

    Only inside a global_region does a builtin tensor mean a global value;
    outside, a plain tensor is per-rank data as everywhere else in hp. Where
    each intermediate value lives is chosen by `dtensor-propagate`, which
    rewrites the region into local_regions and redistributes (validate view);
    `dtensor.constrain` pins a value's placements, and a `dtensor.local_region`
    in the body (with an `in_placements` entry for every tensor operand and
    `out_placements` for every tensor result) runs per-rank code on values
    laid out as it declares.

    Constraints: one block whose arguments are the operands' global types,
    ending in `dtensor.yield` with one value per result (the result's global
    type for a DTensor result, the result type otherwise); DTensor operands
    and results on the region's mesh; not nested in another global_region
    (whose body is already global view).
  }];
  let arguments = (ins Variadic<AnyType>:$args, FlatSymbolRefAttr:$mesh);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The type a value of `type` has inside a global_region body: a DTensor
    /// as its global tensor, anything else unchanged.
    static ::mlir::Type getGlobalType(::mlir::Type type);
  }];
}

def DTensor_ConstrainOp : DTensor_Op<"constrain", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "pins a global value's placements inside a global_region";
  let description = [{
    ```mlir
    %hr = dtensor.constrain %h [replicate] : tensor<16x128xf32>
    ```
    torch's `redistribute` in the middle of a program, Shardy's
    `sdy.sharding_constraint`: the result is the input, laid out with these
    placements. Propagation treats it as a hard constraint. The value itself
    does not change, so without propagation (one device) it is the identity.

    A partial placement holds the value as pieces whose reduction is the
    value (torch's `redistribute` to `Partial`): any value may take one, as
    any replicated value becomes a partial by a local step (for `sum` and
    `prod` coordinate 0 keeps it and the others hold the identity; for
    `avg`, `max` and `min` every coordinate keeps it). Users that need the
    value itself get it reduced.

    Constraints: inside a `dtensor.global_region` (at any depth), not inside
    a local_region there; one placement per dim of the region's mesh; shard
    dims within the tensor's rank.
  }];
  let arguments = (ins AnyRankedTensor:$input,
                       DTensor_PlacementArrayAttr:$placements);
  let results = (outs AnyRankedTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def DTensor_YieldOp : DTensor_Op<"yield",
    [Pure, Terminator, ReturnLike,
     ParentOneOf<["LocalRegionOp", "GlobalRegionOp"]>]> {
  let summary = "the values a local_region or global_region produces";
  let description = [{
    Terminates a `dtensor.local_region` body, whose operands become the
    region's outputs, wrapped as its `out_placements` say; or a
    `dtensor.global_region` body, whose operands are the global values of the
    region's results.

    Constraints (checked by the parent): as many values as the region has
    results, each matching its result under the wrapping rules.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def DTensor_ReduceOpAttr : EnumAttr<DTensor_Dialect, DTensor_ReduceOp, "reduce_op"> {
  let assemblyFormat = "$value";
}

//===----------------------------------------------------------------------===//
// Compute ops with a placement rule of their own
//===----------------------------------------------------------------------===//

def DTensor_ScanOp : DTensor_Op<"scan", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "inclusive scan (running sum, product, max or min) along a dim";
  let description = [{
    ```mlir
    %c = dtensor.scan sum %x dim = 1 : tensor<4x1024xf32>
    %d = dtensor.scan sum %x dim = 1 from %p : tensor<4x1xf64> : tensor<4x1024xf32>
    ```
    `result[..., i, ...]` combines `input[..., 0, ...]` to `input[..., i, ...]`
    along `dim` with `kind` (torch's `cumsum`, `cumprod`, and the values of
    `cummax` and `cummin`), in index order, starting from `init` (one value
    per row, the dim of size 1) or else from the kind's identity. The running
    value is carried as torch's CPU kernels carry it: f16 and bf16 in f32,
    f32 in f64, other types in their own; each element is that value
    rounded to the element type. `init` has the carried type.

    hp.torch writes torch-mlir's `tm_tensor.scan` of a `cumsum` or
    `cumprod` as this op. Unlike a loop, it has a placement rule
    (docs/Propagation.md, "Scans"): split along `dim`, each rank scans its
    piece from the combined totals of the pieces before it (an all_gather
    of one value per row); split along another dim it runs on each piece; a
    `partial<sum>` passes through a `sum`. On local tensors
    `dtensor-lower-scans` makes it a loop, linear in time and memory.

    Constraints: `dim` within the input's rank; `kind` one of
    `sum | prod | max | min` (in the generic form the reduce op's value as
    an i32: sum 0, max 2, min 3, prod 4); a signless integer element type
    other than i1 (torch promotes a boolean cumsum to int64), or f16, bf16,
    f32, f64;
    `init` shaped as the input with `dim` of size 1, of the carried element
    type.
  }];
  // `kind` is stored as an integer (`kind = 0 : i32` in the generic form),
  // so that a context without hp's dialect (torch-mlir's, where hp.torch
  // builds the op) can build it without spelling hp's attribute syntax.
  let arguments = (ins AnyRankedTensor:$input, DTensor_ReduceOp:$kind,
                       I64Attr:$dim, Optional<AnyRankedTensor>:$init);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $kind $input `dim` `=` $dim (`from` $init^ `:` type($init))? attr-dict
    `:` type($input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The type the running value of a scan of `element`s is carried in.
    static ::mlir::Type getCarriedType(::mlir::Type element);
    /// Where a row's running value starts: the value `kind` leaves
    /// unchanged on `element` (+0.0 for a float sum, as torch's CPU kernel
    /// starts).
    static ::mlir::TypedAttr getIdentity(::hp::dtensor::ReduceOp kind,
                                         ::mlir::Type element);
    /// `acc` combined with `x` by `kind` (signed for integers; float max
    /// and min propagate NaN, as torch's cummax and cummin do).
    static ::mlir::Value buildCombine(::mlir::OpBuilder &b,
                                      ::mlir::Location loc,
                                      ::hp::dtensor::ReduceOp kind,
                                      ::mlir::Value acc, ::mlir::Value x);
    /// `v` converted between float types (extf or truncf); `v` itself when
    /// it has `type` already.
    static ::mlir::Value buildFloatCast(::mlir::OpBuilder &b,
                                        ::mlir::Location loc,
                                        ::mlir::Type type, ::mlir::Value v);
  }];
}

def DTensor_SortOp : DTensor_Op<"sort", [Pure,
    AllTypesMatch<["input", "values"]>]> {
  let summary = "stable sort along a dim: the values and their indices";
  let description = [{
    ```mlir
    %v, %i = dtensor.sort %x dim = 1 descending : tensor<4x1024xf32> -> tensor<4x1024xi64>
    ```
    Each row along `dim` sorted ascending (or `descending`) as torch sorts:
    integers signed, booleans (i1) false first, NaN after every number
    ascending and before every number descending,
    equal elements (and NaNs) in index order (a stable sort, which torch's
    `sort(stable=True)` asks for and its default sort allows). `indices`
    holds each value's position in its row of the input. hp.torch writes
    torch-mlir's `tm_tensor.sort` of a `sort` or `topk` (the first k
    values, a slice of the sort) as this op. Its placement rule: any other
    dim may be split (each rank sorts its rows); the sorted dim is whole.
    On local tensors `dtensor-lower-sorts` makes it a radix sort: a pass
    per byte of the element, time and memory linear in the input (a topk,
    the first k of each row, a selection in one pass).

    Constraints: `dim` within the input's rank; a signless integer element
    type of at most 64 bits, or f16, bf16, f32, f64; `indices` of the
    input's shape with i64 elements.
  }];
  let arguments = (ins AnyRankedTensor:$input, I64Attr:$dim,
                       UnitAttr:$descending);
  let results = (outs AnyRankedTensor:$values, AnyRankedTensor:$indices);
  let assemblyFormat = [{
    $input `dim` `=` $dim (`descending` $descending^)? attr-dict `:`
    type($input) `->` type($indices)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives on local tensors, naming mesh axes
//===----------------------------------------------------------------------===//

class DTensor_AxisCollective<string mnemonic, list<Trait> traits = []>
    : DTensor_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>])> {
  code commonDescription = [{
    Communication inside a local region, on this rank's *local* tensor. The
    group is the ranks that share this rank's coordinates on every mesh axis
    not in `axes`; listed axes are ranked row-major in the listed order (the
    first is outermost), which is the order of concatenation and splitting.
    `convert-dtensor-to-shard` maps the op one to one onto the `shard` op of the
    same name with `grid_axes` in the listed order.

    Constraints: the mesh exists; every name in `axes` is one of its axis
    names, listed once; the element types agree.
  }];
}

def DTensor_AllGatherOp : DTensor_AxisCollective<"all_gather", [Pure]> {
  let summary = "concatenate the group's local tensors along an axis";
  let description = [{
    ```mlir
    %g = dtensor.all_gather %t on @mesh axes = ["tp"] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
    ```
    Result constraint: `gather_axis` is the input's size times the group
    size, other dims unchanged.
  }] # commonDescription;
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, IndexAttr:$gather_axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `gather_axis` `=` $gather_axis
    attr-dict `:` type($input) `->` type($result)
  }];
}

def DTensor_AllReduceOp : DTensor_AxisCollective<"all_reduce", [Pure]> {
  let summary = "reduce the group's local tensors elementwise";
  let description = [{
    ```mlir
    %s = dtensor.all_reduce %t on @mesh axes = ["dp", "tp"] reduction = sum : tensor<8x16xf32> -> tensor<8x16xf32>
    ```
    Result constraint: the input's type. `reduction` is one of
    `sum | avg | max | min | prod`.
  }] # commonDescription;
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, DTensor_ReduceOpAttr:$reduction);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `reduction` `=` $reduction
    attr-dict `:` type($input) `->` type($result)
  }];
}

def DTensor_ReduceScatterOp : DTensor_AxisCollective<"reduce_scatter", [Pure]> {
  let summary = "reduce the group's tensors and keep this rank's block";
  let description = [{
    ```mlir
    %c = dtensor.reduce_scatter %t on @mesh axes = ["tp"] reduction = sum scatter_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
    ```
    Result constraint: `scatter_axis` is the input's size divided by the
    group size (which must divide it), other dims unchanged.
  }] # commonDescription;
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, DTensor_ReduceOpAttr:$reduction,
                       IndexAttr:$scatter_axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `reduction` `=` $reduction
    `scatter_axis` `=` $scatter_axis attr-dict `:` type($input) `->` type($result)
  }];
}

def DTensor_AllToAllOp : DTensor_AxisCollective<"all_to_all", [Pure]> {
  let summary = "split along one axis, exchange, concatenate along another";
  let description = [{
    ```mlir
    %r = dtensor.all_to_all %t on @mesh axes = ["ep"] split_axis = 0 concat_axis = 1 : tensor<8x2x4xf32> -> tensor<4x4x4xf32>
    ```
    Block `j` of `split_axis` goes to group rank `j`; the received blocks are
    concatenated along `concat_axis` in rank order.

    Result constraint: `split_axis` divided by the group size (which must
    divide it), `concat_axis` multiplied by it (both when they are the same
    axis: unchanged), other dims unchanged.
  }] # commonDescription;
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, IndexAttr:$split_axis,
                       IndexAttr:$concat_axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `split_axis` `=` $split_axis
    `concat_axis` `=` $concat_axis attr-dict `:` type($input) `->` type($result)
  }];
}

def DTensor_ShiftOp : DTensor_AxisCollective<"shift", [Pure]> {
  let summary = "pass local tensors along a ring of one mesh axis";
  let description = [{
    ```mlir
    %n = dtensor.shift %t on @mesh axes = ["cp"] offset = 1 rotate : tensor<8x16xf32> -> tensor<8x16xf32>
    ```
    Coordinate `c` on the axis receives the tensor of coordinate
    `c - offset`. With `rotate` the ring wraps around; without it, the
    ranks with no source hold an undefined value.

    Result constraint: the input's type; exactly one axis.
  }] # commonDescription;
  let arguments = (ins AnyRankedTensor:$input, FlatSymbolRefAttr:$mesh,
                       StrArrayAttr:$axes, I64Attr:$offset, UnitAttr:$rotate);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $input `on` $mesh `axes` `=` $axes `offset` `=` $offset (`rotate` $rotate^)?
    attr-dict `:` type($input) `->` type($result)
  }];
}

def DTensor_AxisIndexOp : DTensor_Op<"axis_index", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "this rank's coordinate on a named mesh axis";
  let description = [{
    ```mlir
    %i = dtensor.axis_index @mesh "ep" : index
    ```
    Constraints: the mesh exists and has an axis of that name.
  }];
  let arguments = (ins FlatSymbolRefAttr:$mesh, StrAttr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$mesh $axis attr-dict `:` type($result)";
}

#endif // HP_DIALECT_DTENSOR_IR_DTENSOROPS_TD
