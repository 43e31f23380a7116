//===- RedistributePlanner.cpp - cheapest collective sequences ------------===//
//
// A* over placement states. A state is the placements plus the shard
// order of every tensor dim; edges are the steps of
// docs/RedistributePlanning.md, each costed as the bytes one rank sends with
// ring algorithms (padded to the largest chunk for uneven splits) times the
// group's bandwidth weight, plus alpha per collective.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Utils/RedistributePlanner.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Dialect/DTensor/Utils/CollectiveBytes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <sstream>

#define DEBUG_TYPE "redistribute-planner"

using namespace hp::dtensor::plan;
using hp::dtensor::kNotSharded;
using hp::dtensor::kReduceOps;
using hp::dtensor::nestingOrder;
using hp::dtensor::paddedPiece;
using hp::dtensor::ReduceOp;

std::string
hp::dtensor::plan::placementsToString(llvm::ArrayRef<Placement> placements) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(placements, os, [&](const Placement &p) {
    switch (p.kind) {
    case Placement::Replicate:
      os << 'R';
      break;
    case Placement::Shard:
      os << "S(" << p.dim << ')';
      break;
    case Placement::Partial:
      os << "P(" << stringifyReduceOp(p.reduceOp) << ')';
      break;
    case Placement::StridedShard:
      os << "SS(" << p.dim << ',' << p.splitFactor << ')';
      break;
    }
  });
  os << ']';
  return s;
}

State State::fromPlacements(llvm::ArrayRef<Placement> placements,
                            int64_t tensorRank) {
  State s;
  llvm::SmallVector<int64_t, 4> dims;
  llvm::SmallVector<bool, 4> strided;
  for (const Placement &p : placements) {
    dims.push_back(p.isSplit() ? p.dim : kNotSharded);
    strided.push_back(p.kind == Placement::StridedShard);
    s.placements.push_back(
        p.kind == Placement::StridedShard ? Placement::shard(p.dim) : p);
  }
  s.order = nestingOrder(dims, strided, tensorRank);
  return s;
}

llvm::SmallVector<int64_t, 4> State::freeAxes() const {
  llvm::SmallVector<int64_t, 4> axes;
  for (auto [m, p] : llvm::enumerate(placements)) {
    bool splits = llvm::any_of(
        order, [&](const auto &dims) { return llvm::is_contained(dims, m); });
    if (!splits && p.kind != Placement::Partial)
      axes.push_back(m);
  }
  return axes;
}

std::string State::key() const {
  // Two characters per mesh axis, its role: the tensor dim it splits (plus
  // one) and its nesting position, or 0 and its partial op (plus one), or
  // two zeros for replicate. The roles fix the placements and the orders,
  // and the key of a mesh of up to 7 axes stays in the small-string buffer
  // (no allocation per successor).
  std::string k(2 * placements.size(), '\0');
  for (auto [m, p] : llvm::enumerate(placements))
    if (p.kind == Placement::Partial)
      k[2 * m + 1] = static_cast<char>(1 + static_cast<int>(p.reduceOp));
  for (auto [d, dims] : llvm::enumerate(order))
    for (auto [i, m] : llvm::enumerate(dims)) {
      k[2 * m] = static_cast<char>(1 + d);
      k[2 * m + 1] = static_cast<char>(i);
    }
  return k;
}

std::string Step::str() const {
  static const char *names[] = {"all_gather", "all_reduce", "reduce_scatter",
                                "all_to_all", "chunk",      "make_partial",
                                "fill",       "permute"};
  std::string s;
  llvm::raw_string_ostream os(s);
  os << names[kind] << "(axes=[";
  llvm::interleaveComma(axes, os);
  os << ']';
  switch (kind) {
  case AllGather:
  case Chunk:
  case ReduceScatter:
  case Fill:
    os << ", dim=" << dim;
    break;
  case AllToAll:
    os << ", dim=" << dim << "->" << dstDim;
    break;
  case AllReduce:
  case MakePartial:
    break;
  case Permute:
    os << ", splits=[";
    llvm::interleaveComma(order, os, [&](const auto &dims) {
      os << '[';
      llvm::interleaveComma(dims, os);
      os << ']';
    });
    os << ']';
    break;
  }
  if (kind == AllReduce || kind == ReduceScatter || kind == MakePartial ||
      kind == Fill)
    os << ", " << stringifyReduceOp(reduceOp);
  os << ", cost=" << cost << ')';
  return s;
}

