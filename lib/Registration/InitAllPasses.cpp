//===- InitAllPasses.cpp - register every hp pass and pipeline ------------===//

#include "hp/InitAllPasses.h"

#include "hp/Conversion/Passes.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"
#include "hp/Pipelines/Pipelines.h"
#include "hp/Transforms/Passes.h"

void hp::registerAllHPPasses() {
  hp::dtensor::registerDTensorPasses();
  hp::registerHPConversionPasses();
  hp::registerHPTransformsPasses();
  hp::registerHPPipelines();
}
