//===- PropagationOptimalityTest.cpp - dtensor-propagate vs brute force ---===//
//
// Random global programs of at most 8 ops (matmul, add, mul, exp) on 1-D and
// 2-D meshes. For each, this test writes down every op's strategies from the
// definitions in docs/Propagation.md (per mesh axis: nothing, one loop
// sharded, or partial sums through a linear body: here only add, since mul
// and matmul multiply by a non-constant factor), enumerates every
// assignment, prices it (the planner's cost of each distinct redistribute of
// each value, plus flop-bytes times each op's largest per-device flops), and
// checks that the strategies dtensor-propagate prints are an assignment of
// minimum cost. Nothing here calls the pass's strategy code or chooser.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"
#include "hp/Dialect/DTensor/Utils/RedistributePlanner.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <random>
#include <sstream>

using namespace hp::dtensor;
using plan::Placement;
using Placements = std::vector<Placement>;

namespace {

constexpr double kFlopBytes = 4.5e-4;

struct Value {
  std::vector<int64_t> shape;
  std::string name;
  bool fixed = false; // an argument or an empty init: a fixed source
  Placements source;
};

/// One way to run an op: placements of its tensor operands and result.
struct Way {
  std::vector<Placements> operands;
  Placements result;
  double flops = 0;
};

struct Op {
  std::string kind;          // matmul, add, mul, exp
  std::vector<int> operands; // value indices (matmul: a, b, init)
  int result = -1;
  std::vector<Way> ways;
};

struct Program {
  std::vector<int64_t> mesh;
  std::vector<Value> values;
  std::vector<Op> ops;
  std::vector<std::pair<int, Placements>> yields;
};

std::string text(const Placements &p) { return plan::placementsToString(p); }

int64_t piece(int64_t size, const std::vector<int64_t> &parts) {
  for (int64_t n : parts)
    size = (size + n - 1) / n;
  return size;
}

/// Per mesh axis, what an op may do there: the placement of each operand and
/// of the result, and the loop it splits (-1: none).
struct AxisChoice {
  std::vector<Placement> operands;
  Placement result;
  int loop = -1;
};

/// The strategies of docs/Propagation.md, written out per op kind.
void deriveWays(Program &p, Op &op) {
  const Placement R = Placement::replicate();
  const Placement P = Placement::partial(hp::dtensor::ReduceOp::Sum);
  auto S = [](int64_t d) { return Placement::shard(d); };
  std::vector<AxisChoice> choices;
  std::vector<int64_t> loops; // loop extents
  double perPoint = 1;
  if (op.kind == "matmul") {
    // C[i,j] = init[i,j] + sum_k A[i,k] B[k,j]; the body reads the init.
    int64_t m = p.values[op.operands[0]].shape[0];
    int64_t k = p.values[op.operands[0]].shape[1];
    int64_t n = p.values[op.operands[1]].shape[1];
    loops = {m, n, k};
    perPoint = 2;
    choices.push_back({{R, R, R}, R, -1});
    choices.push_back({{S(0), R, S(0)}, S(0), 0});
    choices.push_back({{R, S(1), S(1)}, S(1), 1});
    choices.push_back({{S(1), S(0), P}, P, 2});
    // No pass-through: the body multiplies A by B, a factor that is not a
    // constant (the IEEE conditions: it may hold inf).
  } else {
    const auto &shape = p.values[op.result].shape;
    loops = shape;
    int nOperands = op.operands.size();
    choices.push_back({std::vector<Placement>(nOperands, R), R, -1});
    for (int d = 0; d < static_cast<int>(shape.size()); ++d)
      choices.push_back({std::vector<Placement>(nOperands, S(d)), S(d), d});
    if (op.kind == "add") // a + b: linear in both together
      choices.push_back({{P, P}, P, -1});
    // a * b of two operands: the factor is not a constant, so partial sums
    // do not pass (docs/Propagation.md, the IEEE conditions).
  }
  // Loops of extent 1 are never split; size-1 axes do nothing.
  std::vector<std::vector<const AxisChoice *>> perAxis;
  for (int64_t size : p.mesh) {
    std::vector<const AxisChoice *> here = {&choices[0]};
    if (size > 1)
      for (size_t c = 1; c < choices.size(); ++c)
        if (choices[c].loop < 0 || loops[choices[c].loop] >= 2)
          here.push_back(&choices[c]);
    perAxis.push_back(here);
  }
  std::vector<size_t> digit(p.mesh.size(), 0);
  while (true) {
    Way w;
    w.operands.assign(op.operands.size(), {});
    std::vector<std::vector<int64_t>> partsOfLoop(loops.size());
    for (size_t m = 0; m < p.mesh.size(); ++m) {
      const AxisChoice *c = perAxis[m][digit[m]];
      for (size_t i = 0; i < op.operands.size(); ++i)
        w.operands[i].push_back(c->operands[i]);
      w.result.push_back(c->result);
      if (c->loop >= 0)
        partsOfLoop[c->loop].push_back(p.mesh[m]);
    }
    w.flops = perPoint;
    for (size_t l = 0; l < loops.size(); ++l)
      w.flops *= piece(loops[l], partsOfLoop[l]);
    op.ways.push_back(w);
    size_t m = 0;
    while (m < digit.size() && ++digit[m] == perAxis[m].size())
      digit[m++] = 0;
    if (m == digit.size())
      break;
  }
}

Program randomProgram(std::mt19937 &rng, std::vector<int64_t> mesh, int maxOps,
                      int64_t maxAssignments) {
  Program p;
  p.mesh = mesh;
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  auto randomPlacements = [&](int rank, bool allowPartial) {
    Placements ps;
    for (size_t m = 0; m < mesh.size(); ++m) {
      int r = pick(allowPartial ? 4 : 3);
      if (r == 0 || mesh[m] == 1)
        ps.push_back(Placement::replicate());
      else if (r == 3)
        ps.push_back(Placement::partial(hp::dtensor::ReduceOp::Sum));
      else
        ps.push_back(Placement::shard(pick(rank)));
    }
    return ps;
  };
  const int64_t dims[] = {2, 3, 4, 6, 8};
  auto dim = [&]() { return dims[pick(5)]; };
  // Two or three arguments of random shapes.
  int numArgs = 2 + pick(2);
  for (int a = 0; a < numArgs; ++a) {
    Value v;
    v.shape = {dim(), dim()};
    v.name = "%arg" + std::to_string(a);
    v.fixed = true;
    v.source = randomPlacements(2, true);
    p.values.push_back(v);
  }
  int64_t assignments = 1;
  for (int o = 0; o < maxOps; ++o) {
    Op op;
    int kind = pick(4);
    int a = pick(p.values.size());
    const auto sa = p.values[a].shape;
    if (kind == 0) {
      op.kind = "matmul";
      // B: an existing value with rows == A's columns, else a new argument.
      int b = -1;
      for (size_t v = 0; v < p.values.size(); ++v)
        if (p.values[v].shape[0] == sa[1] &&
            !llvm::StringRef(p.values[v].name).starts_with("%e") && pick(2))
          b = v;
      if (b < 0) {
        Value w;
        w.shape = {sa[1], dim()};
        w.name = "%arg" + std::to_string(numArgs++);
        w.fixed = true;
        w.source = randomPlacements(2, true);
        p.values.push_back(w);
        b = p.values.size() - 1;
      }
      Value init;
      init.shape = {sa[0], p.values[b].shape[1]};
      init.name = "%e" + std::to_string(o);
      init.fixed = true;
      init.source = Placements(mesh.size(), Placement::replicate());
      p.values.push_back(init);
      op.operands = {a, b, static_cast<int>(p.values.size()) - 1};
    } else if (kind == 1 || kind == 2) {
      op.kind = kind == 1 ? "add" : "mul";
      int b = a;
      for (size_t v = 0; v < p.values.size(); ++v)
        if (p.values[v].shape == sa &&
            !llvm::StringRef(p.values[v].name).starts_with("%e") && pick(2))
          b = v;
      op.operands = {a, b};
    } else {
      op.kind = "exp";
      op.operands = {a};
    }
    if (llvm::StringRef(p.values[a].name).starts_with("%e"))
      continue; // inits are not values to compute on
    Value r;
    r.shape = op.kind == "matmul" ? p.values[op.operands[2]].shape : sa;
    r.name = "%v" + std::to_string(o);
    p.values.push_back(r);
    op.result = p.values.size() - 1;
    deriveWays(p, op);
    if (assignments * static_cast<int64_t>(op.ways.size()) > maxAssignments)
      break;
    assignments *= op.ways.size();
    p.ops.push_back(op);
  }
  // Yield the last op's result and one other computed value.
  if (!p.ops.empty()) {
    p.yields.push_back({p.ops.back().result, randomPlacements(2, true)});
    if (p.ops.size() > 2)
      p.yields.push_back(
          {p.ops[pick(p.ops.size() - 1)].result, randomPlacements(2, false)});
  }
  return p;
}

std::string attr(const Placements &ps) {
  std::string s = "[";
  for (size_t i = 0; i < ps.size(); ++i) {
    if (i)
      s += ", ";
    const Placement &p = ps[i];
    if (p.kind == Placement::Shard)
      s += "shard<" + std::to_string(p.dim) + ">";
    else if (p.kind == Placement::Partial)
      s += "partial<sum>";
    else
      s += "replicate";
  }
  return s + "]";
}

std::string tensorType(const std::vector<int64_t> &shape) {
  return "tensor<" + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) +
         "xf32>";
}

