//===- mpi_baseline.cpp - the same collective, hand-written over MPI ------===//
//
// The reference for bench/runtime_overhead.py: one MPI collective on the
// same bytes as hp's generated code, repeated, using one element of each
// result as the generated loop does. Prints seconds per iteration on rank 0.
//
// Usage: mpirun -np N hp-bench-mpi-baseline <kind> <bytes> <iterations>
//   kind: all_gather | all_reduce | reduce_scatter | all_to_all
//
//===----------------------------------------------------------------------===//

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <kind> <bytes> <iterations>\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const char *kind = argv[1];
  long n = std::atol(argv[2]) / 4; // f32 elements in the per-rank input
  int iterations = std::atoi(argv[3]);
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The same kind of communicator hp's runtime uses (a split of a duplicate
  // of the world): MPI may pick different algorithms for MPI_COMM_WORLD.
  MPI_Comm dup, comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(dup, 0, rank, &comm);

  bool gather = !std::strcmp(kind, "all_gather");
  bool reduce = !std::strcmp(kind, "all_reduce");
  bool scatter = !std::strcmp(kind, "reduce_scatter");
  bool alltoall = !std::strcmp(kind, "all_to_all");
  if (!gather && !reduce && !scatter && !alltoall) {
    std::fprintf(stderr, "unknown kind %s\n", kind);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  long inCount = scatter ? n * size : n;
  long outCount = gather ? n * size : (scatter ? n : n);
  std::vector<float> in(inCount, 0.0f), out(outCount, 0.0f);

  volatile float sink = 0;
  auto once = [&] {
    if (gather)
      MPI_Allgather(in.data(), n, MPI_FLOAT, out.data(), n, MPI_FLOAT, comm);
    else if (reduce)
      MPI_Allreduce(in.data(), out.data(), n, MPI_FLOAT, MPI_SUM, comm);
    else if (scatter)
      MPI_Reduce_scatter_block(in.data(), out.data(), n, MPI_FLOAT, MPI_SUM,
                               comm);
    else
      MPI_Alltoall(in.data(), n / size, MPI_FLOAT, out.data(), n / size,
                   MPI_FLOAT, comm);
    // As in the generated loop: one element of each result is used.
    sink += out[0];
  };
  once(); // warm-up
  MPI_Barrier(comm);
  double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i)
    once();
  double perIteration = (MPI_Wtime() - start) / iterations;
  if (rank == 0)
    std::printf("%.9f\n", perIteration);
  MPI_Finalize();
  return 0;
}
