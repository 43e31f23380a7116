//===- PlanChecker.cpp - redistribute plans checked by simulation ---------===//
//
// Deliberately self-contained: its own torch.chunk, its own group order and
// its own definition of every step, so that a step which is priced right but
// means something else is caught.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Utils/PlanChecker.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <vector>

using namespace hp::dtensor::plan;
using hp::dtensor::ReduceOp;

namespace {

using Coord = llvm::SmallVector<int64_t, 4>;

/// One device's local tensor: per element, the global (row-major) index it
/// is a copy or a share of, and its value (double for real arithmetic, the
/// integer's bits sign-extended to int64_t for fixed-width integers).
template <typename T> struct Block {
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<int64_t> index;
  std::vector<T> value;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t s : shape)
      n *= s;
    return n;
  }
};

/// torch.chunk: `size` in `parts` chunks of ceil(size/parts); the trailing
/// ones may be short or empty.
std::pair<int64_t, int64_t> torchChunk(int64_t size, int64_t parts, int64_t i) {
  int64_t c = (size + parts - 1) / parts;
  int64_t offset = std::min(i * c, size);
  return {offset, std::min(c, size - offset)};
}

/// Elements [offset, offset+length) of dim `d`.
template <typename T>
Block<T> slice(const Block<T> &b, int64_t d, int64_t offset, int64_t length) {
  Block<T> out;
  out.shape = b.shape;
  out.shape[d] = length;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k)
    outer *= b.shape[k];
  for (size_t k = d + 1; k < b.shape.size(); ++k)
    inner *= b.shape[k];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < length * inner; ++i) {
      int64_t src = (o * b.shape[d] + offset) * inner + i;
      out.index.push_back(b.index[src]);
      out.value.push_back(b.value[src]);
    }
  return out;
}

/// The blocks concatenated along dim `d`; nullopt if they differ in another
/// dim.
template <typename T>
std::optional<Block<T>> concat(const std::vector<Block<T>> &parts, int64_t d) {
  int64_t rank = parts.front().shape.size();
  Block<T> out = parts.front();
  for (size_t j = 1; j < parts.size(); ++j) {
    const Block<T> &b = parts[j];
    for (int64_t k = 0; k < rank; ++k)
      if (k != d && b.shape[k] != out.shape[k])
        return std::nullopt;
    Block<T> cat;
    cat.shape = out.shape;
    cat.shape[d] += b.shape[d];
    int64_t innerA = 1, innerB = 1, outer = 1;
    for (int64_t k = d; k < rank; ++k) {
      innerA *= out.shape[k];
      innerB *= b.shape[k];
    }
    for (int64_t k = 0; k < d; ++k)
      outer *= out.shape[k];
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < innerA; ++i) {
        cat.index.push_back(out.index[o * innerA + i]);
        cat.value.push_back(out.value[o * innerA + i]);
      }
      for (int64_t i = 0; i < innerB; ++i) {
        cat.index.push_back(b.index[o * innerB + i]);
        cat.value.push_back(b.value[o * innerB + i]);
      }
    }
    out = std::move(cat);
  }
  return out;
}

/// Real arithmetic (floats): exact sums in doubles, infinite identities.
struct RealArithmetic {
  using Value = double;
  explicit RealArithmetic(const Problem &) {}

  Value lowest() const { return -HUGE_VAL; }
  Value highest() const { return HUGE_VAL; }
  /// A share of an element: values in [1, 2), so that sum, product, max,
  /// min and mean differ.
  Value share(uint64_t hash) const {
    return 1.0 + static_cast<double>(hash % 1000003) / 1000003.0;
  }
  Value add(Value a, Value b) const { return a + b; }
  Value mul(Value a, Value b) const { return a * b; }
  bool less(Value a, Value b) const { return a < b; }
  Value divide(Value sum, int64_t count) const { return sum / count; }
  bool equal(Value a, Value b) const {
    return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
  }
};