std::string dtensorType(const Value &v, const Placements &ps) {
  return "!dtensor.tensor<" + std::to_string(v.shape[0]) + "x" +
         std::to_string(v.shape[1]) + "xf32, @m, " + attr(ps) + ">";
}

std::string render(const Program &p) {
  std::ostringstream os;
  os << "dtensor.mesh @m shape = [";
  for (size_t m = 0; m < p.mesh.size(); ++m)
    os << (m ? ", " : "") << p.mesh[m];
  os << "]\n";
  std::vector<int> args;
  for (size_t v = 0; v < p.values.size(); ++v)
    if (llvm::StringRef(p.values[v].name).starts_with("%arg"))
      args.push_back(v);
  std::string argList, argTypes, bodyArgs, resultTypes, yieldList, yieldTypes;
  for (size_t i = 0; i < args.size(); ++i) {
    const Value &v = p.values[args[i]];
    std::string sep = i ? ", " : "";
    argList += sep + "%a" + std::to_string(i) + ": " + dtensorType(v, v.source);
    argTypes += sep + dtensorType(v, v.source);
    bodyArgs += sep + v.name + ": " + tensorType(v.shape);
  }
  for (size_t i = 0; i < p.yields.size(); ++i) {
    const Value &v = p.values[p.yields[i].first];
    std::string sep = i ? ", " : "";
    resultTypes += sep + dtensorType(v, p.yields[i].second);
    yieldList += sep + v.name;
    yieldTypes += sep + tensorType(v.shape);
  }
  os << "func.func @f(" << argList << ") -> (" << resultTypes << ") {\n";
  os << "  %r:" << p.yields.size() << " = dtensor.global_region on @m args(";
  for (size_t i = 0; i < args.size(); ++i)
    os << (i ? ", " : "") << "%a" << i;
  os << ") : (" << argTypes << ") -> (" << resultTypes << ") {\n";
  os << "  ^bb0(" << bodyArgs << "):\n";
  for (const Op &op : p.ops) {
    const Value &r = p.values[op.result];
    auto name = [&](int i) { return p.values[op.operands[i]].name; };
    auto type = [&](int i) {
      return tensorType(p.values[op.operands[i]].shape);
    };
    if (op.kind == "matmul") {
      os << "    " << name(2) << " = tensor.empty() : " << type(2) << "\n";
      os << "    " << r.name << " = linalg.matmul ins(" << name(0) << ", "
         << name(1) << " : " << type(0) << ", " << type(1) << ") outs("
         << name(2) << " : " << type(2) << ") -> " << type(2) << "\n";
    } else if (op.kind == "exp") {
      os << "    " << r.name << " = math.exp " << name(0) << " : " << type(0)
         << "\n";
    } else {
      os << "    " << r.name << " = arith."
         << (op.kind == "add" ? "addf" : "mulf") << " " << name(0) << ", "
         << name(1) << " : " << type(0) << "\n";
    }
  }
  os << "    dtensor.yield " << yieldList << " : " << yieldTypes << "\n";
  os << "  }\n  return %r#0";
  for (size_t i = 1; i < p.yields.size(); ++i)
    os << ", %r#" << i;
  os << " : " << resultTypes << "\n}\n";
  return os.str();
}

