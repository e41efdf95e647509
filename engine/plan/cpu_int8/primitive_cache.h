// The oneDNN primitives of one CPU INT8 node: one per shape and thread count (oneDNN chooses its
// blocking for the threads it is made with), made on first use, weights packed there; and the
// layouts of a convolution node (conv_samples.h), keyed the same way.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "engine/cpu/threads.h"

namespace q8 {

template <typename Key, typename Primitive>
class PrimitiveCache {
 public:
  // The primitive for `key` at the current thread count, made by make() the first time; nullptr
  // where make() gave none (the caller then runs the reference).
  template <typename Make>
  const Primitive* get(const Key& key, Make make) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int threads = compute_threads();
    for (const Entry& e : entries_)
      if (e.threads == threads && e.key == key) return e.primitive.get();
    entries_.push_back({key, threads, make()});
    return entries_.back().primitive.get();
  }

 private:
  struct Entry {
    Key key;
    int threads = 0;
    std::unique_ptr<Primitive> primitive;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace q8
