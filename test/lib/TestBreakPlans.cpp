//===- TestBreakPlans.cpp - plans that mean something else ----------------===//
//
// `test-break-plans`: convert-dtensor-to-shard with verify-plans, after
// changing the first step of every plan so that it means something else.
// Shows that the plan checker refuses wrong plans (verify-plans.mlir).
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/DTensorToShard/PlanHook.h"
#include "hp/Dialect/DTensor/Layout/ReduceOp.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <algorithm>
#include <iterator>

using namespace mlir;
using namespace hp::dtensor;

namespace {

/// Other splits after a permute: the dims' split lists swapped, or one
/// list's nesting reversed, or a split dropped.
void breakPermute(plan::Step &s) {
  auto before = s.order;
  std::reverse(s.order.begin(), s.order.end());
  if (s.order == before)
    for (auto &dims : s.order)
      if (dims.size() > 1) {
        std::reverse(dims.begin(), dims.end());
        break;
      }
  if (s.order == before)
    for (auto &dims : s.order)
      if (!dims.empty()) {
        dims.pop_back();
        break;
      }
}

/// Changes the first step so that it means something else.
void breakPlan(const plan::Problem &problem, plan::Plan &plan) {
  if (plan.steps.empty())
    return;
  plan::Step &s = plan.steps.front();
  int64_t rank = problem.globalShape.size();
  if (s.kind == plan::Step::Permute)
    return breakPermute(s);
  if (s.axes.size() > 1)
    std::reverse(s.axes.begin(), s.axes.end());
  else if (s.kind == plan::Step::AllReduce ||
           s.kind == plan::Step::ReduceScatter ||
           s.kind == plan::Step::MakePartial || s.kind == plan::Step::Fill)
    s.reduceOp = kReduceOps[(static_cast<size_t>(s.reduceOp) + 2) %
                            std::size(kReduceOps)];
  else if (s.dim >= 0 && rank > 1)
    s.dim = (s.dim + 1) % rank;
}

struct TestBreakPlansPass
    : PassWrapper<TestBreakPlansPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestBreakPlansPass)

  StringRef getArgument() const final { return "test-break-plans"; }
  StringRef getDescription() const final {
    return "Testing only: convert-dtensor-to-shard with verify-plans after "
           "changing the first step of every plan so that it means something "
           "else";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    pipeline().getDependentDialects(registry);
  }
  void runOnOperation() override {
    OpPassManager pm = pipeline();
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }

  static OpPassManager pipeline() {
    OpPassManager pm(ModuleOp::getOperationName());
    hp::ConvertDTensorToShardOptions options;
    options.verifyPlans = true;
    pm.addPass(hp::createConvertDTensorToShardWithPlanHook(options, breakPlan));
    return pm;
  }
};

} // namespace

namespace hp::test {
void registerTestPasses() { PassRegistration<TestBreakPlansPass>(); }
} // namespace hp::test
