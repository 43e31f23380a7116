//===- DTensorDialect.cpp - dtensor dialect registration ------------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"

using namespace mlir;
using namespace hp::dtensor;

#include "hp/Dialect/DTensor/IR/DTensorDialect.cpp.inc"

void DTensorDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "hp/Dialect/DTensor/IR/DTensorOps.cpp.inc"
      >();
}
