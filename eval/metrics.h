// The measures every comparison of FP32 and INT8 outputs shares (docs/accuracy.md), once: a
// sample's cosine, and the class a row or a pixel of scores picks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace q8 {

// cos(a, b) over n values, in double: 1 when both are all zeros, 0 when only one is.
inline double cosine_similarity(const float* a, const float* b, int64_t n) {
  double dot = 0, na = 0, nb = 0;
  for (int64_t j = 0; j < n; ++j) dot += double(a[j]) * b[j], na += double(a[j]) * a[j], nb += double(b[j]) * b[j];
  return (na > 0 && nb > 0) ? dot / std::sqrt(na * nb) : (na == nb ? 1.0 : 0.0);
}

// The first index of the largest of n values.
inline int64_t argmax(const float* row, int64_t n) { return int64_t(std::max_element(row, row + n) - row); }

// The first channel with the largest score at pixel p of a [channels, pixels] map.
inline int64_t pixel_argmax(const float* map, int64_t channels, int64_t pixels, int64_t p) {
  int64_t best = 0;
  for (int64_t c = 1; c < channels; ++c)
    if (map[c * pixels + p] > map[best * pixels + p]) best = c;
  return best;
}

}  // namespace q8
