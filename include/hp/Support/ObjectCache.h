//===- ObjectCache.h - On-disk cache of compiled programs -------*- C++ -*-===//
//
// hp-runner compiles a program once per job into one object that every rank
// loads, and keeps that object in a directory per node, as torch.compile and
// JAX keep theirs: a second job of the same program skips parsing, lowering
// and code generation. The key covers everything the object depends on; an
// entry is written to a temporary name and renamed, so a reader sees a whole
// object or none.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_OBJECTCACHE_H
#define HP_SUPPORT_OBJECTCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hp {

/// Everything a compiled program depends on. Each field is hashed under its
/// own name, so moving text from one field to another changes the key.
struct ObjectCacheKeyParts {
  /// The program as given (text or bytecode), and its name: source
  /// locations, which run-time checks print, carry the name.
  llvm::StringRef input, inputName;
  /// The options that shape the object: the entry point and its result, the
  /// optimization level, --check-bounds, and any other flag on the command
  /// line.
  std::vector<std::string> options;
  /// `cpu` or `gpu`, and the GPU chip (empty on CPUs).
  std::string target, chip;
  /// The host: its triple, CPU name and CPU features (`+avx2,-avx512f,...`).
  std::string triple, cpuName, cpuFeatures;
  /// The libraries the program is linked against (hp's runtimes, the
  /// contraction library they chose), each named by path, size and time.
  std::vector<std::string> libraries;
  /// The compiler: hp's version and revision, LLVM's version, and the
  /// identity (path, size, time) of the executable that compiles.
  std::string compiler;
};

/// The key of `parts`: 64 hexadecimal digits (SHA-256).
std::string objectCacheKey(const ObjectCacheKeyParts &parts);

/// `path` named by its size and modification time, for the key's
/// `libraries` and `compiler`: a rebuild changes it without hashing the file.
std::string fileIdentity(llvm::StringRef path);

/// Where the cache is and how large it may grow.
struct ObjectCacheSettings {
  /// $HP_CACHE_DIR, else $XDG_CACHE_HOME/hp/objects, else
  /// ~/.cache/hp/objects; made absolute.
  std::string directory;
  /// $HP_CACHE_MAX_MB megabytes (default 2048): beyond it the least recently
  /// used entries go.
  uint64_t maxBytes = 0;
  /// How often a store scans the directory to prune it.
  std::chrono::seconds pruneInterval = std::chrono::minutes(20);
};

/// The settings from the environment; none when HP_CACHE is 0, off or no.
/// An error names a malformed variable.
llvm::Expected<std::optional<ObjectCacheSettings>> objectCacheSettings();

/// Refuses a cache directory another user could write to (an entry is code
/// that runs as whoever loads it): one not owned by this user, or writable
/// by its group or others. A directory that does not exist yet passes (it is
/// created readable by its owner only).
llvm::Error checkObjectCacheDirectory(llvm::StringRef directory);

/// The entry's file in `directory`.
std::string objectCachePath(llvm::StringRef directory, llvm::StringRef key);

/// A cache entry: the object, and what its compile printed (warnings,
/// remarks), which a hit prints again, as a compiler cache replays a
/// compiler's output.
struct CachedObject {
  std::unique_ptr<llvm::MemoryBuffer> object;
  std::string diagnostics;
};

/// The entry stored under `key`, or none (also for an entry that is not
/// whole). A hit refreshes the entry's access time, which pruning goes by.
std::optional<CachedObject> lookupObject(llvm::StringRef directory,
                                         llvm::StringRef key);

/// Stores `object` and the `diagnostics` its compile printed under `key`:
/// written to a temporary file in the directory
/// (created if missing), then renamed into place. Returns the entry's path.
/// Prunes the directory first (at most every `settings.pruneInterval`): entries
/// unused for a week go, and the least recently used go while it holds more
/// than `settings.maxBytes`.
llvm::Expected<std::string> storeObject(const ObjectCacheSettings &settings,
                                        llvm::StringRef key,
                                        llvm::StringRef object,
                                        llvm::StringRef diagnostics = "");

} // namespace hp

#endif // HP_SUPPORT_OBJECTCACHE_H
