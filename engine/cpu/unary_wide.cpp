#include "engine/cpu/unary_wide.h"

#include "engine/cpu/gemm.h"

namespace q8 {

UnaryArrayFn wide_or_null(UnaryArrayFn avx512, UnaryArrayFn avx2) {
  const std::string_view isa = gemm_isa();  // Q8_MAX_CPU_ISA caps it; "avx2" has FMA too
  if (isa == "avx512" && avx512) return avx512;
  return isa == "avx512" || isa == "avx2" ? avx2 : nullptr;  // AVX-512 machines have AVX2 and FMA
}

}  // namespace q8