std::string hp::dtensor::plan::invalidOptions(const Options &options) {
  for (double w : options.axisWeights)
    if (!(w > 0) || !std::isfinite(w)) {
      std::ostringstream os;
      os << "axis-weights must be finite numbers above 0, got " << w;
      return os.str();
    }
  return "";
}

std::string hp::dtensor::plan::humanBytes(double bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  if (u == 0)
    os << static_cast<int64_t>(bytes + 0.5) << " B";
  else
    os << llvm::format("%.1f ", bytes) << units[u];
  return s;
}

std::string State::str() const {
  std::string s = placementsToString(placements);
  // The nesting order, where it is not the mesh-dim order types imply.
  bool defaultOrder = true;
  for (const auto &dims : order)
    defaultOrder &= llvm::is_sorted(dims);
  if (defaultOrder)
    return s;
  llvm::raw_string_ostream os(s);
  os << " (splits";
  for (auto [d, dims] : llvm::enumerate(order)) {
    if (dims.size() < 2)
      continue;
    os << " dim " << d << " by mesh axes [";
    llvm::interleaveComma(dims, os);
    os << "]";
  }
  os << ", outermost first)";
  return s;
}

std::string Plan::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  double total = 0;
  for (const Step &step : steps)
    total += step.bytes;
  os << "  " << humanBytes(total) << " sent per rank in " << numCollectives
     << (numCollectives == 1 ? " collective" : " collectives");
  for (auto [i, step] : llvm::enumerate(steps)) {
    os << "\n  " << i + 1 << ". " << step.str() << ": ";
    if (i < states.size())
      os << states[i].str();
    os << " -> ";
    if (i + 1 < states.size())
      os << states[i + 1].str();
    os << (step.isCollective ? ", sends " + humanBytes(step.bytes) + " per rank"
                             : ", local");
  }
  return s;
}

std::string Plan::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "cost=" << cost << " collectives=" << numCollectives << " steps=[";
  llvm::interleave(steps, os, [&](const Step &st) { os << st.str(); }, "; ");
  os << ']';
  return s;
}

static llvm::SmallVector<int64_t> paddedShape(const Problem &problem,
                                              const State &state) {
  return hp::dtensor::Layout{problem.globalShape, problem.meshShape,
                             state.order}
      .paddedShape();
}

static double bytesOf(const Problem &problem, llvm::ArrayRef<int64_t> shape) {
  double n = problem.elementBytes;
  for (int64_t s : shape)
    n *= static_cast<double>(s);
  return n;
}

double hp::dtensor::plan::localBytes(const Problem &problem,
                                     const State &state) {
  return bytesOf(problem, paddedShape(problem, state));
}

namespace {
struct Costing {
  const Problem &problem;
  const Options &options;

  int64_t groupSize(llvm::ArrayRef<int64_t> axes) const {
    return hp::dtensor::groupSize(problem.meshShape, axes);
  }
  double weight(llvm::ArrayRef<int64_t> axes) const {
    double w = 0;
    for (int64_t m : axes)
      w = std::max(w, m < static_cast<int64_t>(options.axisWeights.size())
                          ? options.axisWeights[m]
                          : 1.0);
    return w;
  }
  /// Fills in cost and isCollective for a step in which one rank sends
  /// `sent` bytes (bytesSent). Groups of one device need no communication.
  void price(Step &step, double sent) const {
    step.isCollective = groupSize(step.axes) > 1;
    step.bytes = step.isCollective ? sent : 0;
    step.cost =
        step.isCollective ? weight(step.axes) * sent + options.latencyBytes : 0;
  }
};
} // namespace

/// `state` with tensor dim `d` split further over `axes`, the first outermost
/// (as all_to_all, reduce_scatter and a local chunk leave it).
static State splitAlong(State state, int64_t d, llvm::ArrayRef<int64_t> axes) {
  for (int64_t m : axes) {
    state.placements[m] = Placement::shard(d);
    state.order[d].push_back(m);
  }
  return state;
}