/// The cost of one assignment, from the definitions: each value sent once to
/// each placement its users need that differs from where it is.
double cost(const Program &p, const std::vector<int> &choice,
            std::map<std::string, double> &cache) {
  std::vector<Placements> at(p.values.size());
  std::vector<std::vector<Placements>> needs(p.values.size());
  double total = 0;
  for (size_t v = 0; v < p.values.size(); ++v)
    if (p.values[v].fixed)
      at[v] = p.values[v].source;
  for (size_t o = 0; o < p.ops.size(); ++o) {
    const Way &w = p.ops[o].ways[choice[o]];
    at[p.ops[o].result] = w.result;
    for (size_t i = 0; i < w.operands.size(); ++i)
      needs[p.ops[o].operands[i]].push_back(w.operands[i]);
    total += kFlopBytes * w.flops;
  }
  for (const auto &[v, ps] : p.yields)
    needs[v].push_back(ps);
  for (size_t v = 0; v < p.values.size(); ++v) {
    std::vector<std::string> sent;
    for (const Placements &to : needs[v]) {
      std::string key = text(to);
      if (to == at[v] || std::find(sent.begin(), sent.end(), key) != sent.end())
        continue;
      sent.push_back(key);
      plan::Problem problem;
      problem.globalShape.assign(p.values[v].shape.begin(),
                                 p.values[v].shape.end());
      problem.meshShape.assign(p.mesh.begin(), p.mesh.end());
      problem.elementBytes = 4;
      problem.source.assign(at[v].begin(), at[v].end());
      problem.target.assign(to.begin(), to.end());
      std::string cacheKey = std::to_string(problem.globalShape[0]) + "x" +
                             std::to_string(problem.globalShape[1]) +
                             text(at[v]) + text(to);
      auto it = cache.find(cacheKey);
      if (it == cache.end()) {
        plan::Options options;
        options.latencyBytes = 65536;
        std::optional<plan::Plan> plan =
            plan::planRedistribute(problem, options);
        it = cache.emplace(cacheKey, plan ? plan->cost : INFINITY).first;
      }
      total += it->second;
    }
  }
  return total;
}

