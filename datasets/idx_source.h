// IDX files (the MNIST format), plain or gzip-compressed: an unsigned-byte images file
// [N, H, W] read as N grayscale images, with an optional labels file [N].
#pragma once

#include <vector>

#include "datasets/sample_source.h"

namespace q8 {

class IdxSource final : public SampleSource {
 public:
  // Reads images_path whole (decompressed) and labels_path when not empty.
  IdxSource(const std::string& images_path, const std::string& labels_path);

  size_t size() const override { return size_t(count_); }
  RawSample load(size_t i) const override;
  std::string origin(size_t i) const override;
  std::optional<int64_t> label(size_t i) const override;
  std::string describe() const override;

 private:
  std::string images_path_, labels_path_;
  std::vector<uint8_t> pixels_, labels_;
  int64_t count_ = 0, height_ = 0, width_ = 0;
};

// Reads an IDX file (gzip or plain): element type code, dims and the raw data.
struct IdxArray {
  int type = 0;  // 0x08 unsigned byte, 0x09 signed byte, 0x0B short, 0x0C int, 0x0D float, 0x0E double
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;
};
IdxArray read_idx(const std::string& path);
bool is_idx_file(const std::string& path);

}  // namespace q8
