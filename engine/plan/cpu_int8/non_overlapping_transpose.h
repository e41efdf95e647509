// A 2-D transposed convolution whose kernel is its stride, without padding, dilation, groups or
// output padding (an FPN's or a segmentation head's 2 × 2 / 2 upsampling): no two windows
// overlap, so every output takes the products of one input position with one tap, and output
// row i · s_h + r is, channels-last, input row i times kernel row r: a product [W, C] · [C, s_w · M]
// whose rows are (input column, kernel column, channel) in the output row's own order
// (docs/cpu.md, "Transposed convolutions whose kernel is their stride").
#pragma once

#include <memory>
#include <vector>

#include "engine/cpu/int8_primitive.h"

namespace q8 {

class NonOverlappingTranspose {
 public:
  // nullptr where `shape` is not such a convolution or oneDNN has no product for it. W is
  // ConvTranspose's [C, M, s_h, s_w]; each kernel row's weights are packed here, once.
  static std::unique_ptr<const NonOverlappingTranspose> create(const Int8ConvShape& shape, const int8_t* w);

  // The input rows of each band: as many as keep a kernel row's sums within kBandAccBytes, and
  // few enough that every thread has some work.
  int64_t bands() const { return int64_t(first_rows_.size()); }
  int64_t first_row(int64_t band) const { return first_rows_[size_t(band)]; }
  int64_t rows(int64_t band) const;
  int64_t most_rows() const { return band_rows_; }
  int64_t kernel_rows() const { return int64_t(full_.size()); }

  // Band `band`'s sums through kernel row r: acc [rows(band) · W, s_w · M], its row i being output
  // row (first_row(band) + i) · s_h + r channels-last. x_last: the sample's [H, W, C].
  void run(const int8_t* x_last, int64_t band, int64_t r, int32_t* acc) const;

 private:
  int64_t height_ = 0, row_values_ = 0, band_rows_ = 0;  // row_values_: W · C
  std::vector<int64_t> first_rows_;
  // Per kernel row: the product of a full band and of the last, shorter one (nullptr if none).
  std::vector<std::unique_ptr<Int8MatmulPrimitive>> full_, last_;
};

}  // namespace q8
