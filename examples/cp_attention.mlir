// Context-parallel attention on a 1-D "cp" mesh of 4 ranks: the sequence of
// Q, K and V is split over "cp". Inside a local region each rank keeps its
// query block while the key/value blocks travel around the ring with
// dtensor.shift, one step per rank, and an online softmax (running max,
// running denominator, rescaled accumulator) folds in each block. The
// output keeps the queries' placement; it equals full softmax(Q K^T) V up
// to float rounding (tested within 1e-5).
//
// Sequence S = 8, head dim D = 4; per rank 2x4 blocks.
//
//   hp-runner -np 4 examples/cp_attention.mlir -e main --entry-point-result=void

dtensor.mesh @cp shape = [4] names = ["cp"]

func.func @cp_attention(%q: !dtensor.tensor<8x4xf32, @cp, [shard<0>]>,
                        %k: !dtensor.tensor<8x4xf32, @cp, [shard<0>]>,
                        %v: !dtensor.tensor<8x4xf32, @cp, [shard<0>]>)
    -> !dtensor.tensor<8x4xf32, @cp, [shard<0>]> {
  %o = dtensor.local_region on @cp args(%q as "query", %k as "key", %v as "value")
      in_placements = {query = [shard<0>], key = [shard<0>], value = [shard<0>]}
      out_placements = [shard<0>]
      : (!dtensor.tensor<8x4xf32, @cp, [shard<0>]>, !dtensor.tensor<8x4xf32, @cp, [shard<0>]>,
         !dtensor.tensor<8x4xf32, @cp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @cp, [shard<0>]> {
  ^bb0(%ql: tensor<2x4xf32>, %kl: tensor<2x4xf32>, %vl: tensor<2x4xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %steps = arith.constant 4 : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %me = tensor.empty() : tensor<2xf32>
    %m0 = linalg.fill ins(%ninf : f32) outs(%me : tensor<2xf32>) -> tensor<2xf32>
    %l0 = linalg.fill ins(%zero : f32) outs(%me : tensor<2xf32>) -> tensor<2xf32>
    %ae = tensor.empty() : tensor<2x4xf32>
    %a0 = linalg.fill ins(%zero : f32) outs(%ae : tensor<2x4xf32>) -> tensor<2x4xf32>
    %qd = tensor.cast %ql : tensor<2x4xf32> to tensor<?x?xf32>
    %res:5 = scf.for %i = %c0 to %steps step %c1
        iter_args(%m = %m0, %l = %l0, %acc = %a0, %kb = %kl, %vb = %vl)
        -> (tensor<2xf32>, tensor<2xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
      %md = tensor.cast %m : tensor<2xf32> to tensor<?xf32>
      %ld = tensor.cast %l : tensor<2xf32> to tensor<?xf32>
      %ad = tensor.cast %acc : tensor<2x4xf32> to tensor<?x?xf32>
      %kd = tensor.cast %kb : tensor<2x4xf32> to tensor<?x?xf32>
      %vd = tensor.cast %vb : tensor<2x4xf32> to tensor<?x?xf32>
      %s:3 = func.call @attention_step(%qd, %kd, %vd, %md, %ld, %ad)
          : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>)
         -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>)
      %m2 = tensor.cast %s#0 : tensor<?xf32> to tensor<2xf32>
      %l2 = tensor.cast %s#1 : tensor<?xf32> to tensor<2xf32>
      %a2 = tensor.cast %s#2 : tensor<?x?xf32> to tensor<2x4xf32>
      // Pass the key/value blocks to the next rank of the ring.
      %kn = dtensor.shift %kb on @cp axes = ["cp"] offset = 1 rotate : tensor<2x4xf32> -> tensor<2x4xf32>
      %vn = dtensor.shift %vb on @cp axes = ["cp"] offset = 1 rotate : tensor<2x4xf32> -> tensor<2x4xf32>
      scf.yield %m2, %l2, %a2, %kn, %vn : tensor<2xf32>, tensor<2xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
    }
    %od = func.call @normalize(%res#2, %res#1) : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
    dtensor.yield %od : tensor<2x4xf32>
  }
  return %o : !dtensor.tensor<8x4xf32, @cp, [shard<0>]>
}

// One online-softmax step: fold the scores of q against one key/value block
// into the running max m, denominator l and accumulator acc.
func.func @attention_step(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>,
                          %m: tensor<?xf32>, %l: tensor<?xf32>, %acc: tensor<?x?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %rows = tensor.dim %q, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %k, %c0 : tensor<?x?xf32>
  %dim = tensor.dim %v, %c1 : tensor<?x?xf32>
  // s = q k^T
  %se = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%se : tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<?x?xf32>, tensor<?x?xf32>) outs(%sz : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %o, %p : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  // m' = max(m, rowmax(s))
  %mn = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<?x?xf32>) outs(%m : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  // p = exp(s - m'), corr = exp(m - m')
  %p = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%s, %mn : tensor<?x?xf32>, tensor<?xf32>) outs(%se : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %ce = tensor.empty(%rows) : tensor<?xf32>
  %corr = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                          iterator_types = ["parallel"]}
      ins(%m, %mn : tensor<?xf32>, tensor<?xf32>) outs(%ce : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?xf32>
  // l' = l corr + rowsum(p)
  %lc = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
      ins(%l, %corr : tensor<?xf32>, tensor<?xf32>) outs(%ce : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %ln = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<?x?xf32>) outs(%lc : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  // acc' = acc corr + p v
  %ae = tensor.empty(%rows, %dim) : tensor<?x?xf32>
  %ac = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i, d)>, affine_map<(i, d) -> (i)>, affine_map<(i, d) -> (i, d)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%acc, %corr : tensor<?x?xf32>, tensor<?xf32>) outs(%ae : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %an = linalg.generic {indexing_maps = [affine_map<(i, d, j) -> (i, j)>, affine_map<(i, d, j) -> (j, d)>, affine_map<(i, d, j) -> (i, d)>],
                        iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<?x?xf32>, tensor<?x?xf32>) outs(%ac : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %x = arith.mulf %a, %b : f32
    %r = arith.addf %o, %x : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %mn, %ln, %an : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
}

func.func @normalize(%acc: tensor<2x4xf32>, %l: tensor<2xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i, d)>, affine_map<(i, d) -> (i)>, affine_map<(i, d) -> (i, d)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc, %l : tensor<2x4xf32>, tensor<2xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4xf32>
  return %o : tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// @main: full attention on one device, and the check.
//===----------------------------------------------------------------------===//

// value[i, j] = (((a i + b j) mod m) - off) / 4
func.func @pattern(%rows: index, %cols: index, %a: index, %b: index, %m: index, %off: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ai = arith.muli %i, %a : index
    %bj = arith.muli %j, %b : index
    %s = arith.addi %ai, %bj : index
    %r = arith.remui %s, %m : index
    %v = arith.subi %r, %off : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    %quarter = arith.constant 0.25 : f32
    %q = arith.mulf %f, %quarter : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %qd = func.call @pattern(%c8, %c4, %c3, %c1, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %kd = func.call @pattern(%c8, %c4, %c2, %c3, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %vd = func.call @pattern(%c8, %c4, %c1, %c2, %c7, %c4) : (index, index, index, index, index, index) -> tensor<?x?xf32>

  // Full attention: one online-softmax step over the whole sequence.
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %me = tensor.empty(%c8) : tensor<?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%me : tensor<?xf32>) -> tensor<?xf32>
  %l0 = linalg.fill ins(%zero : f32) outs(%me : tensor<?xf32>) -> tensor<?xf32>
  %ae = tensor.empty(%c8, %c4) : tensor<?x?xf32>
  %a0 = linalg.fill ins(%zero : f32) outs(%ae : tensor<?x?xf32>) -> tensor<?x?xf32>
  %full:3 = func.call @attention_step(%qd, %kd, %vd, %m0, %l0, %a0)
      : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>)
     -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>)
  %want = linalg.generic {indexing_maps = [affine_map<(i, d) -> (i, d)>, affine_map<(i, d) -> (i)>, affine_map<(i, d) -> (i, d)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%full#2, %full#1 : tensor<?x?xf32>, tensor<?xf32>) outs(%ae : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>

  %q = tensor.cast %qd : tensor<?x?xf32> to tensor<8x4xf32>
  %k = tensor.cast %kd : tensor<?x?xf32> to tensor<8x4xf32>
  %v = tensor.cast %vd : tensor<?x?xf32> to tensor<8x4xf32>
  %rq = dtensor.from_local %q : tensor<8x4xf32> -> !dtensor.tensor<8x4xf32, @cp, [replicate]>
  %dq = dtensor.redistribute %rq : !dtensor.tensor<8x4xf32, @cp, [replicate]> -> !dtensor.tensor<8x4xf32, @cp, [shard<0>]>
  %rk = dtensor.from_local %k : tensor<8x4xf32> -> !dtensor.tensor<8x4xf32, @cp, [replicate]>
  %dk = dtensor.redistribute %rk : !dtensor.tensor<8x4xf32, @cp, [replicate]> -> !dtensor.tensor<8x4xf32, @cp, [shard<0>]>
  %rv = dtensor.from_local %v : tensor<8x4xf32> -> !dtensor.tensor<8x4xf32, @cp, [replicate]>
  %dv = dtensor.redistribute %rv : !dtensor.tensor<8x4xf32, @cp, [replicate]> -> !dtensor.tensor<8x4xf32, @cp, [shard<0>]>
  %do = func.call @cp_attention(%dq, %dk, %dv)
      : (!dtensor.tensor<8x4xf32, @cp, [shard<0>]>, !dtensor.tensor<8x4xf32, @cp, [shard<0>]>,
         !dtensor.tensor<8x4xf32, @cp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @cp, [shard<0>]>
  %ro = dtensor.redistribute %do : !dtensor.tensor<8x4xf32, @cp, [shard<0>]> -> !dtensor.tensor<8x4xf32, @cp, [replicate]>
  %o = dtensor.to_local %ro : !dtensor.tensor<8x4xf32, @cp, [replicate]> -> tensor<8x4xf32>

  %init = tensor.from_elements %zero : tensor<f32>
  %od = tensor.cast %o : tensor<8x4xf32> to tensor<?x?xf32>
  %diff = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                          iterator_types = ["reduction", "reduction"]}
      ins(%od, %want : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%p: f32, %r: f32, %acc: f32):
    %s = arith.subf %p, %r : f32
    %abs = math.absf %s : f32
    %mx = arith.maximumf %acc, %abs : f32
    linalg.yield %mx : f32
  } -> tensor<f32>
  %d = tensor.extract %diff[] : tensor<f32>
  // The ring sums blocks in another order than full attention.
  %tol = arith.constant 1.0e-5 : f32
  %ok = arith.cmpf ole, %d, %tol : f32
  scf.if %ok {
    vector.print str "cp_attention: this rank matches full attention within 1e-05\n"
  } else {
    vector.print str "cp_attention: MISMATCH with full attention, max |diff| = "
    vector.print %d : f32
  }
  return
}
