// dtensor-lower-sorts: a sort becomes a least-significant-digit radix sort on
// tensors, row by row (the rows' loops): one loop over the row counts every
// byte of the keys (a 256-bucket count per byte of the key, one read of the
// row), then one counting-sort pass per byte, lowest first: the byte's
// counts' exclusive prefix (a loop over 256), then each element placed at
// its byte's next position (a loop). The first pass reads the input (an
// element's position is its own), the last writes the results (positions in
// i64), the passes between alternate between two scratch pairs (pass k + 2
// rewrites pass k's), so nothing is copied. The numbers:
// test/e2e/cpu/global-sort.mlir.
// RUN: hp-opt %s -dtensor-lower-sorts | FileCheck %s
// RUN: hp-opt %s -dtensor-lower-sorts -one-shot-bufferize="bufferize-function-boundaries" | FileCheck %s --check-prefix=INPLACE

// CHECK-LABEL: func.func @descending_rows
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// The results (i64 positions), then two scratch pairs with 32-bit positions
// (a row of 8 fits them).
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<3x8xf32>
// CHECK: %[[OUTI:.*]] = tensor.empty() : tensor<3x8xi64>
// CHECK: %[[A:.*]] = tensor.empty() : tensor<3x8xf32>
// CHECK: %[[AI:.*]] = tensor.empty() : tensor<3x8xi32>
// CHECK: %[[B:.*]] = tensor.empty() : tensor<3x8xf32>
// CHECK: %[[BI:.*]] = tensor.empty() : tensor<3x8xi32>
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[ROWS:.*]]:6 = scf.for %[[ROW:.*]] = %{{.*}} to %[[C3]] {{.*}} iter_args(%[[ROUT:.*]] = %[[OUT]], %[[ROUTI:.*]] = %[[OUTI]], %[[RA:.*]] = %[[A]], %[[RAI:.*]] = %[[AI]], %[[RB:.*]] = %[[B]], %[[RBI:.*]] = %[[BI]])
// A 32-bit key: four bytes, four counts of 256.
// CHECK: %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<4x256xindex>
// Count: each element's key, descending: a negative's bits inverted, a
// positive's sign flipped, both zeros the key of +0.0, NaN the largest key;
// then the whole key inverted. Each of its bytes counted.
// CHECK: %[[COUNTS:.*]] = scf.for %{{.*}} = %{{.*}} to %[[C8]] {{.*}} iter_args(%{{.*}} = %[[ZEROS]])
// CHECK: %[[X:.*]] = tensor.extract %arg0[%[[ROW]], %{{.*}}] : tensor<3x8xf32>
// CHECK-DAG: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK-DAG: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK-DAG: %[[SIGN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[BITS]], %{{.*}} : i32
// CHECK: %[[POSKEY:.*]] = arith.xori %[[BITS]], %[[SIGN]] : i32
// CHECK: %[[NEGKEY:.*]] = arith.xori %[[BITS]], %[[ONES]] : i32
// CHECK: %[[ORD:.*]] = arith.select %[[NEG]], %[[NEGKEY]], %[[POSKEY]] : i32
// CHECK: %[[ISZERO:.*]] = arith.cmpf oeq, %[[X]], %{{.*}} : f32
// CHECK: %[[ISNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[Z:.*]] = arith.select %[[ISZERO]], %[[SIGN]], %[[ORD]] : i32
// CHECK: %[[K:.*]] = arith.select %[[ISNAN]], %[[ONES]], %[[Z]] : i32
// CHECK: %[[DESC:.*]] = arith.xori %[[K]], %[[ONES]] : i32
// CHECK: %[[KEY:.*]] = arith.extui %[[DESC]] : i32 to i64
// CHECK: %[[BYTE0:.*]] = arith.andi %{{.*}}, %{{.*}} : i64
// CHECK: %[[B0:.*]] = arith.index_cast %[[BYTE0]] : i64 to index
// CHECK: %[[N0:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[B0]]] : tensor<4x256xindex>
// CHECK: arith.addi %[[N0]], %{{.*}} : index
// CHECK: tensor.insert
// CHECK: %[[S8:.*]] = arith.constant 8 : i64
// CHECK: arith.shrui %[[KEY]], %[[S8]] : i64
// CHECK: arith.constant 16 : i64
// CHECK: arith.constant 24 : i64
// CHECK: scf.yield
// Pass 0: the exclusive prefix of byte 0's counts, each byte value's first
// position; then each value and its own position placed into the first
// scratch pair.
// CHECK: %[[STARTS0:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %[[C256]] {{.*}} iter_args(%{{.*}} = %[[COUNTS]], %{{.*}} = %{{.*}})
// CHECK: %[[P0:.*]]:3 = scf.for %[[P:.*]] = %{{.*}} to %[[C8]] {{.*}} iter_args(%{{.*}} = %[[STARTS0]]#0, %[[T0:.*]] = %[[RA]], %[[TI0:.*]] = %[[RAI]])
// CHECK: %[[V0:.*]] = tensor.extract %arg0[%[[ROW]], %[[P]]] : tensor<3x8xf32>
// CHECK: %[[AT0:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<4x256xindex>
// CHECK: %[[OWN:.*]] = arith.index_cast %[[P]] : index to i32
// CHECK: tensor.insert %[[V0]] into %[[T0]][%[[ROW]], %[[AT0]]] : tensor<3x8xf32>
// CHECK: tensor.insert %[[OWN]] into %[[TI0]][%[[ROW]], %[[AT0]]] : tensor<3x8xi32>
// Pass 1, byte 1: from the first pair into the second.
// CHECK: %[[P1:.*]]:3 = scf.for %[[Q:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[RB]], %{{.*}} = %[[RBI]])
// CHECK: tensor.extract %[[P0]]#1[%[[ROW]], %[[Q]]] : tensor<3x8xf32>
// CHECK: arith.constant 8 : i64
// CHECK: tensor.extract %[[P0]]#2[%[[ROW]], %[[Q]]] : tensor<3x8xi32>
// Pass 2, byte 2: back into the first pair, which pass 1 has read.
// CHECK: %[[P2:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[P0]]#1, %{{.*}} = %[[P0]]#2)
// CHECK: tensor.extract %[[P1]]#1
// CHECK: arith.constant 16 : i64
// Pass 3, byte 3: into the results, the positions widened to i64 as they
// are placed.
// CHECK: %[[P3:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[ROUT]], %{{.*}} = %[[ROUTI]])
// CHECK: tensor.extract %[[P2]]#1
// CHECK: arith.constant 24 : i64
// CHECK: %[[I3:.*]] = tensor.extract %[[P2]]#2
// CHECK: %[[WIDE:.*]] = arith.extsi %[[I3]] : i32 to i64
// CHECK: tensor.insert %[[WIDE]] into %{{.*}} : tensor<3x8xi64>
// CHECK: scf.yield %[[P3]]#1, %[[P3]]#2, %[[P2]]#1, %[[P2]]#2, %[[P1]]#1, %[[P1]]#2 :
// CHECK: return %[[ROWS]]#0, %[[ROWS]]#1
// INPLACE-LABEL: func.func @descending_rows
// INPLACE-NOT: memref.copy
// INPLACE: return
func.func @descending_rows(%x: tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x8xi64>) {
  %v, %i = dtensor.sort %x dim = 1 descending : tensor<3x8xf32> -> tensor<3x8xi64>
  return %v, %i : tensor<3x8xf32>, tensor<3x8xi64>
}

