// RUN: hp-opt %s | hp-opt | FileCheck %s
// RUN: hp-opt %s --mlir-print-op-generic | hp-opt | FileCheck %s

// CHECK: dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
// CHECK: dtensor.mesh @tp shape = [4]{{$}}
dtensor.mesh @tp shape = [4]
// CHECK: dtensor.mesh @odd shape = [2, 2] devices = [0, 2, 1, 3]
dtensor.mesh @odd shape = [2, 2] devices = [0, 2, 1, 3]
// CHECK: dtensor.mesh @cube shape = [2, 2, 2] names = ["a", "b", "c"] devices = [8, 9, 10, 11, 12, 13, 14, 15]
dtensor.mesh @cube shape = [2, 2, 2] names = ["a", "b", "c"] devices = [8, 9, 10, 11, 12, 13, 14, 15]

// CHECK-LABEL: func @placements
// CHECK-SAME: !dtensor.tensor<8x16xf32, @mesh, [shard<0>, shard<1>]>
// CHECK-SAME: !dtensor.tensor<8x16xf32, @mesh, [partial<sum>, partial<avg>]>
// CHECK-SAME: !dtensor.tensor<8x16xf32, @mesh, [partial<max>, partial<min>]>
// CHECK-SAME: !dtensor.tensor<8x16xbf16, @mesh, [partial<prod>, replicate]>
// CHECK-SAME: !dtensor.tensor<?x16xi32, @tp, [shard<0>]>
// CHECK-SAME: !dtensor.tensor<f64, @tp, [replicate]>
func.func @placements(
    %a: !dtensor.tensor<8x16xf32, @mesh, [shard<0>, shard<1>]>,
    %b: !dtensor.tensor<8x16xf32, @mesh, [partial<sum>, partial<avg>]>,
    %c: !dtensor.tensor<8x16xf32, @mesh, [partial<max>, partial<min>]>,
    %d: !dtensor.tensor<8x16xbf16, @mesh, [#dtensor.partial<prod>, #dtensor.replicate]>,
    %e: !dtensor.tensor<?x16xi32, @tp, [shard<0>]>,
    %f: !dtensor.tensor<f64, @tp, [replicate]>) {
  return
}

// CHECK-LABEL: func @placement_attrs
// CHECK: p0 = #dtensor.shard<1>, p1 = #dtensor.replicate, p2 = #dtensor.partial<avg>
func.func @placement_attrs() attributes {p0 = #dtensor.shard<1>, p1 = #dtensor.replicate, p2 = #dtensor.partial<avg>} {
  return
}

// CHECK-LABEL: func @local_even
func.func @local_even(%t: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[D:.*]] = dtensor.from_local %{{.*}} : tensor<4x16xf32> -> !dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>
  %d = dtensor.from_local %t : tensor<4x16xf32> -> !dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>
  // CHECK: dtensor.to_local %[[D]] : !dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]> -> tensor<4x16xf32>
  %l = dtensor.to_local %d : !dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]> -> tensor<4x16xf32>
  return %l : tensor<4x16xf32>
}

// Uneven (10 over 4) and nested (8 over 2x2 in dim 1) splits.
// CHECK-LABEL: func @local_uneven_nested
func.func @local_uneven_nested(%t: tensor<?x4xf32>, %u: tensor<8x2xf32>) {
  // CHECK: dtensor.from_local %{{.*}} : tensor<?x4xf32> -> !dtensor.tensor<10x4xf32, @tp, [shard<0>]>
  %d = dtensor.from_local %t : tensor<?x4xf32> -> !dtensor.tensor<10x4xf32, @tp, [shard<0>]>
  // CHECK: dtensor.from_local %{{.*}} : tensor<8x2xf32> -> !dtensor.tensor<8x8xf32, @odd, [shard<1>, shard<1>]>
  %e = dtensor.from_local %u : tensor<8x2xf32> -> !dtensor.tensor<8x8xf32, @odd, [shard<1>, shard<1>]>
  return
}

// CHECK-LABEL: func @redistribute
func.func @redistribute(%d: !dtensor.tensor<8x16xf32, @mesh, [shard<0>, partial<sum>]>)
    -> !dtensor.tensor<8x16xf32, @mesh, [replicate, shard<1>]> {
  // CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<8x16xf32, @mesh, [shard<0>, partial<sum>]> -> !dtensor.tensor<8x16xf32, @mesh, [replicate, shard<1>]>
  %r = dtensor.redistribute %d : !dtensor.tensor<8x16xf32, @mesh, [shard<0>, partial<sum>]>
                               -> !dtensor.tensor<8x16xf32, @mesh, [replicate, shard<1>]>
  return %r : !dtensor.tensor<8x16xf32, @mesh, [replicate, shard<1>]>
}

