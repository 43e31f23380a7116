// RUN: hp-opt %s --vectorize-linalg-on-buffers -split-input-file | FileCheck %s
// RUN: hp-opt %s --vectorize-linalg-on-buffers="register-bits=256" -split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: not hp-opt %s --vectorize-linalg-on-buffers="register-bits=-512" -split-input-file 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: not hp-opt %s --vectorize-linalg-on-buffers="register-bits=100" -split-input-file 2>&1 | FileCheck %s --check-prefix=BITS100
// BITS: error: register-bits must be a multiple of 8 from 8 to 8192, got -512
// BITS100: error: register-bits must be a multiple of 8 from 8 to 8192, got 100

// An elementwise body: the innermost loop by one 512-bit register of f32
// (16 lanes), the outer loop by 1; the 6 full tiles of 100 = 6 x 16 + 4 run
// unmasked on static views, the peeled last tile under a mask. With 256-bit
// registers, 8 lanes.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.for %[[I:.*]] = %c0 to %c4 step %c1
// CHECK: scf.for %[[J:.*]] = %c0 to %c96 step %c16
// CHECK-NOT: vector.create_mask
// CHECK: vector.transfer_read %{{.*}}[%c0, %c0], %{{[^,]*}} {in_bounds = [true]} : memref<1x16xf32, strided<[100, 1], offset: ?>>, vector<16xf32>
// CHECK: arith.addf {{.*}} : vector<16xf32>
// exp on vectors is upstream's f32 polynomial approximation: no libm call
// per lane.
// CHECK-NOT: math.exp
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %c0] {in_bounds = [true]} : vector<16xf32>, memref<1x16xf32
// CHECK: scf.for %[[K:.*]] = %c96 to %c100 step %c16
// CHECK: %[[N:.*]] = affine.apply #{{.*}}(%[[K]])
// CHECK: %[[M2:.*]] = vector.create_mask %c1, %[[N]] : vector<1x16xi1>
// CHECK: %[[M:.*]] = vector.extract %[[M2]][0] : vector<16xi1> from vector<1x16xi1>
// CHECK: vector.transfer_read {{.*}}, %[[M]] {in_bounds = [true]} : memref<1x?xf32, strided<[100, 1], offset: ?>>, vector<16xf32>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true]} : vector<16xf32>, memref<1x?xf32
// CHECK-NOT: linalg.generic
// CHECK-NOT: math.exp
// AVX2-LABEL: func.func @elementwise
// AVX2: step %c8
// AVX2: arith.addf {{.*}} : vector<8xf32>
func.func @elementwise(%a: memref<4x100xf32>, %b: memref<4x100xf32>, %c: memref<4x100xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<4x100xf32>, memref<4x100xf32>) outs(%c : memref<4x100xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %e = math.exp %s : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A row reduction: each tile of the reduced dim is one vector reduction
// into the accumulator, its masked-off lanes set to the identity (-inf for
// maximumf; upstream's masked lowering uses -denorm_min, wrong for rows of
// negative numbers).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// The full tiles of a row combine lane by lane into a vector accumulator
// (starting at -inf) and one reduction after the loop folds it into the
// row's element, read and written once; the peeled last tile does the same
// with its masked-off lanes set to -inf.
// CHECK-LABEL: func.func @row_max
// CHECK: %[[NEGINF:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK: scf.for
// CHECK: %[[ACC:.*]] = scf.for {{.*}} = %c0 to %c32 step %c16 iter_args(%[[A:.*]] = %{{.*}}) -> (vector<16xf32>)
// CHECK-NOT: vector.reduction
// CHECK: %[[M:.*]] = arith.maximumf %{{.*}}, %[[A]] : vector<16xf32>
// CHECK: scf.yield %[[M]]
// CHECK: %[[OLD:.*]] = vector.transfer_read
// CHECK: %[[E:.*]] = vector.extract %[[OLD]][0]
// CHECK: vector.reduction <maximumf>, %[[ACC]], %[[E]] : vector<16xf32> into f32
// CHECK: vector.transfer_write
// CHECK: scf.for {{.*}} = %c32 to %c37 step %c16
// CHECK: %[[KEPT:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEGINF]] : vector<16xi1>, vector<16xf32>
// CHECK: arith.maximumf %[[KEPT]], %{{.*}} : vector<16xf32>
// CHECK: vector.reduction <maximumf>
// CHECK-NOT: vector.mask
// CHECK-NOT: linalg.generic
func.func @row_max(%a: memref<3x37xf32>, %c: memref<3xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<3x37xf32>) outs(%c : memref<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %o : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Dynamic extents and the register of the widest-lane type: an i8 -> f64
// conversion takes 8 lanes (one register of f64), a strided view is read
// through its strides.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @dynamic_mixed
// CHECK: memref.dim
// CHECK: step %c8
// CHECK: vector.transfer_read {{.*}} : memref<1x?xi8, strided<[?, 1], offset: ?>>, vector<8xi8>
// CHECK: arith.sitofp {{.*}} : vector<8xi8> to vector<8xf64>
// CHECK-NOT: linalg.generic
func.func @dynamic_mixed(%a: memref<?x?xi8>, %c: memref<?x?xf64, strided<[?, 1], offset: ?>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x?xi8>) outs(%c : memref<?x?xf64, strided<[?, 1], offset: ?>>) {
  ^bb0(%x: i8, %o: f64):
    %f = arith.sitofp %x : i8 to f64
    linalg.yield %f : f64
  }
  return
}

// -----

// Left for convert-linalg-to-loops: i1 and index elements, a body that
// reads a tensor (a gather), ops on tensors, and a transposed access of the
// innermost loop (a strided gather: its masked lowering would read past the
// end of the buffer).
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @transposed
// CHECK: linalg.transpose
// CHECK-NOT: vector.
func.func @left_alone(%m: memref<8xi1>, %i: memref<8xindex>, %t: tensor<8xf32>, %o: memref<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%m : memref<8xi1>) outs(%o : memref<8xf32>) {
  ^bb0(%b: i1, %out: f32):
    %z = arith.uitofp %b : i1 to f32
    linalg.yield %z : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%i : memref<8xindex>) outs(%o : memref<8xf32>) {
  ^bb0(%k: index, %out: f32):
    %v = tensor.extract %t[%k] : tensor<8xf32>
    linalg.yield %v : f32
  }
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%x : tensor<8xf32>) {
  ^bb0(%v: f32, %out: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @transposed(%a: memref<600x257xf32>, %c: memref<257x600xf32>) {
  linalg.transpose ins(%a : memref<600x257xf32>) outs(%c : memref<257x600xf32>) permutation = [1, 0]
  return
}

// -----

// x ** 2 (torch's x.pow(2) imports as math.fpowi) vectorizes with a vector
// exponent, which LLVM's powi refuses: it becomes multiplications.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @square
// CHECK-NOT: math.fpowi
// CHECK: arith.mulf %[[X:.*]], %[[X]] : vector<16xf32>
func.func @square(%a: memref<40xf32>, %c: memref<40xf32>) {
  %two = arith.constant 2 : i64
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<40xf32>) outs(%c : memref<40xf32>) {
  ^bb0(%x: f32, %o: f32):
    %p = math.fpowi %x, %two : f32, i64
    linalg.yield %p : f32
  }
  return
}

// -----

// Reductions over the innermost loop whose combined term does not vary
// along it (a constant, an input broadcast along it) or that read
// linalg.index keep scalar loops: upstream's vectorizer stores such a term
// as if elementwise (a vector into the one output element) or loses the
// accumulator. A term read from an input that varies along the loop is
// vectorized, and so is a constant term of a reduction over an outer loop
// (tiled by 1).
// CHECK-LABEL: func.func @reduction_terms
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: vector.reduction <add>
// CHECK-NOT: linalg.generic
// CHECK: vector.transfer_write {{.*}} : vector<16xf32>, memref<16xf32
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @reduction_terms(%in: memref<3x100xf32>, %row: memref<3xf32>, %col: memref<100xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<3x100xf32>) outs(%row : memref<3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %acc, %one : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%in, %row : memref<3x100xf32>, memref<3xf32>) outs(%row : memref<3xf32>) {
  ^bb0(%unused: f32, %x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<3x100xf32>) outs(%row : memref<3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f32
    %t = arith.addf %x, %jf : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<3x100xf32>) outs(%row : memref<3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %two = arith.constant 2.0 : f32
    %t = arith.mulf %x, %two : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%in : memref<3x100xf32>) outs(%col : memref<100xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %one = arith.constant 1.0 : f32
    %s = arith.addf %acc, %one : f32
    linalg.yield %s : f32
  }
  return
}
