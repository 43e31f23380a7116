//===- NCCLOps.td - nccl operations ------------------------*- tablegen -*-===//

#ifndef HP_DIALECT_NCCL_IR_NCCLOPS_TD
#define HP_DIALECT_NCCL_IR_NCCLOPS_TD

include "hp/Dialect/NCCL/IR/NCCLBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class NCCL_Op<string mnemonic, list<Trait> traits = []>
    : Op<NCCL_Dialect, mnemonic, traits>;

def NCCL_GridOp : NCCL_Op<"grid", [Symbol, HasParent<"::mlir::ModuleOp">]> {
  let summary = "the ranks of a job as an n-dimensional grid";
  let description = [{
    ```mlir
    nccl.grid @g(shape = 2x4)
    nccl.grid @odd(shape = 2x2) devices = [0, 2, 1, 3]
    nccl.grid @dyn(shape = 2x?)
    ```
    What the runtime needs of a `shard.grid` to create communicators on it;
    `convert-shard-to-nccl` replaces each grid its collectives use by one.
    `devices` lists the rank at each position in row-major order (default:
    rank = linear index).

    Constraints: a non-empty shape of sizes >= 1 or `?`; `devices` only on a
    static shape, one rank per position, a permutation of a contiguous rank
    range starting at 0 or above.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$shape,
                       OptionalAttr<DenseI64ArrayAttr>:$devices);
  let assemblyFormat = [{
    $sym_name `(` `shape` `=` custom<Shape>($shape) `)`
    (`devices` `=` $devices^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getRank() { return getShape().size(); }
  }];
}

def NCCL_CommOp : NCCL_Op<"comm", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "this rank's communicator along some mesh axes";
  let description = [{
    ```mlir
    %c = nccl.comm @grid axes = [0, 1] : !nccl.comm
    ```
    The group of ranks that share this rank's coordinates on every axis not
    listed. Ranks are ordered row-major over `axes` in the listed order (the
    first listed axis is outermost), which is the order collectives
    concatenate and split in. `axes = []` is this rank alone; all axes in
    order is the whole grid, ranked by linear mesh index. The runtime creates
    each (grid, axes) communicator once per process (`ncclCommSplit` of the
    world communicator); later lookups are cached.

    A grid with dynamic axes takes their sizes from the launch: with one
    dynamic axis it is the world size over the static axes' product; with
    several, the environment variable `HP_GRID_SHAPE_<grid>` (e.g. `2x4`)
    gives the whole shape (docs/Runtime.md).

    Constraints: `grid` names an `nccl.grid`; axes are in range and unique.
  }];
  // Mesh axes are shard's GridAxis (int16_t).
  let arguments = (ins FlatSymbolRefAttr:$grid, DenseI16ArrayAttr:$axes);
  let results = (outs NCCL_CommType:$result);
  let assemblyFormat = "$grid `axes` `=` $axes attr-dict `:` type($result)";
  let extraClassDeclaration = [{
    /// The number of ranks in the group, or -1 when the grid is not found.
    int64_t getGroupSize();
  }];
}

def NCCL_CommSizeOp : NCCL_Op<"comm_size", [Pure]> {
  let summary = "the number of ranks in a communicator (ncclCommCount)";
  let description = [{
    ```mlir
    %n = nccl.comm_size %c : index
    ```
    On a grid with dynamic axes the group size is known only at run time;
    the lowering folds it to a constant when the grid is static along the
    communicator's axes.
  }];
  let arguments = (ins NCCL_CommType:$comm);
  let results = (outs Index:$size);
  let assemblyFormat = "$comm attr-dict `:` type($size)";
  let hasFolder = 1;
}

def NCCL_CommRankOp : NCCL_Op<"comm_rank", [Pure]> {
  let summary = "this rank's index in a communicator (ncclCommUserRank)";
  let description = [{
    ```mlir
    %r = nccl.comm_rank %c : index
    ```
  }];
  let arguments = (ins NCCL_CommType:$comm);
  let results = (outs Index:$rank);
  let assemblyFormat = "$comm attr-dict `:` type($rank)";
}

class NCCL_BufferOp<string mnemonic, list<Trait> traits = []>
    : NCCL_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  let hasVerifier = 1;
}

// A collective reads `send`, writes `recv` and uses the communicator.
class NCCL_CollectiveOp<string mnemonic> : NCCL_BufferOp<mnemonic> {
  let extraClassDefinition = [{
    void $cppClass::getEffects(
        ::llvm::SmallVectorImpl<::mlir::SideEffects::EffectInstance<
            ::mlir::MemoryEffects::Effect>> &effects) {
      addCollectiveEffects(*this, effects);
    }
  }];
}

def NCCL_AllGatherOp : NCCL_CollectiveOp<"all_gather"> {
  let summary = "ncclAllGather";
  let description = [{
    ```mlir
    nccl.all_gather %send, %recv on %comm : memref<2x6xf32>, memref<8x6xf32>
    ```
    `recv` is the concatenation of every rank's `send` along the leading
    dimension, in rank order.

    Constraints: contiguous buffers of one NCCL element type; the same
    trailing shape; `recv`'s leading dim is `send`'s times the group size.
  }];
  let arguments = (ins AnyMemRef:$send, AnyMemRef:$recv, NCCL_CommType:$comm);
  let assemblyFormat = [{
    $send `,` $recv `on` $comm attr-dict `:` type($send) `,` type($recv)
  }];
}

