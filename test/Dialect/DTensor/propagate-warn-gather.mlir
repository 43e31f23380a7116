// Warnings for whole-tensor gathers of named arguments (dtensor.arg_name:
// hp.torch's parameter names): reported whatever their size with
// warn-gather-named-args, named in the warn-gather-bytes warning too; an
// unnamed argument is reported by size only.
// RUN: hp-opt %s -dtensor-propagate --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT --allow-empty
// RUN: hp-opt %s -dtensor-propagate="warn-gather-named-args" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMED
// RUN: hp-opt %s -dtensor-propagate="warn-gather-bytes=1" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BYTES
// RUN: hp-opt %s -dtensor-propagate="warn-gather-named-args warn-gather-bytes=0" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMED

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @gathers(%w: !dtensor.tensor<32x8xf32, @tp, [shard<0>]> {dtensor.arg_name = "lm_head.weight"},
                   %v: !dtensor.tensor<16xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<32x8xf32, @tp, [replicate]>, !dtensor.tensor<16xf32, @tp, [replicate]>) {
  %y:2 = dtensor.global_region on @tp args(%w, %v)
      : (!dtensor.tensor<32x8xf32, @tp, [shard<0>]>, !dtensor.tensor<16xf32, @tp, [shard<0>]>)
     -> (!dtensor.tensor<32x8xf32, @tp, [replicate]>, !dtensor.tensor<16xf32, @tp, [replicate]>) {
  ^bb0(%gw: tensor<32x8xf32>, %gv: tensor<16xf32>):
    %rw = dtensor.constrain %gw [replicate] : tensor<32x8xf32> loc("model.py":7:0)
    %rv = dtensor.constrain %gv [replicate] : tensor<16xf32> loc("model.py":8:0)
    dtensor.yield %rw, %rv : tensor<32x8xf32>, tensor<16xf32>
  }
  return %y#0, %y#1 : !dtensor.tensor<32x8xf32, @tp, [replicate]>, !dtensor.tensor<16xf32, @tp, [replicate]>
}

// DEFAULT-NOT: warning
// NAMED: model.py:7:0: warning: gathers the whole 'lm_head.weight' ('tensor<32x8xf32>', 1.0 KiB) on every rank for {{.*}} (warn-gather-named-args)
// NAMED-NOT: warning
// BYTES-DAG: model.py:7:0: warning: gathers the whole 'lm_head.weight' ('tensor<32x8xf32>', 1.0 KiB) on every rank for {{.*}} (warn-gather-bytes=1)
// BYTES-DAG: model.py:8:0: warning: gathers the whole 'tensor<16xf32>' (64 B) on every rank for {{.*}} (warn-gather-bytes=1)

// A weight gathered after a transpose (torch's `t` before a matmul) is
// named too: the gathered value holds every element of the argument.
func.func @gathers_transposed(%w: !dtensor.tensor<32x8xf32, @tp, [shard<0>]> {dtensor.arg_name = "head.weight"})
    -> !dtensor.tensor<8x32xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%w)
      : (!dtensor.tensor<32x8xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<8x32xf32, @tp, [replicate]>) {
  ^bb0(%gw: tensor<32x8xf32>):
    %e = tensor.empty() : tensor<8x32xf32>
    %t = linalg.transpose ins(%gw : tensor<32x8xf32>) outs(%e : tensor<8x32xf32>) permutation = [1, 0]
    %r = dtensor.constrain %t [replicate] : tensor<8x32xf32> loc("model.py":9:0)
    dtensor.yield %r : tensor<8x32xf32>
  }
  return %y : !dtensor.tensor<8x32xf32, @tp, [replicate]>
}

// NAMED: model.py:9:0: warning: gathers the whole 'head.weight' ('tensor<8x32xf32>', 1.0 KiB) on every rank for {{.*}} (warn-gather-named-args)
// BYTES-DAG: model.py:9:0: warning: gathers the whole 'head.weight' ('tensor<8x32xf32>', 1.0 KiB) on every rank for {{.*}} (warn-gather-bytes=1)
