// The top-1 mixture-of-experts layer of examples/moe_ep.mlir written in
// GLOBAL view, on the same 2-D mesh: "dp" (2) x "ep" (2), four ranks. One
// dtensor.global_region holds the layer on global tensors:
//   x      [tokens, hidden]        [shard<0>, shard<0>]    each rank's tokens
//   wg     [hidden, experts]       [replicate, replicate]  the router
//   w1     [experts, hidden, ffn]  [replicate, shard<0>]   experts split over ep
//   w2     [experts, ffn, hidden]  [replicate, shard<0>]
//   result [tokens, hidden]        [shard<0>, shard<0>]
// Routing (router logits, top-1 expert, its softmax gate, each token's slot
// in its expert's capacity bucket, the buckets), the experts' MLP and the
// gated combine are ordinary ops on global tensors that dtensor-propagate
// places. The token dispatch and its return, each an all_to_all over "ep",
// are per-rank code: two dtensor.local_regions in the body, taking and
// giving plain global tensors under their declared layouts.
//
// Tokens 16 (4 per rank), hidden 8, experts 4 (2 per ep rank), ffn 8,
// capacity 2 per expert and rank (tokens past it are dropped: output 0).
// Inputs are small integers with distinct router logits, so the routing is
// exact; every rank compares with the same layer on one device within an
// f32 tolerance (1e-4 of the largest value):
//   hp-runner -np 4 examples/global_moe.mlir -e main --entry-point-result=void

#v = affine_map<(t) -> (t)>
#te = affine_map<(t, e) -> (t, e)>
#t = affine_map<(t, e) -> (t)>
#gsu_s = affine_map<(g, s, u) -> (g, s)>
#gsu_u = affine_map<(g, s, u) -> (g, u)>
#gsec = affine_map<(g, s, e, c) -> (g, s, e, c)>
#gsec_gs = affine_map<(g, s, e, c) -> (g, s)>
#gechs_gsec = affine_map<(g, e, c, h, s) -> (g, s, e, c)>
#gechs_gsh = affine_map<(g, e, c, h, s) -> (g, s, h)>
#gechs_gech = affine_map<(g, e, c, h, s) -> (g, e, c, h)>
#dekfh_dekh = affine_map<(d, e, k, f, h) -> (d, e, k, h)>
#dekfh_ehf = affine_map<(d, e, k, f, h) -> (e, h, f)>
#dekfh_dekf = affine_map<(d, e, k, f, h) -> (d, e, k, f)>
#dekhf_dekf = affine_map<(d, e, k, h, f) -> (d, e, k, f)>
#dekhf_efh = affine_map<(d, e, k, h, f) -> (e, f, h)>
#dekhf_dekh = affine_map<(d, e, k, h, f) -> (d, e, k, h)>
#gshec_gsec = affine_map<(g, s, h, e, c) -> (g, s, e, c)>
#gshec_gech = affine_map<(g, s, h, e, c) -> (g, e, c, h)>
#gshec_gs = affine_map<(g, s, h, e, c) -> (g, s)>
#gshec_gsh = affine_map<(g, s, h, e, c) -> (g, s, h)>

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "ep"]

