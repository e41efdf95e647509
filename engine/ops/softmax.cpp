// Softmax: y = exp(x − max) / Σ exp(x − max) over each row (softmax.h), e^x by q8_exp, the sum in
// double in plane_sum.h's order (lane_sum). A contiguous row's exponentials run 8 or 16 at a time
// (unary_wide.h: the same bits as q8_exp).
#include "engine/ops/softmax.h"

#include <algorithm>
#include <cmath>

#include "engine/cpu/parallel.h"
#include "engine/cpu/unary_wide.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/broadcast.h"
#include "engine/ops/plane_sum.h"
#include "engine/ops/exp_float.h"

namespace q8 {

SoftmaxAxis softmax_axis(const Node& node, int64_t opset) {
  const bool coerce = opset < 13;
  return {node.attr_int("axis", coerce ? 1 : -1), coerce};
}

SoftmaxRows softmax_rows(const Dims& dims, const SoftmaxAxis& a) {
  const size_t axis = size_t(normalize_axis(a.axis, int64_t(dims.size()), "Softmax"));
  SoftmaxRows r;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d < axis) r.outer *= dims[d];
    else if (d == axis || a.coerce_2d) r.len *= dims[d];
    else r.inner *= dims[d];
  }
  return r;
}

namespace {
class Softmax final : public Op {
 public:
  explicit Softmax(SoftmaxAxis axis) : axis_(axis), exp_wide_(wide_or_null(exp_avx512, exp_avx2)) {}
  std::vector<Tensor> run(const Inputs& in) const override {
    const Tensor& x = float_input(in, 0, "Softmax", "input");
    const auto [outer, len, inner] = softmax_rows(x.dims(), axis_);
    Tensor y = Tensor::uninitialized(DType::Float32, x.dims());
    const float* px = x.data<float>();
    float* py = y.data<float>();
    parallel_for(outer * inner, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(len, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t o = r / inner, i = r % inner;
      const float* src = px + o * len * inner + i;
      float* dst = py + o * len * inner + i;
      if (inner == 1) {
        contiguous_row(src, dst, len);
        continue;
      }
      float max = -INFINITY;
      for (int64_t j = 0; j < len; ++j) max = std::max(max, src[j * inner]);
      for (int64_t j = 0; j < len; ++j) dst[j * inner] = q8_exp(src[j * inner] - max);
      const double sum = lane_sum(len, [&](int64_t j) { return double(dst[j * inner]); });
      const float scale = float(1.0 / sum);
      for (int64_t j = 0; j < len; ++j) dst[j * inner] *= scale;
    }
    });
    return {std::move(y)};
  }

 private:
  // One row of adjacent values, with the arithmetic of the strided loop, in loops the compiler
  // vectorizes: the maximum taken in 16 lanes, then across them (the largest value that is no NaN,
  // as the running maximum gives; a zero's sign may differ, which x − max and e^x do not see).
  void contiguous_row(const float* src, float* dst, int64_t len) const {
    constexpr int64_t kLanes = 16;
    float lanes[kLanes];
    std::fill(lanes, lanes + kLanes, -INFINITY);
    int64_t j = 0;
    for (; j + kLanes <= len; j += kLanes)
      for (int64_t l = 0; l < kLanes; ++l) lanes[l] = std::max(lanes[l], src[j + l]);
    float max = -INFINITY;
    for (float lane : lanes) max = std::max(max, lane);
    for (; j < len; ++j) max = std::max(max, src[j]);
    for (j = 0; j < len; ++j) dst[j] = src[j] - max;
    for (j = exp_wide_ ? exp_wide_(dst, dst, len) : 0; j < len; ++j) dst[j] = q8_exp(dst[j]);
    const double sum = lane_sum(len, [&](int64_t i) { return double(dst[i]); });
    const float scale = float(1.0 / sum);
    for (j = 0; j < len; ++j) dst[j] *= scale;
  }

  SoftmaxAxis axis_;
  UnaryArrayFn exp_wide_;  // nullptr: q8_exp one value at a time
};
}  // namespace

std::unique_ptr<Op> create_softmax(const Node& node, const OpContext& ctx) {
  return std::make_unique<Softmax>(softmax_axis(node, ctx.opset));
}

}  // namespace q8
