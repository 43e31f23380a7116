// Contractions generated at test time by gen_contractions.py (matmul,
// batched, matrix-vector and vector-matrix, A, B or C transposed, contiguous
// pairs of m/n/k loops that merge into one gemm dim, attention-like batch
// loops, then random loop sets with each operand's dims in a random order;
// uneven, tiny and empty shapes; strided operands, some with no unit
// stride) through hp-lower-to-cpu: f32 and f64 go to the BLAS
// (convert-linalg-to-blas), i32 and f16 to loops. Each compares exactly with
// the same contraction as explicit scf.for loops.
// REQUIRES: mpi
// RUN: %python %S/gen_contractions.py --type f32 --seed 2 --cases 16 > %t.f32.mlir
// RUN: %hp-quick-runner -np 1 %t.f32.mlir -e main --entry-point-result=void | FileCheck %t.f32.mlir
// RUN: %python %S/gen_contractions.py --type f64 --seed 3 --cases 16 > %t.f64.mlir
// RUN: %hp-quick-runner -np 1 %t.f64.mlir -e main --entry-point-result=void | FileCheck %t.f64.mlir
// RUN: %python %S/gen_contractions.py --type f32 --seed 4 --cases 16 > %t.f32b.mlir
// RUN: %hp-quick-runner -np 1 %t.f32b.mlir -e main --entry-point-result=void | FileCheck %t.f32b.mlir
// RUN: %python %S/gen_contractions.py --type i32 --seed 5 --cases 12 > %t.i32.mlir
// RUN: %hp-quick-runner -np 1 %t.i32.mlir -e main --entry-point-result=void | FileCheck %t.i32.mlir
// RUN: %python %S/gen_contractions.py --type f16 --seed 6 --cases 12 > %t.f16.mlir
// RUN: %hp-quick-runner -np 1 %t.f16.mlir -e main --entry-point-result=void | FileCheck %t.f16.mlir
// Every f32 and f64 contraction calls the BLAS path: none is left a linalg
// op with a reduction loop and an f32/f64 output (those that count
// mismatches write i64); i32 ones never do.
// RUN: hp-opt %t.f32.mlir --hp-lower-to-cpu --mlir-print-ir-after=convert-linalg-to-blas -o /dev/null 2>&1 | FileCheck %s --check-prefix=F32
// RUN: hp-opt %t.f64.mlir --hp-lower-to-cpu --mlir-print-ir-after=convert-linalg-to-blas -o /dev/null 2>&1 | FileCheck %s --check-prefix=F64
// RUN: hp-opt %t.i32.mlir --hp-lower-to-cpu | FileCheck %s --check-prefix=I32
// F32: call @hp_contract_f32(
// F32-NOT: "reduction"]} ins({{.*}} outs({{.*}}xf32
// F64: call @hp_contract_f64(
// F64-NOT: "reduction"]} ins({{.*}} outs({{.*}}xf64
// I32-NOT: hp_contract
// The threads the libraries use: HP_CPU_THREADS, an integer from 1 to 1024;
// anything else ends the job naming it.
// RUN: env HP_CPU_THREADS=2 %hp-quick-runner -np 1 %t.f32.mlir -e main --entry-point-result=void | FileCheck %t.f32.mlir
// RUN: env HP_CPU_THREADS=abc not %hp-quick-runner -np 1 %t.f32.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: env HP_CPU_THREADS=0 not %hp-quick-runner -np 1 %t.f32.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=THREADS0
// THREADS: hp: HP_CPU_THREADS='abc' must be an integer from 1 to 1024
// THREADS0: hp: HP_CPU_THREADS='0' must be an integer from 1 to 1024
