//===- NCCLOverMPI.cpp - the NCCL C API on host memory, over MPI ----------===//
//
// libhp_nccl_host implements the NCCL calls that hp's generated code makes,
// with the signatures of the real nccl.h, on host pointers and MPI. Linking
// this library instead of libnccl runs the exact production call sequence
// on CPUs. Collectives are MPI's blocking (tuned) collectives; a watchdog
// thread turns a call that outlives HP_TIMEOUT_S into an error naming the
// call and the rank, instead of a stuck job. (Nonblocking collectives polled
// against a deadline were measured 2-4x slower on oversubscribed ranks.)
//
//===----------------------------------------------------------------------===//

#include "EnsureMPI.h"
#include "EnvParse.h"
#include "FloatConversions.h"
#include "Watchdog.h"

#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

using namespace hp::runtime;

struct ncclComm {
  MPI_Comm comm;
  int rank;
  int size;
};

namespace {

int worldRank() {
  int initialized = 0, rank = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/// Set by hpRuntimeEntryDone: the entry point returned on this rank.
std::atomic<bool> entryDone{false};

/// MPI_Finalize at exit when this library initialised MPI for the job. A
/// rank that exits before its entry point returned (exit() in the program,
/// a failed check) would block in MPI_Finalize while the others wait in a
/// collective: under hp-runner (HP_RUNNER_ABORT_ON_EARLY_EXIT) it aborts the
/// whole job instead, naming itself.
struct Finalizer {
  ~Finalizer() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
      return;
    if (!entryDone && std::getenv("HP_RUNNER_ABORT_ON_EARLY_EXIT")) {
      std::fprintf(stderr,
                   "hp: rank %d: exited before its entry point returned; "
                   "aborting the job so that the other ranks do not wait "
                   "for it\n",
                   worldRank());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
  }
} finalizer;

/// HP_CHECK_COLLECTIVES is 0 or 1, else the library refuses to start
/// (checked when it is loaded; HP_TIMEOUT_S is checked by the watchdog's
/// library, Watchdog.cpp).
struct StartupCheck {
  StartupCheck() {
    const char *check = std::getenv("HP_CHECK_COLLECTIVES");
    if (!check || std::strcmp(check, "0") == 0 || std::strcmp(check, "1") == 0)
      return;
    std::fprintf(stderr, "hp: HP_CHECK_COLLECTIVES must be 0 or 1, got '%s'\n",
                 check);
    std::fflush(stderr);
    _exit(2);
  }
} startupCheck;

ncclResult_t mpiFailed(const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  std::fprintf(stderr, "hp: rank %d: %s failed: %s\n", worldRank(), call, text);
  return ncclSystemError;
}

constexpr const char *kSameProgramHint =
    "do all ranks run the same program on the same mesh?";

/// Runs one blocking MPI call under the watchdog; `call` names the NCCL
/// function for messages.
template <typename Fn>
ncclResult_t guarded(const char *call, const char *mpi, Fn &&fn,
                     const char *hint = kSameProgramHint) {
  hp::runtime::watchdogStart(call, hint);
  int rc = fn();
  hp::runtime::watchdogStop();
  return rc == MPI_SUCCESS ? ncclSuccess : mpiFailed(mpi, rc);
}

//===----------------------------------------------------------------------===//
// Data types and reductions
//===----------------------------------------------------------------------===//

enum class Narrow { None, F16, BF16, E4M3, E5M2 };

template <typename T> void divideAll(void *p, size_t n, int by) {
  T *v = static_cast<T *>(p);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(v[i] / by);
}

/// What the runtime knows of an NCCL data type: its size, the MPI type it
/// travels as (the narrow floats, which MPI lacks, as raw bits), its narrow
/// format (reduced through float), and for the others ncclAvg's division.
struct DataType {
  ncclDataType_t nccl;
  const char *name; ///< in HP_CHECK_COLLECTIVES's messages
  size_t size;
  MPI_Datatype mpi;
  Narrow narrow;
  void (*divide)(void *p, size_t n, int by);
};

/// The data type `t`, or null for one hp does not take.
const DataType *dataType(ncclDataType_t t) {
  static const DataType types[] = {
      {ncclInt8, "i8", 1, MPI_INT8_T, Narrow::None, divideAll<int8_t>},
      {ncclUint8, "u8", 1, MPI_UINT8_T, Narrow::None, divideAll<uint8_t>},
      {ncclInt32, "i32", 4, MPI_INT32_T, Narrow::None, divideAll<int32_t>},
      {ncclUint32, "u32", 4, MPI_UINT32_T, Narrow::None, divideAll<uint32_t>},
      {ncclInt64, "i64", 8, MPI_INT64_T, Narrow::None, divideAll<int64_t>},
      {ncclUint64, "u64", 8, MPI_UINT64_T, Narrow::None, divideAll<uint64_t>},
      {ncclFloat32, "f32", 4, MPI_FLOAT, Narrow::None, divideAll<float>},
      {ncclFloat64, "f64", 8, MPI_DOUBLE, Narrow::None, divideAll<double>},
      {ncclFloat16, "f16", 2, MPI_UINT16_T, Narrow::F16, nullptr},
      {ncclBfloat16, "bf16", 2, MPI_UINT16_T, Narrow::BF16, nullptr},
      {ncclFloat8e4m3, "f8E4M3FN", 1, MPI_UINT8_T, Narrow::E4M3, nullptr},
      {ncclFloat8e5m2, "f8E5M2", 1, MPI_UINT8_T, Narrow::E5M2, nullptr},
  };
  for (const DataType &type : types)
    if (type.nccl == t)
      return &type;
  return nullptr;
}

Narrow narrowKind(ncclDataType_t t) {
  const DataType *type = dataType(t);
  return type ? type->narrow : Narrow::None;
}

bool mpiType(ncclDataType_t t, MPI_Datatype *out) {
  const DataType *type = dataType(t);
  if (!type)
    return false;
  *out = type->mpi;
  return true;
}

float loadNarrow(Narrow k, const void *p, int i) {
  switch (k) {
  case Narrow::F16:
    return halfToFloat(static_cast<const uint16_t *>(p)[i]);
  case Narrow::BF16:
    return bf16ToFloat(static_cast<const uint16_t *>(p)[i]);
  case Narrow::E4M3:
    return e4m3ToFloat(static_cast<const uint8_t *>(p)[i]);
  default:
    return e5m2ToFloat(static_cast<const uint8_t *>(p)[i]);
  }
}

void storeNarrow(Narrow k, void *p, int i, float v) {
  switch (k) {
  case Narrow::F16:
    static_cast<uint16_t *>(p)[i] = floatToHalf(v);
    break;
  case Narrow::BF16:
    static_cast<uint16_t *>(p)[i] = floatToBf16(v);
    break;
  case Narrow::E4M3:
    static_cast<uint8_t *>(p)[i] = floatToE4m3(v);
    break;
  default:
    static_cast<uint8_t *>(p)[i] = floatToE5m2(v);
    break;
  }
}

float combine(ncclRedOp_t op, float a, float b) {
  switch (op) {
  case ncclProd:
    return a * b;
  case ncclMax:
    return a > b ? a : b;
  case ncclMin:
    return a < b ? a : b;
  default: // sum and avg (divided afterwards)
    return a + b;
  }
}

// MPI user ops cannot carry state, so there is one per (format, reduction).
template <Narrow K, ncclRedOp_t Op>
void narrowReduce(void *in, void *inout, int *len, MPI_Datatype *) {
  for (int i = 0; i < *len; ++i)
    storeNarrow(K, inout, i,
                combine(Op, loadNarrow(K, in, i), loadNarrow(K, inout, i)));
}

template <Narrow K> MPI_Op narrowOp(ncclRedOp_t op) {
  static MPI_Op ops[4] = {MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL, MPI_OP_NULL};
  static MPI_User_function *fns[4] = {
      narrowReduce<K, ncclSum>, narrowReduce<K, ncclProd>,
      narrowReduce<K, ncclMax>, narrowReduce<K, ncclMin>};
  int i = op == ncclAvg ? 0 : static_cast<int>(op);
  if (ops[i] == MPI_OP_NULL)
    MPI_Op_create(fns[i], /*commute=*/1, &ops[i]);
  return ops[i];
}

bool mpiOp(ncclRedOp_t op, ncclDataType_t t, MPI_Op *out) {
  switch (narrowKind(t)) {
  case Narrow::F16:
    *out = narrowOp<Narrow::F16>(op);
    return true;
  case Narrow::BF16:
    *out = narrowOp<Narrow::BF16>(op);
    return true;
  case Narrow::E4M3:
    *out = narrowOp<Narrow::E4M3>(op);
    return true;
  case Narrow::E5M2:
    *out = narrowOp<Narrow::E5M2>(op);
    return true;
  case Narrow::None:
    break;
  }
  switch (op) {
  case ncclSum:
  case ncclAvg:
    *out = MPI_SUM;
    return true;
  case ncclProd:
    *out = MPI_PROD;
    return true;
  case ncclMax:
    *out = MPI_MAX;
    return true;
  case ncclMin:
    *out = MPI_MIN;
    return true;
  default:
    return false;
  }
}

/// ncclAvg: the sum divided by the number of ranks, as NCCL does. `t` is a
/// type mpiType took.
void divideBy(void *p, size_t n, ncclDataType_t t, int by) {
  const DataType *type = dataType(t);
  if (type->narrow == Narrow::None)
    return type->divide(p, n, by);
  for (size_t i = 0; i < n; ++i)
    storeNarrow(type->narrow, p, static_cast<int>(i),
                loadNarrow(type->narrow, p, static_cast<int>(i)) / by);
}

bool validComm(ncclComm_t comm) { return comm && comm->comm != MPI_COMM_NULL; }

/// Point-to-point calls inside ncclGroupStart/End complete at GroupEnd.
int groupDepth = 0;
std::vector<MPI_Request> groupRequests;

/// MPI counts are ints; NCCL's are size_t.
bool fitsInt(size_t count) { return count <= static_cast<size_t>(INT32_MAX); }

/// The checks every data call makes: a live communicator, a count MPI can
/// take, and a datatype MPI has (its MPI type in `type`).
bool validData(ncclComm_t comm, size_t count, ncclDataType_t datatype,
               MPI_Datatype *type) {
  return validComm(comm) && fitsInt(count) && mpiType(datatype, type);
}

//===----------------------------------------------------------------------===//
// HP_CHECK_COLLECTIVES: every call compared across the ranks it involves
//===----------------------------------------------------------------------===//

/// Whether HP_CHECK_COLLECTIVES=1. Read once: off, the check costs one
/// predictable branch per call.
bool checkingCalls() {
  static const bool on = [] {
    const char *env = std::getenv("HP_CHECK_COLLECTIVES");
    return env && std::strcmp(env, "1") == 0;
  }();
  return on;
}

enum class CallKind : int32_t {
  AllReduce,
  ReduceScatter,
  AllGather,
  AlltoAll,
  Broadcast,
  CommSplit,
  Send,
  Recv
};

const char *callName(CallKind kind) {
  static const char *names[] = {
      "ncclAllReduce", "ncclReduceScatter", "ncclAllGather", "ncclAlltoAll",
      "ncclBroadcast", "ncclCommSplit",     "ncclSend",      "ncclRecv"};
  return names[static_cast<int>(kind)];
}

/// What must agree between the ranks of one call, exchanged as raw bytes
/// (24, no padding). -1 where a field does not apply.
struct CallSig {
  CallKind kind;
  int32_t datatype = -1;
  int64_t count = -1;
  int32_t root = -1; ///< a broadcast's root, a send's or receive's peer
  int32_t op = -1;   ///< a reduction's ncclRedOp_t
};
static_assert(sizeof(CallSig) == 24, "CallSig travels as bytes");

bool operator==(const CallSig &a, const CallSig &b) {
  return a.kind == b.kind && a.datatype == b.datatype && a.count == b.count &&
         a.root == b.root && a.op == b.op;
}

/// "ncclAllReduce(count=4, f32, sum)"; a peer is named by the caller.
std::string describe(const CallSig &sig) {
  std::string text = callName(sig.kind);
  if (sig.kind == CallKind::CommSplit)
    return text + "()";
  const DataType *type = dataType(static_cast<ncclDataType_t>(sig.datatype));
  text += "(count=" + std::to_string(sig.count) + ", " +
          (type ? type->name : "type " + std::to_string(sig.datatype));
  static const char *ops[] = {"sum", "prod", "max", "min", "avg"};
  if (sig.op >= 0 && sig.op < 5)
    text += std::string(", ") + ops[sig.op];
  if (sig.kind == CallKind::Broadcast)
    text += ", root=" + std::to_string(sig.root);
  return text + ")";
}

/// The world rank of `comm`'s rank `rank`, to name ranks as the user sees
/// them on a sub-communicator.
int worldRankOf(ncclComm_t comm, int rank) {
  MPI_Group group, world;
  MPI_Comm_group(comm->comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int result = rank;
  MPI_Group_translate_ranks(group, 1, &rank, world, &result);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return result;
}

void report(const std::string &message) {
  std::fprintf(stderr, "hp: rank %d: %s (HP_CHECK_COLLECTIVES)\n", worldRank(),
               message.c_str());
  std::fflush(stderr);
}

/// Compares collective `sig` across `comm` (one small MPI_Allgather).
/// On a mismatch, the communicator's rank 0 names its call and the first
/// different one, and every rank fails the call once that is printed.
ncclResult_t checkCollective(ncclComm_t comm, const CallSig &sig) {
  if (!checkingCalls())
    return ncclSuccess;
  const char *call = callName(sig.kind);
  std::vector<CallSig> all(comm->size);
  ncclResult_t result = guarded(call, "MPI_Allgather", [&] {
    return MPI_Allgather(&sig, sizeof(CallSig), MPI_BYTE, all.data(),
                         sizeof(CallSig), MPI_BYTE, comm->comm);
  });
  if (result != ncclSuccess)
    return result;
  auto differs = [&](const CallSig &other) { return !(other == all[0]); };
  auto first = std::find_if(all.begin(), all.end(), differs);
  if (first == all.end())
    return ncclSuccess;
  if (comm->rank == 0) {
    long others = std::count_if(first + 1, all.end(), differs);
    report("collectives do not match across ranks: rank " +
           std::to_string(worldRankOf(comm, 0)) + " calls " + describe(all[0]) +
           " but rank " +
           std::to_string(worldRankOf(comm, first - all.begin())) + " calls " +
           describe(*first) +
           (others ? " (and " + std::to_string(others) + " more ranks differ)"
                   : ""));
  }
  // No rank may end the job before rank 0's report is out.
  guarded(call, "MPI_Barrier", [&] { return MPI_Barrier(comm->comm); });
  return ncclInvalidUsage;
}

/// A send or receive whose check is due at the end of its group.
struct PendingCall {
  ncclComm_t comm;
  CallSig sig;
};
std::vector<PendingCall> groupCalls;

/// One peer of a group: this rank's sends and receives with it, and the
/// peer's with this rank, in call order.
struct PeerCalls {
  ncclComm_t comm;
  int peer;
  std::vector<CallSig> mine, theirs;
};

/// Message tags: data travels with tag 0.
constexpr int kCheckTag = 1, kCheckDoneTag = 2;

/// The first send of `from` to `to` that `to` does not receive alike, in
/// words, or "" (`from`/`to`: the two lists, named by world rank).
std::string unmatchedSend(const std::vector<CallSig> &from, int fromRank,
                          const std::vector<CallSig> &to, int toRank) {
  std::vector<CallSig> sends, recvs;
  for (const CallSig &sig : from)
    if (sig.kind == CallKind::Send)
      sends.push_back(sig);
  for (const CallSig &sig : to)
    if (sig.kind == CallKind::Recv)
      recvs.push_back(sig);
  std::string a = "rank " + std::to_string(fromRank),
              b = "rank " + std::to_string(toRank);
  for (size_t i = 0; i < std::max(sends.size(), recvs.size()); ++i) {
    if (i >= recvs.size())
      return a + " calls " + describe(sends[i]) + " to " + b + " but " + b +
             " posts no matching ncclRecv from " + a;
    if (i >= sends.size())
      return b + " calls " + describe(recvs[i]) + " from " + a + " but " + a +
             " posts no matching ncclSend to " + b;
    if (sends[i].count != recvs[i].count ||
        sends[i].datatype != recvs[i].datatype)
      return a + " calls " + describe(sends[i]) + " to " + b + " but " + b +
             " calls " + describe(recvs[i]) + " from " + a;
  }
  return "";
}

/// Exchanges each peer's list of calls with it and compares them: each rank
/// reports the sends it makes that the peer does not receive alike. Both
/// ranks of a mismatched pair fail, after a handshake that lets the report
/// out first. `call` names the NCCL call that completes the group.
ncclResult_t checkPointToPoint(const char *call,
                               const std::vector<PendingCall> &calls) {
  std::vector<PeerCalls> peers;
  for (const PendingCall &c : calls) {
    auto it = std::find_if(peers.begin(), peers.end(), [&](const PeerCalls &p) {
      return p.comm == c.comm && p.peer == c.sig.root;
    });
    if (it == peers.end())
      it = peers.insert(peers.end(), PeerCalls{c.comm, c.sig.root, {}, {}});
    it->mine.push_back(c.sig);
  }
  std::vector<MPI_Request> sent(peers.size());
  for (size_t i = 0; i < peers.size(); ++i)
    MPI_Isend(peers[i].mine.data(),
              static_cast<int>(peers[i].mine.size() * sizeof(CallSig)),
              MPI_BYTE, peers[i].peer, kCheckTag, peers[i].comm->comm,
              &sent[i]);
  static char hint[160];
  bool matched = true;
  for (PeerCalls &p : peers) {
    int me = worldRankOf(p.comm, p.comm->rank),
        peer = worldRankOf(p.comm, p.peer);
    std::snprintf(hint, sizeof hint,
                  "rank %d posted no matching send or receive for rank %d "
                  "(HP_CHECK_COLLECTIVES)",
                  peer, me);
    MPI_Status status;
    ncclResult_t result = guarded(
        call, "MPI_Probe",
        [&] { return MPI_Probe(p.peer, kCheckTag, p.comm->comm, &status); },
        hint);
    if (result != ncclSuccess)
      return result;
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    p.theirs.resize(bytes / sizeof(CallSig));
    MPI_Recv(p.theirs.data(), bytes, MPI_BYTE, p.peer, kCheckTag, p.comm->comm,
             MPI_STATUS_IGNORE);
    std::string mine = unmatchedSend(p.mine, me, p.theirs, peer);
    if (!mine.empty())
      report("point-to-point calls do not match: " + mine);
    if (mine.empty() && unmatchedSend(p.theirs, peer, p.mine, me).empty())
      continue;
    matched = false;
    char token = 0;
    guarded(call, "MPI_Sendrecv", [&] {
      return MPI_Sendrecv(&token, 1, MPI_BYTE, p.peer, kCheckDoneTag, &token, 1,
                          MPI_BYTE, p.peer, kCheckDoneTag, p.comm->comm,
                          MPI_STATUS_IGNORE);
    });
  }
  MPI_Waitall(static_cast<int>(sent.size()), sent.data(), MPI_STATUSES_IGNORE);
  return matched ? ncclSuccess : ncclInvalidUsage;
}

/// All-reduce and reduce-scatter (`kind`): `mpi`, MPI_Allreduce or
/// MPI_Reduce_scatter_block (`mpiName`), reduces into `count` elements at
/// `recvbuff`, which ncclAvg then divides by the rank count.
ncclResult_t reduction(CallKind kind, const char *mpiName,
                       decltype(&MPI_Allreduce) mpi, const void *sendbuff,
                       void *recvbuff, size_t count, ncclDataType_t datatype,
                       ncclRedOp_t op, ncclComm_t comm) {
  MPI_Datatype type;
  MPI_Op mop;
  if (!validData(comm, count, datatype, &type) || !mpiOp(op, datatype, &mop))
    return ncclInvalidArgument;
  if (ncclResult_t checked = checkCollective(
          comm, {kind, static_cast<int32_t>(datatype),
                 static_cast<int64_t>(count), -1, static_cast<int32_t>(op)});
      checked != ncclSuccess)
    return checked;
  ncclResult_t result = guarded(callName(kind), mpiName, [&] {
    return mpi(sendbuff, recvbuff, static_cast<int>(count), type, mop,
               comm->comm);
  });
  if (result == ncclSuccess && op == ncclAvg)
    divideBy(recvbuff, count, datatype, comm->size);
  return result;
}

/// All-gather and all-to-all (`kind`): each rank sends `count` elements to
/// every rank through `mpi`, MPI_Allgather or MPI_Alltoall (`mpiName`).
ncclResult_t exchange(CallKind kind, const char *mpiName,
                      decltype(&MPI_Allgather) mpi, const void *sendbuff,
                      void *recvbuff, size_t count, ncclDataType_t datatype,
                      ncclComm_t comm) {
  MPI_Datatype type;
  if (!validData(comm, count, datatype, &type))
    return ncclInvalidArgument;
  if (ncclResult_t checked =
          checkCollective(comm, {kind, static_cast<int32_t>(datatype),
                                 static_cast<int64_t>(count)});
      checked != ncclSuccess)
    return checked;
  int n = static_cast<int>(count);
  return guarded(callName(kind), mpiName, [&] {
    return mpi(sendbuff, n, type, recvbuff, n, type, comm->comm);
  });
}

/// A send or receive (`kind`) to `peer`: `start` begins it with the MPI call
/// `mpi` (MPI_Isend, MPI_Irecv), and it completes (and is checked) here, or
/// at ncclGroupEnd inside a group.
template <typename Start>
ncclResult_t pointToPoint(CallKind kind, const char *mpi, size_t count,
                          ncclDataType_t datatype, int peer, ncclComm_t comm,
                          Start &&start) {
  MPI_Datatype type;
  if (!validData(comm, count, datatype, &type) || peer < 0 ||
      peer >= comm->size)
    return ncclInvalidArgument;
  MPI_Request request;
  int rc = start(type, &request);
  if (rc != MPI_SUCCESS)
    return mpiFailed(mpi, rc);
  PendingCall call{comm,
                   {kind, static_cast<int32_t>(datatype),
                    static_cast<int64_t>(count), peer}};
  if (groupDepth > 0) {
    groupRequests.push_back(request);
    if (checkingCalls())
      groupCalls.push_back(call);
    return ncclSuccess;
  }
  if (checkingCalls())
    if (ncclResult_t checked = checkPointToPoint(callName(kind), {call});
        checked != ncclSuccess)
      return checked;
  return guarded(callName(kind), "MPI_Wait",
                 [&] { return MPI_Wait(&request, MPI_STATUS_IGNORE); });
}

} // namespace

extern "C" {

/// hp-runner calls this when the entry point has returned on this rank.
void hpRuntimeEntryDone() { entryDone = true; }

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error";
  case ncclSystemError:
    return "unhandled system error (MPI)";
  case ncclInternalError:
    return "internal error";
  case ncclInvalidArgument:
    return "invalid argument";
  case ncclInvalidUsage:
    return "invalid usage";
  default:
    return "unknown result";
  }
}

const char *ncclGetLastError(ncclComm_t) { return ""; }

ncclResult_t ncclGetVersion(int *version) {
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  // MPI is the real bootstrap here; the id only has to be well-formed.
  std::memset(id->internal, 0, sizeof(id->internal));
  std::memcpy(id->internal, "hp-nccl-over-mpi", 16);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId,
                              int rank) {
  ensureMPI();
  int size = 0, myRank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &myRank);
  if (size != nranks || myRank != rank) {
    std::fprintf(stderr,
                 "hp: rank %d: ncclCommInitRank(nranks=%d, rank=%d) does not "
                 "match the MPI job (%d ranks)\n",
                 myRank, nranks, rank, size);
    return ncclInvalidArgument;
  }
  auto *c = new ncclComm{MPI_COMM_NULL, myRank, size};
  MPI_Comm_dup(MPI_COMM_WORLD, &c->comm);
  MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
  *comm = c;
  return ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                    ncclUniqueId id, int rank, ncclConfig_t *) {
  return ncclCommInitRank(comm, nranks, id, rank);
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                           ncclComm_t *newcomm, ncclConfig_t *) {
  if (!validComm(comm))
    return ncclInvalidArgument;
  if (ncclResult_t checked = checkCollective(comm, {CallKind::CommSplit});
      checked != ncclSuccess)
    return checked;
  MPI_Comm split;
  int rc = MPI_Comm_split(comm->comm,
                          color == NCCL_SPLIT_NOCOLOR ? MPI_UNDEFINED : color,
                          key, &split);
  if (rc != MPI_SUCCESS)
    return mpiFailed("MPI_Comm_split", rc);
  if (split == MPI_COMM_NULL) {
    *newcomm = nullptr;
    return ncclSuccess;
  }
  auto *c = new ncclComm{split, 0, 0};
  MPI_Comm_rank(split, &c->rank);
  MPI_Comm_size(split, &c->size);
  MPI_Comm_set_errhandler(split, MPI_ERRORS_RETURN);
  *newcomm = c;
  return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t) { return ncclSuccess; }

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm->comm != MPI_COMM_NULL)
    MPI_Comm_free(&comm->comm);
  delete comm;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  MPI_Abort(validComm(comm) ? comm->comm : MPI_COMM_WORLD, 1);
  return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t, ncclResult_t *asyncError) {
  *asyncError = ncclSuccess;
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  if (!validComm(comm))
    return ncclInvalidArgument;
  *count = comm->size;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  if (!validComm(comm))
    return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t, int *device) {
  *device = -1; // host memory
  return ncclSuccess;
}

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t) {
  return reduction(CallKind::AllReduce, "MPI_Allreduce", MPI_Allreduce,
                   sendbuff == recvbuff ? MPI_IN_PLACE : sendbuff, recvbuff,
                   count, datatype, op, comm);
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
                               size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t) {
  return reduction(CallKind::ReduceScatter, "MPI_Reduce_scatter_block",
                   MPI_Reduce_scatter_block, sendbuff, recvbuff, recvcount,
                   datatype, op, comm);
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                           size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t) {
  return exchange(CallKind::AllGather, "MPI_Allgather", MPI_Allgather, sendbuff,
                  recvbuff, sendcount, datatype, comm);
}

ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, ncclComm_t comm,
                          cudaStream_t) {
  return exchange(CallKind::AlltoAll, "MPI_Alltoall", MPI_Alltoall, sendbuff,
                  recvbuff, count, datatype, comm);
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t) {
  MPI_Datatype type;
  if (!validData(comm, count, datatype, &type) || root < 0 ||
      root >= comm->size)
    return ncclInvalidArgument;
  if (ncclResult_t checked = checkCollective(
          comm, {CallKind::Broadcast, static_cast<int32_t>(datatype),
                 static_cast<int64_t>(count), root});
      checked != ncclSuccess)
    return checked;
  if (comm->rank == root && sendbuff != recvbuff)
    std::memcpy(recvbuff, sendbuff, count * dataType(datatype)->size);
  return guarded("ncclBroadcast", "MPI_Bcast", [&] {
    return MPI_Bcast(recvbuff, static_cast<int>(count), type, root, comm->comm);
  });
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype,
                       int root, ncclComm_t comm, cudaStream_t stream) {
  return ncclBroadcast(buff, buff, count, datatype, root, comm, stream);
}

