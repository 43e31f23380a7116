// An argument file that is not a regular file is refused, naming what it
// is: hp-runner checks $HP_TENSOR_DIR before any rank starts, and every
// rank's read checks again (a FIFO would block every rank in open()
// forever, a directory read as a short file).
// REQUIRES: mpi
// RUN: rm -rf %t && mkdir -p %t/arg0.bin
// RUN: env HP_TENSOR_DIR=%t not %hp-runner -np 2 %s 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: hp-runner: {{.*}}arg0.bin is a directory: argument 0 must be a regular file (HP_TENSOR_DIR)
// DIR-NOT: shorter
// RUN: rm -rf %t && mkdir -p %t && mkfifo %t/arg0.bin
// RUN: env HP_TENSOR_DIR=%t timeout 60 not %hp-runner -np 2 %s 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: hp-runner: {{.*}}arg0.bin is not a regular file: argument 0 must be a regular file (HP_TENSOR_DIR)
//
// The ranks' own check, for a program that computes its slot (here the
// file appears only once the program runs, as a driver might write it).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env HP_TENSOR_DIR=%t HP_MAKE=fifo timeout 60 not %hp-runner %s -e late 2>&1 | FileCheck %s --check-prefix=LATE-FIFO
// LATE-FIFO: hp: {{.*}}arg0.bin is a FIFO, not a regular file holding argument 0
// RUN: rm -rf %t && mkdir -p %t
// RUN: env HP_TENSOR_DIR=%t HP_MAKE=dir timeout 60 not %hp-runner %s -e late 2>&1 | FileCheck %s --check-prefix=LATE-DIR
// LATE-DIR: hp: {{.*}}arg0.bin is a directory, not a regular file holding argument 0

func.func private @hp_read_tensor(i64, i64, i64)
func.func private @system(!llvm.ptr) -> i32

func.func @main() {
  %slot = arith.constant 0 : i64
  %bytes = arith.constant 16 : i64
  %in = memref.alloc() : memref<4xf32>
  %pi = memref.extract_aligned_pointer_as_index %in : memref<4xf32> -> index
  %p = arith.index_cast %pi : index to i64
  call @hp_read_tensor(%slot, %p, %bytes) : (i64, i64, i64) -> ()
  return
}

llvm.mlir.global internal constant @make("if [ \"$HP_MAKE\" = fifo ]; then mkfifo $HP_TENSOR_DIR/arg0.bin; else mkdir $HP_TENSOR_DIR/arg0.bin; fi\00") {addr_space = 0 : i32}

func.func @late() {
  %cmd = llvm.mlir.addressof @make : !llvm.ptr
  %rc = call @system(%cmd) : (!llvm.ptr) -> i32
  call @main() : () -> ()
  return
}
