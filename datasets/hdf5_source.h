// HDF5 files: a dataset of samples [N, …] (name from --h5-dataset) and an optional labels
// dataset [N] (--h5-labels). Samples are read one hyperslab at a time.
#pragma once

#include <vector>

#include "datasets/sample_source.h"

namespace q8 {

class Hdf5Source final : public SampleSource {
 public:
  Hdf5Source(const std::string& path, const std::string& dataset, const std::string& labels);
  ~Hdf5Source() override;

  size_t size() const override { return size_t(count_); }
  RawSample load(size_t i) const override;
  std::string origin(size_t i) const override { return path_ + ":" + dataset_ + "[" + std::to_string(i) + "]"; }
  std::optional<int64_t> label(size_t i) const override;
  std::string describe() const override;

 private:
  // The constructor's work; on an Error the constructor closes what it opened.
  void open(const std::string& labels);
  void close();
  std::string path_, dataset_;
  int64_t file_ = -1, data_ = -1;  // hid_t
  DType dtype_ = DType::Undefined;
  Dims sample_dims_;
  int64_t count_ = 0;
  std::vector<int64_t> labels_;
};

}  // namespace q8
