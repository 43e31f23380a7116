//===- EnsureMPI.h - MPI initialised on first use ---------------*- C++ -*-===//
//
// The host NCCL library (NCCLOverMPI.cpp) and the session loop
// (Sessions.cpp) each may be the first to touch MPI in a rank; both start
// it the same way.
//
//===----------------------------------------------------------------------===//

#ifndef HP_RUNTIME_ENSUREMPI_H
#define HP_RUNTIME_ENSUREMPI_H

#include <mpi.h>

namespace hp::runtime {

/// Initialises MPI (serialized threads: one thread calls at a time) unless
/// it already is.
inline void ensureMPI() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  }
}

} // namespace hp::runtime

#endif // HP_RUNTIME_ENSUREMPI_H
