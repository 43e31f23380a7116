//===- Watchdog.cpp - HP_TIMEOUT_S over any blocking runtime call ---------===//
//
// One detached thread per process checks the call in progress (a
// collective of the host NCCL library, a file read, a session's barrier)
// and ends the process when it outlives HP_TIMEOUT_S, naming the call, the
// rank and a likely cause: a stuck job becomes an error. Part of the host
// runtime both the CPU and the GPU runtimes link.
//
//===----------------------------------------------------------------------===//

#include "Watchdog.h"

#include "EnvParse.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace {

/// The largest HP_TIMEOUT_S: one week. No collective legitimately takes
/// longer, and a bound keeps "never time out" an explicit, visible choice.
constexpr double kMaxTimeoutSeconds = 7 * 24 * 3600;

/// Seconds one call may take before the watchdog ends the job:
/// HP_TIMEOUT_S, a positive finite number up to kMaxTimeoutSeconds, default
/// 60; null `*error` unless the variable is malformed (then its text).
double parseTimeout(const char **error) {
  const char *env = std::getenv("HP_TIMEOUT_S");
  *error = nullptr;
  if (!env)
    return 60.0;
  double t;
  if (!hp::runtime::parseSeconds(env, kMaxTimeoutSeconds, t)) {
    *error = env;
    return 0;
  }
  return t;
}

/// A malformed HP_TIMEOUT_S makes the library refuse to start (checked when
/// it is loaded, before any call could need it).
struct StartupCheck {
  StartupCheck() {
    const char *bad;
    parseTimeout(&bad);
    if (!bad)
      return;
    std::fprintf(stderr,
                 "hp: HP_TIMEOUT_S must be a positive number of seconds, at "
                 "most %.0f (one week), got '%s'\n",
                 kMaxTimeoutSeconds, bad);
    std::fflush(stderr);
    _exit(2);
  }
} startupCheck;

double timeoutSeconds() {
  static double t = [] {
    const char *bad;
    return parseTimeout(&bad);
  }();
  return t;
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// The call in progress, when it started (0: none) and what the timeout
/// message suggests. The thread only reads them; MPI is never called from
/// it.
std::atomic<double> callStart{0};
std::atomic<const char *> runningCall{nullptr};
std::atomic<const char *> runningHint{nullptr};

void watchdog() {
  for (;;) {
    double limit = timeoutSeconds();
    std::this_thread::sleep_for(std::chrono::duration<double>(
        std::min(1.0, std::max(0.01, limit / 20))));
    double start = callStart.load();
    if (start > 0 && now() - start > limit) {
      std::fprintf(stderr,
                   "hp: rank %d: %s timed out after %.1f s (HP_TIMEOUT_S); "
                   "%s\n",
                   hp::runtime::worldRank(), runningCall.load(), now() - start,
                   runningHint.load());
      std::fflush(stderr);
      _exit(3); // mpirun then stops the other ranks
    }
  }
}

} // namespace

void hp::runtime::watchdogStart(const char *what, const char *hint) {
  static std::once_flag started;
  std::call_once(started, [] { std::thread(watchdog).detach(); });
  runningCall = what;
  runningHint = hint;
  callStart = now();
}

void hp::runtime::watchdogStop() { callStart = 0; }