bool hp::dtensor::plan::subBlockPermute(const Problem &problem,
                                        const State &from, const State &to,
                                        llvm::SmallVectorImpl<int64_t> *refine,
                                        llvm::SmallVectorImpl<int64_t> *merge) {
  if (from.key() == to.key())
    return false;
  int64_t numAxes = problem.meshShape.size();
  // Partial axes stay as they are.
  for (int64_t m = 0; m < numAxes; ++m) {
    const Placement &a = from.placements[m], &b = to.placements[m];
    if ((a.kind == Placement::Partial) != (b.kind == Placement::Partial) ||
        (a.kind == Placement::Partial && a.reduceOp != b.reduceOp))
      return false;
  }
  // Per dim, the target's splits keep the chunking (position by position
  // the same sizes: then any sizes), refine it evenly (`r` target pieces in
  // each current piece) or coarsen it evenly (`q` current pieces in each
  // target piece, received in q rounds).
  int64_t pieces = 1, rounds = 1;
  llvm::SmallVector<int64_t, 4> r, q;
  for (auto [d, g] : llvm::enumerate(problem.globalShape)) {
    const auto &a = from.order[d], &b = to.order[d];
    bool same =
        a.size() == b.size() && llvm::all_of(llvm::zip(a, b), [&](auto pair) {
          return problem.meshShape[std::get<0>(pair)] ==
                 problem.meshShape[std::get<1>(pair)];
        });
    int64_t na = hp::dtensor::groupSize(problem.meshShape, a);
    int64_t nb = hp::dtensor::groupSize(problem.meshShape, b);
    r.push_back(1);
    q.push_back(1);
    if (same)
      continue;
    if (g % std::max(na, nb) != 0)
      return false;
    if (nb % na == 0)
      r.back() = nb / na;
    else if (na % nb == 0)
      q.back() = na / nb;
    else
      return false;
    pieces *= r.back();
    rounds *= q.back();
  }
  if (rounds > kMaxPermuteRounds)
    return false;
  // Each current block is held by cFrom devices; its `pieces` sub-blocks
  // are wanted by cTo devices each, once per round of a target block that
  // merges pieces: a one-to-one pairing in every round needs
  // pieces * cTo == cFrom * rounds (it always holds for even splits).
  auto replicas = [&](const State &st) {
    return hp::dtensor::groupSize(problem.meshShape, st.freeAxes());
  };
  if (pieces * replicas(to) != replicas(from) * rounds)
    return false;
  if (refine)
    *refine = std::move(r);
  if (merge)
    *merge = std::move(q);
  return true;
}

namespace {
/// The steps that leave one state, one generator per step kind (as
/// Shardy's reshard_to_collectives does per collective); each hands every
/// priced step and the state it reaches to `fn`.
class Successors {
public:
  Successors(const Problem &problem, const Options &options, const State &state,
             llvm::function_ref<void(const Step &, const State &)> fn)
      : problem(problem), options(options), state(state), fn(fn),
        costing{problem, options},
        rank(static_cast<int64_t>(problem.globalShape.size())),
        numAxes(static_cast<int64_t>(problem.meshShape.size())),
        integer(problem.arithmetic != Arithmetic::Real),
        shape(paddedShape(problem, state)), bytes(bytesOf(problem, shape)) {}

  void gathersAndAllToAlls();
  void fills();
  void wholeBlockPermutes();
  void subBlockPermute();
  void reductions();
  void chunksAndMakePartials();

private:
  /// Bytes per rank of the input packed along `d` into one padded chunk per
  /// member of the `axes` group (the send buffer of a split collective).
  double packedBytes(int64_t d, llvm::ArrayRef<int64_t> axes) const {
    return bytes / shape[d] * costing.groupSize(axes) *
           paddedPiece(shape[d], problem.meshShape, axes);
  }
  /// A DTensor's value reduces its partial mesh dims innermost first, so an
  /// axis may be reduced only once every later partial axis with another op
  /// is (reductions of one op commute).
  bool reducible(int64_t m, ReduceOp op) const {
    return llvm::all_of(
        llvm::drop_begin(state.placements, m + 1), [&](const Placement &q) {
          return q.kind != Placement::Partial || q.reduceOp == op;
        });
  }
  void permutesFrom(int64_t d, int64_t i);
  void emitPermute();
  void reductionsOver(ReduceOp op, llvm::ArrayRef<int64_t> axes);

  const Problem &problem;
  const Options &options;
  const State &state;
  llvm::function_ref<void(const Step &, const State &)> fn;
  Costing costing;
  int64_t rank, numAxes;
  bool integer;
  llvm::SmallVector<int64_t> shape;
  double bytes;
  // The whole-block permute search: mesh axes taken, per dim whether its
  // splits divide it evenly, the split sizes not yet placed (used only where
  // they may be reordered) and the order built so far.
  llvm::SmallVector<bool, 4> used;
  llvm::SmallVector<bool, 4> even;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> left, order;
};
} // namespace