/// The number after `key` in `text` (printed with 6 significant digits).
double number(const std::string &text, const std::string &key) {
  size_t at = text.find(key);
  if (at == std::string::npos)
    return NAN;
  return std::strtod(text.c_str() + at + key.size(), nullptr);
}

/// Runs dtensor-propagate with print-strategies on `source`; collects the
/// strategy remarks in op order and the region's summary.
bool runPropagate(const std::string &source, int64_t maxTableSize,
                  std::vector<std::string> &strategies, std::string &summary) {
  mlir::MLIRContext ctx;
  ctx.loadDialect<DTensorDialect, mlir::func::FuncDialect,
                  mlir::arith::ArithDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::tensor::TensorDialect>();
  bool ok = true;
  mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
    std::string s = d.str();
    if (llvm::StringRef(s).starts_with("strategy "))
      strategies.push_back(s);
    else if (llvm::StringRef(s).starts_with("dtensor-choose-strategies:"))
      summary = s;
    else if (d.getSeverity() == mlir::DiagnosticSeverity::Error) {
      ADD_FAILURE() << s;
      ok = false;
    }
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &ctx);
  if (!module)
    return false;
  mlir::PassManager pm(&ctx);
  DTensorPropagateOptions options;
  options.printStrategies = true;
  options.maxTableSize = maxTableSize;
  pm.addNestedPass<mlir::func::FuncOp>(createDTensorPropagate(options));
  return mlir::succeeded(pm.run(*module)) && ok;
}

/// Capped runs that took the window search (so the test covers it).
int windowSearches = 0;

