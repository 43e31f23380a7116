// A dynamic global size survives as `?` in the boundary attribute, and the
// output re-parses.
// RUN: hp-opt %s -convert-dtensor-to-shard | hp-opt | FileCheck %s

dtensor.mesh @m shape = [2]

// CHECK-LABEL: func @dynamic_rows
// CHECK-SAME: (%{{.*}}: tensor<?x4xf32> {dtensor.sharding = #dtensor.sharding<@m, [shard<0>], global = [?, 4]>})
// CHECK-SAME: -> (tensor<?x4xf32> {dtensor.sharding = #dtensor.sharding<@m, [shard<0>], global = [?, 4]>})
func.func @dynamic_rows(%x: !dtensor.tensor<?x4xf32, @m, [shard<0>]>) -> !dtensor.tensor<?x4xf32, @m, [shard<0>]> {
  return %x : !dtensor.tensor<?x4xf32, @m, [shard<0>]>
}
