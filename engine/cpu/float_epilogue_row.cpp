#include "engine/cpu/float_epilogue_row.h"

#include "engine/cpu/gemm.h"

namespace q8 {

int64_t float_epilogue_row(const FloatEpilogueRow& row, int64_t n) {
  static const std::string_view isa = gemm_isa();  // Q8_MAX_CPU_ISA caps it; "avx512" includes AVX2
  if (isa == "avx512" || isa == "avx2") return float_epilogue_row_avx2(row, n);
  return 0;
}

}  // namespace q8
