//===- NCCLBase.td - nccl dialect, types and enums ---------*- tablegen -*-===//

#ifndef HP_DIALECT_NCCL_IR_NCCLBASE_TD
#define HP_DIALECT_NCCL_IR_NCCLBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def NCCL_Dialect : Dialect {
  let name = "nccl";
  let cppNamespace = "::hp::nccl";
  let summary = "The NCCL collective API on buffers, one op per call";
  let description = [{
    `nccl` sits at buffer level and mirrors the NCCL C API: each collective
    op becomes one `nccl*` call (`convert-nccl-to-llvm`). Buffers are
    contiguous memrefs; NCCL concatenates and splits them along the leading
    dimension in rank order. Communicators come from `nccl.comm`, which names
    an `nccl.grid` (its shape and device list) and the mesh axes of the
    group; the runtime creates each (grid, axes) communicator once per
    process.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // nccl.comm_size folds to a group size: an arith.constant.
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def NCCL_RedOp : I32EnumAttr<"RedOp", "NCCL reduction", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Prod", 1, "prod">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">,
  I32EnumAttrCase<"Avg", 4, "avg">
]> {
  // Values are ncclRedOp_t's (ncclSum = 0 ... ncclAvg = 4).
  let genSpecializedAttr = 0;
  let cppNamespace = "::hp::nccl";
}

def NCCL_RedOpAttr : EnumAttr<NCCL_Dialect, NCCL_RedOp, "red_op"> {
  let assemblyFormat = "$value";
}

def NCCL_CommType : TypeDef<NCCL_Dialect, "Comm"> {
  let mnemonic = "comm";
  let summary = "an NCCL communicator (ncclComm_t)";
}

#endif // HP_DIALECT_NCCL_IR_NCCLBASE_TD
