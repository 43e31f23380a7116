//===- Job.cpp - this process's place in the job, and how it fails --------===//
//
// Every rank learns its rank and the job's size from its launcher (Open
// MPI, MPICH/PMI, or HP_RANK / HP_WORLD_SIZE), before and without MPI; a
// runtime failure ends the whole job with a message. Part of the host
// runtime both the CPU and the GPU runtimes link.
//
//===----------------------------------------------------------------------===//

#include "EnvParse.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace {

/// A launcher variable: its name and value (null if none is set).
struct EnvSetting {
  const char *name = nullptr;
  const char *text = nullptr;
};

/// The first of `names` that is set.
EnvSetting firstSet(std::initializer_list<const char *> names) {
  for (const char *name : names)
    if (const char *text = std::getenv(name))
      return {name, text};
  return {};
}

/// The value of `setting` as an integer in [min, max]; `fallback` if unset.
/// Anything else ends the job naming the variable, rather than running it
/// with the 0 or the wrapped value atoi would make of it.
int envInt(const EnvSetting &setting, int64_t min, int64_t max, int fallback) {
  if (!setting.text)
    return fallback;
  int64_t value;
  if (!hp::runtime::parseInt(setting.text, min, max, value))
    hp::runtime::failWith(std::string(setting.name) + "='" + setting.text +
                          "' must be an integer from " + std::to_string(min) +
                          " to " + std::to_string(max));
  return static_cast<int>(value);
}

struct Place {
  int rank = 0;
  int size = 1;
};

const Place &place() {
  static Place p = [] {
    Place p;
    EnvSetting size =
        firstSet({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "HP_WORLD_SIZE"});
    EnvSetting rank = firstSet({"OMPI_COMM_WORLD_RANK", "PMI_RANK", "HP_RANK"});
    p.size = envInt(size, 1, hp::runtime::kMaxRanks, 1);
    p.rank = envInt(rank, 0, hp::runtime::kMaxRanks - 1, 0);
    if (p.rank >= p.size)
      hp::runtime::failWith(
          std::string(rank.name) + "=" + std::to_string(p.rank) +
          " is not below the world size " + std::to_string(p.size) +
          (size.name ? std::string(" (") + size.name + ")" : ""));
    return p;
  }();
  return p;
}

} // namespace

[[noreturn]] void hp::runtime::failWith(const std::string &message) {
  std::fprintf(stderr, "hp: %s\n", message.c_str());
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized)
    MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

int hp::runtime::worldRank() { return place().rank; }

int hp::runtime::worldSize() { return place().size; }