// The full form of docs/DTensorDialect.md: named args, a declared input, a per-output
// out_placements with `none` for a scalar, and redistribute_inputs.
// CHECK-LABEL: func @local_region_full
// CHECK: dtensor.local_region on @mesh args(%{{.*}} as "hidden_states", %{{.*}} as "bias")
// CHECK-SAME: in_placements = {hidden_states = [replicate, replicate]}
// CHECK-SAME: out_placements = {{\[}}[partial<sum>, replicate], none]
// CHECK-SAME: redistribute_inputs
// CHECK-SAME: : (!dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>, tensor<16xf32>) -> (!dtensor.tensor<8x16xf32, @mesh, [partial<sum>, replicate]>, i64)
// CHECK: ^bb0(%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<16xf32>):
// CHECK: dtensor.yield %{{.*}}, %{{.*}} : tensor<8x16xf32>, i64
func.func @local_region_full(%x: !dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>,
                             %b: tensor<16xf32>)
    -> (!dtensor.tensor<8x16xf32, @mesh, [partial<sum>, replicate]>, i64) {
  %y, %n = dtensor.local_region on @mesh
      args(%x as "hidden_states", %b as "bias")
      in_placements = {hidden_states = [replicate, replicate]}
      out_placements = [[partial<sum>, replicate], none]
      redistribute_inputs
      : (!dtensor.tensor<8x16xf32, @mesh, [shard<0>, replicate]>, tensor<16xf32>)
     -> (!dtensor.tensor<8x16xf32, @mesh, [partial<sum>, replicate]>, i64) {
  ^bb0(%hs: tensor<8x16xf32>, %bias: tensor<16xf32>):
    %count = arith.constant 8 : i64
    dtensor.yield %hs, %count : tensor<8x16xf32>, i64
  }
  return %y, %n : !dtensor.tensor<8x16xf32, @mesh, [partial<sum>, replicate]>, i64
}