// Ascending integers: the sign bit flipped (signed order as unsigned), not
// inverted; rows along dim 0.
// CHECK-LABEL: func.func @ascending_ints
// CHECK: linalg.fill {{.*}} -> tensor<4x256xindex>
// CHECK: %[[X:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<5x2xi32>
// CHECK: %[[K:.*]] = arith.xori %[[X]], %c-2147483648_i32 : i32
// CHECK-NEXT: arith.extui %[[K]] : i32 to i64
// CHECK-NOT: arith.cmpf
// INPLACE-LABEL: func.func @ascending_ints
// INPLACE-NOT: memref.copy
// INPLACE: return
func.func @ascending_ints(%x: tensor<5x2xi32>) -> (tensor<5x2xi32>, tensor<5x2xi64>) {
  %v, %i = dtensor.sort %x dim = 0 : tensor<5x2xi32> -> tensor<5x2xi64>
  return %v, %i : tensor<5x2xi32>, tensor<5x2xi64>
}

// Dynamic sizes come from the input, and positions are i64 (a row's length
// is not known to fit 32 bits): a 64-bit key is 8 passes, no extui, no
// extsi.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?xf64>
// CHECK: tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: tensor.empty(%[[N]]) : tensor<?xf64>
// CHECK: tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK: linalg.fill {{.*}} -> tensor<8x256xindex>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]]
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK-NOT: arith.extui
// CHECK: arith.constant 56 : i64
// CHECK-NOT: arith.extsi
// CHECK: return
// INPLACE-LABEL: func.func @dynamic
// INPLACE-NOT: memref.copy
// INPLACE: return
func.func @dynamic(%x: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xi64>) {
  %v, %i = dtensor.sort %x dim = 0 : tensor<?xf64> -> tensor<?xi64>
  return %v, %i : tensor<?xf64>, tensor<?xi64>
}

