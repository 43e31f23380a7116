//===- ObjectCacheTest.cpp - The compiled-program cache's key and files ---===//

#include "hp/Support/ObjectCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <functional>
#include <set>

using namespace hp;

namespace {

ObjectCacheKeyParts sampleParts() {
  ObjectCacheKeyParts parts;
  parts.input = "func.func @main() { return }";
  parts.inputName = "main.mlir";
  parts.options = {"-e", "main"};
  parts.target = "cpu";
  parts.triple = "x86_64-unknown-linux-gnu";
  parts.cpuName = "znver3";
  parts.cpuFeatures = "+avx2,-avx512f";
  parts.libraries = {"/lib/libhp_runtime_cpu.so 62216 1"};
  parts.compiler = "hp 0.1 (git abc), LLVM 22.1.0, /bin/hp-runner 1 2";
  return parts;
}

TEST(ObjectCacheTest, KeyIsSha256Hex) {
  std::string key = objectCacheKey(sampleParts());
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key, objectCacheKey(sampleParts()));
}

/// Item 4 of the compile issue: the key covers the module, the options, the
/// target and chip, the CPU features, the libraries and hp's version. Each
/// change must miss.
TEST(ObjectCacheTest, EveryPartChangesTheKey) {
  std::vector<std::function<void(ObjectCacheKeyParts &)>> changes = {
      [](ObjectCacheKeyParts &p) { p.input = "func.func @main() {}"; },
      [](ObjectCacheKeyParts &p) { p.inputName = "other.mlir"; },
      [](ObjectCacheKeyParts &p) { p.options.push_back("-O3"); },
      [](ObjectCacheKeyParts &p) { p.options = {"-e", "other"}; },
      [](ObjectCacheKeyParts &p) { p.target = "gpu"; },
      [](ObjectCacheKeyParts &p) { p.chip = "sm_80"; },
      [](ObjectCacheKeyParts &p) { p.triple = "aarch64-unknown-linux-gnu"; },
      [](ObjectCacheKeyParts &p) { p.cpuName = "skylake-avx512"; },
      [](ObjectCacheKeyParts &p) { p.cpuFeatures = "+avx2,+avx512f"; },
      [](ObjectCacheKeyParts &p) {
        p.libraries = {"/lib/libhp_runtime_cpu.so 62216 2"};
      },
      [](ObjectCacheKeyParts &p) { p.libraries.push_back("/lib/libmkl.so"); },
      [](ObjectCacheKeyParts &p) { p.compiler += " (rebuilt)"; },
  };
  std::set<std::string> keys = {objectCacheKey(sampleParts())};
  for (auto &change : changes) {
    ObjectCacheKeyParts parts = sampleParts();
    change(parts);
    EXPECT_TRUE(keys.insert(objectCacheKey(parts)).second);
  }
}

/// Text moved from one field to the next is a different key: each field is
/// hashed after its length.
TEST(ObjectCacheTest, FieldBoundariesCount) {
  ObjectCacheKeyParts a = sampleParts(), b = sampleParts();
  a.options = {"-e", "main"};
  b.options = {"-emain"};
  EXPECT_NE(objectCacheKey(a), objectCacheKey(b));
  a.target = "cpu";
  a.chip = "";
  b = a;
  b.target = "";
  b.chip = "cpu";
  EXPECT_NE(objectCacheKey(a), objectCacheKey(b));
}

class ObjectCacheFilesTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("hp-cache-test", dir));
    settings.directory = std::string(dir) + "/objects";
    settings.maxBytes = 1 << 20;
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  llvm::SmallString<128> dir;
  ObjectCacheSettings settings;
};

