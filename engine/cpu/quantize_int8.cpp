#include "engine/cpu/quantize_int8.h"

#include <algorithm>

#include "engine/cpu/gemm.h"
#include "engine/cpu/parallel.h"
#include "engine/ir/rounding.h"

namespace q8 {

void quantize_int8_range(const float* x, int8_t* y, int64_t n, float s, float z) {
  static const std::string_view isa = gemm_isa();  // Q8_MAX_CPU_ISA caps it
  int64_t i = isa == "avx512" ? quantize_int8_avx512(x, y, n, s, z) : isa == "avx2" ? quantize_int8_avx2(x, y, n, s, z) : 0;
  for (; i < n; ++i) {
    const float q = round_half_even(x[i] / s) + z;
    y[i] = q == q ? int8_t(std::clamp(q, -128.0f, 127.0f)) : int8_t(-128);
  }
}

void quantize_int8(const float* x, int8_t* y, int64_t n, float s, float z) {
  constexpr int64_t kGrain = 32768;  // values per task at least
  parallel_for(n, kGrain, [&](int64_t b, int64_t e) { quantize_int8_range(x + b, y + b, e - b, s, z); });
}

}  // namespace q8