// Booleans sort false first: the bit is the key, inverted descending; one
// pass, from the input straight into the results (no scratch pair).
// CHECK-LABEL: func.func @booleans
// CHECK-COUNT-2: tensor.empty() : tensor<6x
// CHECK-NOT: tensor.empty() : tensor<6x
// CHECK: linalg.fill {{.*}} -> tensor<1x256xindex>
// CHECK: %[[K:.*]] = arith.xori %{{.*}}, %true : i1
// CHECK-NEXT: arith.extui %[[K]] : i1 to i64
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK-NOT: arith.constant 8 : i64
// CHECK: return
// INPLACE-LABEL: func.func @booleans
// INPLACE-NOT: memref.copy
// INPLACE: return
func.func @booleans(%x: tensor<6xi1>) -> (tensor<6xi1>, tensor<6xi64>) {
  %v, %i = dtensor.sort %x dim = 0 descending : tensor<6xi1> -> tensor<6xi64>
  return %v, %i : tensor<6xi1>, tensor<6xi64>
}

// torch's topk: values and indices read only by slices of their first k
// (k at most 64, below the row's length) is a selection: one pass over each
// row keeping the first k so far in order, in k-sized results. An element
// enters when fewer than k are kept or it comes strictly before the last
// kept one (its key `ult` that one's); kept elements it comes strictly
// before move up one place (an scf.while from the end); it takes the place
// left, with its position as its index.
// CHECK-LABEL: func.func @top_four
// CHECK-NOT: arith.constant 256
// CHECK-DAG: %[[C100:.*]] = arith.constant 100 : index
// CHECK-DAG: %[[K:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 3 : index
// CHECK: %[[EV:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[EI:.*]] = tensor.empty() : tensor<3x4xi64>
// CHECK: %[[ROWS:.*]]:2 = scf.for %[[ROW:.*]] = {{.*}} iter_args(%[[RV:.*]] = %[[EV]], %[[RI:.*]] = %[[EI]])
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %[[C100]] {{.*}} iter_args(%[[T:.*]] = %[[RV]], %[[TI:.*]] = %[[RI]], %[[FILLED:.*]] = %{{.*}})
// CHECK: %[[X:.*]] = tensor.extract %arg0[%[[ROW]], %[[P]]] : tensor<3x100xf32>
// CHECK: %[[KEY:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK: %[[NOTFULL:.*]] = arith.cmpi ult, %[[FILLED]], %[[K]] : index
// CHECK: %[[ENTERS:.*]] = scf.if %[[NOTFULL]] -> (i1) {
// CHECK: } else {
// CHECK: tensor.extract %[[T]][%[[ROW]], %[[LAST]]] : tensor<3x4xf32>
// CHECK: arith.cmpi ult, %[[KEY]], %{{.*}} : i64
// CHECK: scf.if %[[ENTERS]] -> (tensor<3x4xf32>, tensor<3x4xi64>, index) {
// CHECK: %[[START:.*]] = arith.minui %[[FILLED]], %[[LAST]] : index
// CHECK: %[[SHIFT:.*]]:3 = scf.while (%{{.*}} = %[[START]], %{{.*}} = %[[T]], %{{.*}} = %[[TI]])
// Place j - 1 is read only when j > 0.
// CHECK: %[[SOME:.*]] = arith.cmpi ugt
// CHECK: %[[MOVES:.*]] = scf.if %[[SOME]] -> (i1)
// CHECK: tensor.extract
// CHECK: arith.cmpi ult, %[[KEY]], %{{.*}} : i64
// CHECK: scf.condition(%[[MOVES]])
// CHECK: } do {
// CHECK: tensor.insert
// CHECK: tensor.insert
// CHECK: %[[PLACED:.*]] = tensor.insert %[[X]] into %[[SHIFT]]#1[%[[ROW]], %[[SHIFT]]#0] : tensor<3x4xf32>
// CHECK: %[[POS:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK: tensor.insert %[[POS]] into %[[SHIFT]]#2[%[[ROW]], %[[SHIFT]]#0] : tensor<3x4xi64>
// CHECK: arith.minui %{{.*}}, %[[K]] : index
// CHECK-NOT: tensor.extract_slice
// CHECK: return %[[ROWS]]#0, %[[ROWS]]#1 : tensor<3x4xf32>, tensor<3x4xi64>
// INPLACE-LABEL: func.func @top_four
// INPLACE-NOT: memref.copy
// INPLACE: return
func.func @top_four(%x: tensor<3x100xf32>) -> (tensor<3x4xf32>, tensor<3x4xi64>) {
  %v, %i = dtensor.sort %x dim = 1 descending : tensor<3x100xf32> -> tensor<3x100xi64>
  %a = tensor.extract_slice %v[0, 0] [3, 4] [1, 1] : tensor<3x100xf32> to tensor<3x4xf32>
  %b = tensor.extract_slice %i[0, 0] [3, 4] [1, 1] : tensor<3x100xi64> to tensor<3x4xi64>
  return %a, %b : tensor<3x4xf32>, tensor<3x4xi64>
}

