#include "calib/observe_avx512.h"

#include <immintrin.h>

namespace q8 {

namespace {

// Running statistics, 16 lanes at a time: minimum and maximum over finite values (v < lo /
// v > hi, as the scalar loop), zeros, and NaN/±Inf (an all-ones exponent).
class WideStats {
 public:
  explicit WideStats(const ScanTotals& t) : lo_(_mm512_set1_ps(t.lo)), hi_(_mm512_set1_ps(t.hi)) {}

  // Adds 16 values; returns the mask of their zeros.
  __mmask16 add(__m512 v) {
    const __mmask16 finite = _mm512_cmpneq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(v), exponent_), exponent_);
    const __mmask16 zero = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_EQ_OQ);
    nonfinite_ += 16 - uint32_t(__builtin_popcount(finite));
    zeros_ += uint32_t(__builtin_popcount(zero));
    // MINPS and MAXPS return their second operand (lo_, hi_) on ties, as the scalar loop keeps
    // the first value; the finite mask keeps NaN and ±Inf out. A compare into a mask, then a
    // masked move, made a chain of about 8 cycles per 16 values through lo_ and hi_.
    lo_ = _mm512_mask_min_ps(lo_, finite, v, lo_);
    hi_ = _mm512_mask_max_ps(hi_, finite, v, hi_);
    return zero;
  }

  // Adds 16 values that are binned: the caller sends NaN and ±Inf to the top bin, which makes
  // it discard this scan for its two passes, so they need no mask here. Returns the mask of the
  // values that are not zero (NaN included). min(v, lo) and max(v, hi) take v only when v < lo /
  // v > hi, as the scalar loop (a NaN never).
  __mmask16 add_binned(__m512 v) {
    const __mmask16 nonzero = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NEQ_UQ);
    zeros_ += 16 - uint32_t(__builtin_popcount(nonzero));
    lo_ = _mm512_min_ps(v, lo_);
    hi_ = _mm512_max_ps(v, hi_);
    return nonzero;
  }

  // Folds the lanes into t in the scalar loop's order-free way (min and max are exact).
  void fold(ScanTotals& t) const {
    alignas(64) float l[16], h[16];
    _mm512_store_ps(l, lo_);
    _mm512_store_ps(h, hi_);
    for (int k = 0; k < 16; ++k) {
      if (l[k] < t.lo) t.lo = l[k];
      if (h[k] > t.hi) t.hi = h[k];
    }
    t.zeros += zeros_, t.nonfinite += nonfinite_;
  }

 private:
  const __m512i exponent_ = _mm512_set1_epi32(0x7f800000);
  __m512 lo_, hi_;
  uint32_t zeros_ = 0, nonfinite_ = 0;
};

// The scan; kSigned adds the offset of negative values' bins and takes their scale.
template <bool kSigned>
int64_t scan_and_bin(const float* p, int64_t n, BinScales scales, int64_t top, int64_t stride, uint16_t* local,
                     ScanTotals& totals) {
  const __m512i abs_mask = _mm512_set1_epi32(0x7fffffff);
  const __m512 pos_scale = _mm512_set1_ps(scales.pos), neg_scale = _mm512_set1_ps(scales.neg), cap = _mm512_set1_ps(float(top));
  const __m512i neg_offset = _mm512_set1_epi32(int32_t(scales.neg_offset));
  WideStats stats(totals);
  uint16_t* copy[kBinCopies];
  for (int k = 0; k < kBinCopies; ++k) copy[k] = local + k * stride;
  // Bins of non-zero values wait here, packed, and are counted in runs of kBinCopies, one per
  // copy. Zeros (runs of them follow ReLU) are only counted: they cost no increment.
  constexpr int kPending = 256;
  alignas(64) uint32_t pending[kPending + 16];
  int fill = 0;
  auto count_runs = [&] {
    const int whole = fill - fill % kBinCopies;
    for (int j = 0; j < whole; j += kBinCopies)
      for (int k = 0; k < kBinCopies; ++k) ++copy[k][pending[j + k]];
    for (int j = whole; j < fill; ++j) pending[j - whole] = pending[j];
    fill -= whole;
  };
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(p + i);
    const __mmask16 nonzero = stats.add_binned(v);
    const __m512 magnitude = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), abs_mask));
    // min(|v| · scale, top): MINPS returns its second operand when the first is NaN.
    __m512i b;
    if constexpr (kSigned) {
      const __mmask16 negative = _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_LT_OQ);
      const __m512 scale = _mm512_mask_blend_ps(negative, pos_scale, neg_scale);
      b = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_mul_ps(magnitude, scale), cap));
      b = _mm512_mask_add_epi32(b, negative, b, neg_offset);
    } else {
      b = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_mul_ps(magnitude, pos_scale), cap));
    }
    _mm512_storeu_si512(pending + fill, _mm512_maskz_compress_epi32(nonzero, b));
    fill += __builtin_popcount(nonzero);
    if (fill >= kPending) count_runs();
  }
  count_runs();
  for (int j = 0; j < fill; ++j) ++copy[j][pending[j]];  // fewer than kBinCopies left, one per copy
  stats.fold(totals);
  return i;
}

}  // namespace

int64_t scan_and_bin_avx512(const float* p, int64_t n, BinScales scales, int64_t top, int64_t stride, uint16_t* local,
                            ScanTotals& totals) {
  return scales.neg_offset ? scan_and_bin<true>(p, n, scales, top, stride, local, totals)
                           : scan_and_bin<false>(p, n, scales, top, stride, local, totals);
}

int64_t scan_avx512(const float* p, int64_t n, ScanTotals& totals) {
  WideStats stats(totals);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) stats.add(_mm512_loadu_ps(p + i));
  stats.fold(totals);
  return i;
}

}  // namespace q8
