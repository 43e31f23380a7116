// --check-bounds adds upstream's runtime verification before hp's lowering:
// an out-of-bounds memref or tensor access stops the program with a message
// naming the op and its source line, and the job fails. Without it the
// load reads whatever lies past the buffer and the job succeeds.
// REQUIRES: mpi
// RUN: %hp-runner %s -e load | FileCheck %s --check-prefix=UNCHECKED
// UNCHECKED: loaded
// RUN: not --crash %hp-runner --check-bounds %s -e load 2>&1 | FileCheck %s --check-prefix=LOAD
// LOAD: ERROR: Runtime op verification failed
// LOAD-NEXT: memref.load %{{.*}}[%{{.*}}] : memref<4xi32>
// LOAD-NEXT: ^ out-of-bounds access
// LOAD-NEXT: Location: loc("{{.*}}hp-runner-check-bounds.mlir":[[# @LINE + 28]]:8)
// LOAD: hp-runner: rank 0: SIGABRT in the program
// LOAD-NOT: loaded
// Two ranks' stderr and the launcher's report interleave in any order.
// RUN: not %hp-runner -np 2 --check-bounds %s -e extract 2>&1 | FileCheck %s --check-prefix=EXTRACT
// EXTRACT-DAG: ERROR: Runtime op verification failed
// EXTRACT-DAG: ^ out-of-bounds access
// EXTRACT-DAG: hp-runner: rank {{[01]}}: SIGABRT in the program
// In-bounds accesses pass the checks.
// RUN: %hp-runner -np 2 --check-bounds %s -e inbounds | FileCheck %s --check-prefix=INBOUNDS
// INBOUNDS-COUNT-2: 3
// On LLVM-dialect input there is nothing left to check: a warning says so.
// RUN: hp-opt %s --hp-lower-to-cpu -o %t.ll.mlir
// The warning is the compile's: a cache hit prints it again.
// RUN: rm -rf %t.cache
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner --compile-report --check-bounds %t.ll.mlir -e inbounds 2>&1 | FileCheck %s --check-prefixes=LOWERED,LOWERED-MISS
// RUN: env HP_CACHE_DIR=%t.cache %hp-runner --compile-report --check-bounds %t.ll.mlir -e inbounds 2>&1 | FileCheck %s --check-prefixes=LOWERED,LOWERED-HIT
// LOWERED: hp-runner: warning: --check-bounds has no effect on LLVM-dialect input
// LOWERED-MISS: hp-runner: compile: cache miss
// LOWERED-HIT: hp-runner: compile: cache hit

func.func private @index(%i: index) -> index {
  return %i : index
}

func.func @load() {
  %m = memref.alloc() : memref<4xi32>
  %c7 = arith.constant 7 : index
  %v = memref.load %m[%c7] : memref<4xi32>
  vector.print str "loaded\n"
  return
}

func.func @extract() {
  %t = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %c9 = arith.constant 9 : index
  %i = func.call @index(%c9) : (index) -> index
  %v = tensor.extract %t[%i] : tensor<4xi32>
  vector.print %v : i32
  return
}

func.func @inbounds() {
  %t = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %c2 = arith.constant 2 : index
  %i = func.call @index(%c2) : (index) -> index
  %v = tensor.extract %t[%i] : tensor<4xi32>
  vector.print %v : i32
  return
}