/// Fixed-width integers as NCCL and the emitted code compute them: sums and
/// products wrap at the type's width, avg divides the wrapped sum, and max
/// and min fill with the type's extremes. A plan that adds copies of an
/// extreme is wrong here though right in exact arithmetic.
struct IntegerArithmetic {
  using Value = int64_t;
  explicit IntegerArithmetic(const Problem &p)
      : bits(std::clamp<int64_t>(8 * p.elementBytes, 2, 64)),
        isUnsigned(p.arithmetic == Arithmetic::UnsignedInt) {
    // Shares are multiples of the avg axes' sizes, so that every avg divides
    // exactly whatever order a plan reduces them in (integer avg truncates;
    // nested avgs in another order round differently, a property of integer
    // avg, not of a plan); small enough that the source's own reductions do
    // not overflow: only a fill's extremes may.
    int64_t devices = 1, products = 1;
    for (auto [m, n] : llvm::enumerate(p.meshShape)) {
      devices *= n;
      if (p.source[m].isPartial(ReduceOp::Avg) ||
          p.target[m].isPartial(ReduceOp::Avg))
        unit *= n;
      products += p.source[m].isPartial(ReduceOp::Prod) ||
                  p.target[m].isPartial(ReduceOp::Prod);
    }
    // (devices * unit * spread)^products within 2^(bits - 2).
    double room = std::pow(2.0, static_cast<double>(bits - 2) / products);
    spread = std::clamp<uint64_t>(
        static_cast<uint64_t>(room / static_cast<double>(devices * unit)), 1,
        15);
  }

  /// `x` truncated to the width, sign- or zero-extended back.
  Value wrap(uint64_t x) const {
    if (bits == 64)
      return static_cast<Value>(x);
    uint64_t mask = (uint64_t(1) << bits) - 1;
    x &= mask;
    if (!isUnsigned && (x >> (bits - 1)))
      x |= ~mask;
    return static_cast<Value>(x);
  }
  Value lowest() const {
    return isUnsigned ? 0 : wrap(uint64_t(1) << (bits - 1));
  }
  Value highest() const {
    uint64_t top = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    return wrap(isUnsigned ? top : top >> 1);
  }
  Value share(uint64_t hash) const {
    return static_cast<Value>(unit * (1 + hash % spread));
  }
  bool less(Value a, Value b) const {
    return isUnsigned ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b)
                      : a < b;
  }
  Value add(Value a, Value b) const {
    return wrap(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  }
  Value mul(Value a, Value b) const {
    return wrap(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  }
  Value divide(Value sum, int64_t count) const {
    return isUnsigned
               ? wrap(static_cast<uint64_t>(sum) / static_cast<uint64_t>(count))
               : wrap(static_cast<uint64_t>(sum / count));
  }
  bool equal(Value a, Value b) const { return a == b; }

  int64_t bits;
  bool isUnsigned;
  uint64_t unit = 1, spread = 15;
};

/// The identity of a reduction in `arith`: what a rank holds where it holds
/// nothing (avg is summed, then divided by the count).
template <typename Arith>
typename Arith::Value identity(const Arith &arith, ReduceOp op) {
  switch (op) {
  case ReduceOp::Max:
    return arith.lowest();
  case ReduceOp::Min:
    return arith.highest();
  case ReduceOp::Prod:
    return 1;
  case ReduceOp::Sum:
  case ReduceOp::Avg:
    return 0;
  }
  return 0;
}

/// Two shares of one element combined by a reduction (avg: summed here,
/// divided by the count afterwards).
template <typename Arith>
typename Arith::Value combine(const Arith &arith, ReduceOp op,
                              typename Arith::Value a,
                              typename Arith::Value b) {
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg:
    return arith.add(a, b);
  case ReduceOp::Max:
    return arith.less(a, b) ? b : a;
  case ReduceOp::Min:
    return arith.less(a, b) ? a : b;
  case ReduceOp::Prod:
    return arith.mul(a, b);
  }
  return arith.mul(a, b);
}

