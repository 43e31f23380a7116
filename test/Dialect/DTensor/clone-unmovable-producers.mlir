// RUN: hp-opt %s --dtensor-clone-unmovable-producers -split-input-file | FileCheck %s
// RUN: hp-opt %s --pass-pipeline="builtin.module(func.func(dtensor-clone-unmovable-producers, linalg-fuse-elementwise-ops))" -split-input-file | FileCheck %s --check-prefix=FUSED

// A causal mask (i1) shared by two layers' masked_fill: each use gets its
// own copy of the mask's ops (the generic, its tensor.empty, the i64 index
// is movable and stays shared), so fusion takes each copy into its consumer
// and no i1 tensor is left between ops.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @shared_mask
// CHECK-COUNT-2: tensor.empty() : tensor<4x4xi1>
// CHECK-COUNT-2: linalg.generic {{.*}} ins(%arg0 : tensor<4x4xi64>) outs(%{{.*}} : tensor<4x4xi1>)
// CHECK-NOT: ins(%arg0 : tensor<4x4xi64>)
// CHECK: return
// FUSED-LABEL: func.func @shared_mask
// FUSED-NOT: xi1>
// FUSED: return
func.func @shared_mask(%idx: tensor<4x4xi64>, %x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : i64
  %inf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x4xi1>
  %mask = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<4x4xi64>) outs(%e : tensor<4x4xi1>) {
  ^bb0(%i: i64, %o: i1):
    %gt = arith.cmpi sgt, %i, %c0 : i64
    linalg.yield %gt : i1
  } -> tensor<4x4xi1>
  %ef = tensor.empty() : tensor<4x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %x : tensor<4x4xi1>, tensor<4x4xf32>) outs(%ef : tensor<4x4xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %inf, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mask, %a : tensor<4x4xi1>, tensor<4x4xf32>) outs(%ef : tensor<4x4xf32>) {
  ^bb0(%m: i1, %v: f32, %o: f32):
    %s = arith.select %m, %inf, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}

// -----

// Movable values and unmovable values used once are left alone; every
// other use gets its own copy, one per operand, right before the op of this
// block that holds the user (a use inside scf.execute_region gets its copy
// before the execute_region, which dominates it).
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-1: tensor.empty() : tensor<4xf32>
// CHECK-NOT: tensor.empty() : tensor<4xf32>
// CHECK: %[[C:.*]] = arith.constant dense<true> : tensor<4xi1>
// CHECK-NEXT: %[[C0:.*]] = arith.constant dense<true> : tensor<4xi1>
// CHECK-NEXT: %[[C1:.*]] = arith.constant dense<true> : tensor<4xi1>
// CHECK-NEXT: %[[R:.*]] = scf.execute_region
// CHECK-NEXT: arith.andi %[[C1]], %[[C0]]
// CHECK: %[[C2:.*]] = arith.constant dense<true> : tensor<4xi1>
// CHECK-NEXT: arith.ori %[[C2]], %[[C]]
func.func @left_alone(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = arith.addf %x, %e : tensor<4xf32>
  %b = arith.mulf %x, %e : tensor<4xf32>
  %c = arith.constant dense<true> : tensor<4xi1>
  %r = scf.execute_region -> tensor<4xi1> {
    %y = arith.andi %c, %c : tensor<4xi1>
    scf.yield %y : tensor<4xi1>
  }
  %o = arith.ori %c, %c : tensor<4xi1>
  return %a, %b, %r, %o : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>
}
