//===- ReduceOp.cpp - names of the reduce op ------------------------------===//
//
// The ODS-generated names of dtensor::ReduceOp, compiled into the lowest
// library that uses them (the planner prints them) rather than the dialect.
// (toShardReduction is defined with the dialect, DTensorAttrs.cpp: this
// library stays free of MLIR IR code for the benchmarks that link it.)
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/IR/ReduceOp.h"

#include "llvm/ADT/StringSwitch.h"

#include "hp/Dialect/DTensor/IR/DTensorEnums.cpp.inc"
