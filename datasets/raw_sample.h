// One sample of one model input as a dataset stores it, before preprocessing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/ir/tensor.h"

namespace q8 {

// 8-bit pixels, interleaved: [height, width, channels], channels 1, 3 or 4.
struct Image {
  int64_t height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

struct RawSample {
  enum class Kind { Image, Tensor } kind = Kind::Tensor;
  Image image;
  Tensor tensor;  // one sample, without a batch dimension
};

// A decode failure of one sample: skipped and counted, or fatal with --strict.
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace q8
