//===- ReduceOp.cpp - names of the reduce op ------------------------------===//
//
// The ODS-generated names of dtensor::ReduceOp, compiled into the lowest
// library that uses them (the layout library, below the dialect and the
// planner). toShardReduction is defined with the dialect (DTensorAttrs.cpp):
// this library stays free of MLIR IR code for the benchmarks that link it.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Layout/ReduceOp.h"

#include "llvm/ADT/StringSwitch.h"

#include "hp/Dialect/DTensor/IR/DTensorEnums.cpp.inc"
