//===- CommCache.cpp - bootstrap and per-(grid, axes) communicators -------===//
//
// The world communicator is created on first use: rank and size come from
// the launcher (Open MPI, MPICH/PMI or HP_RANK/HP_WORLD_SIZE), rank 0's
// unique id is broadcast over MPI, and every rank calls ncclCommInitRank.
// Sub-communicators come from ncclCommSplit with the color and key of this
// rank's mesh coordinate, and are cached per (grid, axes): generated code
// asks for one before every collective, and only the first ask creates it.
//
//===----------------------------------------------------------------------===//

#include "hp/Runtime/Runtime.h"

#include "EnvParse.h"

#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <malloc.h>
#include <map>
#include <string>
#include <vector>

namespace {

struct World {
  int rank = 0;
  int size = 1;
  ncclComm_t comm = nullptr;
};

[[noreturn]] void fail(int rank, const std::string &message);
} // namespace

namespace {
using hp::runtime::failWith;

/// Prints `message` for `rank` and ends the job.
[[noreturn]] void fail(int rank, const std::string &message) {
  failWith("rank " + std::to_string(rank) + ": " + message);
}

void check(ncclResult_t result, const char *call, int rank) {
  if (result != ncclSuccess)
    fail(rank, std::string(call) + " failed: " + ncclGetErrorString(result));
}

#ifdef HP_RUNTIME_GPU
extern "C" void *hpCudaRankStream();
#endif

World &world() {
  static World w = [] {
#ifdef HP_RUNTIME_GPU
    // NCCL binds a communicator to the current device: pick it first.
    hpCudaRankStream();
#endif
    World w;
    w.size = hp::runtime::worldSize();
    w.rank = hp::runtime::worldRank();
    ncclUniqueId id;
    if (w.rank == 0)
      check(ncclGetUniqueId(&id), "ncclGetUniqueId", w.rank);
    if (w.size > 1) {
      int initialized = 0;
      MPI_Initialized(&initialized);
      if (!initialized) {
        int provided;
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
      }
      int rc = MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
      if (rc != MPI_SUCCESS)
        fail(w.rank, "MPI_Bcast of the NCCL unique id failed");
    }
    check(ncclCommInitRank(&w.comm, w.size, id, w.rank), "ncclCommInitRank",
          w.rank);
    return w;
  }();
  return w;
}
} // namespace

namespace {

std::map<std::string, ncclComm_t> &cache() {
  static std::map<std::string, ncclComm_t> c;
  return c;
}

int64_t creations = 0;

/// Generated code allocates a fresh buffer for every collective's result.
/// glibc serves large blocks with mmap and returns them with munmap, so
/// every iteration would fault its pages in again; keeping them in the heap
/// makes the allocation as cheap as a caching allocator's.
struct KeepLargeBlocks {
  KeepLargeBlocks() {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  }
} keepLargeBlocks;

/// The grid's shape with its dynamic axes (INT64_MIN, MLIR's kDynamic)
/// filled in from the launch: one dynamic axis takes the world size over
/// the static axes' product; several need HP_GRID_SHAPE_<grid>=AxBx...
std::vector<int64_t> resolveGridShape(const char *gridName, int64_t gridRank,
                                      const int64_t *gridShape,
                                      const World &w) {
  std::vector<int64_t> shape(gridShape, gridShape + gridRank);
  const int64_t dynamic = std::numeric_limits<int64_t>::min();
  int64_t numDynamic = 0;
  std::vector<int64_t> staticAxes;
  for (int64_t s : shape) {
    if (s == dynamic)
      ++numDynamic;
    else
      staticAxes.push_back(s);
  }
  if (numDynamic == 0)
    return shape;
  std::string name = gridName;
  int64_t staticProduct = hp::runtime::deviceCount(staticAxes);
  // Bounded and nonzero, so the world size can be divided by it.
  if (staticProduct < 1)
    fail(w.rank, "grid @" + name + "'s static axes hold " +
                     (staticProduct ? "more devices than a job can have ranks"
                                    : "no devices"));
  std::string var = "HP_GRID_SHAPE_" + name;
  if (const char *given = std::getenv(var.c_str())) {
    std::string text = given;
    std::vector<int64_t> parsed;
    if (!hp::runtime::parseShape(text, parsed))
      fail(w.rank, var + "='" + text + "' is not a shape like 2x4");
    if (hp::runtime::deviceCount(parsed) < 0)
      fail(w.rank, var + "='" + text +
                       "' has more devices than a job can have ranks (" +
                       std::to_string(hp::runtime::kMaxRanks) + ")");
    if (static_cast<int64_t>(parsed.size()) != gridRank)
      fail(w.rank, var + "='" + text + "' has " +
                       std::to_string(parsed.size()) + " sizes; grid @" + name +
                       " has " + std::to_string(gridRank) + " axes");
    for (int64_t d = 0; d < gridRank; ++d)
      if (shape[d] != dynamic && shape[d] != parsed[d])
        fail(w.rank, var + "='" + text + "' gives axis " + std::to_string(d) +
                         " size " + std::to_string(parsed[d]) + ", but grid @" +
                         name + " fixes it to " + std::to_string(shape[d]));
    return parsed;
  }
  if (numDynamic > 1)
    fail(w.rank, "grid @" + name + " has " + std::to_string(numDynamic) +
                     " dynamic axes; set " + var +
                     " (e.g. 2x4) to give its shape");
  if (w.size % staticProduct != 0)
    fail(w.rank, "grid @" + name + " cannot fill " + std::to_string(w.size) +
                     " ranks: its static axes hold " +
                     std::to_string(staticProduct) +
                     " devices, which does not divide the world size");
  for (int64_t &s : shape)
    if (s == dynamic)
      s = w.size / staticProduct;
  return shape;
}

} // namespace

