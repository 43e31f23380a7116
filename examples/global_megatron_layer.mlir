// A Megatron-style transformer layer with tensor and sequence parallelism,
// written in GLOBAL view on a 1-D "tp" mesh of 4: one dtensor.global_region
// holds the single-device ops on global tensors, and only the layouts a
// model author gives are written down:
//   x          [shard<0>]   [seq, hidden], sequence parallel
//   g1, b1, g2, b2 (layernorm scales and shifts) [replicate]
//   wq, wk, wv [shard<1>]   column parallel (each rank: one of the 4 heads)
//   wo         [shard<0>]   row parallel
//   w1         [shard<1>]   column parallel
//   w2         [shard<0>]   row parallel
//   result     [shard<0>]   sequence parallel
// plus one constraint: the residual stream between attention and MLP is
// sequence parallel. dtensor-propagate places every other value.
//
//   a   = layernorm(x)                       (mean, variance, rsqrt over hidden)
//   q, k, v = a @ wq, a @ wk, a @ wv         [seq, hidden]
//   heads: expand_shape to [seq, heads, dh], transpose to [heads, seq, dh]
//   p   = softmax(causal_mask(q k^T / sqrt(dh)))   per head
//   ctx = (p v) transposed back to [seq, heads, dh], collapsed to [seq, hidden]
//   r1  = x + ctx @ wo
//   out = r1 + gelu(layernorm(r1) @ w1) @ w2  (gelu: tanh approximation)
//
// seq 16, hidden 32, heads 4, dh 8, MLP 64. The inputs are small multiples
// of small integers, scaled so the scores stay near 1 (well-conditioned
// softmax); every rank compares with the same ops on one device within an
// f32 tolerance (1e-4 of the largest value):
//   hp-runner -np 4 examples/global_megatron_layer.mlir -e main --entry-point-result=void

