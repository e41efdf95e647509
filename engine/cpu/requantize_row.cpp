#include "engine/cpu/requantize_row.h"

#include "engine/cpu/gemm.h"

namespace q8 {

namespace {
int64_t no_vectors(const RequantizeRow&, int64_t) { return 0; }

using Body = int64_t (*)(const RequantizeRow&, int64_t);
Body pick_body() {
  const std::string_view isa = gemm_isa();  // Q8_MAX_CPU_ISA caps it; "avx2" implies FMA
  __builtin_cpu_init();
  // The AVX-512 body packs bytes with AVX512BW (every AVX-512 x86 core since Skylake-SP has it).
  if (isa == "avx512" && __builtin_cpu_supports("avx512bw")) return requantize_row_avx512;
  return isa == "avx512" || isa == "avx2" ? requantize_row_avx2 : no_vectors;
}
}  // namespace

int64_t requantize_row(const RequantizeRow& row, int64_t n) {
  static const Body body = pick_body();  // chosen once: this runs once a position
  return body(row, n);
}

}  // namespace q8
