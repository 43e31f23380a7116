//===- Watchdog.h - HP_TIMEOUT_S over any blocking runtime call -*- C++ -*-===//
//
// A collective or a file read that never returns would hang the job. The
// watchdog thread ends the process when the call it times outlives
// HP_TIMEOUT_S, naming the call and a likely cause. Defined in Watchdog.cpp
// (libhp_runtime_host, which both runtimes link).
//
//===----------------------------------------------------------------------===//

#ifndef HP_RUNTIME_WATCHDOG_H
#define HP_RUNTIME_WATCHDOG_H

namespace hp::runtime {

/// Starts timing `what` (static text): past HP_TIMEOUT_S the process prints
/// `hp: rank R: <what> timed out after T s (HP_TIMEOUT_S); <hint>` and exits
/// with status 3. One call at a time.
void watchdogStart(const char *what, const char *hint);

/// Ends the call watchdogStart began.
void watchdogStop();

} // namespace hp::runtime

#endif // HP_RUNTIME_WATCHDOG_H
