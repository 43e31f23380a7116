// RUN: hp-opt %s -canonicalize -split-input-file | FileCheck %s

dtensor.mesh @m shape = [2, 2]

// to_local(from_local(x)) -> x
// CHECK-LABEL: func @to_local_of_from_local
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]]
func.func @to_local_of_from_local(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %d = dtensor.from_local %x : tensor<4x8xf32> -> !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
  %l = dtensor.to_local %d : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> -> tensor<4x8xf32>
  return %l : tensor<4x8xf32>
}

// from_local(to_local(d)) -> d
// CHECK-LABEL: func @from_local_of_to_local
// CHECK-SAME: (%[[D:.*]]: !dtensor.tensor
// CHECK-NEXT: return %[[D]]
func.func @from_local_of_to_local(%d: !dtensor.tensor<8x8xf32, @m, [shard<0>, partial<sum>]>)
    -> !dtensor.tensor<8x8xf32, @m, [shard<0>, partial<sum>]> {
  %l = dtensor.to_local %d : !dtensor.tensor<8x8xf32, @m, [shard<0>, partial<sum>]> -> tensor<4x8xf32>
  %e = dtensor.from_local %l : tensor<4x8xf32> -> !dtensor.tensor<8x8xf32, @m, [shard<0>, partial<sum>]>
  return %e : !dtensor.tensor<8x8xf32, @m, [shard<0>, partial<sum>]>
}

// from_local(to_local(d)) with another type is a real relabelling: kept.
// Here a Partial(sum) local value is re-declared as Replicate.
// CHECK-LABEL: func @from_local_of_to_local_other_type
// CHECK: dtensor.to_local
// CHECK: dtensor.from_local
func.func @from_local_of_to_local_other_type(%d: !dtensor.tensor<8x8xf32, @m, [shard<0>, partial<sum>]>)
    -> !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {
  %l = dtensor.to_local %d : !dtensor.tensor<8x8xf32, @m, [shard<0>, partial<sum>]> -> tensor<4x8xf32>
  %e = dtensor.from_local %l : tensor<4x8xf32> -> !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
  return %e : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
}

// Identity redistribute -> its input.
// CHECK-LABEL: func @identity_redistribute
// CHECK-SAME: (%[[D:.*]]: !dtensor.tensor
// CHECK-NEXT: return %[[D]]
func.func @identity_redistribute(%d: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>)
    -> !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {
  %r = dtensor.redistribute %d : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
                               -> !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
  return %r : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
}

// A chain of two redistributes becomes one.
// CHECK-LABEL: func @redistribute_chain
// CHECK-SAME: (%[[D:.*]]: !dtensor.tensor
// CHECK-NEXT: %[[R:.*]] = dtensor.redistribute %[[D]] : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> -> !dtensor.tensor<8x8xf32, @m, [replicate, shard<1>]>
// CHECK-NEXT: return %[[R]]
func.func @redistribute_chain(%d: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>)
    -> !dtensor.tensor<8x8xf32, @m, [replicate, shard<1>]> {
  %a = dtensor.redistribute %d : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
                               -> !dtensor.tensor<8x8xf32, @m, [replicate, replicate]>
  %b = dtensor.redistribute %a : !dtensor.tensor<8x8xf32, @m, [replicate, replicate]>
                               -> !dtensor.tensor<8x8xf32, @m, [replicate, shard<1>]>
  return %b : !dtensor.tensor<8x8xf32, @m, [replicate, shard<1>]>
}

// A chain that returns to its start disappears.
// CHECK-LABEL: func @redistribute_round_trip
// CHECK-SAME: (%[[D:.*]]: !dtensor.tensor
// CHECK-NEXT: return %[[D]]
func.func @redistribute_round_trip(%d: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>)
    -> !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> {
  %a = dtensor.redistribute %d : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
                               -> !dtensor.tensor<8x8xf32, @m, [replicate, replicate]>
  %b = dtensor.redistribute %a : !dtensor.tensor<8x8xf32, @m, [replicate, replicate]>
                               -> !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
  return %b : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>
}

// P(sum) -> R -> P(max) is legal step by step, but P(sum) -> P(max) is not:
// the chain stays.
// CHECK-LABEL: func @redistribute_chain_kept
// CHECK: dtensor.redistribute
// CHECK-NEXT: dtensor.redistribute
func.func @redistribute_chain_kept(%d: !dtensor.tensor<8xf32, @m, [partial<sum>, replicate]>)
    -> !dtensor.tensor<8xf32, @m, [partial<max>, replicate]> {
  %a = dtensor.redistribute %d : !dtensor.tensor<8xf32, @m, [partial<sum>, replicate]>
                               -> !dtensor.tensor<8xf32, @m, [replicate, replicate]>
  %b = dtensor.redistribute %a : !dtensor.tensor<8xf32, @m, [replicate, replicate]>
                               -> !dtensor.tensor<8xf32, @m, [partial<max>, replicate]>
  return %b : !dtensor.tensor<8xf32, @m, [partial<max>, replicate]>
}
