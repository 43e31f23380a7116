// Elementwise ops and reductions generated at test time by
// gen_elementwise.py (rank 1 to 3; identity, transposed and broadcasting
// operand maps; strided operands; uneven, tiny and empty extents; a
// reduction over the innermost or an outer loop) through hp-lower-to-cpu,
// which vectorizes them (vectorize-linalg-on-buffers): each compares
// exactly with the same computation as explicit scf.for loops, in every
// element type hp holds.
// REQUIRES: mpi
// RUN: %python %S/gen_elementwise.py --type f32 --seed 2 --cases 16 > %t.f32.mlir
// RUN: %hp-quick-runner -np 1 %t.f32.mlir | FileCheck %t.f32.mlir
// RUN: %python %S/gen_elementwise.py --type f64 --seed 8 --cases 16 > %t.f64.mlir
// RUN: %hp-quick-runner -np 1 %t.f64.mlir | FileCheck %t.f64.mlir
// RUN: %python %S/gen_elementwise.py --type f16 --seed 4 --cases 12 > %t.f16.mlir
// RUN: %hp-quick-runner -np 1 %t.f16.mlir | FileCheck %t.f16.mlir
// RUN: %python %S/gen_elementwise.py --type bf16 --seed 5 --cases 12 > %t.bf16.mlir
// RUN: %hp-quick-runner -np 1 %t.bf16.mlir | FileCheck %t.bf16.mlir
// RUN: %python %S/gen_elementwise.py --type i32 --seed 6 --cases 12 > %t.i32.mlir
// RUN: %hp-quick-runner -np 1 %t.i32.mlir | FileCheck %t.i32.mlir
// RUN: %python %S/gen_elementwise.py --type i64 --seed 7 --cases 12 > %t.i64.mlir
// RUN: %hp-quick-runner -np 1 %t.i64.mlir | FileCheck %t.i64.mlir
// The programs are vectorized: masked vector loads and stores of whole
// registers, vector reductions.
// RUN: hp-opt %t.f32.mlir --hp-lower-to-cpu | FileCheck %s --check-prefix=VEC
// VEC-DAG: llvm.intr.masked.load {{.*}} -> vector<16xf32>
// VEC-DAG: llvm.intr.masked.store {{.*}} : vector<16xf32>
// VEC-DAG: llvm.intr.vector.reduce.{{.*}} : (vector<16xf32>) -> f32
