// Per-thread buffers of the CPU INT8 ops (a sample's channels-last input, accumulators, output
// and residual), grown as needed and kept, so a run allocates nothing once warm.
#pragma once

#include <cstdint>
#include <vector>

namespace q8 {

struct CpuInt8Scratch {
  std::vector<int8_t> x_last, residual_last;
  std::vector<int32_t> acc;
  std::vector<std::byte> y_last;

  template <typename T>
  static T* sized(std::vector<T>& v, int64_t n) {
    if (v.size() < size_t(n)) v.resize(size_t(n));
    return v.data();
  }
};

inline CpuInt8Scratch& cpu_int8_scratch() {
  static thread_local CpuInt8Scratch scratch;
  return scratch;
}

}  // namespace q8
