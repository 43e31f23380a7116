//===- Sessions.cpp - a driver that serves calls until it is stopped -----===//
//
// A session keeps its ranks, its compiled program and its parameters between
// calls. The driver (dtensor-add-driver{session-inputs=K}) loops on
// hp_session_next: rank 0 waits for the client's next request on a FIFO in
// the session directory ($HP_TENSOR_DIR), broadcasts it, and every rank
// reads that call's arguments from the call's own directory; rank 0 writes
// the results there and answers on a second FIFO. docs/Runtime.md,
// "Sessions", is the protocol.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "EnvParse.h"
#include "Watchdog.h"

#include <mpi.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {
using hp::runtime::failWith;

/// What `hp_session_next` broadcasts besides call numbers: "no more calls",
/// and "write the resident state" (into the directory `state`).
constexpr int64_t kStop = -1;
constexpr int64_t kFetchState = -2;

/// Rank 0's ends of the two FIFOs, opened on the first request.
int requests = -1, replies = -1;
/// The request being served, and what was read past its line.
int64_t current = kStop;
std::string pending;

/// Opens the FIFO `name` of the session directory for reading and writing
/// (so that it never reports end-of-file while the client reopens it).
int openFifo(const std::string &directory, const char *name) {
  std::string path = directory + "/" + name;
  int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    failWith("cannot open the session's " + path + ": " +
             std::strerror(errno) + " (is HP_TENSOR_DIR a session directory?)");
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
    failWith("the session's " + path + " is not a FIFO");
  return fd;
}

/// The client's process id (HP_SESSION_CLIENT), or 0 when none is named.
pid_t clientPid() {
  const char *env = std::getenv("HP_SESSION_CLIENT");
  int64_t pid = 0;
  if (env && !hp::runtime::parseInt(env, 1, INT32_MAX, pid))
    failWith(std::string("HP_SESSION_CLIENT must be a process id, got '") +
             env + "'");
  return static_cast<pid_t>(pid);
}

bool clientIsGone(pid_t pid) {
  return pid != 0 && ::kill(pid, 0) != 0 && errno == ESRCH;
}

int removeEntry(const char *path, const struct stat *, int, struct FTW *) {
  ::remove(path);
  return 0;
}

/// Rank 0: the next request line (a call number, or `stop`), waiting at
/// most HP_TIMEOUT_S. A client that ended without stopping the session
/// stops it: the ranks end and its directory goes.
int64_t nextRequest(const std::string &directory) {
  if (requests < 0) {
    requests = openFifo(directory, "requests");
    replies = openFifo(directory, "replies");
  }
  pid_t client = clientPid();
  hp::runtime::watchdogStart(
      "hp_session_next (waiting for the session's next call)",
      "the session was idle that long: its client called neither it nor "
      "close(); raise HP_TIMEOUT_S for longer pauses");
  size_t newline;
  while ((newline = pending.find('\n')) == std::string::npos) {
    struct pollfd p = {requests, POLLIN, 0};
    int ready = ::poll(&p, 1, /*ms=*/200);
    if (ready < 0 && errno != EINTR)
      failWith(std::string("hp_session_next: poll failed: ") +
               std::strerror(errno));
    if (ready <= 0) {
      if (clientIsGone(client)) {
        hp::runtime::watchdogStop();
        std::fprintf(stderr,
                     "hp: the session's client (pid %d) ended without "
                     "closing it: the ranks end and %s is removed\n",
                     static_cast<int>(client), directory.c_str());
        ::nftw(directory.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
        return kStop;
      }
      continue;
    }
    char buffer[256];
    ssize_t n = ::read(requests, buffer, sizeof buffer);
    if (n > 0)
      pending.append(buffer, n);
    else if (n < 0 && errno != EAGAIN && errno != EINTR)
      failWith(std::string("hp_session_next: cannot read the requests: ") +
               std::strerror(errno));
  }
  hp::runtime::watchdogStop();
  std::string line = pending.substr(0, newline);
  pending.erase(0, newline + 1);
  if (line == "stop")
    return kStop;
  if (line == "state")
    return kFetchState;
  int64_t call = 0;
  if (!hp::runtime::parseInt(line, 0, INT64_MAX, call))
    failWith("hp_session_next: a request is a call number, 'state' or 'stop', got '" +
             line + "'");
  return call;
}

void ensureMPI() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  }
}
} // namespace

extern "C" {
/// The next call's number (its arguments are in $HP_TENSOR_DIR/<number>/,
/// where its results go), -2 to write the resident state into
/// $HP_TENSOR_DIR/state/, or -1 when the session ends; the same on every
/// rank.
int64_t hp_session_next() {
  ensureMPI();
  std::string directory = hp::runtime::tensorDirectory();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int64_t call = rank == 0 ? nextRequest(directory) : 0;
  MPI_Bcast(&call, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  current = call;
  hp::runtime::setCallDirectory(
      call == kStop         ? std::string()
      : call == kFetchState ? directory + "/state"
                            : directory + "/" + std::to_string(call));
  return call;
}

/// Rank 0 tells the client that the current call's results (or the state)
/// are written.
void hp_session_done() {
  if (hp::runtime::worldRank() != 0 || current == kStop)
    return;
  std::string line =
      (current == kFetchState ? std::string("state") : std::to_string(current)) +
      "\n";
  for (size_t done = 0; done < line.size();) {
    ssize_t n = ::write(replies, line.data() + done, line.size() - done);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n <= 0)
      failWith(std::string("hp_session_done: cannot answer the client: ") +
               std::strerror(errno));
    done += n;
  }
}
}
