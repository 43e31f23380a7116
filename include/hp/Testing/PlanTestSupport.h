//===- PlanTestSupport.h - placement lists and problems for tests -*- C++
//-*-===//
//
// Shared by the planner and checker tests and bench/plan_quality: short
// placement constructors, a Problem from its parts, and every placement
// list of a mesh rank. (include/hp/Testing holds what hp's unit tests and
// benchmarks share, as llvm/Testing does for LLVM.)
//
//===----------------------------------------------------------------------===//

#ifndef HP_TESTING_PLANTESTSUPPORT_H
#define HP_TESTING_PLANTESTSUPPORT_H

#include "hp/Dialect/DTensor/Utils/RedistributePlanner.h"

#include <vector>

namespace hp::dtensor::plan::testing {

inline constexpr ReduceOp kSum = ReduceOp::Sum, kAvg = ReduceOp::Avg,
                          kMax = ReduceOp::Max, kMin = ReduceOp::Min,
                          kProd = ReduceOp::Prod;

inline Placement S(int64_t d) { return Placement::shard(d); }
inline Placement R() { return Placement::replicate(); }
inline Placement P(ReduceOp op = kSum) { return Placement::partial(op); }
inline Placement SS(int64_t d, int64_t f) {
  return Placement::stridedShard(d, f);
}

inline Problem problem(llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> mesh,
                       llvm::ArrayRef<Placement> src,
                       llvm::ArrayRef<Placement> dst) {
  Problem p;
  p.globalShape.assign(shape.begin(), shape.end());
  p.meshShape.assign(mesh.begin(), mesh.end());
  p.source.assign(src.begin(), src.end());
  p.target.assign(dst.begin(), dst.end());
  p.elementBytes = 4;
  return p;
}

/// Every list of R, P(op) for each of `ops`, and S(d) for every tensor dim,
/// over `meshRank` mesh dims.
inline std::vector<std::vector<Placement>>
allPlacements(int64_t meshRank, int64_t tensorRank,
              llvm::ArrayRef<ReduceOp> ops = {kSum}) {
  std::vector<Placement> options = {R()};
  for (ReduceOp op : ops)
    options.push_back(P(op));
  for (int64_t d = 0; d < tensorRank; ++d)
    options.push_back(S(d));
  std::vector<std::vector<Placement>> all = {{}};
  for (int64_t m = 0; m < meshRank; ++m) {
    std::vector<std::vector<Placement>> next;
    for (const auto &prefix : all)
      for (const Placement &p : options) {
        next.push_back(prefix);
        next.back().push_back(p);
      }
    all = std::move(next);
  }
  return all;
}

/// The lists of `base` with one or more shards turned into strided_shard:
/// every non-empty subset of the mesh dims whose tensor dim a later mesh dim
/// shards too, each with the split factor hp requires (the product of the
/// later mesh dims sharding that tensor dim), where that tensor dim divides
/// evenly over all its shards.
inline std::vector<std::vector<Placement>>
stridedVariants(const std::vector<std::vector<Placement>> &base,
                llvm::ArrayRef<int64_t> mesh, llvm::ArrayRef<int64_t> shape) {
  std::vector<std::vector<Placement>> out;
  for (const auto &list : base) {
    std::vector<int64_t> candidates, factor;
    for (size_t m = 0; m < list.size(); ++m) {
      if (list[m].kind != Placement::Shard)
        continue;
      int64_t d = list[m].dim, later = 1, all = 1;
      for (size_t k = 0; k < list.size(); ++k)
        if (list[k].kind == Placement::Shard && list[k].dim == d) {
          all *= mesh[k];
          if (k > m)
            later *= mesh[k];
        }
      if (later > 1 && shape[d] % all == 0) {
        candidates.push_back(m);
        factor.push_back(later);
      }
    }
    for (uint64_t subset = 1; subset < (uint64_t(1) << candidates.size());
         ++subset) {
      std::vector<Placement> v = list;
      for (size_t i = 0; i < candidates.size(); ++i)
        if (subset >> i & 1)
          v[candidates[i]] = SS(list[candidates[i]].dim, factor[i]);
      out.push_back(std::move(v));
    }
  }
  return out;
}

} // namespace hp::dtensor::plan::testing

#endif // HP_TESTING_PLANTESTSUPPORT_H
