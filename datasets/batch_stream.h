// Batches of preprocessed samples, in a fixed order, decoded by a background thread one batch
// ahead. Memory stays bounded by a few batches whatever the dataset's size.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "datasets/batch_source.h"
#include "datasets/preprocess.h"
#include "datasets/sample_source.h"
#include "engine/ir/tensor_map.h"

namespace q8 {

struct BatchStreamOptions {
  int64_t batch_size = 32;
  int64_t limit = 0;       // 0 = every sample
  bool shuffle = false;
  uint64_t seed = 0;
  int64_t skip = 0;        // samples of the order already processed (a resumed run)
  bool strict = false;     // a corrupt sample is an error instead of being skipped
  // Of the order left after limit and skip, this stream takes part `shard` of `shards` contiguous,
  // near-equal parts (one process's share of a distributed run).
  int shard = 0, shards = 1;
};

// One input of the model with the source of its samples.
struct StreamInput {
  InputSpec spec;
  std::shared_ptr<SampleSource> source;
};

class BatchStream : public BatchSource {
 public:
  // Every source must hold the same number of samples (several inputs are paired by index).
  BatchStream(std::vector<StreamInput> inputs, Preprocessing pre, BatchStreamOptions options);
  ~BatchStream() override;
  BatchStream(const BatchStream&) = delete;
  BatchStream& operator=(const BatchStream&) = delete;

  // Samples the stream will go through (after limit and skip).
  int64_t total() const override { return int64_t(order_.size()) - options_.skip; }
  int64_t dataset_size() const { return dataset_size_; }
  // The next batch, or nullopt at the end. Rethrows the decoder's errors.
  std::optional<Batch> next() override;
  // "origin: reason" for every corrupt sample skipped so far.
  std::vector<std::string> skipped() const;

 private:
  void produce();
  Batch make_batch(int64_t begin, int64_t end);

  std::vector<StreamInput> inputs_;
  Preprocessing pre_;
  BatchStreamOptions options_;
  std::vector<size_t> order_;
  int64_t dataset_size_ = 0;
  size_t primary_ = 0;  // the input whose samples (and labels) the stream counts

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch> ready_;
  bool done_ = false;
  std::exception_ptr error_;
  std::vector<std::string> skipped_;
  std::atomic<bool> stop_{false};
  std::thread worker_;
};

}  // namespace q8