template <typename Arith> class Simulator {
public:
  using T = typename Arith::Value;
  using BlockT = Block<T>;

  Simulator(const Problem &p) : p(p), arith(p) {
    numDevices = 1;
    for (int64_t n : p.meshShape)
      numDevices *= n;
  }

  std::string run(llvm::ArrayRef<Step> steps);

private:
  Coord coordOf(int64_t device) const {
    Coord c(p.meshShape.size());
    for (int64_t m = static_cast<int64_t>(c.size()) - 1; m >= 0; --m) {
      c[m] = device % p.meshShape[m];
      device /= p.meshShape[m];
    }
    return c;
  }
  int64_t deviceOf(llvm::ArrayRef<int64_t> c) const {
    int64_t d = 0;
    for (auto [m, x] : llvm::enumerate(c))
      d = d * p.meshShape[m] + x;
    return d;
  }
  /// The group of `device` along `axes`, in collective rank order: row-major
  /// over the axes as listed.
  std::vector<int64_t> group(int64_t device, llvm::ArrayRef<int64_t> axes,
                             int64_t *position) const {
    Coord c = coordOf(device);
    int64_t n = 1;
    *position = 0;
    for (int64_t m : axes) {
      n *= p.meshShape[m];
      *position = *position * p.meshShape[m] + c[m];
    }
    std::vector<int64_t> members;
    for (int64_t j = 0; j < n; ++j) {
      Coord mc = c;
      int64_t rest = j;
      for (int64_t i = static_cast<int64_t>(axes.size()) - 1; i >= 0; --i) {
        mc[axes[i]] = rest % p.meshShape[axes[i]];
        rest /= p.meshShape[axes[i]];
      }
      members.push_back(deviceOf(mc));
    }
    return members;
  }
  /// Piece `position` of a dim of `size` split over `axes` in listed order,
  /// the first axis outermost: what Shard on those mesh dims means.
  std::pair<int64_t, int64_t> piece(int64_t size, llvm::ArrayRef<int64_t> axes,
                                    int64_t position) const {
    llvm::SmallVector<int64_t> digits(axes.size());
    for (int64_t i = static_cast<int64_t>(axes.size()) - 1; i >= 0; --i) {
      digits[i] = position % p.meshShape[axes[i]];
      position /= p.meshShape[axes[i]];
    }
    int64_t offset = 0;
    for (auto [i, m] : llvm::enumerate(axes)) {
      auto [o, l] = torchChunk(size, p.meshShape[m], digits[i]);
      offset += o;
      size = l;
    }
    return {offset, size};
  }

  /// The block a device holds of `placements`, as global indices; values
  /// left empty. Torch's definitions, applied in mesh-dim order to the
  /// global indices of each tensor dim the device holds so far: Shard(d)
  /// keeps torch.chunk piece i of n; _StridedShard(d, f) cuts n * f
  /// torch.chunk pieces and keeps pieces i, i + n, ..., i + (f - 1) * n.
  /// No nesting order is derived: the blocks need not be contiguous.
  BlockT layoutBlock(llvm::ArrayRef<Placement> placements, int64_t device) {
    Coord c = coordOf(device);
    std::vector<std::vector<int64_t>> held(p.globalShape.size());
    for (auto [d, g] : llvm::enumerate(p.globalShape))
      for (int64_t i = 0; i < g; ++i)
        held[d].push_back(i);
    for (auto [m, pl] : llvm::enumerate(placements)) {
      if (pl.kind != Placement::Shard && pl.kind != Placement::StridedShard)
        continue;
      std::vector<int64_t> &list = held[pl.dim];
      int64_t n = p.meshShape[m];
      int64_t f = pl.kind == Placement::StridedShard ? pl.splitFactor : 1;
      std::vector<int64_t> kept;
      for (int64_t k = 0; k < f; ++k) {
        auto [o, l] = torchChunk(list.size(), n * f, c[m] + k * n);
        kept.insert(kept.end(), list.begin() + o, list.begin() + o + l);
      }
      list = std::move(kept);
    }
    BlockT b;
    for (const auto &list : held)
      b.shape.push_back(list.size());
    int64_t n = b.numElements();
    for (int64_t e = 0; e < n; ++e) {
      int64_t rest = e, global = 0, stride = 1;
      for (int64_t d = static_cast<int64_t>(held.size()) - 1; d >= 0; --d) {
        global += held[d][rest % b.shape[d]] * stride;
        rest /= b.shape[d];
        stride *= p.globalShape[d];
      }
      b.index.push_back(global);
    }
    b.value.assign(b.index.size(), 0);
    return b;
  }

  /// The block a device holds when dim d is split by `splits[d]` (mesh
  /// axes, outermost first), as global indices; values left empty.
  BlockT splitBlock(llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> splits,
                    int64_t device) {
    Coord c = coordOf(device);
    llvm::SmallVector<int64_t, 4> offset(p.globalShape.size(), 0);
    llvm::SmallVector<int64_t, 4> size(p.globalShape.begin(),
                                       p.globalShape.end());
    for (auto [d, axes] : llvm::enumerate(splits))
      for (int64_t m : axes) {
        auto [o, l] = torchChunk(size[d], p.meshShape[m], c[m]);
        offset[d] += o;
        size[d] = l;
      }
    BlockT b;
    b.shape = size;
    int64_t n = b.numElements();
    for (int64_t e = 0; e < n; ++e) {
      int64_t rest = e, global = 0, stride = 1;
      for (int64_t d = static_cast<int64_t>(size.size()) - 1; d >= 0; --d) {
        global += (offset[d] + rest % size[d]) * stride;
        rest /= size[d];
        stride *= p.globalShape[d];
      }
      b.index.push_back(global);
    }
    b.value.assign(b.index.size(), 0);
    return b;
  }

  /// A share of element `g` held by devices with partial coordinates `key`.
  T share(int64_t g, int64_t key) const {
    uint64_t x = static_cast<uint64_t>(g) * 0x9E3779B97F4A7C15ull ^
                 (static_cast<uint64_t>(key) + 1) * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return arith.share(x);
  }

  /// The reduction over the partial mesh dims of `placements` (innermost
  /// first) of `valueAt(device)`, seen from `device`.
  template <typename F>
  T reducePartials(llvm::ArrayRef<Placement> placements, Coord c, size_t from,
                   F valueAt) {
    for (size_t m = from; m < placements.size(); ++m) {
      if (placements[m].kind != Placement::Partial)
        continue;
      ReduceOp op = placements[m].reduceOp;
      T acc = 0;
      for (int64_t i = 0; i < p.meshShape[m]; ++i) {
        c[m] = i;
        T v = reducePartials(placements, c, m + 1, valueAt);
        acc = i == 0 ? v : combine(arith, op, acc, v);
      }
      return op == ReduceOp::Avg ? arith.divide(acc, p.meshShape[m]) : acc;
    }
    return valueAt(deviceOf(c));
  }

  std::string fail(int64_t step, llvm::StringRef what) {
    std::string s;
    llvm::raw_string_ostream os(s);
    if (step < 0)
      os << "after the last step: ";
    else
      os << "step " << step << ": ";
    os << what;
    return s;
  }

  std::string applyStep(const Step &step, int64_t stepIndex);
  /// `part(u)` of every member `u` concatenated along `dim` in group order,
  /// into `result`; step `k` fails with `error` if the parts differ off
  /// that dim.
  template <typename F>
  std::string concatInto(BlockT &result, const std::vector<int64_t> &members,
                         int64_t dim, F part, int64_t k,
                         llvm::StringRef error) {
    std::vector<BlockT> parts;
    for (int64_t u : members)
      parts.push_back(part(u));
    std::optional<BlockT> out = concat(parts, dim);
    if (!out)
      return fail(k, error);
    result = std::move(*out);
    return "";
  }
  /// What device `t` holds after `step` (step number `k`), in `result`; an
  /// error if the step cannot mean anything there.
  std::string applyOnDevice(const Step &step, int64_t k, int64_t t,
                            BlockT &result);
  /// The block device `t` holds after a permute: it gets each element from
  /// a device that holds it now (a whole block, sub-blocks of one, or pieces
  /// of several) and differs from t only on the axes the step names; nullopt
  /// if no such device holds one.
  std::optional<BlockT> permuted(const Step &step, int64_t t) {
    BlockT want = splitBlock(step.order, t);
    Coord c = coordOf(t);
    std::unordered_map<int64_t, T> held;
    for (int64_t u = 0; u < numDevices; ++u) {
      Coord cu = coordOf(u);
      bool sameElsewhere = true;
      for (size_t m = 0; m < c.size(); ++m)
        if (!llvm::is_contained(step.axes, static_cast<int64_t>(m)))
          sameElsewhere &= cu[m] == c[m];
      if (!sameElsewhere)
        continue;
      for (auto [i, v] : llvm::zip_equal(blocks[u].index, blocks[u].value))
        held.emplace(i, v);
    }
    for (auto [i, v] : llvm::zip_equal(want.index, want.value)) {
      auto it = held.find(i);
      if (it == held.end())
        return std::nullopt;
      v = it->second;
    }
    return want;
  }
  /// `blocks` of `members` at each element: all the same shape and indices.
  bool aligned(const std::vector<int64_t> &members) const {
    for (int64_t u : members)
      if (blocks[u].shape != blocks[members[0]].shape ||
          blocks[u].index != blocks[members[0]].index)
        return false;
    return true;
  }

  const Problem &p;
  Arith arith;
  int64_t numDevices;
  std::vector<BlockT> blocks;
};

} // namespace

