#include "engine/plan/cpu_int8/non_overlapping_transpose.h"

#include <algorithm>

#include "engine/cpu/threads.h"
#include "engine/plan/cpu_int8/band_size.h"

namespace q8 {

namespace {

bool all_equal(const std::vector<int64_t>& v, int64_t value) {
  return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == value; });
}

}  // namespace

std::unique_ptr<const NonOverlappingTranspose> NonOverlappingTranspose::create(const Int8ConvShape& shape, const int8_t* w) {
  if (!shape.transposed || shape.group != 1 || shape.in_spatial.size() != 2 || shape.kernel != shape.strides ||
      !all_equal(shape.dilations, 1) || !all_equal(shape.pad_begin, 0) || !all_equal(shape.pad_end, 0))
    return nullptr;
  const int64_t c = shape.channels_in, m = shape.channels_out, sh = shape.strides[0], sw = shape.strides[1];
  const int64_t h = shape.in_spatial[0], width = shape.in_spatial[1];
  // Output padding (or an output_shape past s · in) adds rows and columns no window reaches.
  if (shape.out_spatial[0] != h * sh || shape.out_spatial[1] != width * sw || h < 1 || width < 1 || c < 1 || m < 1) return nullptr;
  auto t = std::unique_ptr<NonOverlappingTranspose>(new NonOverlappingTranspose());
  t->height_ = h, t->row_values_ = width * c;
  const int64_t row_bytes = width * sw * m * int64_t(sizeof(int32_t));
  // A task is a band and a kernel row: at least as many as threads where the rows allow.
  const int64_t bands_wanted = (compute_threads() + sh - 1) / sh;
  t->band_rows_ = std::max<int64_t>(1, std::min(kBandAccBytes / row_bytes, (h + bands_wanted - 1) / bands_wanted));
  for (int64_t r = 0; r < h; r += t->band_rows_) t->first_rows_.push_back(r);
  const int64_t last_rows = h - t->first_rows_.back();
  // Kernel row r's weights as the product's [s_w · M, C]: row (kw · M + o), column ch holds
  // w[ch][o][r][kw], so a sum row comes out as (input column, kw, o), the output row's order.
  std::vector<int8_t> wr(size_t(sw * m * c));
  for (int64_t r = 0; r < sh; ++r) {
    for (int64_t kw = 0; kw < sw; ++kw)
      for (int64_t o = 0; o < m; ++o)
        for (int64_t ch = 0; ch < c; ++ch) wr[size_t((kw * m + o) * c + ch)] = w[((ch * m + o) * sh + r) * sw + kw];
    const auto make = [&](int64_t rows) {
      std::unique_ptr<Int8MatmulPrimitive> p = Int8MatmulPrimitive::create(rows * width, c, sw * m, true);
      if (p) p->set_weights(wr.data());
      return p;
    };
    t->full_.push_back(make(t->band_rows_));
    if (!t->full_.back()) return nullptr;
    t->last_.push_back(last_rows == t->band_rows_ ? nullptr : make(last_rows));
    if (last_rows != t->band_rows_ && !t->last_.back()) return nullptr;
  }
  return t;
}

int64_t NonOverlappingTranspose::rows(int64_t band) const { return std::min(band_rows_, height_ - first_rows_[size_t(band)]); }

void NonOverlappingTranspose::run(const int8_t* x_last, int64_t band, int64_t r, int32_t* acc) const {
  const bool last = rows(band) != band_rows_;
  const Int8MatmulPrimitive& p = last ? *last_[size_t(r)] : *full_[size_t(r)];
  p.run(x_last + first_row(band) * row_values_, acc);
}

}  // namespace q8
