// No nccl op in the lowered examples reads a memref.cast result or a buffer
// whose layout is not provably contiguous (the IR right after
// nccl-contiguous-buffers in hp-lower-to-cpu). The last program is one whose
// all_to_all and reduce_scatter once read a strided slice as contiguous.
// RUN: hp-opt --hp-lower-to-cpu --mlir-print-ir-after=nccl-contiguous-buffers %hp_src_root/examples/tp_mlp.mlir -o /dev/null 2>&1 | %python %S/Inputs/check-nccl-operands.py | FileCheck %s
// RUN: hp-opt --hp-lower-to-cpu --mlir-print-ir-after=nccl-contiguous-buffers %hp_src_root/examples/dp_tp_mlp.mlir -o /dev/null 2>&1 | %python %S/Inputs/check-nccl-operands.py | FileCheck %s
// RUN: hp-opt --hp-lower-to-cpu --mlir-print-ir-after=nccl-contiguous-buffers %hp_src_root/examples/moe_ep.mlir -o /dev/null 2>&1 | %python %S/Inputs/check-nccl-operands.py | FileCheck %s
// RUN: hp-opt --hp-lower-to-cpu --mlir-print-ir-after=nccl-contiguous-buffers %hp_src_root/examples/cp_attention.mlir -o /dev/null 2>&1 | %python %S/Inputs/check-nccl-operands.py | FileCheck %s
// RUN: %python %hp_src_root/test/e2e/cpu/gen_redistribute.py --mesh 2x2 --type i32 --cases "7x9:P(max),S0->R,S1; 10x5:S0,P->S1,S0; 10x5:P,P(max)->S1,R" > %t.mlir
// RUN: hp-opt --hp-lower-to-cpu --mlir-print-ir-after=nccl-contiguous-buffers %t.mlir -o /dev/null 2>&1 | %python %S/Inputs/check-nccl-operands.py | FileCheck %s
// The check itself fails on a cast feeding an nccl op:
// RUN: not %python %S/Inputs/check-nccl-operands.py < %hp_src_root/test/Transforms/NCCLBuffers/nccl-contiguous-buffers.mlir

// CHECK: checked {{[1-9][0-9]*}} nccl buffers
