/*===- Runtime.h - the C ABI generated code calls into ------------*- C -*-===*\
|*                                                                            *|
|* Every function that code hp generates may call, with its status codes as   *|
|* named constants, and the names of the files and variables through which a  *|
|* driver and its client meet. Both runtimes implement it (lib/Runtime: the   *|
|* CPU one over hp's NCCL-over-MPI library, the GPU one over libnccl and the  *|
|* CUDA driver); the passes that emit calls derive names and signatures from  *|
|* these declarations (dtensor-add-driver: RuntimeSignatures.h), and Python   *|
|* reads the names through _hp (hp._hp.runtime_abi()). Plain C, so that any  *|
|* host language can bind it. docs/Runtime.md is the protocol.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef HP_RUNTIME_RUNTIME_H
#define HP_RUNTIME_RUNTIME_H

#include <stdint.h>

/*===----------------------------------------------------------------------===*
 * Names of a tensor directory ($HP_TENSOR_DIR) and of a session directory
 *===----------------------------------------------------------------------===*/

/* The directory a driver reads its arguments from and writes its results to:
 * argument k is "arg<k>.bin" (the whole tensor, row-major) or "arg<k>.ref"
 * (one line "<offset> <path>": the tensor's bytes start at that offset of
 * that file); result k is "result<k>.bin", written as "result<k>.bin.part"
 * and renamed. */
#define HP_ENV_TENSOR_DIR "HP_TENSOR_DIR"
#define HP_ARGUMENT_PREFIX "arg"
#define HP_RESULT_PREFIX "result"
#define HP_TENSOR_SUFFIX ".bin"
#define HP_REFERENCE_SUFFIX ".ref"
#define HP_PARTIAL_SUFFIX ".part"

/* A session: the client writes request lines on the FIFO "requests" and
 * rank 0 answers on "replies"; request n's own directory is "<n>" (written
 * as "<n>.tmp" and renamed) in $HP_SESSION_CALLS when set, else in the
 * session directory; a peak-memory request's answer is "memory.txt" there.
 * $HP_SESSION_CLIENT names the client's process, and
 * HP_SESSION_REMOVE_DIR=1 asks the ranks to remove the directories when
 * that process ends without stopping the session. */
#define HP_ENV_SESSION_CALLS "HP_SESSION_CALLS"
#define HP_ENV_SESSION_CLIENT "HP_SESSION_CLIENT"
#define HP_ENV_SESSION_REMOVE_DIR "HP_SESSION_REMOVE_DIR"
#define HP_SESSION_REQUESTS "requests"
#define HP_SESSION_REPLIES "replies"
#define HP_SESSION_STAGING_SUFFIX ".tmp"
#define HP_SESSION_PEAK_MEMORY_FILE "memory.txt"

/* What hp_session_next returns besides a call's number (>= 0). */
enum hp_session_request {
  HP_SESSION_STOP = -1,        /* no more calls: the driver returns */
  HP_SESSION_FETCH_STATE = -2, /* write the resident state as results */
  HP_SESSION_PEAK_MEMORY = -3  /* answered by the runtime, never returned */
};

/* A memref of unknown rank as MLIR's C interface passes it. */
struct hp_unranked_memref {
  int64_t rank;
  void *descriptor;
};

#ifdef __cplusplus
extern "C" {
#endif

/*===----------------------------------------------------------------------===*
 * Tensor files (dtensor-add-driver). Pointers travel as int64_t, as the
 * driver passes them. Any failure ends the job with a message.
 *===----------------------------------------------------------------------===*/

/* Reads argument `slot` (exactly `bytes` bytes) into the buffer at `ptr`. */
void hp_read_tensor(int64_t slot, int64_t ptr, int64_t bytes);

/* Reads this rank's block of argument `slot`, a row-major tensor of `rank`
 * dims of `elementBytes`-byte elements, into the buffer at `ptr`; `dims`
 * points to 3 * rank int64_t: per dim, the global size, the block's offset
 * and its size. */
void hp_read_tensor_block(int64_t slot, int64_t ptr, int64_t dims, int64_t rank,
                          int64_t elementBytes);

/* Writes result `slot` from the buffer at `ptr` (rank 0; others return). */
void hp_write_tensor(int64_t slot, int64_t ptr, int64_t bytes);

/* Seconds on a monotonic clock (MLIR's runner utilities define it). */
double rtclock(void);

/*===----------------------------------------------------------------------===*
 * Sessions (dtensor-add-driver{session-inputs=K})
 *===----------------------------------------------------------------------===*/

/* The next request, the same on every rank: a call's number, or an
 * hp_session_request. */
int64_t hp_session_next(void);

/* The entry the current call runs (0: the main one) of `count`. */
int64_t hp_session_entry(int64_t count);

/* Every rank has finished the current request; rank 0 answers it. */
void hp_session_done(void);

/*===----------------------------------------------------------------------===*
 * Communicators (convert-nccl-to-llvm; the NCCL C API besides)
 *===----------------------------------------------------------------------===*/

/* This process's communicator over `axes` (row-major in the listed order)
 * of the grid `gridName` with `gridRank` dims `gridShape` and, optionally,
 * the row-major rank of every mesh coordinate (`devices`, null for iota).
 * Created once per (grid, axes) with ncclCommSplit of the world
 * communicator, then cached. */
void *hpNcclComm(const char *gridName, int64_t gridRank,
                 const int64_t *gridShape, const int64_t *devices,
                 int64_t numAxes, const int64_t *axes);

/* The stream NCCL calls use: null on CPUs. */
void *hpNcclStream(void);

/* Ends the job naming `call` and this rank unless `result` is ncclSuccess. */
void hpNcclCheck(int32_t result, const char *call);

/* ncclCommUserRank, checked. */
int64_t hpNcclCommRank(void *comm);

/* How many communicators this process has created (for benchmarks). */
int64_t hpNcclCommCreations(void);

/*===----------------------------------------------------------------------===*
 * Contractions (convert-linalg-to-blas): C += A * B over the loops that
 * `numLoops`, `word0` and `word1` pack (ContractionPlan.h).
 *===----------------------------------------------------------------------===*/

#define HP_CONTRACTION(NAME)                                                   \
  void NAME(struct hp_unranked_memref *a, struct hp_unranked_memref *b,        \
            struct hp_unranked_memref *c, int64_t numLoops, int64_t word0,     \
            int64_t word1)
HP_CONTRACTION(_mlir_ciface_hp_contract_f32);
HP_CONTRACTION(_mlir_ciface_hp_contract_f64);
/* On GPUs (cuBLAS, on the session's stream). */
HP_CONTRACTION(_mlir_ciface_hp_gpu_contract_f32);
HP_CONTRACTION(_mlir_ciface_hp_gpu_contract_f64);
#undef HP_CONTRACTION

#ifdef __cplusplus
}
#endif

#endif /* HP_RUNTIME_RUNTIME_H */
