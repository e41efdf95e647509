#include "engine/ops/channels_last.h"

#include <algorithm>
#include <cstring>

#include "engine/cpu/parallel.h"
#include "engine/cpu/transpose.h"

namespace q8 {

namespace {

// Each of x's n samples, a rows × cols matrix, transposed into y.
void transpose_samples(const Tensor& x, Tensor& y, int64_t rows, int64_t cols) {
  if (y.numel() == 0) return;
  transpose_matrices(x.raw(), y.raw(), x.dim(0), rows, cols, dtype_size(x.dtype()));
}

void check_layout_rank(const Tensor& x, const char* what) {
  check(x.rank() >= 3, std::string(what) + ": a channels-last tensor needs rank >= 3, got " + dims_to_string(x.dims()));
  check(x.dtype() != DType::Undefined, std::string(what) + ": the tensor has no element type");
}

}  // namespace

Dims channels_last_dims(const Dims& d) {
  Dims out{d[0]};
  out.insert(out.end(), d.begin() + 2, d.end());
  out.push_back(d[1]);
  return out;
}

Dims channels_first_dims(const Dims& d) {
  Dims out{d[0], d.back()};
  out.insert(out.end(), d.begin() + 1, d.end() - 1);
  return out;
}

void to_channels_last_into(const Tensor& x, Tensor& y) {
  check_layout_rank(x, "to channels-last");
  const int64_t c = x.dim(1), s = x.dim(0) * c != 0 ? x.numel() / (x.dim(0) * c) : 0;
  transpose_samples(x, y, c, s);
}

void to_channels_first_into(const Tensor& x, Tensor& y) {
  check_layout_rank(x, "to channels-first");
  const int64_t c = x.dims().back(), s = x.dim(0) * c != 0 ? x.numel() / (x.dim(0) * c) : 0;
  transpose_samples(x, y, s, c);
}

Tensor to_channels_last(const Tensor& x) {
  check_layout_rank(x, "to channels-last");
  Tensor y = Tensor::uninitialized(x.dtype(), channels_last_dims(x.dims()));
  to_channels_last_into(x, y);
  return y;
}

Tensor to_channels_first(const Tensor& x) {
  check_layout_rank(x, "to channels-first");
  Tensor y = Tensor::uninitialized(x.dtype(), channels_first_dims(x.dims()));
  to_channels_first_into(x, y);
  return y;
}

std::vector<Tensor> run_channels_first(const ChannelsFirstRun& run, const Inputs& in, const std::vector<size_t>& slots) {
  std::vector<Tensor> moved;
  moved.reserve(slots.size());
  Inputs first = in;
  for (size_t slot : slots)
    if (slot < in.size() && in[slot]) {
      moved.push_back(to_channels_first(*in[slot]));
      first[slot] = &moved.back();
    }
  std::vector<Tensor> out = run(first);
  out.at(0) = to_channels_last(out[0]);
  return out;
}

}  // namespace q8
