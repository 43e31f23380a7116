//===- LaunchFlags.cpp - the flags that fix a launch ----------------------===//

#include "hp/Support/LaunchFlags.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

std::optional<llvm::StringRef> hp::mpirunLaunchFlag(llvm::StringRef word) {
  llvm::StringRef name = word.split('=').first;
  // Open MPI's process counts take the count attached too (-n4, -np4).
  for (llvm::StringRef flag :
       {"--np", "--n", "--c", "--N", "-np", "-n", "-c", "-N"}) {
    if (!name.starts_with(flag))
      continue;
    llvm::StringRef count = name.drop_front(flag.size());
    if (count.empty() || llvm::all_of(count, llvm::isDigit))
      return flag;
  }
  // The hosts and the application: Open MPI takes one dash or two.
  llvm::StringRef bare = name;
  if (!bare.consume_front("--"))
    bare.consume_front("-");
  for (llvm::StringRef flag :
       {"host", "hostfile", "machinefile", "default-hostfile", "rankfile",
        "npernode", "npersocket", "app"})
    if (bare == flag)
      return name;
  for (llvm::StringRef flag : {"-H", "-rf"})
    if (name == flag)
      return flag;
  return std::nullopt;
}

std::optional<std::string>
hp::launcherOwnedFlag(llvm::ArrayRef<std::string> args) {
  for (auto [i, arg] : llvm::enumerate(args)) {
    auto [name, value] = llvm::StringRef(arg).split('=');
    bool attached = llvm::StringRef(arg).contains('=');
    if (name == "--mpirun-args" || name == "-mpirun-args") {
      // mpirun's words, attached or the next argument.
      if (!attached && i + 1 < args.size())
        value = args[i + 1];
      llvm::SmallVector<llvm::StringRef> words;
      llvm::SplitString(value, words);
      for (llvm::StringRef w : words)
        if (auto flag = mpirunLaunchFlag(w))
          return flag->str();
      continue;
    }
    for (llvm::StringRef flag : {"-e", "--entry-point-result"})
      if (name == flag)
        return flag.str();
    if (auto flag = mpirunLaunchFlag(arg))
      return flag->str();
  }
  return std::nullopt;
}
