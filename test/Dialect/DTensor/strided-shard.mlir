// strided_shard<d, f> (torch's _StridedShard): round trip in every place a
// placement list appears, the local types it implies, and its layout drawn
// by hand from torch's chunk definition.
// RUN: hp-opt %s | hp-opt | FileCheck %s
// RUN: hp-opt %s --mlir-print-op-generic | hp-opt | FileCheck %s
// RUN: hp-opt %s -dtensor-print-layouts --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAYOUT --strict-whitespace
// Every op here partitions (local regions and calls expand, their
// redistributes plan and pass the checker).
// RUN: hp-opt %s --hp-partition="verify-plans" -o /dev/null

dtensor.mesh @m shape = [2, 2] names = ["dp", "tp"]
dtensor.mesh @cube shape = [2, 2, 2]

// CHECK-LABEL: func @types
// CHECK-SAME: !dtensor.tensor<8x6xf32, @m, [strided_shard<0, 2>, shard<0>]>
// CHECK-SAME: !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]>
// CHECK-SAME: !dtensor.tensor<8x3xf32, @cube, [strided_shard<0, 4>, strided_shard<0, 2>, shard<0>]>
// CHECK-SAME: !dtensor.tensor<8x3xf32, @cube, [shard<0>, strided_shard<0, 2>, shard<0>]>
// CHECK-SAME: !dtensor.tensor<7x3xf32, @m, [strided_shard<0, 1>, shard<1>]>
func.func @types(
    %a: !dtensor.tensor<8x6xf32, @m, [strided_shard<0, 2>, shard<0>]>,
    %b: !dtensor.tensor<8x5xf32, @m, [#dtensor.strided_shard<0, 2>, shard<0>]>,
    %c: !dtensor.tensor<8x3xf32, @cube, [strided_shard<0, 4>, strided_shard<0, 2>, shard<0>]>,
    %d: !dtensor.tensor<8x3xf32, @cube, [shard<0>, strided_shard<0, 2>, shard<0>]>,
    // Split factor 1 is a plain shard: uneven sizes are fine.
    %e: !dtensor.tensor<7x3xf32, @m, [strided_shard<0, 1>, shard<1>]>) {
  return
}

// Local types: 8 rows over 4 devices are 2 each; 5 columns stay whole.
// CHECK-LABEL: func @locals
// CHECK: dtensor.to_local %{{.*}} : !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]> -> tensor<2x5xf32>
// CHECK: dtensor.from_local %{{.*}} : tensor<2x5xf32> -> !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]>
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]> -> !dtensor.tensor<8x5xf32, @m, [shard<0>, shard<0>]>
func.func @locals(%a: !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]>)
    -> !dtensor.tensor<8x5xf32, @m, [shard<0>, shard<0>]> {
  %l = dtensor.to_local %a : !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]> -> tensor<2x5xf32>
  %b = dtensor.from_local %l : tensor<2x5xf32> -> !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]>
  %r = dtensor.redistribute %b : !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]> -> !dtensor.tensor<8x5xf32, @m, [shard<0>, shard<0>]>
  return %r : !dtensor.tensor<8x5xf32, @m, [shard<0>, shard<0>]>
}

// In a local region's contract, both ways.
// CHECK-LABEL: func @region
// CHECK: in_placements = {x = [strided_shard<0, 2>, shard<0>]} out_placements = [shard<0>, strided_shard<0, 1>] redistribute_inputs
func.func @region(%a: !dtensor.tensor<8x5xf32, @m, [replicate, replicate]>)
    -> !dtensor.tensor<8x5xf32, @m, [shard<0>, strided_shard<0, 1>]> {
  %r = dtensor.local_region on @m args(%a as "x")
      in_placements = {x = [strided_shard<0, 2>, shard<0>]}
      out_placements = [shard<0>, strided_shard<0, 1>] redistribute_inputs
      : (!dtensor.tensor<8x5xf32, @m, [replicate, replicate]>)
     -> !dtensor.tensor<8x5xf32, @m, [shard<0>, strided_shard<0, 1>]> {
  ^bb0(%l: tensor<2x5xf32>):
    dtensor.yield %l : tensor<2x5xf32>
  }
  return %r : !dtensor.tensor<8x5xf32, @m, [shard<0>, strided_shard<0, 1>]>
}

// And at a local_call site, both ways.
// CHECK-LABEL: func @call
// CHECK: dtensor.local_call @keep(%{{.*}}) on @m in_placements = {x = [strided_shard<0, 2>, shard<0>]} out_placements = [strided_shard<0, 2>, shard<0>] redistribute_inputs
func.func private @keep(%x: tensor<2x5xf32> {dtensor.arg_name = "x"}) -> tensor<2x5xf32>
func.func @call(%a: !dtensor.tensor<8x5xf32, @m, [replicate, replicate]>)
    -> !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]> {
  %r = dtensor.local_call @keep(%a) on @m
      in_placements = {x = [strided_shard<0, 2>, shard<0>]}
      out_placements = [strided_shard<0, 2>, shard<0>] redistribute_inputs
      : (!dtensor.tensor<8x5xf32, @m, [replicate, replicate]>)
     -> !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]>
  return %r : !dtensor.tensor<8x5xf32, @m, [strided_shard<0, 2>, shard<0>]>
}

// torch: 8 rows in 2*2 chunks of 2; dp coordinate i holds chunks i and i+2,
// tp splits that: device (i, j) holds chunk i + 2j. Device 1 = (0, 1) holds
// rows 4-5, device 2 = (1, 0) rows 2-3.
// LAYOUT: remark: layout of !dtensor.tensor<8x6xf32, @m, [strided_shard<0, 2>, shard<0>]>:
// LAYOUT-NEXT: {{^}}  rows \ cols  0-5{{$}}
// LAYOUT-NEXT: {{^}}  0-1          dev 0{{$}}
// LAYOUT-NEXT: {{^}}  2-3          dev 2{{$}}
// LAYOUT-NEXT: {{^}}  4-5          dev 1{{$}}
// LAYOUT-NEXT: {{^}}  6-7          dev 3{{$}}
// On (a, b, c) = 2x2x2, [S(0), SS(0, 2), S(0)]: a halves the rows (0-3,
// 4-7); b cuts a half in 4 chunks of 1 and holds chunks j and j+2; c splits
// that pair. Device (a, b, c) holds row 4a + b + 2c.
// LAYOUT: remark: layout of !dtensor.tensor<8x3xf32, @cube, [shard<0>, strided_shard<0, 2>, shard<0>]>:
// LAYOUT-NEXT: {{^}}  rows \ cols  0-2{{$}}
// LAYOUT-NEXT: {{^}}  0            dev 0{{$}}
// LAYOUT-NEXT: {{^}}  1            dev 2{{$}}
// LAYOUT-NEXT: {{^}}  2            dev 1{{$}}
// LAYOUT-NEXT: {{^}}  3            dev 3{{$}}
// LAYOUT-NEXT: {{^}}  4            dev 4{{$}}
func.func @draw(%a: !dtensor.tensor<8x6xf32, @m, [strided_shard<0, 2>, shard<0>]>,
                %b: !dtensor.tensor<8x3xf32, @cube, [shard<0>, strided_shard<0, 2>, shard<0>]>) {
  return
}
