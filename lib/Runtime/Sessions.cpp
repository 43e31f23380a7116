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

#include "hp/Runtime/Runtime.h"

#include "EnsureMPI.h"
#include "EnvParse.h"
#include "Watchdog.h"

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <string>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vector>

namespace {
using hp::runtime::failWith;

/// What `hp_session_next` broadcasts besides call numbers (Runtime.h).
constexpr int64_t kStop = HP_SESSION_STOP;
constexpr int64_t kFetchState = HP_SESSION_FETCH_STATE;
/// Answered inside the runtime, never seen by the driver: every rank's peak
/// resident memory, written by rank 0 into the request's directory.
constexpr int64_t kPeakMemory = HP_SESSION_PEAK_MEMORY;

/// Rank 0's ends of the two FIFOs, opened on the first request.
int requests = -1, replies = -1;
/// The request being served (its number: a call's, or a state fetch's),
/// and what was read past its line.
int64_t current = kStop;
/// The entry the current call names (0: the driver's main one).
int64_t currentEntry = 0;
/// Whether the driver asked which entry the current call runs (a driver
/// with one entry never does).
bool entryAsked = false;
std::string pending;

/// Opens the FIFO `name` of the session directory for reading and writing
/// (so that it never reports end-of-file while the client reopens it).
int openFifo(const std::string &directory, const char *name) {
  std::string path = directory + "/" + name;
  int fd = ::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    failWith("cannot open the session's " + path + ": " + std::strerror(errno) +
             " (is HP_TENSOR_DIR a session directory?)");
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
    failWith("the session's " + path + " is not a FIFO");
  return fd;
}

/// The client's process id (HP_SESSION_CLIENT), or 0 when none is named.
pid_t clientPid() {
  const char *env = std::getenv(HP_ENV_SESSION_CLIENT);
  int64_t pid = 0;
  if (env && !hp::runtime::parseInt(env, 1, INT32_MAX, pid))
    failWith(std::string("HP_SESSION_CLIENT must be a process id, got '") +
             env + "'");
  return static_cast<pid_t>(pid);
}

/// Whether the client has ended: no such process, or a zombie (dead, its
/// parent not told yet).
bool clientIsGone(pid_t pid) {
  if (pid == 0)
    return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH)
    return true;
  std::string stat;
  if (std::FILE *f =
          std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r")) {
    char buffer[512];
    size_t n = std::fread(buffer, 1, sizeof buffer, f);
    std::fclose(f);
    stat.assign(buffer, n);
  }
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() &&
         stat[paren + 2] == 'Z';
}

/// A request's number as the client writes it: decimal digits without a
/// sign or a leading zero ("00" or "+1" name no request: a number has one
/// spelling, so the reply that echoes it is the client's own).
bool parseCanonical(const std::string &text, int64_t max, int64_t &value) {
  return hp::runtime::parseInt(text, 0, max, value) &&
         text == std::to_string(value);
}

int removeEntry(const char *path, const struct stat *, int, struct FTW *) {
  ::remove(path);
  return 0;
}

/// Where the requests' own directories are: $HP_SESSION_CALLS when set (a
/// client may keep them apart from the parameters, on a RAM file system),
/// else the session directory.
std::string callsDirectory(const std::string &sessionDirectory) {
  const char *calls = std::getenv(HP_ENV_SESSION_CALLS);
  return calls && *calls ? std::string(calls) : sessionDirectory;
}