func.func @global_moe(%dx: !dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]>,
                      %dwg: !dtensor.tensor<8x4xf32, @mesh, [replicate, replicate]>,
                      %dw1: !dtensor.tensor<4x8x8xf32, @mesh, [replicate, shard<0>]>,
                      %dw2: !dtensor.tensor<4x8x8xf32, @mesh, [replicate, shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]> {
  %y = dtensor.global_region on @mesh args(%dx, %dwg, %dw1, %dw2)
      : (!dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]>,
         !dtensor.tensor<8x4xf32, @mesh, [replicate, replicate]>,
         !dtensor.tensor<4x8x8xf32, @mesh, [replicate, shard<0>]>,
         !dtensor.tensor<4x8x8xf32, @mesh, [replicate, shard<0>]>)
     -> !dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]> {
  ^bb0(%x: tensor<16x8xf32>, %wg: tensor<8x4xf32>, %w1: tensor<4x8x8xf32>, %w2: tensor<4x8x8xf32>):
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %i0 = arith.constant 0 : i32
    // Gating: logits = x @ wg, top-1 expert (first maximum), and its softmax
    // probability 1 / sum_e exp(logit_e - max).
    %lg_e = tensor.empty() : tensor<16x4xf32>
    %lg_z = linalg.fill ins(%zero : f32) outs(%lg_e : tensor<16x4xf32>) -> tensor<16x4xf32>
    %logits = linalg.matmul ins(%x, %wg : tensor<16x8xf32>, tensor<8x4xf32>)
                            outs(%lg_z : tensor<16x4xf32>) -> tensor<16x4xf32>
    %t_e = tensor.empty() : tensor<16xf32>
    %mx_z = linalg.fill ins(%ninf : f32) outs(%t_e : tensor<16xf32>) -> tensor<16xf32>
    %ti_e = tensor.empty() : tensor<16xi32>
    %ix_z = linalg.fill ins(%i0 : i32) outs(%ti_e : tensor<16xi32>) -> tensor<16xi32>
    %top:2 = linalg.generic {indexing_maps = [#te, #t, #t], iterator_types = ["parallel", "reduction"]}
        ins(%logits : tensor<16x4xf32>) outs(%mx_z, %ix_z : tensor<16xf32>, tensor<16xi32>) {
    ^bb0(%l: f32, %best: f32, %which: i32):
      %e = linalg.index 1 : index
      %e32 = arith.index_cast %e : index to i32
      %better = arith.cmpf ogt, %l, %best : f32
      %nb = arith.select %better, %l, %best : f32
      %nw = arith.select %better, %e32, %which : i32
      linalg.yield %nb, %nw : f32, i32
    } -> (tensor<16xf32>, tensor<16xi32>)
    %den_z = linalg.fill ins(%zero : f32) outs(%t_e : tensor<16xf32>) -> tensor<16xf32>
    %den = linalg.generic {indexing_maps = [#te, #t, #t], iterator_types = ["parallel", "reduction"]}
        ins(%logits, %top#0 : tensor<16x4xf32>, tensor<16xf32>) outs(%den_z : tensor<16xf32>) {
    ^bb0(%l: f32, %m: f32, %acc: f32):
      %d = arith.subf %l, %m : f32
      %p = math.exp %d : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    %gate = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
        ins(%den : tensor<16xf32>) outs(%t_e : tensor<16xf32>) {
    ^bb0(%s: f32, %o: f32):
      %one = arith.constant 1.0 : f32
      %r = arith.divf %one, %s : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    // Token groups: the 4 tokens of each of the 4 ranks, [group, token, ...].
    %xg = tensor.expand_shape %x [[0, 1], [2]] output_shape [4, 4, 8] : tensor<16x8xf32> into tensor<4x4x8xf32>
    %eg = tensor.expand_shape %top#1 [[0, 1]] output_shape [4, 4] : tensor<16xi32> into tensor<4x4xi32>
    %gg = tensor.expand_shape %gate [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
    // Slot of each token in its expert's bucket: the number of earlier tokens
    // of its group routed to the same expert. Slots >= capacity 2 are dropped.
    %gs_e = tensor.empty() : tensor<4x4xi32>
    %pos_z = linalg.fill ins(%i0 : i32) outs(%gs_e : tensor<4x4xi32>) -> tensor<4x4xi32>
    %pos = linalg.generic {indexing_maps = [#gsu_s, #gsu_u, #gsu_s], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%eg, %eg : tensor<4x4xi32>, tensor<4x4xi32>) outs(%pos_z : tensor<4x4xi32>) {
    ^bb0(%mine: i32, %other: i32, %acc: i32):
      %s = linalg.index 1 : index
      %u = linalg.index 2 : index
      %earlier = arith.cmpi ult, %u, %s : index
      %same = arith.cmpi eq, %mine, %other : i32
      %both = arith.andi %earlier, %same : i1
      %one = arith.extui %both : i1 to i32
      %r = arith.addi %acc, %one : i32
      linalg.yield %r : i32
    } -> tensor<4x4xi32>
    // Dispatch mask [group, token, expert, slot] and the capacity buckets
    // [group, expert, slot, hidden] it fills.
    %mask_e = tensor.empty() : tensor<4x4x4x2xf32>
    %mask = linalg.generic {indexing_maps = [#gsec_gs, #gsec_gs, #gsec], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%eg, %pos : tensor<4x4xi32>, tensor<4x4xi32>) outs(%mask_e : tensor<4x4x4x2xf32>) {
    ^bb0(%ex: i32, %slot: i32, %o: f32):
      %e = linalg.index 2 : index
      %c = linalg.index 3 : index
      %e32 = arith.index_cast %e : index to i32
      %c32 = arith.index_cast %c : index to i32
      %ise = arith.cmpi eq, %ex, %e32 : i32
      %isc = arith.cmpi eq, %slot, %c32 : i32
      %hit = arith.andi %ise, %isc : i1
      %r = arith.uitofp %hit : i1 to f32
      linalg.yield %r : f32
    } -> tensor<4x4x4x2xf32>
    %bk_e = tensor.empty() : tensor<4x4x2x8xf32>
    %bk_z = linalg.fill ins(%zero : f32) outs(%bk_e : tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
    %buckets = linalg.generic {indexing_maps = [#gechs_gsec, #gechs_gsh, #gechs_gech],
                               iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%mask, %xg : tensor<4x4x4x2xf32>, tensor<4x4x8xf32>) outs(%bk_z : tensor<4x4x2x8xf32>) {
    ^bb0(%m: f32, %v: f32, %acc: f32):
      %p = arith.mulf %m, %v : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    } -> tensor<4x4x2x8xf32>
    // Dispatch (per-rank code, in a local region): each rank's buckets of
    // expert block j go to ep rank j over an all_to_all. Globally the result
    // is the buckets regrouped by expert: [dp, expert, ep * slot, hidden],
    // dp-sharded and expert-sharded over ep, where the expert weights live.
    %disp = dtensor.local_region on @mesh args(%buckets as "buckets")
        in_placements = {buckets = [shard<0>, shard<0>]} out_placements = [shard<0>, shard<1>]
        : (tensor<4x4x2x8xf32>) -> tensor<2x4x4x8xf32> {
    ^bb0(%bl: tensor<1x4x2x8xf32>):
      %b3 = tensor.collapse_shape %bl [[0, 1], [2], [3]] : tensor<1x4x2x8xf32> into tensor<4x2x8xf32>
      %sent = dtensor.all_to_all %b3 on @mesh axes = ["ep"] split_axis = 0 concat_axis = 1
          : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
      %s4 = tensor.expand_shape %sent [[0, 1], [2], [3]] output_shape [1, 2, 4, 8]
          : tensor<2x4x8xf32> into tensor<1x2x4x8xf32>
      dtensor.yield %s4 : tensor<1x2x4x8xf32>
    }
    // Experts: y[d, e, k] = relu(disp[d, e, k] @ w1[e]) @ w2[e].
    %h_e = tensor.empty() : tensor<2x4x4x8xf32>
    %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
    %hid = linalg.generic {indexing_maps = [#dekfh_dekh, #dekfh_ehf, #dekfh_dekf],
                           iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%disp, %w1 : tensor<2x4x4x8xf32>, tensor<4x8x8xf32>) outs(%h_z : tensor<2x4x4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    } -> tensor<2x4x4x8xf32>
    %act = linalg.map { arith.maximumf } ins(%hid, %h_z : tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32>)
                                          outs(%h_e : tensor<2x4x4x8xf32>)
    %y_e = tensor.empty() : tensor<2x4x4x8xf32>
    %y_z = linalg.fill ins(%zero : f32) outs(%y_e : tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
    %ey = linalg.generic {indexing_maps = [#dekhf_dekf, #dekhf_efh, #dekhf_dekh],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
        ins(%act, %w2 : tensor<2x4x4x8xf32>, tensor<4x8x8xf32>) outs(%y_z : tensor<2x4x4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %p = arith.mulf %a, %b : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    } -> tensor<2x4x4x8xf32>
    // Combine (per-rank code): the inverse all_to_all brings every bucket
    // back to the rank its tokens came from, [group, expert, slot, hidden].
    %back = dtensor.local_region on @mesh args(%ey as "expert_out")
        in_placements = {expert_out = [shard<0>, shard<1>]} out_placements = [shard<0>, shard<0>]
        : (tensor<2x4x4x8xf32>) -> tensor<4x4x2x8xf32> {
    ^bb0(%yl: tensor<1x2x4x8xf32>):
      %y3 = tensor.collapse_shape %yl [[0, 1], [2], [3]] : tensor<1x2x4x8xf32> into tensor<2x4x8xf32>
      %got = dtensor.all_to_all %y3 on @mesh axes = ["ep"] split_axis = 1 concat_axis = 0
          : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
      %g4 = tensor.expand_shape %got [[0, 1], [2], [3]] output_shape [1, 4, 2, 8]
          : tensor<4x2x8xf32> into tensor<1x4x2x8xf32>
      dtensor.yield %g4 : tensor<1x4x2x8xf32>
    }
    // Each token takes its bucket slot's output scaled by its gate (0 if dropped).
    %o_e = tensor.empty() : tensor<4x4x8xf32>
    %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<4x4x8xf32>) -> tensor<4x4x8xf32>
    %o3 = linalg.generic {indexing_maps = [#gshec_gsec, #gshec_gech, #gshec_gs, #gshec_gsh],
                          iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
        ins(%mask, %back, %gg : tensor<4x4x4x2xf32>, tensor<4x4x2x8xf32>, tensor<4x4xf32>)
        outs(%o_z : tensor<4x4x8xf32>) {
    ^bb0(%m: f32, %v: f32, %g: f32, %acc: f32):
      %mv = arith.mulf %m, %v : f32
      %p = arith.mulf %mv, %g : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    } -> tensor<4x4x8xf32>
    %out = tensor.collapse_shape %o3 [[0, 1], [2]] : tensor<4x4x8xf32> into tensor<16x8xf32>
    dtensor.yield %out : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]>
}

//===----------------------------------------------------------------------===//
// @main: the same layer on one device, and the check.
//===----------------------------------------------------------------------===//

// The body of the global_region above on plain tensors; each local region
// is replaced by the permutation its all_to_all performs on global values.
func.func @reference(%x: tensor<16x8xf32>, %wg: tensor<8x4xf32>, %w1: tensor<4x8x8xf32>, %w2: tensor<4x8x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %i0 = arith.constant 0 : i32
  // Gating: logits = x @ wg, top-1 expert (first maximum), and its softmax
  // probability 1 / sum_e exp(logit_e - max).
  %lg_e = tensor.empty() : tensor<16x4xf32>
  %lg_z = linalg.fill ins(%zero : f32) outs(%lg_e : tensor<16x4xf32>) -> tensor<16x4xf32>
  %logits = linalg.matmul ins(%x, %wg : tensor<16x8xf32>, tensor<8x4xf32>)
                          outs(%lg_z : tensor<16x4xf32>) -> tensor<16x4xf32>
  %t_e = tensor.empty() : tensor<16xf32>
  %mx_z = linalg.fill ins(%ninf : f32) outs(%t_e : tensor<16xf32>) -> tensor<16xf32>
  %ti_e = tensor.empty() : tensor<16xi32>
  %ix_z = linalg.fill ins(%i0 : i32) outs(%ti_e : tensor<16xi32>) -> tensor<16xi32>
  %top:2 = linalg.generic {indexing_maps = [#te, #t, #t], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<16x4xf32>) outs(%mx_z, %ix_z : tensor<16xf32>, tensor<16xi32>) {
  ^bb0(%l: f32, %best: f32, %which: i32):
    %e = linalg.index 1 : index
    %e32 = arith.index_cast %e : index to i32
    %better = arith.cmpf ogt, %l, %best : f32
    %nb = arith.select %better, %l, %best : f32
    %nw = arith.select %better, %e32, %which : i32
    linalg.yield %nb, %nw : f32, i32
  } -> (tensor<16xf32>, tensor<16xi32>)
  %den_z = linalg.fill ins(%zero : f32) outs(%t_e : tensor<16xf32>) -> tensor<16xf32>
  %den = linalg.generic {indexing_maps = [#te, #t, #t], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %top#0 : tensor<16x4xf32>, tensor<16xf32>) outs(%den_z : tensor<16xf32>) {
  ^bb0(%l: f32, %m: f32, %acc: f32):
    %d = arith.subf %l, %m : f32
    %p = math.exp %d : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %gate = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%den : tensor<16xf32>) outs(%t_e : tensor<16xf32>) {
  ^bb0(%s: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %r = arith.divf %one, %s : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  // Token groups: the 4 tokens of each of the 4 ranks, [group, token, ...].
  %xg = tensor.expand_shape %x [[0, 1], [2]] output_shape [4, 4, 8] : tensor<16x8xf32> into tensor<4x4x8xf32>
  %eg = tensor.expand_shape %top#1 [[0, 1]] output_shape [4, 4] : tensor<16xi32> into tensor<4x4xi32>
  %gg = tensor.expand_shape %gate [[0, 1]] output_shape [4, 4] : tensor<16xf32> into tensor<4x4xf32>
  // Slot of each token in its expert's bucket: the number of earlier tokens
  // of its group routed to the same expert. Slots >= capacity 2 are dropped.
  %gs_e = tensor.empty() : tensor<4x4xi32>
  %pos_z = linalg.fill ins(%i0 : i32) outs(%gs_e : tensor<4x4xi32>) -> tensor<4x4xi32>
  %pos = linalg.generic {indexing_maps = [#gsu_s, #gsu_u, #gsu_s], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%eg, %eg : tensor<4x4xi32>, tensor<4x4xi32>) outs(%pos_z : tensor<4x4xi32>) {
  ^bb0(%mine: i32, %other: i32, %acc: i32):
    %s = linalg.index 1 : index
    %u = linalg.index 2 : index
    %earlier = arith.cmpi ult, %u, %s : index
    %same = arith.cmpi eq, %mine, %other : i32
    %both = arith.andi %earlier, %same : i1
    %one = arith.extui %both : i1 to i32
    %r = arith.addi %acc, %one : i32
    linalg.yield %r : i32
  } -> tensor<4x4xi32>
  // Dispatch mask [group, token, expert, slot] and the capacity buckets
  // [group, expert, slot, hidden] it fills.
  %mask_e = tensor.empty() : tensor<4x4x4x2xf32>
  %mask = linalg.generic {indexing_maps = [#gsec_gs, #gsec_gs, #gsec], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%eg, %pos : tensor<4x4xi32>, tensor<4x4xi32>) outs(%mask_e : tensor<4x4x4x2xf32>) {
  ^bb0(%ex: i32, %slot: i32, %o: f32):
    %e = linalg.index 2 : index
    %c = linalg.index 3 : index
    %e32 = arith.index_cast %e : index to i32
    %c32 = arith.index_cast %c : index to i32
    %ise = arith.cmpi eq, %ex, %e32 : i32
    %isc = arith.cmpi eq, %slot, %c32 : i32
    %hit = arith.andi %ise, %isc : i1
    %r = arith.uitofp %hit : i1 to f32
    linalg.yield %r : f32
  } -> tensor<4x4x4x2xf32>
  %bk_e = tensor.empty() : tensor<4x4x2x8xf32>
  %bk_z = linalg.fill ins(%zero : f32) outs(%bk_e : tensor<4x4x2x8xf32>) -> tensor<4x4x2x8xf32>
  %buckets = linalg.generic {indexing_maps = [#gechs_gsec, #gechs_gsh, #gechs_gech],
                             iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%mask, %xg : tensor<4x4x4x2xf32>, tensor<4x4x8xf32>) outs(%bk_z : tensor<4x4x2x8xf32>) {
  ^bb0(%m: f32, %v: f32, %acc: f32):
    %p = arith.mulf %m, %v : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4x2x8xf32>
  // Dispatch on one device: the same regrouping as a permutation,
  // buckets[i * 2 + j, e, c, h] -> disp[i, e, j * 2 + c, h].
  %b5 = tensor.expand_shape %buckets [[0, 1], [2], [3], [4]] output_shape [2, 2, 4, 2, 8]
      : tensor<4x4x2x8xf32> into tensor<2x2x4x2x8xf32>
  %bt_e = tensor.empty() : tensor<2x4x2x2x8xf32>
  %bt = linalg.transpose ins(%b5 : tensor<2x2x4x2x8xf32>) outs(%bt_e : tensor<2x4x2x2x8xf32>) permutation = [0, 2, 1, 3, 4]
  %disp = tensor.collapse_shape %bt [[0], [1], [2, 3], [4]] : tensor<2x4x2x2x8xf32> into tensor<2x4x4x8xf32>
  // Experts: y[d, e, k] = relu(disp[d, e, k] @ w1[e]) @ w2[e].
  %h_e = tensor.empty() : tensor<2x4x4x8xf32>
  %h_z = linalg.fill ins(%zero : f32) outs(%h_e : tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
  %hid = linalg.generic {indexing_maps = [#dekfh_dekh, #dekfh_ehf, #dekfh_dekf],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%disp, %w1 : tensor<2x4x4x8xf32>, tensor<4x8x8xf32>) outs(%h_z : tensor<2x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4x8xf32>
  %act = linalg.map { arith.maximumf } ins(%hid, %h_z : tensor<2x4x4x8xf32>, tensor<2x4x4x8xf32>)
                                        outs(%h_e : tensor<2x4x4x8xf32>)
  %y_e = tensor.empty() : tensor<2x4x4x8xf32>
  %y_z = linalg.fill ins(%zero : f32) outs(%y_e : tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
  %ey = linalg.generic {indexing_maps = [#dekhf_dekf, #dekhf_efh, #dekhf_dekh],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%act, %w2 : tensor<2x4x4x8xf32>, tensor<4x8x8xf32>) outs(%y_z : tensor<2x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x4x4x8xf32>
  // Combine on one device: the inverse permutation.
  %y5 = tensor.expand_shape %ey [[0], [1], [2, 3], [4]] output_shape [2, 4, 2, 2, 8]
      : tensor<2x4x4x8xf32> into tensor<2x4x2x2x8xf32>
  %yt_e = tensor.empty() : tensor<2x2x4x2x8xf32>
  %yt = linalg.transpose ins(%y5 : tensor<2x4x2x2x8xf32>) outs(%yt_e : tensor<2x2x4x2x8xf32>) permutation = [0, 2, 1, 3, 4]
  %back = tensor.collapse_shape %yt [[0, 1], [2], [3], [4]] : tensor<2x2x4x2x8xf32> into tensor<4x4x2x8xf32>
  // Each token takes its bucket slot's output scaled by its gate (0 if dropped).
  %o_e = tensor.empty() : tensor<4x4x8xf32>
  %o_z = linalg.fill ins(%zero : f32) outs(%o_e : tensor<4x4x8xf32>) -> tensor<4x4x8xf32>
  %o3 = linalg.generic {indexing_maps = [#gshec_gsec, #gshec_gech, #gshec_gs, #gshec_gsh],
                        iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]}
      ins(%mask, %back, %gg : tensor<4x4x4x2xf32>, tensor<4x4x2x8xf32>, tensor<4x4xf32>)
      outs(%o_z : tensor<4x4x8xf32>) {
  ^bb0(%m: f32, %v: f32, %g: f32, %acc: f32):
    %mv = arith.mulf %m, %v : f32
    %p = arith.mulf %mv, %g : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x4x8xf32>
  %out = tensor.collapse_shape %o3 [[0, 1], [2]] : tensor<4x4x8xf32> into tensor<16x8xf32>
  return %out : tensor<16x8xf32>
}

// value[i, j] = ((a i + b j) mod m) - off, small integers.
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
    linalg.yield %f : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// value[i, j, k] = ((a i + b j + c k) mod m) - off, small integers.
func.func @pattern3(%d0: index, %d1: index, %d2: index, %a: index, %b: index, %c: index,
                    %m: index, %off: index) -> tensor<?x?x?xf32> {
  %e = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %ai = arith.muli %i, %a : index
    %bj = arith.muli %j, %b : index
    %ck = arith.muli %k, %c : index
    %s0 = arith.addi %ai, %bj : index
    %s = arith.addi %s0, %ck : index
    %r = arith.remui %s, %m : index
    %v = arith.subi %r, %off : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?x?xf32>
  return %t : tensor<?x?x?xf32>
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
    vector.print str "global_moe: this rank matches the single-device result\n"
  } else {
    vector.print str "global_moe: MISMATCH with the single-device result, max |diff| = "
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
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %xd = func.call @pattern(%c16, %c8, %c3, %c5, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %wgd = func.call @pattern(%c8, %c4, %c1, %c1, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w1d = func.call @pattern3(%c4, %c8, %c8, %c2, %c3, %c1, %c5, %c2) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %w2d = func.call @pattern3(%c4, %c8, %c8, %c1, %c2, %c3, %c4, %c1) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<16x8xf32>
  %wg = tensor.cast %wgd : tensor<?x?xf32> to tensor<8x4xf32>
  %w1 = tensor.cast %w1d : tensor<?x?x?xf32> to tensor<4x8x8xf32>
  %w2 = tensor.cast %w2d : tensor<?x?x?xf32> to tensor<4x8x8xf32>
  %want = func.call @reference(%x, %wg, %w1, %w2)
      : (tensor<16x8xf32>, tensor<8x4xf32>, tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<16x8xf32>

  // Every rank holds the full inputs; redistribute keeps its blocks.
  %rx = dtensor.from_local %x : tensor<16x8xf32> -> !dtensor.tensor<16x8xf32, @mesh, [replicate, replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<16x8xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]>
  %dwg = dtensor.from_local %wg : tensor<8x4xf32> -> !dtensor.tensor<8x4xf32, @mesh, [replicate, replicate]>
  %r1 = dtensor.from_local %w1 : tensor<4x8x8xf32> -> !dtensor.tensor<4x8x8xf32, @mesh, [replicate, replicate]>
  %dw1 = dtensor.redistribute %r1 : !dtensor.tensor<4x8x8xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<4x8x8xf32, @mesh, [replicate, shard<0>]>
  %r2 = dtensor.from_local %w2 : tensor<4x8x8xf32> -> !dtensor.tensor<4x8x8xf32, @mesh, [replicate, replicate]>
  %dw2 = dtensor.redistribute %r2 : !dtensor.tensor<4x8x8xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<4x8x8xf32, @mesh, [replicate, shard<0>]>
  %dy = func.call @global_moe(%dx, %dwg, %dw1, %dw2)
      : (!dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]>, !dtensor.tensor<8x4xf32, @mesh, [replicate, replicate]>,
         !dtensor.tensor<4x8x8xf32, @mesh, [replicate, shard<0>]>, !dtensor.tensor<4x8x8xf32, @mesh, [replicate, shard<0>]>)
      -> !dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]>
  // Bring the token-sharded result to every rank to compare all of it.
  %ry = dtensor.redistribute %dy : !dtensor.tensor<16x8xf32, @mesh, [shard<0>, shard<0>]> -> !dtensor.tensor<16x8xf32, @mesh, [replicate, replicate]>
  %y = dtensor.to_local %ry : !dtensor.tensor<16x8xf32, @mesh, [replicate, replicate]> -> tensor<16x8xf32>

  %yd = tensor.cast %y : tensor<16x8xf32> to tensor<?x?xf32>
  %wd = tensor.cast %want : tensor<16x8xf32> to tensor<?x?xf32>
  func.call @report(%yd, %wd) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()
  return
}