TEST_F(ObjectCacheFilesTest, StoreThenLookUp) {
  std::string key = objectCacheKey(sampleParts());
  EXPECT_FALSE(lookupObject(settings.directory, key));
  llvm::Expected<std::string> path = storeObject(settings, key, "OBJECT");
  ASSERT_TRUE(bool(path)) << llvm::toString(path.takeError());
  EXPECT_EQ(*path, objectCachePath(settings.directory, key));
  std::optional<CachedObject> hit = lookupObject(settings.directory, key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->object->getBuffer(), "OBJECT");
  EXPECT_EQ(hit->diagnostics, "");
  // Stored again (two jobs compiled the same program): the last one wins,
  // with what its compile printed, and no temporary file is left.
  ASSERT_TRUE(bool(storeObject(settings, key, "OBJECT2", "a: warning\n")));
  hit = lookupObject(settings.directory, key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->object->getBuffer(), "OBJECT2");
  EXPECT_EQ(hit->diagnostics, "a: warning\n");
  std::error_code ec;
  unsigned entries = 0;
  for (llvm::sys::fs::directory_iterator it(settings.directory, ec), end;
       it != end && !ec; it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    EXPECT_FALSE(name.contains("tmp")) << name.str();
    entries += name.starts_with("llvmcache-hp-");
  }
  EXPECT_EQ(entries, 1u);
}

TEST_F(ObjectCacheFilesTest, EntryNotWholeIsAMiss) {
  std::string key = objectCacheKey(sampleParts());
  ASSERT_TRUE(bool(storeObject(settings, key, "OBJECT", "remark\n")));
  std::string path = objectCachePath(settings.directory, key);
  auto rewrite = [&](llvm::StringRef bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec);
    ASSERT_FALSE(ec);
    out << bytes;
  };
  // Not hp's format (an object without the header), a length that is not
  // a number, diagnostics cut short.
  for (llvm::StringRef bytes : {"OBJECT", "hp-object-cache 1\nx\nOBJECT",
                                "hp-object-cache 1\n99\nab"}) {
    rewrite(bytes);
    EXPECT_FALSE(lookupObject(settings.directory, key)) << bytes.str();
  }
  rewrite("hp-object-cache 1\n2\nabOBJECT");
  std::optional<CachedObject> hit = lookupObject(settings.directory, key);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->diagnostics, "ab");
  EXPECT_EQ(hit->object->getBuffer(), "OBJECT");
}

TEST_F(ObjectCacheFilesTest, UnwritableDirectoryIsAnError) {
  // A file where the directory should be.
  std::string file = std::string(dir) + "/file";
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(file, ec);
    ASSERT_FALSE(ec);
  }
  settings.directory = file;
  llvm::Expected<std::string> path =
      storeObject(settings, objectCacheKey(sampleParts()), "OBJECT");
  ASSERT_FALSE(bool(path));
  EXPECT_NE(llvm::toString(path.takeError()).find(file), std::string::npos);
}

/// An entry is code that runs as whoever loads it: a directory other users
/// can write to is refused; a new one is created for its owner alone.
TEST_F(ObjectCacheFilesTest, DirectoryOthersCanWriteIsRefused) {
  EXPECT_FALSE(bool(checkObjectCacheDirectory(settings.directory))) // missing
      << "a missing directory passes";
  ASSERT_TRUE(bool(storeObject(settings, objectCacheKey(sampleParts()), "O")));
  llvm::sys::fs::file_status status;
  ASSERT_FALSE(llvm::sys::fs::status(settings.directory, status));
  EXPECT_EQ(status.permissions() & llvm::sys::fs::all_all,
            llvm::sys::fs::owner_all);
  EXPECT_FALSE(bool(checkObjectCacheDirectory(settings.directory)));
  ASSERT_FALSE(llvm::sys::fs::setPermissions(
      settings.directory, llvm::sys::fs::owner_all | llvm::sys::fs::group_all));
  llvm::Error error = checkObjectCacheDirectory(settings.directory);
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("writable by other users"),
            std::string::npos);
  llvm::Error notDirectory = checkObjectCacheDirectory(
      objectCachePath(settings.directory, objectCacheKey(sampleParts())));
  ASSERT_TRUE(bool(notDirectory));
  EXPECT_NE(llvm::toString(std::move(notDirectory)).find("not a directory"),
            std::string::npos);
}

