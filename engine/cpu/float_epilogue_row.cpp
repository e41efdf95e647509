#include "engine/cpu/float_epilogue_row.h"

#include "engine/cpu/gemm.h"

namespace q8 {

namespace {
enum class Body { Avx512, Avx2, None };
Body pick_body() {
  const std::string_view isa = gemm_isa();  // Q8_MAX_CPU_ISA caps it; "avx512" includes AVX2
  return isa == "avx512" ? Body::Avx512 : isa == "avx2" ? Body::Avx2 : Body::None;
}
}  // namespace

int64_t float_epilogue_row(const FloatEpilogueRow& row, int64_t n) {
  static const Body body = pick_body();  // chosen once: this runs once a position
  if (body == Body::None) return 0;
  const int64_t wide = body == Body::Avx512 ? float_epilogue_row_avx512(row, n) : 0;
  if (wide == n) return n;
  // The rest (AVX-512: fewer than 16) in vectors of 8.
  FloatEpilogueRow rest = row;
  rest.acc += wide, rest.s += wide, rest.b += wide;
  rest.y = row.y_scale > 0.0f ? static_cast<void*>(static_cast<int8_t*>(row.y) + wide) : static_cast<void*>(static_cast<float*>(row.y) + wide);
  return wide + float_epilogue_row_avx2(rest, n - wide);
}

}  // namespace q8
