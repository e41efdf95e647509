#include "engine/cpu/resize_row.h"

#include "engine/cpu/gemm.h"

namespace q8 {

int64_t linear_resize_row(const LinearResizeRow& row, int64_t n) {
  static const bool avx512 = gemm_isa() == "avx512";  // Q8_MAX_CPU_ISA caps it
  return avx512 ? linear_resize_row_avx512(row, n) : 0;
}

}  // namespace q8