// Rows of a dynamic count (an uneven split): the slices' sizes are the
// sort's own (tensor.dim of its results, read from the input instead, as is
// the sorted dim's size that --check-bounds asks for), and only the values
// are used.
// CHECK-LABEL: func.func @dynamic_rows_values_only
// CHECK-NOT: arith.constant 256
// CHECK: %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x100xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x4xf32>
// CHECK: scf.while
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c1{{.*}} : tensor<?x100xf32>
// CHECK: return %{{.*}}, %[[N]]
func.func @dynamic_rows_values_only(%x: tensor<?x100xf32>) -> (tensor<?x4xf32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v, %i = dtensor.sort %x dim = 1 : tensor<?x100xf32> -> tensor<?x100xi64>
  %d = tensor.dim %v, %c0 : tensor<?x100xf32>
  %a = tensor.extract_slice %v[0, 0] [%d, 4] [1, 1] : tensor<?x100xf32> to tensor<?x4xf32>
  %n = tensor.dim %i, %c1 : tensor<?x100xi64>
  return %a, %n : tensor<?x4xf32>, index
}

// Sorted in full: k over 64, a slice that does not start at 0, two
// different k, a slice of part of the rows, and any other user.
// CHECK-LABEL: func.func @not_selected
// CHECK-COUNT-5: arith.constant 256 : index
// CHECK-NOT: scf.while
// CHECK: return
func.func @not_selected(%x: tensor<3x100xf32>, %y: tensor<4xf32>) -> (tensor<3x65xf32>, tensor<3x4xf32>, tensor<3x2xi64>, tensor<2x4xf32>, f32) {
  %v, %i = dtensor.sort %x dim = 1 : tensor<3x100xf32> -> tensor<3x100xi64>
  %a = tensor.extract_slice %v[0, 0] [3, 65] [1, 1] : tensor<3x100xf32> to tensor<3x65xf32>
  %v2, %i2 = dtensor.sort %x dim = 1 : tensor<3x100xf32> -> tensor<3x100xi64>
  %b = tensor.extract_slice %v2[0, 1] [3, 4] [1, 1] : tensor<3x100xf32> to tensor<3x4xf32>
  %v3, %i3 = dtensor.sort %x dim = 1 : tensor<3x100xf32> -> tensor<3x100xi64>
  %c0 = tensor.extract_slice %v3[0, 0] [3, 4] [1, 1] : tensor<3x100xf32> to tensor<3x4xf32>
  %c = tensor.extract_slice %i3[0, 0] [3, 2] [1, 1] : tensor<3x100xi64> to tensor<3x2xi64>
  %v4, %i4 = dtensor.sort %x dim = 1 : tensor<3x100xf32> -> tensor<3x100xi64>
  %d = tensor.extract_slice %v4[0, 0] [2, 4] [1, 1] : tensor<3x100xf32> to tensor<2x4xf32>
  %v5, %i5 = dtensor.sort %y dim = 0 : tensor<4xf32> -> tensor<4xi64>
  %one = arith.constant 1 : index
  %e = tensor.extract %v5[%one] : tensor<4xf32>
  return %a, %b, %c, %d, %e : tensor<3x65xf32>, tensor<3x4xf32>, tensor<3x2xi64>, tensor<2x4xf32>, f32
}