// Gathers and all_to_alls move the innermost j splits of a tensor dim.
void Successors::gathersAndAllToAlls() {
  for (int64_t d = 0; d < rank; ++d) {
    const auto &splits = state.order[d];
    int64_t maxJ =
        options.mergeAxes ? splits.size() : std::min<int64_t>(1, splits.size());
    for (int64_t j = 1; j <= maxJ; ++j) {
      llvm::SmallVector<int64_t, 4> axes(splits.end() - j, splits.end());
      int64_t n = costing.groupSize(axes);
      State gathered = state;
      gathered.order[d].resize(splits.size() - j);
      for (int64_t m : axes)
        gathered.placements[m] = Placement::replicate();

      Step gather{Step::AllGather, axes, d};
      // (n-1)/n of the padded output, which is n padded inputs.
      costing.price(gather,
                    bytesSent(Collective::AllGather, n, bytes, n * bytes));
      fn(gather, gathered);

      for (int64_t d2 = 0; d2 < rank; ++d2) {
        if (d2 == d)
          continue;
        Step a2a{Step::AllToAll, axes, d, d2};
        double packed = packedBytes(d2, axes);
        costing.price(a2a, bytesSent(Collective::AllToAll, n, packed, packed));
        fn(a2a, splitAlong(gathered, d2, axes));
      }
    }
  }
}

// The local fill S(d) -> P(op): each rank places its block at its offset in
// a tensor of the unsplit size holding the op's identity elsewhere; no
// communication. Only towards a partial target, for sum, max, min and prod
// (avg goes through R), and only where the identity survives every later
// partial axis's reduction.
void Successors::fills() {
  for (int64_t d = 0; d < rank; ++d) {
    if (state.order[d].empty())
      continue;
    int64_t m = state.order[d].back();
    const Placement &want = problem.target[m];
    if (want.kind != Placement::Partial || want.reduceOp == ReduceOp::Avg)
      continue;
    bool keepsIdentity = llvm::all_of(
        llvm::drop_begin(state.placements, m + 1), [&](const Placement &q) {
          return q.kind != Placement::Partial ||
                 identitySurvives(want.reduceOp, q.reduceOp, integer);
        });
    if (!keepsIdentity)
      continue;
    State filled = state;
    filled.order[d].pop_back();
    filled.placements[m] = want;
    Step fill{Step::Fill, {m}, d};
    fill.reduceOp = want.reduceOp;
    fn(fill, filled);
  }
}

// Permutes: every tensor dim keeps the sizes of its splits, in order, on
// other mesh axes or in another nesting; partial axes stay. A dim that its
// splits divide evenly may also reorder the sizes (its chunks are the same
// whatever the nesting). Each device then needs exactly one whole block,
// held by one device: one grouped send and receive per rank (the receive
// lower bound for such a move), however the roles move.
void Successors::wholeBlockPermutes() {
  if (!options.permutes)
    return;
  used.assign(numAxes, false);
  for (auto [m, pl] : llvm::enumerate(state.placements))
    used[m] = pl.kind == Placement::Partial;
  even.assign(rank, false);
  left.assign(rank, {});
  order.assign(rank, {});
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = costing.groupSize(state.order[d]);
    even[d] = state.order[d].size() > 1 && problem.globalShape[d] % n == 0;
    for (int64_t m : state.order[d])
      left[d].push_back(problem.meshShape[m]);
  }
  permutesFrom(0, 0);
}

/// Chooses the mesh axis of split `i` of dim `d`, then the rest.
void Successors::permutesFrom(int64_t d, int64_t i) {
  if (d == rank) {
    if (order != state.order)
      emitPermute();
    return;
  }
  if (i == static_cast<int64_t>(state.order[d].size()))
    return permutesFrom(d + 1, 0);
  int64_t size = problem.meshShape[state.order[d][i]];
  for (int64_t m = 0; m < numAxes; ++m) {
    if (used[m])
      continue;
    int64_t n = problem.meshShape[m];
    auto it = llvm::find(left[d], n);
    if (even[d] ? it == left[d].end() : n != size)
      continue;
    if (even[d])
      left[d].erase(it);
    used[m] = true;
    order[d].push_back(m);
    permutesFrom(d, i + 1);
    order[d].pop_back();
    used[m] = false;
    if (even[d])
      left[d].push_back(n);
  }
}