template <typename Arith>
std::string Simulator<Arith>::applyStep(const Step &step, int64_t k) {
  int64_t rank = p.globalShape.size();
  for (int64_t m : step.axes)
    if (m < 0 || m >= static_cast<int64_t>(p.meshShape.size()))
      return fail(k, "mesh axis out of range");
  if ((step.kind == Step::AllGather || step.kind == Step::ReduceScatter ||
       step.kind == Step::AllToAll || step.kind == Step::Chunk) &&
      (step.dim < 0 || step.dim >= rank))
    return fail(k, "tensor dim out of range");
  std::vector<BlockT> next(numDevices);
  for (int64_t t = 0; t < numDevices; ++t)
    if (std::string error = applyOnDevice(step, k, t, next[t]); !error.empty())
      return error;
  blocks = std::move(next);
  return "";
}

template <typename Arith>
std::string Simulator<Arith>::applyOnDevice(const Step &step, int64_t k,
                                            int64_t t, BlockT &result) {
  int64_t rank = p.globalShape.size();
  int64_t position;
  std::vector<int64_t> members = group(t, step.axes, &position);
  switch (step.kind) {
  case Step::AllGather:
    // The members' blocks concatenated along dim, in group order.
    return concatInto(
        result, members, step.dim, [&](int64_t u) { return blocks[u]; }, k,
        "all_gather of blocks that differ off the gather dim");
  case Step::AllReduce:
  case Step::ReduceScatter: {
    if (!aligned(members))
      return fail(k, "reduction over blocks that hold different elements");
    BlockT out = blocks[t];
    for (size_t e = 0; e < out.value.size(); ++e) {
      T acc = blocks[members[0]].value[e];
      for (size_t j = 1; j < members.size(); ++j)
        acc = combine(arith, step.reduceOp, acc, blocks[members[j]].value[e]);
      out.value[e] =
          step.reduceOp == ReduceOp::Avg
              ? arith.divide(acc, static_cast<int64_t>(members.size()))
              : acc;
    }
    if (step.kind == Step::ReduceScatter) {
      auto [o, l] = piece(out.shape[step.dim], step.axes, position);
      out = slice(out, step.dim, o, l);
    }
    result = std::move(out);
    break;
  }
  case Step::AllToAll: {
    if (step.dstDim < 0 || step.dstDim >= rank || step.dstDim == step.dim)
      return fail(k, "all_to_all with a bad split dim");
    // Member u sends piece `position` of its block along dstDim; the
    // received pieces are concatenated along dim in group order.
    auto pieceOf = [&](int64_t u) {
      const BlockT &b = blocks[u];
      auto [o, l] = piece(b.shape[step.dstDim], step.axes, position);
      return slice(b, step.dstDim, o, l);
    };
    return concatInto(result, members, step.dim, pieceOf, k,
                      "all_to_all pieces differ off the concat dim");
  }
  case Step::Chunk: {
    if (step.axes.size() != 1)
      return fail(k, "a local chunk splits along one mesh axis");
    const BlockT &b = blocks[t];
    auto [o, l] =
        torchChunk(b.shape[step.dim], p.meshShape[step.axes[0]], position);
    result = slice(b, step.dim, o, l);
    break;
  }
  case Step::Fill: {
    if (step.axes.size() != 1)
      return fail(k, "fill acts on one mesh axis");
    // This rank's block at its place among the group's blocks along dim;
    // the op's identity where the others' blocks are.
    auto filled = [&](int64_t u) {
      BlockT b = blocks[u];
      if (u != t)
        std::fill(b.value.begin(), b.value.end(),
                  identity(arith, step.reduceOp));
      return b;
    };
    return concatInto(result, members, step.dim, filled, k,
                      "fill of blocks that differ off the filled dim");
  }
  case Step::Permute: {
    if (static_cast<int64_t>(step.order.size()) != rank)
      return fail(k, "permute without the splits of every tensor dim");
    for (const auto &axesOfDim : step.order)
      for (int64_t m : axesOfDim)
        if (m < 0 || m >= static_cast<int64_t>(p.meshShape.size()))
          return fail(k, "permute splits along a mesh axis out of range");
    std::optional<BlockT> moved = permuted(step, t);
    if (!moved)
      return fail(k, "permute: no device that differs only on the moved "
                     "axes holds an element a device needs");
    result = std::move(*moved);
    break;
  }
  case Step::MakePartial: {
    if (step.axes.size() != 1)
      return fail(k, "make_partial acts on one mesh axis");
    BlockT out = blocks[t];
    // Coordinate 0 keeps the value; the others hold the identity of sum
    // (0) and prod (1); avg, max and min keep copies.
    if (position != 0 &&
        (step.reduceOp == ReduceOp::Sum || step.reduceOp == ReduceOp::Prod))
      std::fill(out.value.begin(), out.value.end(),
                step.reduceOp == ReduceOp::Sum ? T(0) : T(1));
    result = std::move(out);
    break;
  }
  }
  return "";
}

