// Both lowering pipelines run upstream's deallocation passes with
// split-independent-deallocs between the ownership-based deallocation (and
// its canonicalization) and the pairwise simplification, which is then
// left only the deallocs whose buffers may alias.
// RUN: hp-opt %s --hp-lower-to-cpu --dump-pass-pipeline -o /dev/null 2>&1 | tr ',' '\n' | FileCheck %s
// RUN: hp-opt %s --hp-lower-to-gpu --dump-pass-pipeline -o /dev/null 2>&1 | tr ',' '\n' | FileCheck %s
// CHECK: expand-realloc
// CHECK: ownership-based-buffer-deallocation
// CHECK: canonicalize
// CHECK: split-independent-deallocs
// CHECK: buffer-deallocation-simplification
// CHECK: bufferization-lower-deallocations
func.func @f() {
  return
}
