// Contractions generated at test time by gen_contractions.py (plain,
// transposed, batched and matrix-vector; uneven, tiny and empty shapes;
// strided operands, some with no unit stride) through hp-lower-to-cpu:
// f32 and f64 go to the BLAS (convert-linalg-to-blas), i32 and f16 to loops.
// Each compares exactly with the same contraction as explicit scf.for loops.
// REQUIRES: mpi
// RUN: %python %S/gen_contractions.py --type f32 --seed 2 --cases 12 > %t.f32.mlir
// RUN: %hp-runner -np 1 %t.f32.mlir -e main --entry-point-result=void | FileCheck %t.f32.mlir
// RUN: %python %S/gen_contractions.py --type f64 --seed 3 --cases 12 > %t.f64.mlir
// RUN: %hp-runner -np 1 %t.f64.mlir -e main --entry-point-result=void | FileCheck %t.f64.mlir
// RUN: %python %S/gen_contractions.py --type f32 --seed 4 --cases 12 > %t.f32b.mlir
// RUN: %hp-runner -np 1 %t.f32b.mlir -e main --entry-point-result=void | FileCheck %t.f32b.mlir
// RUN: %python %S/gen_contractions.py --type i32 --seed 5 --cases 8 > %t.i32.mlir
// RUN: %hp-runner -np 1 %t.i32.mlir -e main --entry-point-result=void | FileCheck %t.i32.mlir
// RUN: %python %S/gen_contractions.py --type f16 --seed 6 --cases 8 > %t.f16.mlir
// RUN: %hp-runner -np 1 %t.f16.mlir -e main --entry-point-result=void | FileCheck %t.f16.mlir
// The f32 and f64 programs do call the BLAS.
// RUN: hp-opt %t.f32.mlir --hp-lower-to-cpu | FileCheck %s --check-prefix=F32
// RUN: hp-opt %t.f64.mlir --hp-lower-to-cpu | FileCheck %s --check-prefix=F64
// F32-DAG: call @hp_matmul_f32(
// F32-DAG: call @hp_batch_matmul_f32(
// F32-DAG: call @hp_matvec_f32(
// F64-DAG: call @hp_matmul_f64(
// F64-DAG: call @hp_batch_matmul_f64(
// F64-DAG: call @hp_matvec_f64(
// The threads the libraries use: HP_CPU_THREADS, an integer from 1 to 1024;
// anything else ends the job naming it.
// RUN: env HP_CPU_THREADS=2 %hp-runner -np 1 %t.f32.mlir -e main --entry-point-result=void | FileCheck %t.f32.mlir
// RUN: env HP_CPU_THREADS=abc not %hp-runner -np 1 %t.f32.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: env HP_CPU_THREADS=0 not %hp-runner -np 1 %t.f32.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=THREADS0
// THREADS: hp: HP_CPU_THREADS='abc' must be an integer from 1 to 1024
// THREADS0: hp: HP_CPU_THREADS='0' must be an integer from 1 to 1024
