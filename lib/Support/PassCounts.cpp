//===- PassCounts.cpp - pass statistics without LLVM_ENABLE_STATS ---------===//

#include "hp/Support/PassCounts.h"

#include "mlir/Pass/Pass.h"
#include "llvm/Support/Format.h"

#include <map>
#include <mutex>

using namespace mlir;

namespace {

struct Count {
  std::string description;
  uint64_t value = 0;
};

/// Counts per pass (by argument), then per count name, in a stable order.
class Sink {
public:
  void add(StringRef pass, StringRef name, StringRef description,
           uint64_t value) {
    std::lock_guard<std::mutex> lock(mutex);
    Count &c = counts[pass.str()][name.str()];
    c.description = description.str();
    c.value += value;
  }

  void print(llvm::raw_ostream &os) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &[pass, byName] : counts) {
      os << pass << "\n";
      size_t width = 0, nameWidth = 0;
      for (auto &[name, c] : byName) {
        width = std::max(width, std::to_string(c.value).size());
        nameWidth = std::max(nameWidth, name.size());
      }
      for (auto &[name, c] : byName)
        os << "  (S) "
           << llvm::right_justify(std::to_string(c.value),
                                  static_cast<unsigned>(width))
           << " " << llvm::left_justify(name, static_cast<unsigned>(nameWidth))
           << " - " << c.description << "\n";
    }
  }

private:
  std::mutex mutex;
  std::map<std::string, std::map<std::string, Count>> counts;
};

std::mutex sinkMutex;
Sink *activeSink = nullptr;

class PassCountsInstrumentation : public PassInstrumentation {
public:
  explicit PassCountsInstrumentation(llvm::raw_ostream &os) : os(os) {
    std::lock_guard<std::mutex> lock(sinkMutex);
    previous = activeSink;
    activeSink = &sink;
  }
  ~PassCountsInstrumentation() override {
    {
      std::lock_guard<std::mutex> lock(sinkMutex);
      activeSink = previous;
    }
    sink.print(os);
    os.flush();
  }

private:
  llvm::raw_ostream &os;
  Sink sink;
  Sink *previous = nullptr;
};

} // namespace

void hp::reportPassCount(const Pass &pass, StringRef name,
                         StringRef description, uint64_t value) {
  std::lock_guard<std::mutex> lock(sinkMutex);
  if (activeSink)
    activeSink->add(pass.getName(), name, description, value);
}

std::unique_ptr<PassInstrumentation>
hp::createPassCountsInstrumentation(llvm::raw_ostream &os) {
  return std::make_unique<PassCountsInstrumentation>(os);
}