ncclResult_t ncclSend(const void *sendbuff, size_t count,
                      ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t) {
  return pointToPoint(CallKind::Send, "MPI_Isend", count, datatype, peer, comm,
                      [&](MPI_Datatype type, MPI_Request *request) {
                        return MPI_Isend(sendbuff, static_cast<int>(count),
                                         type, peer, /*tag=*/0, comm->comm,
                                         request);
                      });
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
                      int peer, ncclComm_t comm, cudaStream_t) {
  return pointToPoint(CallKind::Recv, "MPI_Irecv", count, datatype, peer, comm,
                      [&](MPI_Datatype type, MPI_Request *request) {
                        return MPI_Irecv(recvbuff, static_cast<int>(count),
                                         type, peer, /*tag=*/0, comm->comm,
                                         request);
                      });
}

ncclResult_t ncclGroupStart() {
  ++groupDepth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (groupDepth == 0)
    return ncclInvalidUsage;
  if (--groupDepth > 0)
    return ncclSuccess;
  std::vector<MPI_Request> requests;
  requests.swap(groupRequests);
  std::vector<PendingCall> calls;
  calls.swap(groupCalls);
  if (!calls.empty())
    if (ncclResult_t checked = checkPointToPoint("ncclGroupEnd", calls);
        checked != ncclSuccess)
      return checked;
  return guarded("ncclGroupEnd", "MPI_Waitall", [&] {
    return MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                       MPI_STATUSES_IGNORE);
  });
}

} // extern "C"