/// Returns the number of ops checked.
size_t checkOptimal(std::vector<int64_t> mesh, unsigned seed) {
  std::mt19937 rng(seed);
  Program p = randomProgram(rng, mesh, 8, 300000);
  if (p.ops.empty())
    return 0;
  std::string source = render(p);
  SCOPED_TRACE(source);

  std::map<std::string, double> cache;
  auto chosenCost = [&](const std::vector<std::string> &strategies,
                        double &hp) {
    std::vector<int> chosen;
    for (size_t o = 0; o < p.ops.size(); ++o) {
      int found = -1;
      for (size_t w = 0; w < p.ops[o].ways.size(); ++w) {
        const Way &way = p.ops[o].ways[w];
        std::string s = "strategy";
        for (size_t i = 0; i < way.operands.size(); ++i)
          s += (i ? ", " : " ") + text(way.operands[i]);
        s += " -> " + text(way.result) + ";";
        if (llvm::StringRef(strategies[o]).starts_with(s))
          found = w;
      }
      if (found < 0) {
        ADD_FAILURE() << "op " << o << " got a strategy the definitions do "
                      << "not give: " << strategies[o];
        return false;
      }
      chosen.push_back(found);
    }
    hp = cost(p, chosen, cache);
    return true;
  };

  // The exact chooser, and the window search with a tiny table cap.
  double exact = 0, capped = 0, bound = 0, greedy = 0;
  std::string cappedSummary, exactSummary;
  for (int64_t cap : {int64_t(4194304), int64_t(16)}) {
    std::vector<std::string> strategies;
    std::string summary;
    if (!runPropagate(source, cap, strategies, summary) ||
        strategies.size() != p.ops.size()) {
      ADD_FAILURE() << "dtensor-propagate failed or printed "
                    << strategies.size() << " strategies for " << p.ops.size()
                    << " ops";
      return 0;
    }
    if (!chosenCost(strategies, cap == 16 ? capped : exact))
      return 0;
    (cap == 16 ? cappedSummary : exactSummary) = summary;
    if (cap == 16) {
      windowSearches += summary.find("window search") != std::string::npos;
      greedy = number(summary, "; greedy ");
      // An exact summary has no bound: the optimum's cost is its bound.
      size_t at = summary.find("lower bound ");
      bound =
          at == std::string::npos ? capped : number(summary, "lower bound ");
    }
  }
  double hp = exact;
  const std::string &summary = exactSummary;

  // Every assignment.
  std::vector<int> choice(p.ops.size(), 0);
  double best = INFINITY;
  int64_t count = 0;
  while (true) {
    best = std::min(best, cost(p, choice, cache));
    ++count;
    size_t o = 0;
    while (o < choice.size() &&
           ++choice[o] == static_cast<int>(p.ops[o].ways.size()))
      choice[o++] = 0;
    if (o == choice.size())
      break;
  }
  EXPECT_LE(hp, best * (1 + 1e-9) + 1e-9)
      << "dtensor-propagate's choice costs " << hp << ", the best of " << count
      << " assignments " << best << "\n"
      << summary;
  // The window search: never worse than greedy, its bound at most the
  // optimum, and optimal where it says so.
  double tolerance = 1e-5 * std::max(1.0, best);
  EXPECT_LE(capped, greedy + 1e-5 * std::max(1.0, greedy)) << cappedSummary;
  EXPECT_LE(bound, best + tolerance) << cappedSummary;
  if (cappedSummary.find("optimal") != std::string::npos)
    EXPECT_LE(capped, best + tolerance) << cappedSummary;
  return p.ops.size();
}

// The generator must produce real graphs, or the test would check nothing.
TEST(PropagationOptimality, OneDimensionalMeshes) {
  size_t ops = 0;
  for (unsigned seed = 0; seed < 40; ++seed)
    ops += checkOptimal({seed % 2 ? 4 : 3}, seed);
  EXPECT_GE(ops, 120u);
  EXPECT_GE(windowSearches, 20);
}

TEST(PropagationOptimality, TwoDimensionalMeshes) {
  size_t ops = 0;
  for (unsigned seed = 0; seed < 25; ++seed)
    ops += checkOptimal({2, seed % 3 == 0 ? 1 : 2}, 1000 + seed);
  EXPECT_GE(ops, 50u);
}

} // namespace
