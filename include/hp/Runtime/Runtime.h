//===- Runtime.h - the C ABI generated code calls into ----------*- C++ -*-===//
//
// convert-nccl-to-llvm emits calls to the NCCL C API plus these functions.
// They are implemented in lib/Runtime/CommCache.cpp, which is linked against
// libnccl on GPUs and against hp's NCCL-over-MPI host library on CPUs.
//
//===----------------------------------------------------------------------===//

#ifndef HP_RUNTIME_RUNTIME_H
#define HP_RUNTIME_RUNTIME_H

#include <cstdint>

extern "C" {

/// This process's communicator over `axes` (row-major in the listed order)
/// of the grid `gridName` with `gridRank` dims `gridShape` and, optionally,
/// the row-major rank of every mesh coordinate (`devices`, null for iota).
/// Created once per (grid, axes) with ncclCommSplit of the world
/// communicator, then cached. Any failure prints the rank and the failing
/// call and exits.
void *hpNcclComm(const char *gridName, int64_t gridRank,
                 const int64_t *gridShape, const int64_t *devices,
                 int64_t numAxes, const int64_t *axes);

/// The stream NCCL calls use: null on CPUs.
void *hpNcclStream();

/// Exits with a message naming `call` and this rank unless `result` is
/// ncclSuccess.
void hpNcclCheck(int32_t result, const char *call);

/// ncclCommUserRank, checked.
int64_t hpNcclCommRank(void *comm);

/// How many communicators this process has created (for benchmarks).
int64_t hpNcclCommCreations();
}

#endif // HP_RUNTIME_RUNTIME_H