/// Rank 0: the next request line (`<n>`: call n; `state <n>`: write the
/// resident state into <n>/; `stop`), waiting at most HP_TIMEOUT_S; sets
/// `current` to n. A client that ended without stopping the session stops
/// it: the ranks end, and its directory goes when the client asked for
/// that (HP_SESSION_REMOVE_DIR=1).
int64_t nextRequest(const std::string &directory) {
  if (requests < 0) {
    requests = openFifo(directory, HP_SESSION_REQUESTS);
    replies = openFifo(directory, HP_SESSION_REPLIES);
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
        const char *remove = std::getenv(HP_ENV_SESSION_REMOVE_DIR);
        bool removing = remove && std::string(remove) == "1";
        std::string calls = callsDirectory(directory);
        std::string removed =
            calls == directory ? directory : directory + " and " + calls;
        std::fprintf(stderr,
                     "hp: the session's client (pid %d) ended without "
                     "closing it: the ranks end%s%s\n",
                     static_cast<int>(client), removing ? " and remove " : "",
                     removing ? removed.c_str() : "");
        if (removing) {
          ::nftw(directory.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
          ::nftw(calls.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS);
        }
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
  bool fetch = line.rfind("state ", 0) == 0;
  bool memory = line.rfind("memory ", 0) == 0;
  std::string number = fetch ? line.substr(6) : memory ? line.substr(7) : line;
  // A call may name an entry: '<n> <k>'.
  int64_t entryIndex = 0;
  size_t space = number.find(' ');
  bool entryOk = true;
  if (!fetch && !memory && space != std::string::npos) {
    entryOk = parseCanonical(number.substr(space + 1), INT32_MAX, entryIndex);
    number.resize(space);
  }
  int64_t call = 0;
  if (!entryOk || !parseCanonical(number, INT64_MAX, call))
    failWith("hp_session_next: a request is '<n>', '<n> <entry>', "
             "'state <n>', 'memory <n>' or 'stop' (n a request number, entry "
             "an entry's index, both in decimal without a sign or a leading "
             "zero), got '" +
             line + "'");
  current = call;
  currentEntry = entryIndex;
  return fetch ? kFetchState : memory ? kPeakMemory : call;
}

/// Broadcasts rank 0's `request` without spinning: the other ranks wait
/// for the client's next call, which may take seconds, and a busy MPI_Bcast
/// would burn their cores meanwhile (on a shared or oversubscribed machine,
/// the cores the client and rank 0 need). They test the broadcast and sleep
/// in between, from 2 us growing to 20 us for the first few milliseconds (a
/// client calling in a loop sends its next request within about a
/// millisecond: short sleeps keep that wait short), then up to 0.2 ms (an
/// idle session wakes a few thousand times a second and costs no core).
void waitForBroadcast(int64_t request[3]) {
  constexpr long kHotNs = 20000, kIdleNs = 200000;
  constexpr double kHotSeconds = 0.005;
  // Linux stretches each sleep by the thread's timer slack (50 us by
  // default), which would dwarf the short ones: 1 us instead.
  static const bool slackSet = ::prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0) == 0;
  (void)slackSet;
  MPI_Request pending;
  MPI_Ibcast(request, 3, MPI_INT64_T, 0, MPI_COMM_WORLD, &pending);
  double start = MPI_Wtime();
  int done = 0;
  for (long sleepNs = 2000;;) {
    MPI_Test(&pending, &done, MPI_STATUS_IGNORE);
    if (done)
      return;
    struct timespec t = {0, sleepNs};
    ::nanosleep(&t, nullptr);
    long cap = MPI_Wtime() - start < kHotSeconds ? kHotNs : kIdleNs;
    sleepNs = std::min(sleepNs * 2, cap);
  }
}

/// Rank 0 writes every rank's peak resident set (bytes, a line per rank)
/// to memory.txt in `directory`.
void writePeakMemory(const std::string &directory) {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  int64_t peak = static_cast<int64_t>(usage.ru_maxrss) * 1024; // KiB
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int64_t> peaks(rank == 0 ? size : 0);
  hp::runtime::watchdogStart("hp_session_next (gathering peak memory)",
                             "a rank is stopped or hung");
  MPI_Gather(&peak, 1, MPI_INT64_T, peaks.data(), 1, MPI_INT64_T, 0,
             MPI_COMM_WORLD);
  hp::runtime::watchdogStop();
  if (rank != 0)
    return;
  std::string path = directory + "/" HP_SESSION_PEAK_MEMORY_FILE;
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (!f)
    failWith("cannot create " + path + ": " + std::strerror(errno));
  for (int64_t p : peaks)
    std::fprintf(f, "%lld\n", static_cast<long long>(p));
  if (std::fclose(f) != 0)
    failWith("cannot write " + path + ": " + std::strerror(errno));
}
} // namespace

extern "C" {
/// The next request, the same on every rank: a call's number (its
/// arguments are in <calls>/<n>/, where its results go; <calls> is
/// $HP_SESSION_CALLS, by default $HP_TENSOR_DIR), -2 to write
/// the resident state into the request's directory, or -1 when the session
/// ends. Peak-memory requests are answered here.
int64_t hp_session_next() {
  hp::runtime::ensureMPI();
  std::string directory = hp::runtime::tensorDirectory();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (;;) {
    int64_t request[3] = {rank == 0 ? nextRequest(directory) : 0, current,
                          currentEntry};
    waitForBroadcast(request);
    current = request[1];
    currentEntry = request[2];
    entryAsked = false;
    std::string callDirectory =
        callsDirectory(directory) + "/" + std::to_string(current);
    hp::runtime::setCallDirectory(request[0] == kStop ? std::string()
                                                      : callDirectory);
    if (request[0] == kStop)
      current = kStop;
    if (request[0] != kPeakMemory)
      return request[0];
    writePeakMemory(callDirectory);
    hp_session_done();
  }
}

/// The entry the current call runs: 0 for the driver's main function, i
/// for its i-th extra entry (the request '<n> <i>'); `count` entries exist.
int64_t hp_session_entry(int64_t count) {
  entryAsked = true;
  if (currentEntry >= count)
    failWith("hp_session_entry: request " + std::to_string(current) +
             " names entry " + std::to_string(currentEntry) +
             ", but the program serves " +
             (count == 1 ? std::string("one entry (0)")
                         : std::to_string(count) + " (0 to " +
                               std::to_string(count - 1) + ")"));
  return currentEntry;
}

/// Rank 0 tells the client that the current request's results (or the
/// state) are written, once every rank is done with its directory (the
/// client removes it when answered).
void hp_session_done() {
  // A driver that never asks which entry runs (built before entries
  // existed) serves one.
  if (currentEntry != 0 && !entryAsked)
    failWith("hp_session_next: request " + std::to_string(current) +
             " names entry " + std::to_string(currentEntry) +
             ", but the program serves one entry (0)");
  // Every rank is busy with the call until here, so a wait past
  // HP_TIMEOUT_S means a rank stopped or hung (idle waits are the
  // request's, in hp_session_next).
  hp::runtime::watchdogStart(
      "hp_session_done (waiting for every rank to finish the call)",
      "a rank is stopped or hung");
  MPI_Barrier(MPI_COMM_WORLD);
  hp::runtime::watchdogStop();
  if (hp::runtime::worldRank() != 0 || current == kStop)
    return;
  std::string line = std::to_string(current) + "\n";
  hp::runtime::watchdogStart("hp_session_done (answering the client)",
                             "the client stopped reading the replies");
  for (size_t done = 0; done < line.size();) {
    ssize_t n = ::write(replies, line.data() + done, line.size() - done);
    if (n < 0 && errno == EAGAIN) {
      struct pollfd p = {replies, POLLOUT, 0};
      ::poll(&p, 1, /*ms=*/200);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      failWith(std::string("hp_session_done: cannot answer the client: ") +
               std::strerror(errno));
    done += n;
  }
  hp::runtime::watchdogStop();
}
}
