#include "datasets/batch_stream.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>

namespace q8 {

namespace {
constexpr size_t kBatchesAhead = 2;
}

BatchStream::BatchStream(std::vector<StreamInput> inputs, Preprocessing pre, BatchStreamOptions options)
    : inputs_(std::move(inputs)), pre_(std::move(pre)), options_(options) {
  check(!inputs_.empty(), "no model inputs to feed");
  check(options_.batch_size >= 1, "--batch-size must be at least 1");
  // The samples come from the first input with a batch axis; a scalar input may hold one value
  // for them all (docs/datasets.md, "Batch axes").
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (inputs_[i].spec.batch_axis >= 0) {
      primary_ = i;
      break;
    }
  dataset_size_ = int64_t(inputs_[primary_].source->size());
  for (const auto& in : inputs_)
    check(int64_t(in.source->size()) == dataset_size_ || (in.spec.batch_axis < 0 && in.source->size() == 1),
          "inputs have different sample counts: '" + inputs_[primary_].spec.name + "' " + std::to_string(dataset_size_) + ", '" +
              in.spec.name + "' " + std::to_string(in.source->size()));
  order_.resize(size_t(dataset_size_));
  std::iota(order_.begin(), order_.end(), size_t(0));
  if (options_.shuffle) std::shuffle(order_.begin(), order_.end(), std::mt19937_64(options_.seed));
  if (options_.limit > 0 && options_.limit < dataset_size_) order_.resize(size_t(options_.limit));
  check(options_.skip <= int64_t(order_.size()), "the resumed run already covered " + std::to_string(options_.skip) +
                                                     " samples, more than the " + std::to_string(order_.size()) + " here");
  check(options_.shards >= 1 && options_.shard >= 0 && options_.shard < options_.shards, "shard out of range");
  const int64_t left = int64_t(order_.size()) - options_.skip;
  const int64_t begin = options_.skip + left * options_.shard / options_.shards;
  order_.resize(size_t(options_.skip + left * (options_.shard + 1) / options_.shards));
  options_.skip = begin;
  worker_ = std::thread([this] { produce(); });
}

BatchStream::~BatchStream() {
  stop_ = true;
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

namespace {

// A batch of an input's samples along its batch axis; a scalar input (no batch axis) takes the one
// value every sample of the batch must hold.
Tensor stack(const InputSpec& spec, const std::vector<Tensor>& samples, const std::vector<size_t>& indices) {
  const size_t bytes = samples[0].nbytes();
  if (spec.batch_axis < 0) {
    for (size_t s = 1; s < samples.size(); ++s)
      check(std::memcmp(samples[s].raw(), samples[0].raw(), bytes) == 0,
            "input '" + spec.name + "' is a scalar, one value for a whole batch, but samples " + std::to_string(indices[0]) + " and " +
                std::to_string(indices[s]) + " differ");
    return samples[0];
  }
  const size_t axis = size_t(spec.batch_axis), count = samples.size();
  Dims dims = spec.sample_dims;
  dims.insert(dims.begin() + std::ptrdiff_t(axis), int64_t(count));
  Tensor t(spec.dtype, dims);
  int64_t outer = 1;  // the sample's elements before the batch axis, in runs of `inner` bytes
  for (size_t d = 0; d < axis; ++d) outer *= spec.sample_dims[d];
  const size_t inner = outer > 0 ? bytes / size_t(outer) : 0;
  for (size_t s = 0; s < count; ++s)
    for (int64_t o = 0; o < outer; ++o) std::memcpy(t.raw() + (size_t(o) * count + s) * inner, samples[s].raw() + size_t(o) * inner, inner);
  return t;
}

}  // namespace

Batch BatchStream::make_batch(int64_t begin, int64_t end) {
  std::vector<std::vector<Tensor>> per_input(inputs_.size());
  Batch batch;
  for (int64_t k = begin; k < end; ++k) {
    const size_t index = order_[size_t(k)];
    std::vector<Tensor> samples;
    try {
      for (const auto& in : inputs_) {
        const size_t at = in.source->size() == 1 ? 0 : index;  // a scalar's one value serves every sample
        samples.push_back(to_model_sample(in.source->load(at), in.spec, pre_, in.source->origin(at)));
      }
    } catch (const DecodeError& e) {
      if (options_.strict) throw Error(std::string(e.what()) + " (--strict)");
      std::lock_guard<std::mutex> lock(mutex_);
      skipped_.push_back(e.what());
      continue;
    }
    for (size_t i = 0; i < inputs_.size(); ++i) per_input[i].push_back(std::move(samples[i]));
    batch.labels.push_back(inputs_[primary_].source->label(index));
    batch.indices.push_back(index);
  }
  batch.count = int64_t(batch.labels.size());
  batch.position = end - options_.skip;
  if (batch.count == 0) return batch;
  for (size_t i = 0; i < inputs_.size(); ++i) batch.inputs[inputs_[i].spec.name] = stack(inputs_[i].spec, per_input[i], batch.indices);
  return batch;
}

void BatchStream::produce() {
  try {
    for (int64_t begin = options_.skip; begin < int64_t(order_.size()) && !stop_; begin += options_.batch_size) {
      Batch b = make_batch(begin, std::min<int64_t>(begin + options_.batch_size, int64_t(order_.size())));
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || ready_.size() < kBatchesAhead; });
      if (stop_) return;
      ready_.push_back(std::move(b));
      changed_.notify_all();
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  changed_.notify_all();
}

std::optional<Batch> BatchStream::next() {
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !ready_.empty() || done_; });
    if (!ready_.empty()) {
      Batch b = std::move(ready_.front());
      ready_.pop_front();
      changed_.notify_all();
      if (b.count == 0) continue;  // every sample of it was corrupt
      return b;
    }
    if (error_) std::rethrow_exception(error_);
    return std::nullopt;
  }
}

std::vector<std::string> BatchStream::skipped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skipped_;
}

}  // namespace q8