#v = affine_map<(s) -> (s)>
#sh = affine_map<(s, h) -> (s, h)>
#s = affine_map<(s, h) -> (s)>
#h = affine_map<(s, h) -> (h)>
#hij = affine_map<(h, i, j) -> (h, i, j)>
#hi = affine_map<(h, i, j) -> (h, i)>

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @megatron_layer(
    %dx: !dtensor.tensor<16x32xf32, @tp, [shard<0>]>,
    %dg1: !dtensor.tensor<32xf32, @tp, [replicate]>,
    %db1: !dtensor.tensor<32xf32, @tp, [replicate]>,
    %dwq: !dtensor.tensor<32x32xf32, @tp, [shard<1>]>,
    %dwk: !dtensor.tensor<32x32xf32, @tp, [shard<1>]>,
    %dwv: !dtensor.tensor<32x32xf32, @tp, [shard<1>]>,
    %dwo: !dtensor.tensor<32x32xf32, @tp, [shard<0>]>,
    %dg2: !dtensor.tensor<32xf32, @tp, [replicate]>,
    %db2: !dtensor.tensor<32xf32, @tp, [replicate]>,
    %dw1: !dtensor.tensor<32x64xf32, @tp, [shard<1>]>,
    %dw2: !dtensor.tensor<64x32xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x32xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%dx, %dg1, %db1, %dwq, %dwk, %dwv, %dwo, %dg2, %db2, %dw1, %dw2)
      : (!dtensor.tensor<16x32xf32, @tp, [shard<0>]>,
         !dtensor.tensor<32xf32, @tp, [replicate]>,
         !dtensor.tensor<32xf32, @tp, [replicate]>,
         !dtensor.tensor<32x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x32xf32, @tp, [shard<0>]>,
         !dtensor.tensor<32xf32, @tp, [replicate]>,
         !dtensor.tensor<32xf32, @tp, [replicate]>,
         !dtensor.tensor<32x64xf32, @tp, [shard<1>]>,
         !dtensor.tensor<64x32xf32, @tp, [shard<0>]>)
     -> !dtensor.tensor<16x32xf32, @tp, [shard<0>]> {
  ^bb0(%x: tensor<16x32xf32>,
       %g1: tensor<32xf32>,
       %b1: tensor<32xf32>,
       %wq: tensor<32x32xf32>,
       %wk: tensor<32x32xf32>,
       %wv: tensor<32x32xf32>,
       %wo: tensor<32x32xf32>,
       %g2: tensor<32xf32>,
       %b2: tensor<32xf32>,
       %w1: tensor<32x64xf32>,
       %w2: tensor<64x32xf32>):
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %hidden = arith.constant 32.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %scale = arith.constant 0.353553385 : f32
    %masked = arith.constant -1.0e9 : f32
    // ln1: layernorm over hidden (mean, variance, rsqrt).
    %ln1_e = tensor.empty() : tensor<16xf32>
    %ln1_z = linalg.fill ins(%zero : f32) outs(%ln1_e : tensor<16xf32>) -> tensor<16xf32>
    %ln1_sum = linalg.generic {indexing_maps = [#sh, #s], iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<16x32xf32>) outs(%ln1_z : tensor<16xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %ln1_mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%ln1_sum : tensor<16xf32>) outs(%ln1_e : tensor<16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.divf %a, %hidden : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %ln1_sq = linalg.generic {indexing_maps = [#sh, #s, #s], iterator_types = ["parallel", "reduction"]}
        ins(%x, %ln1_mean : tensor<16x32xf32>, tensor<16xf32>) outs(%ln1_z : tensor<16xf32>) {
    ^bb0(%a: f32, %m: f32, %acc: f32):
      %d = arith.subf %a, %m : f32
      %d2 = arith.mulf %d, %d : f32
      %r = arith.addf %acc, %d2 : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %ln1_rstd = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%ln1_sq : tensor<16xf32>) outs(%ln1_e : tensor<16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %var = arith.divf %a, %hidden : f32
      %ve = arith.addf %var, %eps : f32
      %r = math.rsqrt %ve : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %ln1_e2 = tensor.empty() : tensor<16x32xf32>
    %ln1 = linalg.generic {indexing_maps = [#sh, #s, #s, #h, #h, #sh], iterator_types = ["parallel", "parallel"]}
        ins(%x, %ln1_mean, %ln1_rstd, %g1, %b1 : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<32xf32>, tensor<32xf32>)
        outs(%ln1_e2 : tensor<16x32xf32>) {
    ^bb0(%a: f32, %m: f32, %rs: f32, %gg: f32, %bb: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      %n = arith.mulf %d, %rs : f32
      %ng = arith.mulf %n, %gg : f32
      %r = arith.addf %ng, %bb : f32
      linalg.yield %r : f32
    } -> tensor<16x32xf32>
    // Q, K, V projections: column-parallel weights.
    %q_e = tensor.empty() : tensor<16x32xf32>
    %q_z = linalg.fill ins(%zero : f32) outs(%q_e : tensor<16x32xf32>) -> tensor<16x32xf32>
    %q = linalg.matmul ins(%ln1, %wq : tensor<16x32xf32>, tensor<32x32xf32>)
                         outs(%q_z : tensor<16x32xf32>) -> tensor<16x32xf32>
    %k_e = tensor.empty() : tensor<16x32xf32>
    %k_z = linalg.fill ins(%zero : f32) outs(%k_e : tensor<16x32xf32>) -> tensor<16x32xf32>
    %k = linalg.matmul ins(%ln1, %wk : tensor<16x32xf32>, tensor<32x32xf32>)
                         outs(%k_z : tensor<16x32xf32>) -> tensor<16x32xf32>
    %v_e = tensor.empty() : tensor<16x32xf32>
    %v_z = linalg.fill ins(%zero : f32) outs(%v_e : tensor<16x32xf32>) -> tensor<16x32xf32>
    %v = linalg.matmul ins(%ln1, %wv : tensor<16x32xf32>, tensor<32x32xf32>)
                         outs(%v_z : tensor<16x32xf32>) -> tensor<16x32xf32>
    // Split heads: [seq, hidden] -> [seq, heads, dh] -> [heads, seq, dh] (K: [heads, dh, seq]).
    %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
    %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
    %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
    %qh_e = tensor.empty() : tensor<4x16x8xf32>
    %qh = linalg.transpose ins(%q3 : tensor<16x4x8xf32>) outs(%qh_e : tensor<4x16x8xf32>) permutation = [1, 0, 2]
    %kh_e = tensor.empty() : tensor<4x8x16xf32>
    %kh = linalg.transpose ins(%k3 : tensor<16x4x8xf32>) outs(%kh_e : tensor<4x8x16xf32>) permutation = [1, 2, 0]
    %vh_e = tensor.empty() : tensor<4x16x8xf32>
    %vh = linalg.transpose ins(%v3 : tensor<16x4x8xf32>) outs(%vh_e : tensor<4x16x8xf32>) permutation = [1, 0, 2]
    // Scores per head, scaled by 1/sqrt(dh), causal mask (key j > query i).
    %sc_e = tensor.empty() : tensor<4x16x16xf32>
    %sc_z = linalg.fill ins(%zero : f32) outs(%sc_e : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
    %sc = linalg.batch_matmul ins(%qh, %kh : tensor<4x16x8xf32>, tensor<4x8x16xf32>)
                              outs(%sc_z : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
    %msk = linalg.generic {indexing_maps = [#hij, #hij], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%sc : tensor<4x16x16xf32>) outs(%sc_e : tensor<4x16x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %i = linalg.index 1 : index
      %j = linalg.index 2 : index
      %future = arith.cmpi ugt, %j, %i : index
      %s = arith.mulf %a, %scale : f32
      %r = arith.select %future, %masked, %s : f32
      linalg.yield %r : f32
    } -> tensor<4x16x16xf32>
    // Softmax over keys: max, exp(x - max), sum, divide.
    %hi_e = tensor.empty() : tensor<4x16xf32>
    %mx_z = linalg.fill ins(%ninf : f32) outs(%hi_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %mx = linalg.generic {indexing_maps = [#hij, #hi], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%msk : tensor<4x16x16xf32>) outs(%mx_z : tensor<4x16xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.maximumf %acc, %a : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %ex = linalg.generic {indexing_maps = [#hij, #hi, #hij], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%msk, %mx : tensor<4x16x16xf32>, tensor<4x16xf32>) outs(%sc_e : tensor<4x16x16xf32>) {
    ^bb0(%a: f32, %m: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      %r = math.exp %d : f32
      linalg.yield %r : f32
    } -> tensor<4x16x16xf32>
    %sm_z = linalg.fill ins(%zero : f32) outs(%hi_e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %sm = linalg.generic {indexing_maps = [#hij, #hi], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%ex : tensor<4x16x16xf32>) outs(%sm_z : tensor<4x16xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %pr = linalg.generic {indexing_maps = [#hij, #hi, #hij], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%ex, %sm : tensor<4x16x16xf32>, tensor<4x16xf32>) outs(%sc_e : tensor<4x16x16xf32>) {
    ^bb0(%a: f32, %s: f32, %o: f32):
      %r = arith.divf %a, %s : f32
      linalg.yield %r : f32
    } -> tensor<4x16x16xf32>
    // Attention output per head, heads merged back: [heads, seq, dh] -> [seq, hidden].
    %at_e = tensor.empty() : tensor<4x16x8xf32>
    %at_z = linalg.fill ins(%zero : f32) outs(%at_e : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
    %at = linalg.batch_matmul ins(%pr, %vh : tensor<4x16x16xf32>, tensor<4x16x8xf32>)
                              outs(%at_z : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
    %as_e = tensor.empty() : tensor<16x4x8xf32>
    %as = linalg.transpose ins(%at : tensor<4x16x8xf32>) outs(%as_e : tensor<16x4x8xf32>) permutation = [1, 0, 2]
    %ctx = tensor.collapse_shape %as [[0], [1, 2]] : tensor<16x4x8xf32> into tensor<16x32xf32>
    // Output projection: row-parallel weight; residual add.
    %proj_e = tensor.empty() : tensor<16x32xf32>
    %proj_z = linalg.fill ins(%zero : f32) outs(%proj_e : tensor<16x32xf32>) -> tensor<16x32xf32>
    %proj = linalg.matmul ins(%ctx, %wo : tensor<16x32xf32>, tensor<32x32xf32>)
                         outs(%proj_z : tensor<16x32xf32>) -> tensor<16x32xf32>
    %r1_e = tensor.empty() : tensor<16x32xf32>
    %r1 = linalg.map { arith.addf } ins(%x, %proj : tensor<16x32xf32>, tensor<16x32xf32>)
                                   outs(%r1_e : tensor<16x32xf32>)
    // The residual stream is sequence-parallel between the two blocks, as
    // Megatron's sequence parallelism keeps it.
    %r1s = dtensor.constrain %r1 [shard<0>] : tensor<16x32xf32>
    // ln2: layernorm over hidden (mean, variance, rsqrt).
    %ln2_e = tensor.empty() : tensor<16xf32>
    %ln2_z = linalg.fill ins(%zero : f32) outs(%ln2_e : tensor<16xf32>) -> tensor<16xf32>
    %ln2_sum = linalg.generic {indexing_maps = [#sh, #s], iterator_types = ["parallel", "reduction"]}
        ins(%r1s : tensor<16x32xf32>) outs(%ln2_z : tensor<16xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %r = arith.addf %acc, %a : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %ln2_mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%ln2_sum : tensor<16xf32>) outs(%ln2_e : tensor<16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %r = arith.divf %a, %hidden : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %ln2_sq = linalg.generic {indexing_maps = [#sh, #s, #s], iterator_types = ["parallel", "reduction"]}
        ins(%r1s, %ln2_mean : tensor<16x32xf32>, tensor<16xf32>) outs(%ln2_z : tensor<16xf32>) {
    ^bb0(%a: f32, %m: f32, %acc: f32):
      %d = arith.subf %a, %m : f32
      %d2 = arith.mulf %d, %d : f32
      %r = arith.addf %acc, %d2 : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %ln2_rstd = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%ln2_sq : tensor<16xf32>) outs(%ln2_e : tensor<16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %var = arith.divf %a, %hidden : f32
      %ve = arith.addf %var, %eps : f32
      %r = math.rsqrt %ve : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %ln2_e2 = tensor.empty() : tensor<16x32xf32>
    %ln2 = linalg.generic {indexing_maps = [#sh, #s, #s, #h, #h, #sh], iterator_types = ["parallel", "parallel"]}
        ins(%r1s, %ln2_mean, %ln2_rstd, %g2, %b2 : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<32xf32>, tensor<32xf32>)
        outs(%ln2_e2 : tensor<16x32xf32>) {
    ^bb0(%a: f32, %m: f32, %rs: f32, %gg: f32, %bb: f32, %o: f32):
      %d = arith.subf %a, %m : f32
      %n = arith.mulf %d, %rs : f32
      %ng = arith.mulf %n, %gg : f32
      %r = arith.addf %ng, %bb : f32
      linalg.yield %r : f32
    } -> tensor<16x32xf32>
    // MLP: column-parallel w1, gelu (tanh approximation), row-parallel w2.
    %up_e = tensor.empty() : tensor<16x64xf32>
    %up_z = linalg.fill ins(%zero : f32) outs(%up_e : tensor<16x64xf32>) -> tensor<16x64xf32>
    %up = linalg.matmul ins(%ln2, %w1 : tensor<16x32xf32>, tensor<32x64xf32>)
                         outs(%up_z : tensor<16x64xf32>) -> tensor<16x64xf32>
    %act = linalg.generic {indexing_maps = [#sh, #sh], iterator_types = ["parallel", "parallel"]}
        ins(%up : tensor<16x64xf32>) outs(%up_e : tensor<16x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %c_half = arith.constant 0.5 : f32
      %c_one = arith.constant 1.0 : f32
      %c_k = arith.constant 0.797884583 : f32
      %c_cub = arith.constant 0.044715 : f32
      %a2 = arith.mulf %a, %a : f32
      %a3 = arith.mulf %a2, %a : f32
      %t0 = arith.mulf %a3, %c_cub : f32
      %t1 = arith.addf %a, %t0 : f32
      %t2 = arith.mulf %t1, %c_k : f32
      %th = math.tanh %t2 : f32
      %t3 = arith.addf %th, %c_one : f32
      %t4 = arith.mulf %a, %t3 : f32
      %r = arith.mulf %t4, %c_half : f32
      linalg.yield %r : f32
    } -> tensor<16x64xf32>
    %down_e = tensor.empty() : tensor<16x32xf32>
    %down_z = linalg.fill ins(%zero : f32) outs(%down_e : tensor<16x32xf32>) -> tensor<16x32xf32>
    %down = linalg.matmul ins(%act, %w2 : tensor<16x64xf32>, tensor<64x32xf32>)
                         outs(%down_z : tensor<16x32xf32>) -> tensor<16x32xf32>
    %out_e = tensor.empty() : tensor<16x32xf32>
    %out = linalg.map { arith.addf } ins(%r1s, %down : tensor<16x32xf32>, tensor<16x32xf32>)
                                   outs(%out_e : tensor<16x32xf32>)
    dtensor.yield %out : tensor<16x32xf32>
  }
  return %y : !dtensor.tensor<16x32xf32, @tp, [shard<0>]>
}

//===----------------------------------------------------------------------===//
// @main: the same ops on one device, and the check.
//===----------------------------------------------------------------------===//

// The body of the global_region above, on plain tensors (without the
// constraint, which is the identity on values).
func.func @reference(%x: tensor<16x32xf32>, %g1: tensor<32xf32>, %b1: tensor<32xf32>, %wq: tensor<32x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>, %wo: tensor<32x32xf32>, %g2: tensor<32xf32>, %b2: tensor<32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %hidden = arith.constant 32.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %scale = arith.constant 0.353553385 : f32
  %masked = arith.constant -1.0e9 : f32
  // ln1: layernorm over hidden (mean, variance, rsqrt).
  %ln1_e = tensor.empty() : tensor<16xf32>
  %ln1_z = linalg.fill ins(%zero : f32) outs(%ln1_e : tensor<16xf32>) -> tensor<16xf32>
  %ln1_sum = linalg.generic {indexing_maps = [#sh, #s], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xf32>) outs(%ln1_z : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ln1_mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%ln1_sum : tensor<16xf32>) outs(%ln1_e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.divf %a, %hidden : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ln1_sq = linalg.generic {indexing_maps = [#sh, #s, #s], iterator_types = ["parallel", "reduction"]}
      ins(%x, %ln1_mean : tensor<16x32xf32>, tensor<16xf32>) outs(%ln1_z : tensor<16xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %d2 : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ln1_rstd = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%ln1_sq : tensor<16xf32>) outs(%ln1_e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %var = arith.divf %a, %hidden : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ln1_e2 = tensor.empty() : tensor<16x32xf32>
  %ln1 = linalg.generic {indexing_maps = [#sh, #s, #s, #h, #h, #sh], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ln1_mean, %ln1_rstd, %g1, %b1 : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<32xf32>, tensor<32xf32>)
      outs(%ln1_e2 : tensor<16x32xf32>) {
  ^bb0(%a: f32, %m: f32, %rs: f32, %gg: f32, %bb: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %n = arith.mulf %d, %rs : f32
    %ng = arith.mulf %n, %gg : f32
    %r = arith.addf %ng, %bb : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  // Q, K, V projections: column-parallel weights.
  %q_e = tensor.empty() : tensor<16x32xf32>
  %q_z = linalg.fill ins(%zero : f32) outs(%q_e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %q = linalg.matmul ins(%ln1, %wq : tensor<16x32xf32>, tensor<32x32xf32>)
                       outs(%q_z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %k_e = tensor.empty() : tensor<16x32xf32>
  %k_z = linalg.fill ins(%zero : f32) outs(%k_e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %k = linalg.matmul ins(%ln1, %wk : tensor<16x32xf32>, tensor<32x32xf32>)
                       outs(%k_z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %v_e = tensor.empty() : tensor<16x32xf32>
  %v_z = linalg.fill ins(%zero : f32) outs(%v_e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %v = linalg.matmul ins(%ln1, %wv : tensor<16x32xf32>, tensor<32x32xf32>)
                       outs(%v_z : tensor<16x32xf32>) -> tensor<16x32xf32>
  // Split heads: [seq, hidden] -> [seq, heads, dh] -> [heads, seq, dh] (K: [heads, dh, seq]).
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
  %qh_e = tensor.empty() : tensor<4x16x8xf32>
  %qh = linalg.transpose ins(%q3 : tensor<16x4x8xf32>) outs(%qh_e : tensor<4x16x8xf32>) permutation = [1, 0, 2]
  %kh_e = tensor.empty() : tensor<4x8x16xf32>
  %kh = linalg.transpose ins(%k3 : tensor<16x4x8xf32>) outs(%kh_e : tensor<4x8x16xf32>) permutation = [1, 2, 0]
  %vh_e = tensor.empty() : tensor<4x16x8xf32>
  %vh = linalg.transpose ins(%v3 : tensor<16x4x8xf32>) outs(%vh_e : tensor<4x16x8xf32>) permutation = [1, 0, 2]
  // Scores per head, scaled by 1/sqrt(dh), causal mask (key j > query i).
  %sc_e = tensor.empty() : tensor<4x16x16xf32>
  %sc_z = linalg.fill ins(%zero : f32) outs(%sc_e : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %sc = linalg.batch_matmul ins(%qh, %kh : tensor<4x16x8xf32>, tensor<4x8x16xf32>)
                            outs(%sc_z : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %msk = linalg.generic {indexing_maps = [#hij, #hij], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sc : tensor<4x16x16xf32>) outs(%sc_e : tensor<4x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %future = arith.cmpi ugt, %j, %i : index
    %s = arith.mulf %a, %scale : f32
    %r = arith.select %future, %masked, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x16x16xf32>
  // Softmax over keys: max, exp(x - max), sum, divide.
  %hi_e = tensor.empty() : tensor<4x16xf32>
  %mx_z = linalg.fill ins(%ninf : f32) outs(%hi_e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %mx = linalg.generic {indexing_maps = [#hij, #hi], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%msk : tensor<4x16x16xf32>) outs(%mx_z : tensor<4x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %ex = linalg.generic {indexing_maps = [#hij, #hi, #hij], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%msk, %mx : tensor<4x16x16xf32>, tensor<4x16xf32>) outs(%sc_e : tensor<4x16x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<4x16x16xf32>
  %sm_z = linalg.fill ins(%zero : f32) outs(%hi_e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %sm = linalg.generic {indexing_maps = [#hij, #hi], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<4x16x16xf32>) outs(%sm_z : tensor<4x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %pr = linalg.generic {indexing_maps = [#hij, #hi, #hij], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<4x16x16xf32>, tensor<4x16xf32>) outs(%sc_e : tensor<4x16x16xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %r = arith.divf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x16x16xf32>
  // Attention output per head, heads merged back: [heads, seq, dh] -> [seq, hidden].
  %at_e = tensor.empty() : tensor<4x16x8xf32>
  %at_z = linalg.fill ins(%zero : f32) outs(%at_e : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %at = linalg.batch_matmul ins(%pr, %vh : tensor<4x16x16xf32>, tensor<4x16x8xf32>)
                            outs(%at_z : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %as_e = tensor.empty() : tensor<16x4x8xf32>
  %as = linalg.transpose ins(%at : tensor<4x16x8xf32>) outs(%as_e : tensor<16x4x8xf32>) permutation = [1, 0, 2]
  %ctx = tensor.collapse_shape %as [[0], [1, 2]] : tensor<16x4x8xf32> into tensor<16x32xf32>
  // Output projection: row-parallel weight; residual add.
  %proj_e = tensor.empty() : tensor<16x32xf32>
  %proj_z = linalg.fill ins(%zero : f32) outs(%proj_e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %proj = linalg.matmul ins(%ctx, %wo : tensor<16x32xf32>, tensor<32x32xf32>)
                       outs(%proj_z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r1_e = tensor.empty() : tensor<16x32xf32>
  %r1 = linalg.map { arith.addf } ins(%x, %proj : tensor<16x32xf32>, tensor<16x32xf32>)
                                 outs(%r1_e : tensor<16x32xf32>)
  // ln2: layernorm over hidden (mean, variance, rsqrt).
  %ln2_e = tensor.empty() : tensor<16xf32>
  %ln2_z = linalg.fill ins(%zero : f32) outs(%ln2_e : tensor<16xf32>) -> tensor<16xf32>
  %ln2_sum = linalg.generic {indexing_maps = [#sh, #s], iterator_types = ["parallel", "reduction"]}
      ins(%r1 : tensor<16x32xf32>) outs(%ln2_z : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ln2_mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%ln2_sum : tensor<16xf32>) outs(%ln2_e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.divf %a, %hidden : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ln2_sq = linalg.generic {indexing_maps = [#sh, #s, #s], iterator_types = ["parallel", "reduction"]}
      ins(%r1, %ln2_mean : tensor<16x32xf32>, tensor<16xf32>) outs(%ln2_z : tensor<16xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %d2 : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ln2_rstd = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%ln2_sq : tensor<16xf32>) outs(%ln2_e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %var = arith.divf %a, %hidden : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ln2_e2 = tensor.empty() : tensor<16x32xf32>
  %ln2 = linalg.generic {indexing_maps = [#sh, #s, #s, #h, #h, #sh], iterator_types = ["parallel", "parallel"]}
      ins(%r1, %ln2_mean, %ln2_rstd, %g2, %b2 : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<32xf32>, tensor<32xf32>)
      outs(%ln2_e2 : tensor<16x32xf32>) {
  ^bb0(%a: f32, %m: f32, %rs: f32, %gg: f32, %bb: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %n = arith.mulf %d, %rs : f32
    %ng = arith.mulf %n, %gg : f32
    %r = arith.addf %ng, %bb : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  // MLP: column-parallel w1, gelu (tanh approximation), row-parallel w2.
  %up_e = tensor.empty() : tensor<16x64xf32>
  %up_z = linalg.fill ins(%zero : f32) outs(%up_e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %up = linalg.matmul ins(%ln2, %w1 : tensor<16x32xf32>, tensor<32x64xf32>)
                       outs(%up_z : tensor<16x64xf32>) -> tensor<16x64xf32>
  %act = linalg.generic {indexing_maps = [#sh, #sh], iterator_types = ["parallel", "parallel"]}
      ins(%up : tensor<16x64xf32>) outs(%up_e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c_half = arith.constant 0.5 : f32
    %c_one = arith.constant 1.0 : f32
    %c_k = arith.constant 0.797884583 : f32
    %c_cub = arith.constant 0.044715 : f32
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t0 = arith.mulf %a3, %c_cub : f32
    %t1 = arith.addf %a, %t0 : f32
    %t2 = arith.mulf %t1, %c_k : f32
    %th = math.tanh %t2 : f32
    %t3 = arith.addf %th, %c_one : f32
    %t4 = arith.mulf %a, %t3 : f32
    %r = arith.mulf %t4, %c_half : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  %down_e = tensor.empty() : tensor<16x32xf32>
  %down_z = linalg.fill ins(%zero : f32) outs(%down_e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %down = linalg.matmul ins(%act, %w2 : tensor<16x64xf32>, tensor<64x32xf32>)
                       outs(%down_z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %out_e = tensor.empty() : tensor<16x32xf32>
  %out = linalg.map { arith.addf } ins(%r1, %down : tensor<16x32xf32>, tensor<16x32xf32>)
                                 outs(%out_e : tensor<16x32xf32>)
  return %out : tensor<16x32xf32>
}

// value[i, j] = (((a i + b j) mod m) - off) * scale.
func.func @pattern(%rows: index, %cols: index, %a: index, %b: index, %m: index, %off: index, %scale: f32) -> tensor<?x?xf32> {
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
    %fs = arith.mulf %f, %scale : f32
    linalg.yield %fs : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// value[j] = base + (((a j) mod m) - off) * scale.
func.func @vector(%n: index, %a: index, %m: index, %off: index, %base: f32, %scale: f32) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) {
  ^bb0(%out: f32):
    %j = linalg.index 0 : index
    %aj = arith.muli %j, %a : index
    %r = arith.remui %aj, %m : index
    %v = arith.subi %r, %off : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    %fs = arith.mulf %f, %scale : f32
    %fb = arith.addf %fs, %base : f32
    linalg.yield %fb : f32
  } -> tensor<?xf32>
  return %t : tensor<?xf32>
}

// max |got - want| and max |want| over all elements.
func.func @diff_and_scale(%got: tensor<?x?xf32>, %want: tensor<?x?xf32>) -> (f32, f32) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero, %zero : tensor<2xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (k)>],
                       iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%got, %want : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %k = linalg.index 2 : index
    %s = arith.subf %p, %q : f32
    %k0 = arith.constant 0 : index
    %is0 = arith.cmpi eq, %k, %k0 : index
    %v = arith.select %is0, %s, %q : f32
    %abs = math.absf %v : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %diff = tensor.extract %d[%c0] : tensor<2xf32>
  %scale = tensor.extract %d[%c1] : tensor<2xf32>
  return %diff, %scale : f32, f32
}

// Matches when max |got - want| <= 1e-4 * max(1, max |want|); a NaN fails.
func.func @report(%got: tensor<?x?xf32>, %want: tensor<?x?xf32>) {
  %diff, %scale = func.call @diff_and_scale(%got, %want) : (tensor<?x?xf32>, tensor<?x?xf32>) -> (f32, f32)
  %one = arith.constant 1.0 : f32
  %rtol = arith.constant 1.0e-4 : f32
  %s = arith.maximumf %scale, %one : f32
  %tol = arith.mulf %s, %rtol : f32
  %ok = arith.cmpf ole, %diff, %tol : f32
  scf.if %ok {
    vector.print str "global_megatron_layer: this rank matches the single-device result\n"
  } else {
    vector.print str "global_megatron_layer: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %f0 = arith.constant 0.0 : f32
  %f1 = arith.constant 1.0 : f32
  %sx = arith.constant 0.25 : f32
  %sw = arith.constant 0.05 : f32
  %sg = arith.constant 0.05 : f32
  %xd = func.call @pattern(%c16, %c32, %c3, %c5, %c11, %c5, %sx) : (index, index, index, index, index, index, f32) -> tensor<?x?xf32>
  %wqd = func.call @pattern(%c32, %c32, %c5, %c3, %c7, %c3, %sw) : (index, index, index, index, index, index, f32) -> tensor<?x?xf32>
  %wkd = func.call @pattern(%c32, %c32, %c2, %c5, %c9, %c4, %sw) : (index, index, index, index, index, index, f32) -> tensor<?x?xf32>
  %wvd = func.call @pattern(%c32, %c32, %c7, %c2, %c11, %c5, %sw) : (index, index, index, index, index, index, f32) -> tensor<?x?xf32>
  %wod = func.call @pattern(%c32, %c32, %c3, %c4, %c13, %c6, %sw) : (index, index, index, index, index, index, f32) -> tensor<?x?xf32>
  %w1d = func.call @pattern(%c32, %c64, %c4, %c3, %c9, %c4, %sw) : (index, index, index, index, index, index, f32) -> tensor<?x?xf32>
  %w2d = func.call @pattern(%c64, %c32, %c5, %c2, %c11, %c5, %sw) : (index, index, index, index, index, index, f32) -> tensor<?x?xf32>
  %g1d = func.call @vector(%c32, %c3, %c7, %c3, %f1, %sg) : (index, index, index, index, f32, f32) -> tensor<?xf32>
  %b1d = func.call @vector(%c32, %c5, %c9, %c4, %f0, %sg) : (index, index, index, index, f32, f32) -> tensor<?xf32>
  %g2d = func.call @vector(%c32, %c2, %c5, %c2, %f1, %sg) : (index, index, index, index, f32, f32) -> tensor<?xf32>
  %b2d = func.call @vector(%c32, %c4, %c7, %c3, %f0, %sg) : (index, index, index, index, f32, f32) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<16x32xf32>
  %wq = tensor.cast %wqd : tensor<?x?xf32> to tensor<32x32xf32>
  %wk = tensor.cast %wkd : tensor<?x?xf32> to tensor<32x32xf32>
  %wv = tensor.cast %wvd : tensor<?x?xf32> to tensor<32x32xf32>
  %wo = tensor.cast %wod : tensor<?x?xf32> to tensor<32x32xf32>
  %w1 = tensor.cast %w1d : tensor<?x?xf32> to tensor<32x64xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<64x32xf32>
  %g1 = tensor.cast %g1d : tensor<?xf32> to tensor<32xf32>
  %b1 = tensor.cast %b1d : tensor<?xf32> to tensor<32xf32>
  %g2 = tensor.cast %g2d : tensor<?xf32> to tensor<32xf32>
  %b2 = tensor.cast %b2d : tensor<?xf32> to tensor<32xf32>
  %want = func.call @reference(%x, %g1, %b1, %wq, %wk, %wv, %wo, %g2, %b2, %w1, %w2)
      : (tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>

  // Every rank holds the full inputs; redistribute keeps its blocks.
  %rx = dtensor.from_local %x : tensor<16x32xf32> -> !dtensor.tensor<16x32xf32, @tp, [replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<16x32xf32, @tp, [replicate]> -> !dtensor.tensor<16x32xf32, @tp, [shard<0>]>
  %dg1 = dtensor.from_local %g1 : tensor<32xf32> -> !dtensor.tensor<32xf32, @tp, [replicate]>
  %db1 = dtensor.from_local %b1 : tensor<32xf32> -> !dtensor.tensor<32xf32, @tp, [replicate]>
  %dg2 = dtensor.from_local %g2 : tensor<32xf32> -> !dtensor.tensor<32xf32, @tp, [replicate]>
  %db2 = dtensor.from_local %b2 : tensor<32xf32> -> !dtensor.tensor<32xf32, @tp, [replicate]>
  %rwq = dtensor.from_local %wq : tensor<32x32xf32> -> !dtensor.tensor<32x32xf32, @tp, [replicate]>
  %dwq = dtensor.redistribute %rwq : !dtensor.tensor<32x32xf32, @tp, [replicate]> -> !dtensor.tensor<32x32xf32, @tp, [shard<1>]>
  %rwk = dtensor.from_local %wk : tensor<32x32xf32> -> !dtensor.tensor<32x32xf32, @tp, [replicate]>
  %dwk = dtensor.redistribute %rwk : !dtensor.tensor<32x32xf32, @tp, [replicate]> -> !dtensor.tensor<32x32xf32, @tp, [shard<1>]>
  %rwv = dtensor.from_local %wv : tensor<32x32xf32> -> !dtensor.tensor<32x32xf32, @tp, [replicate]>
  %dwv = dtensor.redistribute %rwv : !dtensor.tensor<32x32xf32, @tp, [replicate]> -> !dtensor.tensor<32x32xf32, @tp, [shard<1>]>
  %rwo = dtensor.from_local %wo : tensor<32x32xf32> -> !dtensor.tensor<32x32xf32, @tp, [replicate]>
  %dwo = dtensor.redistribute %rwo : !dtensor.tensor<32x32xf32, @tp, [replicate]> -> !dtensor.tensor<32x32xf32, @tp, [shard<0>]>
  %rw1 = dtensor.from_local %w1 : tensor<32x64xf32> -> !dtensor.tensor<32x64xf32, @tp, [replicate]>
  %dw1 = dtensor.redistribute %rw1 : !dtensor.tensor<32x64xf32, @tp, [replicate]> -> !dtensor.tensor<32x64xf32, @tp, [shard<1>]>
  %rw2 = dtensor.from_local %w2 : tensor<64x32xf32> -> !dtensor.tensor<64x32xf32, @tp, [replicate]>
  %dw2 = dtensor.redistribute %rw2 : !dtensor.tensor<64x32xf32, @tp, [replicate]> -> !dtensor.tensor<64x32xf32, @tp, [shard<0>]>
  %dy = func.call @megatron_layer(%dx, %dg1, %db1, %dwq, %dwk, %dwv, %dwo, %dg2, %db2, %dw1, %dw2)
      : (!dtensor.tensor<16x32xf32, @tp, [shard<0>]>, !dtensor.tensor<32xf32, @tp, [replicate]>,
         !dtensor.tensor<32xf32, @tp, [replicate]>, !dtensor.tensor<32x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x32xf32, @tp, [shard<1>]>, !dtensor.tensor<32x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x32xf32, @tp, [shard<0>]>, !dtensor.tensor<32xf32, @tp, [replicate]>,
         !dtensor.tensor<32xf32, @tp, [replicate]>, !dtensor.tensor<32x64xf32, @tp, [shard<1>]>,
         !dtensor.tensor<64x32xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x32xf32, @tp, [shard<0>]>
  // Bring the sequence-sharded result to every rank to compare all of it.
  %ry = dtensor.redistribute %dy : !dtensor.tensor<16x32xf32, @tp, [shard<0>]> -> !dtensor.tensor<16x32xf32, @tp, [replicate]>
  %y = dtensor.to_local %ry : !dtensor.tensor<16x32xf32, @tp, [replicate]> -> tensor<16x32xf32>

  %yd = tensor.cast %y : tensor<16x32xf32> to tensor<?x?xf32>
  %wd = tensor.cast %want : tensor<16x32xf32> to tensor<?x?xf32>
  func.call @report(%yd, %wd) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()
  return
}
