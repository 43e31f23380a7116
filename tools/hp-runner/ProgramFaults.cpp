//===- ProgramFaults.cpp - report a rank's fault in the user's program ----===//
//
// Once hp-runner starts the user's program, a SIGSEGV or SIGFPE is the
// program's fault, not a bug in LLVM: LLVM's crash banner ("PLEASE submit a
// bug report to llvm-project") would send the user the wrong way. The
// handler installed here names the rank and the signal, then chains to
// LLVM's handler for the stack trace (with the banner emptied) and ends the
// process with the signal, so mpirun and the shell still see it.
//
//===----------------------------------------------------------------------===//

#include "ProgramFaults.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/PrettyStackTrace.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace {

constexpr int kFaultSignals[] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT};
constexpr int kNumFaultSignals = sizeof(kFaultSignals) / sizeof(int);

/// The handlers before ours (LLVM's), by index into kFaultSignals.
struct sigaction previousActions[kNumFaultSignals];

/// "hp-runner: rank R: <signal> in the program (...)\n" by index into
/// kFaultSignals, built before any fault: the handler may only call
/// async-signal-safe functions, and one write keeps the line whole among
/// other ranks' output.
char reports[kNumFaultSignals][192];

const char *describe(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV in the program (an invalid memory access)\n";
  case SIGFPE:
    return "SIGFPE in the program (an arithmetic fault, such as an integer "
           "division by zero)\n";
  case SIGBUS:
    return "SIGBUS in the program (a misaligned or unmapped memory "
           "access)\n";
  case SIGILL:
    return "SIGILL in the program (an illegal instruction)\n";
  default:
    return "SIGABRT in the program (it aborted, e.g. on a failed "
           "assertion)\n";
  }
}

void writeAll(const char *text) {
  size_t length = std::strlen(text);
  while (length > 0) {
    ssize_t n = write(STDERR_FILENO, text, length);
    if (n <= 0)
      return;
    text += n;
    length -= static_cast<size_t>(n);
  }
}

void onFault(int sig, siginfo_t *info, void *context) {
  for (int i = 0; i < kNumFaultSignals; ++i) {
    if (kFaultSignals[i] != sig)
      continue;
    writeAll(reports[i]);
    const struct sigaction &previous = previousActions[i];
    if (previous.sa_flags & SA_SIGINFO) {
      if (previous.sa_sigaction)
        previous.sa_sigaction(sig, info, context);
    } else if (previous.sa_handler != SIG_DFL &&
               previous.sa_handler != SIG_IGN) {
      previous.sa_handler(sig);
    }
  }
  // The previous handler may have returned (LLVM's does, expecting the
  // fault to repeat): end the process with the signal in any case.
  signal(sig, SIG_DFL);
  raise(sig);
  _exit(128 + sig);
}

/// This process's rank as the launcher set it (0 for a single rank).
llvm::StringRef launcherRank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "HP_RANK"}) {
    const char *text = std::getenv(name);
    unsigned rank;
    if (text && !llvm::StringRef(text).getAsInteger(10, rank))
      return text;
  }
  return "0";
}

} // namespace

void hp::runner::reportProgramFaults() {
  llvm::StringRef rank = launcherRank().take_front(16);
  for (int i = 0; i < kNumFaultSignals; ++i) {
    std::string text =
        "hp-runner: rank " + rank.str() + ": " + describe(kFaultSignals[i]);
    std::strncpy(reports[i], text.c_str(), sizeof(reports[i]) - 1);
  }
  // The stack trace LLVM's handler prints is useful; its banner is not.
  llvm::setBugReportMsg("");
  for (int i = 0; i < kNumFaultSignals; ++i) {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_sigaction = onFault;
    // On the alternate stack LLVM set up, so that a stack overflow is
    // reported too; reset so that a fault in the handler ends the process.
    action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(kFaultSignals[i], &action, &previousActions[i]);
  }
}
