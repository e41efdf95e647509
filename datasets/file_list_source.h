// Samples from a list of files: images (one sample each), .npy and .pb (one sample, or a batch
// along the input's batch axis, 0 unless said, when the file has one more dimension than a sample).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "datasets/sample_source.h"
#include "engine/io/npy.h"

namespace q8 {

class FileListSource final : public SampleSource {
 public:
  // files: sorted paths; labels: per file, or empty. sample_rank: rank of one model-input sample
  // (a tensor file of rank sample_rank + 1 is a batch, along batch_axis). describe: the layout found.
  FileListSource(std::vector<std::string> files, std::vector<int64_t> labels, size_t sample_rank, std::string describe,
                 size_t batch_axis = 0);

  size_t size() const override { return entries_.size(); }
  RawSample load(size_t i) const override;
  std::string origin(size_t i) const override;
  std::optional<int64_t> label(size_t i) const override;
  std::string describe() const override { return describe_; }

 private:
  struct Entry {
    size_t file;
    int64_t index;  // -1: the whole file is one sample
  };
  std::vector<std::string> files_;
  std::vector<int64_t> labels_;
  std::vector<Entry> entries_;
  std::vector<std::optional<NpyHeader>> npy_headers_;  // per file: read once, for batched .npy files
  std::string describe_;
  size_t batch_axis_;
};

}  // namespace q8