void Successors::emitPermute() {
  Step permute{Step::Permute};
  State next = state;
  next.order = order;
  // Axes that split a dim whose splits change may all move (a reordered
  // nesting renumbers every chunk), and so may the axes whose role changes
  // between replicate and a split.
  llvm::SmallVector<bool, 4> moves(numAxes, false);
  for (int64_t k = 0; k < rank; ++k) {
    if (order[k] == state.order[k])
      continue;
    for (int64_t m : state.order[k]) {
      moves[m] = true;
      next.placements[m] = Placement::replicate();
    }
    for (int64_t m : order[k])
      moves[m] = true;
  }
  for (int64_t k = 0; k < rank; ++k)
    for (int64_t m : order[k])
      next.placements[m] = Placement::shard(k);
  for (int64_t m = 0; m < numAxes; ++m)
    if (moves[m] && problem.meshShape[m] != 1)
      permute.axes.push_back(m);
  permute.order = order;
  costing.price(permute,
                bytesSent(Collective::Send, costing.groupSize(permute.axes),
                          bytes, bytes));
  fn(permute, next);
}

// The sub-block permute, straight to the target: the target's splits refine
// or coarsen the current ones evenly; in each of its rounds every device
// receives one piece of its target block and sends one part of its own
// (subBlockPermute proves such a pairing, which the step keeps), all in one
// group.
void Successors::subBlockPermute() {
  if (!options.permutes)
    return;
  State goal = State::fromPlacements(problem.target, rank);
  Step permute{Step::Permute};
  if (!hp::dtensor::plan::subBlockPermute(problem, state, goal, &permute.refine,
                                          &permute.merge))
    return;
  for (int64_t m = 0; m < numAxes; ++m)
    if (problem.meshShape[m] > 1 &&
        state.placements[m].kind != Placement::Partial)
      permute.axes.push_back(m);
  permute.order = goal.order;
  double block = localBytes(problem, goal);
  costing.price(permute,
                bytesSent(Collective::Send, costing.groupSize(permute.axes),
                          block, block));
  fn(permute, goal);
}

// Partial axes with the same reduction may be reduced together.
void Successors::reductions() {
  for (ReduceOp op : kReduceOps) {
    llvm::SmallVector<int64_t, 4> partials;
    for (auto [m, p] : llvm::enumerate(state.placements))
      if (p.isPartial(op) && reducible(m, op))
        partials.push_back(m);
    for (unsigned mask = 1; mask < (1u << partials.size()); ++mask) {
      llvm::SmallVector<int64_t, 4> axes;
      for (auto [i, m] : llvm::enumerate(partials))
        if (mask & (1u << i))
          axes.push_back(m);
      if (options.mergeAxes || axes.size() == 1)
        reductionsOver(op, axes);
    }
  }
}

