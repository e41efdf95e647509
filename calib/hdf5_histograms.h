// HDF5 histogram files: one group per tensor with its |x| counts and statistics, plus the run's
// settings, so runs can be inspected, resumed (--resume) and merged across shards (--merge).
#pragma once

#include <map>
#include <string>

#include "calib/tensor_observer.h"

namespace q8 {

struct HistogramFile {
  std::string model_sha256;
  std::string q8_version;
  std::string dataset;   // description of the data, preprocessing and order
  int64_t bins = kDefaultHistogramBins;
  bool skip_zeros = false;
  uint64_t samples = 0;  // samples observed
  std::map<std::string, TensorObserver> observers;
  // Provenance that --resume checks: the sample order ("sorted", "shuffled with seed 7") and the
  // preprocessing (Preprocessing::to_json). "" in files that predate them.
  std::string order;
  std::string preprocess;
  bool equalize = false;  // observed on the graph after cross-layer equalization (an attribute only when true)
};

// Writes atomically (a temporary file beside path, then a rename).
void write_histograms(const std::string& path, const HistogramFile& file);
// The bytes of that file (for writers that commit several files together).
std::string histograms_image(const HistogramFile& file);
// Reads and validates: bins a power of two, every tensor's counts summing to its element count,
// its width the one the width rule gives for its max |x|, statistics finite and consistent. An
// Error names the file and the tensor.
HistogramFile read_histograms(const std::string& path);

}  // namespace q8
