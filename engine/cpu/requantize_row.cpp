#include "engine/cpu/requantize_row.h"

#include "engine/cpu/gemm.h"

namespace q8 {

int64_t requantize_row(const RequantizeRow& row, int64_t n) {
  static const std::string_view isa = gemm_isa();  // Q8_MAX_CPU_ISA caps it; "avx2" implies FMA
  if (isa == "avx512") return requantize_row_avx512(row, n);
  if (isa == "avx2") return requantize_row_avx2(row, n);
  return 0;
}

}  // namespace q8