extern "C" {

void *hpNcclComm(const char *gridName, int64_t gridRank,
                 const int64_t *gridShape, const int64_t *devices,
                 int64_t numAxes, const int64_t *axes) {
  std::string key = gridName;
  for (int64_t i = 0; i < numAxes; ++i)
    key += "/" + std::to_string(axes[i]);
  auto it = cache().find(key);
  if (it != cache().end())
    return it->second;

  World &w = world();
  std::vector<int64_t> shapeStorage =
      resolveGridShape(gridName, gridRank, gridShape, w);
  gridShape = shapeStorage.data();
  int64_t numDevices = hp::runtime::deviceCount(shapeStorage);
  if (numDevices < 0)
    fail(w.rank, "grid @" + std::string(gridName) +
                     " has more devices than a job can have ranks (" +
                     std::to_string(hp::runtime::kMaxRanks) + ")");
  if (numDevices != w.size)
    fail(w.rank, "grid @" + std::string(gridName) + " has " +
                     std::to_string(numDevices) + " devices but the job has " +
                     std::to_string(w.size) + " ranks; launch with -np " +
                     std::to_string(numDevices));

  // This rank's linear mesh index: its position in the device list.
  int64_t linear = w.rank;
  if (devices) {
    linear = -1;
    for (int64_t i = 0; i < numDevices; ++i)
      if (devices[i] == w.rank)
        linear = i;
    if (linear < 0)
      fail(w.rank,
           "rank is not in the device list of grid @" + std::string(gridName));
  }
  std::vector<int64_t> coord(gridRank);
  for (int64_t d = gridRank - 1, rest = linear; d >= 0; --d) {
    coord[d] = rest % gridShape[d];
    rest /= gridShape[d];
  }
  // Color: the coordinate on the other axes; key: row-major over `axes`.
  std::vector<bool> listed(gridRank, false);
  int64_t keyIndex = 0, color = 0;
  for (int64_t i = 0; i < numAxes; ++i) {
    listed[axes[i]] = true;
    keyIndex = keyIndex * gridShape[axes[i]] + coord[axes[i]];
  }
  for (int64_t d = 0; d < gridRank; ++d)
    if (!listed[d])
      color = color * gridShape[d] + coord[d];

  ncclComm_t comm = nullptr;
  check(ncclCommSplit(w.comm, static_cast<int>(color),
                      static_cast<int>(keyIndex), &comm, nullptr),
        "ncclCommSplit", w.rank);
  ++creations;
  cache()[key] = comm;
  return comm;
}

#ifdef HP_RUNTIME_GPU
// NCCL runs on the per-process stream the kernels use (CudaRuntimeWrappers).
void *hpNcclStream() { return hpCudaRankStream(); }
#else
void *hpNcclStream() { return nullptr; }
#endif

void hpNcclCheck(int32_t result, const char *call) {
  if (result != ncclSuccess)
    fail(world().rank,
         std::string(call) + " failed: " +
             ncclGetErrorString(static_cast<ncclResult_t>(result)));
}

int64_t hpNcclCommRank(void *comm) {
  int rank = 0;
  check(ncclCommUserRank(static_cast<ncclComm_t>(comm), &rank),
        "ncclCommUserRank", world().rank);
  return rank;
}

int64_t hpNcclCommCreations() { return creations; }

} // extern "C"
