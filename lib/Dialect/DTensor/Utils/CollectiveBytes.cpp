//===- CollectiveBytes.cpp - bytes one rank sends per collective ----------===//

#include "hp/Dialect/DTensor/Utils/CollectiveBytes.h"

using namespace hp::dtensor::plan;

llvm::StringRef hp::dtensor::plan::collectiveName(Collective kind) {
  switch (kind) {
  case Collective::AllGather:
    return "all_gather";
  case Collective::AllReduce:
    return "all_reduce";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  case Collective::AllToAll:
    return "all_to_all";
  case Collective::Shift:
    return "shift";
  case Collective::Send:
    return "send";
  case Collective::Recv:
    return "recv";
  case Collective::Broadcast:
    return "broadcast";
  case Collective::Gather:
    return "gather";
  case Collective::Scatter:
    return "scatter";
  case Collective::Reduce:
    return "reduce";
  }
  return "";
}

double hp::dtensor::plan::bytesSent(Collective kind, int64_t groupSize,
                                    double operandBytes, double resultBytes) {
  bool pointToPoint = kind == Collective::Shift || kind == Collective::Send ||
                      kind == Collective::Recv;
  if (groupSize <= 1 && !pointToPoint)
    return 0;
  switch (kind) {
  case Collective::AllGather:
    return ringFraction(groupSize) * resultBytes;
  case Collective::AllReduce:
    // The fraction first, as the planner has always written it: with unit
    // axis weights its costs stay bit for bit (a weight now multiplies the
    // bytes, not the fraction: the last bit may round otherwise).
    return 2.0 * (groupSize - 1) / groupSize * operandBytes;
  case Collective::ReduceScatter:
  case Collective::AllToAll:
    return ringFraction(groupSize) * operandBytes;
  case Collective::Shift:
  case Collective::Send:
  case Collective::Broadcast:
  case Collective::Gather:
  case Collective::Scatter:
  case Collective::Reduce:
    return operandBytes;
  case Collective::Recv:
    return 0;
  }
  return 0;
}