// Flat out_placements for a single output; the operand enters under its own
// placement (no declaration); `none` and unbound names in in_placements;
// names that are not identifiers print quoted; entries print sorted by name.
// CHECK-LABEL: func @local_region_flat
// CHECK: args(%{{.*}} as "x.weight")
// CHECK-SAME: in_placements = {unused_opt = [replicate], "x.weight" = none}
// CHECK-SAME: out_placements = [shard<0>]
// CHECK-NOT: redistribute_inputs
// CHECK-SAME: : (!dtensor.tensor<10x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<10x4xf32, @tp, [shard<0>]>
// CHECK: ^bb0(%{{.*}}: tensor<?x4xf32>):
func.func @local_region_flat(%w: !dtensor.tensor<10x4xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<10x4xf32, @tp, [shard<0>]> {
  %r = dtensor.local_region on @tp args(%w as "x.weight")
      in_placements = {"x.weight" = none, unused_opt = [replicate]}
      out_placements = [shard<0>]
      : (!dtensor.tensor<10x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<10x4xf32, @tp, [shard<0>]> {
  ^bb0(%l: tensor<?x4xf32>):
    dtensor.yield %l : tensor<?x4xf32>
  }
  return %r : !dtensor.tensor<10x4xf32, @tp, [shard<0>]>
}

// No outputs (checks only): an empty out_placements.
// CHECK-LABEL: func @local_region_no_outputs
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "ids") out_placements = [] : (!dtensor.tensor<8xi64, @tp, [shard<0>]>) -> () {
// CHECK: cf.assert
// CHECK: dtensor.yield{{$}}
func.func @local_region_no_outputs(%ids: !dtensor.tensor<8xi64, @tp, [shard<0>]>) {
  dtensor.local_region on @tp args(%ids as "ids") out_placements = []
      : (!dtensor.tensor<8xi64, @tp, [shard<0>]>) -> () {
  ^bb0(%l: tensor<2xi64>):
    %c0 = arith.constant 0 : index
    %i = tensor.extract %l[%c0] : tensor<2xi64>
    %zero = arith.constant 0 : i64
    %ok = arith.cmpi sge, %i, %zero : i64
    cf.assert %ok, "index must be larger or equal to 0"
    dtensor.yield
  }
  return
}

// No DTensor operand: results are the yielded values, unwrapped, even though
// out_placements is present.
// CHECK-LABEL: func @local_region_no_dtensor
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "x") out_placements = [replicate] : (tensor<4xf32>) -> tensor<4xf32>
func.func @local_region_no_dtensor(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = dtensor.local_region on @tp args(%x as "x") out_placements = [replicate]
      : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Absent out_placements: raw results even with a DTensor operand.
// CHECK-LABEL: func @local_region_raw_results
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "x") : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> tensor<2xf32>
func.func @local_region_raw_results(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> tensor<2xf32> {
  %r = dtensor.local_region on @tp args(%x as "x")
      : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> tensor<2xf32> {
  ^bb0(%l: tensor<2xf32>):
    dtensor.yield %l : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// A yielded DTensor is never re-wrapped, whatever its entry says; an empty
// argument list and an attribute dictionary round-trip.
// CHECK-LABEL: func @local_region_yield_dtensor
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "x", %{{.*}} as "d") out_placements = {{\[}}[replicate], [shard<0>]] attributes {tag = "t"}
// CHECK-LABEL: func @local_region_empty
// CHECK: dtensor.local_region on @tp args() : () -> ()
func.func @local_region_yield_dtensor(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>,
                                      %d: !dtensor.tensor<8xf32, @tp, [replicate]>)
    -> (!dtensor.tensor<8xf32, @tp, [replicate]>, !dtensor.tensor<8xf32, @tp, [replicate]>) {
  %r:2 = dtensor.local_region on @tp args(%x as "x", %d as "d")
      out_placements = [[replicate], [shard<0>]] attributes {tag = "t"}
      : (!dtensor.tensor<8xf32, @tp, [shard<0>]>, !dtensor.tensor<8xf32, @tp, [replicate]>)
     -> (!dtensor.tensor<8xf32, @tp, [replicate]>, !dtensor.tensor<8xf32, @tp, [replicate]>) {
  ^bb0(%l: tensor<2xf32>, %ld: tensor<8xf32>):
    %g = dtensor.from_local %ld : tensor<8xf32> -> !dtensor.tensor<8xf32, @tp, [replicate]>
    dtensor.yield %ld, %g : tensor<8xf32>, !dtensor.tensor<8xf32, @tp, [replicate]>
  }
  return %r#0, %r#1 : !dtensor.tensor<8xf32, @tp, [replicate]>, !dtensor.tensor<8xf32, @tp, [replicate]>
}
func.func @local_region_empty() {
  dtensor.local_region on @tp args() : () -> () {
    dtensor.yield
  }
  return
}

// The layout attribute convert-dtensor-to-shard attaches to boundaries; a
// dynamic global size prints as `?`.
// CHECK-LABEL: func @sharding_attr
// CHECK-SAME: dtensor.sharding = #dtensor.sharding<@mesh, [shard<0>, partial<max>], global = [8, 16]>
// CHECK-SAME: dtensor.sharding = #dtensor.sharding<@mesh, [shard<0>, replicate], global = [?, 16]>
func.func @sharding_attr(%a: tensor<4x16xf32> {dtensor.sharding = #dtensor.sharding<@mesh, [shard<0>, partial<max>], global = [8, 16]>},
                         %b: tensor<?x16xf32> {dtensor.sharding = #dtensor.sharding<@mesh, [shard<0>, replicate], global = [?, 16]>}) {
  return
}

// The decorator form: a local function named like a Python signature, called
// in flat and per-output form, with a passthrough scalar, an unnamed argument
// and the opt-out.
dtensor.mesh @lc shape = [4] names = ["tp"]
func.func private @local_fn(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "scale"}, i64) -> (tensor<2x8xf32>, i64)
func.func private @local_one(tensor<2x8xf32> {dtensor.arg_name = "x"}) -> tensor<2x8xf32>

// CHECK-LABEL: func @local_calls
// CHECK: dtensor.local_call @local_one(%{{.*}}) on @lc out_placements = [shard<0>] : (!dtensor.tensor<8x8xf32, @lc, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @lc, [shard<0>]>
// CHECK: dtensor.local_call @local_fn(%{{.*}}, %{{.*}}, %{{.*}}) on @lc in_placements = {bias = none, x = [shard<0>]} out_placements = {{\[}}[shard<0>], none] redistribute_inputs unchecked : (!dtensor.tensor<8x8xf32, @lc, [replicate]>, f32, i64) -> (!dtensor.tensor<8x8xf32, @lc, [shard<0>]>, i64)
func.func @local_calls(%s: !dtensor.tensor<8x8xf32, @lc, [shard<0>]>, %r: !dtensor.tensor<8x8xf32, @lc, [replicate]>, %k: f32, %n: i64) {
  %a = dtensor.local_call @local_one(%s) on @lc out_placements = [shard<0>]
      : (!dtensor.tensor<8x8xf32, @lc, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @lc, [shard<0>]>
  %b, %c = dtensor.local_call @local_fn(%r, %k, %n) on @lc in_placements = {x = [shard<0>], bias = none}
      out_placements = [[shard<0>], none] redistribute_inputs unchecked
      : (!dtensor.tensor<8x8xf32, @lc, [replicate]>, f32, i64) -> (!dtensor.tensor<8x8xf32, @lc, [shard<0>]>, i64)
  return
}