/// Beyond the size limit the least recently used entries go.
TEST_F(ObjectCacheFilesTest, PrunesBeyondTheLimit) {
  settings.maxBytes = 3000;
  settings.pruneInterval = std::chrono::seconds(0);
  std::string object(1000, 'x');
  for (int i = 0; i < 6; ++i) {
    ObjectCacheKeyParts parts = sampleParts();
    std::string input = "program " + std::to_string(i);
    parts.input = input;
    ASSERT_TRUE(bool(storeObject(settings, objectCacheKey(parts), object)));
  }
  uint64_t bytes = 0;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(settings.directory, ec), end;
       it != end && !ec; it.increment(ec)) {
    uint64_t size = 0;
    if (llvm::sys::path::filename(it->path()).starts_with("llvmcache-hp-") &&
        !llvm::sys::fs::file_size(it->path(), size))
      bytes += size;
  }
  // At most the limit before the last store, plus the last one.
  EXPECT_LE(bytes, 4000u);
  ObjectCacheKeyParts last = sampleParts();
  last.input = "program 5";
  EXPECT_TRUE(lookupObject(settings.directory, objectCacheKey(last)));
}

struct ScopedEnv {
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      setenv(name, saved->c_str(), 1);
    else
      unsetenv(name);
  }
  const char *name;
  std::optional<std::string> saved;
};

TEST(ObjectCacheSettingsTest, FromTheEnvironment) {
  ScopedEnv on("HP_CACHE", nullptr), dir("HP_CACHE_DIR", "/tmp/x"),
      max("HP_CACHE_MAX_MB", "3");
  auto settings = objectCacheSettings();
  ASSERT_TRUE(bool(settings) && settings->has_value());
  EXPECT_EQ((*settings)->directory, "/tmp/x");
  EXPECT_EQ((*settings)->maxBytes, 3u << 20);
  for (const char *off : {"0", "off", "No"}) {
    ScopedEnv o("HP_CACHE", off);
    auto none = objectCacheSettings();
    ASSERT_TRUE(bool(none));
    EXPECT_FALSE(none->has_value());
  }
}

TEST(ObjectCacheSettingsTest, RelativeDirectoryIsMadeAbsolute) {
  ScopedEnv on("HP_CACHE", nullptr), dir("HP_CACHE_DIR", "rel/objects"),
      max("HP_CACHE_MAX_MB", nullptr);
  auto settings = objectCacheSettings();
  ASSERT_TRUE(bool(settings) && settings->has_value());
  EXPECT_TRUE(llvm::sys::path::is_absolute((*settings)->directory));
  EXPECT_TRUE(llvm::StringRef((*settings)->directory).ends_with("rel/objects"));
}

TEST(ObjectCacheSettingsTest, DefaultsToTheUsersCache) {
  ScopedEnv on("HP_CACHE", "1"), dir("HP_CACHE_DIR", nullptr),
      xdg("XDG_CACHE_HOME", "/xdg"), max("HP_CACHE_MAX_MB", nullptr);
  auto settings = objectCacheSettings();
  ASSERT_TRUE(bool(settings) && settings->has_value());
  EXPECT_EQ((*settings)->directory, "/xdg/hp/objects");
  EXPECT_EQ((*settings)->maxBytes, uint64_t(2048) << 20);
}

TEST(ObjectCacheSettingsTest, MalformedVariablesAreErrors) {
  ScopedEnv dir("HP_CACHE_DIR", "/tmp/x");
  {
    ScopedEnv on("HP_CACHE", "maybe");
    auto s = objectCacheSettings();
    ASSERT_FALSE(bool(s));
    EXPECT_NE(llvm::toString(s.takeError()).find("HP_CACHE must be"),
              std::string::npos);
  }
  for (const char *bad : {"0", "-1", "12x", "", "99999999999999999999"}) {
    ScopedEnv max("HP_CACHE_MAX_MB", bad);
    auto s = objectCacheSettings();
    ASSERT_FALSE(bool(s)) << bad;
    EXPECT_NE(llvm::toString(s.takeError()).find("HP_CACHE_MAX_MB"),
              std::string::npos);
  }
  ScopedEnv empty("HP_CACHE_DIR", "");
  auto s = objectCacheSettings();
  ASSERT_FALSE(bool(s));
  EXPECT_NE(llvm::toString(s.takeError()).find("HP_CACHE_DIR is empty"),
            std::string::npos);
}

} // namespace