template <typename Arith>
std::string Simulator<Arith>::run(llvm::ArrayRef<Step> steps) {
  // The source: every device's block, each element a share whose reduction
  // over the partial mesh dims is the global value.
  blocks.resize(numDevices);
  auto partialKey = [&](int64_t device) {
    Coord c = coordOf(device);
    int64_t key = 0;
    for (auto [m, pl] : llvm::enumerate(p.source))
      if (pl.kind == Placement::Partial)
        key = key * p.meshShape[m] + c[m];
    return key;
  };
  for (int64_t s = 0; s < numDevices; ++s) {
    blocks[s] = layoutBlock(p.source, s);
    int64_t key = partialKey(s);
    for (size_t e = 0; e < blocks[s].index.size(); ++e)
      blocks[s].value[e] = share(blocks[s].index[e], key);
  }
  // The global value of each element, from the shares.
  int64_t numElements = 1;
  for (int64_t g : p.globalShape)
    numElements *= g;
  std::vector<T> global(numElements);
  for (int64_t g = 0; g < numElements; ++g)
    global[g] = reducePartials(
        p.source, Coord(p.meshShape.size(), 0), 0,
        [&](int64_t device) { return share(g, partialKey(device)); });

  for (auto [k, step] : llvm::enumerate(steps))
    if (std::string error = applyStep(step, k); !error.empty())
      return error;

  for (int64_t t = 0; t < numDevices; ++t) {
    BlockT want = layoutBlock(p.target, t);
    const BlockT &have = blocks[t];
    std::string where;
    llvm::raw_string_ostream os(where);
    os << "device (";
    llvm::interleaveComma(coordOf(t), os);
    os << ") ";
    if (have.shape != want.shape) {
      os << "holds a block of shape [";
      llvm::interleaveComma(have.shape, os);
      os << "], the target layout has [";
      llvm::interleaveComma(want.shape, os);
      os << ']';
      return fail(-1, where);
    }
    if (have.index != want.index) {
      os << "holds other elements than the target layout";
      return fail(-1, where);
    }
    for (auto [m, pl] : llvm::enumerate(p.target)) {
      if (pl.kind != Placement::Partial)
        continue;
      int64_t position;
      if (!aligned(group(t, {static_cast<int64_t>(m)}, &position))) {
        os << "differs in its elements from its partial group";
        return fail(-1, where);
      }
    }
    for (size_t e = 0; e < want.index.size(); ++e) {
      T v = reducePartials(p.target, coordOf(t), 0,
                           [&](int64_t u) { return blocks[u].value[e]; });
      T w = global[want.index[e]];
      if (!arith.equal(v, w)) {
        os << "element " << want.index[e] << " reduces to " << v
           << ", the source's value is " << w;
        return fail(-1, where);
      }
    }
  }
  return "";
}

bool hp::dtensor::plan::isCheckable(const Problem &problem) {
  int64_t cells = 1;
  for (int64_t n : problem.meshShape)
    cells *= n;
  for (int64_t g : problem.globalShape) {
    if (g > kMaxCheckedCells)
      return false;
    cells *= g;
    if (cells > kMaxCheckedCells)
      return false;
  }
  return cells <= kMaxCheckedCells;
}

std::string hp::dtensor::plan::checkPlan(const Problem &problem,
                                         llvm::ArrayRef<Step> steps) {
  if (!isCheckable(problem))
    return "too large to check by simulation";
  if (problem.arithmetic == Arithmetic::Real)
    return Simulator<RealArithmetic>(problem).run(steps);
  return Simulator<IntegerArithmetic>(problem).run(steps);
}
