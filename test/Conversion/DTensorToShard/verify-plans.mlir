// verify-plans runs every plan through the plan checker before emitting it.
// Right plans pass and are emitted; the test pass test-break-plans (test/lib)
// changes the first step of every plan so that it means something else, and
// each is then refused with the plan printed and nothing emitted.
// RUN: hp-opt %s -convert-dtensor-to-shard=verify-plans | FileCheck %s
// RUN: not hp-opt %s -test-break-plans -o %t 2>&1 | FileCheck %s --check-prefix=BROKEN
// RUN: hp-opt %s -convert-dtensor-to-shard=verify-plans -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN

dtensor.mesh @m shape = [2, 2]

// CHECK-LABEL: func @merged_gather
// CHECK: shard.all_gather %{{.*}} on @m grid_axes = [0, 1] gather_axis = 0
// BROKEN: error: 'dtensor.redistribute' op plan failed its check (after the last step: device (0, 0) holds other elements than the target layout): [S(0), S(0)] -> [R, R]: {{.*}}all_gather(axes=[1, 0], dim=0
func.func @merged_gather(%x: !dtensor.tensor<8xf32, @m, [shard<0>, shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate, replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate, replicate]>
  return %r : !dtensor.tensor<8xf32, @m, [replicate, replicate]>
}

// CHECK-LABEL: func @reduce
// CHECK: shard.all_reduce %{{.*}} on @m grid_axes = [1] reduction = max
// BROKEN: error: 'dtensor.redistribute' op plan failed its check (after the last step: device (0, 0) element 0 reduces to {{.*}}, the source's value is {{.*}}): [R, P(max)] -> [R, R]: {{.*}}all_reduce(axes=[1], prod
func.func @reduce(%x: !dtensor.tensor<4x3xf32, @m, [replicate, partial<max>]>) -> !dtensor.tensor<4x3xf32, @m, [replicate, replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<4x3xf32, @m, [replicate, partial<max>]> -> !dtensor.tensor<4x3xf32, @m, [replicate, replicate]>
  return %r : !dtensor.tensor<4x3xf32, @m, [replicate, replicate]>
}

// A permute is checked by what each device then holds: broken, it keeps the
// splits where they are and the off-diagonal devices keep their blocks.
// CHECK-LABEL: func @swap
// CHECK: shard.send
// CHECK: shard.recv
// BROKEN: error: 'dtensor.redistribute' op plan failed its check (after the last step: device (0, 1) holds other elements than the target layout): [S(0), S(1)] -> [S(1), S(0)]: {{.*}}permute(axes=[0, 1], splits={{\[\[}}0], [1]]
func.func @swap(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<1>]>) -> !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<1>]> -> !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]>
  return %r : !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]>
}

// A plan the checker cannot simulate (too many elements) is emitted with a
// warning under verify-plans.
// WARN: verify-plans.mlir:[[@LINE+5]]:8: warning: plan not checked: the tensor is too large to simulate on every device
// WARN-NOT: warning
// CHECK-LABEL: func @large
// CHECK: shard.all_gather
func.func @large(%x: !dtensor.tensor<2048x1024xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<2048x1024xf32, @m, [replicate, replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<2048x1024xf32, @m, [shard<0>, replicate]> -> !dtensor.tensor<2048x1024xf32, @m, [replicate, replicate]>
  return %r : !dtensor.tensor<2048x1024xf32, @m, [replicate, replicate]>
}
// BROKEN-NOT: shard.
