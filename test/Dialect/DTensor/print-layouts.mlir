// The grids were worked out by hand from torch.chunk: 10 rows in 2 parts are
// 0-4 and 5-9, 8 columns 0-3 and 4-7; 7 split over 2 then 2 is (4: 2, 2),
// (3: 2, 1); 3 over 4 leaves device 3 empty.
// RUN: hp-opt %s -dtensor-print-layouts --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --strict-whitespace

dtensor.mesh @m shape = [2, 2]
dtensor.mesh @four shape = [4]
dtensor.mesh @big shape = [16, 16, 2]

// CHECK: remark: layout of !dtensor.tensor<10x8xf32, @m, [shard<0>, shard<1>]>:
// CHECK-NEXT: {{^}}  rows \ cols  0-3     4-7{{$}}
// CHECK-NEXT: {{^}}  0-4          dev 0   dev 1{{$}}
// CHECK-NEXT: {{^}}  5-9          dev 2   dev 3{{$}}
// CHECK: remark: layout of !dtensor.tensor<7xf32, @m, [shard<0>, shard<0>]>:
// CHECK-NEXT: {{^}}  elements  devices{{$}}
// CHECK-NEXT: {{^}}  0-1       dev 0{{$}}
// CHECK-NEXT: {{^}}  2-3       dev 1{{$}}
// CHECK-NEXT: {{^}}  4-5       dev 2{{$}}
// CHECK-NEXT: {{^}}  6         dev 3{{$}}
// CHECK: remark: layout of !dtensor.tensor<4x6xf32, @m, [replicate, partial<sum>]>:
// CHECK-NEXT: {{^}}  rows \ cols  0-5{{$}}
// CHECK-NEXT: {{^}}  0-3          dev 0,1,2,3{{$}}
// CHECK-NEXT: (partial: the devices of a cell hold parts that reduce to the block)
func.func @f(%a: !dtensor.tensor<10x8xf32, @m, [shard<0>, shard<1>]>,
             %b: !dtensor.tensor<7xf32, @m, [shard<0>, shard<0>]>,
             %c: !dtensor.tensor<4x6xf32, @m, [replicate, partial<sum>]>) {
  return
}

// Results are drawn too; an empty block shows as (empty).
// CHECK: remark: layout of !dtensor.tensor<3xf32, @four, [shard<0>]>:
// CHECK: {{^}}  (empty)   dev 3{{$}}
// CHECK: remark: layout of !dtensor.tensor<8xf32, @big, [shard<0>, replicate, replicate]>: 512 devices, too many to draw
func.func @g(%x: tensor<3xf32>, %y: tensor<?xf32>) {
  %d = dtensor.from_local %x : tensor<3xf32> -> !dtensor.tensor<3xf32, @four, [replicate]>
  %s = dtensor.redistribute %d : !dtensor.tensor<3xf32, @four, [replicate]> -> !dtensor.tensor<3xf32, @four, [shard<0>]>
  %e = dtensor.from_local %y : tensor<?xf32> -> !dtensor.tensor<8xf32, @big, [shard<0>, replicate, replicate]>
  return
}
