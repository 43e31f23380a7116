//===- ProgramFaults.h - a rank's fault in the program ----------*- C++ -*-===//
//
// hp-runner's report of a signal the user's program raises on a rank.
//
//===----------------------------------------------------------------------===//

#ifndef HP_TOOLS_HP_RUNNER_PROGRAMFAULTS_H
#define HP_TOOLS_HP_RUNNER_PROGRAMFAULTS_H

namespace hp::runner {

/// From now on, SIGSEGV, SIGFPE, SIGBUS, SIGILL and SIGABRT print
/// `hp-runner: rank R: <signal> in the program (...)` and a stack trace,
/// without LLVM's bug-report banner, and end the process with the signal.
/// Call after llvm::InitLLVM and just before the program runs.
void reportProgramFaults();

} // namespace hp::runner

#endif // HP_TOOLS_HP_RUNNER_PROGRAMFAULTS_H