void Successors::reductionsOver(ReduceOp op, llvm::ArrayRef<int64_t> axes) {
  int64_t n = costing.groupSize(axes);
  State reduced = state;
  for (int64_t m : axes)
    reduced.placements[m] = Placement::replicate();
  Step allReduce{Step::AllReduce, llvm::to_vector<4>(axes)};
  allReduce.reduceOp = op;
  costing.price(allReduce, bytesSent(Collective::AllReduce, n, bytes, bytes));
  fn(allReduce, reduced);

  // Every order of the group gives another nesting of the new splits.
  llvm::SmallVector<int64_t, 4> perm(axes);
  do {
    for (int64_t d = 0; d < rank; ++d) {
      Step rs{Step::ReduceScatter, perm, d};
      rs.reduceOp = op;
      double packed = packedBytes(d, perm);
      costing.price(
          rs, bytesSent(Collective::ReduceScatter, n, packed, packed / n));
      fn(rs, splitAlong(state, d, perm));
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

// Replicated axes split locally, or become partial for a partial target.
void Successors::chunksAndMakePartials() {
  for (auto [m, p] : llvm::enumerate(state.placements)) {
    if (p.kind != Placement::Replicate)
      continue;
    for (int64_t d = 0; d < rank; ++d) {
      Step chunk{Step::Chunk, {static_cast<int64_t>(m)}, d};
      fn(chunk, splitAlong(state, d, chunk.axes));
    }
    const Placement &want = problem.target[m];
    if (want.kind != Placement::Partial)
      continue;
    // The other coordinates of a partial<prod> hold 1, which a later
    // partial<sum> axis would add up to more than 1.
    bool prodUnderSum = want.reduceOp == ReduceOp::Prod &&
                        llvm::any_of(llvm::drop_begin(state.placements, m + 1),
                                     [](const Placement &q) {
                                       return q.isPartial(ReduceOp::Sum);
                                     });
    // Integer copies under avg are summed: an earlier max or min axis may
    // hold a fill's extremes there, which the sum would wrap. (Conservative:
    // a max/min partial of the source holds none, but a state does not say
    // where its partials came from.)
    bool avgOverExtremes =
        integer && want.reduceOp == ReduceOp::Avg &&
        llvm::any_of(llvm::make_range(state.placements.begin(),
                                      state.placements.begin() + m),
                     [](const Placement &q) {
                       return q.kind == Placement::Partial &&
                              isExtremum(q.reduceOp);
                     });
    if (prodUnderSum || avgOverExtremes)
      continue;
    State partial = state;
    partial.placements[m] = want;
    Step make{Step::MakePartial, {static_cast<int64_t>(m)}};
    make.reduceOp = want.reduceOp;
    fn(make, partial);
  }
}

void hp::dtensor::plan::forEachSuccessor(
    const Problem &problem, const Options &options, const State &state,
    llvm::function_ref<void(const Step &, const State &)> fn) {
  Successors successors(problem, options, state, fn);
  successors.gathersAndAllToAlls();
  successors.fills();
  successors.wholeBlockPermutes();
  successors.subBlockPermute();
  successors.reductions();
  successors.chunksAndMakePartials();
}

namespace {
/// Lexicographic path cost: bytes, then collectives, then steps (a local
/// make_partial beats a chunk and a fill), then peak memory.
struct PathCost {
  double cost = 0;
  int64_t collectives = 0;
  int64_t steps = 0;
  double peak = 0;

  bool operator<(const PathCost &o) const {
    double tol = 1e-9 * std::max({1.0, std::fabs(cost), std::fabs(o.cost)});
    if (std::fabs(cost - o.cost) > tol)
      return cost < o.cost;
    if (collectives != o.collectives)
      return collectives < o.collectives;
    if (steps != o.steps)
      return steps < o.steps;
    return peak < o.peak - 1e-9 * std::max(1.0, peak);
  }
};

struct Visit {
  PathCost cost;
  State state;
  int64_t parent = -1;
  Step step;
  bool done = false;
  /// Lower bound on the cost from this state to the target (bytes,
  /// collectives and steps).
  PathCost remaining;
};
} // namespace

namespace {
/// An admissible lower bound on the cost still to pay from a state, for A*.
///
/// Let Q be the target's partial mesh axes and G a group of devices that
/// differ only on Q (g devices; g = 1 without partial targets). Their target
/// blocks are one block T, which the group must end up knowing: every
/// element of T the group does not hold yet needs at least one value
/// delivered to some member. Every step costs at least what any one device
/// receives in it (ring collectives receive what they send; a permute
/// receives at most one block), hence at least the group's receipts over g.
/// So the cost still to pay is at least (|T| - |T held by G|) / g bytes,
/// times the smallest axis weight, plus one latency term while anything is
/// missing. Per tensor dim the group holds at most the box its members'
/// blocks span (the piece of the splits outside the first Q axis) and at
/// most one padded piece per combination of the digits of the Q axes that
/// split the dim; it holds nothing while a partial axis outside Q is
/// unreduced (the planner makes axes partial only towards partial targets,
/// so such shares are genuine).
///
/// Evaluated on the corner devices (every coordinate first or last): O(mesh
/// rank) each, and the corners are where swapped or reordered splits differ.
class RemainingBound {
public:
  RemainingBound(const Problem &problem, const Options &options,
                 const State &goal)
      : problem(problem) {
    int64_t numAxes = problem.meshShape.size();
    minWeight = HUGE_VAL;
    for (int64_t m = 0; m < numAxes; ++m)
      minWeight = std::min(minWeight,
                           m < static_cast<int64_t>(options.axisWeights.size())
                               ? options.axisWeights[m]
                               : 1.0);
    latency = options.latencyBytes;
    groupSize = 1;
    inQ.assign(numAxes, false);
    for (auto [m, p] : llvm::enumerate(goal.placements))
      if (p.kind == Placement::Partial) {
        inQ[m] = true;
        groupSize *= problem.meshShape[m];
      }
    active = minWeight > 0 && minWeight != HUGE_VAL;
    if (!active)
      return;
    llvm::SmallVector<int64_t, 4> varying;
    for (int64_t m = 0; m < numAxes; ++m)
      if (problem.meshShape[m] > 1 && !inQ[m])
        varying.push_back(m);
    // At most 2^6 corners; beyond that the first 64 combinations.
    int64_t count = int64_t(1) << std::min<int64_t>(varying.size(), 6);
    for (int64_t bits = 0; bits < count; ++bits) {
      llvm::SmallVector<int64_t, 4> coord(numAxes, 0);
      for (auto [i, m] : llvm::enumerate(varying))
        if (i < 6 && (bits >> i & 1))
          coord[m] = problem.meshShape[m] - 1;
      auto &want = wanted.emplace_back();
      for (auto [d, g] : llvm::enumerate(problem.globalShape))
        want.push_back(span(goal.order[d], g, coord));
      corners.push_back(coord);
    }
  }

  double operator()(const State &state) const {
    if (!active)
      return 0;
    bool unreduced = false;
    for (auto [m, p] : llvm::enumerate(state.placements))
      unreduced |=
          p.kind == Placement::Partial && !inQ[m] && problem.meshShape[m] > 1;
    int64_t rank = problem.globalShape.size();
    double most = 0;
    for (auto [coord, want] : llvm::zip_equal(corners, wanted)) {
      double need = 1, kept = unreduced ? 0 : 1;
      for (int64_t d = 0; d < rank; ++d) {
        auto [wantOffset, wantSize] = want[d];
        need *= static_cast<double>(wantSize);
        if (unreduced)
          continue;
        auto [offset, size] =
            span(state.order[d], problem.globalShape[d], coord);
        int64_t lo = std::max(wantOffset, offset);
        int64_t hi = std::min(wantOffset + wantSize, offset + size);
        // The box the group spans bounds what it holds, and so does the
        // count of its distinct pieces (what a split inside a Q axis
        // leaves of the box).
        kept *= static_cast<double>(
            std::min(std::max<int64_t>(0, hi - lo),
                     held(state.order[d], problem.globalShape[d])));
      }
      most = std::max(most, need - kept);
    }
    if (most <= 0)
      return 0;
    return minWeight * most * problem.elementBytes / groupSize + latency;
  }

  /// The bound as a path cost: while bytes are missing, at least one more
  /// collective and one more step are too; and every axis that the target
  /// has partial and the state does not needs a step of its own (only
  /// make_partial and fill create partial axes, one each).
  PathCost remaining(const State &state) const {
    PathCost r;
    r.cost = (*this)(state);
    if (r.cost > 0) {
      r.collectives = 1;
      r.steps = 1;
    }
    for (auto [m, p] : llvm::enumerate(state.placements))
      r.steps += inQ[m] && p.kind != Placement::Partial;
    r.peak = 0;
    return r;
  }

private:
  /// Offset and size of the piece of a dim of `size` that `coord`'s group
  /// spans when split by `splits` (outermost first): the splits outside the
  /// first Q axis.
  std::pair<int64_t, int64_t> span(llvm::ArrayRef<int64_t> splits, int64_t size,
                                   llvm::ArrayRef<int64_t> coord) const {
    hp::dtensor::IntArith a;
    return hp::dtensor::splitPiece(
        a, size, problem.meshShape,
        splits.take_while([&](int64_t m) { return !inQ[m]; }), coord);
  }

  /// At most how many elements of a dim of `size` split by `splits` the
  /// group holds: one padded piece per combination of its Q axes' digits.
  int64_t held(llvm::ArrayRef<int64_t> splits, int64_t size) const {
    int64_t combinations = 1;
    for (int64_t m : splits)
      if (inQ[m])
        combinations *= problem.meshShape[m];
    return combinations * paddedPiece(size, problem.meshShape, splits);
  }

  const Problem &problem;
  double minWeight = 1, latency = 0;
  int64_t groupSize = 1;
  bool active = false;
  llvm::SmallVector<bool, 4> inQ;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 16> corners;
  /// Per corner, per dim: offset and size of the target block.
  llvm::SmallVector<llvm::SmallVector<std::pair<int64_t, int64_t>, 4>, 16>
      wanted;
};
} // namespace

/// -debug-only=redistribute-planner (a build of LLVM with assertions): how
/// far the search went for one redistribute, and what it found.
[[maybe_unused]] static void traceSearch(const State &start, const State &goal,
                                         size_t reached,
                                         const PathCost *found) {
  llvm::dbgs() << "[redistribute-planner] " << start.str() << " -> "
               << goal.str() << ": " << reached << " states reached, ";
  if (!found)
    llvm::dbgs() << "no plan\n";
  else
    llvm::dbgs() << "cost " << found->cost << " in " << found->steps
                 << " steps\n";
}

std::optional<Plan>
hp::dtensor::plan::planRedistribute(const Problem &problem,
                                    const Options &options) {
  int64_t rank = problem.globalShape.size();
  State start = State::fromPlacements(problem.source, rank);
  State goalState = State::fromPlacements(problem.target, rank);
  std::string goalKey = goalState.key();
  RemainingBound bound(problem, options, goalState);

  // A*: the queue orders by the path cost plus the bound on the bytes still
  // to move (collectives, steps and peak break ties as in Dijkstra). Visits
  // live in a vector; the map and the queue refer to them by index. A state
  // reached more cheaply after it was settled is reopened, so a bound that
  // is admissible but not consistent still gives the optimum.
  std::vector<Visit> visits;
  llvm::StringMap<int64_t> index;
  auto priority = [&](const Visit &v) {
    PathCost f = v.cost;
    f.cost += v.remaining.cost;
    f.collectives += v.remaining.collectives;
    f.steps += v.remaining.steps;
    return f;
  };
  // Entries tied on every component go deepest first: any of them leads to
  // an equally good plan, and the deeper one is nearer the target.
  struct Entry {
    PathCost f;
    int64_t steps;
    int64_t id;
  };
  auto worse = [](const Entry &a, const Entry &b) {
    if (b.f < a.f)
      return true;
    if (a.f < b.f)
      return false;
    return a.steps < b.steps;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> queue(worse);

  PathCost zero;
  zero.peak = localBytes(problem, start);
  index[start.key()] = 0;
  visits.push_back(
      Visit{zero, start, -1, Step{Step::Chunk}, false, bound.remaining(start)});
  queue.push({priority(visits[0]), 0, 0});

  int64_t goal = -1;
  while (!queue.empty()) {
    auto [f, entrySteps, id] = queue.top();
    queue.pop();
    if (visits[id].done || priority(visits[id]) < f)
      continue;
    visits[id].done = true;
    PathCost cost = visits[id].cost;
    State state = visits[id].state;
    if (state.key() == goalKey) {
      goal = id;
      break;
    }
    double inBytes = localBytes(problem, state);
    forEachSuccessor(
        problem, options, state, [&](const Step &step, const State &next) {
          PathCost c = cost;
          c.cost += step.cost;
          c.collectives += step.isCollective;
          ++c.steps;
          auto [it, inserted] = index.try_emplace(next.key(), visits.size());
          // The peak is the last tie-break: measured only for
          // a state not already reached more cheaply.
          if (!inserted) {
            const Visit &v = visits[it->second];
            PathCost upper = c;
            upper.peak = -1; // below any peak: c ignoring it
            if (v.cost < upper)
              return;
          }
          c.peak = std::max(c.peak, inBytes + localBytes(problem, next));
          if (inserted) {
            visits.push_back(
                Visit{c, next, id, step, false, bound.remaining(next)});
          } else {
            Visit &v = visits[it->second];
            if (!(c < v.cost))
              return;
            v.cost = c;
            v.parent = id;
            v.step = step;
            v.done = false;
          }
          const Visit &v = visits[it->second];
          queue.push({priority(v), v.cost.steps, it->second});
        });
  }

  LLVM_DEBUG(traceSearch(start, goalState, visits.size(),
                         goal < 0 ? nullptr : &visits[goal].cost));
  if (goal < 0)
    return std::nullopt;
  Plan plan;
  plan.cost = visits[goal].cost.cost;
  plan.numCollectives = visits[goal].cost.collectives;
  plan.peakBytes = visits[goal].cost.peak;
  for (int64_t id = goal; visits[id].parent >= 0; id = visits[id].parent) {
    plan.steps.push_back(visits[id].step);
    plan.states.push_back(visits[id].state);
  }
  plan.states.push_back(start);
  std::reverse(plan.steps.begin(), plan.steps.end());
  std::reverse(plan.states.begin(), plan.states.end());
  return plan;
}
