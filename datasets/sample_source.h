// A dataset's samples for one model input, addressable by index. Readers (image folders, .npy,
// .pb, IDX, HDF5) implement it; the batch stream reads through it.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "datasets/raw_sample.h"

namespace q8 {

class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual size_t size() const = 0;
  // Decodes sample i; throws DecodeError for a corrupt or unreadable sample.
  virtual RawSample load(size_t i) const = 0;
  // Where sample i comes from ("img/cat/1.png", "train.npy[12]").
  virtual std::string origin(size_t i) const = 0;
  virtual std::optional<int64_t> label(size_t i) const { return std::nullopt; }
  // "412 PNG/JPEG images in 10 class folders".
  virtual std::string describe() const = 0;
};

struct SourceOptions {
  std::string h5_dataset = "data";     // HDF5: the samples' dataset
  std::string h5_labels = "";          // HDF5: the labels' dataset ("" = "labels" if present)
  size_t sample_rank = 3;              // rank of one model-input sample (a file of rank + 1 is a batch)
  size_t batch_axis = 0;               // the axis such a file holds its samples along (the input's batch axis)
};

// Opens a dataset file or directory (docs/datasets.md says which layouts are recognized).
// Errors name the path: missing, empty, no files of a known type, mixed types.
std::unique_ptr<SampleSource> open_source(const std::string& path, const SourceOptions& options);

}  // namespace q8
