// Upstream-style programs print small integers and read 2-D vectors: their
// lowering makes arith.extsi and ub.poison, which hp-lower-to-cpu converts
// too, so the output is pure LLVM dialect that translates and runs.
// RUN: hp-opt %s --hp-lower-to-cpu -o %t.mlir
// RUN: not grep -E "ub\.|arith\.|vector\." %t.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.mlir -o /dev/null
// RUN: %hp-runner -np 1 %t.mlir -e main --entry-point-result=void | FileCheck %s
// REQUIRES: mpi

// CHECK: 7
// CHECK-NEXT: ( ( 1, 2 ), ( 3, 4 ) )
// CHECK-NEXT: ( 1, -2, 3 )
func.func @main() {
  %c = arith.constant 7 : i8
  vector.print %c : i8
  %t = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %t[%c0, %c0], %pad : tensor<2x2xf32>, vector<2x2xf32>
  vector.print %v : vector<2x2xf32>
  %w = arith.constant dense<[1, -2, 3]> : vector<3xi8>
  vector.print %w : vector<3xi8>
  return
}