def NCCL_ReduceScatterOp : NCCL_CollectiveOp<"reduce_scatter"> {
  let summary = "ncclReduceScatter";
  let description = [{
    ```mlir
    nccl.reduce_scatter %send, %recv on %comm op = sum : memref<8x6xf32>, memref<2x6xf32>
    ```
    Reduces `send` over the group and gives rank `i` the `i`-th leading
    block of the result.

    Constraints: as all_gather with `send` and `recv` swapped.
  }];
  let arguments = (ins AnyMemRef:$send, AnyMemRef:$recv, NCCL_CommType:$comm,
                       NCCL_RedOpAttr:$op);
  let assemblyFormat = [{
    $send `,` $recv `on` $comm `op` `=` $op attr-dict `:` type($send) `,` type($recv)
  }];
}

def NCCL_AllReduceOp : NCCL_CollectiveOp<"all_reduce"> {
  let summary = "ncclAllReduce";
  let description = [{
    ```mlir
    nccl.all_reduce %send, %recv on %comm op = max : memref<8x6xf32>, memref<8x6xf32>
    ```
    Constraints: contiguous buffers of one shape and NCCL element type
    (`send` may be `recv`: in place).
  }];
  let arguments = (ins AnyMemRef:$send, AnyMemRef:$recv, NCCL_CommType:$comm,
                       NCCL_RedOpAttr:$op);
  let assemblyFormat = [{
    $send `,` $recv `on` $comm `op` `=` $op attr-dict `:` type($send) `,` type($recv)
  }];
}

def NCCL_AllToAllOp : NCCL_CollectiveOp<"all_to_all"> {
  let summary = "ncclAlltoAll";
  let description = [{
    ```mlir
    nccl.all_to_all %send, %recv on %comm : memref<8x2xf32>, memref<8x2xf32>
    ```
    `send` is split into group-size leading blocks; block `j` goes to rank
    `j`, and `recv` holds the blocks received, in rank order.

    Constraints: contiguous buffers of one shape and NCCL element type; the
    leading dim divides by the group size.
  }];
  let arguments = (ins AnyMemRef:$send, AnyMemRef:$recv, NCCL_CommType:$comm);
  let assemblyFormat = [{
    $send `,` $recv `on` $comm attr-dict `:` type($send) `,` type($recv)
  }];
}

def NCCL_BroadcastOp : NCCL_CollectiveOp<"broadcast"> {
  let summary = "ncclBroadcast";
  let description = [{
    ```mlir
    nccl.broadcast %send, %recv on %comm root = 0 : memref<4xf32>, memref<4xf32>
    nccl.broadcast %send, %recv on %comm root = %r : memref<4xf32>, memref<4xf32>
    ```
    Every rank's `recv` gets root's `send` (`send` is read on the root only).
    The root is the member's index in the group: a constant, or an `index`
    value known at run time (ncclBroadcast takes it as an argument; NCCL
    refuses one outside the group at run time, which the runtime reports).

    Constraints: contiguous buffers of one shape and NCCL element type;
    a constant root satisfies `0 <= root < group size`.
  }];
  let arguments = (ins AnyMemRef:$send, AnyMemRef:$recv, NCCL_CommType:$comm,
                       OptionalAttr<I64Attr>:$root,
                       Optional<Index>:$dynamic_root);
  let assemblyFormat = [{
    $send `,` $recv `on` $comm `root` `=` custom<Root>($dynamic_root, $root)
    attr-dict `:` type($send) `,` type($recv)
  }];
}

// A send reads its buffer, a recv writes it; both use the communicator.
class NCCL_PointToPointOp<string mnemonic, string bufferEffect>
    : NCCL_BufferOp<mnemonic> {
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyBuffer(*this, getBuffer(), "buffer", /*needsRank=*/false);
    }
    void $cppClass::getEffects(
        ::llvm::SmallVectorImpl<::mlir::SideEffects::EffectInstance<
            ::mlir::MemoryEffects::Effect>> &effects) {
      effects.emplace_back(::mlir::MemoryEffects::}] # bufferEffect # [{::get(),
                           &getBufferMutable());
      effects.emplace_back(::mlir::MemoryEffects::Write::get(),
                           CommunicatorResource::get());
    }
  }];
}

def NCCL_SendOp : NCCL_PointToPointOp<"send", "Read"> {
  let summary = "ncclSend";
  let description = [{
    ```mlir
    nccl.send %buf to %peer on %comm : memref<4xf32>
    ```
    Constraints: a contiguous buffer of an NCCL element type. A send and its
    matching recv must be in one `nccl.group` when they could deadlock.
  }];
  let arguments = (ins AnyMemRef:$buffer, Index:$peer, NCCL_CommType:$comm);
  let assemblyFormat = "$buffer `to` $peer `on` $comm attr-dict `:` type($buffer)";
}

def NCCL_RecvOp : NCCL_PointToPointOp<"recv", "Write"> {
  let summary = "ncclRecv";
  let description = [{
    ```mlir
    nccl.recv %buf from %peer on %comm : memref<4xf32>
    ```
    Constraints: a contiguous buffer of an NCCL element type.
  }];
  let arguments = (ins AnyMemRef:$buffer, Index:$peer, NCCL_CommType:$comm);
  let assemblyFormat = "$buffer `from` $peer `on` $comm attr-dict `:` type($buffer)";
}

def NCCL_GroupOp : NCCL_Op<"group", [NoTerminator, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "ncclGroupStart / ncclGroupEnd around point-to-point calls";
  let description = [{
    ```mlir
    nccl.group {
      nccl.send %a to %next on %c : memref<4xf32>
      nccl.recv %b from %prev on %c : memref<4xf32>
    }
    ```
    The calls inside are issued together, so a ring exchange cannot
    deadlock. Constraints: the body holds only `nccl.send`, `nccl.recv` and
    index arithmetic.
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

#endif // HP_DIALECT_NCCL_IR_NCCLOPS_TD
