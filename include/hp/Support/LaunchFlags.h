//===- LaunchFlags.h - the flags that fix a launch --------------*- C++ -*-===//
//
// hp-runner's -np N sets how many ranks run, and the ranks run on this
// machine (each reads the module hp-runner lowered into a local file). The
// mpirun flags that would change either are refused wherever a caller hands
// flags on: hp-runner's --mpirun-args, and hp.run's and hp.torch's
// extra_args (through the Python extension), which also fix the entry point.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_LAUNCHFLAGS_H
#define HP_SUPPORT_LAUNCHFLAGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace hp {

/// The mpirun flag `word` gives when it sets the number of processes or
/// where they run: -np, -n, -c, -N and their long forms, alone, with `=N` or
/// with the count attached (-n4); the hosts, the processes per node or
/// socket and the application (--host, -H, --hostfile, --machinefile,
/// --default-hostfile, --rankfile, -rf, --npernode, --npersocket, --app,
/// with one dash or two), alone or with `=VALUE`. Mapping and binding on
/// this machine (--map-by, --bind-to) stay the caller's.
std::optional<llvm::StringRef> mpirunLaunchFlag(llvm::StringRef word);

/// The first flag among hp-runner arguments `args` that a launcher (hp.run)
/// sets itself: hp-runner's -np and entry point (-e, --entry-point-result),
/// any mpirunLaunchFlag, and those flags among the words of
/// --mpirun-args=WORDS (or --mpirun-args WORDS); nullopt when there is none.
std::optional<std::string> launcherOwnedFlag(llvm::ArrayRef<std::string> args);

} // namespace hp

#endif // HP_SUPPORT_LAUNCHFLAGS_H
