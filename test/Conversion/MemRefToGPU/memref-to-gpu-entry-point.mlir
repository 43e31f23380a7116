// RUN: hp-opt %s --split-input-file --convert-memref-to-gpu="entry-point=step" --verify-diagnostics | FileCheck %s --check-prefix=STEP
// RUN: hp-opt %s --split-input-file --convert-memref-to-gpu | FileCheck %s --check-prefix=DEFAULT

// entry-point=step: @step's buffer arguments and results are host memory,
// copied in and out; @main then calls it with device buffers.
// STEP-LABEL: func.func @step
// STEP: gpu.alloc
// STEP: gpu.memcpy
// STEP: return
// STEP-LABEL: func.func @main
// STEP-NOT: gpu.
// STEP: return
func.func @step(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %r = func.call @step(%x) : (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}

// -----

// An entry point other than the default (main) must exist; main
// may be absent, as in a library module.
// DEFAULT-LABEL: func.func @helper
// expected-error @below {{entry point 'step' is not a function of this module}}
module {
  func.func @helper() {
    return
  }
}
